"""Ctrl+C in the terminal and SIGTERM end ``smartreader --demo`` as File ▸ Quit
does: exit status 0, no traceback, the demo's temporary folder removed and no
process of the app left running. Before, SIGINT was ignored or printed
KeyboardInterrupt tracebacks (the parse workers died of it and the pool fell
back in-thread), and SIGTERM killed the app outright, leaving the 8 MB demo
folder in TMPDIR and worker processes behind. The real app in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="reads the process table from /proc"
)


def _alive_in_session(sid: int) -> list[str]:
    """Processes of the session that still run (zombies are dead already: only
    their parent, maybe PID 1 of a container, has yet to reap them)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        rest = text[text.rindex(")") + 2 :].split()
        state, session = rest[0], int(rest[3])
        if session == sid and state != "Z":
            out.append(text[: text.rindex(")") + 1])
    return out


@pytest.mark.parametrize(
    ("signum", "whole_group"), [(signal.SIGINT, True), (signal.SIGTERM, False)]
)
def test_a_signal_quits_the_demo_cleanly(tmp_path: Path, signum: int, whole_group: bool) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "smartreader", "--demo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's job is
        text=True,
    )
    try:
        # Up: the demo folder made and the parse workers started by its first
        # fetches (main process + fork server + workers).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if list(tmp.glob("smartreader-demo-*")) and len(_alive_in_session(proc.pid)) >= 3:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1]
        assert list(tmp.glob("smartreader-demo-*")), "the demo never started"
        time.sleep(1.0)
        if whole_group:  # what Ctrl+C in a terminal does
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert f"{signal.Signals(signum).name} received: quitting" in err
    assert list(tmp.glob("smartreader-demo-*")) == []
    deadline = time.monotonic() + 5  # the fork server exits when it sees the app gone
    while _alive_in_session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive_in_session(proc.pid) == []
