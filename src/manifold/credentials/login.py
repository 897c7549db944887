"""`manifold auth login <upstream>`: the authorization code flow with PKCE, on this machine, or
the device flow (`--device`, RFC 8628) for a machine whose loopback no browser can reach.

A loopback listener on 127.0.0.1 with a random port receives the redirect (RFC 8252); the
`state` it brings back must be the one sent, or the answer is refused. The authorization URL is
opened in a browser when there is one, and printed in any case (a machine without a browser:
open it anywhere that reaches the authorization server and whose browser can reach this
machine's loopback, e.g. through an SSH tunnel, or use `--device`). With `--device` the user
enters a short code on any device with a browser while this machine polls the token endpoint at
the server's interval. The wait is bounded. The tokens go to the encrypted store
(`tokenstore.py`).
"""

from __future__ import annotations

import http.server
import secrets
import threading
import urllib.parse
import webbrowser
from collections.abc import Callable
from typing import Any

from manifold.config import UpstreamConfig, UpstreamOAuthConfig
from manifold.credentials import oauth
from manifold.credentials.tokenstore import TokenSet, TokenStore

_DONE_PAGE = b"<!doctype html><title>manifold</title><p>Logged in. You may close this window.</p>"


class LoginError(Exception):
    """The login did not complete; the message says why."""


class _Callback(http.server.BaseHTTPRequestHandler):
    server: _Listener

    def do_GET(self) -> None:
        u = urllib.parse.urlsplit(self.path)
        if u.path != "/callback":
            self.send_error(404)
            return
        q = dict(urllib.parse.parse_qsl(u.query))
        if q.get("state") != self.server.state:
            self.send_error(400, "state mismatch")
            return  # not our request: keep waiting for the right one
        self.server.answer = q
        if "code" in q:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(_DONE_PAGE)))
            self.end_headers()
            self.wfile.write(_DONE_PAGE)
        else:
            self.send_error(400, q.get("error", "no code"))
        self.server.got.set()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Listener(http.server.HTTPServer):
    def __init__(self, state: str) -> None:
        super().__init__(("127.0.0.1", 0), _Callback)
        self.state = state
        self.answer: dict[str, str] = {}
        self.got = threading.Event()


def login(
    name: str,
    cfg: UpstreamConfig,
    store: TokenStore,
    *,
    tenant: str = "",
    browser: bool = True,
    device: bool = False,
    wait: float = 300.0,
    say: Callable[[str], None] = print,
) -> TokenSet:
    """Log in to upstream `name`, store and return its tokens."""
    ocfg = cfg.oauth
    if ocfg is None or cfg.url is None:
        raise LoginError(f"upstream {name!r} has no 'oauth' configured")
    try:
        meta = oauth.discover(cfg.url, ocfg)
        if device:
            tokens = _device_login(meta, ocfg, wait, say)
            store.put(name, tokens, tenant)
            return tokens
        state = secrets.token_urlsafe(24)
        listener = _Listener(state)
    except oauth.OAuthError as e:
        raise LoginError(f"upstream {name!r}: {e}") from None
    thread = threading.Thread(target=listener.serve_forever, args=(0.1,), daemon=True)
    thread.start()
    try:
        redirect_uri = f"http://127.0.0.1:{listener.server_address[1]}/callback"
        client_id, secret = ocfg.client_id, ocfg.client_secret
        if client_id is None:
            client_id, secret = oauth.register(meta, redirect_uri, ocfg.timeout)
        verifier, challenge = oauth.pkce_pair()
        url = oauth.authorize_url(meta, client_id, redirect_uri, state, challenge)
        say(f"Log in to {name} at:\n{url}")
        if browser and webbrowser.open(url):
            say("(opened in your browser)")
        if not listener.got.wait(wait):
            raise LoginError(f"upstream {name!r}: no answer from the browser within {wait:g} s")
        answer = listener.answer
        if "code" not in answer:
            why = answer.get("error_description") or answer.get("error") or "no code"
            raise LoginError(f"upstream {name!r}: the authorization server refused: {why}")
        tokens = oauth.exchange_code(
            meta, answer["code"], verifier, redirect_uri, client_id, secret, ocfg.timeout
        )
    except oauth.OAuthError as e:
        raise LoginError(f"upstream {name!r}: {e}") from None
    finally:
        listener.shutdown()
        listener.server_close()
        thread.join(5)
    store.put(name, tokens, tenant)
    return tokens


def _device_login(
    meta: oauth.ServerMetadata, ocfg: UpstreamOAuthConfig, wait: float, say: Callable[[str], None]
) -> TokenSet:
    """The device flow (RFC 8628): a code to enter on any device with a browser; this machine
    polls the token endpoint until it is approved."""
    client_id, secret = ocfg.client_id, ocfg.client_secret
    if client_id is None:
        client_id, secret = oauth.register(meta, None, ocfg.timeout)
    code = oauth.device_authorization(meta, client_id, secret, ocfg.timeout)
    say(f"Open {code.verification_uri} and enter the code {code.user_code}")
    if code.verification_uri_complete:
        say(f"or open:\n{code.verification_uri_complete}")
    return oauth.poll_device(meta, code, client_id, secret, ocfg.timeout, wait)
