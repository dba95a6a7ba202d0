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
and when another program (a database browser, the sqlite3 shell) has the database
open right now and may be writing that WAL: moving it from under that program
would lose what it wrote (it fails with disk I/O errors). Such a program holds
locks on the ``-shm`` (every SQLite connection in WAL mode keeps a read lock on it
while open); a ``-shm`` nobody holds a lock on is as stray as the WAL it came
with, and both are set aside. Locks are read from ``/proc/locks`` (Linux), which
needs no file descriptor on the ``-shm`` (closing one would drop this process's
own SQLite locks on it); where it cannot be read, a ``-shm`` counts as in use.
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
PROC_LOCKS = Path("/proc/locks")


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


def locked_by_anyone(*files: Path) -> bool:
    """Whether any process (this one too) holds a lock on one of ``files``, from
    ``/proc/locks``; True when that cannot be told. Matched by inode number alone:
    a match from another file system only makes the answer more careful."""
    try:
        inodes = {str(f.stat().st_ino) for f in files if f.exists()}
        table = PROC_LOCKS.read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    for line in table.splitlines():
        # "1: POSIX  ADVISORY  READ 28261 fe:00:2146454 128 128" (waiters add "->")
        for field in line.split():
            parts = field.split(":")
            if len(parts) == 3 and parts[2] in inodes:
                return True
    return False


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
            and wal.stat().st_size > WAL_HEADER
            and db.exists()
            and marker.read_text(encoding="utf-8").strip() == file_identity(db)
            and not (shm.exists() and locked_by_anyone(shm, db))
        ):
            moved = backups / time.strftime("stray-wal-%Y%m%d-%H%M%S")
            moved.mkdir(parents=True, exist_ok=True)
            os.replace(wal, moved / wal.name)
            if shm.exists():  # its index, kept with it (SQLite would rebuild one)
                os.replace(shm, moved / shm.name)
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
