"""Feed ▸ Pause updates: no scheduled fetch while paused, across a restart;
Refresh still fetches on request; resuming fetches what is due. Real window,
real scheduler thread, real HTTP on 127.0.0.1."""

from __future__ import annotations

from smartreader.gui.activity import PAUSED_NOTE
from smartreader.gui.prefs import Prefs
from tests.httpserver import FeedServer, Reply

AS_RSS = {"Content-Type": "application/rss+xml"}
RSS = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
    b"<item><guid>a</guid><title>A</title></item></channel></rss>"
)


def _feed(env, feed_server: FeedServer) -> int:
    feed_server.route("/f.xml", Reply(body=RSS, headers=AS_RSS))
    fid = env.store.add_feed(feed_server.url("/f.xml"), title="F")  # never fetched: due
    env.updater.feed_changed(fid)  # as an OPML import tells the scheduler
    return fid


def test_paused_updates_fetch_nothing_until_resumed(env, qtbot, feed_server):
    _feed(env, feed_server)
    win = env.window()
    assert not win.act_pause.isChecked()
    qtbot.waitUntil(lambda: len(feed_server.requests_for("/f.xml")) == 1, timeout=30_000)
    win.act_pause.trigger()
    qtbot.waitUntil(lambda: win.next_label.text() == "Updates paused", timeout=5000)
    assert "only when you refresh" in win.next_label.toolTip()
    assert Prefs.in_dir(env.tmp_path).get("updates/paused") is True
    win.close()

    before = len(feed_server.requests_for("/f.xml"))
    win = env.window()  # a restart: still paused
    assert win.act_pause.isChecked()
    qtbot.waitUntil(lambda: win.next_label.text() == "Updates paused", timeout=5000)
    qtbot.wait(1500)
    assert len(feed_server.requests_for("/f.xml")) == before

    with qtbot.wait_signal(win.sched.updateFinished, timeout=30_000):
        win.act_refresh_all.trigger()  # the user's own refresh still goes out
    assert len(feed_server.requests_for("/f.xml")) == before + 1
    assert win.next_label.text() == "Updates paused"

    win.act_pause.trigger()  # resume
    assert Prefs.in_dir(env.tmp_path).get("updates/paused") is False
    qtbot.waitUntil(lambda: win.next_label.text() != "Updates paused", timeout=5000)
    assert win.next_label.toolTip() == ""


def test_a_new_feed_due_now_is_fetched_once_resumed(env, qtbot, feed_server):
    Prefs.in_dir(env.tmp_path).set("updates/paused", True)
    _feed(env, feed_server)
    win = env.window()
    assert win.act_pause.isChecked()
    qtbot.waitUntil(lambda: win.next_label.text() == "Updates paused", timeout=5000)
    qtbot.wait(1500)
    assert feed_server.requests_for("/f.xml") == []
    win.act_pause.trigger()
    qtbot.waitUntil(lambda: len(feed_server.requests_for("/f.xml")) == 1, timeout=30_000)


def test_the_pause_is_in_the_feed_menu_and_the_tray_menu(env, qtbot):
    win = env.window()
    feed_menu = next(
        a.menu() for a in win.menuBar().actions() if a.text().replace("&", "") == "Feed"
    )
    assert win.act_pause in feed_menu.actions()
    if win.tray.menu is not None:  # no system tray under the offscreen platform
        texts = [a.text() for a in win.tray.menu.actions()]
        assert texts.index(win.act_pause.text()) < texts.index("Quit")


def test_the_activity_notes_say_the_plan_waits(env, qtbot, feed_server):
    fid = _feed(env, feed_server)
    Prefs.in_dir(env.tmp_path).set("updates/paused", True)
    win = env.window()
    win.tabs.setCurrentWidget(win.activity)
    win.activity.set_feed(None)
    assert PAUSED_NOTE in win.activity.overview.notes.text()
    win.activity.set_feed(fid)
    assert PAUSED_NOTE in win.activity.feed_view.notes.text()
    win.act_pause.trigger()  # resumed: the note goes
    assert PAUSED_NOTE not in win.activity.feed_view.notes.text()
    win.activity.set_feed(None)
    assert PAUSED_NOTE not in win.activity.overview.notes.text()


def test_the_tray_knows_of_the_pause(env, qtbot):
    Prefs.in_dir(env.tmp_path).set("updates/paused", True)
    win = env.window()
    assert win.tray.paused
    win.act_pause.trigger()
    assert not win.tray.paused
