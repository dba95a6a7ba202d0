"""The ``--demo`` world: a local feed server and a data folder with weeks of history.

``smartreader --demo`` must show a living reader with no network at all:

* ``DemoServer`` is a small HTTP server on 127.0.0.1 (port 0, its own thread)
  serving a dozen RSS feeds. Each feed's posting times follow a weekly rate
  profile λ(t) measured from real traces (``resources/demo/feeds.json``, built by
  ``scripts/make_demo_profiles.py``; only timing is taken from the traces), except
  one generated round-the-clock feed (``harbour_board``): the traced feeds are
  nearly silent at night, and the demo must show news arriving at any hour. Items
  are a deterministic function of (feed, hour): the server is stateless, new items
  appear on their rhythm while the app runs, and any past fetch can be
  reconstructed exactly. Titles and text are generated here from word lists.
  The server answers ``If-None-Match`` with 304, like a polite real server.
* ``prefill`` drives the real ``core.scheduler.Scheduler`` over the past weeks
  against the same item stream (no HTTP: the world is computed in-process, which
  takes a second or two instead of minutes), at the same budget as the live app,
  and records what it fetched through ``Store.record_fetch``: entries, fetch log,
  missed-item alerts and the learned scheduler state. The history ends
  ``CLOSED_FOR_S`` before the app opens (the demo user closed the reader then):
  the app's ``Updater`` starts from that state, its start-up catch-up fetches
  what was published meanwhile from the live server over real HTTP, and its plan
  goes on from there.
* ``DemoSession`` ties both to a temporary data folder and cleans up.

No Qt here (see tests/test_architecture.py).
"""

from __future__ import annotations

import bisect
import contextlib
import email.utils
import functools
import hashlib
import html
import json
import logging
import math
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from smartreader.core.models import FetchObservation, ItemSighting, ParsedEntry
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.storage.store import DB_NAME, FetchRecord, Store

log = logging.getLogger(__name__)

HOUR = 3600.0
DAY = 86400.0
WEEK = 7 * DAY
MONDAY_EPOCH = 4 * 86400  # 1970-01-05 00:00 UTC, a Monday: slot 0 of the week
HISTORY_WEEKS = 2
LOOKBACK_HOURS = 24 * 60  # how far back the server looks to fill a window
# One budget for the replayed history and the live app, so the Activity page's
# "fetches/day" describes the fetch log under it. The replay's cost grows with it
# (~0.2 ms of scheduler work per replayed fetch).
DEMO_BUDGET_PER_DAY = 800.0
# The plan's 5-min grid: no feed can be planned more often (``fetch_ceiling``).
DEMO_MIN_INTERVAL = 300.0
# The history ends this long before the app opens: the real scheduler's catch-up
# then fetches the articles published meanwhile within the first seconds, as after
# any restart, instead of finding nothing new. The history spent the whole budget
# (its plan does), so the catch-up gets only the requests that left the 24 h
# window meanwhile: 30 min free enough for it even at night.
CLOSED_FOR_S = 30 * 60.0
BOARD_RATE = (6.0, 14.0)  # the harbour board's items/hour: quietest, busiest
# Fetch-log rows older than this are only written when they brought new items.
FULL_LOG_S = 2 * DAY
READ_BEFORE_S = 1.5 * DAY  # the demo user has read what is older than this


# -- the feeds ---------------------------------------------------------------------


@dataclass(frozen=True)
class DemoFeed:
    key: str
    title: str
    folder: str | None
    topic: str
    capacity: int
    lambda_week: tuple[float, ...]  # items/hour, 168 UTC slots from Monday 00:00
    subscribed_days: float | None = None  # None: for the whole history
    read_before_s: float = 0.0  # its items older than this are read too (0: none)

    @property
    def path(self) -> str:
        return f"/feeds/{self.key}.xml"


@dataclass(frozen=True)
class DemoItem:
    uid: str
    published: float
    title: str
    html: str
    link: str
    author: str


