"""The parts of ``test_random_app.py`` that are not the session itself: a fast clock,
the feed servers' world, the app started as ``smartreader`` starts it, and a way
to find a moment when the app is quiet enough to be checked.

* ``FakeClock``: wall and monotonic time running ``speed`` times faster than real
  time, one origin for both; ``jump()`` moves the wall clock alone, as a suspend
  and resume does. The updater, its fetcher and the worker's timer read it (the
  constructors take a clock: nothing in the scheduler is patched).
* ``World``: feeds on ``FeedServer``s (each its own host), whose answers change
  over time: new, edited and removed items, 304s, 429/503 with Retry-After,
  500/404/410, slow answers and answers past the fetcher's deadline, broken
  documents, temporary and permanent redirects. Every answer is recorded with the
  fake time it was given at; a request that reaches a host before a Retry-After
  it gave is recorded as a violation.
* ``App``: ``AppController.open`` on a data folder, as ``smartreader.gui.app.run``
  does, with the clock and a fetcher with short deadlines handed to the
  constructors it calls; quitting as the user does, then ``AppController.close``
  (what ``run`` does when the event loop ends).
* ``App.quiet()``: waits until every request sent to the worker thread has been
  answered (a ping through its event loop), no subscription is pending and the
  window's coalesced refresh has run, then holds the updater's lock while the
  caller checks: the worker cannot record a fetch meanwhile, so the window and
  the store can be compared without racing it. Fetches may still be on the wire.
"""

from __future__ import annotations

import email.utils
import logging
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QApplication

from tests.httpserver import FeedServer, RecordedRequest, Reply

# The fetcher's deadlines in the sessions (the app's are 10/30/60 s): a "timeout"
# answer waits longer than TOTAL_TIMEOUT, a "slow" one less than READ_TIMEOUT.
CONNECT_TIMEOUT, READ_TIMEOUT, TOTAL_TIMEOUT = 1.0, 2.0, 2.0
TIMEOUT_DELAY = 3.0
HEARTBEAT_MS = 100  # the worker's timer looks at the plan this often (real ms)
# What the worker takes for a suspend and resume (fake seconds; the app's is 90 s
# of real time): a check holding its lock for a moment between its two clock
# readings must not count, the sessions' jumps (hours) must.
CLOCK_JUMP_S = 900.0
SETTLE_S = 15.0  # the longest a step may take to become quiet (real seconds)
# A request in flight when a 429/503 was answered may still arrive: a Retry-After
# binds the requests that arrive this long (real seconds) after it was sent.
RETRY_AFTER_GRACE = 0.5

WORDS = ["otters", "zebras", "kiwi", "cats", "apple", "Banana", "éclair", "Straße",
         "rust", "python", "comet", "harbour"]  # fmt: skip


class FakeClock:
    """Wall and monotonic clocks ``speed`` times faster than real time."""

    def __init__(self, speed: float, start: float | None = None) -> None:
        self.speed = float(speed)
        self._m0 = time.monotonic()
        self._w0 = time.time() if start is None else start
        self._jumped = 0.0

    def mono(self) -> float:
        return (time.monotonic() - self._m0) * self.speed

    def wall(self) -> float:
        return self._w0 + self.mono() + self._jumped

    __call__ = wall

    def jump(self, seconds: float) -> None:
        """The wall clock moves on alone (a suspend and resume, a clock change)."""
        self._jumped += seconds


# -- the world the servers serve ---------------------------------------------------


@dataclass
class Item:
    guid: str
    title: str
    date: float


@dataclass(frozen=True)
class Served:
    """One answer a feed's addresses gave."""

    fake: float  # the fake wall clock when the request arrived
    real: float  # time.monotonic() then
    path: str
    kind: str  # ok | 304 | slow | timeout | 500 | 404 | 410 | broken | 429 | 503 | 302 | 301
    status: int


# What a fetch that ends in an answer of this kind records (fetch_log.status).
FETCH_STATUS = {
    "ok": "ok", "slow": "ok", "304": "not_modified", "timeout": "error", "500": "error",
    "404": "error", "broken": "error", "429": "rate_limited", "503": "rate_limited",
    "410": "gone",
}  # fmt: skip
BROKEN = [
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>x</ti',
    b"<html><body>Not a feed</body></html>",
    b"\x00\x01garbage{{",
]


