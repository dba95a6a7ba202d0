"""The full-text index against the articles (shared by the storage tests and the
random search and crash sessions): FTS5's own check of the index against the
columns it reads (``search_title``, ``search_text``), and each article's
``search_text`` and ``search_title`` against its content, summary (and full
article, schema v14) and title now (schemas v11-v12: folded)."""

from __future__ import annotations

import sqlite3

from smartreader.storage.store import index_text
from smartreader.storage.textfold import fold


def index_problems(db: sqlite3.Connection) -> list[str]:
    """What is wrong with the index of the database on ``db`` (empty: nothing)."""
    db.create_function("html_text", 1, index_text, deterministic=True)
    db.create_function("fold_text", 1, fold, deterministic=True)
    try:
        db.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as e:
        return [f"the index does not match the articles' text: {e}"]
    # schema v14: a full article loaded for it is indexed after its text
    page = (
        " || coalesce(' ' || (SELECT html_text(html) FROM full_texts "
        "WHERE entry_id = entries.id), '')"
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'full_texts'").fetchone()
        else ""
    )
    stale = db.execute(
        "SELECT id FROM entries "
        "WHERE search_text IS NOT "
        f"fold_text(html_text(content) || ' ' || html_text(summary){page}) "
        "OR search_title IS NOT fold_text(title) LIMIT 5"
    ).fetchall()
    if stale:
        return [f"articles whose indexed text is not their text: {[r[0] for r in stale]}"]
    return []
