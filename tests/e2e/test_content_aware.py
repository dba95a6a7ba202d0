""" "Prefer new content" end to end: HTTP → parse → store, and the scheduler learns
only the novel items (non-novel new items reach it with is_new=False)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from smartreader.content_aware import SETTING
from smartreader.storage import Store
from smartreader.updater import Updater
from tests.reliability.support import spy_on_scheduler

PKGS = ["serde", "tokio", "clap", "rand", "regex"]
T0 = 1_780_000_000.0


def _rss(items: list[tuple[str, str]]) -> bytes:
    body = "".join(
        f"<item><guid>{g}</guid><title>{t}</title>"
        f"<pubDate>Mon, 01 Jun 2026 {(i // 60) % 24:02d}:{i % 60:02d}:00 GMT</pubDate></item>"
        for i, (g, t) in enumerate(items)
    )
    head = '<?xml version="1.0"?><rss version="2.0"><channel><title>Bot</title>'
    return f"{head}{body}</channel></rss>".encode()


class _Feed(BaseHTTPRequestHandler):
    items: ClassVar[list[tuple[str, str]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        data = _rss(self.items[-20:][::-1])
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server():
    _Feed.items = [(f"b{i}", f"chore(deps): update {PKGS[i % 5]} to v1.{i}.0") for i in range(30)]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Feed)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/feed.xml"
    srv.shutdown()
    srv.server_close()


def _second_fetch(tmp_path, url: str, content_aware: bool) -> tuple[int, list[Any]]:
    clock = [T0]
    with Store(tmp_path / f"db{int(content_aware)}.sqlite3") as store:
        store.set_setting(SETTING, content_aware)
        fid = store.add_feed(url)
        up = Updater(store, now=lambda: clock[0], max_workers=1)
        _Feed.items = _Feed.items[:30]
        for i in range(10):  # a first page, then 10 more bumps: a profile to judge against
            up.update([fid])
            _Feed.items.append((f"c{i}", f"chore(deps): update {PKGS[i % 5]} to v2.{i}.0"))
            clock[0] += 3600
        seen = spy_on_scheduler(up)
        _Feed.items.append(("n1", "Rewrite the HTTP/2 connection pool for streaming bodies"))
        _Feed.items += [
            (f"d{i}", f"chore(deps): update {PKGS[i % 5]} to v3.{i}.0") for i in range(4)
        ]
        res = up.update([fid])
        up.close()
        assert len(store.entry_ids(feed_ids=[fid])) == 35  # every item is stored either way
        return res[0].new_entries, [i for i in seen[0].items]


def test_content_aware_flags_repeats_for_the_scheduler(tmp_path, server):
    new, items = _second_fetch(tmp_path, server, True)
    assert new == 6  # bumps c9 (added after the 10th fetch), n1, d0..d3: all stored as new
    flags = {i.uid: i.novel for i in items}
    assert flags["n1"] is True  # real news is learned as novel
    assert sum(flags[f"d{i}"] for i in range(4)) <= 1  # bumps mostly are not
    assert len(items) == 20  # the window stays whole for missed-item detection
    assert sum(i.is_new for i in items) == 6  # and the all-item rate sees every new one


def test_content_aware_off_reports_every_new_item(tmp_path, server):
    new, items = _second_fetch(tmp_path, server, False)
    assert new == 6
    assert sum(i.is_new for i in items) == 6
    assert all(i.novel for i in items)


def test_beta_setting_is_read(tmp_path):
    from smartreader.content_aware import BETA_SETTING, ContentTracker
    from smartreader.core.content import DEFAULT_BETA
    from smartreader.storage import Store

    with Store(tmp_path / "db.sqlite3") as store:
        assert ContentTracker(store).beta == DEFAULT_BETA
        store.set_setting(BETA_SETTING, 1.5)
        assert ContentTracker(store).beta == 1.5
        store.set_setting(BETA_SETTING, "nonsense")
        assert ContentTracker(store).beta == DEFAULT_BETA
