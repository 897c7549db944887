"""An OAuth 2.1 authorization server and the MCP server it protects, in one process, for tests.

- `/mcp`: a Streamable HTTP MCP server (official SDK) that answers only with a live access
  token (else 401 with `WWW-Authenticate: Bearer resource_metadata=...`); its tool `whoami`
  returns the bearer token that reached it, and `echo` echoes.
- `/.well-known/oauth-protected-resource/mcp` (RFC 9728), `/.well-known/oauth-authorization-server`
  (RFC 8414), `/register` (RFC 7591), `/authorize` (auto-approves: redirects at once with a
  code), `/token` (authorization_code with PKCE S256, refresh_token with rotation; access tokens
  live `--access-ttl` seconds; the device code grant), `/revoke` (RFC 7009),
  `/device_authorization` and `/device?user_code=X` (RFC 8628: visiting it approves the code).
- RFC 8693 token exchange at `/token` for the confidential client `--exchange-client ID:SECRET`
  (HTTP Basic): the `subject_token` must be a JWT this server signed (`/jwks.json`, RS256) and
  still live; the token issued is good at `/mcp` for `resource`, and remembers the subject's
  `sub` and the `aud` it was issued for, which the tool `whoami_claims` reports.
  `POST /_test/user_token?sub=S&aud=A&ttl=N` signs a user's access token (a JWT for the
  gateway, audience A); `POST /_test/deny?sub=S` refuses S's exchanges;
  `POST /_test/exchange_delay?seconds=N` slows every exchange down.
- for the tests: `GET /_test/state` (tokens issued, refreshes, tokens seen on /mcp),
  `POST /_test/expire` (every access token stops working now), `POST /_test/revoke` (every
  refresh and access token is revoked, as when the user withdraws the grant),
  `POST /_test/ttl?seconds=N` (tokens issued from now on live N seconds).

- hostile answers: `POST /_test/redirect?at=P&to=U` makes every later request to path P
  answer `302 Location: U` (`to` empty: stop); `/_test/asm` serves the metadata too;
  `/_test/sink` (any method) records the
  `Authorization` header and the body of what reached it (`sink` in the state), as a server
  a redirect points at would.

`--port N` sets the port; `--no-pkce` leaves S256 out of the metadata; `--authorize-endpoint U`
puts U in the metadata as the authorization endpoint (a hostile server's); `--issuer U` puts U
in the metadata as its `issuer` (a mix-up attack's); `--openid-only` serves the metadata only at
`/.well-known/openid-configuration` (OpenID discovery).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import secrets
import time
import urllib.parse
from typing import Any

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from mcp.server.mcpserver import Context, MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--access-ttl", type=float, default=3600.0)
parser.add_argument("--no-pkce", action="store_true", help="metadata without S256")
parser.add_argument("--exchange-client", default="", help="ID:SECRET allowed to exchange tokens")
parser.add_argument(
    "--authorize-endpoint", default=None, help="the metadata's authorization_endpoint (hostile)"
)
parser.add_argument("--issuer", default=None, help="the metadata's issuer (a mix-up)")
parser.add_argument("--openid-only", action="store_true", help="metadata by OpenID discovery")
args = parser.parse_args()
ttl = {"access": args.access_ttl}  # `POST /_test/ttl?seconds=N` changes it for later tokens

BASE = f"http://127.0.0.1:{args.port}"
RESOURCE = f"{BASE}/mcp"

clients: dict[str, dict[str, Any]] = {}
codes: dict[str, dict[str, Any]] = {}
devices: dict[str, dict[str, Any]] = {}  # device code -> {client_id, user_code, approved}
access: dict[str, float] = {}  # token -> expiry (time.time())
refresh: dict[str, str] = {}  # refresh token -> client id
issued: dict[str, list[str]] = {"access": [], "refresh": []}
stats: dict[str, Any] = {
    "refreshes": 0,
    "refused_refreshes": 0,
    "seen": [],
    "unauthorized": 0,
    "exchanges": 0,  # token exchanges granted
    "exchange_requests": 0,  # token exchange requests, granted or not
    "subject_tokens": [],  # the subject tokens presented
    "sink": [],  # what reached /_test/sink: [method, Authorization header, body]
}
redirects: dict[str, str] = {}  # path -> where a request to it is redirected (302)
claims: dict[str, dict[str, str]] = {}  # access token -> {sub, aud} of exchanged tokens
denied: set[str] = set()  # subjects whose exchanges are refused
delay = {"exchange": 0.0}
SIGNING_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
JWK = {**RSAAlgorithm.to_jwk(SIGNING_KEY.public_key(), as_dict=True), "kid": "as-1", "alg": "RS256"}
EXCHANGE_ID, _, EXCHANGE_SECRET = args.exchange_client.partition(":")
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"

mcp = MCPServer(name="protected", version="1.0.0")


@mcp.tool()
def whoami(ctx: Context) -> str:
    """The bearer token this call carried."""
    headers = {k.lower(): v for k, v in (ctx.headers or {}).items()}
    return headers.get("authorization", "")


@mcp.tool()
def whoami_claims(ctx: Context) -> str:
    """The bearer token this call carried, and the `sub` and `aud` it was issued for."""
    headers = {k.lower(): v for k, v in (ctx.headers or {}).items()}
    value = headers.get("authorization", "")
    tok = value[7:] if value.startswith("Bearer ") else ""
    return json.dumps({"authorization": value, **claims.get(tok, {})})


@mcp.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"protected:{text}"


def _error(error: str, status: int = 400, desc: str = "") -> JSONResponse:
    body = {"error": error}
    if desc:
        body["error_description"] = desc
    return JSONResponse(body, status_code=status)


async def prm(_r: Request) -> JSONResponse:
    return JSONResponse(
        {"resource": RESOURCE, "authorization_servers": [BASE], "scopes_supported": ["tools"]}
    )


async def asm(_r: Request) -> JSONResponse:
    return JSONResponse(
        {
            "issuer": args.issuer or BASE,
            "authorization_endpoint": args.authorize_endpoint or f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "registration_endpoint": f"{BASE}/register",
            "revocation_endpoint": f"{BASE}/revoke",
            "jwks_uri": f"{BASE}/jwks.json",
            "device_authorization_endpoint": f"{BASE}/device_authorization",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", TOKEN_EXCHANGE],
            "code_challenge_methods_supported": [] if args.no_pkce else ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }
    )


async def register(r: Request) -> JSONResponse:
    doc = await r.json()
    uris = doc.get("redirect_uris")
    device = DEVICE_GRANT in doc.get("grant_types", [])
    if not device and (not isinstance(uris, list) or not uris):
        return _error("invalid_redirect_uri")
    cid = "client-" + secrets.token_hex(8)
    clients[cid] = {"redirect_uris": uris or []}
    return JSONResponse({"client_id": cid, **doc}, status_code=201)


DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


async def device_authorization(r: Request) -> JSONResponse:
    form = dict(await r.form())
    if form.get("client_id") not in clients:
        return _error("invalid_client", 401)
    if form.get("resource") != RESOURCE:
        return _error("invalid_target")
    dc, uc = secrets.token_urlsafe(16), secrets.token_hex(4).upper()
    devices[dc] = {"client_id": form["client_id"], "user_code": uc, "approved": False}
    return JSONResponse(
        {
            "device_code": dc,
            "user_code": uc,
            "verification_uri": f"{BASE}/device",
            "verification_uri_complete": f"{BASE}/device?user_code={uc}",
            "expires_in": 60,
            "interval": 1,
        }
    )


async def device_page(r: Request) -> Response:
    """Where the user enters the code: approves it at once."""
    for d in devices.values():
        if d["user_code"] == r.query_params.get("user_code"):
            d["approved"] = True
            return Response("approved", media_type="text/plain")
    return Response("unknown code", status_code=404)


async def authorize(r: Request) -> Response:
    q = r.query_params
    client = clients.get(q.get("client_id", ""))
    if client is None or q.get("redirect_uri") not in client["redirect_uris"]:
        return _error("invalid_client")
    if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
        return _error("invalid_request", desc="PKCE S256 required")
    if q.get("resource") != RESOURCE:
        return _error("invalid_target", desc=f"resource {q.get('resource')!r}")
    code = secrets.token_urlsafe(16)
    codes[code] = {
        "client_id": q["client_id"],
        "redirect_uri": q["redirect_uri"],
        "challenge": q["code_challenge"],
    }
    sep = "&" if "?" in q["redirect_uri"] else "?"
    target = q["redirect_uri"] + sep + urllib.parse.urlencode({"code": code, "state": q["state"]})
    return RedirectResponse(target, status_code=302)


def _issue(cid: str) -> JSONResponse:
    tok, ref = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
    access[tok] = time.time() + ttl["access"]
    refresh[ref] = cid
    issued["access"].append(tok)
    issued["refresh"].append(ref)
    return JSONResponse(
        {
            "access_token": tok,
            "token_type": "Bearer",
            "expires_in": ttl["access"],
            "refresh_token": ref,
            "scope": "tools",
        }
    )


async def jwks(_r: Request) -> JSONResponse:
    return JSONResponse({"keys": [JWK]})


async def user_token(r: Request) -> JSONResponse:
    """A user's access token for the gateway (a JWT signed with this server's key)."""
    q = r.query_params
    now = int(time.time())
    payload = {
        "iss": BASE,
        "aud": q["aud"],
        "sub": q["sub"],
        "scope": "mcp",
        "iat": now,
        "exp": now + int(float(q.get("ttl", "300"))),
    }
    return JSONResponse(
        {
            "access_token": jwt.encode(
                payload, SIGNING_KEY, algorithm="RS256", headers={"kid": "as-1"}
            )
        }
    )


async def token_exchange(r: Request, form: dict[str, Any]) -> JSONResponse:
    stats["exchange_requests"] += 1
    auth = r.headers.get("authorization", "")
    try:
        pair = base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else ""
    except ValueError:
        pair = ""
    cid, _, secret = (urllib.parse.unquote(p) for p in pair.partition(":"))
    if not EXCHANGE_ID or cid != EXCHANGE_ID or secret != EXCHANGE_SECRET:
        return _error("invalid_client", 401)
    if form.get("subject_token_type") != ACCESS_TOKEN_TYPE:
        return _error("invalid_request", desc="subject_token_type must be an access token")
    resource = form.get("resource")
    if resource != RESOURCE:
        return _error("invalid_target", desc=f"resource {resource!r}")
    subject = str(form.get("subject_token", ""))
    stats["subject_tokens"].append(subject)
    try:
        decoded = jwt.decode(
            subject,
            SIGNING_KEY.public_key(),
            algorithms=["RS256"],
            issuer=BASE,
            options={"verify_aud": False, "require": ["exp", "sub"]},
        )
    except jwt.PyJWTError as e:
        return _error("invalid_grant", desc=f"subject token refused: {e}")
    if decoded["sub"] in denied:
        return _error("invalid_grant", desc=f"{decoded['sub']} may not act at {resource}")
    if delay["exchange"]:
        await asyncio.sleep(delay["exchange"])
    stats["exchanges"] += 1
    tok = "xt-" + secrets.token_urlsafe(24)
    access[tok] = time.time() + ttl["access"]
    claims[tok] = {"sub": decoded["sub"], "aud": str(form.get("audience") or resource)}
    issued["access"].append(tok)
    return JSONResponse(
        {
            "access_token": tok,
            "issued_token_type": ACCESS_TOKEN_TYPE,
            "token_type": "Bearer",
            "expires_in": ttl["access"],
        }
    )


async def token(r: Request) -> JSONResponse:
    form = dict(await r.form())
    if form.get("grant_type") == TOKEN_EXCHANGE:
        return await token_exchange(r, form)
    cid = str(form.get("client_id", ""))
    if cid not in clients:
        return _error("invalid_client", 401)
    if form.get("resource") not in (None, RESOURCE):
        return _error("invalid_target")
    if form.get("grant_type") == "authorization_code":
        entry = codes.pop(str(form.get("code", "")), None)
        if entry is None or entry["client_id"] != cid:
            return _error("invalid_grant", desc="unknown code")
        if form.get("redirect_uri") != entry["redirect_uri"]:
            return _error("invalid_grant", desc="redirect_uri mismatch")
        verifier = str(form.get("code_verifier", ""))
        digest = hashlib.sha256(verifier.encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != entry["challenge"]:
            return _error("invalid_grant", desc="PKCE verification failed")
        return _issue(cid)
    if form.get("grant_type") == DEVICE_GRANT:
        d = devices.get(str(form.get("device_code", "")))
        if d is None or d["client_id"] != cid:
            return _error("invalid_grant", desc="unknown device code")
        if not d["approved"]:
            stats["device_polls"] = stats.get("device_polls", 0) + 1
            return _error("authorization_pending")
        devices.pop(str(form["device_code"]))
        return _issue(cid)
    if form.get("grant_type") == "refresh_token":
        owner = refresh.pop(str(form.get("refresh_token", "")), None)  # rotated: used once
        if owner != cid:
            stats["refused_refreshes"] += 1
            return _error("invalid_grant", desc="refresh token revoked or unknown")
        stats["refreshes"] += 1
        return _issue(cid)
    return _error("unsupported_grant_type")


async def revoke(r: Request) -> Response:
    form = dict(await r.form())
    t = str(form.get("token", ""))
    refresh.pop(t, None)
    access.pop(t, None)
    return Response(status_code=200)


async def test_state(_r: Request) -> JSONResponse:
    return JSONResponse({"issued": issued, **stats})


async def test_expire(_r: Request) -> JSONResponse:
    for t in access:
        access[t] = 0.0
    return JSONResponse({"expired": len(access)})


async def test_ttl(r: Request) -> JSONResponse:
    ttl["access"] = float(r.query_params["seconds"])
    return JSONResponse(ttl)


async def test_deny(r: Request) -> JSONResponse:
    denied.add(r.query_params["sub"])
    return JSONResponse({"denied": sorted(denied)})


async def test_exchange_delay(r: Request) -> JSONResponse:
    delay["exchange"] = float(r.query_params["seconds"])
    return JSONResponse(delay)


async def test_redirect(r: Request) -> JSONResponse:
    path, to = r.query_params["at"], r.query_params.get("to", "")
    if to:
        redirects[path] = to
    else:
        redirects.pop(path, None)
    return JSONResponse(redirects)


async def test_sink(r: Request) -> JSONResponse:
    body = (await r.body()).decode(errors="replace")
    stats["sink"].append([r.method, r.headers.get("authorization", ""), body])
    return JSONResponse({"error": "invalid_request"}, status_code=400)


async def test_revoke(_r: Request) -> JSONResponse:
    n = len(refresh)
    refresh.clear()
    access.clear()
    return JSONResponse({"revoked": n})


auth_app = Starlette(
    routes=[
        Route("/.well-known/oauth-protected-resource/mcp", prm),
        Route(
            "/.well-known/openid-configuration"
            if args.openid_only
            else "/.well-known/oauth-authorization-server",
            asm,
        ),
        Route("/_test/asm", asm),  # the metadata again, for a redirect to point at
        Route("/register", register, methods=["POST"]),
        Route("/authorize", authorize),
        Route("/device_authorization", device_authorization, methods=["POST"]),
        Route("/device", device_page),
        Route("/token", token, methods=["POST"]),
        Route("/jwks.json", jwks),
        Route("/_test/user_token", user_token, methods=["POST"]),
        Route("/_test/deny", test_deny, methods=["POST"]),
        Route("/_test/exchange_delay", test_exchange_delay, methods=["POST"]),
        Route("/revoke", revoke, methods=["POST"]),
        Route("/_test/state", test_state),
        Route("/_test/expire", test_expire, methods=["POST"]),
        Route("/_test/revoke", test_revoke, methods=["POST"]),
        Route("/_test/ttl", test_ttl, methods=["POST"]),
        Route("/_test/redirect", test_redirect, methods=["POST"]),
        Route("/_test/sink", test_sink, methods=["GET", "POST", "PUT"]),
    ]
)
mcp_app = mcp.streamable_http_app()


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await mcp_app(scope, receive, send)
        return
    if scope["type"] == "http" and scope["path"] in redirects:
        where = redirects[scope["path"]]
        await send(
            {
                "type": "http.response.start",
                "status": 302,
                "headers": [(b"location", where.encode()), (b"content-length", b"0")],
            }
        )
        await send({"type": "http.response.body", "body": b""})
        return
    if scope["type"] == "http" and scope["path"].startswith("/mcp"):
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        value = headers.get("authorization", "")
        tok = value[7:] if value.startswith("Bearer ") else ""
        if access.get(tok, 0.0) <= time.time():
            stats["unauthorized"] += 1
            challenge = (
                f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
            )
            if tok:
                challenge += ', error="invalid_token"'
            body = json.dumps({"error": "invalid_token"}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"www-authenticate", challenge.encode()),
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        stats["seen"].append(tok)
        await mcp_app(scope, receive, send)
        return
    await auth_app(scope, receive, send)


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
