"""Confirmations: a policy `confirm` decision asks the user before the call is forwarded.

- A legacy client (and a modern one whose rounds cannot be relayed, e.g. the inner call of
  `invoke_tool`) gets a real `elicitation/create` request on the call's own channel (for a
  modern client the dispatcher turns it into `input_required` and parks the call, which then
  resumes with exactly the arguments it was asked about). Accept forwards the call; decline,
  cancel, an error, no answer within `confirm.timeout`, or a client that did not declare the
  `elicitation` capability refuses it.
- A modern client gets MRTR `input_required` with one elicitation input request and a
  `requestState` of the gateway's own (`mfp1.`): HMAC-signed, bound to the principal, the
  upstream, the tool and the SHA-256 of the arguments' canonical JSON, expiring after
  `confirm.expiry`, single-use (its nonce is kept until it is used or expires, at most
  `confirm.max_pending` at once). The dispatcher seals it again inside its own round state.
  The retry must carry the same arguments, the state and an accepting answer; anything else is
  refused. If the upstream itself then asks for input, its state rides inside a new approved
  state, so the following rounds are not asked again and still cannot change the arguments.

A refusal is a JSON-RPC error -32602 whose `data.mechanism` is `policy` (audited as such).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import os
import secrets
import time
from typing import TYPE_CHECKING, Any, Final

import msgspec
import orjson

from manifold.config import ConfirmConfig
from manifold.pipeline import CallContext, CallNext
from manifold.protocol import jsonrpc as rpc

if TYPE_CHECKING:
    from manifold.security.policy import Decision

__all__ = ["INPUT_KEY", "STATE_PREFIX", "Confirmer", "args_digest"]

STATE_PREFIX: Final = "mfp1."
INPUT_KEY: Final = "manifold.confirm"  # the key of the gateway's input request
_MAX_SHOWN: Final = 2000  # characters of the arguments shown in the question


def args_digest(args: Any) -> str:
    """SHA-256 of the arguments' canonical JSON (sorted keys, no spaces)."""
    try:
        body = orjson.dumps(args, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits, deep nesting
        body = msgspec.json.encode(args, order="sorted")
    return hashlib.sha256(body).hexdigest()


class Confirmer:
    """Asks, and checks approvals."""

    def __init__(self, cfg: ConfirmConfig, key: bytes | None = None) -> None:
        self.timeout = cfg.timeout
        self.expiry = cfg.expiry
        self.max_pending = cfg.max_pending
        self._key = key or os.urandom(32)
        self._pending: dict[str, float] = {}  # nonce -> expiry (time.time())

    # ----------------------------------------------------------------- the question

    @staticmethod
    def question(ctx: CallContext, d: Decision, shown_args: Any) -> dict[str, Any]:
        """The elicitation request's params: the tool, its arguments and the rule."""
        text = orjson.dumps(shown_args, option=orjson.OPT_SORT_KEYS).decode()
        if len(text) > _MAX_SHOWN:
            text = text[: _MAX_SHOWN - 3] + "..."
        why = f": {d.reason}" if d.reason else ""
        return {
            "message": (
                f"Allow the tool call {ctx.exposed} (server {ctx.route.upstream}) with these "
                f"arguments?\n{text}\nAsked by {d.by}{why}."
            ),
            "requestedSchema": {"type": "object", "properties": {}},
        }

    async def confirm(
        self, ctx: CallContext, call_next: CallNext, d: Decision, args: Any
    ) -> rpc.Incoming:
        shown = d.arguments if d.redacted else args
        if ctx.client_caps is not None and getattr(ctx.sink, "relay_rounds", False):
            return await self._round(ctx, call_next, d, args, shown)
        return await self._ask(ctx, call_next, d, shown)

    # ----------------------------------------------------------------- asking (a real request)

    async def _ask(
        self, ctx: CallContext, call_next: CallNext, d: Decision, shown: Any
    ) -> rpc.Incoming:
        try:
            async with asyncio.timeout(self.timeout):
                answer = await ctx.sink.server_request(
                    "elicitation/create", self.question(ctx, d, shown), INPUT_KEY
                )
        except TimeoutError:
            raise _refuse(ctx, d, f"no answer within {self.timeout:g} s") from None
        except rpc.RpcError as e:
            raise _refuse(ctx, d, f"the client cannot be asked ({e.message})") from None
        action = answer.get("action")
        if action != "accept":
            raise _refuse(ctx, d, f"the user did not approve it (answer: {action!r})")
        return await call_next(ctx)

    # ----------------------------------------------------------------- MRTR rounds

    async def _round(
        self, ctx: CallContext, call_next: CallNext, d: Decision, args: Any, shown: Any
    ) -> rpc.Incoming:
        binding = self._binding(ctx, args)
        state = ctx.params.get("requestState")
        if not (isinstance(state, str) and state.startswith(STATE_PREFIX)):
            caps = ctx.client_caps or {}
            if "elicitation" not in caps:
                raise _refuse(
                    ctx,
                    d,
                    "the client cannot be asked (it did not declare the elicitation capability)",
                )
            handle = self._issue({**binding, "ok": False})
            body = {
                "resultType": "input_required",
                "inputRequests": {
                    INPUT_KEY: {
                        "method": "elicitation/create",
                        "params": self.question(ctx, d, shown),
                    }
                },
                "requestState": handle,
            }
            return rpc.Incoming(result=msgspec.Raw(orjson.dumps(body)))
        sealed = self._open(ctx, d, state, binding)
        answers = ctx.params.get("inputResponses")
        answers = answers if isinstance(answers, dict) else {}
        if not sealed.get("ok"):
            answer = answers.get(INPUT_KEY)
            action = answer.get("action") if isinstance(answer, dict) else None
            if action != "accept":
                raise _refuse(ctx, d, f"the user did not approve it (answer: {action!r})")
        self._forward_params(ctx, sealed.get("s"), answers)
        res = await call_next(ctx)
        return self._wrap(res, binding)

    def strip(self, ctx: CallContext) -> None:
        """Forward a call without the gateway's own round state (an allowed call whose earlier
        round was a confirmation: the policy changed, or an approved call's later round)."""
        state = ctx.params.get("requestState")
        if isinstance(state, str) and state.startswith(STATE_PREFIX):
            sealed = self._verify(state)
            answers = ctx.params.get("inputResponses")
            self._forward_params(
                ctx,
                sealed.get("s") if sealed is not None else None,
                answers if isinstance(answers, dict) else {},
            )

    @staticmethod
    def _forward_params(ctx: CallContext, inner: Any, answers: dict[str, Any]) -> None:
        params = {
            k: v for k, v in ctx.params.items() if k not in ("requestState", "inputResponses")
        }
        rest = {k: v for k, v in answers.items() if k != INPUT_KEY}
        # The upstream's own round, after the approval: its state and its answers.
        if inner is not None:
            params["requestState"] = inner
        if rest:
            params["inputResponses"] = rest
        ctx.params = params

    def _wrap(self, res: rpc.Incoming, binding: dict[str, Any]) -> rpc.Incoming:
        """The upstream asks for input after the approval: its state rides inside an approved
        state of ours, bound to the same arguments."""
        raw = bytes(res.result or b"")
        if b'"input_required"' not in raw:
            return res
        obj = rpc.load_raw(res.result)
        if not isinstance(obj, dict) or obj.get("resultType") != "input_required":
            return res
        obj["requestState"] = self._issue({**binding, "ok": True, "s": obj.get("requestState")})
        return rpc.Incoming(result=msgspec.Raw(orjson.dumps(obj)))

    @staticmethod
    def _binding(ctx: CallContext, args: Any) -> dict[str, Any]:
        return {
            "p": ctx.principal,
            "u": ctx.route.upstream,
            "t": ctx.route.name,
            "d": args_digest(args),
        }

    # ----------------------------------------------------------------- the signed state

    def _mac(self, body: bytes) -> str:
        mac = hmac.new(self._key, body, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def _issue(self, claims: dict[str, Any]) -> str:
        now = time.time()
        if len(self._pending) >= self.max_pending:
            for n in [n for n, exp in self._pending.items() if exp < now]:
                del self._pending[n]
            if len(self._pending) >= self.max_pending:
                raise rpc.RpcError(
                    rpc.INTERNAL_ERROR,
                    f"policy: too many confirmations are waiting for an answer "
                    f"(security.policy.confirm.max_pending {self.max_pending}); try again later",
                    {"mechanism": "policy", "reason": "busy"},
                )
        nonce = secrets.token_urlsafe(12)
        exp = now + self.expiry
        self._pending[nonce] = exp
        body = orjson.dumps({**claims, "n": nonce, "exp": exp}, option=orjson.OPT_SORT_KEYS)
        payload = base64.urlsafe_b64encode(body).decode().rstrip("=")
        return f"{STATE_PREFIX}{payload}.{self._mac(body)}"

    def _verify(self, handle: str) -> dict[str, Any] | None:
        """The claims of a state this gateway signed, or None (forged, edited, not JSON)."""
        payload, _, mac = handle[len(STATE_PREFIX) :].partition(".")
        try:
            body = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        except ValueError:
            return None
        if not hmac.compare_digest(self._mac(body), mac):
            return None
        try:
            claims = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
        return claims if isinstance(claims, dict) else None

    def _open(
        self, ctx: CallContext, d: Decision, handle: str, binding: dict[str, Any]
    ) -> dict[str, Any]:
        """Check a returned state against this call and use it up."""
        claims = self._verify(handle)
        if claims is None:
            raise _refuse(ctx, d, "the approval state is invalid")
        if any(claims.get(k) != v for k, v in binding.items() if k != "d"):
            raise _refuse(ctx, d, "the approval state was made for another caller or tool")
        if claims.get("d") != binding["d"]:
            raise _refuse(ctx, d, "the approval was given for other arguments")
        exp = claims.get("exp")
        if not isinstance(exp, float | int) or exp < time.time():
            self._pending.pop(str(claims.get("n")), None)
            raise _refuse(ctx, d, "the approval has expired; call again to be asked again")
        if self._pending.pop(str(claims.get("n")), None) is None:
            raise _refuse(ctx, d, "the approval was already used (or made by another process)")
        return claims


def _refuse(ctx: CallContext, d: Decision, why: str) -> rpc.RpcError:
    from manifold.security.policy import Policy

    return Policy.refusal(ctx, d, "needs confirmation", why)
