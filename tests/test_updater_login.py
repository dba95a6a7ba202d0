"""Subscribing to a feed behind a login (Updater.subscribe): a 401 says so in a
way the GUI can act on, and a feed fetched with its password is never lost for
want of a keyring (real Store, local HTTP, the tests' "fail" keyring unless one
is installed)."""

from __future__ import annotations

import base64
import logging

import pytest

from smartreader.errors import CredentialsError
from smartreader.net import credentials
from smartreader.storage.store import Store
from smartreader.updater import LoginRequired, Updater
from tests.httpserver import FeedServer, RecordedRequest, Reply
from tests.keyrings import BrokenKeyring, LockedKeyring, MemoryKeyring, installed
from tests.reliability.support import item, rss

USER, PASSWORD = "ann", "Pw-7c1f-SECRET"
AS_RSS = {"Content-Type": "application/rss+xml"}
AS_HTML = {"Content-Type": "text/html; charset=utf-8"}


def protected(req: RecordedRequest) -> Reply:
    basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    if req.header("Authorization") != basic:
        return Reply(status=401, headers={"WWW-Authenticate": 'Basic realm="private"'})
    return Reply(body=rss(item("a", "A")), headers=AS_RSS)


@pytest.fixture
def up(tmp_path):
    with Store(tmp_path / "db.sqlite3") as store:
        u = Updater(store)
        yield u
        u.close()


def _secret_free(tmp_path, caplog) -> None:
    assert PASSWORD not in caplog.text
    for p in tmp_path.iterdir():
        if p.is_file():
            assert PASSWORD.encode() not in p.read_bytes(), p


def test_a_feed_asking_for_a_login_raises_login_required(up, feed_server: FeedServer):
    feed_server.route("/private.xml", protected)
    with pytest.raises(LoginRequired, match="needs a user name and password") as no_login:
        up.subscribe(feed_server.url("/private.xml"))
    assert not no_login.value.refused
    with pytest.raises(LoginRequired, match="check the user name and password") as wrong:
        up.subscribe(feed_server.url("/private.xml"), login=(USER, "wrong"))
    assert wrong.value.refused
    assert up.store.feeds() == []


def test_a_public_page_linking_a_private_feed_asks_for_the_login(up, feed_server):
    """It said "the page does not link to an RSS, Atom or JSON feed"."""
    feed_server.routes(
        {
            "/": Reply(
                body=b'<html><head><link rel="alternate" type="application/rss+xml" '
                b'href="/private.xml"></head></html>',
                headers=AS_HTML,
            ),
            "/private.xml": protected,
        }
    )
    with pytest.raises(LoginRequired, match=r"private\.xml: authentication required"):
        up.subscribe(feed_server.url("/"))
    with installed(MemoryKeyring()):
        fid = up.subscribe(feed_server.url("/"), login=(USER, PASSWORD))
    assert up.store.feed(fid).url == feed_server.url("/private.xml")


def test_the_login_goes_to_the_keyring(up, feed_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    feed_server.route("/private.xml", protected)
    with installed(MemoryKeyring()) as kr:
        fid = up.subscribe(feed_server.url("/private.xml"), login=(USER, PASSWORD))
        assert list(kr.data.values()) == [PASSWORD]
    feed = up.store.feed(fid)
    assert feed.auth_username == USER and feed.last_error is None
    assert not credentials.kept_for_session(feed.url, USER)
    _secret_free(tmp_path, caplog)


def test_without_a_keyring_the_feed_is_kept_with_its_password_for_the_session(
    up, feed_server, tmp_path, caplog
):
    """The fetch with the password had worked, then store_password's
    CredentialsError threw the subscription away."""
    caplog.set_level(logging.DEBUG)
    feed_server.route("/private.xml", protected)
    assert not credentials.keyring_available()
    fid = up.subscribe(
        feed_server.url("/private.xml"), login=(USER, PASSWORD), session_password=True
    )
    feed = up.store.feed(fid)
    assert feed.auth_username == USER and up.store.entry_count(fid) == 1
    assert credentials.kept_for_session(feed.url, USER)
    # and it keeps working until quit
    (result,) = up.update([fid], manual=True)
    assert result.status in ("ok", "not_modified"), result.error
    assert "kept for this session only" in caplog.text
    _secret_free(tmp_path, caplog)


def test_a_command_that_ends_at_once_still_refuses_without_a_keyring(up, feed_server):
    """The CLI: a session-only password would be gone before the next update
    (tests/e2e/test_cli.py checks what it says)."""
    feed_server.route("/private.xml", protected)
    with pytest.raises(CredentialsError, match="No secure password storage"):
        up.subscribe(feed_server.url("/private.xml"), login=(USER, PASSWORD))
    assert up.store.feeds() == []


def test_the_address_form_works_without_a_keyring_too(up, feed_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    feed_server.route("/private.xml", protected)
    url = feed_server.url("/private.xml").replace("://", f"://{USER}:{PASSWORD}@")
    fid = up.subscribe(url, session_password=True)
    assert up.store.feed(fid).url == feed_server.url("/private.xml")
    assert credentials.kept_for_session(feed_server.url("/private.xml"), USER)
    _secret_free(tmp_path, caplog)


def test_a_locked_keyring_is_for_the_user_to_unlock(up, feed_server):
    """Not kept for the session behind the user's back: unlocking it and trying
    again saves the password for good."""
    feed_server.route("/private.xml", protected)
    with installed(LockedKeyring()), pytest.raises(CredentialsError, match="refused"):
        up.subscribe(feed_server.url("/private.xml"), login=(USER, PASSWORD), session_password=True)
    assert up.store.feeds() == []
    assert not credentials.kept_for_session(feed_server.url("/private.xml"), USER)


def test_a_broken_keyring_is_the_feeds_error_in_words_and_the_rest_carries_on(up, feed_server):
    """A keyring whose service is gone (its library's own RuntimeError): the
    update stored "internal error: RuntimeError(...)" with a traceback in the log,
    and `add` with a login ended in a traceback."""
    feed_server.route("/private.xml", protected)
    feed_server.route("/other.xml", protected)
    feed_server.route("/public.xml", Reply(body=rss(item("p", "P")), headers=AS_RSS))
    with installed(MemoryKeyring()):
        private = up.subscribe(feed_server.url("/private.xml"), login=(USER, PASSWORD))
    public = up.subscribe(feed_server.url("/public.xml"))
    with installed(BrokenKeyring()):
        results = {r.feed_id: r for r in up.update()}
        with pytest.raises(CredentialsError, match="keyring is not working"):
            up.subscribe(feed_server.url("/other.xml"), login=(USER, PASSWORD))
    assert results[public].status == "ok"
    assert results[private].status == "error"
    error = up.store.feed(private).last_error or ""
    assert "keyring is not working" in error and "internal error" not in error
    assert up.store.entry_count() == 2  # nothing stored is lost
    assert len(up.store.feeds()) == 2  # and the new one is not added without its password
