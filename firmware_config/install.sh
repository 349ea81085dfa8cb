#!/usr/bin/env bash
# Install dicetable on a Raspberry Pi (Raspberry Pi OS, Bookworm or later).
# Idempotent: running it again updates the code and leaves your config alone.
#
#   sudo firmware_config/install.sh                 # install, ask about the boot config
#   sudo firmware_config/install.sh --boot-config yes
#   firmware_config/install.sh --root /tmp/pi --no-apt --no-pip   # into a folder (tests)
#
#   --boot-config yes|no|ask   add the boot config fragment, or replace an older
#                              version's (step 6); ask (the default) is no without
#                              a terminal
#   --root DIR                 install into DIR instead of /: a system's root folder,
#                              holding at least etc/passwd and etc/group
#   --no-apt, --no-pip         skip step 1, the pip install of step 3
#
# What it does, each step only if not done yet:
#   1. apt: python3-venv, python3-picamera2, python3-libcamera, python3-lgpio, i2c-tools
#      (--no-apt skips)
#   2. a system user "dicetable" in the groups gpio, i2c, video; the sudo user
#      in the group dicetable (to read the saved games)
#   3. a venv in /opt/dicetable/venv that can see the apt picamera2/libcamera
#      (--system-site-packages), with dicetable and its Pi extra installed (--no-pip skips)
#   4. /etc/dicetable/dicetable.toml (only if absent: your edits are kept)
#   5. /etc/systemd/system/dicetable.service, enabled; i2c-dev, videodev and mc loaded
#      at boot (/etc/modules-load.d/dicetable.conf: /dev/i2c-1, the OLED's bus, comes
#      from i2c-dev; the unit's camera devices are allowed only once the other two are)
#   6. the boot config fragment in /boot/firmware/config.txt, only with consent (an
#      older version's block is replaced, also only with consent; a copy is kept)
set -euo pipefail

ROOT=/
BOOT_CONFIG=ask
DO_APT=1
DO_PIP=1
SRC=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }   # the comment block above
bad() { echo "install.sh: $* (see --help)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ -n "${2:-}" ] || bad "--root needs a folder"; ROOT=$2; shift 2 ;;
        --boot-config) [ -n "${2:-}" ] || bad "--boot-config needs yes, no or ask"
            BOOT_CONFIG=$2; shift 2 ;;
        --no-apt) DO_APT=0; shift ;;
        --no-pip) DO_PIP=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$BOOT_CONFIG" in yes|no|ask) ;; *) echo "install.sh: --boot-config must be yes, no or ask" >&2; exit 2 ;; esac
ROOT=$(realpath -m -s -- "$ROOT")   # groupadd --prefix takes an absolute path only
ROOT=${ROOT%/}
# The system itself is changed by root only: without sudo, apt and groupadd fail halfway.
[ -n "$ROOT" ] || [ "$(id -u)" = 0 ] || bad "run it as root: sudo $0"
# Step 2's groupadd and useradd --prefix edit DIR/etc/passwd and DIR/etc/group: without
# them they wait on a lock for seconds and fail with "cannot lock".
if [ -n "$ROOT" ] && { [ ! -f "$ROOT/etc/passwd" ] || [ ! -f "$ROOT/etc/group" ]; }; then
    bad "--root $ROOT: no etc/passwd and etc/group in it; give the root folder of a system"
fi
R() { printf '%s%s' "$ROOT" "$1"; }   # a path inside the target root
say() { printf 'dicetable install: %s\n' "$*"; }

PREFIX=/opt/dicetable
VENV=$PREFIX/venv
UNIT=/etc/systemd/system/dicetable.service
CONF=/etc/dicetable/dicetable.toml
BOOT=/boot/firmware/config.txt
[ -e "$(R /boot/firmware)" ] || [ ! -e "$(R /boot/config.txt)" ] || BOOT=/boot/config.txt

# 1. packages from the OS
if [ "$DO_APT" = 1 ]; then
    # python3-lgpio too: the venv sees it, so pip need not build lgpio (whose only wheels
    # on the package index are for Python 3.9-3.12) from source, which has no swig here
    say "installing OS packages (python3-picamera2, python3-libcamera, python3-lgpio, i2c-tools)"
    apt-get update -qq
    apt-get install -y -qq python3-venv python3-picamera2 python3-libcamera python3-lgpio i2c-tools
fi

