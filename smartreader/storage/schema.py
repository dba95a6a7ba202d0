"""Schema and migrations, keyed on ``PRAGMA user_version``.

Each migration is an SQL script run inside one transaction together with the
``user_version`` bump (both are transactional in SQLite, so a crash mid-migration
leaves the old version intact); ``MIGRATIONS[i]`` takes the database from version
``i`` to ``i + 1``. A database whose user_version is
greater than ``len(MIGRATIONS)`` was written by a newer smartreader and is
refused rather than guessed at.
"""

from __future__ import annotations

_V1 = """
CREATE TABLE folders (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,          -- "Tech/Python" for nested OPML folders
    position INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE feeds (
    id              INTEGER PRIMARY KEY,
    url             TEXT NOT NULL UNIQUE,  -- never contains credentials
    title           TEXT NOT NULL DEFAULT '',
    user_title      TEXT,                  -- the user's rename wins over title
    site_link       TEXT,
    icon_url        TEXT,
    folder_id       INTEGER REFERENCES folders(id) ON DELETE SET NULL,
    added_at        REAL NOT NULL,
    -- per-feed settings
    weight          REAL NOT NULL DEFAULT 1.0,
    min_interval    REAL,                  -- seconds; NULL = global default
    load_images     INTEGER NOT NULL DEFAULT 0,
    auth_username   TEXT,                  -- the password lives in the keyring only
    -- HTTP validators: stored and echoed as one set
    etag            TEXT,
    last_modified   TEXT,
    -- state
    status          TEXT NOT NULL DEFAULT 'active',  -- active | gone | paused
    last_error      TEXT,
    error_count     INTEGER NOT NULL DEFAULT 0,
    last_fetched    REAL,
    last_success    REAL,
    capacity        INTEGER,               -- largest window seen (items per document)
    redirect_url    TEXT,                  -- pending permanent redirect target
    redirect_seen   INTEGER NOT NULL DEFAULT 0,
    hints_json      TEXT,                  -- server hints for the scheduler
    scheduler_state TEXT                   -- JSON owned by core.scheduler
);

CREATE TABLE entries (
    id          INTEGER PRIMARY KEY,
    feed_id     INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    uid         TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    link        TEXT,
    author      TEXT NOT NULL DEFAULT '',
    published   REAL,
    updated     REAL,
    first_seen  REAL NOT NULL,
    sort_time   REAL NOT NULL,             -- published, else first_seen
    content     TEXT NOT NULL DEFAULT '',  -- sanitised HTML
    summary     TEXT NOT NULL DEFAULT '',
    enclosures  TEXT NOT NULL DEFAULT '[]',
    read        INTEGER NOT NULL DEFAULT 0,
    starred     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (feed_id, uid)                  -- identity; also serves lookups on update
);
-- article list of one feed, newest first
CREATE INDEX entries_feed_time ON entries (feed_id, sort_time DESC);
-- "All items" list, newest first
CREATE INDEX entries_time ON entries (sort_time DESC);
-- unread counts per feed and the "All unread" list
CREATE INDEX entries_unread ON entries (feed_id) WHERE read = 0;
-- the "Starred" list
CREATE INDEX entries_starred ON entries (sort_time DESC) WHERE starred = 1;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, content, content='entries', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.id, new.title, new.content || ' ' || new.summary);
END;
CREATE TRIGGER entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content || ' ' || old.summary);
END;
CREATE TRIGGER entries_au AFTER UPDATE OF title, content, summary ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content || ' ' || old.summary);
    INSERT INTO entries_fts (rowid, title, content)
    VALUES (new.id, new.title, new.content || ' ' || new.summary);
END;

CREATE TABLE fetch_log (
    id           INTEGER PRIMARY KEY,
    feed_id      INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    time         REAL NOT NULL,
    status       TEXT NOT NULL,            -- ok | not_modified | error | rate_limited | gone
    http_status  INTEGER,
    bytes        INTEGER NOT NULL DEFAULT 0,
    new_items    INTEGER NOT NULL DEFAULT 0,
    window_items INTEGER NOT NULL DEFAULT 0,
    duration     REAL NOT NULL DEFAULT 0,
    error        TEXT,
    manual       INTEGER NOT NULL DEFAULT 0,
    missed_estimate REAL NOT NULL DEFAULT 0
);
-- recent fetch log of one feed; requests used today
CREATE INDEX fetch_log_feed_time ON fetch_log (feed_id, time DESC);
CREATE INDEX fetch_log_time ON fetch_log (time);

CREATE TABLE alerts (
    id          INTEGER PRIMARY KEY,
    feed_id     INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    created     REAL NOT NULL,
    missed_estimate REAL NOT NULL,
    window_from REAL,
    window_to   REAL,
    capacity    INTEGER,
    dismissed   INTEGER NOT NULL DEFAULT 0
);
-- open alerts per feed (badges, banner)
CREATE INDEX alerts_open ON alerts (feed_id) WHERE dismissed = 0;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL                    -- JSON
);
"""


# v2: the "All unread" list, newest first, without visiting every entry's row
# (the big content column makes a scan of entries_time + read filter slow).
_V2 = """
CREATE INDEX entries_unread_time ON entries (sort_time DESC) WHERE read = 0;
"""


