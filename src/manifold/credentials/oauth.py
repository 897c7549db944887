"""The OAuth 2.1 client side of the MCP authorization spec, towards one upstream.

Discovery: the upstream's protected-resource metadata (RFC 9728; the `resource_metadata` of its
401's `WWW-Authenticate`, else the well-known URLs, path-inserted first), then its authorization
server's metadata (RFC 8414, then OpenID discovery, in the spec's order). The server must offer
PKCE with S256, or the login is refused. A client is registered dynamically (RFC 7591) unless
one is configured. Every request to the authorization server names the upstream as its
`resource` (RFC 8707), so a token is only good for that upstream.

These calls are rare (a login, a refresh every token lifetime) and run in a thread (`urllib`),
each bounded by `oauth.timeout` and in size; nothing here is on a call's hot path.

Redirects: a POST (token, registration, device authorization, token exchange) carries
credentials (the client secret in HTTP Basic, a refresh token, a code verifier, the user's
token), so a 3xx answer to one is never followed: it is an error naming the endpoint. A
discovery GET, which carries none, follows at most `MAX_REDIRECTS` redirects, each to the same
origin. The metadata's `issuer` must be the issuer URL it was fetched for (RFC 8414 section
3.3, OpenID Connect Discovery section 4.3), or it is refused (a mix-up attack).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Final

from manifold.config import UpstreamOAuthConfig
from manifold.credentials.tokenstore import TokenSet

MAX_BODY = 1024 * 1024  # a metadata document or token response larger than this is refused
MAX_REDIRECTS = 3  # same-origin redirects a discovery GET follows


class OAuthError(Exception):
    """The authorization server refused, or could not be used; `error` is the OAuth code."""

    def __init__(self, message: str, error: str | None = None, status: int = 0) -> None:
        super().__init__(message)
        self.error = error
        self.status = status


@dataclass(slots=True)
class ServerMetadata:
    """What discovery found: the resource (the upstream) and its authorization server."""

    resource: str
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str | None = None
    revocation_endpoint: str | None = None
    device_authorization_endpoint: str | None = None  # RFC 8628, for `login --device`
    scopes: list[str] = field(default_factory=list)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """urllib follows redirects with the request's headers (an `Authorization` among them):
    never here; `_request` judges each 3xx itself."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER: Final = urllib.request.build_opener(_NoRedirect())


def _origin(url: str) -> tuple[str, str, int | None]:
    u = urllib.parse.urlsplit(url)
    try:
        port = u.port
    except ValueError:
        port = -1
    default = {"https": 443, "http": 80}.get(u.scheme)
    return u.scheme, (u.hostname or ""), port if port is not None else default


def _request(
    url: str,
    timeout: float,
    data: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    what: str = "",
) -> tuple[int, dict[str, str], bytes]:
    """One bounded HTTP request; any status but a redirect is returned (the caller judges
    it). A POST to the authorization server (`what` names the endpoint) is never redirected:
    a 3xx is an OAuthError. A GET, which carries no credentials, follows up to MAX_REDIRECTS
    same-origin redirects."""
    if not url.startswith(("https://", "http://")):
        raise OAuthError(f"not an http(s) URL: {url!r}")
    hdrs = {"Accept": "application/json", **(headers or {})}
    if data is not None:
        body = urllib.parse.urlencode(data).encode()
        hdrs["Content-Type"] = "application/x-www-form-urlencoded"
    method = "POST" if body else "GET"
    first = url
    for _ in range(MAX_REDIRECTS + 1):
        status, got, answer = _once(url, body, hdrs, method, timeout)
        if status not in (301, 302, 303, 307, 308):
            return status, got, answer
        where = urllib.parse.urljoin(url, got.get("location", ""))
        if method == "POST":
            if not what:  # the upstream's unauthenticated probe: nothing to carry, or follow
                return status, got, answer
            raise OAuthError(
                f"the {what or 'endpoint'} {url} answered with a redirect (HTTP {status}) to "
                f"{where[:200]!r}: not followed (it would carry the client's credentials)",
                status=status,
            )
        if _origin(where) != _origin(first) or not _web_url(where):
            raise OAuthError(
                f"{url} redirects to another origin ({where[:200]!r}): not followed",
                status=status,
            )
        url = where
    raise OAuthError(f"{first} redirects more than {MAX_REDIRECTS} times: not followed")


def _once(
    url: str, body: bytes | None, hdrs: dict[str, str], method: str, timeout: float
) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, data=body, headers=hdrs, method=method)
    try:
        with _OPENER.open(req, timeout=timeout) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, _read(r, url)
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, _read(e, url)
    except (urllib.error.URLError, OSError, TimeoutError) as e:
        why = getattr(e, "reason", None) or e
        raise OAuthError(f"cannot reach {url}: {why}") from None


