"""Add feed on a feed behind a login: the dialog shows user name and password
fields when the feed answers 401 (or when the user says it needs a login), and
subscribes with them; without a keyring the feed is still added, its password
kept for this session only, and both the dialog and the status bar say so
(real widgets, Store, Updater and worker thread, local HTTP; the tests' keyring
is the "fail" backend unless one is installed)."""

from __future__ import annotations

import base64
import logging

import pytest
from PySide6.QtWidgets import QLineEdit

from smartreader.gui.dialogs import AddFeedDialog, FeedPropertiesDialog
from smartreader.net import credentials
from tests.gui.test_mainwindow import rss
from tests.httpserver import FeedServer, RecordedRequest, Reply
from tests.keyrings import MemoryKeyring, installed

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

USER, PASSWORD = "ann", "Pw-51d0-SECRET"


def protected(req: RecordedRequest) -> Reply:
    basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    if req.header("Authorization") != basic:
        return Reply(status=401, headers={"WWW-Authenticate": 'Basic realm="private"'})
    return Reply(body=rss(2, prefix="Private"), headers={"Content-Type": "application/rss+xml"})


@pytest.fixture
def private(feed_server: FeedServer) -> str:
    feed_server.route("/private.xml", protected)
    return feed_server.url("/private.xml")


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


def login_shown(dlg: AddFeedDialog) -> bool:
    return dlg.username.isVisible() and dlg.password.isVisible()


def submit_and_fail(qtbot, win, dlg: AddFeedDialog) -> None:
    with qtbot.wait_signal(win.sched.subscribeFailed, timeout=10_000):
        dlg.ok.click()
    qtbot.waitUntil(dlg.error.isVisible, timeout=3000)


def submit_and_subscribe(qtbot, win, dlg: AddFeedDialog) -> int:
    with qtbot.wait_signal(win.sched.subscribed, timeout=10_000) as sig:
        dlg.ok.click()
    qtbot.waitUntil(lambda: win._add_dialog is None, timeout=3000)  # closed: done
    return int(sig.args[0])


def assert_secret_free(env, caplog) -> None:
    """Never in the database (or anything beside it), never in a log."""
    assert PASSWORD not in caplog.text
    folder = env.store.path.parent
    for p in folder.rglob("*"):
        if p.is_file():
            assert PASSWORD.encode() not in p.read_bytes(), p


def test_a_feed_answering_401_gets_its_login_in_the_dialog(env, qtbot, private, logged):
    """Before: "this feed needs a user name and password", and nowhere to type them."""
    with installed(MemoryKeyring()) as kr:
        win = env.window()
        dlg = win.add_feed(private)
        assert not login_shown(dlg)  # most feeds are public: folded away
        submit_and_fail(qtbot, win, dlg)
        assert login_shown(dlg) and dlg.needs_login.isChecked()
        assert "needs a user name and password" in dlg.error.text()
        assert "Enter the user name and password above" in dlg.error.text()
        assert dlg.password.echoMode() == QLineEdit.EchoMode.Password
        assert dlg.password.placeholderText() == "stored in the system keyring"
        assert not dlg.login_note.isVisible()  # there is a keyring: nothing to warn of
        assert dlg.focusWidget() is dlg.username
        qtbot.keyClicks(dlg.username, USER)
        qtbot.keyClicks(dlg.password, PASSWORD)
        fid = submit_and_subscribe(qtbot, win, dlg)
        assert list(kr.data.values()) == [PASSWORD]
    feed = env.store.feed(fid)
    assert (feed.url, feed.auth_username) == (private, USER)
    assert env.store.entry_count(fid) == 2
    assert win.current_key() == f"feed:{fid}"
    assert win.statusBar().currentMessage() == "Subscribed to Private feed"
    assert_secret_free(env, logged)


def test_without_a_keyring_the_feed_is_added_and_its_password_kept_for_the_session(
    env, qtbot, private, logged
):
    """Before: the authenticated fetch worked, then "No secure password storage
    (system keyring) is available" threw the subscription away."""
    assert not credentials.keyring_available()
    win = env.window()
    dlg = win.add_feed(private)
    submit_and_fail(qtbot, win, dlg)
    # said before Subscribe, not found out after a restart
    assert dlg.login_note.isVisible() and "for this session only" in dlg.login_note.text()
    assert dlg.password.placeholderText() == "kept for this session only"
    dlg.username.setText(USER)
    dlg.password.setText(PASSWORD)
    fid = submit_and_subscribe(qtbot, win, dlg)
    feed = env.store.feed(fid)
    assert (feed.url, feed.auth_username) == (private, USER)
    assert env.store.entry_count(fid) == 2
    assert credentials.kept_for_session(private, USER)
    message = win.statusBar().currentMessage()
    assert message.startswith("Subscribed to Private feed — no system keyring")
    assert "kept for this session only" in message
    # its properties say the same, as when the password was typed there
    props = FeedPropertiesDialog(env.store, fid, overlaps=[])
    qtbot.addWidget(props)
    assert props.password.placeholderText() == "kept for this session only"
    # and it keeps updating until quit
    (result,) = env.updater.update([fid], manual=True)
    assert result.status in ("ok", "not_modified"), result.error
    assert_secret_free(env, logged)


