"""``smartreader rules`` and ``smartreader rule add|remove``: rules (schema v13)
from the command line. A rule marks new articles with some words read (mutes a
topic) or stars them; ``rule add --apply`` also applies it to the articles
already stored, and without it says how many would change. Wrong input is one
line, exit 1, nothing written; a named data folder with no database is one line
for the commands that need data (``rule add`` starts one, as ``add`` does)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smartreader.cli import main
from smartreader.core.models import ParsedEntry
from smartreader.storage import db_path
from smartreader.storage.store import FetchRecord, Rule, Store
from tests.readonly import read_only

T0 = 1_790_000_000.0


def _entry(uid: str, title: str, text: str = "") -> ParsedEntry:
    return ParsedEntry(uid, title, f"https://e.example/{uid}", "", T0, None, f"<p>{text}</p>", "")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two feeds, Tech [1] and News [2]; four articles stored, "1" read, "4" starred."""
    folder = tmp_path / "data"
    folder.mkdir()
    with Store(db_path(folder)) as store:
        tech = store.add_feed("https://tech.example/feed", title="Tech", now=T0)
        news = store.add_feed("https://news.example/feed", title="News", now=T0)
        entries = (
            _entry("1", "Crypto crash"),
            _entry("2", "Crypto again"),
            _entry("3", "Weekly notes", "a word on crypto"),
        )
        store.record_fetch(FetchRecord(tech, T0, "ok", entries=entries))
        store.record_fetch(FetchRecord(news, T0, "ok", entries=(_entry("4", "Crypto rules"),)))
        ids = {uid: i for uid, i in store._q("SELECT uid, id FROM entries")}
        store.set_read([ids["1"]])
        store.set_starred([ids["4"]])
    return folder


