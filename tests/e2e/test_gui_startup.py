"""Start-up with a damaged or locked database: explained, never deleted, restorable;
and the rolling backup the app writes when it opens."""

from __future__ import annotations

import sqlite3

import pytest

from smartreader.gui.app import AlreadyRunning, AppController, StartupAborted, create_app
from smartreader.storage import Store, backups, db_path

pytestmark = [pytest.mark.qt_log_ignore("propagateSizeHints")]


def _make_db(folder, n_feeds: int) -> None:
    with Store(db_path(folder)) as store:
        for i in range(n_feeds):
            store.add_feed(f"https://example.org/{i}.xml", title=f"Feed {i}")


def _corrupt(path) -> None:
    with open(path, "r+b") as f:
        f.seek(0)
        f.write(b"this is not a database at all" * 10)


@pytest.fixture
def controller(qtbot):
    asked: list = []
    answers: list[str] = []

    def ask(problem):
        asked.append(problem)
        return answers.pop(0)

    ctl = AppController(create_app(), ask=ask)
    yield ctl, asked, answers
    ctl.close()


def test_opening_writes_a_verified_rolling_backup(controller, tmp_path, qtbot):
    ctl, asked, _ = controller
    _make_db(tmp_path, 2)
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    assert asked == []
    found = backups.list_backups(backups.backups_dir(db_path(tmp_path)))
    assert len(found) == 1 and backups.is_valid_database(found[0].path)


def test_corrupt_database_offers_the_backup_and_keeps_the_damaged_file(controller, tmp_path, qtbot):
    ctl, asked, answers = controller
    _make_db(tmp_path, 3)
    path = db_path(tmp_path)
    with Store(path) as store:
        backups.make_backup(store, now=1_700_000_000.0)
    _corrupt(path)
    answers.append("restore")
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    assert [p.kind for p in asked] == ["corrupt"] and asked[0].can_restore
    assert len(win.store.feeds()) == 3  # the backup's data is back
    kept = list(tmp_path.glob("*.corrupt-*"))
    assert kept and b"not a database" in kept[0].read_bytes()  # never deleted


def test_quitting_at_the_problem_changes_nothing(controller, tmp_path):
    ctl, asked, answers = controller
    _make_db(tmp_path, 1)
    path = db_path(tmp_path)
    _corrupt(path)
    before = path.read_bytes()
    answers.append("quit")
    with pytest.raises(StartupAborted):
        ctl.open(tmp_path)
    assert [p.kind for p in asked] == ["corrupt"]
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_start_empty_sets_the_damaged_file_aside(controller, tmp_path, qtbot):
    ctl, asked, answers = controller
    _make_db(tmp_path, 1)
    _corrupt(db_path(tmp_path))
    answers.append("fresh")
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    assert asked[0].kind == "corrupt" and not asked[0].can_restore
    assert win.store.feeds() == []
    assert list(tmp_path.glob("*.corrupt-*"))


def test_locked_database_offers_retry(controller, tmp_path, qtbot):
    ctl, asked, _ = controller
    _make_db(tmp_path, 1)
    locker = sqlite3.connect(db_path(tmp_path), isolation_level=None)
    locker.execute("PRAGMA locking_mode=EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")

    def release_then_retry(problem):
        asked.append(problem)
        locker.execute("ROLLBACK")
        locker.close()
        return "retry"

    ctl._ask = release_then_retry
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    assert [p.kind for p in asked] == ["locked"]
    assert len(win.store.feeds()) == 1


def test_a_second_start_on_the_same_folder_shows_the_running_window(controller, tmp_path, qtbot):
    """The running one may be hidden in the tray: starting smartreader again (from
    the desktop's menu) brings its window back, and the second one just ends."""
    ctl, _, _ = controller
    _make_db(tmp_path, 1)
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    win.hide()  # closed to the tray
    told: list[str] = []
    second = AppController(create_app(), ask=lambda p: "quit")
    second._ask_already_running = told.append
    with pytest.raises(AlreadyRunning):
        second.open(tmp_path)
    assert told == []  # nothing to explain: the window the user wanted is up
    qtbot.waitUntil(win.isVisible, timeout=5000)
    assert second.window is None and len(win.store.feeds()) == 1
    second.close()
    assert win.isVisible()  # the second's end did not touch the first


def test_second_instance_on_the_same_folder_is_refused(controller, tmp_path, qtbot):
    """One that does not answer (an older version, or stuck): refused, explained."""
    ctl, _, _ = controller
    _make_db(tmp_path, 1)
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    ctl._server.close()  # it does not answer
    told: list[str] = []
    second = AppController(create_app(), ask=lambda p: "quit")
    second._ask_already_running = told.append
    with pytest.raises(StartupAborted, match="already running") as caught:
        second.open(tmp_path)
    assert not isinstance(caught.value, AlreadyRunning)
    assert told and str(tmp_path) in told[0]
    second.close()
    ctl.close()  # releases the lock: a new instance may start
    third = AppController(create_app(), ask=lambda p: "quit")
    qtbot.addWidget(third.open(tmp_path))
    third.close()


def test_a_stray_wal_is_set_aside_and_the_user_told(controller, tmp_path, qtbot):
    """Row 53 in the app: our database, closed cleanly, gets another database's
    -wal beside it. It opens with our feeds, says so, and keeps the stray file."""
    ctl, asked, _ = controller
    _make_db(tmp_path, 2)
    other = tmp_path / "other" / "smartreader.sqlite3"
    other.parent.mkdir()
    with Store(other) as o:
        o._db.execute("PRAGMA wal_autocheckpoint = 0")
        for i in range(5):
            o.add_feed(f"https://theirs.example/{i}.xml")
        with open(str(other) + "-wal", "rb") as f:
            data = f.read()  # taken while it is open: the frames are still in it
    with open(str(db_path(tmp_path)) + "-wal", "wb") as f:
        f.write(data)
    win = ctl.open(tmp_path)
    qtbot.addWidget(win)
    assert asked == []  # not mistaken for a damaged database
    assert sorted(f.url for f in ctl._store.feeds()) == [
        "https://example.org/0.xml",
        "https://example.org/1.xml",
    ]
    notice = ctl._stray_notice
    assert notice.isVisible() and "not applied" in notice.text()
    kept = list((tmp_path / "backups").glob("stray-wal-*/smartreader.sqlite3-wal"))
    assert len(kept) == 1 and kept[0].read_bytes() == data


def test_an_unusable_data_folder_is_a_clear_error_not_a_traceback(controller, tmp_path):
    """open() raises the SmartReaderError that run() shows without a traceback."""
    from smartreader.errors import StorageError

    (tmp_path / "file").write_text("")
    with pytest.raises(StorageError, match="a file is in the way"):
        controller[0].open(tmp_path / "file")
