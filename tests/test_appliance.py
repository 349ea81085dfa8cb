"""The appliance: the systemd unit, the sd_notify messages, the install script."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table.notify import NullNotifier, SystemdNotifier

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "dicetable.service"


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(5)
    yield sock
    sock.close()


def test_notifier_sends_ready_status_watchdog_on_a_real_socket(
    notify_socket: socket.socket, tmp_path: Path
) -> None:
    env = {"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "4000000"}
    n = SystemdNotifier(env)
    assert n.enabled and n.watchdog_interval == 2.0
    n.ready()
    n.status("mexico round 2:\n Ann throw 1/3")
    n.status("mexico round 2:\n Ann throw 1/3")  # unchanged status is not resent
    n.watchdog()
    n.stopping()
    n.close()
    got = [notify_socket.recv(1024).decode() for _ in range(4)]
    assert got == ["READY=1", "STATUS=mexico round 2: Ann throw 1/3", "WATCHDOG=1", "STOPPING=1"]


def test_notifier_is_silent_without_systemd_and_survives_a_vanished_socket(
    tmp_path: Path,
) -> None:
    off = SystemdNotifier({})
    assert not off.enabled and off.watchdog_interval is None
    off.ready()  # nothing to send to, nothing raised
    gone = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "missing")})
    gone.ready()
    gone.watchdog()
    NullNotifier().ready()


def test_watchdog_belongs_to_the_named_pid_only() -> None:
    other = SystemdNotifier({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid() + 1)})
    assert other.watchdog_interval is None
    mine = SystemdNotifier({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid())})
    assert mine.watchdog_interval == 0.5


def test_a_watchdog_interval_that_is_no_number_turns_the_watchdog_off() -> None:
    """ "²" passes str.isdigit, not int(): the notifier stopped the table at start."""
    assert SystemdNotifier({"WATCHDOG_USEC": "\u00b2"}).watchdog_interval is None


def test_an_abstract_notify_socket_is_reached_by_its_at_name(tmp_path: Path) -> None:
    """systemd may name an abstract socket (``@name``, a NUL byte first on the wire); if
    the "@" were kept, or the NUL left out, no message would reach systemd and the
    watchdog would restart a healthy table."""
    name = f"dicetable-test-{os.getpid()}-{tmp_path.name}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        n = SystemdNotifier({"NOTIFY_SOCKET": f"@{name}"})
        assert n.enabled
        n.ready()
        n.close()
        assert sock.recv(1024).decode() == "READY=1"
    finally:
        sock.close()


def test_a_notify_socket_named_by_a_relative_path_is_not_used(
    notify_socket: socket.socket, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``$NOTIFY_SOCKET`` is an absolute path or an ``@name``; anything else is not
    systemd's, and the notifier stays off rather than write to a file of that name in
    whatever folder the table was started from."""
    monkeypatch.chdir(tmp_path)
    n = SystemdNotifier({"NOTIFY_SOCKET": "notify"})
    assert not n.enabled
    n.ready()
    notify_socket.setblocking(False)  # a datagram sent is queued before sendto returns
    with pytest.raises(BlockingIOError):
        notify_socket.recv(1024)


def test_extend_timeout_is_said_in_microseconds(
    notify_socket: socket.socket, tmp_path: Path
) -> None:
    """EXTEND_TIMEOUT_USEC= counts microseconds: in any other unit a service waiting for
    its data folder would be killed for starting too slowly, or never."""
    n = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "notify")})
    n.extend_timeout(15)
    n.extend_timeout(0.25)
    n.close()
    got = [notify_socket.recv(1024).decode() for _ in range(2)]
    assert got == ["EXTEND_TIMEOUT_USEC=15000000", "EXTEND_TIMEOUT_USEC=250000"]


def test_a_status_naming_a_player_beyond_ascii_is_sent_as_utf8(
    notify_socket: socket.socket, tmp_path: Path
) -> None:
    """Players are named as people are (Zoë, Jürgen): such a status is sent whole, in
    UTF-8; refused, it would raise in the main loop and stop the table."""
    n = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "notify")})
    n.status("mex round 1: Zoë throw 1/3")
    n.close()
    assert notify_socket.recv(1024).decode("utf-8") == "STATUS=mex round 1: Zoë throw 1/3"


def test_the_notifier_speaks_again_once_the_socket_is_back(tmp_path: Path) -> None:
    """A send that fails (systemd re-executing, its socket briefly gone) drops the
    notifier's socket; the next message opens a new one. If the closed socket were kept,
    every later WATCHDOG=1 would fail unheard and systemd would restart the table."""
    path = tmp_path / "notify"
    n = SystemdNotifier({"NOTIFY_SOCKET": str(path)})
    n.watchdog()  # no socket there yet: lost, and nothing raised
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)
    try:
        n.watchdog()
        n.close()
        assert sock.recv(1024).decode() == "WATCHDOG=1"
    finally:
        sock.close()


def _unit_text() -> str:
    return UNIT.read_text()


def test_unit_has_the_appliance_settings() -> None:
    text = _unit_text()
    for line in (
        "Type=notify",
        "Restart=always",
        "RestartPreventExitStatus=2",  # a config fault: restarting would change nothing
        "StateDirectory=dicetable",
        "User=dicetable",
        "SupplementaryGroups=gpio i2c video",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "PrivateTmp=yes",
        "DevicePolicy=closed",
    ):
        assert line in text.splitlines(), line
    assert any(line.startswith("WatchdogSec=") for line in text.splitlines())
    # The system config when there, the defaults when not: a config named with --config
    # and then deleted stopped the table for good (exit 2 is not restarted).
    assert "ExecStart=/opt/dicetable/venv/bin/dicetable run" in text.splitlines()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_analyze_verify_is_clean(tmp_path: Path) -> None:
    exe = shutil.which("true")
    assert exe is not None
    unit = tmp_path / "dicetable.service"
    unit.write_text(
        "\n".join(
            f"ExecStart={exe}" if line.startswith("ExecStart=") else line
            for line in _unit_text().splitlines()
        )
    )
    proc = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr
    sec = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(unit)],
        capture_output=True,
        text=True,
    )
    assert "Overall exposure level" in sec.stdout
    exposure = float(
        sec.stdout.split("Overall exposure level for dicetable.service:")[1].split()[0]
    )
    assert exposure <= 1.5, sec.stdout


def _service_settings() -> dict[str, list[str]]:
    """The unit's [Service] settings, each key with all its values in order."""
    out: dict[str, list[str]] = {}
    section = ""
    for raw in _unit_text().splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def test_the_service_may_lower_its_own_priority() -> None:
    """The unit takes the system calls of @resources, setpriority among them, out of
    those it allows, and the check of a replayed video lowers its priority (nice 10):
    a later filter line without "~" puts the two back (systemd-analyze security then
    says "e.g. setpriority is allowed")."""
    filters = _service_settings()["SystemCallFilter"]
    denied = max(i for i, f in enumerate(filters) if f.startswith("~") and "@resources" in f)
    allowed = {name for f in filters[denied + 1 :] if not f.startswith("~") for name in f.split()}
    assert {"setpriority", "nice"} <= allowed


def test_the_config_file_decides_the_data_folder_of_the_service() -> None:
    """table.data_dir in /etc/dicetable/dicetable.toml is what a person edits: the unit
    must not override it unseen (DICETABLE_DATA), and its default is the unit's state
    directory, the one folder the sandbox lets the service write."""
    from table.service.config import load_config

    settings = _service_settings()
    assert not any("DICETABLE_DATA" in e for e in settings.get("Environment", []))
    shipped = load_config(ROOT / "firmware_config" / "dicetable.toml", env={})
    assert shipped.table.data_dir == Path("/var/lib") / settings["StateDirectory"][-1]


