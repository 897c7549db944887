"""The stdio front end: newline-delimited JSON-RPC on stdin/stdout, nothing else on stdout.

Reads are split in `data_received` (no line limit, no task switch per frame); each request runs
in its own task so a slow call never holds up the next; the gateway exits when stdin closes.
Logs go to stderr.

Bounded: at most `stdio.max_in_flight` requests run at once (one more is answered at once with
an error, `data.reason` "busy"), and when the client does not read its answers, more than
`stdio.write_high_water` bytes unsent stop the reading of stdin until it catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import sys
import threading
from typing import Any, cast

from manifold.downstream.frames import MAX_FRAME, BadFrame, parse_frame
from manifold.downstream.session import DownstreamSession
from manifold.gateway import Gateway
from manifold.protocol import jsonrpc as rpc

log = logging.getLogger("manifold.stdio")


class _StdinProtocol(asyncio.Protocol):
    def __init__(self, front: StdioFront) -> None:
        self.front = front
        self.buf = bytearray()  # a partial line; bytes += would copy it on every chunk
        self.skipping = False

    def data_received(self, data: bytes) -> None:
        if b"\n" not in data:
            if self.skipping:
                return
            self.buf += data
            if len(self.buf) > MAX_FRAME:
                self.skipping = True
                self.buf = bytearray()
                self.front.reject_oversized()
            return
        if self.buf:
            self.buf += data
            data = bytes(self.buf)
        *lines, rest = data.split(b"\n")
        self.buf = bytearray(rest)
        for line in lines:
            if self.skipping:
                self.skipping = False  # the tail of an oversized frame
                continue
            if line.strip():
                self.front.on_line(line)

    def eof_received(self) -> bool | None:
        self.front.closed.set()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.front.closed.set()


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _BlockingOut:
    """stdout that is not a pipe (a file, /dev/null, a terminal): plain blocking writes.

    The event loop's pipe transports refuse these (uvloop aborts the process on them).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.closed = False

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view and not self.closed:
            try:
                view = view[os.write(self.fd, view) :]
            except OSError:
                self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_write_buffer_size(self) -> int:
        return 0

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)


def _read_blocking(fd: int, proto: _StdinProtocol, loop: asyncio.AbstractEventLoop) -> None:
    """stdin that is not a pipe: blocking reads in a daemon thread, fed to the protocol."""
    try:
        while chunk := os.read(fd, 1 << 20):
            loop.call_soon_threadsafe(proto.data_received, chunk)
    except OSError:
        pass
    with contextlib.suppress(RuntimeError):  # the loop may be gone already
        loop.call_soon_threadsafe(proto.eof_received)