@dataclass
class Site:
    """One feed on a server: its items and how its next answers go."""

    idx: int
    server: FeedServer
    name: str
    items: list[Item] = field(default_factory=list)
    version: int = 1
    plan: list[str] = field(default_factory=list)  # kinds of the next answers, then "ok"
    served: list[Served] = field(default_factory=list)
    arrived: int = 0  # requests that reached it (a fetch on the wire)
    serial: int = 0

    @property
    def path(self) -> str:
        return f"/f{self.idx}.xml"

    @property
    def alt(self) -> str:  # a temporary redirect's target
        return f"/f{self.idx}-alt.xml"

    @property
    def moved(self) -> str:  # a permanent redirect's target
        return f"/f{self.idx}-moved.xml"

    @property
    def url(self) -> str:
        return self.server.url(self.path)

    def urls(self) -> set[str]:
        return {self.server.url(p) for p in (self.path, self.alt, self.moved)}

    @property
    def etag(self) -> str:
        return f'"v{self.version}"'

    def render(self) -> bytes:
        site = self.server.url(f"/site{self.idx}/")
        parts = [
            '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>',
            f"<title>{self.name}</title><link>{site}</link>",
        ]
        for it in self.items:
            parts.append(
                f'<item><guid isPermaLink="false">{it.guid}</guid><title>{it.title}</title>'
                f"<link>{site}{it.guid}</link>"
                f"<pubDate>{email.utils.formatdate(it.date, usegmt=True)}</pubDate>"
                f"<description>&lt;p&gt;{it.title}, at length.&lt;/p&gt;</description></item>"
            )
        parts.append("</channel></rss>")
        return "".join(parts).encode()