# v3: the article list's own columns in one covering index keyed by id, so the GUI
# never reads the wide entries rows (content, summary) for a list: entries stored
# since a list was read (an id range after an update), the rows a page shows, and
# the whole list's titles/feeds when it is sorted by title or feed.
_V3 = """
CREATE INDEX entries_list ON entries (id, sort_time, feed_id, read, starred, title);
"""


# v4: sorting a list by title in pages, like by date. ``title_key`` is the title's
# sort key, Python's ``str.casefold()`` (full Unicode case folding: "Straße" sorts
# with "strasse", which ``COLLATE NOCASE`` does not do), written by the store with
# every insert and title update. The backfill calls ``casefold()``, a deterministic
# SQL function the store registers on its connection before migrating; only this
# migration needs it (the column is written from Python), so other tools can still
# read and write the file. One covering index serves every title page: order is
# the key ascending, then newest first, then id (descending title order is the
# exact reverse, the same index read backwards), and the list filters (feed, read,
# starred) are checked in the index without visiting the wide rows.
_V4 = """
ALTER TABLE entries ADD COLUMN title_key TEXT NOT NULL DEFAULT '';
UPDATE entries SET title_key = casefold(title);
CREATE INDEX entries_title ON entries (title_key, sort_time DESC, id, feed_id, read, starred);
"""


# v5: a permanent redirect moves a feed only after it has been seen for a week
# (``redirect_since``), and the addresses a feed moved from are kept, newest
# last (``previous_urls``, a JSON list): a server misconfigured for a few days, or
# a domain that changed hands, must not silently and irrecoverably move a feed.
_V5 = """
ALTER TABLE feeds ADD COLUMN redirect_since REAL;
ALTER TABLE feeds ADD COLUMN previous_urls TEXT NOT NULL DEFAULT '[]';
UPDATE feeds SET redirect_since = last_fetched WHERE redirect_url IS NOT NULL;
"""


# v6: budgeted requests with no fetch-log row of a living feed, so the 24 h cap
# still counts them after a restart: a deleted feed's last day of requests (its
# fetch_log rows go with it) and the extra request of a feed's move. Only times:
# the cap counts requests, whoever made them. The store keeps two days at most.
_V6 = """
CREATE TABLE spent_requests (time REAL NOT NULL);
"""


# v7: old articles may be deleted (``Store.purge_old``; how old is a setting). A
# deleted entry leaves its identity behind, so the feed's window, which may carry
# it for months yet, cannot bring it back as a new unread article, and the
# scheduler does not count it as new (that would raise false missed-item alerts).
# The index finds the old ones without reading every wide row (the daily check
# usually finds none).
# A database that already holds articles keeps them all until its user chooses a
# limit in Settings; a new one starts with the default.
_V7 = """
CREATE TABLE purged_entries (
    feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    uid     TEXT NOT NULL,
    purged  REAL NOT NULL,
    PRIMARY KEY (feed_id, uid)
) WITHOUT ROWID;
CREATE INDEX entries_age ON entries (read, first_seen) WHERE starred = 0;
INSERT OR IGNORE INTO settings (key, value)
    SELECT 'keep_read_days', '0' WHERE EXISTS (SELECT 1 FROM entries);
"""


# v8: a feed may keep its articles longer or shorter than Settings say (feed
# properties): NULL follows Settings, 0 keeps them all (unread ones too), N deletes
# its read articles after N days.
_V8 = """
ALTER TABLE feeds ADD COLUMN keep_days REAL;
"""


# v9: what the parser had to work around in a feed that still read (malformed
# XML read leniently, entries cut or left out) is kept with the fetch, as a JSON
# list of sentences, so the feed's activity page can say why items may be odd.
_V9 = """
ALTER TABLE fetch_log ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]';
"""


# v10: a feed's or an article's id is never handed out again. SQLite gives a new
# row the largest id + 1, so unsubscribing the newest feed let the next feed added
# take its id, and an undo step still naming it (move, rename, star, mark read)
# acted on the wrong feed or article. ``id_high`` holds the largest id ever deleted
# (the triggers keep it); ``Store`` inserts above both it and the largest id alive.
_V10 = """
CREATE TABLE id_high (
    tbl  TEXT PRIMARY KEY,
    high INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO id_high (tbl, high) VALUES
    ('feeds', IFNULL((SELECT max(id) FROM feeds), 0)),
    ('entries', IFNULL((SELECT max(id) FROM entries), 0));
CREATE TRIGGER feeds_id_high AFTER DELETE ON feeds
    WHEN OLD.id > (SELECT high FROM id_high WHERE tbl = 'feeds')
BEGIN
    UPDATE id_high SET high = OLD.id WHERE tbl = 'feeds';
END;
CREATE TRIGGER entries_id_high AFTER DELETE ON entries
    WHEN OLD.id > (SELECT high FROM id_high WHERE tbl = 'entries')
BEGIN
    UPDATE id_high SET high = OLD.id WHERE tbl = 'entries';
END;
"""


