"""The appliance: the systemd unit, the sd_notify messages, the install script."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

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


def _unit_text() -> str:
    return UNIT.read_text()


def test_unit_has_the_appliance_settings() -> None:
    text = _unit_text()
    for line in (
        "Type=notify",
        "Restart=always",
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


def _fake_root(path: Path) -> Path:
    (path / "etc").mkdir(parents=True)
    (path / "boot" / "firmware").mkdir(parents=True)
    (path / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (path / "etc" / "group").write_text("root:x:0:\n")
    (path / "etc" / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (path / "etc" / "gshadow").write_text("root:*::\n")
    (path / "boot" / "firmware" / "config.txt").write_text("[all]\ndtoverlay=vc4-kms-v3d\n")
    return path


def _install(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
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
    )


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None, reason="needs root and useradd"
)
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


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None, reason="needs root and useradd"
)
def test_install_leaves_the_boot_config_alone_without_consent(tmp_path: Path) -> None:
    root = _fake_root(tmp_path / "pi")
    proc = _install(root)  # --boot-config ask, no terminal: no
    assert proc.returncode == 0, proc.stderr
    assert (root / "boot/firmware/config.txt").read_text() == "[all]\ndtoverlay=vc4-kms-v3d\n"
    assert "left /boot/firmware/config.txt alone" in proc.stdout


def test_install_rejects_unknown_arguments(tmp_path: Path) -> None:
    proc = _install(tmp_path, "--frobnicate")
    assert proc.returncode == 2
    assert "unknown argument '--frobnicate'" in proc.stderr
