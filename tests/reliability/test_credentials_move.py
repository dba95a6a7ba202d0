"""A password-protected feed that the server moves for good (301/308) keeps its password.

The password lives in the keyring only, keyed by the feed's URL and user name. When
``Store.record_fetch`` adopts a confirmed permanent redirect the feed's URL changes,
so the keyring entry has to follow it: written under the new key first, the old one
deleted only then. It follows only where the fetcher would send the password anyway
(the feed's own origin, or its same-host http→https upgrade), never to another site.

Real SQLite file, real HTTP on 127.0.0.1, the in-memory test keyring.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import keyring.errors
import pytest

from smartreader.net.credentials import SERVICE
from smartreader.storage.store import REDIRECT_CONFIRMATIONS, REDIRECT_MIN_AGE, Store
from smartreader.updater import Updater, UpdateResult
from tests.httpserver import FeedServer, RecordedRequest, Reply
from tests.keyrings import MemoryKeyring, installed
from tests.reliability.support import files_containing, item, rss, store_and_updater

USER = "alice"
PASSWORD = "Pw-2b9e41c7-SECRET"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
GOOD = rss(item("a", "A") + item("b", "B"))

Handler = Callable[[RecordedRequest], Reply]


def protected(body: bytes) -> Handler:
    """Serves ``body`` only with alice's Basic credentials; 401 otherwise."""

    def handle(req: RecordedRequest) -> Reply:
        if req.header("Authorization") != BASIC:
            return Reply(status=401, headers={"WWW-Authenticate": 'Basic realm="private"'})
        return Reply(body=body)

    return handle


def moves_after_first_fetch(location: str) -> Handler:
    """The feed is served (behind the password) once, then moved permanently."""
    calls = 0

    def handle(req: RecordedRequest) -> Reply:
        nonlocal calls
        calls += 1
        if calls == 1:
            return protected(GOOD)(req)
        return Reply(status=301, headers={"Location": location})

    return handle


