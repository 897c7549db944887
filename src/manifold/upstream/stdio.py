"""Upstream stdio transport: a child process in its own process group, newline-framed JSON-RPC.

The child gets only the environment it is configured with (plus a small passthrough list), its
stderr is forwarded to the gateway's log (lines capped, rate-limited, the last ones kept for
error messages), and on close the whole process group is reaped: stdin closed, then SIGTERM,
then SIGKILL; the watchdog of `reaper.py` does the same if the gateway dies first. Frames are
split in `data_received`, so a reply is delivered without a task switch and a multi-megabyte
line is one frame, not an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections import deque
from collections.abc import Mapping
from typing import cast

from manifold.upstream.reaper import REAPER
from manifold.upstream.transport import CloseHandler, FrameHandler, TransportClosed

log = logging.getLogger("manifold.upstream.stdio")

_HIGH_WATER = 4 * 1024 * 1024


def child_environment(
    env: Mapping[str, str], passthrough: list[str], parent: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The exact environment a child gets: the passthrough names from the parent, then `env`."""
    parent = os.environ if parent is None else parent
    out = {k: parent[k] for k in passthrough if k in parent}
    out.update(env)
    return out


class StderrLog:
    """A child's stderr: lines cut at `max_line` bytes (so memory stays bounded whatever the
    child writes), logged under a token bucket (`rate` lines a second, bursts of `burst`, then
    one "N lines suppressed" line), and the last `tail` lines kept for error messages."""

    def __init__(self, name: str, max_line: int, rate: float, burst: int, tail: int) -> None:
        self.name = name
        self.max_line = max_line
        self.rate = rate
        self.burst = float(burst)
        self.tail: deque[str] = deque(maxlen=tail)
        self._partial = bytearray()
        self._cut = False  # the current line passed max_line: drop the rest of it
        self._tokens = float(burst)
        self._stamp = time.monotonic()
        self.suppressed = 0
        self._timer: asyncio.TimerHandle | None = None

    def feed(self, data: bytes) -> None:
        *lines, rest = data.split(b"\n")
        for piece in lines:
            self._take(piece)
            if self._cut:
                self._cut = False  # the cut line was emitted when it reached the cap
            else:
                self._emit(bytes(self._partial))
            self._partial = bytearray()
        self._take(rest)

    def _take(self, piece: bytes) -> None:
        if self._cut or not piece:
            return
        room = self.max_line - len(self._partial)
        if len(piece) <= room:
            self._partial += piece
            return
        self._partial += piece[:room]
        self._emit(bytes(self._partial), cut=True)
        self._partial = bytearray()
        self._cut = True

    def flush(self) -> None:
        """The stream ended: emit a last line without newline, and the suppressed count."""
        if self._partial and not self._cut:
            self._emit(bytes(self._partial))
        self._partial = bytearray()
        self._report()

    def _emit(self, raw: bytes, cut: bool = False) -> None:
        line = raw.decode(errors="replace").rstrip()
        if not line.strip():
            return
        if cut:
            line += f" [line cut at {self.max_line} bytes]"
        self.tail.append(line)
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens < 1.0:
            self.suppressed += 1
            if self._timer is None:
                with contextlib.suppress(RuntimeError):  # no loop: reported at the next line
                    self._timer = asyncio.get_running_loop().call_later(1.0, self._report)
            return
        self._tokens -= 1.0
        if self.suppressed:
            self._report()
        log.info("[%s stderr] %s", self.name, line)

    def _report(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.suppressed:
            log.warning(
                "[%s stderr] %d lines suppressed (more than %g lines a second)",
                self.name,
                self.suppressed,
                self.rate,
            )
            self.suppressed = 0

    def last_lines(self, n: int = 5, width: int = 200) -> str:
        lines = list(self.tail)[-n:]
        return " | ".join(ln if len(ln) <= width else ln[:width] + "..." for ln in lines)


class _ChildProtocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioTransport) -> None:
        self.owner = owner
        self.buf = bytearray()
        self.err = owner.stderr

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            buf = self.buf
            buf += data
            if b"\n" not in data:
                return
            *lines, rest = bytes(buf).split(b"\n")
            self.buf = bytearray(rest)
            on_frame = self.owner.on_frame
            for line in lines:
                if line.strip():
                    on_frame(line, None)
        else:
            self.err.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 2:
            self.owner._stderr_closed()

    def process_exited(self) -> None:
        self.owner._exited()


