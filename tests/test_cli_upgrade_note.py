"""A command meeting a database an older version wrote says it is upgrading it
(schema v12 re-indexes every article: a minute on a large one, which looked like
a hang), once; the output itself is as always. Real golden databases."""

from __future__ import annotations

import shutil
from pathlib import Path

from smartreader.cli import main
from smartreader.storage import db_path

GOLDEN = Path(__file__).parent / "storage" / "golden"


def test_an_upgrade_is_said_once(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copyfile(GOLDEN / "v10.sqlite3", db_path(folder))
    assert main(["feeds", "--data-dir", str(folder)]) == 0
    first = capsys.readouterr()
    assert first.err.splitlines() == [
        "note: updating the database for this version of smartreader (a copy as it was "
        f"goes to {folder / 'backups'}); with many articles this takes a minute"
    ]
    assert main(["feeds", "--data-dir", str(folder)]) == 0
    again = capsys.readouterr()
    assert again.err == "" and again.out == first.out
