"""Test-wide set-up: headless Qt, a local HTTP server fixture, temp data dirs."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.httpserver import FeedServer

# Must be set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never touch the user's real data dir or keyring from tests.
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")


@pytest.fixture(autouse=True)
def _forget_session_passwords() -> Iterator[None]:
    """Passwords kept for the session live in the process: one test's must not
    reach the next."""
    yield
    from smartreader.net import credentials

    with credentials._session_lock:
        credentials._session.clear()


@pytest.fixture
def feed_server() -> Iterator[FeedServer]:
    """A local HTTP server on 127.0.0.1 (port 0); see tests/httpserver.py."""
    # Imported here so that a plain `pytest` (repo root not on sys.path) only
    # breaks the tests that use the server; `python -m pytest` is the documented way.
    from tests.httpserver import FeedServer

    with FeedServer() as server:
        yield server


@pytest.fixture
def store(tmp_path):
    """A real SQLite store in the test's folder (a module may define its own)."""
    from smartreader.storage.store import Store

    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is UTC−05:00 with no daylight saving (POSIX TZ "XST5": needs no
    time zone database), so local and UTC texts differ in every test run."""
    monkeypatch.setenv("TZ", "XST5")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
