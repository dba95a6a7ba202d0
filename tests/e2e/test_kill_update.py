"""SIGKILL in the middle of `update`, many times: the database always opens,
passes integrity_check, and keeps every entry committed before the kill."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from smartreader.storage import Store

ROUNDS = 24
FEEDS = 40
ROUND_DEADLINE = 90.0  # s; a round takes about one


class _FeedFarm(BaseHTTPRequestHandler):
    """Each feed shows 30 items; the round number in the uid makes every round new."""

    round = 0

    def do_GET(self) -> None:
        n = int(self.path.rsplit("/", 1)[-1].split(".")[0])
        r = type(self).round
        items = "".join(
            f"<item><guid>r{r}-f{n}-i{i}</guid><title>Item {i} of feed {n}, round {r}</title>"
            f"<description>{'Lorem ipsum dolor sit amet. ' * 40}</description></item>"
            for i in range(30)
        )
        body = (
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {n}</title>'
            f"<link>http://127.0.0.1/</link>{items}</channel></rss>"
        ).encode()
        time.sleep(random.uniform(0, 0.01))
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the killed client drops connections mid-response; that is the point


CHILD = textwrap.dedent(
    """
    import sys
    from smartreader.storage import Store
    from smartreader.updater import Updater
    store = Store(sys.argv[1])
    up = Updater(store, max_workers=4)
    def progress(done, total, res):
        # Called after the feed's result is known: for "ok", after record_fetch
        # committed its entries; any other status wrote no entries (or nothing).
        print("result", res.feed_id, res.status, res.new_entries, repr(res.error), flush=True)
    up.update(progress=progress)
    print("finished", flush=True)
    """
)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_sigkill_during_update_never_loses_committed_entries(tmp_path):
    server = _Server(("127.0.0.1", 0), _FeedFarm)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    db = tmp_path / "db.sqlite3"
    with Store(db) as store:
        for n in range(FEEDS):
            store.add_feed(f"http://127.0.0.1:{port}/feed/{n}.xml")

    rng = random.Random(1234)
    known_uids: set[str] = set()
    kills = 0
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    try:
        for r in range(ROUNDS):
            _FeedFarm.round = r
            # stderr goes to a file, not a pipe nobody reads while stdout is read: a
            # child that logs more than a pipe holds would block, and the test with it.
            err_path = tmp_path / f"child-{r}.err"
            with err_path.open("w") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-c", CHILD, str(db)],
                    stdout=subprocess.PIPE,
                    stderr=err,
                    env=env,
                    text=True,
                )
            # A hung child fails the round with its stderr instead of stalling the run.
            hung = threading.Event()

            def stall(proc: subprocess.Popen[str] = proc, hung: threading.Event = hung) -> None:
                hung.set()
                proc.kill()

            watchdog = threading.Timer(ROUND_DEADLINE, stall)
            watchdog.start()
            committed_feeds: set[int] = set()
            failed: list[str] = []
            # Kill after a random number of committed feeds (never 0 and never all).
            kill_after = rng.randint(1, FEEDS - 5)
            assert proc.stdout is not None
            try:
                for line in proc.stdout:
                    if not line.startswith("result"):
                        continue
                    _, feed_id, status, new_entries, _error = line.rstrip("\n").split(" ", 4)
                    if status != "ok" or int(new_entries) != 30:
                        # Nothing in this setup fails: a failed fetch or write is not
                        # a committed feed, and must not pass for lost entries either.
                        failed.append(line.strip())
                        proc.kill()
                        break
                    committed_feeds.add(int(feed_id))
                    if len(committed_feeds) >= kill_after:
                        proc.send_signal(signal.SIGKILL)
                        break
                proc.wait(timeout=60)
            finally:
                watchdog.cancel()
                proc.stdout.close()
            stderr = err_path.read_text()
            assert not hung.is_set(), f"round {r}: child hung for {ROUND_DEADLINE} s\n{stderr}"
            assert not failed, f"round {r}: an update failed: {failed[0]}\n{stderr}"
            if proc.returncode == -signal.SIGKILL:
                kills += 1
            elif proc.returncode != 0:
                raise AssertionError(f"round {r}: exit status {proc.returncode}\n{stderr}")

            con = sqlite3.connect(db)
            try:
                assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                uids = {row[0] for row in con.execute("SELECT uid FROM entries")}
                present_feeds = {
                    row[0]
                    for row in con.execute(
                        "SELECT DISTINCT feed_id FROM entries WHERE uid LIKE ?", (f"r{r}-%",)
                    )
                }
            finally:
                con.close()
            # Everything from earlier rounds survives...
            assert known_uids <= uids
            # ...and every feed reported committed this round has its 30 items.
            assert committed_feeds <= present_feeds, f"round {r}: {len(uids)} {sorted(uids)[:3]}"
            for fid in committed_feeds:
                assert sum(1 for u in uids if u.startswith(f"r{r}-f{fid - 1}-")) == 30
            known_uids = uids
    finally:
        server.shutdown()
        server.server_close()
    assert kills >= 20
    with Store(db) as store:
        assert store.integrity_check() == "ok"