# 2. the service user and its groups
for g in gpio i2c video dicetable; do
    if ! grep -q "^$g:" "$(R /etc/group)" 2>/dev/null; then
        groupadd --system ${ROOT:+--prefix "$ROOT"} "$g"
        say "created group $g"
    fi
done
if ! grep -q '^dicetable:' "$(R /etc/passwd)" 2>/dev/null; then
    useradd --system ${ROOT:+--prefix "$ROOT"} --gid dicetable --groups gpio,i2c,video \
        --home-dir /var/lib/dicetable --no-create-home --shell /usr/sbin/nologin dicetable
    say "created user dicetable (groups gpio, i2c, video)"
else
    usermod ${ROOT:+--prefix "$ROOT"} --append --groups gpio,i2c,video dicetable
fi
# The person installing (sudo) may read the games in /var/lib/dicetable (mode 0750).
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ] &&
    grep -q "^$SUDO_USER:" "$(R /etc/passwd)" 2>/dev/null &&
    ! grep -Eq "^dicetable:[^:]*:[^:]*:(.*,)?$SUDO_USER(,|\$)" "$(R /etc/group)"; then
    usermod ${ROOT:+--prefix "$ROOT"} --append --groups dicetable "$SUDO_USER"
    say "added $SUDO_USER to the group dicetable (to read the saved games; log in again)"
fi

# 3. the code, in a venv that sees the OS's picamera2
mkdir -p "$(R $PREFIX)"
# A venv whose pip does not run is made again: one cut short (no python3-venv yet,
# Ctrl-C, a full disk) has bin/python but no pip, and was never repaired.
if [ ! -f "$(R $VENV)/pyvenv.cfg" ] || ! "$(R $VENV)/bin/python" -m pip --version >/dev/null 2>&1; then
    python3 -m venv --clear --system-site-packages "$(R $VENV)"
    say "created $VENV"
fi
cp "$SRC/README.md" "$(R $PREFIX)/README.md"
if [ "$DO_PIP" = 1 ]; then
    # From a clean copy of the source: pip builds in the folder it is given, and
    # setuptools' build/ there kept files since deleted from the source (a network left
    # in build/lib was installed again and averaged in), owned by root in your clone.
    copy=$(mktemp -d)
    trap 'rm -rf "$copy"' EXIT
    tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='./*.egg-info' \
        --exclude=./out -cf - . | tar -C "$copy" -xf -
    "$(R $VENV)/bin/python" -m pip install -q --upgrade "${copy}[pi]"
    rm -rf "$copy"
    say "installed dicetable into $VENV"
    # The Camera Module is read through the OS's picamera2; say now if the venv cannot load
    # it (a USB webcam, camera.source = "usb:0", works without it).
    if [ -z "$ROOT" ] && ! picam_err=$("$VENV/bin/python" -c 'import picamera2' 2>&1); then
        say "warning: picamera2 does not load in $VENV: $(printf '%s' "$picam_err" | tail -n 1)"
        say "the Camera Module will not work until it does; a USB webcam still will"
    fi
fi

# 4. config: a person's edits are never overwritten
install -d -m 0755 "$(R /etc/dicetable)"
if [ ! -e "$(R $CONF)" ]; then
    install -m 0644 "$SRC/firmware_config/dicetable.toml" "$(R $CONF)"
    say "wrote $CONF (edit it to change pins, display, camera)"
else
    say "kept your $CONF"
fi

# 5. the service
install -d "$(R /etc/systemd/system)"
sed "s#^ExecStart=/opt/dicetable/venv/bin/dicetable#ExecStart=$VENV/bin/dicetable#" \
    "$SRC/systemd/dicetable.service" > "$(R $UNIT).new"
if cmp -s "$(R $UNIT).new" "$(R $UNIT)" 2>/dev/null; then
    rm "$(R $UNIT).new"
else
    mv "$(R $UNIT).new" "$(R $UNIT)"
    chmod 0644 "$(R $UNIT)"
    say "installed $UNIT"
fi
if [ -z "$ROOT" ]; then
    systemctl daemon-reload
    systemctl enable dicetable.service
else
    systemctl --root="$ROOT" enable dicetable.service >/dev/null 2>&1 ||
        { install -d "$(R /etc/systemd/system/multi-user.target.wants)"
          ln -sfn "$UNIT" "$(R /etc/systemd/system/multi-user.target.wants/dicetable.service)"; }
fi