def with_user(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{PASSWORD}@")


def account(url: str) -> tuple[str, str]:
    return (SERVICE, f"{USER}@{url}")


class FlakyKeyring(MemoryKeyring):
    """Reads always work; while ``refuse`` is set, writes fail the way ``failure`` says."""

    def __init__(self, failure: str) -> None:
        super().__init__()
        self.failure = failure
        self.refuse = False

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.refuse:
            if self.failure == "locked":
                raise keyring.errors.KeyringLocked("the collection is locked")
            if self.failure == "refused":
                raise keyring.errors.PasswordSetError("refused by policy")
            if self.failure == "crashes":
                raise RuntimeError("org.freedesktop.DBus.Error.NoReply")
            return  # "dropped": says yes, keeps nothing
        super().set_password(service, username, password)


@pytest.fixture
def other_server() -> Iterator[FeedServer]:
    with FeedServer() as server:
        yield server


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    with installed(MemoryKeyring()) as kr:
        yield kr


class Clock:
    """The app's clock: days pass between updates (a redirect moves a feed only
    after it has been seen for a week)."""

    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        return self.t


# so that the REDIRECT_CONFIRMATIONS-th sighting is a week after the first
STEP = REDIRECT_MIN_AGE / (REDIRECT_CONFIRMATIONS - 1)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


def updates(up: Updater, fid: int, n: int) -> list[UpdateResult]:
    out = []
    for _ in range(n):
        up.now.t += STEP  # type: ignore[attr-defined]
        out.append(up.update([fid])[0])
    return out


def subscribed_then_moved(
    feed_server: FeedServer, other_server: FeedServer, up: Updater, there: Handler | Reply
) -> tuple[str, str, int]:
    """A password feed on ``feed_server`` that then moves for good to ``other_server``,
    which answers ``there``: (old URL, new URL, feed id)."""
    old, new = feed_server.url("/feed"), other_server.url("/feed")
    feed_server.route("/feed", moves_after_first_fetch(new))
    other_server.route("/feed", there)
    return old, new, up.subscribe(with_user(old))


def errors_of(results: list[UpdateResult]) -> list[str | None]:
    return [r.error for r in results if r.status not in ("ok", "not_modified")]


def test_same_origin_move_takes_the_password_along(
    feed_server: FeedServer,
    memory_keyring: MemoryKeyring,
    app: tuple[Store, Updater],
    tmp_path: Path,
) -> None:
    old, new = feed_server.url("/feed"), feed_server.url("/feed.xml")
    feed_server.route("/feed", moves_after_first_fetch("/feed.xml"))
    feed_server.route("/feed.xml", protected(GOOD))
    store, up = app
    fid = up.subscribe(with_user(old))
    assert memory_keyring.data == {account(old): PASSWORD}

    results = updates(up, fid, REDIRECT_CONFIRMATIONS + 3)

    assert errors_of(results) == []  # before, during and after the move
    assert store.feed(fid).url == new
    assert memory_keyring.data == {account(new): PASSWORD}  # moved, nothing left behind
    # After the move the feed is fetched at its new address, with the password.
    tail = feed_server.requests[-3:]
    assert [r.route_path for r in tail] == ["/feed.xml"] * 3
    assert all(r.header("Authorization") == BASIC for r in tail)
    store.close()
    basic_token = BASIC.split()[1]
    for secret in (PASSWORD, basic_token):
        assert files_containing(tmp_path, secret.encode()) == [], secret


@pytest.mark.parametrize("failure", ["locked", "refused", "crashes", "dropped"])
def test_a_keyring_that_refuses_the_move_keeps_the_old_entry_and_the_feed_working(
    failure: str,
    feed_server: FeedServer,
    app: tuple[Store, Updater],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="smartreader")
    with installed(FlakyKeyring(failure)) as kr:
        old, new = feed_server.url("/feed"), feed_server.url("/feed.xml")
        feed_server.route("/feed", moves_after_first_fetch("/feed.xml"))
        feed_server.route("/feed.xml", protected(GOOD))
        store, up = app
        fid = up.subscribe(with_user(old))
        kr.refuse = True

        # Two confirmations of the redirect, two refused moves.
        results = updates(up, fid, 2 * REDIRECT_CONFIRMATIONS)

        # The feed keeps the address its password is saved for and keeps working
        # through the (same-origin) redirect, which gets the password.
        assert errors_of(results) == []
        assert store.feed(fid).url == old
        assert store.feed(fid).last_error is None
        assert kr.data == {account(old): PASSWORD}  # the only copy is intact
        assert all(
            r.header("Authorization") == BASIC for r in feed_server.requests_for("/feed.xml")
        )
        warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warned) == 2, warned  # one per refused attempt
        for message in warned:
            assert "could not be moved" in message and "keyring" in message
            assert new in message and old in message
            assert PASSWORD not in message

        # The keyring accepts writes again: the next confirmed redirect moves it.
        kr.refuse = False
        results = updates(up, fid, REDIRECT_CONFIRMATIONS + 1)
        assert errors_of(results) == []
        assert store.feed(fid).url == new
        assert kr.data == {account(new): PASSWORD}


def test_a_move_to_another_site_that_asks_for_a_password_is_a_clear_error(
    feed_server: FeedServer,
    other_server: FeedServer,
    memory_keyring: MemoryKeyring,
    app: tuple[Store, Updater],
) -> None:
    store, up = app
    old, new, fid = subscribed_then_moved(feed_server, other_server, up, protected(GOOD))

    results = updates(up, fid, REDIRECT_CONFIRMATIONS + 1)

    assert [r.status for r in results] == ["error"] * len(results)
    message = results[-1].error or ""
    assert message == store.feed(fid).last_error
    assert "moved permanently to another site" in message and new in message
    assert "feed's properties" in message and "user name and password" in message
    assert PASSWORD not in message
    assert other_server.requests and not any(
        r.has_header("Authorization") for r in other_server.requests
    )
    assert store.feed(fid).url == old  # a failing fetch never moves a feed
    assert memory_keyring.data == {account(old): PASSWORD}


def test_a_move_to_another_site_never_takes_the_password_there(
    feed_server: FeedServer,
    other_server: FeedServer,
    memory_keyring: MemoryKeyring,
    app: tuple[Store, Updater],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="smartreader")
    store, up = app
    # the new site serves it to anyone
    old, new, fid = subscribed_then_moved(feed_server, other_server, up, Reply(body=GOOD))

    results = updates(up, fid, REDIRECT_CONFIRMATIONS + 2)

    # Served without the password until the move is confirmed and adopted...
    assert errors_of(results[:REDIRECT_CONFIRMATIONS]) == []
    assert store.feed(fid).url == new
    # ...then the feed stops with an error that says what to do; the password
    # stays saved for the old site only and nothing is sent to the new one.
    after = results[REDIRECT_CONFIRMATIONS:]
    assert [r.status for r in after] == ["error"] * len(after)
    message = after[-1].error or ""
    assert message == store.feed(fid).last_error
    assert new in message and "another site" in message
    assert "feed's properties" in message and "user name and password" in message
    assert not any(r.has_header("Authorization") for r in other_server.requests)
    assert memory_keyring.data == {account(old): PASSWORD}
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("another site" in m and new in m for m in warned), warned


