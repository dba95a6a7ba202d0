"""A data folder that cannot be used (a file in the way, a folder above it that
is a file, no permission) is one clear line naming the folder and how to choose
another, exit status 1, nothing created; before, every command printed a
15-line traceback from mkdir. A folder that cannot be written is named as such."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from smartreader.cli import main
from smartreader.errors import ReadOnlyDataError, StorageError
from smartreader.storage import db_path
from smartreader.storage.store import Store
from tests.readonly import read_only


@pytest.mark.parametrize("where", ["file", "file/sub"])
def test_cli_names_the_unusable_data_folder_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    (tmp_path / "file").write_text("not a folder")
    folder = tmp_path / where
    assert main(["feeds", "--data-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"smartreader: cannot use the data folder {folder}: a file is in the way (it is not "
        "a folder, or a folder above it is a file); choose another with --data-dir or "
        "SMARTREADER_DATA_DIR"
    ]
    assert (tmp_path / "file").read_text() == "not a folder"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_without_permission_says_so(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(StorageError, match=r"data folder .*locked/data: Permission denied"):
            Store(locked / "data" / "db.sqlite3")
    finally:
        locked.chmod(0o700)


def test_the_environment_variable_is_checked_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("SMARTREADER_DATA_DIR", str(tmp_path / "file"))
    assert main(["entries"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "cannot use the data folder" in err


# -- a data folder that cannot be written -------------------------------------------------
# Before, the CLI logged "cannot remove …sqlite3.closed: [Errno 30] Read-only file
# system" and then said "cannot use database …: unable to open database file"; the
# app said another smartreader was running with the folder. Commands that only read
# now read a read-only folder's database as it is.


def _subscribed(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    with Store(db_path(folder)) as store:
        store.add_feed("https://example.org/feed.xml", title="Kept", folder="News")
    return db_path(folder)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


READ_ONLY = "is read-only (or cannot be written)"


@pytest.mark.parametrize("command", [["add", "https://example.org/other.xml"], ["update"]])
def test_a_command_that_writes_names_the_read_only_folder(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    command: list[str],
) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    before = _files(folder)
    with read_only(folder):
        assert main([*command, "--data-dir", str(folder)]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"smartreader: the data folder {folder} {READ_ONLY}: ")
    assert line.endswith("; make it writable, or choose another with --data-dir or "
                         "SMARTREADER_DATA_DIR")  # fmt: skip
    assert "cannot remove" not in caplog.text  # walguard's marker is not even tried
    assert _files(folder) == before


def test_commands_that_only_read_work_on_a_read_only_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    before = _files(folder)
    out = tmp_path / "out"
    with read_only(folder):
        capsys.readouterr()
        assert main(["feeds", "--data-dir", str(folder)]) == 0
        feeds = capsys.readouterr()
        assert main(["entries", "--data-dir", str(folder)]) == 0
        assert main(["export", str(out / "subs.opml"), "--data-dir", str(folder)]) == 0
        assert main(["backup", str(out / "copy.sqlite3"), "--data-dir", str(folder)]) == 0
        err = capsys.readouterr().err
    assert feeds.out.strip() == "[   1] News/Kept (0 unread)"
    note = f"note: the data folder {folder} is read-only: reading the database, changing nothing"
    assert feeds.err.strip() == note and err.count(note) == 3
    assert "https://example.org/feed.xml" in (out / "subs.opml").read_text()
    with Store(out / "copy.sqlite3", readonly=True) as copy:
        assert [f.title for f in copy.feeds()] == ["Kept"]
    assert _files(folder) == before


def test_a_read_only_database_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _subscribed(tmp_path / "data")
    with read_only(db):
        with pytest.raises(ReadOnlyDataError, match=f"the database {db} is read-only"):
            Store(db)
        assert main(["feeds", "--data-dir", str(db.parent)]) == 0
    assert "News/Kept" in capsys.readouterr().out


def test_a_read_only_folder_is_not_read_past_a_write_ahead_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A -wal beside the database (a crash's last changes, or a stray one) needs a
    writable folder to be applied or set aside: not read around, refused."""
    live = tmp_path / "live"
    store = Store(_subscribed(live))
    store._db.execute("PRAGMA wal_autocheckpoint = 0")
    store.add_feed("https://example.org/late.xml")
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("smartreader.sqlite3", "smartreader.sqlite3-wal"):  # as a crash leaves them
        (folder / name).write_bytes((live / name).read_bytes())
    store.close()
    with read_only(folder):
        assert main(["feeds", "--data-dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"smartreader: the data folder {folder} {READ_ONLY}")


def test_an_empty_read_only_folder_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with read_only(folder):
        # a command that starts a collection there (one that only reads finds no data)
        assert main(["budget", "500", "--data-dir", str(folder)]) == 1
    assert f"the data folder {folder} {READ_ONLY}" in capsys.readouterr().err
    assert list(folder.iterdir()) == []
