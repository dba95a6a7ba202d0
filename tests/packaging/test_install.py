"""The README's first command: ``pip install .`` into a fresh virtual environment,
then ``smartreader --demo`` (here with ``--self-test``, offscreen, no display).

About 25 s with pip's cache warm (CI has just installed the same dependencies).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="venv layout differs on Windows"),
    pytest.mark.timeout(900),
]


def test_pip_install_into_a_fresh_venv_then_demo_self_test(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "PYTHONPATH", "VIRTUAL_ENV")
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    install = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", str(ROOT)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert install.returncode == 0, install.stderr[-5000:]
    for script in ("smartreader", "smartreader-gui"):
        assert (bin_dir / script).is_file(), f"{script} launcher not installed"
    help_ = subprocess.run(
        [str(bin_dir / "smartreader"), "--help"], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert help_.returncode == 0 and "--demo" in help_.stdout, help_.stderr
    r = subprocess.run(
        [str(bin_dir / "smartreader"), "--demo", "--self-test"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # It ran the installed copy, not the checkout.
    assert str(bin_dir / "python") in r.stdout and "site-packages" in r.stdout
    assert "self-test: ok" in r.stdout