# v11: the full-text index holds the text a reader sees, not the stored HTML: a
# search for "href", "nbsp" or a link's address found every article that had one,
# and a word with markup inside it (H<sub>2</sub>O, <b>Hel</b>lo) was indexed in
# pieces. ``search_text`` is that text (``Store``'s ``index_text`` of the content
# and the summary, written with them); the index reads it as its content column,
# so FTS5's own checks and 'rebuild' agree with it. A program that writes
# articles without it leaves them found by title only, and breaks nothing.
_V11 = """
ALTER TABLE entries ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
UPDATE entries SET search_text = html_text(content) || ' ' || html_text(summary);
DROP TRIGGER entries_ai;
DROP TRIGGER entries_ad;
DROP TRIGGER entries_au;
DROP TABLE entries_fts;
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, search_text, content='entries', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, title, search_text)
    VALUES (new.id, new.title, new.search_text);
END;
CREATE TRIGGER entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, search_text)
    VALUES ('delete', old.id, old.title, old.search_text);
END;
CREATE TRIGGER entries_au AFTER UPDATE OF title, search_text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, search_text)
    VALUES ('delete', old.id, old.title, old.search_text);
    INSERT INTO entries_fts (rowid, title, search_text)
    VALUES (new.id, new.title, new.search_text);
END;
INSERT INTO entries_fts (entries_fts) VALUES ('rebuild');
"""


# v12: the index holds folded text (``textfold.fold``: ß as ss, ø as o, Greek
# without accents, full-width letters as ASCII…), and every query is folded the
# same way: the tokenizer alone folded only case and Latin accents, so "strasse"
# did not find "Straße" nor "αθηνα" "Αθήνα". The title is indexed from its own
# folded copy, ``search_title``; ``search_text`` is folded where it is.
_V12 = """
DROP TRIGGER entries_ai;
DROP TRIGGER entries_ad;
DROP TRIGGER entries_au;
DROP TABLE entries_fts;
ALTER TABLE entries ADD COLUMN search_title TEXT NOT NULL DEFAULT '';
UPDATE entries SET search_title = fold_text(title), search_text = fold_text(search_text);
CREATE VIRTUAL TABLE entries_fts USING fts5 (
    search_title, search_text, content='entries', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, search_title, search_text)
    VALUES (new.id, new.search_title, new.search_text);
END;
CREATE TRIGGER entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, search_title, search_text)
    VALUES ('delete', old.id, old.search_title, old.search_text);
END;
CREATE TRIGGER entries_au AFTER UPDATE OF search_title, search_text ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, search_title, search_text)
    VALUES ('delete', old.id, old.search_title, old.search_text);
    INSERT INTO entries_fts (rowid, search_title, search_text)
    VALUES (new.id, new.search_title, new.search_text);
END;
INSERT INTO entries_fts (entries_fts) VALUES ('rebuild');
"""


# v13: rules, what happens to a new article that matches words (mark it read:
# mute a topic; star it: keep it). ``query`` is what the search box takes (whole
# words here, every one required); ``feed_id`` NULL: every feed. A feed's rules go
# with it (and come back with an undone unsubscribe, as its other rows do).
# ``hits``: how many new articles the rule acted on, so the user can see it works.
_V13 = """
CREATE TABLE rules (
    id          INTEGER PRIMARY KEY,
    query       TEXT NOT NULL CHECK (length(trim(query)) > 0),
    feed_id     INTEGER REFERENCES feeds(id) ON DELETE CASCADE,
    title_only  INTEGER NOT NULL DEFAULT 0 CHECK (title_only IN (0, 1)),
    action      TEXT NOT NULL CHECK (action IN ('read', 'star')),
    created     REAL NOT NULL,
    hits        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX rules_feed ON rules (feed_id);
"""


# v14: full articles. For a feed that carries only a summary, the article's own
# page, extracted and sanitised, is kept next to the entry (its own table: most
# entries have none, and the feed's text stays as the feed sent it). It goes with
# the entry (purge, unsubscribe). ``full_text`` on a feed: load it by itself when an
# article of the feed is opened.
_V14 = """
CREATE TABLE full_texts (
    entry_id    INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    url         TEXT NOT NULL,
    html        TEXT NOT NULL,
    fetched     REAL NOT NULL
);
ALTER TABLE feeds ADD COLUMN full_text INTEGER NOT NULL DEFAULT 0 CHECK (full_text IN (0, 1));
"""


# v15: a feed's own maximum interval (Feed properties), NULL: as in Settings.
_V15 = """
ALTER TABLE feeds ADD COLUMN max_interval REAL CHECK (max_interval IS NULL OR max_interval > 0);
"""


# v16: a try where no server answered (the name did not resolve, no connection):
# no server saw it, so it is not a request of the budget (see Scheduler.observe),
# after a restart either.
_V16 = """
ALTER TABLE fetch_log ADD COLUMN unreachable INTEGER NOT NULL DEFAULT 0
    CHECK (unreachable IN (0, 1));
"""


MIGRATIONS: list[str] = [
    _V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10, _V11, _V12, _V13, _V14, _V15, _V16
]  # fmt: skip
SCHEMA_VERSION = len(MIGRATIONS)