def test_the_shipped_config_names_every_option_of_every_rule_set() -> None:
    """Its [game.options] comment listed mexico's options only, and sent a person at the
    Pi to RULES.md, which is not installed there."""
    from table.rules import get_rules
    from table.service.referee import MENU_RULES

    text = (ROOT / "firmware_config" / "dicetable.toml").read_text()
    comment = text[text.index("[game.options]") :]
    assert "RULES.md" not in comment
    for rules in MENU_RULES:
        line = next(ln for ln in comment.splitlines() if ln.startswith(f"# {rules}: "))
        at = comment.index(line)
        block = comment[at : comment.find("\n# m", at + 1)]
        for spec in get_rules(rules).options:
            assert f" {spec.name} = " in block, (rules, spec.name)


def test_the_working_directory_is_one_the_service_may_write() -> None:
    """lgpio (gpiozero's pin factory on a Pi) makes its notification pipes in the
    working directory; with ProtectSystem=strict the default one, /, is read-only and
    every button would fail."""
    settings = _service_settings()
    assert "WorkingDirectory" in settings, "no WorkingDirectory: the service would run in /"
    cwd = settings["WorkingDirectory"][-1]
    writable = [f"/run/{d}" for d in settings.get("RuntimeDirectory", [])]
    writable += [f"%t/{d}" for d in settings.get("RuntimeDirectory", [])]
    writable += [f"/var/lib/{d}" for d in settings.get("StateDirectory", [])]
    writable += [f"%S/{d}" for d in settings.get("StateDirectory", [])]
    assert cwd in writable, (cwd, writable)


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare"
)
def test_the_proc_the_service_sees_still_tells_gpiozero_which_pi_it_is(tmp_path: Path) -> None:
    """gpiozero finds the board's revision (and so which GPIO chip to open) in
    /proc/device-tree or /proc/cpuinfo. /proc is mounted here as the unit has it mounted."""
    settings = _service_settings()
    options = []
    if settings.get("ProcSubset", ["all"])[-1] == "pid":
        options.append("subset=pid")
    hidepid = settings.get("ProtectProc", ["default"])[-1]
    if hidepid != "default":
        options.append(f"hidepid={hidepid}")
    proc = tmp_path / "proc"
    proc.mkdir()
    mount = f"mount -t proc -o {','.join(options) or 'defaults'} proc {proc}"
    look = f"if [ -e {proc}/cpuinfo ]; then echo shown; else echo hidden; fi"
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", f"{mount} && {look}"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a private /proc here: {probe.stderr.strip()}")
    assert probe.stdout.strip() == "shown", "the unit's /proc hides /proc/cpuinfo"


NEEDS_USERADD = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None, reason="needs root and useradd"
)
BOOT_CONFIG = "boot/firmware/config.txt"
"""The Pi's boot config, under a root ``_fake_root`` made."""


def _fake_root(path: Path) -> Path:
    (path / "etc").mkdir(parents=True)
    (path / "boot" / "firmware").mkdir(parents=True)
    (path / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (path / "etc" / "group").write_text("root:x:0:\n")
    (path / "etc" / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (path / "etc" / "gshadow").write_text("root:*::\n")
    (path / "boot" / "firmware" / "config.txt").write_text("[all]\ndtoverlay=vc4-kms-v3d\n")
    return path


def _install(
    root: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(ROOT / "firmware_config" / "install.sh"),
            "--root",
            str(root),
            "--no-apt",
            "--no-pip",
            *extra,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
    )


@NEEDS_USERADD
def test_install_into_a_root_with_no_boot_config_says_no_shell_error(tmp_path: Path) -> None:
    """A root folder with no boot/firmware/config.txt: reading it for the block printed the
    shell's own "config.txt: No such file or directory" twice on stderr (the file's
    redirect came before the one that was to silence it)."""
    root = _fake_root(tmp_path / "pi")
    (root / BOOT_CONFIG).unlink()
    proc = _install(root, "--boot-config", "no")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "left /boot/firmware/config.txt alone" in proc.stdout


@NEEDS_USERADD
def test_the_person_who_installs_may_read_the_saved_games(tmp_path: Path) -> None:
    """README: scp -r pi@dicetable.local:/var/lib/dicetable/games; that folder is 0750
    dicetable:dicetable, so the sudo user must be in the group dicetable."""
    root = _fake_root(tmp_path / "pi")
    with (root / "etc/passwd").open("a") as f:
        f.write("pi:x:1000:1000::/home/pi:/bin/bash\n")
    with (root / "etc/group").open("a") as f:
        f.write("pi:x:1000:\n")
    (root / "etc/shadow").write_text("root:*:19000:0:99999:7:::\npi:*:19000:0:99999:7:::\n")
    (root / "etc/gshadow").write_text("root:*::\npi:!::\n")
    env = dict(os.environ, SUDO_USER="pi")
    for _ in range(2):  # and once only when run again
        proc = _install(root, "--boot-config", "no", env=env)
        assert proc.returncode == 0, proc.stderr
    members = {
        line.split(":")[0]: line.split(":")[3].split(",")
        for line in (root / "etc/group").read_text().splitlines()
    }
    assert members["dicetable"] == ["pi"]
    unit = _unit_text()
    assert "StateDirectory=dicetable" in unit and "Group=dicetable" in unit


@NEEDS_USERADD
def test_install_into_a_folder_is_complete_and_idempotent(tmp_path: Path) -> None:
    root = _fake_root(tmp_path / "pi")
    first = _install(root, "--boot-config", "yes")
    assert first.returncode == 0, first.stderr
    unit = root / "etc/systemd/system/dicetable.service"
    conf = root / "etc/dicetable/dicetable.toml"
    assert unit.read_text() == _unit_text()
    assert conf.read_text() == (ROOT / "firmware_config/dicetable.toml").read_text()
    assert (root / "etc/systemd/system/multi-user.target.wants/dicetable.service").is_symlink()
    assert (root / "opt/dicetable/venv/pyvenv.cfg").read_text().count(
        "include-system-site-packages = true"
    ) == 1
    passwd = (root / "etc/passwd").read_text()
    assert "dicetable:" in passwd and "/usr/sbin/nologin" in passwd
    group = (root / "etc/group").read_text()
    for g in ("gpio", "i2c", "video"):
        assert any(
            line.startswith(f"{g}:") and "dicetable" in line for line in group.splitlines()
        ), g
    boot = (root / "boot/firmware/config.txt").read_text()
    assert boot.startswith("[all]\ndtoverlay=vc4-kms-v3d\n")
    assert boot.count("# >>> dicetable >>>") == 1 and "dtparam=i2c_arm=on" in boot

    conf.write_text(conf.read_text() + "\n# my edit\n")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "venv" not in p.parts}
    second = _install(root, "--boot-config", "yes")
    assert second.returncode == 0, second.stderr
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "venv" not in p.parts}
    assert after == before  # nothing duplicated, the person's edit kept
    assert "kept your /etc/dicetable/dicetable.toml" in second.stdout