def harbour_board() -> DemoFeed:
    """A port's traffic board: ships come and go day and night, busiest in the
    European afternoon (``BOARD_RATE`` items/hour, lowest at 01:00 UTC). The one
    demo feed whose λ is generated, not traced: at night the traced feeds post a
    few items an hour between them, at times none, so a demo opened then showed
    nothing arriving for many minutes."""
    lo, hi = BOARD_RATE
    day = [lo + (hi - lo) * (1 - math.cos(2 * math.pi * (h - 1) / 24)) / 2 for h in range(24)]
    return DemoFeed(
        key="board",
        title="Harbour Traffic Board",
        folder="News",
        topic="traffic",
        capacity=20,  # ~1.4 h at its busiest: well beyond what the closed half hour brings
        lambda_week=tuple(round(v, 4) for v in day * 7),
        # Subscribed a week ago (each weekday seen once) and skimmed: more history
        # of it lengthens the replay (nearly every fetch brings something, each
        # written with its window), and the other feeds' articles would drown in
        # hundreds of unread ship movements.
        subscribed_days=7.0,
        read_before_s=3 * HOUR,
    )


def load_feeds() -> list[DemoFeed]:
    data = json.loads(
        resources.files("smartreader")
        .joinpath("resources/demo/feeds.json")
        .read_text(encoding="utf-8")
    )
    traced = [
        DemoFeed(
            key=f["key"],
            title=f["title"],
            folder=f.get("folder"),
            topic=f["topic"],
            capacity=int(f["capacity"]),
            lambda_week=tuple(float(v) for v in f["lambda_week"]),
        )
        for f in data["feeds"]
    ]
    return [*traced, harbour_board()]


def _poisson(rng: random.Random, lam: float) -> int:
    if lam <= 0:
        return 0
    limit, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _slot(hour_index: int) -> int:
    return (hour_index - MONDAY_EPOCH // 3600) % 168


# Word lists for generated text, per topic. Invented, deliberately bland.
_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "news": {
        "subject": ("City council", "Harbour authority", "Regional court", "Transit board",
                    "School district", "Weather service", "Port authority", "Museum board",
                    "Farmers' union", "Library network", "Ferry operator", "Water board"),
        "verb": ("approves", "delays", "debates", "questions", "unveils", "rejects",
                 "expands", "reviews", "funds", "pauses"),
        "object": ("new tram line", "harbour bridge repairs", "night-bus pilot",
                   "flood barrier plan", "summer festival budget", "bike lane network",
                   "housing proposal", "coastal path", "market hall renovation",
                   "wind farm lease", "school meal programme", "river clean-up"),
    },
    "wire": {
        "subject": ("Ferry", "Cargo ship", "Storm front", "Rail line", "Airport",
                    "Fishing fleet", "Tugboat crew", "Lighthouse", "Container terminal"),
        "verb": ("reports", "expects", "announces", "confirms", "signals", "warns of"),
        "object": ("short delays", "a schedule change", "high tide at noon",
                   "record tonnage", "a calm evening", "strong gusts", "an early arrival",
                   "a berth swap", "fog in the channel"),
    },
    "dev": {
        "subject": ("parser", "scheduler", "cache", "test suite", "CLI", "docs",
                    "build script", "allocator", "config loader", "release notes",
                    "error messages", "benchmarks", "CI workflow", "formatter"),
        "verb": ("fix", "speed up", "refactor", "document", "simplify", "harden",
                 "deprecate", "add tests for", "clean up", "rework"),
        "object": ("for empty inputs", "on Windows", "behind a flag", "for large files",
                   "in the hot path", "after review feedback", "for the next release",
                   "without extra allocations", "with clearer names", "under load"),
    },
    "blog": {
        "subject": ("Notes on", "A week with", "What I learned from", "Revisiting",
                    "Small tools for", "The case for", "Against", "Field report:",
                    "Sketching"),
        "verb": ("",),
        "object": ("slow software", "plain-text workflows", "self-hosted feeds",
                   "keyboard-driven editors", "mesh networks", "local-first apps",
                   "community workshops", "tiny databases", "polite crawlers",
                   "the quiet web", "soldering at the hackspace", "backup rituals"),
    },
    "traffic": {
        "subject": ("Ferry Skarv", "MV Nordlys", "Tug Brisk", "Cargo ship Aurora Bay",
                    "Pilot boat 3", "Research vessel Tern", "Tanker Solvik",
                    "Ferry Holmen", "Dredger Mudlark", "Reefer Polar Star", "Yacht Kittiwake",
                    "Container ship Baltic Wren"),
        "verb": ("arrives at", "leaves", "shifts to", "waits off", "is moored at",
                 "clears"),
        "object": ("berth 2", "berth 7", "the ferry quay", "the container terminal",
                   "the fuel pier", "the north lock", "the outer anchorage", "the dry dock",
                   "the fish market quay", "the grain silo"),
    },
}  # fmt: skip

