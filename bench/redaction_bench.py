"""Secret redaction, scored and timed with the default configuration.

    .venv/bin/python -m bench.redaction_bench [--write-corpus] [--heldout] [--out FILE]

The corpus (`bench/data/redaction/`, JSON lines, generated with fixed seeds by
`--write-corpus`): credentials of every built-in rule family, generated at random in each
provider's shape (valid CRC32 checksums for GitHub and npm tokens), each planted in several
carriers (a sentence, a log line, a JSON document, JSON inside a JSON string, markdown, YAML, a
`.env` file, code, a URL query, a kubeconfig); and benign look-alikes (hashes, UUIDs, public keys
and certificates, base64 images, publishable keys, documentation placeholders, prose about
passwords) in the same carriers. `secrets.jsonl` and `lookalikes.jsonl` are the part used while
tuning the rules; `heldout-*.jsonl` (another seed) is scored only with `--heldout`.

Each planted text is sent through the redaction addon in six directions: a result's text block,
its structuredContent, an embedded resource of a result, a tool-call argument on the way out, a
tool description and an inputSchema default on arrival. A case *leaks* when the secret part is
still in what the other side gets; a look-alike case is *altered* when what arrives differs
from what was sent.

Then the timings (in process, one core, median): the scan throughput in MB/s over a mixed corpus
(secrets, look-alikes and prose in 64 KB results), and 5 MB results: clean, a secret every 200
words, and two near-miss cases (trigger-like text with no secret: 50k structured rows each
holding `password: required`, and prose full of `token:`, `Bearer`, `sk-` and `key=` words).

Prints Markdown; `--out FILE` replaces the "Secret redaction" section of FILE with it (the
other sections of the file are kept).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import statistics
import string
import sys
import time
import urllib.parse
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import orjson

from bench.redact_corpus import (
    CARRIERS,
    FAMILIES,
    URLSAFE,
    Gen,
    _lookalikes,
    _password,
    _r,
)
from manifold.config import RedactionConfig
from manifold.hooks import CatalogEvent
from manifold.protocol import jsonrpc as rpc
from manifold.security.redact import Redaction

DATA = Path(__file__).resolve().parent / "data" / "redaction"
SECTION = "## Secret redaction"
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
UPNUM = string.ascii_uppercase + string.digits


def _same(t: str) -> tuple[str, str]:
    return t, t


def _tok(prefix: str, alphabet: str, n: int) -> Gen:
    return lambda rnd: _same(prefix + _r(rnd, alphabet, n))


def _service_account(rnd: random.Random) -> tuple[str, str]:
    lines = [_r(rnd, string.ascii_letters + string.digits + "+/", 64) for _ in range(8)]
    pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----\n"
    doc = {
        "type": "service_account",
        "project_id": f"proj-{_r(rnd, string.ascii_lowercase, 6)}",
        "private_key_id": _r(rnd, HEX, 40),
        "private_key": pem,
        "client_email": f"deploy@proj-{_r(rnd, string.ascii_lowercase, 6)}.iam.gserviceaccount.com",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    return json.dumps(doc, indent=2), lines[2]


def _kubeconfig(rnd: random.Random) -> tuple[str, str]:
    key = base64.b64encode(rnd.randbytes(rnd.randint(90, 300))).decode()
    doc = (
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n"
        f"    client-certificate-data: {base64.b64encode(rnd.randbytes(120)).decode()}\n"
        f"    client-key-data: {key}\n"
    )
    return doc, key


def _slack_webhook(rnd: random.Random) -> tuple[str, str]:
    path = f"T{_r(rnd, UPNUM, 8)}/B{_r(rnd, UPNUM, 10)}/{_r(rnd, ALNUM, 24)}"
    return f"https://hooks.slack.com/services/{path}", path


def _azure_storage(rnd: random.Random) -> tuple[str, str]:
    key = base64.b64encode(rnd.randbytes(64)).decode()
    conn = (
        f"DefaultEndpointsProtocol=https;AccountName=acct{_r(rnd, string.digits, 4)};"
        f"AccountKey={key};EndpointSuffix=core.windows.net"
    )
    return conn, key


def _discord(rnd: random.Random) -> tuple[str, str]:
    first = base64.b64encode(str(rnd.randint(10**17, 10**18)).encode()).decode().rstrip("=")
    t = f"{first}.{_r(rnd, URLSAFE, 6)}.{_r(rnd, URLSAFE, 38)}"
    return (t, t) if t[0] in "MN" else _discord(rnd)


def _azure_secret(rnd: random.Random) -> tuple[str, str]:
    return _same(_r(rnd, ALNUM, 3) + str(rnd.randint(0, 9)) + "Q~" + _r(rnd, ALNUM + "_~.-", 34))


def _telegram(rnd: random.Random) -> tuple[str, str]:
    return _same(f"{rnd.randint(10**8, 10**10 - 1)}:AA{_r(rnd, URLSAFE, 33)}")


def _conn_string(rnd: random.Random) -> tuple[str, str]:
    pw = _password(rnd).replace("@", "a").replace("/", "b").replace(";", "c")
    form = rnd.choice(
        [
            "Server=tcp:db.example.net,1433;Database=app;User ID=app;Password={pw};",
            "jdbc:postgresql://db:5432/app?user=app&password={pw}",
            "mongodb+srv://svc:{pw}@cluster0.mongodb.net/?retryWrites=true",
            "amqps://worker:{pw}@queue.internal:5671/vhost",
        ]
    )
    return form.format(pw=pw), pw


# Every built-in rule family, keyed by the rule that should catch it.
ALL_FAMILIES: dict[str, Gen] = {
    **FAMILIES,
    "slack-webhook": _slack_webhook,
    "google-oauth": lambda rnd: _same(
        rnd.choice(["GOCSPX-", "ya29."]) + _r(rnd, URLSAFE, rnd.randint(28, 120))
    ),
    "groq-key": _tok("gsk_", ALNUM, 52),
    "xai-key": _tok("xai-", ALNUM, 80),
    "pypi-token": _tok("pypi-AgEIcHlwaS5vcmc", URLSAFE, 150),
    "digitalocean-token": lambda rnd: _same(f"do{rnd.choice('opr')}_v1_" + _r(rnd, HEX, 64)),
    "vault-token": lambda rnd: _same(f"hv{rnd.choice('sb')}." + _r(rnd, URLSAFE, 90)),
    "databricks-token": _tok("dapi", HEX, 32),
    "shopify-token": lambda rnd: _same(
        f"shp{rnd.choice(['at', 'ca', 'pa', 'ss'])}_" + _r(rnd, HEX, 32)
    ),
    "postman-key": lambda rnd: _same(f"PMAK-{_r(rnd, HEX, 24)}-{_r(rnd, HEX, 34)}"),
    "grafana-token": lambda rnd: _same(rnd.choice(["glsa_", "glc_"]) + _r(rnd, ALNUM, 40)),
    "age-secret-key": _tok("AGE-SECRET-KEY-1", UPNUM, 58),
    "linear-key": _tok("lin_api_", ALNUM, 40),
    "notion-token": lambda rnd: _same(
        rnd.choice(["ntn_" + _r(rnd, ALNUM, 46), "secret_" + _r(rnd, ALNUM, 43)])
    ),
    "twilio-key": _tok("SK", HEX, 32),
    "mailgun-key": _tok("key-", HEX, 32),
    "square-token": lambda rnd: _same(
        rnd.choice(["sq0atp-", "sq0csp-", "EAAA"]) + _r(rnd, URLSAFE, rnd.randint(22, 60))
    ),
    "docker-token": _tok("dckr_pat_", URLSAFE, 27),
    "supabase-token": _tok("sbp_", HEX, 40),
    "sentry-token": lambda rnd: _same(rnd.choice(["sntrys_", "sntryu_"]) + _r(rnd, ALNUM, 64)),
    "newrelic-key": _tok("NRAK-", UPNUM, 27),
    "doppler-token": lambda rnd: _same(
        f"dp.{rnd.choice(['pt', 'st', 'ct', 'sa'])}." + _r(rnd, ALNUM, 43)
    ),
    "replicate-token": _tok("r8_", ALNUM, 37),
    "perplexity-key": _tok("pplx-", ALNUM, 48),
    "heroku-key": _tok("HRKU-", URLSAFE, 60),
    "planetscale-token": lambda rnd: _same(
        f"pscale_{rnd.choice(['tkn', 'pw', 'oauth'])}_" + _r(rnd, URLSAFE, 43)
    ),
    "rubygems-key": _tok("rubygems_", HEX, 48),
    "cratesio-token": _tok("cio", ALNUM, 32),
    "figma-token": _tok("figd_", URLSAFE, 40),
    "airtable-token": lambda rnd: _same(f"pat{_r(rnd, ALNUM, 14)}.{_r(rnd, HEX, 64)}"),
    "mapbox-secret": lambda rnd: _same(f"sk.eyJ{_r(rnd, URLSAFE, 60)}.{_r(rnd, URLSAFE, 22)}"),
    "discord-bot-token": _discord,
    "azure-client-secret": _azure_secret,
    "terraform-token": lambda rnd: _same(f"{_r(rnd, ALNUM, 14)}.atlasv1.{_r(rnd, URLSAFE, 67)}"),
    "telegram-bot-token": _telegram,
    "azure-storage-key": _azure_storage,
    "kubeconfig-key": _kubeconfig,
    "service-account": _service_account,
    "connection-string": _conn_string,
}

EXTRA_CARRIERS: dict[str, Callable[[str], str]] = {
    "env-file": lambda s: f"APP_ENV=production\nPORT=8080\nINTEGRATION={s}\nDEBUG=false\n",
    "code": lambda s: f'client = Client(base_url="https://api.example.com", auth="{s}")\n',
    "url-query": lambda s: (
        "https://example.com/callback?state=ok&value=" + urllib.parse.quote(s, safe="")
    ),
}
ALL_CARRIERS: dict[str, Callable[[str], str]] = {**CARRIERS, **EXTRA_CARRIERS}
WHERE = ("result", "structured", "resource", "argument", "description", "schema-default")


# --------------------------------------------------------------------------------- corpus


def generate(seed: int, per_family: int, rounds: int) -> tuple[list[Any], list[Any]]:
    """(secret cases, look-alike cases): dicts with family, carrier, text and (for secrets)
    the part that must not get through."""
    rnd = random.Random(seed)
    secrets: list[Any] = []
    for family, gen in ALL_FAMILIES.items():
        for _ in range(per_family):
            plant, secret = gen(rnd)
            for cname, carrier in ALL_CARRIERS.items():
                if cname == "url-query" and "\n" in plant:
                    continue  # a multi-line document is not sent in a URL
                text = carrier(plant)
                if cname == "url-query":
                    secret = urllib.parse.quote(secret, safe="")
                secrets.append({"family": family, "carrier": cname, "text": text, "secret": secret})
    looks: list[Any] = []
    for _ in range(rounds):
        for family, value in _lookalikes(rnd).items():
            for cname, carrier in ALL_CARRIERS.items():
                looks.append({"family": family, "carrier": cname, "text": carrier(value)})
    return secrets, looks


def write_corpus() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for prefix, seed in (("", 20261201), ("heldout-", 77031)):
        secrets, looks = generate(seed, 2 if not prefix else 1, 3 if not prefix else 2)
        for name, rows in (("secrets", secrets), ("lookalikes", looks)):
            path = DATA / f"{prefix}{name}.jsonl"
            path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
            print(f"wrote {path.name}: {len(rows)} cases", file=sys.stderr)


def load(name: str) -> list[Any]:
    return [orjson.loads(line) for line in (DATA / name).read_bytes().splitlines() if line]


# --------------------------------------------------------------------------------- scoring


class _Ctx:
    """The few fields of a CallContext the addon reads."""

    def __init__(self, args: dict[str, Any]) -> None:
        self.method = "tools/call"
        self.params = {"name": "write", "arguments": args}
        self.exposed = "fs__write"


def through(addon: Redaction, text: str, where: str) -> str:
    """What the other side gets of `text` sent the `where` way."""
    r = addon.r
    if where in ("result", "structured", "resource"):
        body: dict[str, Any]
        if where == "result":
            body = {"content": [{"type": "text", "text": text}]}
        elif where == "structured":
            body = {"content": [], "structuredContent": {"data": {"value": text}}}
        else:
            res = {"uri": "file:///x", "mimeType": "text/plain", "text": text}
            body = {"content": [{"type": "resource", "resource": res}]}
        out = r.raw_result(orjson.dumps(body))
        got = orjson.loads(out) if out is not None else body
        if where == "result":
            return str(got["content"][0]["text"])
        if where == "structured":
            return str(got["structuredContent"]["data"]["value"])
        return str(got["content"][0]["resource"]["text"])
    if where == "argument":
        seen: list[str] = []

        async def upstream(c: Any) -> rpc.Incoming:
            seen.append(c.params["arguments"]["content"])
            return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

        asyncio.run(addon.call(_Ctx({"path": "/tmp/x", "content": text}), upstream))  # type: ignore[arg-type]
        return seen[0]
    if where == "description":
        items = [{"name": "t", "description": text, "inputSchema": {"type": "object"}}]
        return str(addon.catalog(CatalogEvent("up", "tools", items))[0]["description"])
    if where == "schema-default":
        prop = {"type": "string", "default": text}
        items = [{"name": "t", "inputSchema": {"type": "object", "properties": {"x": prop}}}]
        out = addon.catalog(CatalogEvent("up", "tools", items))
        return str(out[0]["inputSchema"]["properties"]["x"]["default"])
    raise ValueError(where)


def leaked(secret: str, got: str) -> bool:
    return secret in got or json.dumps(secret)[1:-1] in got


def score(secrets: list[Any], looks: list[Any]) -> tuple[list[str], int, int, int, int]:
    addon = Redaction(RedactionConfig())
    by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    examples: list[str] = []
    for case in secrets:
        for where in WHERE:
            got = through(addon, case["text"], where)
            by_family[case["family"]][1] += 1
            if leaked(case["secret"], got):
                by_family[case["family"]][0] += 1
                if len(examples) < 15:
                    examples.append(f"{case['family']} / {case['carrier']} / {where}")
    altered: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fp_examples: list[str] = []
    for case in looks:
        for where in WHERE:
            got = through(addon, case["text"], where)
            altered[case["family"]][1] += 1
            if got != case["text"]:
                altered[case["family"]][0] += 1
                if len(fp_examples) < 15:
                    fp_examples.append(
                        f"{case['family']} / {case['carrier']} / {where}: {got[:90]!r}"
                    )
    lines = ["| secret family | cases | leaked |", "| --- | ---: | ---: |"]
    lines += [f"| {f} | {n} | {k} |" for f, (k, n) in sorted(by_family.items())]
    tk = sum(k for k, _ in by_family.values())
    tn = sum(n for _, n in by_family.values())
    lines += ["", "| look-alike family | cases | altered |", "| --- | ---: | ---: |"]
    lines += [f"| {f} | {n} | {k} |" for f, (k, n) in sorted(altered.items())]
    ak = sum(k for k, _ in altered.values())
    an = sum(n for _, n in altered.values())
    if examples:
        lines += ["", "Leaked (first 15):", *[f"- {e}" for e in examples]]
    if fp_examples:
        lines += ["", "Altered (first 15):", *[f"- {e}" for e in fp_examples]]
    return lines, tk, tn, ak, an


# --------------------------------------------------------------------------------- timing

WORDS = [
    "the", "service", "returned", "rows", "for", "north", "warehouse", "quantity", "value",
    "report", "model", "widget", "passed", "basics", "token", "key", "Asia", "café", "日本語",
    "https://example.com/docs/page", "user@example.com", "commit",
    "3f786850e387550fdab836ed7e6dc881de23001b", "id", "123e4567-e89b-12d3-a456-426614174000",
]  # fmt: skip
NEAR = (
    "token: required",
    "the password field",
    "Bearer authentication",
    "sk-learn",
    "key=value",
    "api_key: string",
    "secret: false",
    "--password-stdin",
    "Authorization: header",
    "AKIAIOSFODNN7EXAMPLE",
)


def _text(size: int, rnd: random.Random, every: int = 0, extra: tuple[str, ...] = ()) -> str:
    out: list[str] = []
    n = i = 0
    pool = list(WORDS) + list(extra)
    while n < size:
        w = "DB_PASSWORD=p4ssW0rd-9x7" if every and i % every == every - 1 else rnd.choice(pool)
        out.append(w)
        n += len(w) + 1
        i += 1
    return " ".join(out)[:size]


def _result(text: str) -> bytes:
    return orjson.dumps({"content": [{"type": "text", "text": text}], "isError": False})


def _median(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def timings(secrets: list[Any], looks: list[Any]) -> list[str]:
    rnd = random.Random(5)
    addon = Redaction(RedactionConfig())
    r = addon.r
    # Mixed corpus: every planted text and look-alike, with prose between, in 64 KB results.
    parts = [c["text"] for c in secrets + looks]
    rnd.shuffle(parts)
    chunks: list[bytes] = []
    buf: list[str] = []
    size = 0
    for p in parts:
        buf.append(p)
        buf.append(_text(400, rnd))
        size += len(p) + 400
        if size > 64_000:
            chunks.append(_result("\n".join(buf)))
            buf, size = [], 0
    total = sum(len(c) for c in chunks)

    def mixed() -> None:
        for c in chunks:
            r.raw_result(c)

    mixed()
    t = _median(mixed, 3)
    rows = [
        "| input | size | time | MB/s |",
        "| --- | ---: | ---: | ---: |",
        f"| dense mixed corpus: every planted text and look-alike, {len(chunks)} results of "
        f"64 KB (a secret every ~600 bytes) | {total / 1e6:.1f} MB | {t * 1e3:.0f} ms | "
        f"{total / t / 1e6:.0f} |",
    ]
    # Typical: 64 KB results of prose and JSON rows with look-alikes, one planted secret each.
    typical: list[bytes] = []
    for i, case in enumerate(secrets[:40]):
        rows_ = [
            {
                "id": f"row-{i}-{k}",
                "text": _text(200, rnd),
                "ref": looks[(i * 7 + k) % len(looks)]["text"],
            }
            for k in range(60)
        ]
        rows_[30]["text"] = case["text"]
        typical.append(orjson.dumps({"content": [{"type": "text", "text": _text(20_000, rnd)}],
                                     "structuredContent": {"rows": rows_}}))  # fmt: skip
    ttotal = sum(len(c) for c in typical)

    def typical_run() -> None:
        for c in typical:
            r.raw_result(c)

    typical_run()
    t = _median(typical_run, 3)
    rows.append(
        f"| typical mixed corpus: {len(typical)} results of {ttotal / len(typical) / 1e3:.0f} KB "
        f"(prose, JSON rows with look-alikes, one secret each) | {ttotal / 1e6:.1f} MB | "
        f"{t * 1e3:.0f} ms | {ttotal / t / 1e6:.0f} |"
    )
    rows_near = [
        {"sku": f"SKU-{i:05d}", "name": f"Widget {i}", "qty": i % 101, "note": "password: required"}
        for i in range(60_000)
    ]
    cases = {
        "5 MB clean text": _result(_text(5_000_000, rnd)),
        "5 MB, a secret every 200 words": _result(_text(5_000_000, rnd, every=200)),
        "5 MB near-miss prose (trigger words, no secret)": _result(
            _text(5_000_000, rnd, extra=NEAR * 3)
        ),
        "5 MB near-miss rows (60k x `password: required`)": orjson.dumps(
            {"content": [], "structuredContent": {"rows": rows_near}}
        ),
    }
    for name, raw in cases.items():
        r.raw_result(raw)
        t = _median(lambda raw=raw: r.raw_result(raw), 5)  # type: ignore[misc]
        rows.append(
            f"| {name} | {len(raw) / 1e6:.1f} MB | {t * 1e3:.0f} ms | {len(raw) / t / 1e6:.0f} |"
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.redaction_bench")
    ap.add_argument("--write-corpus", action="store_true", help="(re)generate the corpus files")
    ap.add_argument("--heldout", action="store_true", help="also score the held-out part")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--out", type=Path, help="write the section into this Markdown file")
    args = ap.parse_args()
    if args.write_corpus:
        write_corpus()
    parts = [("tuning", "")] + ([("held-out", "heldout-")] if args.heldout else [])
    lines = [
        SECTION,
        "",
        f"`python -m bench.redaction_bench{' --heldout' if args.heldout else ''}`, default config, "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}. Each case goes through {len(WHERE)} "
        f"directions ({', '.join(WHERE)}).",
        "",
    ]
    summary = ["| corpus | planted texts | cases | leaked | look-alike cases | altered |"]
    summary.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    details: list[str] = []
    secrets_all: list[Any] = []
    looks_all: list[Any] = []
    for label, prefix in parts:
        secrets, looks = load(f"{prefix}secrets.jsonl"), load(f"{prefix}lookalikes.jsonl")
        secrets_all += secrets
        looks_all += looks
        table, tk, tn, ak, an = score(secrets, looks)
        summary.append(
            f"| {label} | {len(secrets)} | {tn} | {tk} ({100 * tk / tn:.2f}%) | {an} | "
            f"{ak} ({100 * ak / an:.2f}%) |"
        )
        details += ["", f"### By family ({label})", "", *table]
    lines += summary
    if not args.no_timing:
        lines += [
            "",
            "### Time (in process, one core, median)",
            "",
            *timings(secrets_all, looks_all),
        ]
    lines += details
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        old = args.out.read_text() if args.out.exists() else "# Security benchmarks\n"
        head, _, rest = old.partition(SECTION)
        tail = rest[rest.find("\n## ") + 1 :] if "\n## " in rest else ""
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(head.rstrip("\n") + "\n\n" + text + ("\n" + tail if tail else ""))


if __name__ == "__main__":
    main()
