"""Fixtures shared by the whole-app tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def data(tmp_path):
    """A data folder for the CLI's ``--data-dir`` (made by the first command)."""
    return str(tmp_path / "data")