_SENTENCES = (
    "The details were settled after a long discussion, and the result is smaller than planned.",
    "People who followed the earlier rounds will recognise most of the arguments.",
    "A follow-up is expected later this week, once the numbers are in.",
    "Nothing changes for most readers today; the effects show up over the next months.",
    "The change is easy to miss, which is rather the point.",
    "Several people asked why it took this long; the short answer is testing.",
    "The previous approach worked, but only as long as nobody looked closely.",
    "There is a longer write-up for anyone who wants the full story.",
    "Questions and corrections are welcome, as always.",
    "This is the demo feed of smartreader: the text is generated, the timing is real.",
)
_BOARD_SENTENCES = (
    "Logged by the harbour master's office.",
    "Pilot on board; tug assistance as planned.",
    "No delays to other traffic are expected.",
    "Times are local to the port; positions are approximate.",
    "Shore power connected.",
    "This board is generated by the smartreader demo, day and night.",
)


def uid_of(feed: DemoFeed, hour_index: int, k: int) -> str:
    return f"demo:{feed.key}:{hour_index}:{k}"


@functools.lru_cache(maxsize=400_000)
def _hour_times(key: str, lam: float, hour_index: int) -> tuple[float, ...]:
    rng = random.Random(f"{key}#{hour_index}")
    n = _poisson(rng, lam)
    return tuple(sorted(float(hour_index * 3600 + rng.randrange(3600)) for _ in range(n)))


def hour_times(feed: DemoFeed, hour_index: int) -> tuple[float, ...]:
    """When a feed publishes within one absolute hour (deterministic), oldest first."""
    return _hour_times(feed.key, feed.lambda_week[_slot(hour_index)], hour_index)


@functools.lru_cache(maxsize=20_000)
def make_item(feed: DemoFeed, hour_index: int, k: int, published: float, base_url: str) -> DemoItem:
    """The text of one item: generated from word lists, seeded by its identity."""
    seed = int.from_bytes(hashlib.sha256(f"{feed.key}/{hour_index}/{k}".encode()).digest()[:8])
    rng = random.Random(seed)
    w = _WORDS[feed.topic]
    subject, verb, obj = rng.choice(w["subject"]), rng.choice(w["verb"]), rng.choice(w["object"])
    if feed.topic == "dev":
        title = f"{subject}: {verb} {obj}"
    else:
        title = " ".join(x for x in (subject, verb, obj) if x)
    if feed.topic == "traffic":
        paras = [" ".join(rng.sample(_BOARD_SENTENCES, 2))]
    else:
        paras = [" ".join(rng.sample(_SENTENCES, 3)) for _ in range(rng.randint(1, 3))]
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paras)
    if feed.topic == "blog" and rng.random() < 0.5:
        body += "<blockquote>" + html.escape(rng.choice(_SENTENCES)) + "</blockquote>"
    author = rng.choice(("A. Rivera", "M. Okafor", "J. Lindqvist", "S. Tanaka", "desk"))
    link = f"{base_url}/posts/{feed.key}/{hour_index}/{k}"
    return DemoItem(uid_of(feed, hour_index, k), published, title, body, link, author)