class StdioTransport:
    def __init__(
        self,
        name: str,
        command: str,
        args: list[str],
        env: dict[str, str],
        cwd: str | None,
        *,
        stderr_max_line: int = 8192,
        stderr_lines_per_second: float = 20.0,
        stderr_burst: int = 200,
        stderr_tail: int = 20,
    ) -> None:
        self.name = name
        self.command = command
        self.args = args
        self.env = env
        self.cwd = cwd
        self.on_frame: FrameHandler = lambda _f, _r: None
        self.on_close: CloseHandler = lambda _why: None
        self._transport: asyncio.SubprocessTransport | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._closed = False
        self._exit_waiter: asyncio.Future[None] | None = None
        self._pending: list[bytes] = []
        self.stderr = StderrLog(
            name, stderr_max_line, stderr_lines_per_second, stderr_burst, stderr_tail
        )
        self._stderr_open = True
        self._exit_reported = False
        self._reported: asyncio.Future[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._transport.get_pid() if self._transport else None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._exit_waiter = loop.create_future()
        self._reported = loop.create_future()
        try:
            transport, _proto = await loop.subprocess_exec(
                lambda: _ChildProtocol(self),
                self.command,
                *self.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,
            )
        except OSError as e:
            raise TransportClosed(f"cannot start {self.command!r}: {e.strerror or e}") from e
        self._transport = transport
        self._stdin = cast(asyncio.WriteTransport, transport.get_pipe_transport(0))
        REAPER.watch(transport.get_pid())  # its own group: pgid == pid

    def _exited(self) -> None:
        if self._exit_waiter and not self._exit_waiter.done():
            self._exit_waiter.set_result(None)
        if self._closed:
            return
        self._closed = True  # no more sends; the close is reported with its stderr
        if self._stderr_open:
            # Its last words may still be in the pipe: wait for them, briefly.
            asyncio.get_running_loop().call_later(0.5, self._report_exit)
        else:
            self._report_exit()

    def _stderr_closed(self) -> None:
        self._stderr_open = False
        if self._closed:
            self._report_exit()

    def _report_exit(self) -> None:
        if self._exit_reported:
            return
        self._exit_reported = True
        if self._reported is not None and not self._reported.done():
            self._reported.set_result(None)
        self.stderr.flush()
        self.on_close(self.exit_reason())

    async def failure(self) -> str | None:
        """Why the child is gone (exit code and last stderr lines); None while it runs."""
        waiter, reported = self._exit_waiter, self._reported
        if waiter is None or reported is None:
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(waiter), 0.2)
        if not waiter.done():
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reported), 1.0)
        return self.exit_reason()

    def exit_reason(self) -> str:
        """How the child ended, with the last lines of its stderr."""
        code = self._transport.get_returncode() if self._transport else None
        if code is not None and code < 0:
            try:
                what = f"process killed by {signal.Signals(-code).name}"
            except ValueError:
                what = f"process killed by signal {-code}"
        else:
            what = f"process exited with code {code}"
        tail = self.stderr.last_lines()
        return f"{what}; stderr: {tail}" if tail else what

    async def send(
        self,
        frame: bytes,
        request_id: int | None = None,
        method: str | None = None,
        name: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        stdin = self._stdin
        if self._closed or stdin is None or stdin.is_closing():
            raise TransportClosed(f"upstream {self.name!r} is not running")
        # Frames written in one loop iteration go out in one write (one syscall per burst).
        pending = self._pending
        if not pending:
            asyncio.get_running_loop().call_soon(self._flush)
        pending.append(frame)
        if stdin.get_write_buffer_size() > _HIGH_WATER:
            # Back-pressure only when the child is not keeping up (polling: pipe transports
            # offer no drain event outside StreamWriter).
            for _ in range(100_000):
                if stdin.get_write_buffer_size() <= _HIGH_WATER // 2 or stdin.is_closing():
                    break
                await asyncio.sleep(0.001)

    def _flush(self) -> None:
        stdin = self._stdin
        frames, self._pending = self._pending, []
        if stdin is not None and not stdin.is_closing() and frames:
            frames.append(b"")
            stdin.write(b"\n".join(frames))

    def cancel(self, request_id: int) -> bool:
        return False

    async def close(self) -> None:
        """Close stdin, wait, SIGTERM the group, wait, SIGKILL the group."""
        self._closed = True
        self._exit_reported = True  # a close we asked for is not news
        if self._reported is not None and not self._reported.done():
            self._reported.set_result(None)
        tr = self._transport
        if tr is None:
            return
        pid = tr.get_pid()
        if self._stdin is not None:
            self._stdin.close()
        waiter = self._exit_waiter
        for sig, grace in ((None, 1.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, sig)
            if waiter is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(waiter), grace)
                    break
                except TimeoutError:
                    continue
        # The child may have left grandchildren in its group: reap them too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        REAPER.forget(pid)
        self.stderr.flush()
        tr.close()
