"""SQLite persistence (no Qt, no network)."""

from smartreader.storage.paths import data_dir, db_path
from smartreader.storage.store import (
    Alert,
    Entry,
    EntryRow,
    Feed,
    FetchLogRow,
    FetchOutcome,
    FetchRecord,
    Folder,
    Store,
)

__all__ = [
    "Alert",
    "Entry",
    "EntryRow",
    "Feed",
    "FetchLogRow",
    "FetchOutcome",
    "FetchRecord",
    "Folder",
    "Store",
    "data_dir",
    "db_path",
]