def article_page(feed: DemoFeed, hour_index: int, k: int, base_url: str) -> bytes | None:
    """The web page an item links to: the item's text and more of it, inside a
    site's navigation and footer (what Article ▸ Load full article extracts).
    None when the feed did not publish such an item."""
    times = hour_times(feed, hour_index)
    if not 0 <= k < len(times):
        return None
    it = make_item(feed, hour_index, k, times[k], base_url)
    rng = random.Random(it.uid)
    more = "".join(f"<p>{html.escape(' '.join(rng.sample(_SENTENCES, 4)))}</p>" for _ in range(4))
    esc = html.escape
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(it.title)} - "
        f"{esc(feed.title)}</title></head><body>"
        f"<header><a href='/'>{esc(feed.title)}</a> <nav><a href='/'>Home</a> "
        "<a href='/archive'>Archive</a> <a href='/about'>About</a></nav></header>"
        f"<main><article><h1>{esc(it.title)}</h1><p class='byline'>By {esc(it.author)}</p>"
        f"{it.html}{more}</article></main>"
        "<footer><p>Generated by the smartreader demo.</p></footer></body></html>"
    ).encode()


Slot = tuple[int, int, float]  # (hour index, k within the hour, published)


def window_slots(feed: DemoFeed, now: float) -> list[Slot]:
    """What the feed shows at ``now``: its ``capacity`` latest items, newest first."""
    out: list[Slot] = []
    h = int(now // 3600)
    for hi in range(h, h - LOOKBACK_HOURS, -1):
        times = hour_times(feed, hi)
        for k in range(len(times) - 1, -1, -1):
            if times[k] <= now:
                out.append((hi, k, times[k]))
                if len(out) >= feed.capacity:
                    return out
    return out


class Timeline:
    """Every item of one feed between two times, for fast windows during the replay."""

    def __init__(self, feed: DemoFeed, t0: float, t1: float) -> None:
        self.feed = feed
        # the window at t0, then everything after it: a busy feed's window reaches
        # back hours, not the whole look-back
        self.slots: list[Slot] = window_slots(feed, t0)[::-1]
        h0 = int(t0 // 3600)
        for hi in range(h0, int(t1 // 3600) + 1):
            times = hour_times(feed, hi)
            self.slots.extend((hi, k, t) for k, t in enumerate(times) if hi > h0 or t > t0)
        self.times = [s[2] for s in self.slots]
        self.uids = [uid_of(feed, h, k) for h, k, _ in self.slots]

    def span(self, now: float) -> tuple[int, int]:
        """The window at ``now`` as slots[i:j] (oldest first)."""
        j = bisect.bisect_right(self.times, now)
        return max(0, j - self.feed.capacity), j

    def window(self, now: float) -> list[Slot]:
        i, j = self.span(now)
        return self.slots[i:j][::-1]


def window(feed: DemoFeed, now: float, base_url: str) -> list[DemoItem]:
    return [make_item(feed, h, k, t, base_url) for h, k, t in window_slots(feed, now)]


@functools.lru_cache(maxsize=20_000)
def _item_xml(it: DemoItem) -> str:
    # an item stays in its feed's window for many fetches: escaped once
    esc = html.escape
    return (
        "<item>"
        f"<title>{esc(it.title)}</title>"
        f"<link>{esc(it.link)}</link>"
        f'<guid isPermaLink="false">{esc(it.uid)}</guid>'
        f"<pubDate>{email.utils.formatdate(it.published, usegmt=True)}</pubDate>"
        f"<author>{esc(it.author)}</author>"
        f"<description>{esc(it.html)}</description>"
        "</item>\n"
    )


def render_rss(feed: DemoFeed, items: list[DemoItem], base_url: str) -> bytes:
    esc = html.escape
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0">\n<channel>\n',
        f"<title>{esc(feed.title)}</title>\n<link>{esc(base_url)}/</link>\n",
        f"<description>{esc(feed.title)} (smartreader demo)</description>\n",
    ]
    parts.extend(_item_xml(it) for it in items)
    parts.append("</channel>\n</rss>\n")
    return "".join(parts).encode("utf-8")


# -- the server ---------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        demo = self.server.demo
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            self._send(200, demo.index_html(), "text/html; charset=utf-8")
            return
        if path.startswith("/posts/"):  # an item's page: /posts/<feed>/<hour>/<k>
            page = demo.article(path)
            if page is None:
                self._send(404, b"not found", "text/plain")
            else:
                self._send(200, page, "text/html; charset=utf-8")
            return
        feed = demo.feed_by_path.get(path)
        if feed is None:
            self._send(404, b"not found", "text/plain")
            return
        demo.requests += 1
        items = window(feed, demo.now(), demo.base_url)
        etag = '"' + hashlib.sha1("|".join(i.uid for i in items).encode()).hexdigest()[:16] + '"'
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        body = render_rss(feed, items, demo.base_url)
        self._send(200, body, "application/rss+xml; charset=utf-8", etag)

    def _send(self, status: int, body: bytes, ctype: str, etag: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if etag:
            self.send_header("ETag", etag)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    demo: DemoServer


class DemoServer:
    """The demo feeds over HTTP on 127.0.0.1 (port 0 by default), in a thread."""

    def __init__(
        self,
        feeds: list[DemoFeed] | None = None,
        *,
        port: int = 0,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.feeds = feeds if feeds is not None else load_feeds()
        self.feed_by_path = {f.path: f for f in self.feeds}
        self.now = now
        self.requests = 0
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.demo = self
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._thread: threading.Thread | None = None

    def url(self, feed: DemoFeed) -> str:
        return self.base_url + feed.path

    def article(self, path: str) -> bytes | None:
        """The page at ``/posts/<feed key>/<hour index>/<k>``, or None."""
        parts = path.split("/")[2:]
        feed = next((f for f in self.feeds if len(parts) == 3 and f.key == parts[0]), None)
        if feed is None or not (parts[1].lstrip("-").isdigit() and parts[2].isdigit()):
            return None
        return article_page(feed, int(parts[1]), int(parts[2]), self.base_url)

    def index_html(self) -> bytes:
        links = "".join(
            f'<link rel="alternate" type="application/rss+xml" title="{html.escape(f.title)}" '
            f'href="{f.path}">'
            for f in self.feeds
        )
        return (
            f"<!doctype html><html><head><title>smartreader demo</title>{links}</head>"
            "<body><p>smartreader demo feeds</p></body></html>"
        ).encode()

    def start(self) -> DemoServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.1},
                name="smartreader-demo-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> DemoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# -- history ------------------------------------------------------------------------


def _entry(it: DemoItem) -> ParsedEntry:
    return ParsedEntry(
        uid=it.uid,
        title=it.title,
        link=it.link,
        author=it.author,
        published=it.published,
        updated=None,
        content=it.html,
        summary="",
    )


def prefill(
    store: Store,
    server: DemoServer,
    *,
    now: float | None = None,
    weeks: float = HISTORY_WEEKS,
    closed_for: float = CLOSED_FOR_S,
) -> dict[str, int]:
    """Subscribe ``store`` to the demo feeds and replay ``weeks`` of polling by the
    real scheduler against the demo item stream, up to ``closed_for`` seconds before
    ``now`` (when the app opens). Returns {feed key: feed id}."""
    now = time.time() if now is None else now
    end = now - closed_for
    start = end - weeks * WEEK
    store.set_setting("budget_per_day", DEMO_BUDGET_PER_DAY)
    store.set_setting("min_interval", DEMO_MIN_INTERVAL)
    # The very settings the app's Updater will read: the history is what its plan
    # makes (a smaller replay budget showed "every 5 min" over a log 40 min apart).
    cfg = SchedulerConfig(budget_per_day=DEMO_BUDGET_PER_DAY, min_interval=DEMO_MIN_INTERVAL)
    sched = Scheduler(cfg, start)
    # A throwaway demo database needs no fsync per fetch: thousands of replayed
    # fetches would otherwise take tens of seconds. The connection is closed after
    # the prefill.
    store.set_durable(False)
    host = f"127.0.0.1:{server.port}"
    ids: dict[str, int] = {}
    by_id: dict[int, DemoFeed] = {}
    seen: dict[int, set[str]] = {}
    timelines: dict[int, Timeline] = {}
    later: list[tuple[float, int]] = []  # (subscribed at, feed id), in time order
    for feed in server.feeds:
        since = start
        if feed.subscribed_days is not None:
            since = max(start, end - feed.subscribed_days * DAY)
        fid = store.add_feed(server.url(feed), folder=feed.folder, title=feed.title, now=since)
        ids[feed.key] = fid
        by_id[fid] = feed
        seen[fid] = set()
        timelines[fid] = Timeline(feed, since, end)
        if since > start:
            later.append((since, fid))
        else:
            sched.add_feed(fid, host=host)
    later.sort()
    t = start
    while t < end:
        while later and later[0][0] <= t:
            sched.add_feed(later.pop(0)[1], host=host)
        for due in sched.due(t):
            fid = int(due)  # type: ignore[call-overload]
            feed = by_id[fid]
            tl = timelines[fid]
            i, j = tl.span(t)
            slots = tl.slots[i:j][::-1]  # newest first, as a feed lists them
            uids = tl.uids[i:j][::-1]
            known = seen[fid]
            fresh = [u not in known for u in uids]
            obs = FetchObservation(
                fetched_at=t,
                status="ok",
                items=tuple(
                    ItemSighting(u, p, n)
                    for u, (_, _, p), n in zip(uids, slots, fresh, strict=True)
                ),
            )
            verdict = sched.observe(fid, obs)
            known.update(uids)
            new = any(fresh)
            if not new and t < end - FULL_LOG_S:
                continue
            items = [make_item(feed, h, k, p, server.base_url) for h, k, p in slots] if new else []
            missed = verdict.missed_estimate if verdict.missed_alert else 0.0
            store.record_fetch(
                FetchRecord(
                    feed_id=fid,
                    time=t,
                    status="ok" if new else "not_modified",
                    http_status=200 if new else 304,
                    bytes=len(render_rss(feed, items, server.base_url)) if new else 0,
                    duration=0.004,
                    entries=tuple(_entry(i) for i in items),
                    feed_title=feed.title if new else None,
                    site_link=server.base_url + "/" if new else None,
                    missed_estimate=missed,
                    missed_from=verdict.missed_from if missed else None,
                    missed_to=verdict.missed_to if missed else None,
                )
            )
        wake = sched.next_wakeup()
        t = max(t + 1.0, wake if wake is not None else t + 600.0)
        if later:
            t = min(t, later[0][0])
    store.save_scheduler_state({fid: sched.export_state(fid) for fid in by_id})
    # The demo user has kept up until a day and a half ago (a skimmed feed until
    # later), starred a few things, and has seen the older alerts.
    store.mark_all_read(before=now - READ_BEFORE_S)
    for fid, feed in by_id.items():
        if feed.read_before_s:
            store.mark_all_read([fid], before=now - feed.read_before_s)
    rng = random.Random(7)
    for fid in by_id:
        some = store.entry_ids(feed_ids=[fid], limit=40)
        if some:
            store.set_starred(rng.sample(some, min(len(some), rng.choice((0, 1, 1, 2)))))
    old = [a.id for a in store.alerts() if a.created < now - DAY]
    if old:
        store.dismiss_alerts(old)
    return ids


# -- a whole session ------------------------------------------------------------------


class DemoSession:
    """A temporary data folder pre-filled with history, and the live demo server.

    ``with DemoSession() as demo: run the app on demo.data_dir``.
    """

    def __init__(self, *, weeks: float = HISTORY_WEEKS, data_dir: Path | None = None) -> None:
        self._own_dir = data_dir is None
        self.data_dir = (
            Path(tempfile.mkdtemp(prefix="smartreader-demo-"))
            if data_dir is None
            else Path(data_dir)
        )
        self.server = DemoServer().start()
        started = time.monotonic()
        try:
            with Store(self.data_dir / DB_NAME) as store:
                self.feed_ids = prefill(store, self.server, weeks=weeks)
        except BaseException:
            self.close()
            raise
        log.info("demo history prepared in %.1f s", time.monotonic() - started)

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_NAME

    def close(self) -> None:
        self.server.stop()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> DemoSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def demo_session(**kwargs: Any) -> Iterator[DemoSession]:
    session = DemoSession(**kwargs)
    try:
        yield session
    finally:
        session.close()
