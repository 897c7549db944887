"""No child outlives the gateway, however the gateway ends (even SIGKILL).

A graceful stop reaps every child's process group itself (`stdio.py`). For the ungraceful end,
the first stdio child starts one small watchdog process for the whole gateway: a bare Python
interpreter (`-I -S`, no imports of ours) in its own session, reading the ids of the children's
process groups from a pipe ("+pgid" when a child starts, "-pgid" once it is reaped). When the
pipe reaches end of file (the gateway is gone: exit, crash or SIGKILL; the kernel closes the
pipe either way) it sends SIGTERM to every group still registered, then SIGKILL to what is left
after a short grace, and exits. So a busy server, one that ignores SIGTERM, and the grandchildren
in their groups all end with the gateway.

The cost: one fork/exec for the first child, then one small pipe write per child start and
stop; nothing on the per-message path. Where process groups do not exist (not POSIX) it does
nothing. A grandchild that leaves its group (`setsid`) is out of anyone's reach but init's.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys

log = logging.getLogger("manifold.upstream")

# Runs with `python -I -S -c`: stdlib only, no site, no environment hooks.
_WATCHDOG = r"""
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups = set()
buf = b""
while True:
    try:
        data = os.read(0, 4096)
    except InterruptedError:
        continue
    except OSError:
        break
    if not data:
        break
    buf += data
    *lines, buf = buf.split(b"\n")
    for line in lines:
        try:
            pgid = int(line[1:])
        except ValueError:
            continue
        if pgid <= 1:
            continue
        if line[:1] == b"+":
            groups.add(pgid)
        else:
            groups.discard(pgid)

def signal_all(sig):
    alive = set()
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
            alive.add(pgid)
        except (ProcessLookupError, PermissionError):
            pass
    return alive

groups = signal_all(signal.SIGTERM)
deadline = time.monotonic() + 2.0
while groups and time.monotonic() < deadline:
    time.sleep(0.05)
    groups = signal_all(0)
signal_all(signal.SIGKILL)
"""


class Reaper:
    """The gateway's end of the watchdog pipe (one per process, started on first use)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None
        self._broken = not hasattr(os, "killpg")

    def watch(self, pgid: int) -> None:
        self._send(b"+%d\n" % pgid)

    def forget(self, pgid: int) -> None:
        if self._fd is not None:
            self._send(b"-%d\n" % pgid)

    def _send(self, line: bytes) -> None:
        if self._fd is None and not self._start():
            return
        assert self._fd is not None
        try:
            os.write(self._fd, line)  # a few bytes: atomic, and the watchdog drains the pipe
        except OSError as e:
            log.warning("the child watchdog is gone (%s): children may outlive a crash", e)
            self._fd = None
            self._broken = True

    def _start(self) -> bool:
        if self._broken:
            return False
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a signal to the gateway's group does not reach it
                close_fds=True,
                cwd="/",
                env=_watchdog_env(),
            )
        except OSError as e:
            log.warning("cannot start the child watchdog (%s): children may outlive a crash", e)
            self._broken = True
            return False
        assert self._proc.stdin is not None
        self._fd = self._proc.stdin.fileno()  # not inherited by children (close-on-exec)
        return True


def _watchdog_env() -> dict[str, str]:
    """Nothing of the gateway's environment but what the interpreter itself may need."""
    return {k: v for k, v in os.environ.items() if k in ("LD_LIBRARY_PATH", "SYSTEMROOT")}


REAPER = Reaper()