@NEEDS_USERADD
def test_install_makes_a_venv_cut_short_again(tmp_path: Path) -> None:
    """A venv made without its pip (python3-venv missing, Ctrl-C, a full disk) has
    bin/python, which was all the script looked for: every later run stopped at
    "venv/bin/pip: No such file or directory". Here: a bin/python that runs no pip, and
    no pyvenv.cfg (without it bin/python is the system's own, not a venv's)."""
    root = _fake_root(tmp_path / "pi")
    venv = root / "opt/dicetable/venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin/python").write_text("#!/bin/sh\nexit 1\n")
    (venv / "bin/python").chmod(0o755)
    again = _install(root, "--boot-config", "no")
    assert again.returncode == 0, again.stderr
    assert "created /opt/dicetable/venv" in again.stdout
    python = str(venv / "bin/python")
    assert subprocess.run([python, "-m", "pip", "--version"], capture_output=True).returncode == 0
    (venv / "pyvenv.cfg").unlink()
    assert "created /opt/dicetable/venv" in _install(root, "--boot-config", "no").stdout
    third = _install(root, "--boot-config", "no")
    assert third.returncode == 0 and "created" not in third.stdout
    assert (venv / "pyvenv.cfg").is_file()


@NEEDS_USERADD
def test_install_takes_a_root_folder_given_relative(tmp_path: Path) -> None:
    """groupadd --prefix takes an absolute path only ("prefix must be an absolute path")."""
    _fake_root(tmp_path / "pi")
    proc = subprocess.run(
        [str(ROOT / "firmware_config/install.sh"), "--root", "pi", "--no-apt", "--no-pip"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "dicetable:" in (tmp_path / "pi/etc/passwd").read_text()


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("runuser") is None, reason="needs root and runuser"
)
def test_install_on_the_system_without_root_says_to_use_sudo() -> None:
    """Without sudo it stopped halfway, at apt's "Could not open lock file" or at
    groupadd, with nothing said about why; it now stops before changing anything."""
    script = str(ROOT / "firmware_config/install.sh")
    proc = subprocess.run(
        ["runuser", "-u", "nobody", "--", "bash", script, "--no-apt"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"install.sh: run it as root: sudo {script} (see --help)\n"


@NEEDS_USERADD
def test_install_loads_i2c_dev_at_boot_so_the_oled_has_its_bus(tmp_path: Path) -> None:
    """dtparam=i2c_arm=on turns the I2C controller on; /dev/i2c-1, which luma opens, comes
    from the i2c-dev module, which nothing loaded (raspi-config adds it to /etc/modules
    when it turns I2C on): after the install and a reboot the OLED stayed dark with "no
    /dev/i2c-1 ... is I2C on?". The unit's DeviceAllow=char-video4linux and char-media
    are looked up when it starts: videodev and mc, modules in the Pi's kernel that udev
    may load after the service started, are loaded before it too."""
    root = _fake_root(tmp_path / "pi")
    for _ in range(2):  # once only when run again
        proc = _install(root, "--boot-config", "yes")
        assert proc.returncode == 0, proc.stderr
    loaded = root / "etc/modules-load.d/dicetable.conf"
    modules = [
        line.strip()
        for line in loaded.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith(("#", ";"))
    ]
    assert modules == ["i2c-dev", "videodev", "mc"]


@NEEDS_USERADD
def test_install_leaves_the_boot_config_alone_without_consent(tmp_path: Path) -> None:
    root = _fake_root(tmp_path / "pi")
    proc = _install(root)  # --boot-config ask, no terminal: no
    assert proc.returncode == 0, proc.stderr
    assert (root / "boot/firmware/config.txt").read_text() == "[all]\ndtoverlay=vc4-kms-v3d\n"
    assert "left /boot/firmware/config.txt alone" in proc.stdout


@NEEDS_USERADD
def test_the_boot_block_applies_to_every_pi_after_a_model_section(tmp_path: Path) -> None:
    """config.txt often ends inside a model filter ([cm4], [pi4]): lines appended there
    would apply to that model only."""
    root = _fake_root(tmp_path / "pi")
    boot = root / BOOT_CONFIG
    boot.write_text("[all]\ndtoverlay=vc4-kms-v3d\n\n[cm4]\notg_mode=1\n")
    proc = _install(root, "--boot-config", "yes")
    assert proc.returncode == 0, proc.stderr
    section = "[all]"
    applies: dict[str, str] = {}
    for line in boot.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line
        elif line:
            applies[line] = section
    for setting in ("dtparam=i2c_arm=on", "camera_auto_detect=1", "gpio=17,27,22=ip,pu"):
        assert applies[setting] == "[all]", (setting, applies[setting])
    assert applies["otg_mode=1"] == "[cm4]"


@NEEDS_USERADD
def test_an_older_boot_block_is_replaced_only_with_consent(tmp_path: Path) -> None:
    """A table installed before a boot setting was added would otherwise never get it:
    the block was only ever added when absent."""
    root = _fake_root(tmp_path / "pi")
    boot = root / BOOT_CONFIG
    fragment = (ROOT / "firmware_config/config.txt.fragment").read_text()
    older = fragment.replace("gpio=17,27,22=ip,pu\n", "")
    assert older != fragment
    before = "[all]\ndtoverlay=vc4-kms-v3d\n\n" + older + "\n[cm4]\notg_mode=1\n"
    boot.write_text(before)

    kept = _install(root, "--boot-config", "no")
    assert kept.returncode == 0, kept.stderr
    assert boot.read_text() == before
    assert "differs from this version's; left it alone" in kept.stdout

    replaced = _install(root, "--boot-config", "yes")
    assert replaced.returncode == 0, replaced.stderr
    assert (
        boot.read_text() == "[all]\ndtoverlay=vc4-kms-v3d\n\n" + fragment + "\n[cm4]\notg_mode=1\n"
    )
    assert (root / "boot/firmware/config.txt.before-dicetable-update").read_text() == before
    assert "replaced the dicetable block" in replaced.stdout
    again = _install(root, "--boot-config", "yes")
    assert "already has the dicetable block" in again.stdout


@NEEDS_USERADD
def test_a_boot_block_with_windows_line_ends_is_the_same_block(tmp_path: Path) -> None:
    """A config.txt edited on Windows: its marker lines end in CR, were not found, and a
    second block was appended."""
    root = _fake_root(tmp_path / "pi")
    boot = root / BOOT_CONFIG
    fragment = (ROOT / "firmware_config/config.txt.fragment").read_text()
    crlf = ("[all]\n" + fragment + "[cm4]\n").replace("\n", "\r\n")
    boot.write_bytes(crlf.encode())
    proc = _install(root, "--boot-config", "yes")
    assert proc.returncode == 0, proc.stderr
    assert "already has the dicetable block" in proc.stdout
    assert boot.read_bytes() == crlf.encode()
    older = crlf.replace("gpio=17,27,22=ip,pu\r\n", "")
    boot.write_bytes(older.encode())
    proc = _install(root, "--boot-config", "yes")
    assert "replaced the dicetable block" in proc.stdout
    after = boot.read_bytes().decode()  # read_text() would turn the CRLFs into LFs
    assert after.count("# >>> dicetable >>>") == 1 and "gpio=17,27,22=ip,pu" in after
    assert after.startswith("[all]\r\n") and after.endswith("[cm4]\r\n")


@NEEDS_USERADD
@pytest.mark.parametrize(
    "broken",
    [
        "# >>> dicetable >>>\ndtparam=i2c_arm=on\n",  # its end cut off
        "# <<< dicetable <<<\n# >>> dicetable >>>\ndtparam=i2c_arm=on\n",  # ends before
        "# >>> dicetable >>>\n# <<< dicetable <<<\n" * 2,  # two blocks
    ],
)
def test_a_broken_boot_block_is_left_alone(tmp_path: Path, broken: str) -> None:
    """Where the block ends cannot be told: replacing it could cut the rest of the file."""
    root = _fake_root(tmp_path / "pi")
    boot = root / BOOT_CONFIG
    before = "[all]\n" + broken + "[cm4]\notg_mode=1\n"
    boot.write_text(before)
    proc = _install(root, "--boot-config", "yes")
    assert proc.returncode == 0, proc.stderr
    assert boot.read_text() == before
    assert "is not one block" in proc.stdout


def test_install_rejects_unknown_arguments(tmp_path: Path) -> None:
    proc = _install(tmp_path, "--frobnicate")
    assert proc.returncode == 2
    assert "unknown argument '--frobnicate'" in proc.stderr


def _install_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "firmware_config" / "install.sh"), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def test_install_help_is_the_scripts_comment_and_names_every_option() -> None:
    """--help printed "set -euo pipefail", the script's first line of code, below its text."""
    proc = _install_script("--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("Install dicetable on a Raspberry Pi")
    assert proc.stdout.rstrip().endswith("also only with consent; a copy is kept)")
    assert "set -euo" not in proc.stdout
    assert "set -" not in proc.stdout and "pipefail" not in proc.stdout
    for option in ("--boot-config yes|no|ask", "--root DIR", "--no-apt", "--no-pip"):
        assert option in proc.stdout, option
    # What --root asks of its folder, and every package step 1 installs (python3-lgpio
    # was left out of the list).
    assert "holding at least etc/passwd and etc/group" in proc.stdout
    script = (ROOT / "firmware_config" / "install.sh").read_text()
    apt = next(line for line in script.splitlines() if "apt-get install" in line)
    packages = [word for word in apt.split() if word.startswith(("python3-", "i2c-"))]
    assert len(packages) >= 4
    step1 = " ".join(proc.stdout.split("  1. apt:")[1].split("  2.")[0].split())
    for package in packages:
        assert package in step1, package


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--root"], "install.sh: --root needs a folder (see --help)"),
        (["--root", ""], "install.sh: --root needs a folder (see --help)"),
        (["--boot-config"], "install.sh: --boot-config needs yes, no or ask (see --help)"),
    ],
)
def test_install_option_without_its_value_is_one_line_and_exit_2(
    args: list[str], line: str
) -> None:
    """It was exit 1 and bash's "install.sh: line 29: 2: --root needs a folder"."""
    proc = _install_script(*args)
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, line + "\n", "")


