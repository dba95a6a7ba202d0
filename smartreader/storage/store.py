"""The SQLite store: one file, one writer connection, short transactions.

Rules (see docs/ARCHITECTURE.md): WAL and ``synchronous=FULL`` so a committed
fetch survives a crash or power loss; ``foreign_keys`` on per connection; every
write is one ``BEGIN IMMEDIATE`` transaction; migrations keyed on
``user_version``; a database from a newer version is refused. Readers (the GUI)
may open their own connection with ``readonly=True``.

Nothing here imports Qt or does network I/O.
"""

from __future__ import annotations

import contextlib
import functools
import html
import json
import logging
import math
import os
import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from smartreader.core.address import address_key
from smartreader.core.identity import told_apart
from smartreader.core.models import Enclosure, ParsedEntry, ServerHints
from smartreader.errors import (
    DatabaseCorruptError,
    DatabaseTooNewError,
    ReadOnlyDataError,
    StorageError,
    UsageError,
)
from smartreader.storage import walguard
from smartreader.storage.schema import MIGRATIONS, SCHEMA_VERSION
from smartreader.storage.textfold import char_class, fold

# seconds; not core.estimator's DAY: importing it would load numpy for every CLI command
DAY = 86400.0

DB_NAME = "smartreader.sqlite3"


@dataclass(frozen=True)
class Folder:
    id: int
    name: str


@dataclass(frozen=True)
class Feed:
    id: int
    url: str
    title: str
    user_title: str | None
    site_link: str | None
    icon_url: str | None
    folder_id: int | None
    folder: str | None
    added_at: float
    weight: float
    min_interval: float | None
    load_images: bool
    auth_username: str | None
    etag: str | None
    last_modified: str | None
    status: str
    last_error: str | None
    error_count: int
    last_fetched: float | None
    last_success: float | None
    capacity: int | None
    redirect_url: str | None
    redirect_seen: int
    hints: ServerHints
    scheduler_state: dict[str, Any] | None
    previous_urls: tuple[str, ...] = ()  # addresses it moved from, newest last
    # None: as in Settings; 0: keep every article; N: delete read ones after N days
    keep_days: float | None = None
    # load an article's page (Store.full_article) by itself when it is opened
    full_text: bool = False
    # its own maximum interval (seconds); None: as in Settings
    max_interval: float | None = None

    @property
    def display_title(self) -> str:
        return self.user_title or self.title or self.url


@dataclass(frozen=True)
class Entry:
    id: int
    feed_id: int
    uid: str
    title: str
    link: str | None
    author: str
    published: float | None
    updated: float | None
    first_seen: float
    sort_time: float
    content: str
    summary: str
    enclosures: tuple[Enclosure, ...]
    read: bool
    starred: bool


@dataclass(frozen=True)
class FullText:
    """An article's own page, as loaded for a feed that carries only a summary:
    the article extracted from it and sanitised (``net.fulltext``)."""

    entry_id: int
    url: str  # the address that answered
    html: str
    fetched: float


@dataclass(frozen=True)
class EntryRow:
    """The few columns the article list shows; cheap to load in bulk."""

    id: int
    feed_id: int
    title: str
    sort_time: float
    read: bool
    starred: bool


@dataclass(frozen=True)
class FetchLogRow:
    id: int
    feed_id: int
    time: float
    status: str
    http_status: int | None
    bytes: int
    new_items: int
    window_items: int
    duration: float
    error: str | None
    manual: bool
    missed_estimate: float
    warnings: tuple[str, ...] = ()  # what the parser worked around (v9)
    unreachable: bool = False  # no server answered (v16): not a request of the budget


@dataclass(frozen=True)
class Alert:
    id: int
    feed_id: int
    created: float
    missed_estimate: float
    window_from: float | None
    window_to: float | None
    capacity: int | None
    dismissed: bool


RULE_ACTIONS = ("read", "star")


@dataclass(frozen=True)
class Rule:
    """What happens to a new article that matches ``query`` (schema v13)."""

    id: int
    query: str  # words, as the search box takes them; whole words, all required
    feed_id: int | None  # None: every feed
    title_only: bool
    action: str  # "read" (mute) or "star" (keep)
    created: float
    hits: int  # new articles it acted on


@dataclass(frozen=True)
class FetchRecord:
    """Everything one fetch attempt writes, applied in a single transaction."""

    feed_id: int
    time: float
    status: str  # ok | not_modified | error | rate_limited | gone
    http_status: int | None = None
    bytes: int = 0
    duration: float = 0.0
    error: str | None = None
    manual: bool = False
    entries: Sequence[ParsedEntry] = ()
    feed_title: str | None = None
    site_link: str | None = None
    icon_url: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    update_validators: bool = False  # store (etag, last_modified) as a set
    hints: ServerHints | None = None
    scheduler_state: dict[str, Any] | None = None
    missed_estimate: float = 0.0
    warnings: Sequence[str] = ()  # the parser's (ParsedFeed.warnings)
    missed_from: float | None = None
    missed_to: float | None = None
    redirect_url: str | None = None  # permanent redirect target seen this time
    # the old address answered 404/410 and this fetch reached the pending target
    # (``redirect_url``) directly: it is taken now, confirmed or not (§3.2)
    redirect_adopt: bool = False
    # an error where no server answered (FetchResult.unreachable): no server saw
    # the request, so the 24 h cap does not count it
    unreachable: bool = False


@dataclass(frozen=True)
class FetchOutcome:
    new_entry_ids: tuple[int, ...]
    window_items: int
    alert_id: int | None
    moved_from: str | None = None  # the feed's URL before this fetch moved it
    ruled_read: int = 0  # new entries a rule marked read (not news to announce)
    ruled_starred: int = 0  # ... and starred


@dataclass(frozen=True)
class PurgeResult:
    read: int  # read articles deleted
    unread: int  # unread articles deleted
    log_rows: int  # fetch-log rows and dismissed alerts deleted
    finished: bool = True  # False: cancelled, the rest is left for the next time


# Fetch-log rows and dismissed alerts older than this go with ``purge_old`` (the
# app shows the last 50 fetches of a feed and the last day's requests; a feed's
# newest row is always kept, for its "last fetch").
LOG_KEEP_DAYS = 180.0
# a deleted article's identity is forgotten this long after its deletion once its
# feed's window no longer carries it (a window that comes and goes, or pages,
# rarely brings an item back after that)
PURGED_KEEP_DAYS = 90.0
# What ``compact`` raises when ``stop_compact`` (the user, or quitting) stopped it.
COMPACT_STOPPED = "compacting was stopped; nothing changed"
PURGE_BATCH = 500  # entries deleted per transaction: the GUI's writes interleave
# articles old enough to go (read flag, cutoff); the entries_age index serves it
_OLD = "read = ? AND starred = 0 AND first_seen < ?"
# Control characters in a name (typed, pasted, from a file) show as boxes in the
# tree and cannot be written to OPML: dropped, runs of white space made one. Bidi
# embeddings, overrides and isolates too, as ``net.sanitize.plain_text`` drops them
# from feed titles and OPML names: kept here, a typed folder became another folder
# after an OPML export and import.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _name(value: str) -> str:
    return " ".join(_CONTROL.sub("", value).split())


def _oldest_first(entries: Sequence[ParsedEntry]) -> bool:
    """Whether a document lists its items oldest first (its first item's date is
    older than its last's); feeds list them newest first."""
    dated = [e.published for e in entries if e.published is not None]
    return len(dated) > 1 and dated[0] < dated[-1]


def _sort_time(published: float | None, fetched: float) -> float:
    """An item's place in the article lists: its date, but never after its
    arrival (a local time read as UTC, a slow clock would hold it above newer
    items; it is shown as dated, sorted as it arrived), and undated ones at their
    arrival. A date with no time of day (read as midnight UTC) is shared by
    the day's items, and ids put the first fetched first: within its first
    half-second such an item sorts by how long after its date it arrived, so
    one fetched at 15:00 lists above one of the same day fetched at 09:00."""
    if published is None:
        return fetched
    base = min(published, fetched)
    if base % DAY:
        return base
    return base + 0.5 * min(fetched - base, DAY) / DAY


# A new row's id: above every id alive and every id deleted (``id_high``), so an
# undo step naming a deleted feed or article never reaches a newer one.
_NEXT_ID = (
    "(SELECT max(IFNULL((SELECT max(id) FROM {0}), 0), "
    "IFNULL((SELECT high FROM id_high WHERE tbl = '{0}'), 0)) + 1)"
)
_NEXT_FEED_ID = _NEXT_ID.format("feeds")
_NEXT_ENTRY_ID = _NEXT_ID.format("entries")

# A list of fewer entries than this is sorted by title from its feeds' own index
# (read and sorted whole for each page); a longer one is read from the title index.
SMALL_LIST = 2_000

# Permanent redirects must be seen this many times in a row, over at least this
# long, before the stored URL changes: a server misconfigured for a few days must
# not move a feed (research/reliability.md §3.2). An http → https upgrade of the
# same address is taken at once.
REDIRECT_CONFIRMATIONS = 3
REDIRECT_MIN_AGE = 7 * DAY
PREVIOUS_URLS_KEPT = 10
WARNINGS_KEPT = 5  # parser warnings stored per fetch, each at most WARNING_CHARS
WARNING_CHARS = 300


def is_https_upgrade(old: str, new: str) -> bool:
    """``new`` is ``old`` with https instead of http (same host, path and query)."""
    a, b = urlsplit(old), urlsplit(new)
    return (
        a.scheme == "http"
        and b.scheme == "https"
        and a.hostname == b.hostname
        and a.port in (None, 80)
        and b.port in (None, 443)
        and (a.path or "/", a.query) == (b.path or "/", b.query)
    )


# What a feed's own maximum interval may be (as Settings': an hour to a week).
MAX_INTERVAL_LIMITS = (3600.0, 7 * 86400.0)

# Every table whose rows belong to one feed (a test checks the schema for others).
FEED_TABLES = ("entries", "fetch_log", "alerts", "purged_entries", "rules")


@dataclass(frozen=True)
class FeedSnapshot:
    """One feed's stored rows, as plain data (``Store.snapshot_feed``)."""

    feed: dict[str, Any]  # its feeds row, by column, without the folder's id
    folder: str | None  # the folder's name
    tables: dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]]  # FEED_TABLES: columns, rows
    # loaded full articles, by their entry's uid (ids may change on restore)
    full_texts: list[tuple[str, str, str, float]] = field(default_factory=list)


def _previous_urls(r: sqlite3.Row) -> tuple[str, ...]:
    """The ``previous_urls`` column (absent from the light query and from an
    older database opened read-only); a damaged value reads as no history."""
    if "previous_urls" not in r.keys():  # noqa: SIM118 (`in` on a Row tests its values)
        return ()
    try:
        urls = json.loads(r["previous_urls"] or "[]")
    except ValueError:
        return ()
    return tuple(u for u in urls if isinstance(u, str)) if isinstance(urls, list) else ()