def _read(r: Any, url: str) -> bytes:
    body: bytes = r.read(MAX_BODY + 1)
    if len(body) > MAX_BODY:
        raise OAuthError(f"the answer of {url} is larger than {MAX_BODY} bytes")
    return body


def _json(body: bytes, url: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise OAuthError(f"the answer of {url} is not JSON") from None
    if not isinstance(data, dict):
        raise OAuthError(f"the answer of {url} is not a JSON object")
    return data


def _well_known(base: str, suffix: str) -> list[str]:
    """The RFC 8414 / 9728 well-known URLs of `base`: path-inserted first, then the root."""
    u = urllib.parse.urlsplit(base)
    root = f"{u.scheme}://{u.netloc}"
    path = u.path.rstrip("/")
    out = [f"{root}/.well-known/{suffix}{path}"] if path else []
    out.append(f"{root}/.well-known/{suffix}")
    return out


_PARAM_RE = re.compile(r'(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]+))')


def challenge_params(www_authenticate: str) -> dict[str, str]:
    """The parameters of a Bearer challenge (`resource_metadata`, `scope`, `error`)."""
    return {
        m.group(1): m.group(2) or m.group(3) or "" for m in _PARAM_RE.finditer(www_authenticate)
    }


def discover(server_url: str, cfg: UpstreamOAuthConfig) -> ServerMetadata:
    """Find the upstream's authorization server and its endpoints."""
    t = cfg.timeout
    resource, issuer, scopes = server_url, cfg.authorization_server, list(cfg.scopes)
    prm: dict[str, Any] | None = None
    if issuer is None:
        candidates: list[str] = []
        # An unauthenticated request: its 401 says where the metadata is (and which scope).
        probe = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "ping"}).encode()
        status, headers, _ = _request(
            server_url,
            t,
            body=probe,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        challenge = challenge_params(headers.get("www-authenticate", ""))
        if status == 401 and challenge.get("resource_metadata"):
            candidates.append(challenge["resource_metadata"])
        if not scopes and challenge.get("scope"):
            scopes = challenge["scope"].split()
        candidates += _well_known(server_url, "oauth-protected-resource")
        for url in candidates:
            status, _, body = _request(url, t)
            if status == 200:
                prm = _json(body, url)
                break
        if prm is None:
            raise OAuthError(
                f"{server_url} publishes no protected-resource metadata (tried "
                f"{', '.join(candidates)}): set oauth.authorization_server"
            )
        servers = prm.get("authorization_servers")
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
            raise OAuthError("the protected-resource metadata names no authorization server")
        issuer = servers[0]
        resource = str(prm.get("resource") or server_url)
        if not scopes and isinstance(prm.get("scopes_supported"), list):
            scopes = [str(s) for s in prm["scopes_supported"]]
    meta = _authorization_server(issuer, t)
    methods = meta.get("code_challenge_methods_supported")
    if not isinstance(methods, list) or "S256" not in methods:
        raise OAuthError(
            f"the authorization server {issuer} does not offer PKCE with S256: refused"
        )
    for key in _ENDPOINTS:  # printed, opened in a browser, posted to: web addresses only
        if (key in meta or key in _REQUIRED) and not _web_url(meta.get(key)):
            raise OAuthError(
                f"the metadata of {issuer}: {key} {str(meta.get(key))[:200]!r} is not an "
                "http(s) URL: refused"
            )
    try:
        return ServerMetadata(
            resource=resource,
            issuer=issuer,
            authorization_endpoint=str(meta["authorization_endpoint"]),
            token_endpoint=str(meta["token_endpoint"]),
            registration_endpoint=meta.get("registration_endpoint"),
            revocation_endpoint=meta.get("revocation_endpoint"),
            device_authorization_endpoint=meta.get("device_authorization_endpoint"),
            scopes=scopes,
        )
    except KeyError as e:
        raise OAuthError(f"the metadata of {issuer} has no {e.args[0]}") from None


_REQUIRED: Final = ("authorization_endpoint", "token_endpoint")
_ENDPOINTS: Final = (
    *_REQUIRED,
    "registration_endpoint",
    "revocation_endpoint",
    "device_authorization_endpoint",
)


def _web_url(value: Any) -> bool:
    """An absolute http(s) URL with a host and nothing a shell, a terminal or a URL handler
    could read differently (no spaces or control characters). A hostile authorization server
    must not get a local file, a script or an OS URL handler opened in the user's browser."""
    if not isinstance(value, str) or any(c <= " " or c == "\x7f" for c in value):
        return False
    try:
        u = urllib.parse.urlsplit(value)
    except ValueError:
        return False
    return u.scheme in ("https", "http") and bool(u.hostname)


def _authorization_server(issuer: str, timeout: float) -> dict[str, Any]:
    u = urllib.parse.urlsplit(issuer)
    root, path = f"{u.scheme}://{u.netloc}", u.path.rstrip("/")
    urls = _well_known(issuer, "oauth-authorization-server")[:1]
    if path:
        urls += [
            f"{root}/.well-known/openid-configuration{path}",
            f"{root}{path}/.well-known/openid-configuration",
        ]
    else:
        urls += [f"{root}/.well-known/openid-configuration"]
    for url in urls:
        status, _, body = _request(url, timeout)
        if status == 200:
            meta = _json(body, url)
            # RFC 8414 section 3.3 (and OpenID discovery alike): the metadata is the issuer's
            # only when it says so, to the character; else another server's endpoints could
            # stand in for this one's (a mix-up attack).
            if meta.get("issuer") != issuer:
                raise OAuthError(
                    f"the authorization server metadata at {url} names the issuer "
                    f"{str(meta.get('issuer'))[:200]!r}, not {issuer!r}: refused (RFC 8414 "
                    "requires them identical; a mix-up attack?)"
                )
            return meta
    raise OAuthError(f"no authorization server metadata for {issuer} (tried {', '.join(urls)})")


def token_endpoint_of(issuer: str, timeout: float) -> str:
    """The token endpoint in the metadata of the authorization server `issuer`."""
    meta = _authorization_server(issuer, timeout)
    endpoint = meta.get("token_endpoint")
    if not isinstance(endpoint, str) or not endpoint.startswith(("https://", "http://")):
        raise OAuthError(f"the metadata of {issuer} names no token endpoint")
    return endpoint


def token_request(
    endpoint: str, form: dict[str, str], client_id: str, client_secret: str | None, timeout: float
) -> dict[str, Any]:
    """One call to a token endpoint (any grant): its JSON answer, or OAuthError (with the
    server's `error` code when it refused, without when it could not be used)."""
    return _token_call(endpoint, form, client_id, client_secret, timeout)


def pkce_pair() -> tuple[str, str]:
    """A PKCE code verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def register(
    meta: ServerMetadata, redirect_uri: str | None, timeout: float, name: str = "manifold"
) -> tuple[str, str | None]:
    """Dynamic client registration: a public client, with PKCE and this redirect URI, or for
    the device flow (`redirect_uri` None)."""
    if not meta.registration_endpoint:
        raise OAuthError(
            f"the authorization server {meta.issuer} has no registration endpoint: "
            "configure oauth.client_id"
        )
    doc: dict[str, Any] = {
        "client_name": name,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    if redirect_uri is None:
        doc["grant_types"] = [DEVICE_GRANT, "refresh_token"]
        doc["response_types"] = []
    else:
        doc["redirect_uris"] = [redirect_uri]
    url = meta.registration_endpoint
    status, _, body = _request(
        url,
        timeout,
        body=json.dumps(doc).encode(),
        headers={"Content-Type": "application/json"},
        what="registration endpoint",
    )
    if status not in (200, 201):
        raise OAuthError(f"client registration at {url} failed (HTTP {status})", status=status)
    data = _json(body, url)
    if not isinstance(data.get("client_id"), str):
        raise OAuthError(f"client registration at {url} gave no client_id")
    secret = data.get("client_secret")
    return data["client_id"], secret if isinstance(secret, str) else None


def authorize_url(
    meta: ServerMetadata, client_id: str, redirect_uri: str, state: str, challenge: str
) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": meta.resource,
    }
    if meta.scopes:
        params["scope"] = " ".join(meta.scopes)
    sep = "&" if "?" in meta.authorization_endpoint else "?"
    return meta.authorization_endpoint + sep + urllib.parse.urlencode(params)


def _token_call(
    endpoint: str,
    form: dict[str, str],
    client_id: str,
    client_secret: str | None,
    timeout: float,
) -> dict[str, Any]:
    headers = {}
    if client_secret:
        pair = f"{urllib.parse.quote(client_id)}:{urllib.parse.quote(client_secret)}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    else:
        form = {**form, "client_id": client_id}
    status, _, body = _request(endpoint, timeout, data=form, headers=headers, what="token endpoint")
    try:
        data = _json(body, endpoint)
    except OAuthError:
        if status == 200:
            raise
        raise OAuthError(f"the token endpoint answered HTTP {status}", status=status) from None
    if status != 200 or "access_token" not in data:
        err = str(data.get("error") or f"HTTP {status}")
        desc = data.get("error_description")
        raise OAuthError(f"{err}: {desc}" if desc else err, err, status)
    return data


def _tokens(
    data: dict[str, Any],
    endpoint: str,
    client_id: str,
    client_secret: str | None,
    resource: str | None,
    old_refresh: str | None = None,
) -> TokenSet:
    expires = data.get("expires_in")
    now = time.time()
    return TokenSet(
        access_token=str(data["access_token"]),
        token_endpoint=endpoint,
        client_id=client_id,
        client_secret=client_secret,
        refresh_token=str(data["refresh_token"]) if data.get("refresh_token") else old_refresh,
        expires_at=now + float(expires) if isinstance(expires, int | float) else None,
        resource=resource,
        scope=str(data["scope"]) if data.get("scope") else None,
        issued_at=now,
    )


def exchange_code(
    meta: ServerMetadata,
    code: str,
    verifier: str,
    redirect_uri: str,
    client_id: str,
    client_secret: str | None,
    timeout: float,
) -> TokenSet:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
        "resource": meta.resource,
    }
    data = _token_call(meta.token_endpoint, form, client_id, client_secret, timeout)
    return _tokens(data, meta.token_endpoint, client_id, client_secret, meta.resource)


def refresh(tokens: TokenSet, timeout: float) -> TokenSet:
    """New tokens for the refresh token (which the server may rotate)."""
    if not tokens.refresh_token:
        raise OAuthError("the access token expired and there is no refresh token", "no_refresh")
    form = {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token}
    if tokens.resource:
        form["resource"] = tokens.resource
    data = _token_call(tokens.token_endpoint, form, tokens.client_id, tokens.client_secret, timeout)
    return _tokens(
        data,
        tokens.token_endpoint,
        tokens.client_id,
        tokens.client_secret,
        tokens.resource,
        tokens.refresh_token,
    )


@dataclass(slots=True)
class DeviceCode:
    """What the user is shown (RFC 8628): where to go and which code to enter."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str | None
    expires_in: float
    interval: float


def device_authorization(
    meta: ServerMetadata, client_id: str, client_secret: str | None, timeout: float
) -> DeviceCode:
    url = meta.device_authorization_endpoint
    if not url:
        raise OAuthError(
            f"the authorization server {meta.issuer} offers no device flow: log in without --device"
        )
    form = {"client_id": client_id, "resource": meta.resource}
    if meta.scopes:
        form["scope"] = " ".join(meta.scopes)
    headers = {}
    if client_secret:
        pair = f"{urllib.parse.quote(client_id)}:{urllib.parse.quote(client_secret)}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    status, _, body = _request(
        url, timeout, data=form, headers=headers, what="device authorization endpoint"
    )
    data = _json(body, url)
    if status != 200:
        raise OAuthError(str(data.get("error") or f"HTTP {status}"), data.get("error"), status)
    try:
        return DeviceCode(
            device_code=str(data["device_code"]),
            user_code=str(data["user_code"]),
            verification_uri=_printable_url(data["verification_uri"], url),
            verification_uri_complete=(
                None
                if data.get("verification_uri_complete") is None
                else _printable_url(data["verification_uri_complete"], url)
            ),
            expires_in=float(data.get("expires_in", 600)),
            interval=max(1.0, float(data.get("interval", 5))),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise OAuthError(f"the device authorization answer of {url} is incomplete ({e})") from None


def _printable_url(value: Any, source: str) -> str:
    """A verification URL the user is asked to open: http(s) only (see `_web_url`)."""
    if not _web_url(value):
        raise OAuthError(
            f"the device authorization answer of {source}: {str(value)[:200]!r} is "
            "not an http(s) URL: refused"
        )
    return str(value)


def poll_device(
    meta: ServerMetadata,
    code: DeviceCode,
    client_id: str,
    client_secret: str | None,
    timeout: float,
    wait: float,
) -> TokenSet:
    """Ask the token endpoint every `interval` seconds until the user approved (or refused,
    or the code expired, or `wait` seconds passed)."""
    deadline = time.monotonic() + min(wait, code.expires_in)
    interval = code.interval
    form = {"grant_type": DEVICE_GRANT, "device_code": code.device_code, "resource": meta.resource}
    while True:
        try:
            data = _token_call(meta.token_endpoint, form, client_id, client_secret, timeout)
            return _tokens(data, meta.token_endpoint, client_id, client_secret, meta.resource)
        except OAuthError as e:
            if e.error == "slow_down":
                interval += 5.0
            elif e.error != "authorization_pending":
                raise
        if time.monotonic() + interval > deadline:
            raise OAuthError(f"the code was not approved within {min(wait, code.expires_in):g} s")
        time.sleep(interval)
