"""Upstream stdio transport: a child process in its own process group, newline-framed JSON-RPC.

The child gets only the environment it is configured with (plus a small passthrough list), its
stderr is forwarded to the gateway's log, and on close the whole process group is reaped:
stdin closed, then SIGTERM, then SIGKILL. Frames are split in `data_received`, so a reply is
delivered without a task switch and a multi-megabyte line is one frame, not an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Mapping
from typing import cast

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


class _ChildProtocol(asyncio.SubprocessProtocol):
    def __init__(self, owner: StdioTransport) -> None:
        self.owner = owner
        self.buf = bytearray()
        self.err = bytearray()

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
            self.err += data
            if b"\n" in data:
                *lines, rest = bytes(self.err).split(b"\n")
                self.err = bytearray(rest)
                for line in lines:
                    if line.strip():
                        log.info("[%s stderr] %s", self.owner.name, line.decode(errors="replace"))

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

    @property
    def pid(self) -> int | None:
        return self._transport.get_pid() if self._transport else None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._exit_waiter = loop.create_future()
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

    def _exited(self) -> None:
        if self._exit_waiter and not self._exit_waiter.done():
            self._exit_waiter.set_result(None)
        if not self._closed:
            self._closed = True
            code = self._transport.get_returncode() if self._transport else None
            self.on_close(f"process exited with code {code}")

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
        tr.close()