@pytest.mark.parametrize("made", ["nothing", "an empty folder", "etc without group"])
def test_install_into_a_folder_that_is_no_system_root_says_so_at_once(
    tmp_path: Path, made: str
) -> None:
    """`install.sh --root DIR --no-apt --no-pip` (its --help's own example) on a folder with
    no etc/passwd and etc/group waited 14 s on groupadd, then stopped with exit 10 and
    "groupadd: cannot lock DIR//etc/group; try again later"."""
    root = tmp_path / "pi"
    if made != "nothing":
        root.mkdir()
    if made == "etc without group":
        (root / "etc").mkdir()
        (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    proc = _install(root)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"install.sh: --root {root}: no etc/passwd and etc/group in it; "
        "give the root folder of a system (see --help)\n"
    )
    assert not (root / "opt").exists() and not (root / "etc" / "dicetable").exists()


# ---------------------------------------------------------------------------
# The notify protocol from the running table


def test_dicetable_run_sends_ready_status_and_watchdog(tmp_path: Path) -> None:
    """`dicetable run` (stand-ins) under a notify socket: READY, STATUS, WATCHDOG, STOPPING."""
    import sys
    import time

    sock_path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(sock_path))
    sock.settimeout(0.2)
    script = tmp_path / "script.json"
    script.write_text('["wait 1.2", "roll", "wait 0.3", "quit"]')
    env = dict(
        os.environ,
        NOTIFY_SOCKET=str(sock_path),
        WATCHDOG_USEC="200000",  # ping every 0.1 s
        DICETABLE_CONFIG=os.devnull,
    )
    env.pop("WATCHDOG_PID", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "table", "run", "--stand-ins", "--script", str(script),
         "--data", str(tmp_path / "data")],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    got: list[str] = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            try:
                got.append(sock.recv(4096).decode())
            except TimeoutError:
                if proc.poll() is not None:
                    break
    finally:
        proc.kill() if proc.poll() is None else None
        sock.close()
    err = proc.communicate()[1].decode()  # read to its end, and closed
    assert proc.wait() == 0, err
    assert "READY=1" in got, got
    ready = got.index("READY=1")
    statuses = [m for m in got if m.startswith("STATUS=")]
    assert statuses and all(len(s) > len("STATUS=") for s in statuses)
    assert got[ready + 1 :].count("WATCHDOG=1") >= 3, got
    assert got[-1] == "STOPPING=1"


class _SpyNotifier:
    def __init__(self) -> None:
        import threading

        self.pings = 0
        self.pinged = threading.Event()
        self.ready_seen = threading.Event()

    def ready(self) -> None:
        self.ready_seen.set()

    def status(self, text: str) -> None:
        pass

    def watchdog(self) -> None:
        self.pings += 1
        self.pinged.set()

    def stopping(self) -> None:
        pass


class _Screen:
    def show(self, image: object) -> None:
        pass

    def close(self) -> None:
        pass


def test_watchdog_is_not_fed_while_the_loop_hangs(tmp_path: Path) -> None:
    """A reader stuck on a frame blocks the one consumer: the ticks queue up unfed."""
    import threading
    import time

    import numpy as np

    from table.service.demo import DEMO_SETTINGS, menu_presses
    from table.service.loop import TableLoop
    from table.service.ports import Button, ButtonPress, Frame, Put, Quit
    from table.service.referee import Settings
    from table.service.resume import DataDir

    stuck = threading.Event()
    release = threading.Event()

    class StuckReader:
        def read(self, frame: Any, expect: int | None = None) -> Any:
            stuck.set()
            release.wait(30)
            raise RuntimeError("camera read timed out")

    class OneFrame:
        put: Put | None = None

        def start(self, put: Put) -> None:
            self.put = put

        def want(self, flag: bool) -> None:
            if flag and self.put is not None:
                self.put(Frame(np.zeros((48, 64, 3), np.uint8), 0.0))

        def close(self) -> None:
            pass

    spy = _SpyNotifier()
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
        buttons=None,
        display=_Screen(),
        camera=OneFrame(),
        reader=StuckReader(),
        notifier=spy,
        tick_s=0.02,
        errors=None,
    )
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    assert spy.ready_seen.wait(10) and spy.pinged.wait(10)  # fed while healthy
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):
        loop.put(ButtonPress(Button.ROLL))  # start a game, then ask for dice
    assert stuck.wait(10)
    before = spy.pings
    time.sleep(0.5)  # 25 tick periods with the consumer stuck
    assert spy.pings == before
    spy.pinged.clear()
    release.set()
    assert spy.pinged.wait(10)  # the queued ticks are dealt with once it moves again
    loop.put(Quit("test over"))
    runner.join(10)
    assert not runner.is_alive()


