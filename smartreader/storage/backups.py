"""Automatic rolling backups of the database.

``make_backup`` writes ``backup-YYYYmmdd-HHMMSS.sqlite3`` into the backups
folder (``<data dir>/backups`` by default) through ``Store.backup`` — SQLite's
online backup API into ``<name>.partial``, ``PRAGMA integrity_check`` on that
copy, fsync, ``os.replace``, fsync of the folder — then keeps only the newest
``keep`` backups. A process killed mid-backup leaves at most a ``.partial``
file (or, killed between the rename and the prune, one backup too many), never
a half-written or unchecked file under a final name; the next run removes such
leftovers. Files in the folder that are not ours are never touched.

``backup_due`` says whether the newest backup is older than the interval, so a
caller (GUI timer, ``smartreader update``) can run this at most once a day.
Nothing here imports Qt.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from smartreader.storage.store import Store, remove_partials

BACKUP_DIR_NAME = "backups"
DEFAULT_KEEP = 7
DEFAULT_INTERVAL = 24 * 3600.0
_NAME = re.compile(r"^backup-(\d{8}-\d{6})(?:-(\d+))?\.sqlite3$")


@dataclass(frozen=True)
class BackupInfo:
    path: Path
    created: float  # epoch seconds, from the name (UTC)
    size: int


def backups_dir(db_path: str | os.PathLike[str]) -> Path:
    """Where backups of the database at ``db_path`` go: a sibling ``backups`` folder."""
    return Path(db_path).parent / BACKUP_DIR_NAME


def list_backups(directory: str | os.PathLike[str]) -> list[BackupInfo]:
    """Our complete backups in ``directory``, newest first."""
    folder = Path(directory)
    if not folder.is_dir():
        return []
    found: list[BackupInfo] = []
    for p in folder.iterdir():
        m = _NAME.match(p.name)
        if not m or not p.is_file():
            continue
        stamp = dt.datetime.strptime(m.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=dt.UTC)
        found.append(BackupInfo(p, stamp.timestamp(), p.stat().st_size))
    found.sort(key=lambda b: (b.created, b.path.name), reverse=True)
    return found


def backup_due(
    directory: str | os.PathLike[str], now: float, interval: float = DEFAULT_INTERVAL
) -> bool:
    """True when there is no backup yet or the newest is at least ``interval`` old."""
    newest = list_backups(directory)
    return not newest or now - newest[0].created >= interval


def is_valid_database(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` opens as SQLite and passes ``integrity_check`` (read-only)."""
    try:
        con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        return str(con.execute("PRAGMA integrity_check").fetchone()[0]) == "ok"
    except (sqlite3.Error, UnicodeDecodeError):  # the latter: a damaged name, in SQLite's words
        return False
    finally:
        con.close()


def make_backup(
    store: Store,
    directory: str | os.PathLike[str] | None = None,
    *,
    now: float,
    keep: int = DEFAULT_KEEP,
) -> Path:
    """Write a verified backup and prune older ones. Returns the new backup's path.

    Raises StorageError if the copy cannot be written or does not verify (the
    bad copy is removed; older backups are untouched in that case).
    """
    folder = Path(directory) if directory is not None else backups_dir(store.path)
    folder.mkdir(parents=True, exist_ok=True)
    remove_partials(folder)
    stamp = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%d-%H%M%S")
    dest = folder / f"backup-{stamp}.sqlite3"
    n = 1
    while dest.exists():  # two backups in one second: never overwrite
        n += 1
        dest = folder / f"backup-{stamp}-{n}.sqlite3"
    store.backup(dest, verify=True)
    prune(folder, keep=keep)
    return dest


def prune(directory: str | os.PathLike[str], *, keep: int = DEFAULT_KEEP) -> list[Path]:
    """Delete all but the newest ``keep`` (at least 1) backups; returns what was deleted."""
    old = list_backups(directory)[max(1, keep) :]
    for b in old:
        b.path.unlink(missing_ok=True)
    return [b.path for b in old]
