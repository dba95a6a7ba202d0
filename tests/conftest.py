"""Test-wide set-up: headless Qt, a local HTTP server fixture, temp data dirs."""

from __future__ import annotations

import os

# Must be set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Never touch the user's real data dir or keyring from tests.
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