class World:
    """The feed servers and what they answer."""

    def __init__(self, rng: random.Random, clock: FakeClock, n_servers: int = 3) -> None:
        self.rng = rng
        self.clock = clock
        self.lock = threading.Lock()
        self.servers = [FeedServer().start() for _ in range(n_servers)]
        self.sites: list[Site] = []
        self._by_path: dict[tuple[int, str], Site] = {}
        self.violations: list[str] = []
        self.blocks: dict[int, tuple[float, float, str]] = {}  # port -> (until, real, by)
        for s in self.servers:
            s._reply_for = self._replier(s)  # type: ignore[method-assign]

    def close(self) -> None:
        for s in self.servers:
            s.stop()

    def new_site(self, n_items: int | None = None) -> Site:
        idx = len(self.sites)
        site = Site(idx, self.servers[idx % len(self.servers)], f"Feed {idx} {WORDS[idx % 12]}")
        for _ in range(self.rng.randint(1, 5) if n_items is None else n_items):
            self.add_item(site)
        with self.lock:
            self.sites.append(site)
            for p in (site.path, site.alt, site.moved):
                self._by_path[(site.server.port, p)] = site
        return site

    def site_of(self, url: str) -> Site | None:
        for site in self.sites:
            if url in site.urls():
                return site
        return None

    # -- changes (the test thread; the lock keeps a handler from seeing half of one)

    def add_item(self, site: Site) -> None:
        with self.lock:
            site.serial += 1
            title = " ".join(self.rng.sample(WORDS, 2)) + f" {site.idx}.{site.serial}"
            site.items.insert(0, Item(f"s{site.idx}-i{site.serial}", title, self.clock() - 60))
            del site.items[12:]  # the window: older items drop off the document
            site.version += 1

    def edit_item(self, site: Site) -> None:
        with self.lock:
            if site.items:
                it = self.rng.choice(site.items)
                it.title = f"{self.rng.choice(WORDS)} (edited) {it.guid}"
                site.version += 1

    def remove_item(self, site: Site) -> None:
        with self.lock:
            if site.items:
                site.items.pop(self.rng.randrange(len(site.items)))
                site.version += 1

    def set_plan(self, site: Site, kinds: list[str]) -> None:
        with self.lock:
            site.plan = list(kinds)

    # -- answers (the servers' handler threads)

    def _replier(self, server: FeedServer) -> Callable[[RecordedRequest], Reply]:
        def reply_for(req: RecordedRequest) -> Reply:
            with self.lock:
                return self._answer(server, req)

        return reply_for

    def _answer(self, server: FeedServer, req: RecordedRequest) -> Reply:
        now, real = self.clock(), time.monotonic()
        block = self.blocks.get(server.port)
        if block is not None and now < block[0] and real > block[1] + RETRY_AFTER_GRACE:
            self.violations.append(
                f"request {req.path} to port {server.port} {block[0] - now:.0f} s (fake) "
                f"before the Retry-After {block[2]} gave"
            )
        site = self._by_path.get((server.port, req.route_path))
        if site is None:  # an icon, a site's page, an article's page
            return self._page(server, req.route_path)
        site.arrived += 1
        if req.route_path == site.alt or req.route_path == site.moved:
            kind = "ok"  # where a redirect leads answers with the feed
        else:
            kind = site.plan.pop(0) if site.plan else "ok"
        reply = self._reply(site, kind, req, now)
        if kind in ("ok", "slow") and reply.status == 304:
            kind = "304"
        site.served.append(Served(now, real, req.route_path, kind, reply.status))
        if kind in ("429", "503"):
            ra = dict(reply.header_items())["Retry-After"]
            until = (
                email.utils.parsedate_to_datetime(ra).timestamp() if " " in ra else now + int(ra)
            )
            old = self.blocks.get(server.port)
            if old is None or old[0] < until:
                self.blocks[server.port] = (until, real, f"{kind} on {req.path}")
        return reply

    def _page(self, server: FeedServer, path: str) -> Reply:
        """An item's page (``/site<idx>/<guid>``, its link: Load full article),
        its guid in every paragraph; anything else is not found."""
        for site in self.sites:
            prefix = f"/site{site.idx}/"
            if site.server is server and path.startswith(prefix):
                guid = path[len(prefix) :]
                if any(it.guid == guid for it in site.items):
                    para = f"<p>The article {guid} at length, " + "word " * 40 + ".</p>"
                    body = f"<html><body><nav>Home</nav><article>{para * 3}</article></body></html>"
                    return Reply(body=body.encode(), headers={"Content-Type": "text/html"})
        return Reply(status=404, body=b"no such page")

    def _reply(self, site: Site, kind: str, req: RecordedRequest, now: float) -> Reply:
        rss = {"Content-Type": "application/rss+xml; charset=utf-8"}
        if kind in ("ok", "slow", "timeout"):
            delay = {"ok": 0.0, "slow": self.rng.uniform(0.3, 1.2), "timeout": TIMEOUT_DELAY}
            if kind != "timeout" and req.header("if-none-match") == site.etag:
                return Reply(status=304, headers={"ETag": site.etag}, delay=delay[kind])
            return Reply(body=site.render(), headers={**rss, "ETag": site.etag},
                         delay=delay[kind])  # fmt: skip
        if kind == "broken":
            return Reply(body=self.rng.choice(BROKEN), headers=rss)
        if kind in ("429", "503"):
            wait = self.rng.choice([300, 600, 1200, 2400])  # fake seconds
            if self.rng.random() < 0.3:  # as an HTTP date
                ra = email.utils.formatdate(int(now) + wait + 1, usegmt=True)
            else:
                ra = str(wait)
            return Reply(status=int(kind), body=b"slow down", headers={"Retry-After": ra})
        if kind in ("302", "301"):
            where = site.alt if kind == "302" else site.moved
            return Reply(status=int(kind), headers={"Location": site.server.url(where)})
        return Reply(status=int(kind), body=f"{kind} for you".encode())

    # -- what the checks read

    def tally(self) -> dict[str, int]:
        """How many answers of each kind the feeds gave (for traced runs)."""
        out: dict[str, int] = {}
        with self.lock:
            for site in self.sites:
                for s in site.served:
                    out[s.kind] = out.get(s.kind, 0) + 1
        return dict(sorted(out.items()))

    def last_served(self, site: Site) -> Served | None:
        """The last answer that ended a fetch (a redirect's target ends it)."""
        with self.lock:
            for s in reversed(site.served):
                if s.kind not in ("302", "301"):
                    return s
            return None