# The I2C controller (dtparam=i2c_arm=on) gives no /dev/i2c-1 without the i2c-dev module,
# which raspi-config loads through /etc/modules when it turns I2C on; this script does
# it here. videodev and mc (video4linux and the media controller, modules in the Pi's
# kernel) are loaded before the service too: its DeviceAllow=char-video4linux and
# char-media are looked up in /proc/devices when it starts, and a class whose module
# udev had not loaded yet was left out for good, the camera refused until a restart.
MODULES=/etc/modules-load.d/dicetable.conf
WANTED_MODULES='i2c-dev
videodev
mc'
install -d "$(R /etc/modules-load.d)"
if [ "$(cat "$(R $MODULES)" 2>/dev/null)" != "$WANTED_MODULES" ]; then
    printf '%s\n' "$WANTED_MODULES" > "$(R $MODULES)"
    chmod 0644 "$(R $MODULES)"
    say "installed $MODULES (i2c-dev: the OLED's /dev/i2c-1; videodev, mc: the camera)"
fi
[ -n "$ROOT" ] || modprobe -a i2c-dev videodev mc 2>/dev/null || true

# 6. boot config, only with consent
FRAGMENT=$SRC/firmware_config/config.txt.fragment
START='# >>> dicetable >>>'
END='# <<< dicetable <<<'
consent() {   # consent QUESTION: yes or no, from --boot-config or the person
    local answer=$BOOT_CONFIG reply
    if [ "$answer" = ask ]; then
        answer=no
        if [ -t 0 ]; then
            read -r -p "$1 A reboot is needed after. [y/N] " reply
            case "$reply" in [yY]*) answer=yes ;; esac
        fi
    fi
    [ "$answer" = yes ]
}
# The file as its lines read, without carriage returns or trailing blanks: a
# config.txt edited on Windows has CRLF line ends, and its block is still the block.
plain() { tr -d '\r' 2>/dev/null < "$(R $BOOT)" | sed 's/[[:space:]]*$//'; }
block() { plain | sed -n "\|^$START\$|,\|^$END\$|p"; }
starts=$(plain | grep -cxF -- "$START" || true)
ends=$(plain | grep -cxF -- "$END" || true)
if [ "${starts:-0}" = 0 ] && [ "${ends:-0}" = 0 ]; then
    if consent "Add I2C, camera and button settings to $BOOT?"; then
        install -d "$(dirname "$(R $BOOT)")"
        [ ! -e "$(R $BOOT)" ] || cp -p "$(R $BOOT)" "$(R $BOOT).before-dicetable"
        { printf '\n'; cat "$FRAGMENT"; } >> "$(R $BOOT)"
        say "added the dicetable block to $BOOT (reboot to apply)"
    else
        say "left $BOOT alone; see firmware_config/config.txt.fragment to add it by hand"
    fi
elif [ "$starts" != 1 ] || [ "$ends" != 1 ] \
    || ! block | tail -n 1 | grep -qxF -- "$END"; then
    # Half a block, or two: where it ends cannot be told, so nothing is replaced.
    say "left $BOOT alone: its dicetable block is not one block from '$START' to '$END';"
    say "mend it by hand (see firmware_config/config.txt.fragment)"
elif [ "$(block)" = "$(cat "$FRAGMENT")" ]; then
    say "boot config already has the dicetable block ($BOOT)"
else
    # An older version's block (or one edited by hand): the new settings would
    # otherwise never reach a table that was installed before them.
    if consent "Replace the dicetable block in $BOOT with this version's?"; then
        cp -p "$(R $BOOT)" "$(R $BOOT).before-dicetable-update"
        awk -v start="$START" -v end="$END" -v fragment="$FRAGMENT" '
            { bare = $0; sub(/[ \t\r]+$/, "", bare) }
            bare == start { while ((getline line < fragment) > 0) print line; skip = 1; next }
            skip && bare == end { skip = 0; next }
            !skip { print }
        ' "$(R $BOOT).before-dicetable-update" > "$(R $BOOT).dicetable-new"
        cat "$(R $BOOT).dicetable-new" > "$(R $BOOT)"
        rm -f "$(R $BOOT).dicetable-new"
        say "replaced the dicetable block in $BOOT (reboot to apply; the old file is"
        say "$BOOT.before-dicetable-update)"
    else
        say "the dicetable block in $BOOT differs from this version's; left it alone"
        say "(see firmware_config/config.txt.fragment, or run again with --boot-config yes)"
    fi
fi

[ -n "$ROOT" ] || systemctl restart dicetable.service
say "done"