def test_watchdog_lapses_when_the_camera_delivers_nothing(tmp_path: Path) -> None:
    """Dice wanted, no frame for camera_stall_s: no more WATCHDOG, a status says why."""
    import threading
    import time

    from table.service.demo import DEMO_SETTINGS, menu_presses
    from table.service.loop import TableLoop
    from table.service.ports import Button, ButtonPress, Put, Quit
    from table.service.referee import Settings
    from table.service.resume import DataDir

    class SilentCamera:  # its capture thread hangs: nothing ever arrives
        def start(self, put: Put) -> None:
            pass

        def close(self) -> None:
            pass

    class StatusSpy(_SpyNotifier):
        def __init__(self) -> None:
            super().__init__()
            self.statuses: list[str] = []

        def status(self, text: str) -> None:
            self.statuses.append(text)

    now = [0.0]
    spy = StatusSpy()
    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings.from_json(DEMO_SETTINGS["mexico"]),
        buttons=None,
        display=_Screen(),
        camera=SilentCamera(),
        notifier=spy,
        tick_s=0.02,
        camera_stall_s=20.0,
        errors=None,
        clock=lambda: now[0],
    )
    runner = threading.Thread(target=loop.run, daemon=True)
    runner.start()
    assert spy.ready_seen.wait(10)
    for _ in range(menu_presses(DEMO_SETTINGS["mexico"]) + 1):
        loop.put(ButtonPress(Button.ROLL))
    deadline = time.monotonic() + 10
    while not loop.want_dice and time.monotonic() < deadline:
        time.sleep(0.01)
    assert loop.want_dice
    spy.pinged.clear()
    assert spy.pinged.wait(5)  # waiting for dice, within the camera's time: still fed
    now[0] = 21.0  # 21 s without a frame
    time.sleep(0.1)
    pings = spy.pings
    time.sleep(0.3)  # 15 ticks
    assert spy.pings == pings
    assert "camera gave no frame for 20 s" in spy.statuses
    loop.put(Quit("test over"))
    runner.join(10)
    assert not runner.is_alive()


def _run_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    from table.cli import main

    code = main(["run", "--stand-ins", "--data", str(tmp_path / "data"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err, err
    return err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("[" * 6000 + "]" * 6000, "not a script: lists nested too deeply"),
        ("[" + "9" * 5000 + "]", "not a script: a number too long to read"),
        ("throw " + "9" * 5000, "'throw 999999999999999999999999'... (5006 characters): a throw"),
        ('["' + "x" * 100_000 + '"]', "... (100000 characters) is not a step"),
    ],
)
def test_a_script_made_to_break_the_reader_is_one_short_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    content: str,
    said: str,
) -> None:
    """These ended in "internal error" (RecursionError, ValueError), or wrote the bad step
    out whole: 100 kB on one line."""
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    script = tmp_path / "s.json"
    script.write_text(content)
    err = _run_fails(tmp_path, capsys, "--script", str(script))
    assert said in err and len(err) < 300, err


def test_a_script_that_is_a_device_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--script /dev/zero read until memory ran out."""
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    err = _run_fails(tmp_path, capsys, "--script", "/dev/zero")
    assert "/dev/zero: cannot read (not a regular file (a device))" in err, err


def test_a_script_that_is_not_text_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    script = tmp_path / "s.json"
    script.write_bytes(b"\xff\xfe")
    assert f"{script}: not UTF-8 text" in _run_fails(tmp_path, capsys, "--script", str(script))


def test_output_paths_that_cannot_be_written_are_refused_before_the_table_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    a_file = tmp_path / "f"
    a_file.write_text("x")
    err = _run_fails(tmp_path, capsys, "--png-dir", str(a_file))
    assert f"--png-dir: cannot write to {a_file}" in err
    err = _run_fails(tmp_path, capsys, "--state-json", str(a_file / "s.json"))
    assert f"--state-json: cannot write to {a_file}" in err
    err = _run_fails(tmp_path, capsys, "--gif", str(a_file / "d.gif"))
    assert f"--gif: cannot write to {a_file}" in err


def test_a_camera_in_the_config_that_cannot_be_opened_is_a_config_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to be "internal error: ConfigError: ..." with exit 1."""
    from table.cli import main

    conf = tmp_path / "dicetable.toml"
    conf.write_text('[camera]\nsource = "folder:/nonexistent"\n[display]\ndriver = "none"\n')
    code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err, err
    assert err.startswith(f'dicetable run: {conf}: camera.source: "folder:/nonexistent" cannot')


@pytest.mark.parametrize("source", ["folder:/", "video:/"])
def test_a_camera_path_pasted_long_is_a_short_config_line(
    source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The value was cut in the message, but the camera's reason after it repeated the
    path whole: 100,000 characters made a line of 100 kB."""
    from table.cli import main

    conf = tmp_path / "dicetable.toml"
    conf.write_text(f'[camera]\nsource = "{source}{"a" * 100000}"\n[display]\ndriver = "none"\n')
    code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "internal error" not in err, err[:300]
    assert len(err) < 800 and "characters left out" in err, err
    assert err.startswith(f'dicetable run: {conf}: camera.source: "{source}aaa'), err


@pytest.mark.parametrize(
    ("toml", "shown_at"),
    [
        ('[display]\ni2c_address = "0x3D"\n[buttons]\nroll = 99\n', 0x3D),
        ('[display]\ndriver = "ssd1307"\n', 0x3C),  # the display itself: the defaults
        ("[buttons\n", 0x3C),  # not TOML at all
    ],
)
def test_a_config_the_table_cannot_start_with_is_left_on_the_oled(
    toml: str,
    shown_at: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service stopped with the reason in the journal only: at the table the display
    stayed blank. The reason is now drawn on the OLED and kept after the process ends."""
    from table.cli import main
    from table.hw import build as build_module
    from table.hw.display import dummy_display
    from table.service.config import DisplayConfig

    opened: list[tuple[int, Any]] = []

    def oled(cfg: DisplayConfig) -> Any:
        display = dummy_display()
        display.device.persist = False
        opened.append((cfg.i2c_address, display))
        return display

    monkeypatch.setattr(build_module, "open_oled", oled)
    conf = tmp_path / "dicetable.toml"
    conf.write_text(toml)
    code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"dicetable run: {conf}: ")
    assert [a for a, _ in opened] == [shown_at]
    display = opened[0][1]
    assert display.device.persist is True
    from table.service import screens

    text = err.removeprefix(f"dicetable run: {conf}: ").strip()
    if screens.overflow(screens.Message("config error", text, "fix it, restart")):
        text = text.split(" (allowed:")[0]
    want = screens.render(screens.Message("config error", text, "fix it, restart"))
    assert display.device.image.convert("1").tobytes() == want.convert("1").tobytes()


def _dummy_oleds(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The OLEDs the table opens, from here on luma's dummy device each (its last image
    kept), in the order opened."""
    from table.hw import build as build_module
    from table.hw.display import dummy_display

    opened: list[Any] = []

    def oled(cfg: Any) -> Any:
        display = dummy_display()
        display.device.persist = False
        opened.append(display)
        return display

    monkeypatch.setattr(build_module, "open_oled", oled)
    return opened


def test_names_that_look_alike_are_said_whole_on_the_oled(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two long players' names that begin alike: the journal's line names the rule, but
    on the OLED it was cut before it said what was wrong ("... 'Mohammed Amr' begin
    t.."). The OLED now says it in fewer words, whole."""
    from table.cli import main
    from table.service import screens

    opened = _dummy_oleds(monkeypatch)
    conf = tmp_path / "dicetable.toml"
    conf.write_text('[game]\nplayers = ["Mohammed Ali", "Mohammed Amr"]\n')
    code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2 and "'Mohammed Ali' and 'Mohammed Amr' begin the same" in err
    shown = screens.Message(
        "config error",
        "players 'Mohammed Ali' and 'Mohammed Amr' look alike on the display",
        "fix it, restart",
    )
    assert screens.overflow(shown) == ()
    want = screens.render(shown).convert("1").tobytes()
    assert opened[0].device.image.convert("1").tobytes() == want