def run(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--data-dir", str(folder)])
    out, err = capsys.readouterr()
    return code, out, err


def _rules(folder: Path) -> list[Rule]:
    with Store(db_path(folder)) as store:
        return store.rules()


def _flags(folder: Path) -> dict[str, tuple[bool, bool]]:
    """uid: (read, starred)"""
    with Store(db_path(folder)) as store:
        rows = store._q("SELECT uid, read, starred FROM entries")
    return {r[0]: (bool(r[1]), bool(r[2])) for r in rows}


BEFORE = {
    "1": (True, False),
    "2": (False, False),
    "3": (False, False),
    "4": (False, True),
}


# -- rules: the list ---------------------------------------------------------------------


def test_no_rules_says_how_to_add_one(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, folder, "rules")
    assert (code, out) == (0, "")  # stdout stays empty for scripts, as `feeds` does
    assert err == "no rules yet: add one with `smartreader rule add WORDS`\n"
    code, out, err = run(capsys, folder, "rules", "--json")
    assert (code, json.loads(out), err) == (0, [], "")


def test_rules_are_listed_with_their_feed_action_and_hits(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store(db_path(folder)) as store:
        store.add_rule("sponsored", now=T0)
        store.add_rule("release", feed_id=1, title_only=True, action="star", now=T0 + 1)
        store.record_fetch(
            FetchRecord(1, T0 + 60, "ok", entries=(_entry("5", "Sponsored post"),))
        )  # a new article the first rule mutes: one hit
    code, out, err = run(capsys, folder, "rules")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        '[   1] "sponsored" in all feeds: mark read; acted on 1 article',
        '[   2] "release" (title only) in [1] Tech: star; acted on 0 articles',
    ]
    code, out, err = run(capsys, folder, "rules", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == [
        {
            "id": 1,
            "words": "sponsored",
            "title_only": False,
            "feed_id": None,
            "feed": None,
            "action": "read",
            "hits": 1,
            "created": T0,
        },
        {
            "id": 2,
            "words": "release",
            "title_only": True,
            "feed_id": 1,
            "feed": "Tech",
            "action": "star",
            "hits": 0,
            "created": T0 + 1,
        },
    ]


def test_rules_reads_a_read_only_folder(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store(db_path(folder)) as store:
        store.add_rule("crypto", now=T0)
    with read_only(folder):
        code, out, _err = run(capsys, folder, "rules")
    assert code == 0
    assert out == '[   1] "crypto" in all feeds: mark read; acted on 0 articles\n'


# -- rule add ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "stored", "said"),
    [
        ([], (None, False, "read"), '"zebra stripes" in all feeds: mark read'),
        (["--feed", "2"], (2, False, "read"), '"zebra stripes" in [2] News: mark read'),
        (["--title-only"], (None, True, "read"), '"zebra stripes" (title only) in all feeds'),
        (["--star"], (None, False, "star"), '"zebra stripes" in all feeds: star'),
        (
            ["--feed", "1", "--title-only", "--star"],
            (1, True, "star"),
            '"zebra stripes" (title only) in [1] Tech: star',
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_rule_is_added_as_asked(
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    stored: tuple[int | None, bool, str],
    said: str,
) -> None:
    code, out, err = run(capsys, folder, "rule", "add", "zebra", " stripes", *options)
    assert (code, err) == (0, "")
    first, second = out.splitlines()
    assert first.startswith(f"added rule [1]: {said}")
    assert second == "no stored articles match now"
    [rule] = _rules(folder)
    assert (rule.query, (rule.feed_id, rule.title_only, rule.action)) == ("zebra stripes", stored)
    # it works on what is fetched from now on
    with Store(db_path(folder)) as store:
        fid = stored[0] or 2
        store.record_fetch(FetchRecord(fid, T0 + 60, "ok", entries=(_entry("z", "Zebra stripes"),)))
    assert _flags(folder)["z"] == ((False, True) if stored[2] == "star" else (True, False))


def test_without_apply_it_says_what_would_change_and_changes_nothing(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, folder, "rule", "add", "crypto")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        'added rule [1]: "crypto" in all feeds: mark read',
        "4 stored articles match now; `--apply` would mark the 3 unread ones read",
    ]
    assert _flags(folder) == BEFORE
    code, out, _ = run(
        capsys, folder, "rule", "add", "crypto", "--feed", "1", "--title-only", "--star"
    )
    assert out.splitlines()[1] == (
        "2 stored articles match now; `--apply` would star the 2 unstarred ones"
    )
    assert _flags(folder) == BEFORE
    assert len(_rules(folder)) == 2


def test_apply_marks_the_stored_matches_read(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, folder, "rule", "add", "crypto", "--feed", "1", "--apply")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        'added rule [1]: "crypto" in [1] Tech: mark read',
        "3 stored articles match: marked the 2 unread ones read",
    ]
    assert _flags(folder) == {**BEFORE, "2": (True, False), "3": (True, False)}  # not News's "4"


def test_apply_stars_the_stored_matches(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, folder, "rule", "add", "crypto", "--title-only", "--star", "--apply"
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == "3 stored articles match: starred the 2 unstarred ones"
    # "3" has the word in its text only
    assert _flags(folder) == {**BEFORE, "1": (True, True), "2": (False, True)}


def test_the_same_rule_again_with_apply_is_not_added_twice(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # what the hint says to do after a rule added without --apply
    assert run(capsys, folder, "rule", "add", "crypto", "--feed", "1")[0] == 0
    code, out, _ = run(capsys, folder, "rule", "add", "crypto", "--feed", "1", "--apply")
    assert code == 0
    assert out.splitlines() == [
        'rule [1] already does this: "crypto" in [1] Tech: mark read',
        "3 stored articles match: marked the 2 unread ones read",
    ]
    assert len(_rules(folder)) == 1
    code, out, _ = run(capsys, folder, "rule", "add", "crypto", "--feed", "1", "--apply")
    assert out.splitlines()[1] == "3 stored articles match now, all already read"


def test_a_new_data_folder_is_started_by_rule_add(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new" / "data"
    code, out, _ = run(capsys, new, "rule", "add", "crypto")
    assert code == 0 and out.startswith("added rule [1]")
    assert [r.query for r in _rules(new)] == ["crypto"]


def test_a_rule_with_no_word_starts_no_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = tmp_path / "new" / "data"
    code, out, err = run(capsys, new, "rule", "add", "🎉")
    assert (code, out) == (1, "") and "needs a word" in err
    assert not (tmp_path / "new").exists()


# -- rule remove -------------------------------------------------------------------------


def test_a_rule_is_removed(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Store(db_path(folder)) as store:
        store.add_rule("crypto", feed_id=2, action="star", now=T0)
        store.add_rule("kept", now=T0)
    code, out, err = run(capsys, folder, "rule", "remove", "1")
    assert (code, err) == (0, "")
    assert out == 'removed rule [1]: "crypto" in [2] News: star\n'
    assert [r.query for r in _rules(folder)] == ["kept"]


# -- wrong input: one line, exit 1, nothing written --------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["rule", "add", "🎉", "--apply"],
            "a rule needs a word to look for ('🎉' has none: signs and emoji are not words)",
        ),
        (["rule", "add", "crypto", "--feed", "9", "--apply"], "no feed with id 9"),
        (["rule", "remove", "9"], "no rule with id 9"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_wrong_input_is_one_line_and_writes_nothing(
    folder: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with Store(db_path(folder)) as store:
        store.add_rule("kept", now=T0)
    before = _files(folder)
    code, out, err = run(capsys, folder, *argv)
    assert (code, out) == (1, "")
    assert err.splitlines() == [f"smartreader: {message}"]
    assert _files(folder) == before
    assert [r.query for r in _rules(folder)] == ["kept"] and _flags(folder) == BEFORE


@pytest.mark.parametrize("exists", [False, True], ids=["no-folder", "empty-folder"])
@pytest.mark.parametrize(
    "command", [["rules"], ["rules", "--json"], ["rule", "remove", "1"]], ids=" ".join
)
def test_a_named_folder_without_data_is_one_line_and_makes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    exists: bool,
) -> None:
    monkeypatch.delenv("SMARTREADER_DATA_DIR", raising=False)
    typo = tmp_path / "typo"
    if exists:
        typo.mkdir()
    before = sorted(tmp_path.rglob("*"))
    code, out, err = run(capsys, typo, *command)
    assert (code, out) == (1, "")
    assert err.splitlines() == [f"smartreader: no smartreader data in {typo} (check --data-dir)"]
    assert sorted(tmp_path.rglob("*")) == before
