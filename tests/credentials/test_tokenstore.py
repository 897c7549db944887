"""The encrypted token store: records round-trip, nothing in clear on disk, the key from the
environment or a 0600 key file, and clear refusals of a readable key file or a changed key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from manifold.config import ConfigError, GatewayConfig
from manifold.credentials.tokenstore import (
    KEY_ENV,
    TokenSet,
    TokenStore,
    TokenStoreError,
    load_key,
    store_paths,
)

SECRET_ACCESS = "at-very-secret-access-token-42"
SECRET_REFRESH = "rt-very-secret-refresh-token-42"


def tokens() -> TokenSet:
    return TokenSet(
        access_token=SECRET_ACCESS,
        refresh_token=SECRET_REFRESH,
        token_endpoint="http://127.0.0.1:1/token",
        client_id="client-1",
        expires_at=1.0e10,
        issued_at=1.0e9,
    )


def test_round_trip_and_nothing_in_clear(tmp_path: Path) -> None:
    key = load_key(tmp_path / "token.key", env={})
    store = TokenStore(tmp_path / "tokens.db", key)
    store.put("github", tokens())
    store.put("github", tokens(), tenant="red")
    assert store.get("github") == tokens()
    assert store.get("github", "blue") is None
    assert store.entries() == [("github", ""), ("github", "red")]
    assert store.delete("github", "red") and not store.delete("github", "red")
    store.close()
    for p in tmp_path.iterdir():
        blob = p.read_bytes()
        assert SECRET_ACCESS.encode() not in blob and SECRET_REFRESH.encode() not in blob
    assert (tmp_path / "tokens.db").stat().st_mode & 0o077 == 0
    # Opened again with the same key file: the same record.
    again = TokenStore(tmp_path / "tokens.db", load_key(tmp_path / "token.key", env={}))
    assert again.get("github") == tokens()
    again.close()


def test_key_file_is_created_private_and_refused_when_readable(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "token.key"
    key = load_key(path, env={})
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_key(path, env={}) == key  # read back, not made again
    os.chmod(path, 0o644)
    with pytest.raises(TokenStoreError, match=r"may be read by others \(mode 644\): chmod 600"):
        load_key(path, env={})


def test_key_from_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "token.key"
    key = load_key(path, env={KEY_ENV: "a passphrase of some length"})
    assert not path.exists()  # no key file when the key comes from the environment
    assert key == load_key(path, env={KEY_ENV: "a passphrase of some length"})
    with pytest.raises(TokenStoreError, match="shorter than 16"):
        load_key(path, env={KEY_ENV: "short"})


def test_a_changed_key_is_a_clear_error(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "t.db", load_key(tmp_path / "k", env={KEY_ENV: "x" * 20}))
    store.put("github", tokens())
    store.close()
    other = TokenStore(tmp_path / "t.db", load_key(tmp_path / "k", env={KEY_ENV: "y" * 20}))
    with pytest.raises(TokenStoreError, match="cannot be decrypted with this key"):
        other.get("github")
    other.close()


def test_paths_follow_the_config(tmp_path: Path) -> None:
    cfg = GatewayConfig.from_data({"state": {"path": str(tmp_path / "s" / "state.db")}})
    assert store_paths(cfg) == (tmp_path / "s" / "tokens.db", tmp_path / "s" / "token.key")
    cfg = GatewayConfig.from_data(
        {"state": {"path": ""}, "credentials": {"path": str(tmp_path / "t.db")}}
    )
    assert store_paths(cfg) == (tmp_path / "t.db", tmp_path / "token.key")
    with pytest.raises(ConfigError, match=r"credentials\.path"):
        store_paths(GatewayConfig.from_data({"state": {"path": ""}}))