def test_more_players_than_seats_is_refused_and_said_whole_on_the_oled(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Eight players named for mexen, whose rules take any number: the table started
    "mexen 6P" and the last two never played, with nothing said. The config is refused,
    and the OLED says so in fewer words, whole."""
    from table.cli import main
    from table.service import screens

    opened = _dummy_oleds(monkeypatch)
    conf = tmp_path / "dicetable.toml"
    names = ", ".join(f'"{n}"' for n in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"))
    conf.write_text(f'[game]\nrules = "mexen"\nplayers = [{names}]\n')
    code = main(["run", "--config", str(conf), "--data", str(tmp_path / "data")])
    err = capsys.readouterr().err
    assert code == 2 and "8 players named, but the table seats at most 6" in err
    assert not (tmp_path / "data" / "games").exists()  # no game was begun
    shown = screens.Message(
        "config error", "8 players named: the table seats at most 6", "fix it, restart"
    )
    assert screens.overflow(shown) == ()
    want = screens.render(shown).convert("1").tobytes()
    assert opened[0].device.image.convert("1").tobytes() == want


def test_an_empty_data_folder_is_refused_not_taken_as_here(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from table.cli import main

    assert main(["run", "--data", ""]) == 2
    assert "--data: an empty path is no folder" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["nan", "inf", "-inf", "0", "-5", "soon", ""])
def test_run_seconds_must_be_a_finite_length(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--seconds nan ran for good (no clock reading is past nan); 0 or less stopped at
    once and inf never: each is now one line and exit 2, before anything starts."""
    from table.cli import main

    assert main(["run", "--stand-ins", "--data", str(tmp_path), "--seconds", given]) == 2
    err = capsys.readouterr().err
    assert "--seconds" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("x" * 5000, "--seed: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (5000 characters) is not"),
        ("9" * 5000, "--seed: a number of 5000 digits is too long"),
        ("1.5", "--seed: '1.5' is not a whole number"),
        ("-" + "9" * 5000, "--seed: a number of 5000 digits is too long"),
        ("\u00b2", "--seed: '\u00b2' is not a whole number"),  # a digit to str, not to int()
    ],
)
def test_run_a_bad_seed_is_one_short_line(
    given: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse's own check quoted a bad --seed whole: 5000 characters on the line."""
    from table.cli import main

    assert main(["run", "--stand-ins", "--data", str(tmp_path), "--seed", given]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert said in err and len(err) < 200, err[:300]


def _pi_extra() -> list[str]:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extra: list[str] = data["project"]["optional-dependencies"]["pi"]
    return extra


@pytest.mark.parametrize(
    ("machine", "wanted"),
    [("aarch64", {"lgpio", "simplejpeg"}), ("armv7l", {"lgpio", "simplejpeg"}), ("x86_64", set())],
)
def test_pi_extra_brings_a_numpy_2_simplejpeg_only_on_a_pi(machine: str, wanted: set[str]) -> None:
    """picamera2 from apt imports simplejpeg; the apt one is built against numpy 1.x and
    fails beside the venv's numpy 2, so the Pi extra installs one into the venv. Off a Pi
    the extra installs nothing."""
    from packaging.requirements import Requirement

    env = {"platform_machine": machine}
    got = set()
    for line in _pi_extra():
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            got.add(req.name)
    assert got == wanted


def test_sigterm_while_the_loop_holds_its_own_lock_still_stops_it(tmp_path: Path) -> None:
    """Python runs a signal handler in the main thread, between two steps of whatever it
    was doing: the consumer, perhaps inside the loop's lock or the queue's, neither
    reentrant. The handler put Quit itself, waited for the lock its own thread held, and
    the table hung until systemd killed it. Here the handler runs on a thread that holds
    the loop's lock, as the main thread would at that moment."""
    import signal
    import threading

    from table.service.cli_run import stop_on_signal
    from table.service.loop import TableLoop
    from table.service.ports import Quit
    from table.service.referee import Settings
    from table.service.resume import DataDir

    loop = TableLoop(
        data=DataDir(tmp_path / "data"),
        settings=Settings(),
        buttons=None,
        display=_Screen(),
        camera=None,
        errors=None,
    )
    handler = stop_on_signal(loop.stop)

    def consumer_at_the_wrong_moment() -> None:
        with loop._lock:  # as in _done_one, when SIGTERM comes
            handler(signal.SIGTERM, None)

    main = threading.Thread(target=consumer_at_the_wrong_moment, daemon=True)
    main.start()
    main.join(30)
    assert not main.is_alive(), "the signal handler waited for a lock its own thread holds"
    assert loop.queue.get(timeout=30) == Quit("SIGTERM")


def test_a_data_folder_the_table_cannot_use_is_left_on_the_oled(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A table.data_dir the service may not write (the sandbox lets it write only below
    /var/lib/dicetable) stopped it with exit 2, which systemd does not restart, and the
    reason in the journal only: the display stayed blank, though the unit says the reason
    stays on the OLED. It is drawn there, as a config fault is."""
    from table.cli import main

    opened = _dummy_oleds(monkeypatch)
    monkeypatch.delenv("DICETABLE_DATA", raising=False)
    taken = tmp_path / "a-file"
    taken.write_text("")
    conf = tmp_path / "dicetable.toml"
    conf.write_text(f'[table]\ndata_dir = "{taken}"\n')
    code = main(["run", "--config", str(conf)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "data folder" in err
    assert len(opened) == 1 and opened[0].device.persist is True
    from table.service import screens

    shown = opened[0].device.image.convert("1").tobytes()
    why = f"data folder {taken}: Not a directory"
    want = screens.render(screens.Message("cannot start", why, "fix it, restart"))
    assert shown == want.tobytes()


def test_with_stand_ins_a_config_fault_leaves_the_oled_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--stand-ins never touches hardware, even on a Pi (where the service may be using
    the OLED): a config fault was drawn on the OLED all the same, and left there."""
    from table.cli import main
    from table.hw import build as build_module
    from table.hw.display import dummy_display
    from table.service.config import DisplayConfig

    opened: list[DisplayConfig] = []

    def oled(cfg: DisplayConfig) -> Any:
        opened.append(cfg)
        return dummy_display()

    monkeypatch.setattr(build_module, "open_oled", oled)
    conf = tmp_path / "dicetable.toml"
    conf.write_text("[buttons]\nroll = 99\n")
    args = ["run", "--stand-ins", "--config", str(conf), "--data", str(tmp_path / "data")]
    assert main(args) == 2
    assert "buttons.roll: 99" in capsys.readouterr().err
    assert opened == []


def test_an_output_folder_that_is_a_file_is_said_to_be_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--png-dir naming a file said "cannot write to f (File exists)", as if the folder
    were fine and full; the path is a file, not a folder."""
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    a_file = tmp_path / "f"
    a_file.write_text("x")
    for option, path in (("--png-dir", a_file), ("--gif", a_file / "d.gif")):
        err = _run_fails(tmp_path, capsys, option, str(path))
        assert f"{option}: cannot write to {a_file} (Not a directory)" in err, err
        assert "File exists" not in err


def test_a_games_folder_the_table_cannot_write_is_refused_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the data folder itself was tried: a games/ folder the table may not write (left
    by a run as root) let it start, and every game then ended at its first screen with
    "cannot save ... try again", which no retry mends, and a game in progress could not be
    taken up. It is found at the start, named, exit 2, as the data folder is."""
    from table.service import resume

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    real = Path.write_bytes

    def denied(self: Path, data: Any) -> int:
        if self.parent == games:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, data)

    monkeypatch.setattr(resume.Path, "write_bytes", denied)
    err = _run_fails(tmp_path, capsys, "--seconds", "1")
    assert f"cannot use the data folder {games} (Permission denied)" in err


@pytest.mark.parametrize(
    ("option", "path", "said"),
    [
        ("--gif", "{tmp}/screens.txt", "a GIF's name ends in .gif"),
        ("--gif", "{tmp}", "a GIF's name ends in .gif"),
        ("--state-json", "{tmp}", "not a file (a folder or a device)"),
        ("--state-json", "{tmp}/pipe", "not a file (a folder or a device)"),
    ],
)
def test_an_output_file_the_run_could_not_write_is_refused_at_the_start(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    option: str,
    path: str,
    said: str,
) -> None:
    """--gif x.txt (or a folder) ran the whole game, then said "unknown file extension"
    and exited 0, with no GIF; --state-json /dev/full replaced the device with a file.
    The device here is a named pipe of the test's own: a run that got past the check
    replaces only that, never one of the machine's devices."""
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    where = path.format(tmp=tmp_path)
    err = _run_fails(tmp_path, capsys, option, where, "--seconds", "1")
    assert f"{option} {where}: {said}" in err, err
    assert pipe.is_fifo()


def test_a_games_folder_that_is_a_file_is_named_as_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """data/games a file said "cannot use the data folder DATA (File exists)": the
    wrong folder, and a reason that says nothing."""
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    games = tmp_path / "data" / "games"
    games.parent.mkdir()
    games.write_text("x")
    err = _run_fails(tmp_path, capsys, "--seconds", "1")
    assert f"cannot use the data folder {games} (Not a directory)" in err, err


def test_a_resume_that_cut_off_a_torn_line_says_where_its_bytes_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The torn last line of the game in progress is cut off the log and kept in
    ``.torn`` beside it; the journal said only "resumed ... (1 events)": someone auditing
    the game found a .torn file nothing had spoken of."""
    from table.cli import main
    from table.game import GameHeader
    from table.rules.base import Player, Throw
    from table.service.resume import DataDir

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    data = DataDir(tmp_path / "data")
    with data.new_log(GameHeader("mexico", (Player("Ann"), Player("Bob")), {}, 1)) as log:
        log.append_all([Throw((6, 3))])
    with open(log.path, "ab") as fh:
        fh.write(b'{"stand":tr')
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    args = ["run", "--stand-ins", "--script", str(script), "--data", str(data.root)]
    assert main(args) == 0
    err = capsys.readouterr().err
    torn = log.path.with_name(log.path.name + ".torn")
    assert torn.read_bytes() == b'{"stand":tr\n'
    assert f"resumed the unfinished game {log.path.name} (1 events)" in err
    assert f"line 3 is torn (not valid JSON) and was ignored: its bytes are in {torn.name}" in err


def test_a_game_in_progress_given_as_one_object_is_kept_as_it_was_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game copied in as one JSON object is rewritten as lines to be appended to; what
    its header does not carry (a comment) was lost, and nothing said so."""
    from table.cli import main

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    games = tmp_path / "data" / "games"
    games.mkdir(parents=True)
    text = json.dumps(
        {
            "rules": "mexico",
            "comment": "the club final, keep",
            "players": ["Ann", "Bob"],
            "events": [{"throw": [6, 3]}],
        },
        indent=1,
    )
    (games / "g.jsonl").write_text(text)
    (games / "current").write_text("g.jsonl\n")
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    args = ["run", "--stand-ins", "--script", str(script), "--data", str(tmp_path / "data")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "as it was, it is g.jsonl.original" in err, err
    assert (games / "g.jsonl.original").read_text() == text


def test_a_game_in_progress_that_had_ended_is_not_said_to_be_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cut between a game's last event and the removal of ``games/current`` leaves a
    finished game in progress. The table shows its end, as it should, but the journal
    said "resumed the unfinished game"."""
    from table.cli import main
    from table.gamelog import load
    from table.service.resume import DataDir

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    played = load(Path(__file__).parent / "games" / "mexico_draw.json")
    data = DataDir(tmp_path / "data")
    with data.new_log(played.header) as log:
        log.append_all(list(played.events))
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    args = ["run", "--stand-ins", "--script", str(script), "--data", str(data.root)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "resumed the unfinished game" not in err
    assert f"the game {log.path.name} had ended (8 events): its end is shown" in err


def test_a_service_waiting_for_its_data_folder_says_so_once(
    notify_socket: socket.socket,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The service waiting for a data folder another table holds says why once, in the
    journal and on the OLED: said at every look, every 5 s, it would fill the journal with
    the one line and draw the OLED again and again."""
    from table.service import cli_run
    from table.service.resume import DataInUse

    class HeldData:
        root = tmp_path / "data"
        looks = 0

        def lock(self) -> None:
            self.looks += 1
            if self.looks <= 3:
                raise DataInUse("4242")

    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setattr(cli_run, "DATA_WAIT_S", 0.0)
    shown: list[str] = []
    data = HeldData()
    assert cli_run._take_data(data, lambda: shown.append("waiting")) is None  # type: ignore[arg-type]
    assert data.looks == 4
    assert shown == ["waiting"]
    err = capsys.readouterr().err
    assert err.count("waiting until it stops") == 1, err
    assert "(process 4242)" in err


@pytest.mark.parametrize(
    ("options", "gif"),
    [
        (["--png-dir", "{tmp}/png"], "png/display.gif"),
        (["--gif", "{tmp}/screens.GIF"], "screens.GIF"),
    ],
)
def test_the_screens_gif_is_written_where_asked(
    options: list[str],
    gif: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--png-dir alone saves the screens as a GIF beside the PNGs too; --gif SCREENS.GIF
    (a name in capitals) is a GIF's name: refused, it would be told "a GIF's name ends in
    .gif"."""
    from PIL import Image

    from table.cli import main

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    given = [o.format(tmp=tmp_path) for o in options]
    args = ["run", "--stand-ins", "--script", str(script), "--data", str(tmp_path / "data")]
    assert main([*args, *given]) == 0, capsys.readouterr().err
    with Image.open(tmp_path / gif) as image:
        assert image.format == "GIF"


def test_a_throw_after_a_start_like_the_dice_left_lying_is_a_new_throw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table remembers the last throw's dice lying in the tray (tray.json) across a
    start; the replayed camera did not, and showed a throw of the same values unmoved:
    "dice lie as last thrown", the script stalled, and the throw was never logged."""
    from table.cli import main
    from table.gamelog import load
    from table.service.demo import DEMO_SETTINGS, menu_presses
    from table.service.resume import DataDir

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    data = DataDir(tmp_path / "data")
    data.save_settings(DEMO_SETTINGS["mexico"])
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    presses = ["roll"] * menu_presses(DEMO_SETTINGS["mexico"])
    first.write_text(json.dumps([*presses, "throw 4 2", "roll", "stop", "quit"]))
    second.write_text(json.dumps(["throw 4 2", "roll", "stop", "quit"]))
    for script in (first, second):
        args = ["run", "--stand-ins", "--script", str(script), "--data", str(data.root)]
        assert main(args) == 0
    err = capsys.readouterr().err
    assert "resumed the unfinished game" in err and "still busy" not in err, err
    events = load(data.logs()[0]).events
    assert [e.to_json() for e in events] == [
        {"throw": [4, 2]},
        {"stand": True},
        {"throw": [4, 2]},
        {"stand": True},
    ]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("data/games/current", "that is in {data}/games, the game logs' folder"),
        ("data/games/old.jsonl", "that is in {data}/games, the game logs' folder"),
        ("data/settings.json", "that is the menu's saved choices, which it would be written"),
        ("data/tray.json", "that is the dice the table remembers in the tray"),
        ("data/.lock", "that is the data folder's lock"),
        ("dicetable.toml", "that is the config file"),
        ("script.json", "that is the script"),
    ],
)
def test_state_json_over_a_file_the_table_reads_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, said: str
) -> None:
    """--state-json is written at the start and the end of a run: over games/current the
    next start set the game in progress aside as current.bad, over the config file it
    found no TOML, over settings.json the menu's choices were gone."""
    config = tmp_path / "dicetable.toml"
    config.write_text('[display]\ndriver = "terminal"\n')
    script = tmp_path / "script.json"
    script.write_text('["quit"]')
    target = tmp_path / name
    extra = ["--config", str(config), "--script", str(script), "--state-json", str(target)]
    err = _run_fails(tmp_path, capsys, *extra)
    assert f"--state-json {target}: " + said.format(data=tmp_path / "data") in err, err
    assert not (tmp_path / "data").exists()  # nothing written: the refusal came first
    assert config.read_text().startswith("[display]") and script.read_text() == '["quit"]'
    # and a GIF named as a file the table reads, by a link as well
    (tmp_path / "link.gif").symlink_to(tmp_path / "data" / "games" / "g.gif")
    err = _run_fails(tmp_path, capsys, "--gif", str(tmp_path / "link.gif"))
    assert "--gif " in err and "the game logs' folder" in err, err
    # and screens saved among the game logs, with the GIF elsewhere
    games = tmp_path / "data" / "games"
    gif = str(tmp_path / "g.gif")
    for png_dir in (games, games / "png"):
        extra = ["--script", str(script), "--gif", gif, "--png-dir", str(png_dir)]
        err = _run_fails(tmp_path, capsys, *extra)
        assert f"--png-dir {png_dir}: that is in {games}, the game logs' folder" in err, err


def test_the_readme_script_example_plays_the_throw_it_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's example script was ["throw 6 3", "roll", "stop", "quit"]: from the
    menu, where a first start stands, it chose the rules and went back, and no throw was
    ever made. The example it shows now is run as it is written there."""
    from table.cli import main
    from table.gamelog import load
    from table.service.resume import DataDir

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    lines = [line.strip() for line in readme.splitlines() if "echo '[" in line]
    assert len(lines) == 1, lines
    steps = json.loads(lines[0].split("echo '", 1)[1].split("' > ")[0])
    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    script = tmp_path / "game.json"
    script.write_text(json.dumps(steps))
    data = DataDir(tmp_path / "out" / "scripted")
    assert main(["run", "--stand-ins", "--script", str(script), "--data", str(data.root)]) == 0
    capsys.readouterr()
    played = load(data.logs()[0])
    assert [p.name for p in played.header.players] == ["Ann", "Bob"]
    assert played.header.rules == "mexico"
    assert [e.to_json() for e in played.events] == [{"throw": [6, 3]}, {"stand": True}]


def test_a_missing_network_file_stops_the_start_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken install without the locator's file: the start said OpenCV's error, two
    lines with its source file's path, in the journal and on the display. It is one
    line naming the file, exit 2 (starting again mends nothing)."""
    from vision import locate

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    gone = tmp_path / "models" / "locator.onnx"
    monkeypatch.setattr(locate, "MODEL_PATH", gone)
    err = _run_fails(tmp_path, capsys, "--seconds", "1")
    assert f"the pip reader cannot start (NetworkError: {gone}: no such file)" in err, err
    assert "OpenCV" not in err


def test_a_start_fault_of_several_lines_is_said_on_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any library's error that stops the start is one journal line, its line breaks
    written as \\n, so the next line of the journal is not taken for the table's."""
    from table.service import loop

    def broken(settle_frames: int) -> Any:
        raise RuntimeError("OpenCV(5.1.0) net.cpp:7:\n error: (-2) no backend\n")

    monkeypatch.setenv("DICETABLE_CONFIG", os.devnull)
    monkeypatch.setattr(loop, "vision_parts", broken)
    err = _run_fails(tmp_path, capsys, "--seconds", "1")
    assert err == (
        "dicetable run: the pip reader cannot start "
        "(RuntimeError: OpenCV(5.1.0) net.cpp:7:\\n error: (-2) no backend)\n"
    ), err


def _runs_briefly(tmp_path: Path, *extra: str) -> None:
    """``dicetable run --stand-ins`` on a data folder in ``tmp_path`` for a fifth of a
    second, ending well."""
    from table.cli import main

    argv = ["run", "--stand-ins", "--data", str(tmp_path / "data"), *extra, "--seconds", "0.2"]
    assert main(argv) == 0


@pytest.mark.parametrize(("cpu_dice", "by_hand"), [("table", True), ("software", False)])
def test_the_configs_cpu_dice_reaches_the_table(
    cpu_dice: str, by_hand: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[table] cpu_dice = "table"`` (a person throws real dice for the CPU players) is
    what the running table does: lost on the way, the table would throw for them in
    software while the dice lay in the tray unread."""
    from table.service import loop as loop_module

    made: list[bool] = []

    class Recorded(loop_module.TableLoop):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(kwargs["cpu_dice_by_hand"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(loop_module, "TableLoop", Recorded)
    conf = tmp_path / "dicetable.toml"
    conf.write_text(f'[table]\ncpu_dice = "{cpu_dice}"\n\n[display]\ndriver = "none"\n')
    _runs_briefly(tmp_path, "--config", str(conf))
    assert made == [by_hand]


def test_keyboard_play_throws_as_the_running_table_wants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dicetable run`` off a Pi makes up a throw per ROLL; it asks the running table
    what to throw (one die in a mexen tie-break, MN-10; the die left lying kept, MN-5).
    Not asked, it would throw two new dice every time, and a held die would be moved."""
    from table.hw import build as build_module
    from table.service.loop import TableLoop

    made: list[build_module.RandomThrows] = []

    class Recorded(build_module.RandomThrows):
        def __init__(self, seed: int | None = None) -> None:
            made.append(self)
            super().__init__(seed)

    monkeypatch.setattr(build_module, "RandomThrows", Recorded)
    _runs_briefly(tmp_path)
    assert len(made) == 1 and made[0].ask is not None
    asked = made[0].ask
    assert isinstance(getattr(asked, "__self__", None), TableLoop)
    assert getattr(asked, "__func__", None) is TableLoop.dice_wanted


def test_a_run_with_stand_ins_says_what_stands_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Off a Pi, ``dicetable run`` says in one line what stands in for the hardware: a
    person at a laptop learns that the keys are the buttons and the photos the camera."""
    _runs_briefly(tmp_path)
    said = [line for line in capsys.readouterr().err.splitlines() if "keyboard buttons" in line]
    assert len(said) == 1 and said[0].startswith("dicetable: camera replays frames from ")