# -- the app ------------------------------------------------------------------------


class _Echo(QObject):
    """Lives in the scheduler's thread: answers a ping once the requests queued
    before it (refreshes, settings, subscriptions) have run."""

    echoed = Signal(int)

    @Slot(int)
    def echo(self, n: int) -> None:
        self.echoed.emit(n)


class _Pinger(QObject):
    ping = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.answered = 0

    @Slot(int)
    def pong(self, n: int) -> None:
        self.answered = max(self.answered, n)


class NotQuiet(AssertionError):
    pass


class Captured:
    """Exceptions from any thread (sys.excepthook, threading.excepthook) and the
    app's log records of WARNING and above, while installed."""

    def __init__(self) -> None:
        self.exceptions: list[str] = []
        self.records: list[logging.LogRecord] = []
        self._lock = threading.Lock()
        self._handler = _ListHandler(self)

    def install(self) -> None:
        import traceback

        self._old = (sys.excepthook, threading.excepthook)

        def hook(tp: Any, value: Any, tb: Any) -> None:
            text = "".join(traceback.format_exception(tp, value, tb))
            with self._lock:
                self.exceptions.append(f"[{threading.current_thread().name}] {text}")

        def thread_hook(args: Any) -> None:
            hook(args.exc_type, args.exc_value, args.exc_traceback)

        sys.excepthook = hook
        threading.excepthook = thread_hook
        logging.getLogger("smartreader").addHandler(self._handler)

    def uninstall(self) -> None:
        sys.excepthook, threading.excepthook = self._old
        logging.getLogger("smartreader").removeHandler(self._handler)

    def take(self) -> tuple[list[str], list[logging.LogRecord]]:
        with self._lock:
            out = (self.exceptions[:], self.records[:])
            self.exceptions.clear()
            self.records.clear()
        return out


class _ListHandler(logging.Handler):
    def __init__(self, owner: Captured) -> None:
        super().__init__(logging.WARNING)
        self.owner = owner

    def emit(self, record: logging.LogRecord) -> None:
        with self.owner._lock:
            self.owner.records.append(record)