class StdioFront:
    def __init__(self, gateway: Gateway) -> None:
        self.gw = gateway
        self.session = DownstreamSession(send=self.write)
        self.closed = asyncio.Event()
        self._out: asyncio.WriteTransport | None = None
        self._pending: list[bytes] = []
        self._disp = gateway.dispatcher
        limits = gateway.config.stdio
        self.max_in_flight = limits.max_in_flight
        self.high_water = limits.write_high_water
        self._stdin: Any = None  # the stdin pipe transport, when stdin is a pipe
        self._stdin_paused = False

    def write(self, frame: bytes) -> None:
        # Frames written in one loop iteration go out in one write (one syscall per burst).
        pending = self._pending
        if not pending:
            asyncio.get_running_loop().call_soon(self._flush)
        pending.append(frame)

    def _flush(self) -> None:
        frames, self._pending = self._pending, []
        out = self._out
        if out is not None and not out.is_closing() and frames:
            frames.append(b"")
            out.write(b"\n".join(frames))
            if out.get_write_buffer_size() > self.high_water and not self._stdin_paused:
                self._pause_stdin(out)

    def _pause_stdin(self, out: Any) -> None:
        """The client is not reading its answers: read no more requests until it catches up."""
        if self._stdin is None:
            return  # stdin is not a pipe (read by a thread): nothing to pause
        self._stdin_paused = True
        self._stdin.pause_reading()
        log.warning(
            "the client is not reading its answers (%d bytes unsent, stdio.write_high_water "
            "%d): stdin paused",
            out.get_write_buffer_size(),
            self.high_water,
        )
        asyncio.get_running_loop().call_later(0.05, self._maybe_resume, out)

    def _maybe_resume(self, out: Any) -> None:
        if out.is_closing() or self._stdin is None:
            return
        if out.get_write_buffer_size() > self.high_water // 2:
            asyncio.get_running_loop().call_later(0.05, self._maybe_resume, out)
            return
        self._stdin_paused = False
        self._stdin.resume_reading()
        log.info("the client caught up: stdin resumed")

    def reject_oversized(self) -> None:
        log.warning("rejected a stdin frame over %d bytes", MAX_FRAME)
        self.write(
            rpc.encode_error(
                None, rpc.INVALID_REQUEST, f"message too large (limit {MAX_FRAME} bytes)"
            )
        )

    def on_line(self, line: bytes) -> None:
        try:
            msg = parse_frame(line)
        except BadFrame as e:
            self.write(e.frame())
            return
        if "method" not in msg:
            if not self.session.answer(msg):
                log.debug("dropped a response nobody waits for (id %r)", msg.get("id"))
            return
        if "id" not in msg:
            self.gw.spawn(self._disp.notification(self.session, msg))
            return
        rid = msg["id"]
        if len(self.session.inflight) >= self.max_in_flight:
            self.write(
                rpc.encode_error(
                    rid,
                    rpc.UPSTREAM_UNAVAILABLE,
                    f"too many requests in flight on this connection (stdio.max_in_flight "
                    f"{self.max_in_flight}): wait for answers",
                    {"reason": "busy"},
                )
            )
            return
        task = asyncio.ensure_future(self._run(msg))
        self.session.inflight[rid] = task
        task.add_done_callback(lambda _t: self.session.inflight.pop(rid, None))

    async def _run(self, msg: dict[str, Any]) -> None:
        try:
            frame, _status = await self._disp.handle(self.session, msg, self.write)
        except asyncio.CancelledError:
            return  # cancelled by the client: no response (spec)
        except Exception as e:
            log.exception("internal error handling %s", msg.get("method"))
            frame = rpc.encode_error(msg["id"], rpc.INTERNAL_ERROR, f"internal error: {e}")
        self.write(frame)

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        self.gw.sessions.add(self.session)
        out_fd = os.dup(sys.stdout.fileno())
        w_transport: Any
        if _is_pipe(out_fd):
            w_transport, _ = await loop.connect_write_pipe(
                asyncio.Protocol, os.fdopen(out_fd, "wb", 0)
            )
        else:
            w_transport = _BlockingOut(out_fd)
        self._out = cast(Any, w_transport)  # uvloop's transport is not an asyncio subclass
        # Nothing else may write to the real stdout from now on.
        sys.stdout = sys.stderr
        in_fd = os.dup(sys.stdin.fileno())
        r_transport: Any = None
        if _is_pipe(in_fd):
            r_transport, _ = await loop.connect_read_pipe(
                lambda: _StdinProtocol(self), os.fdopen(in_fd, "rb", 0)
            )
            self._stdin = r_transport
        else:
            reader = threading.Thread(
                target=_read_blocking, args=(in_fd, _StdinProtocol(self), loop), daemon=True
            )
            reader.start()
        starting = asyncio.ensure_future(self.gw.start())
        try:
            await self.closed.wait()
        finally:
            starting.cancel()
            self.session.close()
            self.gw.end_session(self.session)
            if r_transport is not None:
                r_transport.close()
            await self.gw.stop()
            # Let queued responses drain before the process ends.
            for _ in range(100):
                if w_transport.get_write_buffer_size() == 0:
                    break
                await asyncio.sleep(0.01)
            w_transport.close()
