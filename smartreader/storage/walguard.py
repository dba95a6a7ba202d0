"""Keep a stray ``-wal`` from replacing the database (reliability row 53).

SQLite applies whatever ``<db>-wal`` lies next to the database when it opens it,
and cannot tell whose it is: a WAL from another smartreader database (a sync
tool, a half-restored backup, a copied folder) silently replaces the contents.
A clean close leaves no WAL (the last connection checkpoints and deletes it), so
on a clean close we write ``<db>.closed`` naming the database file as it was
left. A WAL with frames found next to that same, unchanged file at the next open,
with no ``-shm`` beside it, cannot be ours: it is moved aside into the backups
folder, never applied, never deleted. Left alone, for SQLite to apply as usual:
without the marker (a crash, a kill) the WAL is ours; if the database file itself
changed (replaced, perhaps together with its own WAL) the pair belongs together;
and with a ``-shm`` another program (a database browser, the sqlite3 shell) may
have the database open right now and be writing that WAL: moving it from under
that program would lose what it wrote (it fails with disk I/O errors).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

WAL_HEADER = 32  # bytes; a WAL this short holds no frames (nothing to apply)
_PROBE = 4096


def _marker(db: Path) -> Path:
    return db.with_name(db.name + ".closed")


def _wal(db: Path) -> Path:
    return db.with_name(db.name + "-wal")


def file_identity(db: Path) -> str:
    """Size, mtime and a hash of the first and last 4 KiB: cheap for any size,
    and different for another database copied over this one."""
    st = db.stat()
    h = hashlib.sha256()
    with db.open("rb") as f:
        h.update(f.read(_PROBE))
        if st.st_size > _PROBE:
            f.seek(max(_PROBE, st.st_size - _PROBE))
            h.update(f.read(_PROBE))
    return f"{st.st_size}:{st.st_mtime_ns}:{h.hexdigest()}"


def before_open(db: Path, backups: Path) -> Path | None:
    """Call before opening ``db`` to write. Returns the folder a stray WAL was
    moved into, or None. The marker is removed either way: from now on the
    database is open, and a crash must leave its WAL to be applied."""
    marker = _marker(db)
    if not marker.exists():
        return None
    moved: Path | None = None
    try:
        wal, shm = _wal(db), db.with_name(db.name + "-shm")
        if (
            wal.exists()
            and not shm.exists()
            and wal.stat().st_size > WAL_HEADER
            and db.exists()
            and marker.read_text(encoding="utf-8").strip() == file_identity(db)
        ):
            moved = backups / time.strftime("stray-wal-%Y%m%d-%H%M%S")
            moved.mkdir(parents=True, exist_ok=True)
            os.replace(wal, moved / wal.name)
            log.warning(
                "%s was closed cleanly, but a write-ahead log appeared next to it since "
                "(from another copy of the database?); it was not applied and is kept in %s",
                db,
                moved,
            )
    except OSError as e:
        log.warning("cannot check %s for a stray write-ahead log: %s", db, e)
    finally:
        try:
            marker.unlink(missing_ok=True)
        except OSError as e:
            log.warning("cannot remove %s: %s", marker, e)
    return moved


def after_close(db: Path) -> None:
    """Call after the last write connection to ``db`` closed: if SQLite removed the
    WAL (a clean checkpoint), record the file as it was left."""
    try:
        if db.exists() and not _wal(db).exists():
            _marker(db).write_text(file_identity(db) + "\n", encoding="utf-8")
    except OSError as e:
        log.info("cannot record the clean close of %s: %s", db, e)