def test_a_refused_password_puts_the_cursor_back_in_the_password(env, qtbot, private):
    with installed(MemoryKeyring()) as kr:
        win = env.window()
        dlg = win.add_feed(private)
        dlg.needs_login.setChecked(True)  # known beforehand: no 401 round trip first
        assert login_shown(dlg) and dlg.focusWidget() is dlg.username
        dlg.username.setText(USER)
        dlg.password.setText("wrong")
        submit_and_fail(qtbot, win, dlg)
        assert "check the user name and password" in dlg.error.text()
        assert "Enter the user name" not in dlg.error.text()  # they were entered
        assert dlg.focusWidget() is dlg.password and dlg.password.selectedText() == "wrong"
        assert env.store.feeds() == [] and kr.data == {}
        dlg.password.setText(PASSWORD)
        submit_and_subscribe(qtbot, win, dlg)
        assert list(kr.data.values()) == [PASSWORD]


def test_a_login_typed_in_the_address_moves_into_the_fields(env, qtbot, private, logged):
    win = env.window()
    dlg = win.add_feed(private.replace("://", f"://{USER}:{PASSWORD}@"))
    with qtbot.wait_signal(win.sched.subscribed, timeout=10_000):
        dlg.ok.click()
        # masked at once, not shown in the address while the feed is looked for
        assert dlg.url.text() == private
        assert (dlg.username.text(), dlg.password.text()) == (USER, PASSWORD)
        assert dlg.needs_login.isChecked()
    assert credentials.kept_for_session(private, USER)
    assert "kept for this session only" in win.statusBar().currentMessage()
    assert_secret_free(env, logged)


def test_unticking_the_login_hides_it_and_sends_none(env, qtbot, feed_server):
    win = env.window(start_scheduler=False)
    dlg = win.add_feed("https://example.org/feed")
    dlg.needs_login.setChecked(True)
    dlg.username.setText(USER)
    dlg.password.setText(PASSWORD)
    assert dlg.login() == (USER, PASSWORD)
    dlg.needs_login.setChecked(False)
    assert not login_shown(dlg) and dlg.login() is None
    # ticked with no user name: said, nothing sent
    dlg.needs_login.setChecked(True)
    dlg.username.clear()
    dlg.ok.click()
    assert not dlg.progress.isVisible() and "Enter the user name" in dlg.error.text()
    assert dlg.focusWidget() is dlg.username


def test_a_sites_feed_that_asks_for_a_login_gets_it_and_only_it_is_fetched_again(
    env, qtbot, feed_server
):
    """A page linking a public and a private feed, both ticked: the public one is
    subscribed at once; the private one's 401 opens the login fields, and the
    second Subscribe sends only it, with the login."""
    from PySide6.QtCore import Qt

    from tests.gui.test_add_feed_choices import look, rows, ticked

    links = "".join(
        f'<link rel="alternate" type="application/rss+xml" title="{t}" href="{h}">'
        for h, t in (("/posts.xml", "Posts"), ("/private.xml", "Members"))
    )
    feed_server.routes(
        {
            "/": Reply(
                body=f"<!doctype html><html><head>{links}</head></html>".encode(),
                headers={"Content-Type": "text/html; charset=utf-8"},
            ),
            "/posts.xml": Reply(
                body=rss(3, prefix="Post"), headers={"Content-Type": "application/rss+xml"}
            ),
            "/private.xml": protected,
        }
    )
    with installed(MemoryKeyring()) as kr:
        win = env.window()
        dlg = win.add_feed()
        look(qtbot, win, dlg, feed_server.url("/"))
        dlg.choices.topLevelItem(1).setCheckState(0, Qt.CheckState.Checked)
        assert ticked(dlg) == ["Posts", "Members"]
        with qtbot.wait_signal(win.sched.subscribeFailed, timeout=10_000):
            dlg.ok.click()
        qtbot.waitUntil(lambda: login_shown(dlg), timeout=10_000)
        assert rows(dlg)[0] == "Posts (RSS) — subscribed"
        assert ticked(dlg) == ["Members"]  # only what still needs doing
        dlg.username.setText(USER)
        dlg.password.setText(PASSWORD)
        dlg.ok.click()
        qtbot.waitUntil(lambda: win._add_dialog is None, timeout=10_000)
        assert list(kr.data.values()) == [PASSWORD]
    feeds = {f.url: f for f in env.store.feeds()}
    assert set(feeds) == {feed_server.url("/posts.xml"), feed_server.url("/private.xml")}
    assert feeds[feed_server.url("/private.xml")].auth_username == USER
    assert feeds[feed_server.url("/posts.xml")].auth_username is None
    assert len(feed_server.requests_for("/posts.xml")) == 1  # not sent again
    assert env.store.entry_count(feeds[feed_server.url("/private.xml")].id) == 2
