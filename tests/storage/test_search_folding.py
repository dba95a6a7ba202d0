"""Search folds what a reader does not type (schema v12, ``storage/textfold.py``).
Before, the tokenizer alone folded case and Latin accents only: "strasse" did not
find "Straße", "kobenhavn" not "København", "lodz" not "Łódź", "αθηνα" not
"Αθήνα", "елка" not "Ёлка", full-width "ＰＹＴＨＯＮ" not "Python", and "banana"
not "👍🏽Banana" (the tokenizer knows Unicode 6.1: a later emoji was a letter of
the word it touched). A real store, articles stored as a fetch stores them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartreader.core.models import ParsedEntry
from smartreader.storage.store import FetchRecord, Store
from smartreader.storage.textfold import fold
from tests.storage.fts_check import index_problems

GOLDEN = Path(__file__).parent / "golden"

# (stored title, stored text): one article each
ARTICLES = {
    "de": ("Straße gesperrt", "<p>Der Fußball am Sonntag</p>"),
    "da": ("København i dag", "<p>Øresund og Ærø</p>"),
    "pl": ("Łódź", "<p>Wrocław i Gdańsk</p>"),
    "el": ("Αθήνα", "<p>Ο σοφός Σωκράτης, ψυχή</p>"),
    "ru": ("Ёлка", "<p>йод и иод, Пётр</p>"),
    "fw": ("ＰＹＴＨＯＮ３ released", "<p>ｆｕｌｌ width</p>"),
    "lig": ("Oﬃce ﬁles", "<p>the ﬂoor</p>"),
    "emoji": ("👍🏽Banana split", "<p>🤔Thinking 🥳party★star</p>"),
    "tr": ("İstanbul", "<p>ılık su</p>"),
    "vi": ("Việt Nam", "<p>Hà Nội</p>"),
    "th": ("กิน ข้าว", "<p>ภาษาไทย</p>"),
    "frac": ("½ cup", "<p>x² and ①</p>"),
}

FINDS = [
    # what a reader types → the article it must find
    ("strasse", "de"),
    ("STRASSE", "de"),
    ("Straße", "de"),
    ("fussball", "de"),
    ("kobenhavn", "da"),
    ("oresund", "da"),
    ("aero", "da"),
    ("lodz", "pl"),
    ("wroclaw", "pl"),
    ("αθηνα", "el"),
    ("ΑΘΗΝΑ", "el"),
    ("σοφος", "el"),
    ("ΣΟΦΟΣ", "el"),
    ("σωκρατης", "el"),
    ("ψυχη", "el"),
    ("елка", "ru"),
    ("ЕЛКА", "ru"),
    ("петр", "ru"),
    ("python3", "fw"),
    ("ＰＹＴＨ", "fw"),
    ("full", "fw"),
    ("office", "lig"),
    ("files", "lig"),
    ("floor", "lig"),
    ("banana", "emoji"),
    ("👍🏽Banana", "emoji"),
    ("thinking", "emoji"),
    ("party", "emoji"),
    ("star", "emoji"),
    ("istanbul", "tr"),
    ("ilik", "tr"),
    ("viet nam", "vi"),
    ("ha noi", "vi"),
    ("Hà Nội", "vi"),
    ("กิน", "th"),
    ("ภาษาไทย", "th"),
    ("Stra\u00dfe", "de"),
    ("\u0415\u0308лка", "ru"),  # typed decomposed (Cyrillic Е + diaeresis)
    ("Α\u03b8\u03b7\u0301να", "el"),  # typed decomposed
]

NOT_FOUND = [
    # distinct letters stay distinct; a fraction is not the words 1 and 2
    ("иод и йод", {"ru"}),  # both words, in the one article that has both
    ("йодистый", set()),
    ("1", set()),
    ("2", set()),
    ("กนก", set()),  # Thai vowel signs are letters of the word
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, dict[str, int]]:
    s = Store(tmp_path_factory.mktemp("fold") / "smartreader.sqlite3")
    fid = s.add_feed("https://fold.example/feed.xml", now=1.0)
    entries = [
        ParsedEntry(key, title, None, "", None, None, text, "")
        for key, (title, text) in ARTICLES.items()
    ]
    s.record_fetch(FetchRecord(fid, 2.0, "ok", entries=entries))
    key_of = {title: key for key, (title, _text) in ARTICLES.items()}
    ids = {key_of[r.title]: eid for eid, r in s.entry_rows(s.entry_ids()).items()}
    return s, ids


@pytest.mark.parametrize(("query", "key"), FINDS, ids=[q for q, _ in FINDS])
def test_a_word_typed_plainly_finds_the_article(store, query: str, key: str) -> None:
    s, ids = store
    assert set(s.entry_ids(search=query)) == {ids[key]}
    assert s.search_ids(query) == {ids[key]}


@pytest.mark.parametrize(("query", "keys"), NOT_FOUND, ids=[q for q, _ in NOT_FOUND])
def test_distinct_letters_stay_distinct(store, query: str, keys: set[str]) -> None:
    s, ids = store
    assert set(s.entry_ids(search=query)) == {ids[k] for k in keys}


def test_an_upstream_edit_is_indexed_folded_and_the_index_stays_whole(tmp_path: Path) -> None:
    s = Store(tmp_path / "smartreader.sqlite3")
    fid = s.add_feed("https://fold.example/feed.xml", now=1.0)
    s.record_fetch(
        FetchRecord(
            fid,
            2.0,
            "ok",
            entries=[ParsedEntry("a", "Plain", None, "", None, None, "<p>old</p>", "")],
        )
    )
    [eid] = s.entry_ids()
    edited = ParsedEntry("a", "Größe", None, "", None, None, "<p>Ελλάδα</p>", "")
    s.record_fetch(FetchRecord(fid, 3.0, "ok", entries=[edited]))
    assert s.entry_ids(search="grosse") == [eid]
    assert s.entry_ids(search="ελλαδα") == [eid]
    assert s.entry_ids(search="plain") == [] and s.entry_ids(search="old") == []
    assert index_problems(s._db) == []
    s.close()


def test_an_upgraded_database_is_folded(tmp_path: Path) -> None:
    """The v12 upgrade folds what v11 indexed (its golden titles hold "Straße")."""
    path = tmp_path / "smartreader.sqlite3"
    shutil.copyfile(GOLDEN / "v11.sqlite3", path)
    with Store(path) as s:
        found = s.search_ids("Straße")
        assert found and s.search_ids("strasse") == found
        assert index_problems(s._db) == []


def test_an_older_database_read_only_is_searched_as_it_was_indexed(tmp_path: Path) -> None:
    """A read-only store of schema v11 cannot be folded: queries are not folded
    either, so what it found before it still finds."""
    path = tmp_path / "smartreader.sqlite3"
    shutil.copyfile(GOLDEN / "v11.sqlite3", path)
    with Store(path, readonly=True) as s:
        assert len(s.search_ids("Straße")) == 5
        assert s.entry_ids(search="Straße")


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("plain ascii", "plain ascii"),
        ("Straße ǿ Ǽ", "Strasse o AE"),
        ("Е\u0308лка", "Елка"),  # decomposed ё
        ("йод ї", "йод ї"),
        ("カタカナ ガ", "カタカナ ガ"),  # a voicing mark is the letter's
        ("𠀋字", "𠀋字"),  # an ideograph past the BMP is no symbol
        ("a🎉b", "a b"),
        ("x ½ x²", "x ½ x²"),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


@given(st.text())
@settings(max_examples=300, deadline=None, derandomize=True)
def test_fold_is_idempotent_and_leaves_ascii_alone(text: str) -> None:
    """An index text folded once is matched by a query folded once more
    (``search_ids`` folds, then ``search_filter`` folds again)."""
    once = fold(text)
    assert fold(once) == once
    if text.isascii():
        assert once == text
