"""A labelled corpus for secret redaction, generated (seeded) and scored with the default config.

    .venv/bin/python -m bench.redact_corpus [--seed N] [--per-family N]

Secrets: each family's values are generated at random in the provider's shape (not a fixed list
of phrasings), then placed in several carriers (a sentence, a log line, a JSON document in a
text block, a JSON string inside a JSON string, a markdown code block, a structuredContent
field, a tool argument on the way out, a tool description on arrival). A case *leaks* when the
secret part (for URLs, headers and assignments: the password or token itself) is still in what
the other side receives.

Look-alikes: benign values that share a shape or a word with a secret (hashes, UUIDs, public
keys, base64 images, documentation placeholders, publishable keys, ...), in the same carriers.
A case is *altered* when what is received differs from what was sent.

Prints a table by family (Markdown); `--out FILE` writes it too.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import sys
import uuid
import zlib
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import orjson

from manifold.config import RedactionConfig
from manifold.hooks import CatalogEvent
from manifold.security.redact import Redaction

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
UP = string.ascii_uppercase + string.digits
B64 = string.ascii_letters + string.digits + "+/"
URLSAFE = string.ascii_letters + string.digits + "_-"
PUNCT = "!#%^&*_+-=.~"


def _r(rnd: random.Random, alphabet: str, n: int) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(n))


def _b62(n: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = B62[r] + out
    return out.rjust(6, "0")


def _password(rnd: random.Random) -> str:
    n = rnd.randint(10, 24)
    chars = [rnd.choice(string.ascii_letters) for _ in range(n)]
    for _ in range(rnd.randint(1, 3)):
        chars[rnd.randrange(n)] = rnd.choice(string.digits)
    if rnd.random() < 0.5:
        chars[rnd.randrange(n)] = rnd.choice(PUNCT)
    return "".join(chars)


def _b64url(obj: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


# Each generator returns (the text to plant, the secret part that must not get through).
Gen = Callable[[random.Random], tuple[str, str]]


def _token(prefix: str, alphabet: str, n: int) -> Gen:
    def g(rnd: random.Random) -> tuple[str, str]:
        t = prefix + _r(rnd, alphabet, n)
        return t, t

    return g


def _github(rnd: random.Random) -> tuple[str, str]:
    body = _r(rnd, B62, 30)
    t = (
        rnd.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
        + body
        + _b62(zlib.crc32(body.encode()))
    )
    return t, t


def _npm(rnd: random.Random) -> tuple[str, str]:
    body = _r(rnd, B62, 30)
    t = "npm_" + body + _b62(zlib.crc32(body.encode()))
    return t, t


def _jwt(rnd: random.Random) -> tuple[str, str]:
    head = {"alg": rnd.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    if rnd.random() < 0.5:
        head["kid"] = _r(rnd, B62, 8)
    body = {"sub": str(rnd.randint(1, 10**9)), "iat": rnd.randint(1.6e9, 1.8e9)}
    t = f"{_b64url(head)}.{_b64url(body)}.{_r(rnd, URLSAFE, 43)}"
    return t, t


def _private_key(rnd: random.Random) -> tuple[str, str]:
    kind = rnd.choice(["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED ", "DSA "])
    lines = [_r(rnd, B64, 64) for _ in range(rnd.randint(3, 20))]
    text = f"-----BEGIN {kind}PRIVATE KEY-----\n" + "\n".join(lines)
    text += f"\n-----END {kind}PRIVATE KEY-----"
    return text, lines[1]


def _url(rnd: random.Random) -> tuple[str, str]:
    pw = _password(rnd).replace("@", "a").replace("/", "b")
    scheme = rnd.choice(
        ["postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp", "https"]
    )
    user = rnd.choice(["app", "admin", "svc_" + _r(rnd, string.ascii_lowercase, 5), "root"])
    host = rnd.choice(["db.internal", "10.0.3.7", "cluster0.abcde.mongodb.net", "cache"])
    return f"{scheme}://{user}:{pw}@{host}:{rnd.randint(1000, 9999)}/{user}", pw


def _header(rnd: random.Random) -> tuple[str, str]:
    if rnd.random() < 0.5:
        cred = _r(rnd, URLSAFE + ".", rnd.randint(20, 60))
        return f"Authorization: Bearer {cred}", cred
    cred = base64.b64encode(f"user{rnd.randint(1, 99)}:{_password(rnd)}".encode()).decode()
    return f"Authorization: Basic {cred}", cred


def _env(rnd: random.Random) -> tuple[str, str]:
    key = rnd.choice(
        [
            "DB_PASSWORD",
            "SECRET_KEY",
            "API_KEY",
            "AUTH_TOKEN",
            "STRIPE_SECRET",
            "REDIS_PASSWORD",
            "JWT_SECRET",
            "SMTP_PASS",
            "CLIENT_SECRET",
            "ACCESS_TOKEN",
            "aws_secret_access_key",
            "password",
            "api_key",
        ]
    )
    pw = _password(rnd)
    form = rnd.choice(["{k}={v}", '{k}="{v}"', "{k}: {v}", '"{k}": "{v}"', "{k} = '{v}'"])
    return form.format(k=key, v=pw), pw


def _cli(rnd: random.Random) -> tuple[str, str]:
    pw = _password(rnd).replace("-", "x")
    form = rnd.choice(
        [
            "mysql -h db -u root -p{v} app",
            "deploy --password {v} --yes",
            "tool login --token={v}",
            "psql --password '{v}'",
            "sshpass -p {v} ssh host",
            "cli --api-key {v}",
        ]
    )
    return form.format(v=pw), pw


FAMILIES: dict[str, Gen] = {
    "aws-access-key": lambda rnd: (lambda t: (t, t))(
        rnd.choice(["AKIA", "ASIA"]) + _r(rnd, UP, 16)
    ),
    "github-token": _github,
    "github-pat": _token("github_pat_", B62, 22 + 1 + 59),
    "gitlab-token": _token("glpat-", URLSAFE, 20),
    "slack-token": lambda rnd: (lambda t: (t, t))(
        f"xox{rnd.choice('bpa')}-{rnd.randint(10**9, 10**12)}-{rnd.randint(10**9, 10**12)}-"
        + _r(rnd, B62, 24)
    ),
    "stripe-secret-key": lambda rnd: (lambda t: (t, t))(
        rnd.choice(["sk_live_", "rk_live_", "sk_test_"]) + _r(rnd, B62, rnd.randint(24, 99))
    ),
    "openai-key": lambda rnd: (lambda t: (t, t))(
        rnd.choice(["sk-", "sk-proj-"]) + _r(rnd, URLSAFE, 48)
    ),
    "anthropic-key": lambda rnd: (lambda t: (t, t))("sk-ant-api03-" + _r(rnd, URLSAFE, 93) + "AA"),
    "google-api-key": _token("AIza", URLSAFE, 35),
    "huggingface-token": _token("hf_", string.ascii_letters, 34),
    "npm-token": _npm,
    "sendgrid-key": lambda rnd: (lambda t: (t, t))(
        "SG." + _r(rnd, URLSAFE, 22) + "." + _r(rnd, URLSAFE, 43)
    ),
    "jwt": _jwt,
    "private-key": _private_key,
    "url-password": _url,
    "auth-header": _header,
    "secret-assignment": _env,
    "cli-password": _cli,
}


def _lookalikes(rnd: random.Random) -> dict[str, str]:
    img = base64.b64encode(rnd.randbytes(rnd.randint(200, 2000))).decode()
    return {
        "commit-sha": _r(rnd, "0123456789abcdef", 40),
        "sha256": "sha256:" + _r(rnd, "0123456789abcdef", 64),
        "md5": _r(rnd, "0123456789abcdef", 32),
        "uuid": str(uuid.UUID(int=rnd.getrandbits(128))),
        "aws-example": "AKIA" + _r(rnd, UP, 9) + "EXAMPLE",
        "placeholder": rnd.choice(
            [
                "OPENAI_API_KEY=<your-api-key>",
                "API_KEY=your_api_key_here",
                "GITHUB_TOKEN=${GITHUB_TOKEN}",
                "password: ********",
                "Authorization: Bearer <token>",
                "Authorization: Bearer $TOKEN",
                "token: YOUR_TOKEN_HERE",
                "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                "sk-...",
                "postgres://user:password@localhost:5432/db",
                "DB_PASSWORD=changeme",
                "secret = os.environ['SECRET_KEY']",
            ]
        ),
        "public-key": "-----BEGIN PUBLIC KEY-----\n"
        + "\n".join(_r(rnd, B64, 64) for _ in range(4))
        + "\n-----END PUBLIC KEY-----",
        "certificate": "-----BEGIN CERTIFICATE-----\n"
        + "\n".join(_r(rnd, B64, 64) for _ in range(6))
        + "\n-----END CERTIFICATE-----",
        "ssh-public-key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r(rnd, B64, 43) + " me@host",
        "base64-image": f"![chart](data:image/png;base64,{img})",
        "publishable-key": "pk_live_" + _r(rnd, B62, 24),
        "prose": rnd.choice(
            [
                "The password is required and must be at least 12 characters.",
                "Rotate the token: expired tokens are refused with 401.",
                "max_tokens: 4096, temperature: 0.2",
                '{"token_type": "Bearer", "expires_in": 3600}',
                "Basic authentication sends the user name and password in a header.",
                "a task-management-system-for-distributed-teams",
                "run `docker login --password-stdin` and paste it",
                "next_page_token: " + _r(rnd, B62, 32),
                '{"role": "system", "content": "You are a helpful assistant."}',
                "client = OpenAI(api_key=config.api_key)",
                "api_key = settings.OPENAI_API_KEY",
                "token = get_token(scope='read')",
                "password_hash: $2b$12$" + _r(rnd, B64, 53),
                "credentials: include",
                "idempotency_key: " + str(uuid.UUID(int=rnd.getrandbits(128))),
            ]
        ),
        "url-no-password": f"https://{rnd.choice(['api', 'docs'])}.example.com/v1/items?page=2",
        "email": f"{_r(rnd, string.ascii_lowercase, 6)}@example.com",
        "version": f"v{rnd.randint(1, 9)}.{rnd.randint(0, 40)}.{rnd.randint(0, 99)}",
        "arn": f"arn:aws:iam::{rnd.randint(10**11, 10**12 - 1)}:role/deploy",
    }


CARRIERS: dict[str, Callable[[str], str]] = {
    "sentence": lambda s: f"Here is what the server returned: {s} (end of output)",
    "log-line": lambda s: f"2026-12-01T14:05:09Z INFO worker[3]: loaded {s}",
    "json-doc": lambda s: json.dumps({"config": {"value": s, "enabled": True}}, indent=2),
    "json-in-json": lambda s: json.dumps(json.dumps({"value": s})),
    "markdown": lambda s: f"## Setup\n\n```\n{s}\n```\n\nThen restart.",
    "yaml": lambda s: (
        "service:\n  settings: |\n    " + s.replace("\n", "\n    ") + "\n  replicas: 2"
    ),
}


class _Ctx:
    """The few fields of a CallContext the addon reads."""

    def __init__(self, args: dict[str, Any]) -> None:
        self.method = "tools/call"
        self.params = {"name": "write", "arguments": args}
        self.exposed = "fs__write"


def _through(addon: Redaction, text: str, where: str) -> str:
    """What the other side gets of `text` sent the `where` way."""
    import asyncio

    import msgspec

    from manifold.protocol import jsonrpc as rpc

    if where == "result":
        raw = orjson.dumps({"content": [{"type": "text", "text": text}]})
        out = addon.r.raw_result(raw)
        return str(orjson.loads(out)["content"][0]["text"]) if out else text
    if where == "structured":
        raw = orjson.dumps({"content": [], "structuredContent": {"data": {"value": text}}})
        out = addon.r.raw_result(raw)
        return str(orjson.loads(out)["structuredContent"]["data"]["value"]) if out else text
    if where == "argument":
        ctx = _Ctx({"path": "/tmp/x", "content": text})
        seen: list[str] = []

        async def upstream(c: Any) -> rpc.Incoming:
            seen.append(c.params["arguments"]["content"])
            return rpc.Incoming(result=msgspec.Raw(b'{"content":[]}'))

        asyncio.run(addon.call(ctx, upstream))  # type: ignore[arg-type]
        return seen[0]
    if where == "description":
        items = [{"name": "t", "description": text, "inputSchema": {"type": "object"}}]
        return str(addon.catalog(CatalogEvent("up", "tools", items))[0]["description"])
    raise ValueError(where)


WHERE = ("result", "structured", "argument", "description")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--per-family", type=int, default=12)
    ap.add_argument("--out")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    addon = Redaction(RedactionConfig())
    leaks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    examples: list[str] = []
    for family, gen in FAMILIES.items():
        for _ in range(args.per_family):
            plant, secret = gen(rnd)
            for cname, carrier in CARRIERS.items():
                for where in WHERE:
                    got = _through(addon, carrier(plant), where)
                    leaks[family][1] += 1
                    if secret in got or json.dumps(secret)[1:-1] in got:
                        leaks[family][0] += 1
                        if len(examples) < 10:
                            examples.append(f"{family} / {cname} / {where}: {plant[:80]!r}")
    altered: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fp_examples: list[str] = []
    for _ in range(args.per_family):
        for family, value in _lookalikes(rnd).items():
            for cname, carrier in CARRIERS.items():
                for where in WHERE:
                    text = carrier(value)
                    got = _through(addon, text, where)
                    altered[family][1] += 1
                    if got != text:
                        altered[family][0] += 1
                        if len(fp_examples) < 10:
                            fp_examples.append(f"{family} / {cname} / {where}: {got[:100]!r}")
    lines = [
        f"Seed {args.seed}, {args.per_family} values per family, each in {len(CARRIERS)} "
        f"carriers and {len(WHERE)} directions ({', '.join(WHERE)}); default config.",
        "",
        "| secret family | cases | leaked |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {f} | {n} | {k} |" for f, (k, n) in leaks.items()]
    tk = sum(k for k, _ in leaks.values())
    tn = sum(n for _, n in leaks.values())
    lines += [f"| **all** | **{tn}** | **{tk} ({100 * tk / tn:.2f}%)** |", ""]
    lines += ["| look-alike family | cases | altered |", "| --- | ---: | ---: |"]
    lines += [f"| {f} | {n} | {k} |" for f, (k, n) in altered.items()]
    ak = sum(k for k, _ in altered.values())
    an = sum(n for _, n in altered.values())
    lines += [f"| **all** | **{an}** | **{ak} ({100 * ak / an:.2f}%)** |"]
    if examples:
        lines += ["", "Leaked (first 10):", *[f"- {e}" for e in examples]]
    if fp_examples:
        lines += ["", "Altered (first 10):", *[f"- {e}" for e in fp_examples]]
    report = "\n".join(lines) + "\n"
    sys.stdout.write(report)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(report)


if __name__ == "__main__":
    main()
