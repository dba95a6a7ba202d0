"""Where smartreader keeps its files: the platformdirs data dir unless overridden."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from smartreader.storage.store import DB_NAME


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The data folder, first found of: ``override`` (``--data-dir``), the
    ``SMARTREADER_DATA_DIR`` environment variable, the platform's user data folder.
    ``smartreader --help`` and the README describe this order: keep them in step."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get("SMARTREADER_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir("smartreader", appauthor=False))


def db_path(override: str | os.PathLike[str] | None = None) -> Path:
    return data_dir(override) / DB_NAME
