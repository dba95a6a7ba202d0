"""Credentials: userinfo splitting, redaction, keyring storage (never plain text)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import quote

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.backends.null
import keyring.errors
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartreader.errors import CredentialsError
from smartreader.net import credentials
from smartreader.net.credentials import (
    SERVICE,
    delete_password,
    get_password,
    keyring_available,
    redact,
    split_userinfo,
    store_password,
)
from tests.keyrings import BrokenKeyring, LockedKeyring, MemoryKeyring

Installer = Callable[[keyring.backend.KeyringBackend], keyring.backend.KeyringBackend]


@pytest.fixture
def use_keyring() -> Iterator[Installer]:
    previous = keyring.get_keyring()

    def install(backend: keyring.backend.KeyringBackend) -> keyring.backend.KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield install
    keyring.set_keyring(previous)


# -- split_userinfo -------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/feed", ("https://example.com/feed", None, None)),
        (
            "https://alice:s3cret@Example.com/feed?x=1",
            ("https://Example.com/feed?x=1", "alice", "s3cret"),
        ),
        ("https://alice@example.com:8443/f", ("https://example.com:8443/f", "alice", None)),
        ("https://a%40b.c:p%3Aw%40rd@example.com/", ("https://example.com/", "a@b.c", "p:w@rd")),
        ("https://:token@example.com/", ("https://example.com/", "", "token")),
        ("https://@example.com/", ("https://example.com/", None, None)),
        ("https://example.com/path@with-at", ("https://example.com/path@with-at", None, None)),
    ],
)
def test_split_userinfo(url: str, expected: tuple[str, str | None, str | None]) -> None:
    assert split_userinfo(url) == expected


# -- redact -------------------------------------------------------------------------


def test_redact_userinfo_and_secret_params() -> None:
    assert redact("https://alice:s3cret@example.com/feed") == "https://***@example.com/feed"
    assert redact("fetch http://bob@h/x failed") == "fetch http://***@h/x failed"
    assert redact("https://u:p@ss@example.com/") == "https://***@example.com/"
    text = redact("https://example.com/feed?id=7&api_key=XYZ&Token=abc#frag")
    assert text == "https://example.com/feed?id=7&api_key=***&Token=***#frag"
    assert redact("https://example.com/a@b") == "https://example.com/a@b"
    assert redact("no url here") == "no url here"


# -- keyring ---------------------------------------------------------------------------


def test_store_get_delete_round_trip(use_keyring: Installer) -> None:
    backend = use_keyring(MemoryKeyring())
    assert isinstance(backend, MemoryKeyring)
    assert keyring_available()
    store_password("https://example.com/feed", "alice", "s3cret")
    assert get_password("https://example.com/feed", "alice") == "s3cret"
    assert get_password("https://example.com/feed", "bob") is None
    assert get_password("https://example.com/other", "alice") is None
    assert list(backend.data) == [(SERVICE, "alice@https://example.com/feed")]
    store_password("https://example.com/feed", "alice", "new")
    assert get_password("https://example.com/feed", "alice") == "new"
    assert delete_password("https://example.com/feed", "alice") is True
    assert delete_password("https://example.com/feed", "alice") is False
    assert backend.data == {}


def test_account_name_never_contains_a_password(use_keyring: Installer) -> None:
    backend = use_keyring(MemoryKeyring())
    assert isinstance(backend, MemoryKeyring)
    store_password("https://alice:leaked@example.com/feed", "alice", "s3cret")
    ((_service, account),) = backend.data
    assert "leaked" not in account
    assert get_password("https://example.com/feed", "alice") == "s3cret"


@pytest.mark.parametrize(
    "backend", [keyring.backends.fail.Keyring(), keyring.backends.null.Keyring()]
)
def test_no_usable_backend_raises_and_never_stores(
    use_keyring: Installer, backend: keyring.backend.KeyringBackend
) -> None:
    use_keyring(backend)
    assert not keyring_available()
    with pytest.raises(CredentialsError, match="No secure password storage"):
        store_password("https://example.com/feed", "alice", "s3cret")
    with pytest.raises(CredentialsError):
        get_password("https://example.com/feed", "alice")
    # nothing can be in a keyring that does not exist: nothing to delete, no error
    assert delete_password("https://example.com/feed", "alice") is False


def test_keyring_errors_are_translated(use_keyring: Installer) -> None:
    use_keyring(LockedKeyring())
    with pytest.raises(CredentialsError, match="locked"):
        get_password("https://example.com/feed", "alice")
    with pytest.raises(CredentialsError, match="refused by policy"):
        store_password("https://example.com/feed", "alice", "s3cret")


def test_a_backends_own_errors_are_said_in_words_too(use_keyring: Installer) -> None:
    """A desktop keyring whose D-Bus service is gone raises its library's errors,
    not keyring's: they came out as a traceback and "internal error"."""
    use_keyring(BrokenKeyring())
    with pytest.raises(CredentialsError, match=r"keyring is not working: org\.freedesktop"):
        get_password("https://example.com/feed", "alice")
    with pytest.raises(CredentialsError, match=r"keyring is not working: .*Input/output error"):
        store_password("https://example.com/feed", "alice", "s3cret")
    with pytest.raises(CredentialsError, match="not working"):
        delete_password("https://example.com/feed", "alice")


def test_no_keyring_error_from_backend(
    use_keyring: Installer, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_keyring(MemoryKeyring())

    def raise_no_keyring(*args: object) -> None:
        raise keyring.errors.NoKeyringError("nothing")

    monkeypatch.setattr(credentials.keyring, "set_password", raise_no_keyring)
    with pytest.raises(CredentialsError, match="No secure password storage"):
        store_password("k", "u", "p")


@given(
    user=st.text(min_size=1, max_size=12),
    password=st.text(min_size=1, max_size=12),
)
def test_split_userinfo_round_trips_quoted_credentials(user: str, password: str) -> None:
    url = f"https://{quote(user, safe='')}:{quote(password, safe='')}@example.com/feed?x=1"
    assert split_userinfo(url) == ("https://example.com/feed?x=1", user, password)
    assert redact(url) == "https://***@example.com/feed?x=1"
