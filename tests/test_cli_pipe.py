"""A command piped into a reader that stops early (`smartreader entries | head`)
ends quietly with the shell's SIGPIPE status, not a BrokenPipeError traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from smartreader.cli import EXIT_BROKEN_PIPE
from smartreader.core.models import ParsedEntry
from smartreader.storage import Store, db_path
from smartreader.storage.store import FetchRecord

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="a closed pipe is EINVAL on Windows, not EPIPE"
)

ENTRIES = 3000  # ~150 KB of listing: well past a pipe's buffer (64 KiB on Linux)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("data")
    now = time.time()
    with Store(db_path(d)) as store:
        fid = store.add_feed("http://127.0.0.1/long.xml", title="Long", now=now - 86400)
        ents = [
            ParsedEntry(
                f"e{i}", f"Entry number {i} of a long feed", None, "", now - i, None, "", ""
            )
            for i in range(ENTRIES)
        ]
        store.record_fetch(FetchRecord(fid, now, "ok", http_status=200, entries=ents))
    return d


def _commands() -> list[Any]:
    runs = [pytest.param([sys.executable, "-m", "smartreader"], id="python-m")]
    script = shutil.which("smartreader", path=str(Path(sys.executable).parent))
    if script:
        runs.append(pytest.param([script], id="console-script"))
    return runs


@pytest.mark.parametrize("run", _commands())
@pytest.mark.parametrize(
    "command",
    [
        ["entries", "--limit", str(ENTRIES)],  # a print per line
        ["entries", "--limit", str(ENTRIES), "--json"],  # one large print
    ],
    ids=["lines", "json"],
)
def test_a_reader_closing_the_pipe_early_gets_no_traceback(data_dir, run, command):
    with subprocess.Popen(
        [*run, "--data-dir", str(data_dir), *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        try:
            assert proc.stdout.readline()  # like `head -1`: one line, then goes away
            proc.stdout.close()
            err = proc.stderr.read().decode(errors="replace")
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert "Exception ignored" not in err, err
    assert code == EXIT_BROKEN_PIPE, err


def test_a_reader_taking_everything_sees_it_all(data_dir):
    out = subprocess.run(
        [sys.executable, "-m", "smartreader", "--data-dir", str(data_dir), "entries"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stderr == ""
    assert len(out.stdout.splitlines()) == 50  # the default --limit
