"""Shared helpers for the reliability suite: bounded subprocesses, feed builders.

``run_bounded`` runs a snippet of Python in a fresh interpreter with an address
space limit (``RLIMIT_AS``) and a wall-clock timeout, so a hostile input that
explodes in memory or hangs fails the test instead of taking the machine (or
the CI runner) down with it. The snippet reports back by printing one JSON
object as its last line of output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024

_PREAMBLE = """
import json, resource, sys, time
_limit = {limit}
resource.setrlimit(resource.RLIMIT_AS, (_limit, _limit))
def _peak_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def report(**kw):
    kw.setdefault("peak_rss_mb", _peak_mb())
    print(json.dumps(kw), flush=True)
"""


@dataclass(frozen=True)
class Bounded:
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any]


def run_bounded(
    code: str, *, mem_mb: int = 768, timeout: float = 60.0, args: tuple[str, ...] = ()
) -> Bounded:
    """Run ``code`` under ``RLIMIT_AS = mem_mb`` MiB and a timeout.

    The code calls ``report(**fields)`` once; the fields come back (with
    ``peak_rss_mb`` added). A crash, MemoryError or missing report fails the
    caller's assertions with the child's stderr attached.
    """
    src = _PREAMBLE.format(limit=mem_mb * MiB) + textwrap.dedent(code)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", src, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=REPO,
    )
    report: dict[str, Any] = {}
    for line in reversed(proc.stdout.strip().splitlines()):
        if line.startswith("{"):
            report = json.loads(line)
            break
    return Bounded(proc.returncode, proc.stdout, proc.stderr, report)


def assert_ok(result: Bounded) -> dict[str, Any]:
    assert result.returncode == 0 and result.report, (
        f"child failed (rc={result.returncode}):\n{result.stderr[-3000:]}"
    )
    return result.report


def rss(items: str = "", *, head: str = "", channel: str = "<title>t</title>") -> bytes:
    """An RSS 2.0 document around ``items`` (``head`` goes before the root)."""
    return (
        f'<?xml version="1.0" encoding="utf-8"?>{head}<rss version="2.0"><channel>'
        f"{channel}{items}</channel></rss>"
    ).encode("utf-8", "surrogatepass")


def item(guid: str | None, title: str = "t", *, link: str | None = None, extra: str = "") -> str:
    parts = [f"<title>{title}</title>"]
    if guid is not None:
        parts.append(f"<guid>{guid}</guid>")
    if link is not None:
        parts.append(f"<link>{link}</link>")
    return "<item>" + "".join(parts) + extra + "</item>"


class Clock:
    """A settable clock for ``now=`` parameters."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def files_containing(root: Path, needle: bytes) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle`` (any case)."""
    low = needle.lower()
    return [p for p in root.rglob("*") if p.is_file() and low in p.read_bytes().lower()]


@contextmanager
def store_and_updater(path: Path, clock: Callable[[], float]) -> Iterator[tuple[Any, Any]]:
    """A real Store at ``path`` and an Updater whose fetcher and scheduler read
    ``clock``; both closed afterwards."""
    from smartreader.net.fetch import Fetcher
    from smartreader.storage.store import Store
    from smartreader.updater import Updater

    store = Store(path)
    up = Updater(store, fetcher=Fetcher(trust_env=False, now=clock), now=clock)
    try:
        yield store, up
    finally:
        up.close()
        store.close()


def spy_on_scheduler(up: Any) -> list[Any]:
    """The observations the scheduler is given, as they come."""
    seen: list[Any] = []
    observe = up.scheduler.observe

    def spy(feed_id: Any, obs: Any) -> Any:
        seen.append(obs)
        return observe(feed_id, obs)

    up.scheduler.observe = spy  # type: ignore[method-assign]
    return seen