def ensure_folder(folder: Path) -> None:
    """Make the data folder, or say in one line why it cannot be used (a file in
    the way, no permission, a read-only place) and how to choose another: the
    user set it, and a traceback from mkdir helped nobody."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not folder.is_dir():
            raise NotADirectoryError(f"{folder} is not a folder")
    except (FileExistsError, NotADirectoryError):
        why = "a file is in the way (it is not a folder, or a folder above it is a file)"
        raise StorageError(f"cannot use the data folder {folder}: {why}{_CHOOSE}") from None
    except OSError as e:
        why = e.strerror or str(e)
        raise StorageError(f"cannot use the data folder {folder}: {why}{_CHOOSE}") from None


_CHOOSE = "; choose another with --data-dir or SMARTREADER_DATA_DIR"


def ensure_writable(db: Path) -> None:
    """Say so when the data folder (or the database in it) cannot be written: SQLite
    only says "unable to open database file", and a lock file that cannot be made
    looked like another running smartreader. Checked with the effective ids (root
    may write where the mode says no, not on a read-only file system)."""
    folder = db.parent
    eff = os.access in os.supports_effective_ids
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=eff):
        where = f"the data folder {folder}"
    elif db.exists() and not os.access(db, os.W_OK, effective_ids=eff):
        where = f"the database {db}"
    else:
        return
    try:
        on_ro = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs (Windows)
        on_ro = False
    why = "it is on a read-only file system" if on_ro else "no permission to write there"
    raise ReadOnlyDataError(
        f"{where} is read-only (or cannot be written): {why}; "
        "make it writable, or choose another with --data-dir or SMARTREADER_DATA_DIR",
        where,
    )


# SQLite modules the schema uses: "no such module: fts5" is a SQLite built without
# FTS5, not damage; any other name is our schema's text with a byte changed
_OUR_MODULES = ("fts5",)
_NO_SUCH_MODULE = re.compile(r"no such module: (\S+)")


def looks_damaged(error: str) -> bool:
    """SQLite's words for a damaged file; and Python's for a name or value in it that
    is not UTF-8 ("Could not decode to UTF-8 column …"). The full-text table's
    definition, damaged, reads as a module or an argument FTS5 does not know
    ("no such module: gts5", "parse error in …", "unrecognized option: …")."""
    low = error.lower()
    if any(w in low for w in ("not a database", "malformed", "corrupt", "decode to utf-8")):
        return True
    module = _NO_SUCH_MODULE.search(low)
    if module is not None:
        return module.group(1) not in _OUR_MODULES
    fts5_args = (
        "parse error in",
        "unknown tokenizer",
        "unrecognized option",
        "unrecognized parameter",
    )
    return any(w in low for w in fts5_args)


def not_utf8(e: UnicodeDecodeError) -> str:
    """What SQLite said (or returned) when it was not UTF-8. Python's sqlite3 raises
    UnicodeDecodeError in place of the error when damage put a stray byte in a name
    that SQLite quotes; everything smartreader writes is UTF-8, so only a damaged
    file holds such bytes."""
    return bytes(e.object).decode("utf-8", "replace")


def _warnings(raw: Any) -> tuple[str, ...]:
    """The ``warnings`` column (absent from an older database opened read-only);
    a damaged value reads as none."""
    try:
        ws = json.loads(raw or "[]")
    except (TypeError, ValueError):
        return ()
    return tuple(w for w in ws if isinstance(w, str)) if isinstance(ws, list) else ()


def _flag_column(r: sqlite3.Row, name: str) -> bool:
    """A 0/1 column added after v1 (absent from the light query and from an older
    database opened read-only: then off)."""
    return name in r.keys() and bool(r[name])  # noqa: SIM118


def _setting_column(r: sqlite3.Row, name: str) -> float | None:
    """A feed's own number that overrides Settings' (``keep_days``, ``max_interval``),
    or None: not set, or absent (the light query; an older database opened
    read-only), so as in Settings."""
    if name not in r.keys() or r[name] is None:  # noqa: SIM118
        return None
    return float(r[name])


def _hints_to_json(h: ServerHints) -> str:
    return json.dumps(
        {
            "retry_after": h.retry_after,
            "cache_until": h.cache_until,
            "ttl_seconds": h.ttl_seconds,
            "update_period_seconds": h.update_period_seconds,
            "skip_hours": sorted(h.skip_hours),
            "skip_days": sorted(h.skip_days),
        }
    )


def _hints_from_json(s: str | None) -> ServerHints:
    if not s:
        return ServerHints()
    try:
        d = json.loads(s)
        return ServerHints(
            retry_after=d.get("retry_after"),
            cache_until=d.get("cache_until"),
            ttl_seconds=d.get("ttl_seconds"),
            update_period_seconds=d.get("update_period_seconds"),
            skip_hours=frozenset(int(x) for x in d.get("skip_hours", ())),
            skip_days=frozenset(int(x) for x in d.get("skip_days", ())),
        )
    except (ValueError, TypeError, AttributeError):
        return ServerHints()


def _enclosures_to_json(encs: Iterable[Enclosure]) -> str:
    return json.dumps([{"url": e.url, "type": e.type, "length": e.length} for e in encs])


def _enclosures_from_json(s: str) -> tuple[Enclosure, ...]:
    try:
        return tuple(
            Enclosure(url=str(d["url"]), type=str(d.get("type") or ""), length=d.get("length"))
            for d in json.loads(s)
        )
    except (ValueError, TypeError, KeyError):
        return ()


def _mark_class() -> str:
    """A regex class of the combining marks (Mn, Mc, Me) of the BMP: ``\\w`` leaves
    them out, and cut words at them (Thai กิน became ก and น, each found alone;
    a decomposed é split "résumé")."""
    return char_class(0, 0x10000, ("Mn", "Mc", "Me"))


# Tags inside a word's text (a formula's H<sub>2</sub>O, <b>Hel</b>lo): dropped
# without a gap; any other tag (a paragraph, a line break, a cell) parts words.
_INLINE_TAGS = frozenset(
    ("a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font",
     "i", "ins", "kbd", "mark", "q", "rp", "rt", "ruby", "s", "samp", "small", "span",
     "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr")
)  # fmt: skip
# A tag, its quoted attribute values whole (a ">" in one does not end it).
_TAG = re.compile(r"""<(/?)([A-Za-z][A-Za-z0-9]*)?(?:[^>"']|"[^"]*"|'[^']*')*>""")


def index_text(markup: str | None) -> str:
    """The text of stored (sanitised) HTML as a reader sees it, for the full-text
    index (an article's ``search_text``, schema v11); SQL ``html_text``."""
    if not markup:
        return ""
    if "<" not in markup and "&" not in markup:
        return markup
    text = _TAG.sub(lambda m: "" if (m.group(2) or "").lower() in _INLINE_TAGS else " ", markup)
    return html.unescape(text)


# SQL appended to an entry's text for the index: the full article loaded for it
_FULL_TEXT_SQL = (
    " || coalesce(' ' || (SELECT html_text(html) FROM full_texts WHERE entry_id = entries.id), '')"
)


def _search_text(content: str | None, summary: str | None) -> str:
    # as schemas v11-v12 and record_fetch's update write it in SQL
    return fold(index_text(content) + " " + index_text(summary))


@dataclass(frozen=True)
class SearchColumns:
    """What a database's search reads: the title and text columns a substring
    match looks in, and whether the index holds folded text (schema v12), so
    that a query is folded the same way (:mod:`~smartreader.storage.textfold`)."""

    title: str = "search_title"
    body: str = "search_text"
    folded: bool = True


FOLDED = SearchColumns()


@functools.cache
def _word_pattern() -> re.Pattern[str]:
    """A word: letters and digits with the marks that complete them. Made at the
    first search, not at import (the mark class reads all the BMP: ~20 ms that
    every command and every start would pay)."""
    return re.compile(rf"\w[\w{_mark_class()}]*", re.UNICODE)


# Scripts written without spaces between words (Chinese, Japanese, Korean runs,
# Thai, Lao, Khmer, Burmese): the tokenizer takes a whole run for one word, so a
# word inside it ("天気" in "東京の天気は晴れ") is found by a substring match instead.
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)


# A word that trailing signs complete (C++, C#, F#, g++): the tokenizer drops the
# signs, so "C++" searched for every word starting with "c". The index finds the
# word whole, and :func:`_signed_word_in` checks it with its signs. From a word's
# start only: tried at every letter of a long word, it took seconds (quadratic).
_SIGNED = re.compile(r"(?<!\w)\w+[+#]+")

# Words a substring match looks for, at most: one SQL condition each, and a long
# pasted text made "Expression tree is too large".
MAX_SUBSTRING_WORDS = 24


def _query_words(text: str) -> list[str]:
    """What the user typed, in words, composed (NFC): a word typed or pasted
    decomposed (macOS, Hangul as jamo) is the word the index holds. (A folded
    query, :func:`fold`, is composed already.)"""
    return _word_pattern().findall(unicodedata.normalize("NFC", text))


def _ascii_lower(text: str) -> str:
    """Lower case as SQLite's ``lower()`` makes it (ASCII letters only)."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fts_query(
    text: str, folded: bool = True, *, prefix: bool = True, column: str | None = None
) -> str | None:
    """Turn what a user types into a safe FTS5 query: every word must match,
    the last one as a prefix (search-as-you-type; not with ``prefix`` False, as
    a rule wants whole words) unless signs complete it ("C++"). Operators are not
    exposed, so no input can produce an FTS5 syntax error. Words of unspaced
    scripts are left out (see :func:`search_filter`). ``folded``: the index holds
    folded text (schema v12), so the query is folded. ``column``: only there."""
    if folded:
        text = fold(text)
    words = _query_words(text)
    spaced = [f'"{w}"' for w in words if not _UNSPACED.search(w)]
    if not spaced:
        return None
    if prefix and not _UNSPACED.search(words[-1]) and not re.search(r"\w[+#]+\s*$", text):
        spaced[-1] += "*"
    q = " ".join(spaced)
    return q if column is None else f"{column} : ({q})"


def _unspaced_words(text: str) -> list[str]:
    words = dict.fromkeys(w for w in _query_words(text) if _UNSPACED.search(w))
    return list(words)[:MAX_SUBSTRING_WORDS]


def _signed_words(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text)
    words = dict.fromkeys(w.lower() for w in _SIGNED.findall(text) if not _UNSPACED.search(w))
    return list(words)[:MAX_SUBSTRING_WORDS]


def _signed_word_in(text: str | None, word: str) -> int:
    """SQL ``signed_word_in(text, word)``: 1 when ``word`` (lower case, with its
    signs) starts a word of ``text``, in any case: "C#" is not the end of
    "doc#top" in a link. (``str.find``: a regex with a look-behind took 7× as long.)"""
    if not text:
        return 0
    low = text.lower()
    i = low.find(word)
    while i >= 0:
        if i == 0 or not (low[i - 1].isalnum() or low[i - 1] == "_"):
            return 1
        i = low.find(word, i + 1)
    return 0


def _substring_words(text: str) -> bool:
    """Whether a search needs more than the index (see :func:`search_filter`)."""
    return bool(_unspaced_words(text) or _signed_words(text))


def search_filter(
    text: str,
    cols: SearchColumns = FOLDED,
    *,
    prefix: bool = True,
    title_only: bool = False,
    id_range: tuple[int, int] | None = None,
) -> tuple[str, list[Any]] | None:
    """A WHERE condition on ``entries`` for what a user types (None: nothing to
    search for): the full-text index for spaced words; for words of an unspaced
    script a substring of the title, content or summary; for a word with signs
    (C++) that word, signs included; every word required. ``prefix``: the last
    word may be the start of one (see :func:`fts_query`); ``title_only``: in the
    title alone (folded columns only: an older index has another name for it).
    ``id_range`` ``(lo, hi)``: only articles with ``lo <= id <= hi`` can match, and
    the index reads only that stretch of each word's list (a rule checks a fetch's
    new articles: over the whole index, 50 rules made a fetch 28× slower)."""
    if cols.folded:
        text = fold(text)
    title, body = cols.title, cols.body
    if title_only:
        body = title  # a substring match looks in the title twice: harmless
    column = "search_title" if title_only and cols.folded else None
    q = fts_query(text, folded=False, prefix=prefix, column=column)
    unspaced = _unspaced_words(text)
    if q is None and not unspaced:
        return None
    where: list[str] = []
    params: list[Any] = []
    if q is not None:
        if id_range is None:
            where.append("id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)")
            params.append(q)
        else:
            where.append(
                "id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? "
                "AND rowid >= ? AND rowid <= ?)"
            )
            params += [q, int(id_range[0]), int(id_range[1])]
    # in the text a reader sees (``body``: ``search_text``; older read-only
    # databases have only the HTML), never in markup such as a link's address;
    # ``title``: ``search_title`` (folded) or, older, the title
    for w in unspaced:
        # In any case: "python入門" finds "Python入門". SQLite's lower() knows ASCII
        # only; a word with other cased letters ("київ학교") folds the text in
        # Python, slower, so only then.
        if any(not c.isascii() and c.lower() != c.upper() for c in w):
            where.append(f"(instr(casefold({title}), ?) > 0 OR instr(casefold({body}), ?) > 0)")
            params += [w.casefold()] * 2
        else:
            where.append(f"(instr(lower({title}), ?) > 0 OR instr(lower({body}), ?) > 0)")
            params += [_ascii_lower(w)] * 2
    for w in _signed_words(text):
        # only on the rows the index found (the word without its signs)
        where.append(f"(signed_word_in({title}, ?) OR signed_word_in({body}, ?))")
        params += [w] * 2
    return " AND ".join(where), params


class Store:
    """One SQLite database. Thread-safe by a lock; use one writer instance."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        busy_timeout: float = 10.0,
        immutable: bool = False,
    ) -> None:
        """``immutable`` (with ``readonly``): read the file as it lies, without locks
        or a WAL; only for a database nobody can write (``open_unwritable``)."""
        self.path = Path(path)
        self.readonly = readonly
        self.immutable = readonly and immutable
        # how long a write waits for another program's lock before it fails
        self.busy_timeout = float(busy_timeout)
        # a -wal that cannot be ours, moved aside instead of applied (walguard)
        self.stray_wal: Path | None = None
        self._guarded = not readonly and str(path) != ":memory:"
        if self._guarded:
            ensure_folder(self.path.parent)
            # before walguard, which removes its marker: a read-only folder is one
            # clear error, not a log line about the marker and then SQLite's words
            ensure_writable(self.path)
            self.stray_wal = walguard.before_open(self.path, self.path.parent / "backups")
        self._lock = threading.RLock()
        self._compact_flag = threading.Lock()  # guards _compacting for stop_compact
        self._compacting = False
        try:
            if readonly:
                uri = self.path.resolve().as_uri() + "?mode=ro"
                if self.immutable:
                    uri += "&immutable=1"
                self._db = sqlite3.connect(
                    uri,
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,
                    timeout=self.busy_timeout,
                )
            else:
                self._db = sqlite3.connect(
                    self.path,
                    isolation_level=None,
                    check_same_thread=False,
                    timeout=self.busy_timeout,
                )
        except sqlite3.Error as e:
            raise StorageError(f"cannot open database {self.path}: {e}") from e
        self._db.row_factory = sqlite3.Row
        try:
            self._setup()
        except sqlite3.DatabaseError as e:
            self._db.close()
            msg = str(e)
            if looks_damaged(msg):
                raise DatabaseCorruptError(
                    f"{self.path} is damaged ({msg}); it has not been modified"
                ) from e
            if "locked" in msg or "busy" in msg:
                raise StorageError(f"{self.path} is locked by another program ({msg})") from e
            raise StorageError(f"cannot use database {self.path}: {msg}") from e
        except UnicodeDecodeError as e:
            self._db.close()
            raise DatabaseCorruptError(
                f"{self.path} is damaged (SQLite read text that is not UTF-8: "
                f"{not_utf8(e)}); it has not been modified"
            ) from e
        except StorageError:
            self._db.close()
            raise

    # -- setup -----------------------------------------------------------

    def _setup(self) -> None:
        db = self._db
        db.execute("PRAGMA foreign_keys = ON")
        db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        # The title sort key in SQL (the v4 backfill; title pages of an older,
        # read-only database): Python's full Unicode case folding, as written.
        db.create_function("casefold", 1, _casefold, deterministic=True)
        # a search for a word with signs (C++) checks the signs: see search_filter
        db.create_function("signed_word_in", 2, _signed_word_in, deterministic=True)
        # what the full-text index holds of an article (schema v11, record_fetch)
        db.create_function("html_text", 1, index_text, deterministic=True)
        db.create_function("fold_text", 1, fold, deterministic=True)  # schema v12
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise DatabaseTooNewError(
                f"{self.path} was written by a newer smartreader (schema {version}, "
                f"this version understands {SCHEMA_VERSION}); refusing to touch it"
            )
        self._list_index = ""
        self._title_key = "title_key"
        self._search = FOLDED  # the columns a search reads (older read-only: below)
        self._has_rules = True  # schema v13 (older read-only: below)
        if not self.readonly:
            self._migrate(version)
            version = SCHEMA_VERSION
        # A damaged byte in the schema that still parses renames a column or a table:
        # every query on it would fail later, with SQLite's words or a traceback.
        if (damage := _schema_damage(db, version)) is not None:
            raise DatabaseCorruptError(
                f"{self.path} is damaged ({damage}); it has not been modified"
            )
        # A read-only store may be at an older schema, without the v3 index or
        # the v4 title key (then title pages fold the titles themselves: slower).
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'entries_list'").fetchone():
            self._list_index = " INDEXED BY entries_list"
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'entries_title'").fetchone():
            self._title_key = "casefold(title)"
        self._has_rules = version >= 13
        if version < 12:  # nothing folded (schema v12): the index has the text as written
            body = "search_text" if version >= 11 else "(content || ' ' || summary)"
            self._search = SearchColumns("title", body, folded=False)

    def _migrate(self, version: int) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode = WAL")
        # FULL: a commit is durable across power loss, not just process crashes.
        db.execute("PRAGMA synchronous = FULL")
        if 0 < version < SCHEMA_VERSION:
            # An old database is about to change shape: keep a copy as it was.
            stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
            folder = self.path.parent / "backups"
            remove_partials(folder)  # an earlier start killed while copying
            self.backup(folder / f"pre-migration-v{version}-{stamp}.sqlite3")
        for v in range(version, SCHEMA_VERSION):
            db.executescript(
                f"BEGIN IMMEDIATE;\n{MIGRATIONS[v]}\nPRAGMA user_version = {v + 1};\nCOMMIT;"
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._guarded:
                self._guarded = False  # once
                walguard.after_close(self.path)

    def set_durable(self, durable: bool) -> None:
        """``False`` for throwaway data (the demo's temporary database): commits skip
        the fsync, so thousands of replayed fetches take seconds, not tens of them; a
        crash may lose the last commits. ``True`` (the default) is ``synchronous=FULL``."""
        with self._lock:
            self._db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'OFF'}")

    def reader(self) -> Store:
        """A read-only connection to the same database with a lock of its own.

        The GUI reads through one: with WAL a reader sees the last commit while a
        write is in progress, so a list re-query never waits for the updater's
        transaction (on this store's lock) to finish."""
        return Store(self.path, readonly=True, immutable=self.immutable)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise StorageError("this store is read-only")
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:
                raise self._write_error(e) from e
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as exc:
                # SQLite may already have rolled back (e.g. on SQLITE_FULL).
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise self._write_error(exc) from exc
                raise

    def _write_error(self, e: sqlite3.OperationalError) -> StorageError:
        """Environment faults during a write, in words for the user (nothing was written)."""
        msg = str(e)
        low = msg.lower()
        if "full" in low:
            text = "the disk is full: nothing was written and nothing stored was lost"
        elif "locked" in low or "busy" in low:
            # (no "will retry": a command does not, nor does a compaction)
            text = "the database is busy (another program is using it); nothing was written"
        elif "readonly" in low or "read-only" in low:
            text = f"cannot write to {self.path}: it is read-only"
        else:
            text = f"cannot write to {self.path}"
        return StorageError(f"{text} ({msg})")

    def _q(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self._db.execute(sql, params))

    def integrity_check(self) -> str:
        return str(self._q("PRAGMA integrity_check")[0][0])

    # -- settings --------------------------------------------------------

    def get_setting(self, key: str, default: Any = None) -> Any:
        rows = self._q("SELECT value FROM settings WHERE key = ?", (key,))
        if not rows:
            return default
        try:
            return json.loads(rows[0][0])
        except ValueError:
            return default

    def get_number(
        self, key: str, default: float, lo: float = -math.inf, hi: float = math.inf
    ) -> float:
        """A numeric setting, or ``default`` when it is missing or not a finite number
        in [lo, hi]: a hand-edited or damaged row must not stop the app from starting
        (the row itself is kept; the next save overwrites it)."""
        v = self.get_setting(key, None)
        if v is None:
            return float(default)
        try:
            ok = not isinstance(v, bool) and math.isfinite(v) and lo <= v <= hi
        except (TypeError, OverflowError):  # a string, a list, an int beyond float
            ok = False
        if not ok:
            logging.getLogger(__name__).warning(
                "setting %s = %.40r is not a number in [%g, %g]; using %g", key, v, lo, hi, default
            )
            return float(default)
        return float(v)

    def set_setting(self, key: str, value: Any) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value)),
            )

    # -- folders ---------------------------------------------------------

    def folder_id(self, name: str, *, create: bool = True) -> int | None:
        name = _name(name)
        if not name:
            return None
        rows = self._q("SELECT id FROM folders WHERE name = ?", (name,))
        if rows:
            return int(rows[0][0])
        same = self._folder_named(name)  # "news" is the folder "News"
        if same is not None:
            return same.id
        if not create:
            return None
        with self._tx() as db:
            cur = db.execute("INSERT INTO folders (name) VALUES (?)", (name,))
            return int(cur.lastrowid or 0)

    def add_folders(self, names: Iterable[str]) -> list[str]:
        """Make the folders of these names that are not there (in any case, named
        as a new folder is), in one transaction; returns the names made. An OPML
        import's folders: one at a time, each read the folder list and committed
        on its own (2,000 took 9 s)."""
        with self._lock:
            taken = {_name(f.name).casefold() for f in self.folders()}
            made: list[str] = []
            with self._tx() as db:
                for raw in names:
                    name = _name(raw)
                    if name and name.casefold() not in taken:
                        db.execute("INSERT INTO folders (name) VALUES (?)", (name,))
                        taken.add(name.casefold())
                        made.append(name)
            return made

    def _folder_named(self, name: str, *, other_than: int | None = None) -> Folder | None:
        """The folder whose name is ``name`` but for case ("News" and "news" side
        by side in the tree read as one folder twice)."""
        key = name.casefold()
        if name.isascii():
            # SQLite's NOCASE is casefold for ASCII; a name with other characters
            # ("ſ", the Kelvin sign) may casefold to ASCII, so those are compared
            # here too. Not every folder per call: an import of 2,000 folders took
            # 9 s reading the whole list for each one.
            rows = self._q(
                "SELECT id, name FROM folders WHERE name = ? COLLATE NOCASE "
                "OR name GLOB '*[^ -~]*'",
                (name,),
            )
        else:
            rows = self._q("SELECT id, name FROM folders")
        for r in sorted(rows, key=lambda r: str(r["name"])):
            # cleaned as a new name is: one kept from an older version may hold
            # what ``_name`` now drops
            if _name(r["name"]).casefold() == key and r["id"] != other_than:
                return Folder(r["id"], r["name"])
        return None

    def folders(self) -> list[Folder]:
        return [Folder(r["id"], r["name"]) for r in self._q("SELECT * FROM folders ORDER BY name")]

    def rename_folder(self, folder_id: int, name: str) -> None:
        name = _name(name)
        if not name:
            raise UsageError("a folder needs a name")
        same = self._folder_named(name, other_than=folder_id)
        if same is not None:  # (a change of case of its own name is fine)
            raise UsageError(f"a folder called “{same.name}” already exists")
        try:
            with self._tx() as db:
                db.execute("UPDATE folders SET name = ? WHERE id = ?", (name, folder_id))
        except sqlite3.IntegrityError as e:
            raise UsageError(f"a folder called “{name}” already exists") from e

    def delete_folder(self, folder_id: int) -> None:
        """Delete a folder; its feeds move to the top level (never deleted with it)."""
        with self._tx() as db:
            db.execute("DELETE FROM folders WHERE id = ?", (folder_id,))

    # -- feeds -----------------------------------------------------------

    def add_feed(
        self,
        url: str,
        *,
        folder: str | None = None,
        title: str = "",
        now: float | None = None,
        auth_username: str | None = None,
        user_title: str | None = None,
        site_link: str | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> int:
        """``title`` is shown until the feed's own comes; ``user_title`` is the
        user's name for it (kept unless the first fetch shows it is the feed's own);
        ``site_link`` (an OPML file's htmlUrl) until the feed names its own;
        ``settings`` as :meth:`update_feed` takes them (an OPML file's).

        One transaction: a new folder is made with the feed, so a refused address
        (or a crash) leaves no empty folder, and the feed never exists without the
        settings it came with."""
        name = _name(folder or "")
        folder_id = self.folder_id(name, create=False) if name else None
        sets, params = self._setting_sets(dict(settings or {}))
        added = time.time() if now is None else now
        own = _name(user_title or "") or None
        try:
            with self._tx() as db:
                if name and folder_id is None:
                    ins = db.execute("INSERT INTO folders (name) VALUES (?)", (name,))
                    folder_id = int(ins.lastrowid or 0)
                cur = db.execute(
                    "INSERT INTO feeds (id, url, title, user_title, folder_id, added_at, "
                    f"auth_username, site_link) VALUES ({_NEXT_FEED_ID}, ?, ?, ?, ?, ?, ?, ?)",
                    (url, title, own, folder_id, added, auth_username, site_link),
                )
                fid = int(cur.lastrowid or 0)
                if sets:
                    db.execute(f"UPDATE feeds SET {', '.join(sets)} WHERE id = ?", (*params, fid))
                return fid
        except sqlite3.IntegrityError as e:
            if "feeds.url" in str(e):
                raise UsageError(f"already subscribed to {url}") from e
            raise UsageError(f"cannot subscribe to {url}: {e}") from e

    def feed_id_by_url(self, url: str) -> int | None:
        rows = self._q("SELECT id FROM feeds WHERE url = ?", (url,))
        return int(rows[0][0]) if rows else None

    def feed_id_by_address(self, url: str) -> int | None:
        """The feed at ``url`` now, or else one that has moved away from it (its
        ``previous_urls``): subscribing to an old address again, from an old OPML
        file or bookmark, would make a second copy of the same feed."""
        found = self.feed_id_by_url(url)
        if found is not None:
            return found
        rows = self._q(
            "SELECT feeds.id FROM feeds, json_each(CASE WHEN json_valid(previous_urls) "
            "THEN previous_urls ELSE '[]' END) AS old WHERE old.value = ? "
            "ORDER BY feeds.id LIMIT 1",
            (url,),
        )
        if rows:
            return int(rows[0][0])
        # Spelt otherwise ("HTTP://Example.org:80/feed", stored so before addresses
        # were put in one spelling): the same feed. One pass over the addresses.
        # Or its host written in the other form ("bücher.example", its ASCII form
        # "xn--bcher-kva.example"): ``address_key`` compares both ways alike.
        want = address_key(url)
        for r in self._q("SELECT id, url, previous_urls FROM feeds ORDER BY id"):
            if any(address_key(u) == want for u in (r["url"], *_previous_urls(r))):
                return int(r["id"])
        return None

    _FEED_SQL = (
        "SELECT feeds.*, folders.name AS folder FROM feeds "
        "LEFT JOIN folders ON folders.id = feeds.folder_id"
    )
    # Without the learned state and hints: their JSON (often overflow pages) is not
    # even read from disk for the title/status lists the GUI refreshes after updates.
    _FEED_LIGHT_SQL = (
        "SELECT feeds.id, url, title, user_title, site_link, icon_url, folder_id, added_at, "
        "weight, min_interval, load_images, auth_username, etag, last_modified, status, "
        "last_error, error_count, last_fetched, last_success, capacity, redirect_url, "
        "redirect_seen, NULL AS hints_json, NULL AS scheduler_state, folders.name AS folder "
        "FROM feeds LEFT JOIN folders ON folders.id = feeds.folder_id"
    )

    @staticmethod
    def _feed(r: sqlite3.Row, with_state: bool = True) -> Feed:
        state = None
        if with_state and r["scheduler_state"]:
            try:
                state = json.loads(r["scheduler_state"])
            except ValueError:
                state = None  # a damaged state only costs what was learned
        return Feed(
            id=r["id"],
            url=r["url"],
            title=r["title"],
            user_title=r["user_title"],
            site_link=r["site_link"],
            icon_url=r["icon_url"],
            folder_id=r["folder_id"],
            folder=r["folder"],
            added_at=r["added_at"],
            weight=r["weight"],
            min_interval=r["min_interval"],
            load_images=bool(r["load_images"]),
            auth_username=r["auth_username"],
            etag=r["etag"],
            last_modified=r["last_modified"],
            status=r["status"],
            last_error=r["last_error"],
            error_count=r["error_count"],
            last_fetched=r["last_fetched"],
            last_success=r["last_success"],
            capacity=r["capacity"],
            redirect_url=r["redirect_url"],
            redirect_seen=r["redirect_seen"],
            hints=_hints_from_json(r["hints_json"] if with_state else None),
            scheduler_state=state,
            previous_urls=_previous_urls(r),
            keep_days=_setting_column(r, "keep_days"),
            full_text=_flag_column(r, "full_text"),
            max_interval=_setting_column(r, "max_interval"),
        )

    def feed(self, feed_id: int) -> Feed:
        rows = self._q(self._FEED_SQL + " WHERE feeds.id = ?", (feed_id,))
        if not rows:
            raise UsageError(f"no feed with id {feed_id}")
        return self._feed(rows[0])

    def feeds(self, *, with_state: bool = True) -> list[Feed]:
        """Every feed. ``with_state=False`` leaves ``scheduler_state`` None and
        ``hints`` empty: cheaper for lists of titles, counts and status (the
        learned state of hundreds of feeds is a lot of JSON to parse)."""
        rows = self._q(
            (self._FEED_SQL if with_state else self._FEED_LIGHT_SQL)
            + " ORDER BY folders.name IS NOT NULL, folders.name, "
            "lower(coalesce(feeds.user_title, nullif(feeds.title, ''), feeds.url))"
        )
        return [self._feed(r, with_state) for r in rows]

    _FEED_SETTINGS = frozenset(
        {
            "user_title",
            "weight",
            "min_interval",
            "load_images",
            "auth_username",
            "status",
            "url",
            "keep_days",
            "full_text",
            "max_interval",
        }
    )

    def update_feed(self, feed_id: int, **changes: Any) -> None:
        """Change user-facing settings: user_title, folder (name or None), weight,
        min_interval, max_interval, load_images, auth_username, status, url, keep_days,
        full_text."""
        sets: list[str] = []
        params: list[Any] = []
        new_folder = None  # made in the update's transaction: a refused one makes none
        if "folder" in changes:
            folder = _name(changes.pop("folder") or "")
            folder_id = self.folder_id(folder, create=False) if folder else None
            new_folder = folder if folder and folder_id is None else None
            sets.append("folder_id = ?")
            params.append(folder_id)
        more_sets, more_params = self._setting_sets(changes)
        sets += more_sets
        params += more_params
        if not sets:
            return
        try:
            with self._tx() as db:
                if new_folder is not None:
                    ins = db.execute("INSERT INTO folders (name) VALUES (?)", (new_folder,))
                    params[0] = int(ins.lastrowid or 0)
                cur = db.execute(
                    f"UPDATE feeds SET {', '.join(sets)} WHERE id = ?", (*params, feed_id)
                )
                if cur.rowcount == 0:
                    raise UsageError(f"no feed with id {feed_id}")
        except sqlite3.IntegrityError as e:
            if "feeds.url" in str(e):
                raise UsageError("another feed already has this address") from e
            raise UsageError(f"cannot update feed {feed_id}: {e}") from e

    def _setting_sets(self, changes: Mapping[str, Any]) -> tuple[list[str], list[Any]]:
        """Checked ``column = ?`` assignments for feed settings (not the folder)."""
        sets: list[str] = []
        params: list[Any] = []
        for key, value in changes.items():
            if key not in self._FEED_SETTINGS:
                raise UsageError(f"unknown feed setting {key!r}")
            if key == "weight" and not (value is not None and 0 < float(value) <= 100):
                raise UsageError("priority weight must be between 0 and 100")
            if key == "min_interval" and value is not None and float(value) < 60:
                raise UsageError("minimum interval must be at least one minute")
            if (
                key == "max_interval"
                and value is not None
                and not (MAX_INTERVAL_LIMITS[0] <= float(value) <= MAX_INTERVAL_LIMITS[1])
            ):
                raise UsageError("maximum interval must be between one hour and one week")
            if key == "keep_days" and value is not None and not 0 <= float(value) <= 36500:
                raise UsageError("articles are kept between 0 (always) and 36500 days")
            if key == "user_title" and value is not None:
                value = _name(value) or None
            sets.append(f"{key} = ?")
            params.append(int(bool(value)) if key in ("load_images", "full_text") else value)
        return sets, params

    def delete_feed(self, feed_id: int) -> tuple[float, ...]:
        """Delete a feed with its entries, alerts and fetch log. Its budgeted
        requests of the last day stay counted (``spent_requests``): unsubscribing
        and restarting must not free a day's budget that was already spent.
        Returns those requests' times."""
        with self._tx() as db:
            # "the last day" ends at the newest request logged (the store has no clock)
            spent = tuple(
                float(r[0])
                for r in db.execute(
                    "SELECT time FROM fetch_log WHERE feed_id = ? AND manual = 0 "
                    "AND unreachable = 0 AND time >= (SELECT MAX(time) FROM fetch_log) - ?",
                    (feed_id, DAY),
                )
            )
            db.executemany("INSERT INTO spent_requests (time) VALUES (?)", [(t,) for t in spent])
            db.execute("DELETE FROM feeds WHERE id = ?", (feed_id,))
            self._prune_spent(db)
        return spent

    def feed_text_bytes(self, feed_id: int) -> int:
        """The UTF-8 size of a feed's articles' titles and text (full articles
        loaded for them included)."""
        return int(
            self._q(
                "SELECT COALESCE(SUM(LENGTH(CAST(content AS BLOB)) + "
                "LENGTH(CAST(summary AS BLOB)) + LENGTH(CAST(title AS BLOB))), 0) "
                "+ (SELECT COALESCE(SUM(LENGTH(CAST(html AS BLOB))), 0) FROM full_texts "
                "   JOIN entries e ON e.id = full_texts.entry_id WHERE e.feed_id = :f) "
                "FROM entries WHERE feed_id = :f",
                {"f": feed_id},
            )[0][0]
        )

    def snapshot_feed(self, feed_id: int, *, max_bytes: int | None = None) -> FeedSnapshot | None:
        """Every row stored for a feed, as plain data, for putting it back after an
        unsubscribe (``restore_feed``). None when its text is over ``max_bytes``
        (an undo must not hold a huge feed in memory)."""
        with self._lock:
            if max_bytes is not None and self.feed_text_bytes(feed_id) > max_bytes:
                return None
            rows = self._q(
                "SELECT feeds.*, folders.name AS folder_name FROM feeds "
                "LEFT JOIN folders ON folders.id = feeds.folder_id WHERE feeds.id = ?",
                (feed_id,),
            )
            if not rows:
                raise UsageError(f"no feed with id {feed_id}")
            skip = ("folder_id", "folder_name")
            feed = {k: rows[0][k] for k in rows[0].keys() if k not in skip}  # noqa: SIM118
            tables = {}
            for table in FEED_TABLES:
                cur = self._db.execute(f"SELECT * FROM {table} WHERE feed_id = ?", (feed_id,))
                names = tuple(d[0] for d in cur.description)
                tables[table] = (names, [tuple(r) for r in cur])
            full = [
                (str(r[0]), str(r[1]), str(r[2]), float(r[3]))
                for r in self._db.execute(
                    "SELECT e.uid, t.url, t.html, t.fetched FROM full_texts t "
                    "JOIN entries e ON e.id = t.entry_id WHERE e.feed_id = ?",
                    (feed_id,),
                )
            ]
        return FeedSnapshot(
            feed=feed, folder=rows[0]["folder_name"], tables=tables, full_texts=full
        )

    def restore_feed(self, snap: FeedSnapshot, *, spent: Sequence[float] = ()) -> int:
        """Put back a feed ``snapshot_feed`` took, before ``delete_feed`` (whose
        returned ``spent`` requests stop being counted twice). Its id and its
        articles' ids are kept where still free. Raises UsageError when another
        feed has taken its address meanwhile."""
        try:
            with self._tx() as db:
                folder_id = None
                if snap.folder:  # made again, in the same transaction, if deleted since
                    db.execute("INSERT OR IGNORE INTO folders (name) VALUES (?)", (snap.folder,))
                    folder_id = db.execute(
                        "SELECT id FROM folders WHERE name = ?", (snap.folder,)
                    ).fetchone()[0]
                feed = dict(snap.feed)
                old_id = int(feed.pop("id"))
                feed["folder_id"] = folder_id
                # Ids are not handed out again (schema v10), so its own is free
                # unless taken before that.
                taken = db.execute("SELECT 1 FROM feeds WHERE id = ?", (old_id,)).fetchone()
                cur = db.execute(
                    f"INSERT INTO feeds (id, {', '.join(feed)}) "
                    f"VALUES ({_NEXT_FEED_ID if taken else '?'}, {', '.join('?' * len(feed))})",
                    (() if taken else (old_id,)) + tuple(feed.values()),
                )
                fid = int(cur.lastrowid or 0)
                for table, (names, rows) in snap.tables.items():
                    self._restore_rows(db, table, names, rows, fid)
                db.executemany(
                    "INSERT INTO full_texts (entry_id, url, html, fetched) "
                    "SELECT id, ?, ?, ? FROM entries WHERE feed_id = ? AND uid = ?",
                    [(url, text, t, fid, uid) for uid, url, text, t in snap.full_texts],
                )
                for t in spent:
                    db.execute(
                        "DELETE FROM spent_requests WHERE rowid IN "
                        "(SELECT rowid FROM spent_requests WHERE time = ? LIMIT 1)",
                        (t,),
                    )
                return fid
        except sqlite3.IntegrityError as e:
            raise UsageError(
                f"cannot resubscribe: another feed now has the address {snap.feed['url']}"
            ) from e

    @staticmethod
    def _restore_rows(
        db: sqlite3.Connection,
        table: str,
        names: tuple[str, ...],
        rows: list[tuple[Any, ...]],
        feed_id: int,
    ) -> None:
        if not rows:
            return
        fcol = names.index("feed_id")
        with_id = list(range(len(names)))
        without_id = [i for i, n in enumerate(names) if n != "id"]
        # Articles keep their ids where still free: undo steps of marks name them by
        # id. Other rows (fetch log, alerts) are referred to by nothing: new ids.
        taken: set[int] | None = None
        if table == "entries" and "id" in names:
            icol = names.index("id")
            first = min(int(r[icol]) for r in rows)
            taken = {
                int(r[0]) for r in db.execute("SELECT id FROM entries WHERE id >= ?", (first,))
            }

        def insert(columns: list[int], values: list[Any]) -> None:
            marks = ", ".join("?" * len(columns))
            cols = ", ".join(names[i] for i in columns)
            if taken is not None and "id" not in (names[i] for i in columns):
                cols, marks = f"id, {cols}", f"{_NEXT_ENTRY_ID}, {marks}"
            db.execute(
                f"INSERT INTO {table} ({cols}) VALUES ({marks})", [values[i] for i in columns]
            )

        for row in rows:
            values = list(row)
            values[fcol] = feed_id
            if taken is not None and values[icol] not in taken:
                insert(with_id, values)
            else:
                insert(without_id, values)

    def record_request(self, at: float) -> None:
        """A budgeted request that has no fetch-log row of its own (a move's
        extra request): the 24 h cap counts it after a restart too."""
        with self._tx() as db:
            db.execute("INSERT INTO spent_requests (time) VALUES (?)", (at,))
            self._prune_spent(db)

    @staticmethod
    def _prune_spent(db: sqlite3.Connection) -> None:
        # two days: a clock that went back a little still finds the last day's
        db.execute(
            "DELETE FROM spent_requests WHERE time < (SELECT MAX(time) FROM spent_requests) - ?",
            (2 * DAY,),
        )

    def save_scheduler_state(self, states: dict[int, dict[str, Any]]) -> None:
        with self._tx() as db:
            db.executemany(
                "UPDATE feeds SET scheduler_state = ? WHERE id = ?",
                [(json.dumps(s), fid) for fid, s in states.items()],
            )

    # -- the result of a fetch --------------------------------------------

    def record_fetch(self, rec: FetchRecord) -> FetchOutcome:
        """Apply one fetch attempt atomically: new entries, feed metadata,
        validators, error state, scheduler state, fetch log and any alert.

        Entries already stored are never altered by a fetch except for
        title/content updates of the same uid; read/starred flags are kept.
        """
        new_ids: list[int] = []
        alert_id: int | None = None
        moved_from: str | None = None
        with self._tx() as db:
            row = db.execute(
                "SELECT capacity, redirect_url, redirect_seen, redirect_since, url, "
                "previous_urls FROM feeds WHERE id = ?",
                (rec.feed_id,),
            ).fetchone()
            if row is None:
                raise UsageError(f"no feed with id {rec.feed_id}")
            # deleted as old: the window still carries them, they are not new
            purged = self._uids_in(
                db, rec.feed_id, [e.uid for e in rec.entries], ("purged_entries",)
            )
            if rec.status == "ok" and rec.entries:
                self._forget_purged(db, rec.feed_id, {e.uid for e in rec.entries}, rec.time)
            # Ids break ties of time newest first (``_date_order``): a document
            # listed oldest first is stored from its end.
            chronological = _oldest_first(rec.entries)
            for e in reversed(rec.entries) if chronological else rec.entries:
                if e.uid in purged:
                    continue
                cur = db.execute(
                    "INSERT INTO entries (id, feed_id, uid, title, title_key, link, author, "
                    "published, updated, first_seen, sort_time, content, summary, enclosures, "
                    "search_text, search_title) "
                    f"VALUES ({_NEXT_ENTRY_ID},?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                    "ON CONFLICT (feed_id, uid) DO NOTHING",
                    (
                        rec.feed_id,
                        e.uid,
                        e.title,
                        _casefold(e.title),
                        e.link,
                        e.author,
                        e.published,
                        e.updated,
                        rec.time,
                        _sort_time(e.published, rec.time),
                        e.content,
                        e.summary,
                        _enclosures_to_json(e.enclosures),
                        _search_text(e.content, e.summary),
                        fold(e.title),
                    ),
                )
                if cur.rowcount:
                    new_ids.append(int(cur.lastrowid or 0))
                else:
                    # Same item, possibly edited upstream: its text, and a link,
                    # author or enclosure fixed there (a draft's ?p=123 link, a
                    # broken episode file); read/starred flags stay. A field the
                    # item comes without keeps what is stored: an item whose markup
                    # broke (an unclosed <title> or CDATA, read leniently) came with
                    # no title, link or text, and blanked the article stored whole.
                    fields = (
                        "title",
                        "title_key",
                        "content",
                        "summary",
                        "link",
                        "author",
                        "enclosures",
                    )
                    new = {
                        "title": e.title or None,
                        "title_key": _casefold(e.title) if e.title else None,
                        "content": e.content or None,
                        "summary": e.summary or None,
                        "link": e.link or None,
                        "author": e.author or None,
                        "enclosures": _enclosures_to_json(e.enclosures) if e.enclosures else None,
                        "updated": e.updated,
                        "feed_id": rec.feed_id,
                        "uid": e.uid,
                    }
                    db.execute(
                        "UPDATE entries SET "
                        + ", ".join(f"{c} = coalesce(:{c}, {c})" for c in fields)
                        # the text the index holds follows the content and summary
                        # (and a full article loaded for it, see _FULL_TEXT_SQL)
                        + ", search_text = fold_text(html_text(coalesce(:content, content)) || ' ' "
                        "|| html_text(coalesce(:summary, summary))" + _FULL_TEXT_SQL + "), "
                        "search_title = fold_text(coalesce(:title, title))"
                        + ", updated = :updated WHERE feed_id = :feed_id AND uid = :uid AND ("
                        + " OR ".join(f"coalesce(:{c}, {c}) IS NOT {c}" for c in fields)
                        + ")",
                        new,
                    )
            ruled = self._apply_rules(db, rec.feed_id, new_ids) if new_ids else (0, 0)
            sets = ["last_fetched = ?"]
            params: list[Any] = [rec.time]
            if rec.status in ("ok", "not_modified"):
                sets += ["last_success = ?", "last_error = NULL", "error_count = 0"]
                params.append(rec.time)
            elif rec.status == "gone":
                sets += ["status = 'gone'", "last_error = ?"]
                params.append(rec.error or "the server says this feed is gone for good (410)")
            elif rec.status == "error":
                sets += ["last_error = ?", "error_count = error_count + 1"]
                params.append(rec.error or "fetch failed")
            elif rec.status == "rate_limited":
                sets += ["last_error = ?"]
                params.append(rec.error or "the server asked us to slow down")
            if rec.status == "ok":
                if rec.feed_title:  # an empty one never replaces a name
                    # Nor does a document with no items replace the name of a feed
                    # that has worked before: "Please log in", a parked domain's
                    # page, served as a feed.
                    sets.append(
                        "title = CASE WHEN ? AND last_success IS NOT NULL AND title != '' "
                        "THEN title ELSE ? END"
                    )
                    params.extend([not rec.entries, rec.feed_title])
                    # A name given before the first fetch (an imported list's, `add
                    # --title`) that is only the feed's own title follows the feed.
                    sets.append(
                        "user_title = CASE WHEN last_success IS NULL AND user_title = ? "
                        "THEN NULL ELSE user_title END"
                    )
                    params.append(rec.feed_title)
                if rec.site_link is not None:
                    sets.append("site_link = ?")
                    params.append(rec.site_link)
                if rec.icon_url is not None:
                    sets.append("icon_url = ?")
                    params.append(rec.icon_url)
                if rec.entries:
                    sets.append("capacity = max(coalesce(capacity, 0), ?)")
                    params.append(len(rec.entries))
            if rec.update_validators:
                sets += ["etag = ?", "last_modified = ?"]
                params += [rec.etag, rec.last_modified]
            if rec.hints is not None:
                sets.append("hints_json = ?")
                params.append(_hints_to_json(rec.hints))
            if rec.scheduler_state is not None:
                sets.append("scheduler_state = ?")
                params.append(json.dumps(rec.scheduler_state))
            # Permanent redirects: move the feed only once it is seen consistently.
            if rec.status in ("ok", "not_modified"):
                if rec.redirect_url and rec.redirect_url != row["url"]:
                    same = row["redirect_url"] == rec.redirect_url
                    seen = row["redirect_seen"] + 1 if same else 1
                    since = row["redirect_since"] if same and row["redirect_since"] else rec.time
                    clash = db.execute(
                        "SELECT 1 FROM feeds WHERE url = ? AND id != ?",
                        (rec.redirect_url, rec.feed_id),
                    ).fetchone()
                    settled = (
                        seen >= REDIRECT_CONFIRMATIONS and rec.time - since >= REDIRECT_MIN_AGE
                    )
                    if not clash and (
                        settled
                        or rec.redirect_adopt
                        or is_https_upgrade(row["url"], rec.redirect_url)
                    ):
                        moved_from = row["url"]
                        # an address appears once (a move undone and redone), never
                        # in its own history
                        kept = [
                            u
                            for u in _previous_urls(row)
                            if u not in (moved_from, rec.redirect_url)
                        ]
                        history = [*kept, moved_from][-PREVIOUS_URLS_KEPT:]
                        sets += [
                            "url = ?",
                            "previous_urls = ?",
                            "redirect_url = NULL",
                            "redirect_seen = 0",
                            "redirect_since = NULL",
                        ]
                        params += [rec.redirect_url, json.dumps(history)]
                    else:
                        sets += ["redirect_url = ?", "redirect_seen = ?", "redirect_since = ?"]
                        params += [rec.redirect_url, seen, since]
                else:
                    sets += ["redirect_url = NULL", "redirect_seen = 0", "redirect_since = NULL"]
            db.execute(f"UPDATE feeds SET {', '.join(sets)} WHERE id = ?", (*params, rec.feed_id))
            db.execute(
                "INSERT INTO fetch_log (feed_id, time, status, http_status, bytes, new_items, "
                "window_items, duration, error, manual, missed_estimate, warnings, unreachable) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rec.feed_id,
                    rec.time,
                    rec.status,
                    rec.http_status,
                    rec.bytes,
                    len(new_ids),
                    len(rec.entries),
                    rec.duration,
                    rec.error,
                    int(rec.manual),
                    rec.missed_estimate,
                    json.dumps([str(w)[:WARNING_CHARS] for w in rec.warnings[:WARNINGS_KEPT]]),
                    int(rec.unreachable),
                ),
            )
            if rec.missed_estimate > 0:
                cur = db.execute(
                    "INSERT INTO alerts (feed_id, created, missed_estimate, window_from, "
                    "window_to, capacity) VALUES (?,?,?,?,?,?)",
                    (
                        rec.feed_id,
                        rec.time,
                        rec.missed_estimate,
                        rec.missed_from,
                        rec.missed_to,
                        len(rec.entries) or row["capacity"],
                    ),
                )
                alert_id = int(cur.lastrowid or 0)
        if chronological:
            new_ids.reverse()  # in document order
        return FetchOutcome(tuple(new_ids), len(rec.entries), alert_id, moved_from, *ruled)

    # -- rules ------------------------------------------------------------

    def _apply_rules(self, db: sqlite3.Connection, feed_id: int, ids: list[int]) -> tuple[int, int]:
        """Apply the feed's rules and every feed's to its new entries ``ids``, in
        the fetch's transaction (so nothing is announced that a rule muted).
        Returns how many were marked read and how many starred."""
        if not self._has_rules:
            return 0, 0
        rules = db.execute(
            "SELECT id, query, title_only, action FROM rules "
            "WHERE feed_id IS NULL OR feed_id = ? ORDER BY id",
            (feed_id,),
        ).fetchall()
        done: dict[str, set[int]] = {"read": set(), "star": set()}
        for r in rules:
            hit = self._rule_hits(db, r["query"], bool(r["title_only"]), ids)
            if hit:
                db.execute("UPDATE rules SET hits = hits + ? WHERE id = ?", (len(hit), r["id"]))
                done[r["action"]].update(hit)
        for action, column in (("read", "read"), ("star", "starred")):
            if done[action]:
                marks = ",".join("?" * len(done[action]))
                db.execute(
                    f"UPDATE entries SET {column} = 1 WHERE id IN ({marks})", sorted(done[action])
                )
        return len(done["read"]), len(done["star"])

    @staticmethod
    def _rule_hits(
        db: sqlite3.Connection, query: str, title_only: bool, ids: Sequence[int]
    ) -> list[int]:
        out: list[int] = []
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            cond = search_filter(
                query,
                FOLDED,
                prefix=False,
                title_only=title_only,
                id_range=(min(chunk), max(chunk)),
            )
            if cond is None:  # stored by hand with nothing to look for: matches nothing
                return []
            out += [
                int(x[0])
                for x in db.execute(
                    f"SELECT id FROM entries WHERE id IN ({','.join('?' * len(chunk))}) "
                    f"AND {cond[0]}",
                    [*chunk, *cond[1]],
                )
            ]
        return out

    @staticmethod
    def rule_values(
        query: str, feed_id: int | None, title_only: bool, action: str
    ) -> tuple[str, int | None, int, str]:
        """A rule's columns, checked (the feed's existence aside: the insert checks
        it); raises UsageError. Public so a command can refuse before it opens,
        and possibly creates, a database."""
        query = " ".join(str(query).split())
        if search_filter(query, FOLDED, prefix=False) is None:
            raise UsageError(
                f"a rule needs a word to look for ({query!r} has none: signs and "
                "emoji are not words)"
                if query
                else "a rule needs a word to look for"
            )
        if action not in RULE_ACTIONS:
            raise UsageError(f"a rule marks articles read or stars them, not {action!r}")
        return query, feed_id, int(bool(title_only)), action

    def _rules_table(self) -> None:
        if not self._has_rules:
            raise UsageError("this database is from an older version: it has no rules yet")

    def rules(self, feed_id: int | None = None) -> list[Rule]:
        """Every rule (``feed_id``: those that apply to that feed: its own and every
        feed's), oldest first. An older read-only database has none."""
        if not self._has_rules:
            return []
        sql = "SELECT * FROM rules"
        params: tuple[Any, ...] = ()
        if feed_id is not None:
            sql += " WHERE feed_id IS NULL OR feed_id = ?"
            params = (feed_id,)
        return [
            Rule(
                r["id"],
                r["query"],
                r["feed_id"],
                bool(r["title_only"]),
                r["action"],
                r["created"],
                r["hits"],
            )
            for r in self._q(sql + " ORDER BY id", params)
        ]

    def add_rule(
        self,
        query: str,
        *,
        feed_id: int | None = None,
        title_only: bool = False,
        action: str = "read",
        now: float,
    ) -> int:
        """A new rule for the articles fetched from now on (see :meth:`rule_matches`
        for those already stored). Raises UsageError for a query with no word, an
        unknown action or feed."""
        self._rules_table()
        values = self.rule_values(query, feed_id, title_only, action)
        try:
            with self._tx() as db:
                cur = db.execute(
                    "INSERT INTO rules (query, feed_id, title_only, action, created) "
                    "VALUES (?,?,?,?,?)",
                    (*values, now),
                )
                return int(cur.lastrowid or 0)
        except sqlite3.IntegrityError as e:
            raise UsageError(f"no feed with id {feed_id}") from e

    def update_rule(
        self,
        rule_id: int,
        query: str,
        *,
        feed_id: int | None = None,
        title_only: bool = False,
        action: str = "read",
    ) -> None:
        """Change a rule; its count of hits starts again when what it matches changed."""
        self._rules_table()
        values = self.rule_values(query, feed_id, title_only, action)
        try:
            with self._tx() as db:
                cur = db.execute(
                    "UPDATE rules SET hits = CASE WHEN query = ? AND title_only = ? "
                    "AND feed_id IS ? THEN hits ELSE 0 END, "
                    "query = ?, feed_id = ?, title_only = ?, action = ? WHERE id = ?",
                    (values[0], values[2], values[1], *values, rule_id),
                )
                if cur.rowcount == 0:
                    raise UsageError(f"no rule with id {rule_id}")
        except sqlite3.IntegrityError as e:
            raise UsageError(f"no feed with id {feed_id}") from e

    def delete_rule(self, rule_id: int) -> None:
        self._rules_table()
        with self._tx() as db:
            if db.execute("DELETE FROM rules WHERE id = ?", (rule_id,)).rowcount == 0:
                raise UsageError(f"no rule with id {rule_id}")

    def find_rule(
        self, query: str, *, feed_id: int | None = None, title_only: bool = False, action: str
    ) -> int | None:
        """The id of a rule that does exactly this already (None: none does): adding
        it again, to apply it to the stored articles too, must not make a twin."""
        same = (" ".join(query.split()), feed_id, bool(title_only), action)
        for r in self.rules():
            if (r.query, r.feed_id, r.title_only, r.action) == same:
                return r.id
        return None

    def _rule_rows(
        self, query: str, feed_id: int | None, title_only: bool
    ) -> list[tuple[int, bool, bool]]:
        """(id, read, starred) of the stored articles a rule with these terms
        matches, newest first."""
        cond = search_filter(
            " ".join(query.split()), self._search, prefix=False, title_only=title_only
        )
        if cond is None:
            return []
        where, params = [cond[0]], list(cond[1])
        if feed_id is not None:
            where.append("feed_id = ?")
            params.append(feed_id)
        rows = self._q(
            f"SELECT id, read, starred FROM entries WHERE {' AND '.join(where)} "
            "ORDER BY sort_time DESC, id",
            params,
        )
        return [(int(r[0]), bool(r[1]), bool(r[2])) for r in rows]

    def rule_matches(
        self,
        query: str,
        *,
        feed_id: int | None = None,
        title_only: bool = False,
        unread_only: bool = False,
        unstarred_only: bool = False,
    ) -> list[int]:
        """Ids of the stored articles a rule with these terms matches, newest first
        (``unread_only``, ``unstarred_only``: those not read, not starred)."""
        return [
            i
            for i, read, starred in self._rule_rows(query, feed_id, title_only)
            if not (unread_only and read) and not (unstarred_only and starred)
        ]

    def rule_preview(
        self, query: str, *, feed_id: int | None = None, title_only: bool = False, action: str
    ) -> tuple[int, list[int]]:
        """How many stored articles a rule with these terms matches, and the ids of
        those applying it now would change (unread ones for "read", unstarred ones
        for "star"), in one query: the dialog counts as the user types."""
        rows = self._rule_rows(query, feed_id, title_only)
        flag = 2 if action == "star" else 1
        return len(rows), [r[0] for r in rows if not r[flag]]

    def known_uids(self, feed_id: int, uids: Sequence[str]) -> set[str]:
        """Which of these uids the feed has delivered before (for is_new flags):
        stored, or stored once and deleted as old."""
        with self._lock:
            return self._uids_in(self._db, feed_id, uids, ("entries", "purged_entries"))

    def stable_uids(self, feed_id: int, entries: Sequence[ParsedEntry]) -> tuple[ParsedEntry, ...]:
        """``entries``, each that is a stored item under a new id given its stored uid.

        Some feeds make up a new guid/id on every request (a timestamp or session
        token in it): each fetch would store every item again and tell the
        scheduler they are all new (a false rate, false missed-item alerts). An
        entry whose uid the feed never delivered is a stored item of the feed when
        it has the same link and title (exactly: the title index only narrows the
        search), that item's uid is not in this document (two items sharing both
        in one document stay two), and they agree on more: the same published
        time, or the same content and summary. A feed that reuses one link and
        title for each new post (a status page) dates it anew and words it anew;
        with no dates to tell, different text is a new post, not an edit (an edit
        would overwrite the old post's text).

        Entries with no link or no title are left alone: the lookup goes through
        the title index (``entries_title``), and an empty title is shared by too
        many articles of every feed for that to be cheap. Items deleted as old keep
        only their uid (``purged_entries``), so one whose id changed is not
        recognised.
        """
        entries = tuple(entries)
        with self._lock:
            entries = self._told_apart(feed_id, entries)
            in_doc = {e.uid for e in entries}
            known = self._uids_in(self._db, feed_id, list(in_doc), ("entries", "purged_entries"))
            fresh = [e for e in entries if e.uid not in known and e.link and e.title]
            if not fresh:
                return entries
            found: dict[str, sqlite3.Row] = {}  # by uid: two chunks may find one row
            for i in range(0, len(fresh), 400):  # 801 parameters: under SQLite's limit
                chunk = fresh[i : i + 400]
                keys = sorted({_casefold(e.title) for e in chunk})
                links = sorted({str(e.link) for e in chunk})
                rows = self._db.execute(
                    "SELECT id, uid, link, title, published, content, summary FROM entries "
                    # by title: the planner would read every row of the feed instead
                    f"INDEXED BY entries_title WHERE title_key IN ({','.join('?' * len(keys))}) "
                    f"AND feed_id = ? AND link IN ({','.join('?' * len(links))})",
                    (*keys, feed_id, *links),
                )
                found.update((r["uid"], r) for r in rows if r["uid"] not in in_doc)
        stored: dict[tuple[str, str], list[sqlite3.Row]] = {}
        for r in sorted(found.values(), key=lambda r: int(r["id"])):  # the oldest first
            stored.setdefault((r["link"], r["title"]), []).append(r)
        renamed: dict[str, str] = {}
        for e in fresh:
            same = stored.get((str(e.link), e.title))
            if not same:
                continue
            # Agreeing on the date is an edit, on the text a date made at each
            # request; on both is best (several items may share link and title).
            agree = [
                2 * (e.published is not None and r["published"] == e.published)
                + ((r["content"], r["summary"]) == (e.content, e.summary))
                for r in same
            ]
            best = max(agree)
            if best:
                match = same.pop(agree.index(best))  # one stored item answers one entry
                renamed[e.uid] = match["uid"]
        if not renamed:
            return entries
        return tuple(replace(e, uid=renamed[e.uid]) if e.uid in renamed else e for e in entries)

    def _told_apart(
        self, feed_id: int, entries: tuple[ParsedEntry, ...]
    ) -> tuple[ParsedEntry, ...]:
        """``entries``, each that reuses a stored article's id for another item
        given the id ``net/parse`` gives items that share one in a document.

        A feed that gives every item one guid, showing one item at a time, sent
        each new post under the id of the first: it overwrote that article's
        title and text and never came as new. Another item is one whose link and
        title both differ from the stored article's (a link fixed upstream, or a
        title edited, is the same item)."""
        found: dict[str, tuple[str, str]] = {}
        for i in range(0, len(entries), 500):
            chunk = [e.uid for e in entries[i : i + 500]]
            found.update(
                (r[0], (r[1], r[2]))
                for r in self._db.execute(
                    f"SELECT uid, link, title FROM entries WHERE feed_id = ? "
                    f"AND uid IN ({','.join('?' * len(chunk))})",
                    (feed_id, *chunk),
                )
            )
        out = []
        for e in entries:
            stored = found.get(e.uid)
            if (
                stored is not None
                and e.link
                and stored[0]
                and stored[0] != e.link
                and stored[1] != e.title
            ):
                e = replace(e, uid=told_apart(e.uid, e.link, e.title))
            out.append(e)
        return tuple(out)

    @staticmethod
    def _uids_in(
        db: sqlite3.Connection, feed_id: int, uids: Sequence[str], tables: Sequence[str]
    ) -> set[str]:
        """The feed's uids among these found in any of ``tables`` (500 per query:
        SQLite's limit on parameters)."""
        out: set[str] = set()
        for i in range(0, len(uids), 500):
            chunk = list(uids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            sql = " UNION ".join(
                f"SELECT uid FROM {t} WHERE feed_id = ? AND uid IN ({marks})" for t in tables
            )
            out.update(r[0] for r in db.execute(sql, [feed_id, *chunk] * len(tables)))
        return out

    # -- keeping the database small ------------------------------------------

    @staticmethod
    def _forget_purged(db: sqlite3.Connection, feed_id: int, carried: set[str], now: float) -> None:
        """Drop the feed's deleted-article identities its document no longer
        carries, ``PURGED_KEEP_DAYS`` after their deletion: one row per deleted
        article, kept for good, grew the file without end."""
        old = db.execute(
            "SELECT uid FROM purged_entries WHERE feed_id = ? AND purged < ?",
            (feed_id, now - PURGED_KEEP_DAYS * DAY),
        )
        gone = [(feed_id, r[0]) for r in old if r[0] not in carried]
        db.executemany("DELETE FROM purged_entries WHERE feed_id = ? AND uid = ?", gone)

    def purge_old(
        self,
        now: float,
        *,
        read_days: float | None,
        unread_days: float | None = None,
        cancel: Any = None,
        batch: int = PURGE_BATCH,
    ) -> PurgeResult:
        """Delete articles stored longer than ``read_days`` (read ones) or
        ``unread_days`` (unread ones) ago; ``None`` or 0 keeps them. Starred
        articles are always kept. Each deleted article's identity stays behind
        (``purged_entries``) so its feed cannot deliver it again as new. Also drops
        fetch-log rows and dismissed alerts older than ``LOG_KEEP_DAYS``.

        Works in short transactions of ``batch`` articles, so other writes (the
        GUI marking an article read) wait milliseconds, not the whole purge;
        ``cancel`` (an object with ``is_set()``) stops between two of them."""
        counts = {1: 0, 0: 0}
        finished = True
        for read, where, params in self._purge_passes(now, read_days, unread_days):
            while True:
                if cancel is not None and cancel.is_set():
                    finished = False
                    break
                with self._tx() as db:
                    ids = [
                        r[0]
                        for r in db.execute(
                            f"SELECT id FROM entries WHERE {where} LIMIT ?", (*params, batch)
                        )
                    ]
                    if ids:
                        marks = ",".join("?" * len(ids))
                        db.execute(
                            "INSERT OR IGNORE INTO purged_entries (feed_id, uid, purged) "
                            f"SELECT feed_id, uid, ? FROM entries WHERE id IN ({marks})",
                            (now, *ids),
                        )
                        db.execute(f"DELETE FROM entries WHERE id IN ({marks})", ids)
                counts[read] += len(ids)
                if len(ids) < batch:
                    break
            if not finished:
                break
        log_rows = 0
        if finished:
            old = now - LOG_KEEP_DAYS * DAY
            with self._tx() as db:
                log_rows += db.execute(
                    "DELETE FROM fetch_log WHERE time < ? AND id NOT IN "
                    "(SELECT MAX(id) FROM fetch_log GROUP BY feed_id)",
                    (old,),
                ).rowcount
                log_rows += db.execute(
                    "DELETE FROM alerts WHERE dismissed = 1 AND created < ?", (old,)
                ).rowcount
        return PurgeResult(counts[1], counts[0], log_rows, finished)

    def count_purgeable(
        self, now: float, *, read_days: float | None, unread_days: float | None = None
    ) -> int:
        """How many articles ``purge_old`` with these limits would delete now."""
        return sum(
            int(self._q(f"SELECT count(*) FROM entries WHERE {where}", params)[0][0])
            for _read, where, params in self._purge_passes(now, read_days, unread_days)
        )

    def count_feed_purgeable(
        self,
        feed_id: int,
        now: float,
        *,
        keep_days: float | None,
        read_days: float | None,
        unread_days: float | None = None,
    ) -> int:
        """How many of one feed's articles ``purge_old`` would delete now if the feed
        kept them ``keep_days`` (None: as Settings' ``read_days``/``unread_days``)."""
        own = {f: d for f, d in self._feed_limits().items() if f != feed_id}
        if keep_days is not None:
            own[feed_id] = float(keep_days)
        passes = self._purge_passes(now, read_days, unread_days, own)
        sql = "SELECT count(*) FROM entries WHERE {} AND feed_id = ?"
        return sum(int(self._q(sql.format(w), (*p, feed_id))[0][0]) for _r, w, p in passes)

    def _feed_limits(self) -> dict[int, float]:
        """Feeds with a limit of their own (``keep_days``): id → days (0: always)."""
        rows = self._q("SELECT id, keep_days FROM feeds WHERE keep_days IS NOT NULL")
        return {int(r[0]): float(r[1]) for r in rows}

    def _purge_passes(
        self,
        now: float,
        read_days: float | None,
        unread_days: float | None,
        own: dict[int, float] | None = None,
    ) -> list[tuple[int, str, tuple[Any, ...]]]:
        """(read flag, WHERE, parameters) for each group of articles old enough to
        go: Settings' limits for feeds that follow them, a feed's own for its read
        articles; a feed that keeps everything loses nothing. ``own``: the feeds'
        own limits (default: as stored)."""
        own = self._feed_limits() if own is None else own
        passes: list[tuple[int, str, tuple[Any, ...]]] = []

        def settings_pass(read: int, days: float | None, exempt: list[int]) -> None:
            if days and days > 0:
                # the entries_age index finds the old ones; the exempt feeds are filtered
                where = f"{_OLD} AND feed_id NOT IN ({','.join('?' * len(exempt))})"
                passes.append((read, where, (read, now - days * DAY, *exempt)))

        settings_pass(1, read_days, sorted(own))
        for fid, days in sorted(own.items()):
            if days > 0:
                passes.append((1, f"{_OLD} AND feed_id = ?", (1, now - days * DAY, fid)))
        settings_pass(0, unread_days, sorted(f for f, d in own.items() if d <= 0))
        return passes

    def used_bytes(self) -> int:
        """What the data takes: the file's pages less its free ones (deleted
        articles leave free pages, reused by new ones; the file does not shrink)."""
        pages = int(self._q("PRAGMA page_count")[0][0])
        free = int(self._q("PRAGMA freelist_count")[0][0])
        return (pages - free) * int(self._q("PRAGMA page_size")[0][0])

    def file_bytes(self) -> int:
        """What the database takes on disk: its file and its write-ahead log."""
        if str(self.path) == ":memory:":
            return 0
        total = 0
        for p in (self.path, self.path.with_name(self.path.name + "-wal")):
            with contextlib.suppress(OSError):
                total += p.stat().st_size
        return total

    def compact(self) -> tuple[int, int]:
        """Rewrite the database without its free pages (``VACUUM``), then fold the
        write-ahead log back in and empty it. Returns the bytes on disk before and
        after. Needs free disk space about the database's size; when it fails
        (disk full, busy) nothing is lost: SQLite leaves the file as it was.
        Writes by others wait for it (seconds for hundreds of MB)."""
        if self.readonly:
            raise StorageError("this store is read-only")
        before = self.file_bytes()
        with self._lock:
            with self._compact_flag:
                self._compacting = True
            try:
                self._db.execute("VACUUM")
                # VACUUM went through the log (WAL): the file shrinks when the log
                # is checkpointed; TRUNCATE also empties the log itself.
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.OperationalError as e:
                if "interrupt" in str(e).lower():
                    raise StorageError(COMPACT_STOPPED) from e
                raise self._write_error(e) from e
            finally:
                with self._compact_flag:
                    self._compacting = False
        return before, self.file_bytes()

    def stop_compact(self) -> bool:
        """Stop a running ``compact`` (from any thread; SQLite rolls it back, and it
        raises ``StorageError(COMPACT_STOPPED)``). Nothing else is interrupted: the
        flag is cleared before the store lock lets another statement run. Returns
        whether a compaction was running."""
        with self._compact_flag:
            if self._compacting:
                self._db.interrupt()
                return True
        return False

    def fetch_log(self, feed_id: int | None = None, limit: int = 50) -> list[FetchLogRow]:
        where, params = ("WHERE feed_id = ?", [feed_id]) if feed_id is not None else ("", [])
        rows = self._q(
            f"SELECT * FROM fetch_log {where} ORDER BY time DESC, id DESC LIMIT ?",
            (*params, limit),
        )
        return [self._log_row(r) for r in rows]

    @staticmethod
    def _log_row(r: sqlite3.Row) -> FetchLogRow:
        return FetchLogRow(
            r["id"],
            r["feed_id"],
            r["time"],
            r["status"],
            r["http_status"],
            r["bytes"],
            r["new_items"],
            r["window_items"],
            r["duration"],
            r["error"],
            bool(r["manual"]),
            r["missed_estimate"],
            _warnings(r["warnings"] if "warnings" in r.keys() else None),  # noqa: SIM118
            bool(r["unreachable"]),
        )

    def last_fetches(self) -> dict[int, FetchLogRow]:
        """The most recent fetch log row of every feed that has one (one query)."""
        rows = self._q(
            "SELECT * FROM fetch_log WHERE id IN (SELECT (SELECT l.id FROM fetch_log l "
            "WHERE l.feed_id = feeds.id ORDER BY l.time DESC, l.id DESC LIMIT 1) FROM feeds)"
        )
        return {int(r["feed_id"]): self._log_row(r) for r in rows}

    def budget_request_times(self, since: float) -> list[float]:
        """The times of the budgeted (not manual) requests made since ``since``
        that a server saw (not ``unreachable``): the fetch log's and the ones it no
        longer or never held (:meth:`delete_feed`, :meth:`record_request`). Sorted."""
        rows = self._q(
            "SELECT time FROM fetch_log WHERE time >= ? AND manual = 0 AND unreachable = 0 "
            "UNION ALL SELECT time FROM spent_requests WHERE time >= ? ORDER BY time",
            (since, since),
        )
        return [float(r[0]) for r in rows]

    def fetch_history(self, feed_id: int) -> dict[str, float | None]:
        """What a feed's whole fetch log (not just its last 50 rows) says about it,
        for the Activity page's "nothing new since" and "failing since":

        - ``checks``: successful checks (ok or 304) ever logged;
        - ``last_new``: when a check last found new items (None: never);
        - ``empty_checks``: successful checks since then (all of them if never);
        - ``failing_since``: the first error of the current run of errors (None
          when the last check that was not an error succeeded, or none failed);
        - ``window_max``: the most items one successful check saw;
        - ``window_full_checks``: successful checks that saw that many.

        Read-only; every sub-query is a range of the (feed_id, time) index."""
        ok = "status IN ('ok', 'not_modified')"
        r = self._q(
            f"SELECT (SELECT count(*) FROM fetch_log WHERE feed_id = :f AND {ok}),"
            " (SELECT max(time) FROM fetch_log WHERE feed_id = :f AND status = 'ok'"
            "  AND new_items > 0),"
            f" (SELECT max(time) FROM fetch_log WHERE feed_id = :f AND {ok}),"
            " (SELECT max(window_items) FROM fetch_log WHERE feed_id = :f AND status = 'ok')",
            {"f": feed_id},
        )[0]
        checks, last_new, last_ok, window_max = r[0], r[1], r[2], r[3]
        r = self._q(
            f"SELECT (SELECT count(*) FROM fetch_log WHERE feed_id = :f AND {ok}"
            "  AND time > :new),"
            " (SELECT min(time) FROM fetch_log WHERE feed_id = :f AND status = 'error'"
            "  AND time > :ok),"
            " (SELECT count(*) FROM fetch_log WHERE feed_id = :f AND status = 'ok'"
            "  AND window_items = :w)",
            {
                "f": feed_id,
                "new": -1.0 if last_new is None else last_new,
                "ok": -1.0 if last_ok is None else last_ok,
                "w": window_max if window_max is not None else -1,
            },
        )[0]
        return {
            "checks": float(checks),
            "last_new": None if last_new is None else float(last_new),
            "empty_checks": float(r[0]),
            "failing_since": None if r[1] is None else float(r[1]),
            "window_max": None if window_max is None else float(window_max),
            "window_full_checks": float(r[2]),
        }

    # -- entries ---------------------------------------------------------

    def entry_ids(
        self,
        *,
        feed_ids: Sequence[int] | None = None,
        unread: bool = False,
        starred: bool = False,
        search: str | None = None,
        oldest_first: bool = False,
        limit: int | None = None,
    ) -> list[int]:
        """Ids for an article list, newest first. Ids only: the GUI loads rows lazily."""
        filters = _list_filters(feed_ids, unread, starred, search, self._search)
        if filters is None:
            return []
        where, params = filters
        sql = "SELECT id FROM entries"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += _date_order(oldest_first)
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [int(r[0]) for r in self._q(sql, params)]

    def entry_keys(
        self,
        *,
        feed_ids: Sequence[int] | None = None,
        unread: bool = False,
        starred: bool = False,
        oldest_first: bool = False,
        after: tuple[int, float] | None = None,
        min_id: int | None = None,
        limit: int | None = None,
    ) -> list[tuple[int, float]]:
        """``(id, sort_time)`` in article-list order (``_date_order``), one page at a
        time: ``after`` is the last key of the previous page (keyset paging, so
        each page is an index range scan however deep it is), as returned:
        ``(id, sort_time)``.
        ``min_id``: only entries with a larger id (stored after that one)."""
        filters = _list_filters(feed_ids, unread, starred)
        if filters is None:
            return []
        where, params = filters
        if min_id is not None:
            where.append("id > ?")
            params.append(int(min_id))
        if after is not None:
            last, t = int(after[0]), float(after[1])
            op, id_op = (">", "<") if oldest_first else ("<", ">")
            # The first term bounds the index range (a seek, not a scan from the
            # top); the rest orders the rows of an equal time.
            where.append(f"sort_time {op}= ? AND (sort_time {op} ? OR id {id_op} ?)")
            params += [t, t, last]
        # With ``min_id`` (the few entries stored since a list was read) a rowid range
        # beats scanning a list index from the top (cost: new rows, not list length).
        sql = "SELECT id, sort_time FROM entries" + (self._list_index if min_id is not None else "")
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += _date_order(oldest_first)
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._lock:
            cur = self._db.execute(sql, params)
            cur.row_factory = None  # plain tuples: this runs for 100,000s of rows
            return cur.fetchall()

    def entry_title_keys(
        self,
        *,
        feed_ids: Sequence[int] | None = None,
        unread: bool = False,
        starred: bool = False,
        search: str | None = None,
        descending: bool = False,
        after: tuple[int, str, float] | None = None,
        limit: int | None = None,
    ) -> list[tuple[int, str, float]]:
        """``(id, title_key, sort_time)`` of an article list sorted by title: the
        case-folded title (``title_key``), newest first within it, then id;
        ``descending`` is the exact reverse. One page at a time like
        ``entry_keys``: ``after`` is the last key of the previous page, as returned,
        and each page is a range scan of the ``entries_title`` index."""
        filters = _list_filters(feed_ids, unread, starred, search, self._search)
        if filters is None:
            return []
        where, params = filters
        key = self._title_key
        if after is not None:
            last, k, t = int(after[0]), str(after[1]), float(after[2])
            # The first term bounds the index range (a seek, not a scan from the
            # top); the rest orders the rows of an equal key.
            if descending:
                where.append(
                    f"{key} <= ? AND ({key} < ? OR sort_time > ? OR (sort_time = ? AND id < ?))"
                )
            else:
                where.append(
                    f"{key} >= ? AND ({key} > ? OR sort_time < ? OR (sort_time = ? AND id > ?))"
                )
            params += [k, k, t, t, last]
        # Feeds with few entries: their own index and a sort of those entries
        # (a title index scan would pass over everything else to find them);
        # otherwise the title index, whose order is the list's.
        hint = ""
        if key == "title_key":
            hint = " INDEXED BY entries_title"
            if feed_ids is not None and self._few_entries(feed_ids):
                hint = " INDEXED BY entries_feed_time"
        sql = f"SELECT id, {key}, sort_time FROM entries{hint}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        if descending:
            sql += f" ORDER BY {key} DESC, sort_time ASC, id DESC"
        else:
            sql += f" ORDER BY {key} ASC, sort_time DESC, id ASC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._lock:
            cur = self._db.execute(sql, params)
            cur.row_factory = None  # plain tuples: this runs for 100,000s of rows
            return cur.fetchall()

    def _few_entries(self, feed_ids: Sequence[int]) -> bool:
        """Whether these feeds hold fewer than SMALL_LIST entries (a bounded count)."""
        marks = ",".join("?" * len(feed_ids))
        rows = self._q(
            f"SELECT count(*) FROM (SELECT 1 FROM entries WHERE feed_id IN ({marks}) "
            f"LIMIT {SMALL_LIST})",
            list(feed_ids),
        )
        return int(rows[0][0]) < SMALL_LIST

    def entry_sort_rows(
        self,
        *,
        feed_ids: Sequence[int] | None = None,
        unread: bool = False,
        starred: bool = False,
        search: str | None = None,
    ) -> list[tuple[int, int, str, float]]:
        """``(id, feed_id, title, sort_time)`` of a whole article list, unordered: what
        sorting it by title or feed needs, read from the ``entries_list`` index alone."""
        filters = _list_filters(feed_ids, unread, starred, search, self._search)
        if filters is None:
            return []
        where, params = filters
        # A few feeds: their own index is the shorter way; otherwise the list index.
        hint = "" if feed_ids is not None and len(feed_ids) <= 20 else self._list_index
        sql = f"SELECT id, feed_id, title, sort_time FROM entries{hint}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._lock:
            cur = self._db.execute(sql, params)
            cur.row_factory = None
            return cur.fetchall()

    def entry_sort_rows_since(
        self,
        min_id: int,
        *,
        feed_ids: Sequence[int] | None = None,
        unread: bool = False,
        starred: bool = False,
    ) -> list[tuple[int, int, str, float]]:
        """``(id, feed_id, title, sort_time)`` of a list's entries stored after
        ``min_id`` (a re-query: a rowid range of the ``entries_list`` index, so the
        cost is the new rows, not the list's length), unordered."""
        filters = _list_filters(feed_ids, unread, starred)
        if filters is None:
            return []
        where, params = filters
        where.append("id > ?")
        params.append(int(min_id))
        sql = f"SELECT id, feed_id, title, sort_time FROM entries{self._list_index} WHERE "
        with self._lock:
            cur = self._db.execute(sql + " AND ".join(where), params)
            cur.row_factory = None
            return cur.fetchall()

    def entry_sort_rows_of(self, ids: Iterable[int]) -> list[tuple[int, int, str, float]]:
        """``(id, feed_id, title, sort_time)`` of these entries (those that exist),
        unordered: the sort keys of a few rows of a list, from the ``entries_list``
        index (never the rows' content)."""
        ids = list(ids)
        out: list[tuple[int, int, str, float]] = []
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            sql = (
                f"SELECT id, feed_id, title, sort_time FROM entries{self._list_index} "
                f"WHERE id IN ({','.join('?' * len(chunk))})"
            )
            with self._lock:
                cur = self._db.execute(sql, chunk)
                cur.row_factory = None
                out += cur.fetchall()
        return out

    def search_ids(self, text: str, id_range: tuple[int, int] | None = None) -> set[int]:
        """Ids of the entries a full-text search finds (unordered); ``id_range``
        ``(lo, hi)`` limits it to ``lo < id <= hi`` (to search a big table in slices)."""
        typed = fold(text) if self._search.folded else text  # once (a paste may be long)
        q = fts_query(typed, folded=False)
        if q is not None and not _substring_words(typed):
            # the index alone, its rowids limited there (a slice reads only its own)
            sql = "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?"
            params: list[Any] = [q]
            if id_range is not None:
                sql += " AND rowid > ? AND rowid <= ?"
        else:
            found = search_filter(typed, replace(self._search, folded=False))  # (done)
            if found is None:
                return set()
            sql = f"SELECT id FROM entries WHERE {found[0]}"
            params = list(found[1])
            if id_range is not None:
                sql += " AND id > ? AND id <= ?"
        if id_range is not None:
            params += [int(id_range[0]), int(id_range[1])]
        with self._lock:
            cur = self._db.execute(sql, params)
            cur.row_factory = None
            return {r[0] for r in cur}

    def max_entry_id(self) -> int:
        return int(self._q("SELECT coalesce(max(id), 0) FROM entries")[0][0])

    def entry_rows(self, ids: Sequence[int]) -> dict[int, EntryRow]:
        out: dict[int, EntryRow] = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i : i + 500])
            rows = self._q(
                "SELECT id, feed_id, title, sort_time, read, starred "
                f"FROM entries{self._list_index} WHERE id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for r in rows:
                out[r[0]] = EntryRow(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]))
        return out

    def entry(self, entry_id: int) -> Entry:
        rows = self._q("SELECT * FROM entries WHERE id = ?", (entry_id,))
        if not rows:
            raise UsageError(f"no entry with id {entry_id}")
        r = rows[0]
        return Entry(
            id=r["id"],
            feed_id=r["feed_id"],
            uid=r["uid"],
            title=r["title"],
            link=r["link"],
            author=r["author"],
            published=r["published"],
            updated=r["updated"],
            first_seen=r["first_seen"],
            sort_time=r["sort_time"],
            content=r["content"],
            summary=r["summary"],
            enclosures=_enclosures_from_json(r["enclosures"]),
            read=bool(r["read"]),
            starred=bool(r["starred"]),
        )

    def entries(self, ids: Sequence[int]) -> list[Entry]:
        return [self.entry(i) for i in ids]

    # -- full articles -----------------------------------------------------

    def full_article(self, entry_id: int) -> FullText | None:
        """The article's page loaded earlier (``save_full_article``), or None."""
        try:
            rows = self._q(
                "SELECT entry_id, url, html, fetched FROM full_texts WHERE entry_id = ?",
                (entry_id,),
            )
        except sqlite3.OperationalError:  # an older database opened read-only
            return None
        if not rows:
            return None
        r = rows[0]
        return FullText(int(r[0]), str(r[1]), str(r[2]), float(r[3]))

    def save_full_article(self, entry_id: int, url: str, html: str, fetched: float) -> bool:
        """Keep an article's loaded page, replacing an older one. False, and
        nothing kept, when the article was deleted meanwhile (a purge or an
        unsubscribe while its page loaded)."""
        try:
            with self._tx() as db:
                db.execute(
                    "INSERT OR REPLACE INTO full_texts (entry_id, url, html, fetched) "
                    "VALUES (?, ?, ?, ?)",
                    (entry_id, url, html, fetched),
                )
                self._reindex(db, entry_id)
        except sqlite3.IntegrityError:  # the entry is gone (foreign key)
            return False
        return True

    @staticmethod
    def _reindex(db: sqlite3.Connection, entry_id: int) -> None:
        """The article's indexed text again: its content and summary, and the full
        article loaded for it, so that search finds the words of the page read."""
        db.execute(
            "UPDATE entries SET search_text = fold_text(html_text(content) || ' ' || "
            f"html_text(summary){_FULL_TEXT_SQL}) WHERE id = ?",
            (entry_id,),
        )

    def delete_full_article(self, entry_id: int) -> None:
        """Forget an article's loaded page (the feed's own text is shown again)."""
        with self._tx() as db:
            db.execute("DELETE FROM full_texts WHERE entry_id = ?", (entry_id,))
            self._reindex(db, entry_id)

    def set_read(self, ids: Sequence[int], read: bool = True) -> None:
        self._set_flag("read", ids, read)

    def set_starred(self, ids: Sequence[int], starred: bool = True) -> None:
        self._set_flag("starred", ids, starred)

    def _set_flag(self, column: str, ids: Sequence[int], value: bool) -> None:
        with self._tx() as db:
            for i in range(0, len(ids), 500):
                chunk = list(ids[i : i + 500])
                db.execute(
                    f"UPDATE entries SET {column} = ? WHERE id IN ({','.join('?' * len(chunk))})",
                    (int(value), *chunk),
                )

    def mark_read(self, ids: Sequence[int]) -> list[int]:
        """Mark these entries read; returns the ones that were unread (what an undo
        must turn back), in the order given."""
        with self._tx() as db:
            was_unread: set[int] = set()
            for i in range(0, len(ids), 500):
                chunk = list(ids[i : i + 500])
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT id FROM entries WHERE read = 0 AND id IN ({marks})"
                was_unread.update(int(r[0]) for r in db.execute(sql, chunk))
                db.execute(f"UPDATE entries SET read = 1 WHERE id IN ({marks})", chunk)
        return [i for i in ids if i in was_unread]

    def mark_all_read(
        self,
        feed_ids: Sequence[int] | None = None,
        before: float | None = None,
        upto_id: int | None = None,
    ) -> list[int]:
        """Mark everything (or these feeds) read, optionally only items first seen
        before ``before``, or stored up to the id ``upto_id`` (what a list shows),
        so items that arrive meanwhile stay unread. Returns the ids it marked, so
        the GUI can undo it."""
        where = ["read = 0"]
        params: list[Any] = []
        if feed_ids is not None:
            where.append(f"feed_id IN ({','.join('?' * len(feed_ids))})")
            params += list(feed_ids)
        if before is not None:
            where.append("first_seen <= ?")
            params.append(before)
        if upto_id is not None:
            where.append("id <= ?")
            params.append(upto_id)
        cond = " AND ".join(where)
        with self._tx() as db:
            # One transaction: the rows selected are exactly the rows updated.
            ids = [int(r[0]) for r in db.execute(f"SELECT id FROM entries WHERE {cond}", params)]
            db.execute(f"UPDATE entries SET read = 1 WHERE {cond}", params)
        return ids

    def unread_counts(self) -> dict[int, int]:
        rows = self._q("SELECT feed_id, count(*) FROM entries WHERE read = 0 GROUP BY feed_id")
        return {int(r[0]): int(r[1]) for r in rows}

    def starred_count(self, feed_id: int | None = None) -> int:
        # The partial index holds just the starred rows; left to itself the planner
        # scans a covering index of every entry (11 ms at 100k, on every tree refresh).
        sql = "SELECT count(*) FROM entries INDEXED BY entries_starred WHERE starred = 1"
        if feed_id is None:
            return int(self._q(sql)[0][0])
        return int(self._q(sql + " AND feed_id = ?", (feed_id,))[0][0])

    def entry_count(self, feed_id: int | None = None) -> int:
        if feed_id is None:
            return int(self._q("SELECT count(*) FROM entries")[0][0])
        return int(self._q("SELECT count(*) FROM entries WHERE feed_id = ?", (feed_id,))[0][0])

    def published_times(self, feed_id: int, since: float | None = None) -> list[float]:
        rows = self._q(
            "SELECT sort_time FROM entries WHERE feed_id = ? AND sort_time >= ? ORDER BY sort_time",
            (feed_id, since if since is not None else 0.0),
        )
        return [float(r[0]) for r in rows]

    # -- alerts ----------------------------------------------------------

    def alerts(self, *, include_dismissed: bool = False, feed_id: int | None = None) -> list[Alert]:
        where, params = [], []
        if not include_dismissed:
            where.append("dismissed = 0")
        if feed_id is not None:
            where.append("feed_id = ?")
            params.append(feed_id)
        sql = "SELECT * FROM alerts"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created DESC"
        return [
            Alert(
                r["id"],
                r["feed_id"],
                r["created"],
                r["missed_estimate"],
                r["window_from"],
                r["window_to"],
                r["capacity"],
                bool(r["dismissed"]),
            )
            for r in self._q(sql, params)
        ]

    def dismiss_alerts(self, ids: Sequence[int] | None = None, feed_id: int | None = None) -> None:
        with self._tx() as db:
            if ids is not None:
                db.executemany("UPDATE alerts SET dismissed = 1 WHERE id = ?", [(i,) for i in ids])
            if feed_id is not None:
                db.execute("UPDATE alerts SET dismissed = 1 WHERE feed_id = ?", (feed_id,))

    def dismiss_feed_alerts(self, through_id: int) -> int:
        """Dismiss alert ``through_id`` and its feed's older open ones (smaller ids:
        raised before it), as the banner's one Dismiss does; an alert raised after
        the user looked stays open. Rows are kept. Returns how many were dismissed."""
        with self._tx() as db:
            # the open ones of one feed: alerts_open
            cur = db.execute(
                "UPDATE alerts SET dismissed = 1 WHERE dismissed = 0 AND id <= ? "
                "AND feed_id = (SELECT feed_id FROM alerts WHERE id = ?)",
                (through_id, through_id),
            )
            return int(cur.rowcount)

    # -- backup ----------------------------------------------------------

    def backup(self, dest: str | os.PathLike[str], *, verify: bool = False) -> Path:
        """A consistent copy made with SQLite's online backup API, written to a
        temporary file, fsynced, then atomically renamed into place. ``verify``:
        the copy must pass ``integrity_check`` before it gets its name (so a
        process killed while checking leaves only a ``.partial``)."""
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".partial")
        remove_partial(tmp)
        check = "ok"
        try:
            out = sqlite3.connect(tmp)
            try:
                with self._lock:
                    self._db.backup(out)
                out.execute("PRAGMA journal_mode = DELETE")
                if verify:
                    check = str(out.execute("PRAGMA integrity_check").fetchone()[0])
            finally:
                out.close()
            if check != "ok":
                remove_partial(tmp)
                raise StorageError(f"the backup {dest} failed its integrity check ({check})")
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
            os.replace(tmp, dest)
            dir_fd = os.open(dest.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except (OSError, sqlite3.Error) as e:
            remove_partial(tmp)
            raise StorageError(f"backup to {dest} failed: {e}") from e
        return dest


# What SQLite makes beside a copy being written (the journal while it is copied,
# WAL and shared memory while its journal mode changes and it is checked).
_SIDE_SUFFIXES = ("", "-journal", "-wal", "-shm")
# A backup's or a pre-migration copy's unfinished copy, and SQLite's files beside it.
PARTIAL = re.compile(
    r"^(?:backup-\d{8}-\d{6}(?:-\d+)?|pre-migration-v\d+-\d{8}-\d{6})"
    r"\.sqlite3\.partial(?:-journal|-wal|-shm)?$"
)


def remove_partial(tmp: Path) -> None:
    """A copy that did not get its name, with the files SQLite made beside it."""
    for suffix in _SIDE_SUFFIXES:
        side = tmp.with_name(tmp.name + suffix)
        if side.exists():  # (normally none: nothing named like a WAL is touched)
            side.unlink(missing_ok=True)


def remove_partials(folder: Path) -> None:
    """The unfinished copies a killed backup or pre-migration copy left in
    ``folder`` (a new name each time: they would pile up); never a usable file,
    never the user's data."""
    with contextlib.suppress(OSError):  # no folder yet, or not ours to list
        for p in folder.iterdir():
            if PARTIAL.match(p.name):
                p.unlink(missing_ok=True)


def upgrade_due(db: Path) -> int | None:
    """The schema version of the database at ``db`` when opening it will upgrade it
    (0 < version < ``SCHEMA_VERSION``: a copy is made, then every article may be
    re-indexed, seconds to a minute on a large one), else None; None too when it
    cannot be read here (the store then says why)."""
    # From the file's header (user_version: bytes 60-63), not through SQLite: a
    # connection, even read-only, leaves a -wal beside a WAL database, which the
    # next start would take for a stray one. (A version the WAL holds that the
    # file does not yet only shows the note for a moment.)
    try:
        with open(db, "rb") as f:
            head = f.read(100)
    except OSError:
        return None
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        return None
    version = int.from_bytes(head[60:64], "big")
    return version if 0 < version < SCHEMA_VERSION else None


def open_unwritable(db: Path) -> Store | None:
    """The database in a folder that cannot be written (a read-only mount, a copy on
    a disc), read-only, for the commands that only read; None where that is not safe:
    no database, or any ``-wal``/``-shm``/``-journal`` beside it (a crash's changes,
    a stray WAL, or a program writing it through another path right now), which only
    a writable folder can apply or set aside. Read as the file lies (``immutable``):
    SQLite cannot make there the ``-shm`` a WAL database otherwise needs."""
    if not db.is_file():
        return None
    if any(db.with_name(db.name + s).exists() for s in ("-wal", "-shm", "-journal")):
        return None
    return Store(db, readonly=True, immutable=True)


_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'"
_COLUMNS = "SELECT name FROM pragma_table_info(?)"
# an FTS5 table's external content table, as its definition names it
_CONTENT = re.compile(r"""\bcontent\s*=\s*'([^']*)'""")
_VIRTUAL = "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"


@dataclass(frozen=True)
class _Schema:
    tables: dict[str, list[str]]  # table → its columns
    content: dict[str, str]  # full-text table → the table it reads (content=)


_expected: dict[int, _Schema] = {}  # by schema version


def _schema_at(version: int) -> _Schema:
    """The tables (with their columns) and full-text tables (with the table each
    reads) of a database made by MIGRATIONS up to ``version``."""
    if version not in _expected:
        mem = sqlite3.connect(":memory:", isolation_level=None)
        try:
            mem.create_function("casefold", 1, _casefold, deterministic=True)
            mem.create_function("html_text", 1, index_text, deterministic=True)
            mem.create_function("fold_text", 1, fold, deterministic=True)
            for v in range(version):
                mem.executescript(MIGRATIONS[v])
            tables = [r[0] for r in mem.execute(_TABLES)]
            _expected[version] = _Schema(
                {t: [r[0] for r in mem.execute(_COLUMNS, (t,))] for t in tables},
                {
                    name: m.group(1)
                    for name, sql in mem.execute(_VIRTUAL)
                    if (m := _CONTENT.search(sql)) is not None
                },
            )
        finally:
            mem.close()
    return _expected[version]


def _schema_damage(db: sqlite3.Connection, version: int) -> str | None:
    """What is missing from the tables a database at ``version`` has; None if nothing.
    Tables and columns someone added are no damage."""
    expected = _schema_at(version)
    have = {r[0] for r in db.execute(_TABLES)}
    for table, columns in expected.tables.items():
        if table not in have:
            return f"the table {table} is missing"
        found = [r[0] for r in db.execute(_COLUMNS, (table,))]
        if found[: len(columns)] != columns:
            return f"the columns of the table {table} are not as smartreader made them"
    # a full-text table whose content table's name lost a byte still opens, and
    # fails at the first search that reads it
    sqls = dict(db.execute(_VIRTUAL).fetchall())
    for table, content in expected.content.items():
        m = _CONTENT.search(str(sqls.get(table) or ""))
        if m is None or m.group(1) != content:
            return f"the full-text table {table} does not read the table {content}"
    return None


def _casefold(text: str | None) -> str:
    """An entry's ``title_key``: its title's sort key (full Unicode case folding)."""
    return text.casefold() if text else ""


def _date_order(oldest_first: bool) -> str:
    """An article list's order by date. Equal times (dated by day only, undated:
    the fetch's time) in id order newest first, a document's own order
    (``record_fetch``); oldest first is the exact reverse, which is also the time
    indexes read backwards (their rows of equal time are in id order)."""
    return " ORDER BY sort_time ASC, id DESC" if oldest_first else " ORDER BY sort_time DESC, id"


def _list_filters(
    feed_ids: Sequence[int] | None,
    unread: bool,
    starred: bool,
    search: str | None = None,
    cols: SearchColumns = FOLDED,
) -> tuple[list[str], list[Any]] | None:
    """WHERE clauses and parameters shared by the article-list queries; None when
    nothing can match (no feeds, or a search with no searchable words)."""
    if feed_ids is not None and not feed_ids:
        return None
    where: list[str] = []
    params: list[Any] = []
    if search is not None:
        found = search_filter(search, cols)
        if found is None:
            return None
        where.append(found[0])
        params += found[1]
    if feed_ids is not None:
        where.append(f"feed_id IN ({','.join('?' * len(feed_ids))})")
        params += list(feed_ids)
    if unread:
        where.append("read = 0")
    if starred:
        where.append("starred = 1")
    return where, params
