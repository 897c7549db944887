"""The errors a client gets when a call cannot reach its upstream, told apart by `data.reason`.

Both keep the conventional code -32001 (the MCP SDKs' request timeout, used by gateways for
"the server behind me failed"), so clients that only read the code see no change; a client that
wants to act on the cause reads `data`:

- `{"reason": "timeout", "upstream": name}`: no answer within the call's timeout (the time spent
  queued for a `max_in_flight` slot counts);
- `{"reason": "upstream_unavailable", "upstream": name, "retry_after": s}`: the upstream is down,
  failed to start or went away mid-call; `retry_after` (seconds) is there when a restart is
  scheduled;
- `{"reason": "upstream_busy", "upstream": name}`: a limit of the upstream (`max_clients`) is
  reached;
- `{"reason": "process_limit", "upstream": name, "limit": n}`: starting the upstream (or a
  client's own process of it) would run more than `max_processes` stdio processes at once.
"""

from __future__ import annotations

from typing import Final

from manifold.protocol import jsonrpc as rpc

TIMEOUT: Final = "timeout"
UNAVAILABLE: Final = "upstream_unavailable"
BUSY: Final = "upstream_busy"
PROCESS_LIMIT: Final = "process_limit"


def unavailable(upstream: str, message: str, retry_after: float | None = None) -> rpc.RpcError:
    data: dict[str, object] = {"reason": UNAVAILABLE, "upstream": upstream}
    if retry_after is not None:
        data["retry_after"] = round(max(0.0, retry_after), 1)
    return rpc.RpcError(rpc.UPSTREAM_UNAVAILABLE, message, data)


def timed_out(upstream: str, message: str) -> rpc.RpcError:
    return rpc.RpcError(rpc.REQUEST_TIMEOUT, message, {"reason": TIMEOUT, "upstream": upstream})


def busy(upstream: str, message: str) -> rpc.RpcError:
    return rpc.RpcError(rpc.UPSTREAM_UNAVAILABLE, message, {"reason": BUSY, "upstream": upstream})


def process_limit(upstream: str, limit: int) -> rpc.RpcError:
    return rpc.RpcError(
        rpc.UPSTREAM_UNAVAILABLE,
        f"upstream {upstream!r} cannot start: {limit} stdio processes already run "
        "(max_processes); stop one, raise max_processes, or set idle_timeout",
        {"reason": PROCESS_LIMIT, "upstream": upstream, "limit": limit},
    )


def reason_of(err: rpc.RpcError) -> str | None:
    data = err.data
    return data.get("reason") if isinstance(data, dict) else None