class LockedOnRead(MemoryKeyring):
    """A keyring that locked itself after the password was saved (screen lock)."""

    locked = False

    def get_password(self, service: str, username: str) -> str | None:
        if self.locked:
            raise keyring.errors.KeyringLocked("the collection is locked")
        return super().get_password(service, username)


@pytest.mark.parametrize("trouble", ["locked", "deleted"])
def test_a_password_the_keyring_cannot_give_fails_that_feed_clearly_and_keeps_it(
    trouble: str, feed_server: FeedServer, other_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """Row 60 at update time: the keyring locked after subscribing, or the entry
    deleted by the user in their keyring tool. That feed fails with what to do,
    no request goes out without the password, its entries stay; other feeds update."""
    feed_server.route("/feed", protected(GOOD))
    other_server.route("/open.xml", Reply(body=rss(item("o1"))))
    store, up = app
    with installed(LockedOnRead()) as kr:
        fid = up.subscribe(with_user(feed_server.url("/feed")))
        other = up.subscribe(other_server.url("/open.xml"))
        assert store.entry_count() == 3
        sent = len(feed_server.requests)
        if trouble == "locked":
            kr.locked = True
        else:
            kr.data.clear()
        results = {r.feed_id: r for r in up.update([fid, other])}
        assert results[other].status == "ok"
        r = results[fid]
        assert r.status == "error"
        if trouble == "locked":
            assert r.error == "The system keyring is locked; unlock it and try again."
        else:
            assert "missing from the keyring" in (r.error or "")
            assert "feed's properties" in (r.error or "")
        assert store.feed(fid).last_error == r.error
        assert len(feed_server.requests) == sent  # nothing sent without the password
        assert store.entry_count() == 3  # a and b kept, o1 kept
        kr.locked = False
        if trouble == "locked":  # unlocked: the next update works again
            assert up.update([fid])[0].status in ("ok", "not_modified")


def test_a_feed_moved_to_another_host_is_planned_under_that_host(
    feed_server: FeedServer, other_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """Per-host request gaps and a host's Retry-After apply to where the feed is now."""
    new = other_server.url("/feed")
    feed_server.route("/feed", Reply(body=GOOD))
    other_server.route("/feed", Reply(body=GOOD))
    store, up = app
    fid = up.subscribe(feed_server.url("/feed"))
    feed_server.route("/feed", Reply(status=301, headers={"Location": new}))
    updates(up, fid, REDIRECT_CONFIRMATIONS + 1)
    assert store.feed(fid).url == new
    planned = up.scheduler._feeds[fid]  # white-box: the host is not shown anywhere
    assert planned.host == new.split("/")[2]
    assert planned.last_ok is not None  # what it learned came along


def test_without_a_keyring_a_password_kept_for_the_session_is_used_and_never_written(
    feed_server: FeedServer, app: tuple[Store, Updater], tmp_path: Path
) -> None:
    """Row 60: no usable keyring (the tests' "fail" backend). The user chose to keep
    the password for this session: fetches use it, no file ever holds it, and once
    forgotten (unsubscribe, quit) the feed says what is missing."""
    from smartreader.net import credentials

    feed_server.route("/feed", protected(GOOD))
    store, up = app
    url = feed_server.url("/feed")
    fid = store.add_feed(url, auth_username=USER)
    credentials.keep_for_session(url, USER, PASSWORD)
    (r,) = up.update([fid])
    assert r.status == "ok", r.error
    assert store.entry_count(fid) == 2
    assert files_containing(tmp_path, PASSWORD.encode()) == []
    assert credentials.delete_password(url, USER)
    sent = len(feed_server.requests)
    (r,) = up.update([fid])
    assert r.status == "error" and "keyring" in (r.error or "")
    assert len(feed_server.requests) == sent  # nothing sent without the password