class App:
    """One run of smartreader on ``data_dir``: ``AppController.open`` … quit, close."""

    def __init__(self, data_dir: Path, clock: FakeClock, qtbot: Any, monkeypatch: Any) -> None:
        from smartreader.gui.app import AppController, create_app
        from smartreader.gui.mainwindow import MainWindow
        from smartreader.net.fetch import Fetcher, FetchLimits
        from smartreader.updater import Updater

        self.qtbot = qtbot
        self.opened: list[str] = []  # links "opened in the browser"
        self.problems: list[Any] = []  # start-up problems (a locked or damaged file)
        limits = FetchLimits(
            connect_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT, total_timeout=TOTAL_TIMEOUT
        )

        def updater(store: Any, **kw: Any) -> Updater:
            return Updater(store, fetcher=Fetcher(now=clock, limits=limits), now=clock, **kw)

        def window(store: Any, upd: Any, **kw: Any) -> MainWindow:
            options = {"wall_clock": clock.wall, "monotonic": clock.mono,
                       "heartbeat_ms": HEARTBEAT_MS, "clock_jump_s": CLOCK_JUMP_S}  # fmt: skip
            return MainWindow(
                store,
                upd,
                scheduler_options=options,
                open_url=lambda u: self.opened.append(u),
                **kw,
            )

        def ask(problem: Any) -> str:
            self.problems.append(problem)
            return "quit"

        self.ctl = AppController(create_app(), ask=ask)
        with monkeypatch.context() as mp:  # what AppController.open constructs
            mp.setattr("smartreader.updater.Updater", updater)
            mp.setattr("smartreader.gui.mainwindow.MainWindow", window)
            self.win = self.ctl.open(data_dir)
        self.store, self.updater = self.win.store, self.win.updater
        self.sched = self.win.sched
        self._pinger = _Pinger()
        self._echo = _Echo()
        self._echo.moveToThread(self.sched.qthread)
        self._pinger.ping.connect(self._echo.echo)
        self._echo.echoed.connect(self._pinger.pong)
        self._pings = 0
        self.activate()

    def activate(self) -> None:
        """The window has the keyboard (single-key shortcuts are window shortcuts)."""
        if not self.win.isActiveWindow():
            self.win.activateWindow()
            self.qtbot.waitUntil(self.win.isActiveWindow, timeout=3000)

    # -- the worker

    def ping(self, deadline: float) -> None:
        """Returns once the worker thread has run everything queued to it so far."""
        self._pings += 1
        n = self._pings
        self._pinger.ping.emit(n)
        while self._pinger.answered < n:
            if time.monotonic() > deadline:
                raise NotQuiet(
                    f"the scheduler thread did not answer within {SETTLE_S:g} s "
                    f"(running: {self.sched.is_running()})"
                )
            self.qtbot.wait(2)

    def worker_busy(self) -> bool:
        w = self.sched.worker
        return w._run_cancel is not None or w._updating

    # -- quiet moments

    def gui_busy(self) -> bool:
        w = self.win
        return bool(
            w._requests  # a subscription not answered yet
            or w.full_loads_pending()  # an article's page on its way
            or w.list_model.loading()
            or w._refresh_timer.isActive()
            or w._list_timer.isActive()
            or w._search_timer.isActive()
        )

    def _flush_gui(self) -> None:
        """Run what the window has queued now (the refresh after results waits
        0.3-1 s to coalesce them: not waited out)."""
        w = self.win
        QApplication.processEvents()
        if w._refresh_timer.isActive():
            w._refresh_timer.stop()
            w._refresh_after_update()
        if w._list_timer.isActive():
            w._list_timer.stop()
            w._refresh_list()
        if w._search_timer.isActive():
            w._search_timer.stop()
            w._apply_query()

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Hold the app still: see the module docstring."""
        deadline = time.monotonic() + SETTLE_S
        lock = self.updater._lock
        while True:
            while self.win._requests:
                if time.monotonic() > deadline:
                    raise NotQuiet("a subscription was never answered")
                self.qtbot.wait(5)
            self.ping(deadline)
            lock.acquire()
            try:
                settled = not self.worker_busy()
                if settled:
                    for _ in range(200):
                        self._flush_gui()
                        if not self.gui_busy():
                            break
                        self.qtbot.wait(1)
                    settled = not self.gui_busy() and not self.win._requests
            except BaseException:
                lock.release()
                raise
            if settled:
                break
            lock.release()
            if time.monotonic() > deadline:
                raise NotQuiet(
                    f"the app never became quiet: worker busy={self.worker_busy()}, "
                    f"gui busy={self.gui_busy()}"
                )
            self.qtbot.wait(10)
        try:
            yield
        finally:
            lock.release()

    # -- the end

    def quit(self, how: str) -> list[str]:
        """Quit as the user does (``how``: "Ctrl+Q", "File > Quit", "close"), then
        close what ``run()`` closes after the event loop; returns what went wrong."""
        from PySide6.QtCore import Qt

        from smartreader.gui import worker

        w, problems = self.win, []
        stragglers = len(worker._STRAGGLERS)
        self._echo.deleteLater()  # the worker's loop deletes it before it stops
        if how == "Ctrl+Q":
            self.activate()
            w.list.setFocus()
            self.qtbot.keyClick(w.list, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
        elif how == "File > Quit":
            w.act_quit.trigger()
        else:
            w.close()  # the title bar's close button (no tray icon here: it quits)
        if w.isVisible():
            problems.append(f"{how} left the window open")
            w.quit_app()
        if self.sched.is_running():
            problems.append(f"{how}: the scheduler thread still runs after the window closed")
        self.ctl.close()
        th = self.sched.qthread
        if th.isRunning() or not th.isFinished():
            problems.append("the scheduler thread did not finish")
        if len(worker._STRAGGLERS) != stragglers:
            problems.append("the scheduler thread outlived shutdown (a straggler)")
        for name, st in (("store", self.store), ("reader", self.win.reader)):
            try:
                st._db.execute("SELECT 1")
                problems.append(f"the window's {name} connection is still open")
            except Exception:
                pass
        w.deleteLater()
        QApplication.processEvents()
        return problems
