"""Privacy (§7 rows 60–62, issue item 5): a secret never reaches the database,
the logs, an OPML export, a backup or an error message.

The secret is a password given in the feed URL (``user:pass@``) and a token in
its query string. Every artefact the app writes is grepped for both.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest

from smartreader import cli
from smartreader.errors import CredentialsError
from smartreader.net.fetch import Fetcher
from smartreader.net.opml import parse_opml
from smartreader.storage import backups
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.keyrings import MemoryKeyring
from tests.reliability.support import files_containing, item, rss

PASSWORD = "Pw-7f3c9e1d-SECRET"
TOKEN = "tok-51a2b8c4"


class RefusingKeyring(MemoryKeyring):
    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("refused by policy")

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    old = keyring.get_keyring()
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    try:
        yield kr
    finally:
        keyring.set_keyring(old)


@pytest.fixture
def everything_logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture every logger at DEBUG, httpx and httpcore included."""
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "smartreader"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def _assert_secret_free(root: Path, caplog: pytest.LogCaptureFixture, messages: list[str]) -> None:
    basic = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    for secret in (PASSWORD, basic):
        assert files_containing(root, secret.encode()) == [], secret
    # A token in the query string is part of the feed's address: it has to be in the
    # database (and an OPML export) for the feed to work, but never in logs or messages.
    for secret in (PASSWORD, TOKEN, basic):
        assert secret not in caplog.text
        for m in messages:
            assert secret not in m, m


def test_credentials_in_a_url_never_reach_db_logs_opml_backup_or_errors(
    feed_server: FeedServer,
    memory_keyring: MemoryKeyring,
    everything_logged: pytest.LogCaptureFixture,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    leaky = f"http://u:{PASSWORD}@127.0.0.1:1/x?token={TOKEN}"
    replies = [Reply(body=rss(item("a", "A"))), Reply(status=401), Reply(status=404)]
    feed_server.route("/feed", [*replies, Reply(status=302, headers={"Location": leaky})])
    url = (
        feed_server.url("/feed").replace("http://", f"http://alice:{PASSWORD}@") + f"?token={TOKEN}"
    )
    data = tmp_path / "data"
    data.mkdir()
    store = Store(data / "smartreader.sqlite3")
    up = Updater(store, fetcher=Fetcher(trust_env=False))
    messages: list[str] = []
    try:
        fid = up.subscribe(url)
        feed = store.feed(fid)
        assert PASSWORD not in feed.url and feed.auth_username == "alice"
        assert PASSWORD in memory_keyring.data.values()  # the keyring has it, only it
        for _ in range(3):  # 401, 404, redirect to a URL with userinfo
            messages += [r.error or "" for r in up.update()]
        messages += [row.error or "" for row in store.fetch_log(fid)]
        messages.append(store.feed(fid).last_error or "")
        backups.make_backup(store, now=1_800_000_000.0)
    finally:
        up.close()
        store.close()
    # The Basic header carried the password to the feed's own origin only.
    assert feed_server.requests[0].header("Authorization", "").startswith("Basic ")
    assert any("authentication" in m for m in messages)
    # OPML export through the CLI.
    assert cli.main(["--data-dir", str(data), "export", str(tmp_path / "subs.opml")]) == 0
    exported = parse_opml((tmp_path / "subs.opml").read_bytes())
    assert [s.url.split("?")[0] for s in exported.subscriptions] == [feed_server.url("/feed")]
    out = capsys.readouterr()
    messages += [out.out, out.err]
    _assert_secret_free(tmp_path, everything_logged, messages)


@pytest.mark.parametrize("backend", ["fail", "refusing"])
def test_no_usable_keyring_means_the_secret_is_refused_not_written(
    backend: str,
    feed_server: FeedServer,
    everything_logged: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    """Row 60: fail backend (the tests' default) and a backend that refuses/locks."""
    feed_server.route("/feed", Reply(body=rss(item("a", "A"))))
    old = keyring.get_keyring()
    if backend == "refusing":
        keyring.set_keyring(RefusingKeyring())
    store = Store(tmp_path / "db.sqlite3")
    up = Updater(store, fetcher=Fetcher(trust_env=False))
    url = feed_server.url("/feed").replace("http://", f"http://bob:{PASSWORD}@")
    try:
        with pytest.raises(CredentialsError) as info:
            up.subscribe(url + f"?token={TOKEN}")
    finally:
        up.close()
        store.close()
        keyring.set_keyring(old)
    assert "keyring" in str(info.value).lower()
    with Store(tmp_path / "db.sqlite3") as s:
        assert s.feeds() == []  # no feed half-added without its password
    _assert_secret_free(tmp_path, everything_logged, [str(info.value)])


def test_opml_import_of_hostile_outlines_is_skipped_with_reasons() -> None:
    """Row 62: command and local schemes, credentials and duplicates in a shared OPML."""
    outlines = "".join(
        f'<outline type="rss" text="x" xmlUrl="{u}"/>'
        for u in ["|~/script", "exec:rm -rf ~", "filter:x", "javascript:alert(1)",
                  "file:///etc/passwd", "https://ok.example/feed", "https://ok.example/feed",
                  f"https://eve:{PASSWORD}@cred.example/feed"]
    )  # fmt: skip
    doc = f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>'.encode()
    result = parse_opml(doc)
    urls = [s.url for s in result.subscriptions]
    assert "https://ok.example/feed" in urls and urls.count("https://ok.example/feed") == 1
    assert all(u.startswith(("http://", "https://")) for u in urls)
    assert len(result.problems) >= 5
    assert all(PASSWORD not in p for p in result.problems)


def test_opml_bombs_and_huge_files_are_refused_quickly() -> None:
    from smartreader.errors import ParseError

    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "' + b"x" * 50_000 + b'">]>'
        b"<opml><body>" + b"<outline text='&a;' xmlUrl='https://e/'/>" * 2000 + b"</body></opml>"
    )
    with pytest.raises(ParseError, match="DTD"):
        parse_opml(bomb)
    many = b"".join(b"<outline xmlUrl='https://e.example/%d'/>" % i for i in range(60_000))
    result = parse_opml(b"<opml><body>" + many + b"</body></opml>")
    assert len(result.subscriptions) <= 50_000
