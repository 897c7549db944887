"""Redaction against secrets hidden from its rules, through the real `manifold run`, a real
upstream (`tests/servers/splitting_server.py`) and the official client, default configuration:
secrets split between adjacent text blocks (and a text block and an embedded resource, two
prompt messages), a credential used as a key, zero-width characters inside a token, fullwidth
and Cyrillic look-alike letters, a `.env` served as a base64 blob; and from the client, a key
split between the strings of a list argument and one typed into a completion. What the model
would read (every text joined in order, blobs decoded, look-alikes folded) holds none of them;
with redaction off the same exchange shows every one, so the test cannot pass vacuously.
"""

from __future__ import annotations

import base64
import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters, types

from tests import support
from tests.servers.splitting_server import planted
from tests.support import MANIFOLD, stdio_upstream, write_config

pytestmark = pytest.mark.timeout(120)

CLIENT = {
    "aws": "AKIA" + "Z3QW8NRX5TKM2LVP",
    "github_pat": "glpat-" + "Xm7qR2vT9wLp4Ks8Zn3B",
}
_LABELS = frozenset({"type", "uri", "mimeType", "mime_type", "role"})  # not read as text
_FIELDS = frozenset({"text", "resource", "content", "blob"})  # read: their values, not names
_CYRILLIC = str.maketrans({"\u0410": "A", "\u200b": None})


def _read(obj: Any, out: list[str]) -> None:
    """Every string a model would read, in order (blobs decoded)."""
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, list):
        for x in obj:
            _read(x, out)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k in _LABELS:
                continue
            if k not in _FIELDS:
                out.append(k)
            if k == "blob" and isinstance(v, str):
                out.append(base64.b64decode(v).decode())
            else:
                _read(v, out)


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_CYRILLIC)


async def _exchange(tmp_path: Path, redaction: dict[str, Any] | None) -> tuple[str, str]:
    received = tmp_path / "received.jsonl"
    received.touch()
    top: dict[str, Any] = {} if redaction is None else {"security": {"redaction": redaction}}
    config = write_config(
        tmp_path / "gw.yaml",
        {"sp": stdio_upstream("splitting_server.py", "--received", str(received))},
        **top,
    )
    server = StdioServerParameters(
        command=MANIFOLD,
        args=["run", "--config", str(config)],
        env=support.test_env(),
        cwd=str(support.REPO),
    )
    seen: list[Any] = []
    async with Client(server, mode="legacy", cache=None) as c:
        split = await c.call_tool("sp__split", {})
        assert not split.is_error and len(split.content) == 6, split
        seen.append([b.model_dump(mode="json", exclude_none=True) for b in split.content])
        disguised = await c.call_tool("sp__disguised", {})
        assert not disguised.is_error, disguised
        assert isinstance(disguised.structured_content, dict)
        assert set(disguised.structured_content) == {"tokens", "note", "wide", "mixed"}
        seen.append(disguised.structured_content)
        read = await c.read_resource("split://env")
        seen.append(read.model_dump(mode="json", exclude_none=True)["contents"])
        prompt = await c.get_prompt("sp__brief", {"topic": "billing"})
        assert len(prompt.messages) == 2
        seen.append([m.model_dump(mode="json", exclude_none=True) for m in prompt.messages])
        aws, pat = CLIENT["aws"], CLIENT["github_pat"]
        stored = await c.call_tool(
            "sp__store", {"lines": ["id:", aws[:10], aws[10:], "done"], "note": "ok"}
        )
        assert not stored.is_error, stored
        await c.complete(
            types.PromptReference(type="ref/prompt", name="sp__brief"),
            {"name": "topic", "value": f"token {pat}"},
        )
    parts: list[str] = []
    _read(seen, parts)
    return "".join(parts), received.read_text()


def _leaks(flat: str) -> list[str]:
    p = planted()
    body_line = p["key_body"][:32]  # the first line of the private key's body
    values = {**p, "key_body": body_line}
    folded = _folded(flat)
    return sorted(name for name, value in values.items() if value in flat or value in folded)


async def test_hidden_and_split_secrets_never_reach_the_other_side(tmp_path: Path) -> None:
    flat, received = await _exchange(tmp_path, None)
    assert not _leaks(flat), f"reached the client: {_leaks(flat)}"
    for rule in ("aws-access-key", "github-token", "private-key", "stripe-secret-key"):
        assert f"[REDACTED:{rule}]" in flat, rule
    # The split parts are gone from each side of the seam, not only the whole.
    aws = planted()["aws"]
    assert aws[:9] not in flat and aws[9:] not in flat
    # What the client sent: the list's split key and the completion's token did not arrive.
    sent = [json.loads(line) for line in received.splitlines()]
    stored = next(e for e in sent if e.get("tool") == "store")
    assert "".join(stored["lines"]).count("[REDACTED:aws-access-key]") >= 1, stored
    assert CLIENT["aws"][10:] not in received and CLIENT["aws"] not in "".join(stored["lines"])
    assert stored["lines"][0] == "id:" and stored["lines"][-1] == "done"  # the rest arrived
    completion = next(e for e in sent if "completion" in e)
    assert completion["completion"] == "token [REDACTED:gitlab-token]"


async def test_with_redaction_off_the_same_secrets_pass(tmp_path: Path) -> None:
    flat, received = await _exchange(tmp_path, {"enabled": False})
    assert _leaks(flat) == sorted(planted()), "the server did not even send them"
    assert CLIENT["github_pat"] in received
    assert CLIENT["aws"][:10] in received and CLIENT["aws"][10:] in received
