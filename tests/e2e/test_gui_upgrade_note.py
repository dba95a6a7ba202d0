"""A database an older version wrote is upgraded before the window opens, with a
note on screen (``AppController._upgrade``). Before, the upgrade ran with nothing
shown: schema v12 re-indexes every article, and on a large database (20,000
articles took 12 s here) the start looked hung. Real SQLite files (the golden
databases of older releases), real widgets offscreen."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog

from smartreader.errors import StorageError
from smartreader.gui.app import AppController, create_app
from smartreader.storage import db_path
from smartreader.storage.schema import SCHEMA_VERSION
from smartreader.storage.store import Store

GOLDEN = Path(__file__).parents[1] / "storage" / "golden"


@pytest.fixture
def controller(qtbot):
    ctl = AppController(create_app(), ask=lambda problem: "quit")
    yield ctl
    ctl.close()


def _old(folder: Path, version: int = 11) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(GOLDEN / f"v{version}.sqlite3", db_path(folder))
    return db_path(folder)


def _slow_migration(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The upgrade of a large database, in a test's time."""
    migrate = Store._migrate

    def slow(self: Store, version: int) -> None:
        time.sleep(seconds)
        migrate(self, version)

    monkeypatch.setattr(Store, "_migrate", slow)


def test_an_old_database_is_upgraded_with_a_note_on_screen(
    controller: AppController, tmp_path: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _old(tmp_path / "data")
    _slow_migration(monkeypatch, 0.6)
    seen: list[str] = []

    def look() -> None:  # what the screen shows while the upgrade runs
        for w in QApplication.topLevelWidgets():
            if isinstance(w, QProgressDialog) and w.isVisible():
                seen.append(w.labelText())
                w.grab().save(str(tmp_path / "upgrade-note.png"))

    QTimer.singleShot(300, look)
    win = controller.open(tmp_path / "data")
    qtbot.addWidget(win)
    assert controller.upgraded_from == 11
    assert [n.split(chr(10))[0] for n in controller.notes_seen] == [
        "Updating your data for this version of smartreader…"
    ]
    assert seen and "Updating your data for this version" in seen[0]
    assert str(tmp_path / "data" / "backups") in seen[0]
    assert not any(
        isinstance(w, QProgressDialog) and w.isVisible() for w in QApplication.topLevelWidgets()
    )
    assert int(win.store._q("PRAGMA user_version")[0][0]) == SCHEMA_VERSION
    assert win.store.search_ids("strasse") == win.store.search_ids("Straße") != set()
    assert list((tmp_path / "data" / "backups").glob("pre-migration-v11-*.sqlite3"))
    assert path.exists()


def test_a_current_database_opens_without_a_note(
    controller: AppController, tmp_path: Path, qtbot
) -> None:
    Store(db_path(tmp_path / "data")).close()
    win = controller.open(tmp_path / "data")
    qtbot.addWidget(win)
    assert controller.upgraded_from is None and controller.notes_seen == []


def test_a_failed_upgrade_is_the_error_opening_gives_and_the_file_stays_old(
    controller: AppController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _old(tmp_path / "data", 10)

    def full(self: Store, version: int) -> None:
        raise StorageError("the disk is full: nothing was written and nothing stored was lost")

    monkeypatch.setattr(Store, "_migrate", full)
    with pytest.raises(StorageError, match="the disk is full"):
        controller.open(tmp_path / "data")
    assert controller.upgraded_from is None
    monkeypatch.undo()
    with Store(path) as store:  # the next start upgrades it
        assert int(store._q("PRAGMA user_version")[0][0]) == SCHEMA_VERSION
