"""Telling systemd how the table is doing: READY=1, STATUS=, WATCHDOG=1, STOPPING=1.

The sd_notify protocol is one datagram per message on the AF_UNIX socket named
by ``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace). No
library is needed. Off systemd (no ``$NOTIFY_SOCKET``) every call does nothing.

The watchdog is fed from the main loop itself, so a hung loop stops feeding it
and systemd restarts the service (which then resumes its game).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


class SystemdNotifier:
    """Implements :class:`table.service.ports.Notifier` over ``$NOTIFY_SOCKET``."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self._address = _address(env.get("NOTIFY_SOCKET", ""))
        self._sock: socket.socket | None = None
        self._last_status = ""
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        owner_ok = not pid or pid == str(os.getpid())
        self.watchdog_usec = int(usec) if usec.isdecimal() and owner_ok else 0

    @property
    def enabled(self) -> bool:
        return self._address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """How often to send WATCHDOG=1 (half of WatchdogSec=), or None when off."""
        return self.watchdog_usec / 2e6 if self.watchdog_usec else None

    def ready(self) -> None:
        self._send("READY=1")

    def status(self, text: str) -> None:
        line = " ".join(text.split())[:200]
        if line != self._last_status:
            self._last_status = line
            self._send(f"STATUS={line}")

    def watchdog(self) -> None:
        self._send("WATCHDOG=1")

    def extend_timeout(self, seconds: float) -> None:
        """Still starting (or stopping), and alive: systemd's timeout is pushed back to
        ``seconds`` from now."""
        self._send(f"EXTEND_TIMEOUT_USEC={round(seconds * 1e6)}")

    def stopping(self) -> None:
        self._send("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _send(self, message: str) -> None:
        if self._address is None:
            return
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message.encode("utf-8"), self._address)
        except OSError:
            # The manager went away or the socket is gone: the table plays on.
            self.close()


class NullNotifier:
    """A Notifier that tells no one (tests, demos, running by hand)."""

    watchdog_interval: float | None = None

    def ready(self) -> None:
        pass

    def status(self, text: str) -> None:
        pass

    def watchdog(self) -> None:
        pass

    def stopping(self) -> None:
        pass


def _address(raw: str) -> str | None:
    if not raw:
        return None
    if raw.startswith("@"):
        return "\0" + raw[1:]
    if raw.startswith("/"):
        return raw
    return None
