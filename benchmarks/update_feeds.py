"""Benchmark: `update` of N feeds served by local servers (default 500).

    python benchmarks/update_feeds.py [--feeds 500] [--hosts 20] [--workers 8]

The feeds are spread over several loopback addresses (127.0.0.1..127.0.0.H) so the
per-host concurrency limit applies as it would across real sites. The servers run
in a separate process so the reported peak memory is smartreader's own. Prints a
table: feeds, hosts, workers, wall time, feeds/s, peak in-flight requests seen by
the servers, peak RSS.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ITEM = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20 + "</p>"


def _serve(hosts: int, ready: mp.Queue, stop: mp.Event, stats: mp.Queue) -> None:
    lock = threading.Lock()
    state = {"inflight": 0, "peak": 0, "requests": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            with lock:
                state["inflight"] += 1
                state["requests"] += 1
                state["peak"] = max(state["peak"], state["inflight"])
            try:
                n = self.path.rsplit("/", 1)[-1].split(".")[0]
                items = "".join(
                    f"<item><guid>f{n}-{i}</guid><title>Item {i} of feed {n}</title>"
                    f"<link>http://example.org/{n}/{i}</link>"
                    f"<pubDate>Mon, 0{1 + i % 9} Jun 2026 10:00:00 GMT</pubDate>"
                    f"<description><![CDATA[{ITEM}]]></description></item>"
                    for i in range(25)
                )
                body = (
                    f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {n}'
                    f"</title><link>http://example.org/{n}</link>{items}</channel></rss>"
                ).encode()
                time.sleep(0.02)  # a little server think time
                self.send_response(200)
                self.send_header("Content-Type", "application/rss+xml")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", f'"{n}"')
                self.end_headers()
                self.wfile.write(body)
            finally:
                with lock:
                    state["inflight"] -= 1

        def log_message(self, *args: object) -> None:
            pass

    servers = []
    for h in range(1, hosts + 1):
        srv = ThreadingHTTPServer((f"127.0.0.{h}", 0), Handler)
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
    ready.put([(f"127.0.0.{i + 1}", s.server_address[1]) for i, s in enumerate(servers)])
    stop.wait()
    stats.put(dict(state))
    for s in servers:
        s.shutdown()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--feeds", type=int, default=500)
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--workers", type=int, default=8)
    args = ap.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from smartreader.storage import Store
    from smartreader.updater import Updater

    ready: mp.Queue = mp.Queue()
    stats: mp.Queue = mp.Queue()
    stop = mp.Event()
    proc = mp.Process(target=_serve, args=(args.hosts, ready, stop, stats), daemon=True)
    proc.start()
    addrs = ready.get(timeout=30)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "db.sqlite3")
        for n in range(args.feeds):
            host, port = addrs[n % len(addrs)]
            store.add_feed(f"http://{host}:{port}/feed/{n}.xml")
        up = Updater(store, max_workers=args.workers)
        t0 = time.perf_counter()
        results = up.update(manual=True)
        wall = time.perf_counter() - t0
        up.close()
        entries = store.entry_count()
        store.close()
    stop.set()
    server_stats = stats.get(timeout=30)
    proc.join(timeout=10)
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ok = sum(1 for r in results if r.status == "ok")
    print(
        "| feeds | hosts | workers | ok | entries | wall s | feeds/s | peak in-flight "
        "| peak RSS MB (before) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.feeds} | {args.hosts} | {args.workers} | {ok} | {entries} | {wall:.1f} | "
        f"{args.feeds / wall:.0f} | {server_stats['peak']} | {peak_rss_mb:.0f} "
        f"({rss_before / 1024:.0f}) |"
    )
    return 0 if ok == args.feeds else 1


if __name__ == "__main__":
    sys.exit(main())
