"""``export`` and ``backup`` follow one rule for where they write (audit s33 B:
item 9): folders missing above the file are created, and the output says so; a
folder named as the target, a file where a folder should be, or the database
itself is one line and exit 1, with nothing created. Before: ``backup`` made the
folders silently while ``export`` failed with "No such file or directory", and
``backup`` under a file was a traceback. A real store and real files."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.test_cli import run
from tests.e2e.test_cli_opml import opml

COMMANDS = ["export", "backup"]


@pytest.fixture
def subscribed(capsys, tmp_path, data) -> str:
    src = tmp_path / "in.opml"
    src.write_bytes(opml(2))
    code, _, err = run(capsys, "import", "--no-fetch", str(src), "--data-dir", data)
    assert code == 0, err
    return data


def _written(command: str, dest: Path) -> None:
    if command == "export":
        assert dest.read_text(encoding="utf-8").count("xmlUrl=") == 2
    else:
        db = sqlite3.connect(dest)
        try:
            assert db.execute("SELECT count(*) FROM feeds").fetchone()[0] == 2
        finally:
            db.close()


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_folders_are_created_and_named(capsys, tmp_path, subscribed, command) -> None:
    dest = tmp_path / "new" / "sub" / "out.file"
    code, out, err = run(capsys, command, str(dest), "--data-dir", subscribed)
    assert code == 0, err
    first, second = out.splitlines()
    assert first == f"created folders {tmp_path / 'new'}, {tmp_path / 'new' / 'sub'}"
    assert second.endswith(str(dest))
    _written(command, dest)

    one = tmp_path / "one" / "out.file"
    code, out, _ = run(capsys, command, str(one), "--data-dir", subscribed)
    assert code == 0 and out.splitlines()[0] == f"created folder {tmp_path / 'one'}"
    # an existing folder: nothing to say about it
    code, out, _ = run(capsys, command, str(one), "--data-dir", subscribed)
    assert code == 0 and "created" not in out


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("a-folder", "it is a folder"),
        ("a-file/out.file", "Not a directory"),
        ("a-file/deeper/out.file", "Not a directory"),
    ],
)
def test_where_nothing_can_be_written_is_one_line(
    capsys, tmp_path, subscribed, command, target, reason
) -> None:
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("mine")
    before = sorted(tmp_path.rglob("*"))
    dest = tmp_path / target
    code, out, err = run(capsys, command, str(dest), "--data-dir", subscribed)
    assert (code, out, err) == (1, "", f"smartreader: cannot write {dest}: {reason}\n")
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("command", COMMANDS)
def test_folders_made_for_a_write_that_fails_are_taken_away(
    capsys, tmp_path, subscribed, command, monkeypatch
) -> None:
    before = sorted(tmp_path.rglob("*"))

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    dest = tmp_path / "new" / "sub" / "out.file"
    code, out, err = run(capsys, command, str(dest), "--data-dir", subscribed)
    assert code == 1 and "No space left on device" in err and "created" not in out
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("suffix", ["", "-wal"])
def test_a_backup_over_the_database_itself_is_refused(capsys, subscribed, suffix) -> None:
    db = Path(subscribed) / "smartreader.sqlite3"
    dest = Path(subscribed) / ".." / Path(subscribed).name / (db.name + suffix)
    inode = db.stat().st_ino
    code, out, err = run(capsys, "backup", str(dest), "--data-dir", subscribed)
    assert code == 1 and out == ""
    what = "the database itself" if not suffix else "one of the database's own files"
    assert err == f"smartreader: cannot write {dest}: it is {what}; pick another file\n"
    assert db.stat().st_ino == inode  # not renamed over
    assert not Path(f"{db}-wal").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_a_backup_into_a_read_only_folder_gives_the_reason(capsys, tmp_path, subscribed) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, _, err = run(capsys, "backup", str(ro / "b.sqlite3"), "--data-dir", subscribed)
    finally:
        ro.chmod(0o700)
    assert code == 1
    assert err == f"smartreader: cannot write {ro / 'b.sqlite3'}: Permission denied\n"
