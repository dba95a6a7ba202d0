"""A data folder the user named that holds no database is one line, and nothing is
made there; the platform's own folder with none answers as an empty database
would, making nothing. Before: ``smartreader --data-dir /tmp/typo feeds`` (or
``entries``, ``explain 3``, ``export``, ``backup``, ``budget``, ``remove``,
``cleanup``, ``update``) made ``/tmp/typo/smartreader.sqlite3`` and listed nothing.

Also: ``explain`` and ``budget`` (shown) read a read-only data folder, as the other
commands that only read do; a locked database is not promised a retry the CLI
never makes; and a keep period of one day is "1 day", not "1 days"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import platformdirs
import pytest

from smartreader import cli
from smartreader.cli import main
from smartreader.storage import data_dir, db_path
from smartreader.storage.store import Store
from smartreader.updater import UpdateResult
from tests.readonly import read_only
from tests.test_data_dir_errors import _files, _subscribed


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# -- a named folder with no database -----------------------------------------------------

# Every command that reads, or needs data to work on; "out/…": what export and
# backup would write (and the folder they would make for it).
NEEDS_DATA = [
    ["feeds"],
    ["feeds", "--json"],
    ["entries"],
    ["entries", "--feed", "3"],
    ["explain", "3"],
    ["explain", "3", "--json"],
    ["export", "{out}/subs.opml"],
    ["backup", "{out}/copy.sqlite3"],
    ["budget"],
    ["remove", "3"],
    ["remove", "-y", "3"],
    ["cleanup"],
    ["cleanup", "--compact"],
    ["update"],
    ["update", "3"],
    ["update", "--due"],
]


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMARTREADER_DATA_DIR", raising=False)


@pytest.mark.usefixtures("no_env")
@pytest.mark.parametrize("exists", [False, True], ids=["no-folder", "empty-folder"])
@pytest.mark.parametrize("command", NEEDS_DATA, ids=" ".join)
def test_a_mistyped_data_dir_is_one_line_and_makes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], exists: bool
) -> None:
    typo = tmp_path / "typo"
    if exists:
        typo.mkdir()
    argv = [a.format(out=tmp_path / "out") for a in command]
    before = _tree(tmp_path)
    assert main(["--data-dir", str(typo), *argv]) == 1  # before the command too
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [f"smartreader: no smartreader data in {typo} (check --data-dir)"]
    assert _tree(tmp_path) == before
    # after the command's name alike
    assert main([*argv, "--data-dir", str(typo)]) == 1
    assert "no smartreader data in" in capsys.readouterr().err
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("command", [["feeds"], ["budget"], ["remove", "-y", "1"]], ids=" ".join)
def test_the_environment_variable_is_named_when_it_holds_no_data(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    typo = tmp_path / "typo"
    monkeypatch.setenv("SMARTREADER_DATA_DIR", str(typo))
    assert main(command) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"smartreader: no smartreader data in {typo} (check SMARTREADER_DATA_DIR)"
    ]
    assert not typo.exists()


def _opml(tmp_path: Path) -> Path:
    src = tmp_path / "one.opml"
    src.write_text(
        '<?xml version="1.0"?><opml version="2.0"><body>'
        '<outline type="rss" text="Only" xmlUrl="https://e.example/feed"/></body></opml>'
    )
    return src


@pytest.mark.usefixtures("no_env")
@pytest.mark.parametrize(
    "command",
    [["import", "--no-fetch", "{opml}"], ["budget", "500"], ["cleanup", "--read-days", "30"]],
    ids=" ".join,
)
def test_commands_that_start_a_collection_still_make_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    new = tmp_path / "new" / "data"
    argv = [a.format(opml=_opml(tmp_path)) for a in command]
    assert main([*argv, "--data-dir", str(new)]) == 0
    assert db_path(new).is_file()
    capsys.readouterr()
    assert main(["feeds", "--json", "--data-dir", str(new)]) == 0  # now there is data
    assert capsys.readouterr().out.strip().startswith("[")


@pytest.mark.usefixtures("no_env")
def test_a_data_dir_with_a_database_is_read_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    assert main(["feeds", "--data-dir", str(folder)]) == 0
    assert capsys.readouterr().out.strip() == "[   1] News/Kept (0 unread)"


# -- the platform's own folder, with nothing in it yet -----------------------------------


@pytest.fixture
def default_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The platform's user data folder, moved into the test's folder (never the
    user's own)."""
    monkeypatch.delenv("SMARTREADER_DATA_DIR", raising=False)
    home = tmp_path / "platform"
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(home / "smartreader"))
    assert data_dir() == home / "smartreader"
    return home / "smartreader"


def _made_nothing(default_folder: Path) -> None:
    assert not default_folder.parent.exists(), "a command made the default data folder"


