"""``smartreader --self-test`` and the display-free commands, in subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from smartreader import __version__

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    """This environment without any display (and without the test-wide offscreen
    setting from conftest.py), plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env.update(extra)
    return env


def test_self_test_opens_the_demo_fetches_and_renders(tmp_path):
    shot = tmp_path / "window.png"
    r = subprocess.run(
        [sys.executable, "-m", "smartreader", "--self-test"],
        cwd=tmp_path,
        env=_env(SMARTREADER_SELFTEST_SCREENSHOT=str(shot), SMARTREADER_SELFTEST_TIMEOUT="90"),
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Qt platform offscreen" in r.stdout  # started offscreen by itself
    assert "worker fetched" in r.stdout and "self-test: ok" in r.stdout
    assert shot.read_bytes()[:4] == b"\x89PNG"


def test_self_test_failure_is_reported_with_a_message(tmp_path):
    # A zero timeout cannot be met: the self-test must say so and exit non-zero.
    r = subprocess.run(
        [sys.executable, "-m", "smartreader", "--self-test"],
        cwd=tmp_path,
        env=_env(SMARTREADER_SELFTEST_TIMEOUT="0"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "smartreader self-test FAILED: timed out" in r.stderr


def test_self_test_takes_no_command():
    r = subprocess.run(
        [sys.executable, "-m", "smartreader", "--self-test", "feeds"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "--self-test takes no command" in r.stderr


def test_version_and_help_need_no_display_and_no_qt():
    for args, expect in (
        (["--version"], f"smartreader {__version__}"),
        (["--help"], "--self-test"),
    ):
        r = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "smartreader", *args],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        assert expect in r.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()}
        assert not any(m.startswith(("PySide6", "shiboken6")) for m in imported), (
            "Qt imported for " + " ".join(args)
        )


def test_gui_launcher_entry_point_survives_missing_streams():
    # pythonw on Windows starts the gui-script with sys.stdout/stderr = None.
    code = (
        "import sys; sys.stdout = None; sys.stderr = None; sys.argv = ['smartreader-gui', "
        "'--version']\nfrom smartreader.app import main\ntry:\n    main()\n"
        "except SystemExit as e:\n    sys.__stdout__.write(f'exit {e.code}')\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and r.stdout == "exit 0", r.stdout + r.stderr
