"""Upstream OAuth tokens, encrypted at rest.

A SQLite file holds one record per (upstream, tenant); each record is a JSON document (access
and refresh token, expiry, the client it was issued to, the token endpoint) encrypted with
Fernet (AES-128-CBC plus HMAC-SHA256, `cryptography`), so neither token is ever on disk in
clear. The key comes from the environment variable `MANIFOLD_TOKEN_KEY` (a Fernet key, or any
passphrase of at least 16 characters, stretched with SHA-256), else from a key file created with
mode 0600 on first use; a key file others may read is refused, and so is a store the key
cannot decrypt (a changed key): the message says which.

`manifold auth login` writes and the gateway reads and writes the same file (refreshed tokens
are written back), so a login is picked up by a running gateway at its next attempt.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
import stat
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

from manifold.config import ConfigError, GatewayConfig

KEY_ENV = "MANIFOLD_TOKEN_KEY"


class TokenStoreError(Exception):
    """The store or its key cannot be used; the message says why and what to do."""


@dataclass(slots=True)
class TokenSet:
    """What a login gave for one upstream (and tenant)."""

    access_token: str
    token_endpoint: str
    client_id: str
    refresh_token: str | None = None
    expires_at: float | None = None  # time.time() seconds; None: the server did not say
    client_secret: str | None = None
    resource: str | None = None
    scope: str | None = None
    issued_at: float = field(default_factory=time.time)

    def expires_in(self, now: float | None = None) -> float | None:
        if self.expires_at is None:
            return None
        return self.expires_at - (time.time() if now is None else now)


def store_paths(config: GatewayConfig) -> tuple[Path, Path]:
    """The token store and key file the config asks for."""
    cc = config.credentials
    if cc.path:
        path = Path(os.path.expanduser(cc.path))
    elif config.state.path:
        path = Path(os.path.expanduser(config.state.path)).parent / "tokens.db"
    else:
        raise ConfigError(
            "credentials.path: upstream OAuth tokens need a file (state.path is empty): "
            "set credentials.path"
        )
    key = Path(os.path.expanduser(cc.key_file)) if cc.key_file else path.parent / "token.key"
    return path.absolute(), key.absolute()


def _fernet_key(text: str | bytes) -> bytes:
    raw = text.encode() if isinstance(text, str) else text
    raw = raw.strip()
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32:
            return raw
    except ValueError:
        pass
    return base64.urlsafe_b64encode(hashlib.sha256(raw).digest())


def load_key(key_file: Path, env: dict[str, str] | None = None) -> bytes:
    """The store's key: `MANIFOLD_TOKEN_KEY`, else the key file (created 0600 if missing)."""
    env = dict(os.environ) if env is None else env
    text = env.get(KEY_ENV)
    if text:
        if len(text.strip()) < 16:
            raise TokenStoreError(f"{KEY_ENV} is shorter than 16 characters")
        return _fernet_key(text)
    try:
        fd = os.open(key_file, os.O_RDONLY)
    except FileNotFoundError:
        key_file.parent.mkdir(parents=True, exist_ok=True)
        key = Fernet.generate_key()
        try:
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return load_key(key_file, env)  # another process made it first
        with os.fdopen(fd, "wb") as f:
            f.write(key + b"\n")
        return key
    except OSError as e:
        raise TokenStoreError(f"cannot read the token key file {key_file} ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise TokenStoreError(
                f"the token key file {key_file} may be read by others "
                f"(mode {stat.S_IMODE(mode):o}): chmod 600 it"
            )
        data = f.read(4096)
    if not data.strip():
        raise TokenStoreError(f"the token key file {key_file} is empty")
    return _fernet_key(data)


class TokenStore:
    """Encrypted token records by (upstream, tenant) in one SQLite file."""

    def __init__(self, path: Path, key: bytes) -> None:
        self.path = path
        self._fernet = Fernet(key)
        self._lock = threading.Lock()  # the gateway reads and writes from worker threads
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)  # never readable by others
        os.close(fd)
        try:
            self._db = sqlite3.connect(
                path, timeout=5.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS tokens (upstream TEXT NOT NULL, tenant TEXT NOT NULL,"
                " sealed BLOB NOT NULL, PRIMARY KEY (upstream, tenant))"
            )
        except sqlite3.Error as e:
            raise TokenStoreError(f"cannot open the token store {path} ({e})") from None

    @classmethod
    def open(cls, config: GatewayConfig) -> TokenStore:
        path, key_file = store_paths(config)
        return cls(path, load_key(key_file))

    def get(self, upstream: str, tenant: str = "") -> TokenSet | None:
        with self._lock:
            row = self._db.execute(
                "SELECT sealed FROM tokens WHERE upstream = ? AND tenant = ?", (upstream, tenant)
            ).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(self._fernet.decrypt(row[0]))
        except InvalidToken:
            raise TokenStoreError(
                f"the token store {self.path} cannot be decrypted with this key "
                f"({KEY_ENV} or the key file changed?): log in again"
            ) from None
        return TokenSet(**data)

    def put(self, upstream: str, tokens: TokenSet, tenant: str = "") -> None:
        sealed = self._fernet.encrypt(json.dumps(asdict(tokens)).encode())
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO tokens (upstream, tenant, sealed) VALUES (?, ?, ?)",
                (upstream, tenant, sealed),
            )

    def delete(self, upstream: str, tenant: str = "") -> bool:
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM tokens WHERE upstream = ? AND tenant = ?", (upstream, tenant)
            )
            return cur.rowcount > 0

    def entries(self) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute("SELECT upstream, tenant FROM tokens ORDER BY 1, 2").fetchall()
        return [(str(u), str(t)) for u, t in rows]

    def close(self) -> None:
        self._db.close()
