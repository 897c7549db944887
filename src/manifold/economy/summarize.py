"""Summaries of long tool results through an Ollama-compatible HTTP API.

`POST {url}/api/generate` with `{"model", "prompt", "stream": false, "options": {"num_predict"}}`
answers `{"response": "..."}`. Any failure (connection, timeout, HTTP status, bad JSON, an
empty answer) gives None, and the governor falls back to truncation; the whole exchange is
bounded by the configured timeout. Requests go over the gateway's lean HTTP client with
`Connection: close`: summaries are rare and slow, so no idle socket is kept open for them.
"""

from __future__ import annotations

import asyncio
import logging
import re
from urllib.parse import urlsplit

import orjson

from manifold.config import SummarizeConfig
from manifold.upstream.httpclient import HttpClientError, HttpPool

__all__ = ["PROMPT_CHARS", "Summarizer"]

log = logging.getLogger("manifold.summarize")

PROMPT_CHARS = 48_000  # at most this much of the result goes into the prompt
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)

PROMPT = (
    "Summarize this result of the tool {tool} for an AI assistant, in at most {words} words. "
    "Keep identifiers, names, numbers, errors and anything needed to act on it; "
    "no preamble.{cut}\n\n{text}"
)


class Summarizer:
    def __init__(self, cfg: SummarizeConfig) -> None:
        self.cfg = cfg
        self.model = cfg.model
        self.pool = HttpPool(cfg.url, connect_timeout=cfg.timeout)  # ValueError: not a URL
        self.path = urlsplit(cfg.url).path.rstrip("/") + "/api/generate"

    def prompt(self, text: str, tool: str, tokens: int) -> str:
        cut = ""
        if len(text) > PROMPT_CHARS:
            text = text[:PROMPT_CHARS]
            cut = " (The result is cut short here.)"
        words = max(10, tokens * 3 // 4)
        return PROMPT.format(tool=tool, words=words, cut=cut, text=text)

    async def summarize(self, text: str, tool: str, tokens: int) -> str | None:
        """A summary meant to fit `tokens` (also capped by `summarize.max_tokens`), or None."""
        tokens = max(16, min(tokens, self.cfg.max_tokens))
        body = orjson.dumps(
            {
                "model": self.model,
                "prompt": self.prompt(text, tool, tokens),
                "stream": False,
                "options": {"num_predict": tokens},
            }
        )
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Connection": "close",
        }
        try:
            async with asyncio.timeout(self.cfg.timeout):
                resp = await self.pool.request("POST", headers, body, path=self.path)
                try:
                    data = await resp.read()
                finally:
                    resp.release()
        except TimeoutError:
            log.warning(
                "summarize: no answer from %s within %.1f s", self.cfg.url, self.cfg.timeout
            )
            return None
        except (HttpClientError, OSError) as e:
            log.warning("summarize: %s: %s", self.cfg.url, e)
            return None
        if resp.status != 200:
            log.warning("summarize: %s answered HTTP %d", self.cfg.url, resp.status)
            return None
        try:
            answer = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.warning("summarize: %s answered something that is not JSON", self.cfg.url)
            return None
        summary = answer.get("response") if isinstance(answer, dict) else None
        if not isinstance(summary, str):
            log.warning("summarize: %s answered without a 'response' string", self.cfg.url)
            return None
        summary = _THINK.sub("", summary).strip()
        return summary or None

    def close(self) -> None:
        self.pool.close()