def test_feeds_on_a_fresh_install_lists_nothing_and_makes_nothing(
    default_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["feeds"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "no subscriptions yet: add one with `smartreader add ADDRESS`" in err
    assert main(["feeds", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    _made_nothing(default_folder)


@pytest.mark.parametrize(
    ("command", "code", "said"),
    [
        (["entries"], 0, ""),
        (["entries", "--json"], 0, "[]"),
        (["budget"], 0, "no delay to expect: no feeds to fetch"),
        (["update"], 0, "updated 0 feeds"),
        (["update", "--due"], 0, "updated 0 feeds"),
        (["cleanup"], 0, "deleted 0 read and 0 unread articles; 0 kept"),
        (["explain", "3"], 1, "smartreader: no feed with id 3"),
        (["remove", "-y", "3"], 1, "smartreader: no feed with id 3"),
        (["entries", "--feed", "3"], 1, "smartreader: no feed with id 3"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_other_commands_on_a_fresh_install_answer_as_an_empty_database(
    default_folder: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    code: int,
    said: str,
) -> None:
    assert main(command) == code
    out, err = capsys.readouterr()
    assert said in out + err
    assert "no smartreader data" not in err and "Traceback" not in err
    _made_nothing(default_folder)


def test_export_and_backup_on_a_fresh_install_write_only_their_file(
    default_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out" / "subs.opml"
    assert main(["export", str(target)]) == 0
    assert "exported 0 feeds" in capsys.readouterr().out
    assert "<opml" in target.read_text()
    copy = tmp_path / "out" / "copy.sqlite3"
    assert main(["backup", str(copy)]) == 0  # an empty database's copy
    assert capsys.readouterr().out == f"backup written to {copy}\n"
    with Store(copy, readonly=True) as store:
        assert store.feeds() == []
    _made_nothing(default_folder)


def test_a_fresh_install_starts_with_add_or_import(
    default_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", "--no-fetch", str(_opml(tmp_path))]) == 0
    assert db_path(default_folder).is_file()
    capsys.readouterr()
    assert main(["feeds"]) == 0
    assert "Only" in capsys.readouterr().out


# -- explain and budget on a read-only folder ---------------------------------------------

NOTE = "note: the data folder {} is read-only: reading the database, changing nothing"


def test_explain_reads_a_read_only_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    before = _files(folder)
    with read_only(folder):
        capsys.readouterr()
        assert main(["explain", "1", "--data-dir", str(folder)]) == 0
        out, err = capsys.readouterr()
        assert main(["explain", "1", "--json", "--data-dir", str(folder)]) == 0
        json_out = capsys.readouterr().out
    assert out.startswith("[1] Kept <https://example.org/feed.xml>\n")
    assert "next planned fetches:" in out
    assert err.strip() == NOTE.format(folder)
    assert '"rate_per_day"' in json_out
    assert _files(folder) == before


def test_budget_shown_reads_a_read_only_folder_and_a_new_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    before = _files(folder)
    with read_only(folder):
        capsys.readouterr()
        assert main(["budget", "--data-dir", str(folder)]) == 0
        out, err = capsys.readouterr()
        assert main(["budget", "500", "--data-dir", str(folder)]) == 1
        refused = capsys.readouterr()
    assert out.startswith("budget 1,000 requests/day, 0 used in the last 24 h")
    assert err.strip() == NOTE.format(folder)
    [line] = refused.err.strip().splitlines()
    assert line.startswith(f"smartreader: the data folder {folder} is read-only")
    assert refused.out == ""
    assert _files(folder) == before


# -- a database another program is writing ------------------------------------------------


@pytest.mark.parametrize(
    "command", [["budget", "500"], ["cleanup", "--read-days", "5"], ["remove", "-y", "1"]]
)
def test_a_busy_database_is_not_promised_a_retry(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
) -> None:
    folder = tmp_path / "data"
    db = _subscribed(folder)
    # the CLI waits 10 s for a lock; a fifth of a second says the same here
    monkeypatch.setitem(Store.__init__.__kwdefaults__, "busy_timeout", 0.2)
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another program, writing
        assert main([*command, "--data-dir", str(folder)]) == 1
    finally:
        other.execute("ROLLBACK")
        other.close()
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "smartreader: the database is busy (another program is using it); "
        "nothing was written (database is locked)"
    ]
    assert "retry" not in err
    with Store(db) as store:  # nothing changed
        assert [f.title for f in store.feeds()] == ["Kept"]
        assert store.get_setting("budget_per_day") is None


# -- wording ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "text"),
    [(1, "1 day"), (1.0, "1 day"), (2, "2 days"), (0.5, "0.5 days"), (1.5, "1.5 days"),
     (90, "90 days"), (0, "always")],
)  # fmt: skip
def test_keep_periods_are_worded_in_the_singular_for_one_day(days: float, text: str) -> None:
    assert cli._keep_text(days) == text


def test_cleanup_says_one_day(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    args = ["cleanup", "--read-days", "1", "--unread-days", "2", "--data-dir", str(folder)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "(read ones are kept 1 day, unread ones 2 days, starred ones always)" in out
    assert "1 days" not in out


def test_one_missed_item_is_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "data"
    _subscribed(folder)
    results = [
        UpdateResult(1, "ok", 3, None, 1.2, None, True, 0.0),
        UpdateResult(1, "ok", 3, None, 4.0, None, True, 0.0),
    ]
    with Store(db_path(folder)) as store:
        cli._report_update(store, results, 0.5)
    out = capsys.readouterr().out
    assert "  [1] probably missed about 1 item (more were published" in out
    assert "  [1] probably missed about 4 items (more were published" in out
