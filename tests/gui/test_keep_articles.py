"""How long articles are kept: chosen in Settings, asked before a shorter limit
deletes anything, applied by the scheduler's thread, and the window follows.

Real SQLite file, real ``Updater`` and worker thread; the feeds' hosts are
``.invalid`` and polling stays off, so nothing touches the network."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from smartreader.gui.settings import SettingsDialog
from smartreader.gui.worker import SchedulerThread
from smartreader.storage import FetchRecord, Store
from smartreader.updater import KEEP_READ_DAYS, KEEP_UNREAD_DAYS, LAST_CLEANUP, Updater
from tests.storage.test_store import entry

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

DAY = 86400.0
# the feed has no login: what the dialog asks of the keyring, answered without one
CREDS = SimpleNamespace(keyring_available=lambda: True, kept_for_session=lambda *_: False)


def _dialog(qtbot, request, store, answers: list[bool], asked: list[str]):
    up = Updater(store)
    request.addfinalizer(up.close)

    def confirm(_parent, _title, text):
        asked.append(text)
        return answers.pop(0)

    dlg = SettingsDialog(store, up, prefs={}, confirm=confirm)
    qtbot.addWidget(dlg)
    return dlg


def test_the_dialog_shows_the_limits_and_what_the_database_holds(qtbot, request, store, aged):
    store.set_setting(KEEP_UNREAD_DAYS, 45)  # set from the command line
    dlg = _dialog(qtbot, request, store, [], [])
    assert dlg.keep_read.currentText() == "3 months"  # a new database's default
    assert dlg.keep_unread.currentText() == "45 days"
    assert dlg.keep_days() == (90.0, 45.0)
    assert "Starred articles are always kept" in dlg.data_info.text()
    assert "holds 6 articles in" in dlg.data_info.text()
    dlg.keep_read.setCurrentIndex(dlg.keep_read.findText("Always"))
    dlg._restore_defaults()
    assert dlg.keep_days() == (90.0, 0.0)


def test_a_shorter_limit_asks_first_and_no_keeps_everything(qtbot, request, store, aged):
    asked: list[str] = []
    dlg = _dialog(qtbot, request, store, [False], asked)
    dlg.keep_read.setCurrentIndex(dlg.keep_read.findText("1 month"))
    with qtbot.assert_not_emitted(dlg.keepChanged):
        dlg.accept()
    # one read, unstarred article is older than a month
    assert asked == [
        "With these limits, 1 article will be deleted now. Starred articles are "
        "always kept. Delete them?"
    ]
    assert dlg.result() == 0 and store.get_setting(KEEP_READ_DAYS) is None
    assert store.entry_count() == 6


def test_a_longer_limit_deletes_nothing_and_asks_nothing(qtbot, request, store, aged):
    asked: list[str] = []
    dlg = _dialog(qtbot, request, store, [], asked)
    dlg.keep_read.setCurrentIndex(dlg.keep_read.findText("1 year"))
    with qtbot.wait_signal(dlg.keepChanged, timeout=1000):
        dlg.accept()
    assert asked == [] and store.get_setting(KEEP_READ_DAYS) == 365.0


def _window(qtbot, request, store, tmp_path):
    from smartreader.gui.mainwindow import MainWindow
    from smartreader.gui.prefs import Prefs

    up = Updater(store)
    request.addfinalizer(up.close)
    win = MainWindow(
        store,
        up,
        prefs=Prefs.in_dir(tmp_path),
        tray=False,
        scheduler_options={"autostart_polling": False},
    )
    qtbot.addWidget(win)
    request.addfinalizer(win.close)
    return win


def test_the_window_follows_when_old_articles_are_deleted(qtbot, request, store, aged, tmp_path):
    win = _window(qtbot, request, store, tmp_path)
    sched = win.sched
    # The worker's start-up clean-up first: run late (a loaded machine), it fell
    # between the dialog's two limit writes and deleted 1 article with only the
    # new read limit set, so the purge this test waits for found 2, not 3.
    qtbot.wait_until(lambda: store.get_setting(LAST_CLEANUP) is not None, timeout=5000)
    win.select_key("smart:all")
    assert win.list_model.rowCount() == 6
    assert win.tree_model.total_unread() == 3

    asked: list[str] = []
    dlg = win.open_settings()
    dlg._confirm = lambda _p, _t, text: asked.append(text) or True
    dlg.keep_read.setCurrentIndex(dlg.keep_read.findText("1 month"))
    dlg.keep_unread.setCurrentIndex(dlg.keep_unread.findText("1 month"))
    with qtbot.wait_signal(sched.entriesPurged, timeout=5000) as purged:
        dlg.accept()

    assert "3 articles will be deleted now" in asked[0]  # 1 read + 2 unread, the starred one kept
    assert purged.args == [3]
    qtbot.wait_until(lambda: win.list_model.rowCount() == 3)
    assert win.tree_model.total_unread() == 1
    assert "Deleted 3 old articles" in win.statusBar().currentMessage()
    assert store.get_setting(KEEP_UNREAD_DAYS) == 30.0


def test_the_scheduler_thread_deletes_old_articles_by_itself(qtbot, request, store):
    """No one opens Settings: a new database keeps read articles 3 months, and
    the worker applies that at start and once a day (even with polling paused)."""
    now = time.time()
    fid = store.add_feed("https://news.invalid/feed.xml", title="News", now=now - 100 * DAY)
    store.record_fetch(
        FetchRecord(fid, now - 100 * DAY, "ok", entries=[entry("a"), entry("b"), entry("c")])
    )
    store.set_read(store.entry_ids(feed_ids=[fid])[:2], True)
    up = Updater(store)
    request.addfinalizer(up.close)
    sched = SchedulerThread(up, autostart_polling=False)
    request.addfinalizer(sched.shutdown)
    with qtbot.wait_signal(sched.entriesPurged, timeout=5000) as purged:
        sched.start()
    assert purged.args == [2]
    assert store.entry_count() == 1


@pytest.mark.parametrize("width", [560, 700])
def test_the_dialog_shrunk_to_its_minimum_keeps_its_rows_apart(qtbot, request, store, aged, width):
    """Its wrapped labels made the layout's own minimum too small: the chart lay
    over the minimum-interval row below it. Shorter than its groups, it scrolls
    them (a 1080p laptop at 150 % has ~650 px; OK and Cancel were off screen)."""
    dlg = _dialog(qtbot, request, store, [], [])
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.resize(width, 100)
    qtbot.wait_until(lambda: dlg.width() == width)

    def box(w):
        top = w.mapTo(dlg, w.rect().topLeft()).y()
        return top, top + w.height()

    chart, below = box(dlg.curve), box(dlg.min_interval)
    assert chart[1] <= below[0], (chart, below)
    assert dlg.curve.height() >= dlg.curve.minimumHeight()
    # the groups scroll above the buttons, and the last row is within reach
    bar = dlg.pages.verticalScrollBar()
    qtbot.wait_until(bar.isVisible)
    assert box(dlg.pages)[1] <= box(dlg.buttons)[0]
    bar.setValue(bar.maximum())
    assert box(dlg.pages)[0] <= box(dlg.data_info)[0]
    assert box(dlg.data_info)[1] <= box(dlg.pages.viewport())[1] <= box(dlg.buttons)[0]


def _space_left_by_deleting(store) -> None:
    """3,000 read articles of ~2 KB deleted: their pages are free, the file as big."""
    from tests.storage.test_purge import T0, _big_feed

    _big_feed(store, 3000)
    store.mark_all_read()
    store.purge_old(T0 + 200 * DAY, read_days=90)
    assert store.file_bytes() - store.used_bytes() > 3_000_000


def test_compact_in_settings_gives_the_space_back(qtbot, request, tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    request.addfinalizer(store.close)
    _space_left_by_deleting(store)
    win = _window(qtbot, request, store, tmp_path)
    dlg = win.open_settings()
    assert dlg.compact.isVisibleTo(dlg) and dlg.compact.isEnabled()
    assert "compacting gives about" in dlg.data_info.text()
    before = store.file_bytes()
    with qtbot.wait_signal(win.sched.compactFinished, timeout=20_000) as done:
        dlg.compact.click()
        assert not dlg.compact.isEnabled() and dlg.compact.text() == "Compacting…"
    assert done.args[0]["error"] is None and done.args[0]["before"] >= before
    assert store.file_bytes() < before / 4
    qtbot.wait_until(lambda: not dlg.compact.isVisibleTo(dlg))
    assert "compacting" not in dlg.data_info.text()
    assert "Compacted the database:" in win.statusBar().currentMessage()
    assert store.integrity_check() == "ok"
    # Done before COMPACT_BOX_MS: the "window waits" box never showed.
    assert not win._compact_box.isVisible() and not win._compact_box._show_timer.isActive()


def test_a_long_compaction_says_the_window_waits_and_can_be_stopped(
    qtbot, request, tmp_path, monkeypatch
):
    """Every write waits for a compaction (opening an article marks it read): past
    a moment the window says so in a modal box whose Stop leaves the database as
    it was, and the window can be used at once after."""
    from smartreader.gui import mainwindow

    monkeypatch.setattr(mainwindow, "COMPACT_BOX_MS", 50)
    store = Store(tmp_path / "db.sqlite3")
    request.addfinalizer(store.close)
    _space_left_by_deleting(store)
    n, size = store.entry_count(), store.file_bytes()
    win = _window(qtbot, request, store, tmp_path)
    dlg = win.open_settings()

    def slow() -> int:  # a big database: VACUUM takes seconds
        time.sleep(0.001)
        return 0

    store._db.set_progress_handler(slow, 50)
    request.addfinalizer(lambda: store._db.set_progress_handler(None, 0))
    dlg.compact.click()
    box = win._compact_box
    qtbot.wait_until(box.isVisible, timeout=5000)
    assert box.isModal() and box.stop.isEnabled()
    assert "Articles can be opened and marked again" in box.label.text()
    with qtbot.wait_signal(win.sched.compactFinished, timeout=20_000) as done:
        box.stop.click()
        assert not box.stop.isEnabled() and box.label.text().startswith("Stopping")
    assert done.args[0]["error"] == "compacting was stopped; nothing changed"
    qtbot.wait_until(lambda: not box.isVisible())
    store._db.set_progress_handler(None, 0)
    assert win.statusBar().currentMessage() == "Stopped compacting the database: nothing changed"
    assert dlg.data_info.text().startswith("Compacting stopped: nothing changed")
    assert dlg.compact.isEnabled()  # it can be tried again
    assert store.entry_count() == n and store.file_bytes() >= size
    assert store.integrity_check() == "ok"
    assert store.add_feed("https://later.example/feed")  # the store takes writes again

    # Escape means Stop too: the box never hides while the compaction goes on.
    store._db.set_progress_handler(slow, 50)
    dlg.compact.click()
    qtbot.wait_until(box.isVisible, timeout=5000)
    with qtbot.wait_signal(win.sched.compactFinished, timeout=20_000) as done:
        box.reject()
        assert box.isVisible() and not box.stop.isEnabled()
    assert done.args[0]["error"] == "compacting was stopped; nothing changed"
    qtbot.wait_until(lambda: not box.isVisible())


def test_compact_that_fails_says_why_and_can_be_retried(qtbot, request, tmp_path):
    import sqlite3

    store = Store(tmp_path / "db.sqlite3", busy_timeout=0.2)
    request.addfinalizer(store.close)
    _space_left_by_deleting(store)
    n = store.entry_count()
    win = _window(qtbot, request, store, tmp_path)
    dlg = win.open_settings()
    other = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
    request.addfinalizer(other.close)
    other.execute("BEGIN IMMEDIATE")  # another program is writing
    with qtbot.wait_signal(win.sched.compactFinished, timeout=20_000) as done:
        dlg.compact.click()
    other.execute("ROLLBACK")
    assert "busy" in done.args[0]["error"]
    qtbot.wait_until(lambda: dlg.compact.isEnabled())
    assert dlg.data_info.text().startswith("Compacting failed: the database is busy")
    assert "Compacting the database failed" in win.statusBar().currentMessage()
    assert store.entry_count() == n and store.integrity_check() == "ok"


def test_quitting_stops_a_compaction_and_loses_nothing(qtbot, request, tmp_path):
    from smartreader.gui.worker import SchedulerWorker

    store = Store(tmp_path / "db.sqlite3")
    request.addfinalizer(store.close)
    _space_left_by_deleting(store)
    up = Updater(store)
    request.addfinalizer(up.close)
    worker = SchedulerWorker(up, autostart_polling=False)
    calls = []

    def quit_midway() -> int:
        calls.append(1)
        if len(calls) == 20:
            worker.request_stop()  # the window closes while VACUUM runs
        return 0

    store._db.set_progress_handler(quit_midway, 100)
    request.addfinalizer(lambda: store._db.set_progress_handler(None, 0))
    size = store.file_bytes()
    with qtbot.wait_signal(worker.compactFinished, timeout=20_000) as done:
        worker.compact()
    assert done.args[0]["error"] == "compacting was stopped; nothing changed"
    assert store.file_bytes() >= size and store.integrity_check() == "ok"
    worker.compact()  # a stopping worker starts nothing new
    assert len(calls) >= 20 and store.file_bytes() >= size


def test_a_feed_keeps_its_read_articles_as_its_properties_say(
    qtbot, request, store, aged, tmp_path
):
    from smartreader.gui.dialogs import FeedPropertiesDialog

    other = store.add_feed("https://other.invalid/feed.xml", title="Other")
    store.record_fetch(
        FetchRecord(other, time.time() - 40 * DAY, "ok", entries=[entry("o1"), entry("o2")])
    )
    store.set_read([i for i in store.entry_ids(feed_ids=[other]) if store.entry(i).uid == "o1"])
    asked: list[str] = []
    answers = [False, True]

    def confirm(_parent, _title, text):
        asked.append(text)
        return answers.pop(0)

    dlg = FeedPropertiesDialog(store, aged, overlaps=[], credentials=CREDS, confirm=confirm)
    qtbot.addWidget(dlg)
    assert dlg.keep.currentText() == "As in Settings (3 months)"
    dlg.keep.setCurrentIndex(dlg.keep.findText("1 week"))
    dlg.save()  # declined: nothing saved, the dialog stays open
    assert "1 article of this feed will be deleted now" in asked[0]  # old0; old1 is starred
    assert store.feed(aged).keep_days is None and dlg.result() == 0
    dlg.save()
    assert store.feed(aged).keep_days == 7.0 and dlg.keep_changed and dlg.result() == 1

    # The scheduler's thread applies it at once; Settings' 3 months keep the other feed's.
    win = _window(qtbot, request, store, tmp_path)
    with qtbot.wait_signal(win.sched.entriesPurged, timeout=5000) as purged:
        win.sched.cleanup_now()
    assert purged.args == [1]
    assert {store.entry(i).uid for i in store.entry_ids()} == {
        "old1", "old2", "old3", "new0", "new1", "o1", "o2"
    }  # fmt: skip

    # "Always" keeps even unread articles that Settings would delete.
    store.set_setting(KEEP_UNREAD_DAYS, 30)
    again = FeedPropertiesDialog(store, aged, overlaps=[], credentials=CREDS, confirm=confirm)
    qtbot.addWidget(again)
    assert again.keep.currentText() == "1 week"
    again.keep.setCurrentIndex(again.keep.findData(0.0))
    again.save()
    assert store.feed(aged).keep_days == 0.0 and len(asked) == 2  # deletes nothing: no question
    with qtbot.wait_signal(win.sched.entriesPurged, timeout=5000) as purged:
        win.sched.cleanup_now()
    assert purged.args == [1]  # the other feed's unread one, 40 days old
    assert {"old2", "old3"} <= {store.entry(i).uid for i in store.entry_ids()}
    assert "o2" not in {store.entry(i).uid for i in store.entry_ids()}
