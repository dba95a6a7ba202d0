"""What to do when the database cannot be used at start-up (no Qt here).

The GUI (and the CLI) call ``diagnose(db_path)`` before opening the ``Store``.
``None`` means "go ahead". Otherwise a ``StartupProblem`` says, in words fit
for the user, what is wrong and what can be offered:

* ``corrupt``: the file is damaged. Offer "Restore the backup from <when>"
  (``problem.backup``, the newest backup that passes an integrity check) →
  ``restore_backup``; or "Start with an empty database" → ``set_aside``; or quit.
* ``too_new``: written by a newer smartreader; offer only quit (never touch it).
* ``locked``: another program (another smartreader?) holds it; offer "Try again".
* ``unreadable``: permissions, a directory in the way...; show the message.

Rules (research/reliability.md §4.3): the user's file is never deleted. Before
anything replaces it, the database *and* its ``-wal``/``-shm`` files are renamed
together to ``<name>.corrupt-<UTC time>`` (+ ``-wal``/``-shm``), so SQLite pairs
them again if someone opens the preserved copy; a restored database is never
paired with the old WAL. A restore copies the backup to a temporary file,
fsyncs it, renames it into place and fsyncs the folder.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from smartreader.errors import DatabaseCorruptError, DatabaseTooNewError, StorageError
from smartreader.storage.backups import BackupInfo, backups_dir, is_valid_database, list_backups
from smartreader.storage.store import Store, looks_damaged, not_utf8

ProblemKind = Literal["corrupt", "too_new", "locked", "unreadable"]
_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class StartupProblem:
    kind: ProblemKind
    message: str  # one or two sentences for a dialog
    detail: str  # the underlying error, for "Show details"
    backup: BackupInfo | None = None  # the newest good backup, when restoring makes sense

    @property
    def can_retry(self) -> bool:
        return self.kind == "locked"

    @property
    def can_restore(self) -> bool:
        return self.backup is not None


def _classify(error: str) -> ProblemKind:
    low = error.lower()
    if "locked" in low or "busy" in low:
        return "locked"
    if looks_damaged(low):
        return "corrupt"
    return "unreadable"


def newest_good_backup(directory: str | os.PathLike[str]) -> BackupInfo | None:
    for b in list_backups(directory):
        if is_valid_database(b.path):
            return b
    return None


def diagnose(
    db_path: str | os.PathLike[str],
    backups_directory: str | os.PathLike[str] | None = None,
    *,
    full_check: bool = True,
    timeout: float = 2.0,
) -> StartupProblem | None:
    """Check the database before the app opens it. Never modifies the file.

    ``full_check`` runs ``PRAGMA quick_check`` (finds damaged pages, not only a
    damaged header); it reads the whole file, so callers may skip it after a
    clean shutdown.
    """
    path = Path(db_path)
    if not path.exists():
        return None
    folder = backups_dir(path) if backups_directory is None else Path(backups_directory)
    error: str | None = None
    kind: ProblemKind = "corrupt"
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=timeout)
        # quick_check names what it finds damaged; damage may have made the name not
        # UTF-8, and the report must still read
        con.text_factory = lambda b: b.decode("utf-8", "replace")
        try:
            con.execute("PRAGMA schema_version").fetchone()  # reads the header
            if full_check:
                rows = con.execute("PRAGMA quick_check").fetchall()
                if [r[0] for r in rows] != ["ok"]:
                    error = "; ".join(str(r[0]) for r in rows[:5])
        finally:
            con.close()
    except sqlite3.Error as e:
        error = str(e)
        kind = _classify(error)
        if kind == "unreadable" and path.is_file() and _looks_damaged(path):
            kind = "corrupt"
    except UnicodeDecodeError as e:
        # SQLite's own message quoted a damaged name (sqlite3 cannot decode it)
        error = f"SQLite read text that is not UTF-8: {not_utf8(e)}"
        kind = "corrupt"
    if error is not None:
        return _problem(kind, path, error, folder)
    try:
        Store(path, readonly=True).close()
    except DatabaseTooNewError as e:
        return _problem("too_new", path, str(e), folder)
    except DatabaseCorruptError as e:
        return _problem("corrupt", path, str(e), folder)
    except StorageError as e:
        return _problem(_classify(str(e)), path, str(e), folder)
    return None


def _looks_damaged(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(16) != b"SQLite format 3\x00"


def _problem(kind: ProblemKind, path: Path, detail: str, folder: Path) -> StartupProblem:
    backup = newest_good_backup(folder) if kind == "corrupt" else None
    if kind == "corrupt":
        message = f"The database {path} is damaged. It has not been changed or deleted."
        if backup is not None:
            when = dt.datetime.fromtimestamp(backup.created).strftime("%Y-%m-%d %H:%M")
            message += f" You can restore the backup from {when}; the damaged file is kept."
        else:
            message += " No usable backup was found; you can start with an empty database."
    elif kind == "too_new":
        message = (
            f"The database {path} was written by a newer version of smartreader. "
            "Install that version to use it; this version will not touch it."
        )
    elif kind == "locked":
        message = (
            f"The database {path} is in use by another program (is smartreader already "
            "running?). Close it and try again."
        )
    else:
        message = f"The database {path} cannot be opened: {detail}"
    return StartupProblem(kind, message, detail, backup)


def _stamp(now: float) -> str:
    return dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y%m%d-%H%M%S")


def set_aside(db_path: str | os.PathLike[str], *, now: float) -> Path:
    """Rename the database and its -wal/-shm/-journal to ``<name>.corrupt-<time>``.

    Returns the preserved database's path. Nothing is deleted; an existing
    preserved copy with the same name is never overwritten.
    """
    path = Path(db_path)
    base = _aside_name(path, now)
    _move_side_files(path, base)
    if path.exists():
        os.replace(path, base)
    _fsync_dir(path.parent)
    return base


def _aside_name(path: Path, now: float) -> Path:
    base = path.with_name(f"{path.name}.corrupt-{_stamp(now)}")
    n = 1
    while any(Path(str(base) + s).exists() for s in ("", *_SIDE_FILES)):
        n += 1
        base = path.with_name(f"{path.name}.corrupt-{_stamp(now)}-{n}")
    return base


def _move_side_files(path: Path, base: Path) -> None:
    # The side files first: a crash in between leaves the database in place
    # without a WAL that no longer belongs to it... which is exactly the set we
    # are about to replace anyway. The database file last.
    for suffix in _SIDE_FILES:
        side = Path(str(path) + suffix)
        if side.exists():
            os.replace(side, Path(str(base) + suffix))


def restore_backup(
    db_path: str | os.PathLike[str], backup: str | os.PathLike[str], *, now: float
) -> Path | None:
    """Put ``backup`` in place of the database; the current files are set aside.

    Returns where the old database was preserved (None if there was none).
    Raises StorageError if the backup does not pass an integrity check (then
    nothing is changed).
    """
    path, src = Path(db_path), Path(backup)
    if not is_valid_database(src):
        raise StorageError(f"the backup {src} is damaged too; nothing was changed")
    tmp = path.with_name(path.name + ".restoring")
    try:
        shutil.copyfile(src, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise StorageError(f"cannot copy the backup {src}: {e}") from e
    preserved = None
    if path.exists():
        # Kept under its new name by a second link (a copy where links cannot be
        # made), then the backup's copy replaces it in one step: killed at any
        # point, the next start finds the damaged file or the backup, never no
        # database (it started empty, the data set aside, without a word).
        preserved = _aside_name(path, now)
        _move_side_files(path, preserved)
        try:
            os.link(path, preserved)
        except OSError:
            shutil.copy2(path, preserved)
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    return preserved


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
