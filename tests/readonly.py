"""Make a folder or file really unwritable for a test, whoever runs it.

Not root: its mode (0o555 / 0o444). Root may write whatever the mode says, so
there it becomes a read-only bind mount over itself (what a read-only USB stick
or network share gives); where mounting is not allowed either (no CAP_SYS_ADMIN,
no ``mount``), the test is skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _run(*cmd: str) -> bool:
    return subprocess.run(cmd, capture_output=True, check=False).returncode == 0


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (a folder or a file) cannot be written inside the ``with``."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if mount is None or umount is None:
        pytest.skip("running as root, where a file's mode does not stop writes, and no mount")
    if not _run(mount, "--bind", str(path), str(path)):
        pytest.skip(
            "running as root, where a file's mode does not stop writes, and a read-only "
            "bind mount is not allowed here (needs CAP_SYS_ADMIN)"
        )
    try:
        if not _run(mount, "-o", "remount,bind,ro", str(path)):
            pytest.skip("running as root, and this bind mount cannot be made read-only")
        yield
    finally:
        # lazily if something (a connection a failing test left open) still uses it
        _run(umount, str(path)) or _run(umount, "-l", str(path))
