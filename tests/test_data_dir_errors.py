"""A data folder that cannot be used (a file in the way, a folder above it that
is a file, no permission) is one clear line naming the folder and how to choose
another, exit status 1, nothing created; before, every command printed a
15-line traceback from mkdir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from smartreader.cli import main
from smartreader.errors import StorageError
from smartreader.storage.store import Store


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
