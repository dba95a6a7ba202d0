"""The full-text index against the articles (shared by the storage tests and the
random search and crash sessions): FTS5's own check of the index against the
columns it reads (title, ``search_text``), and each article's ``search_text``
against its content and summary now (schema v11)."""

from __future__ import annotations

import sqlite3

from smartreader.storage.store import index_text


def index_problems(db: sqlite3.Connection) -> list[str]:
    """What is wrong with the index of the database on ``db`` (empty: nothing)."""
    db.create_function("html_text", 1, index_text, deterministic=True)
    try:
        db.execute("INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as e:
        return [f"the index does not match the articles' text: {e}"]
    stale = db.execute(
        "SELECT id FROM entries "
        "WHERE search_text IS NOT html_text(content) || ' ' || html_text(summary) LIMIT 5"
    ).fetchall()
    if stale:
        return [f"articles whose indexed text is not their text: {[r[0] for r in stale]}"]
    return []
