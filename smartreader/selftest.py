"""``smartreader --self-test``: prove that this install (or frozen bundle) really works.

Starts the app offscreen (unless ``QT_QPA_PLATFORM`` says otherwise), opens the
demo (temporary data folder + local feed server on 127.0.0.1), asks the scheduler
worker to refresh every feed and waits until it has fetched from the demo server
over real HTTP, renders the main window to an image, closes everything in order
and exits 0. Any failure prints one line starting with ``smartreader self-test
FAILED`` to stderr and exits 1; a hang past the overall timeout exits 3.

No Qt import here (tests/test_architecture.py keeps Qt under gui/): events are
pumped with ``QApplication.processEvents`` through the objects the GUI creates.

Environment:
    SMARTREADER_SELFTEST_TIMEOUT     overall limit in seconds (default 120)
    SMARTREADER_SELFTEST_SCREENSHOT  also save the rendered window to this PNG path
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from smartreader.errors import SmartReaderError

DEFAULT_TIMEOUT_S = 120.0
EXIT_FAILED = 1
EXIT_HUNG = 3


class SelfTestError(Exception):
    pass


def _say(msg: str) -> None:
    if sys.stdout is not None:
        print(f"self-test: {msg}", flush=True)


def _watchdog(timeout_s: float) -> threading.Timer:
    """A last resort if the event loop itself hangs: report and hard-exit."""

    def fire() -> None:
        if sys.stderr is not None:
            print(
                f"smartreader self-test FAILED: no result after {timeout_s:.0f} s (hung)",
                file=sys.stderr,
                flush=True,
            )
        os._exit(EXIT_HUNG)

    t = threading.Timer(timeout_s, fire)
    t.daemon = True
    t.start()
    return t


def _pump_until(app: Any, cond: Callable[[], bool], deadline: float, what: str) -> None:
    while not cond():
        if time.monotonic() > deadline:
            raise SelfTestError(f"timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.01)


def run(timeout_s: float | None = None) -> int:
    if timeout_s is None:
        timeout_s = float(os.environ.get("SMARTREADER_SELFTEST_TIMEOUT", DEFAULT_TIMEOUT_S))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    watchdog = _watchdog(timeout_s + 30.0)  # the checks below time out first
    try:
        return _run(timeout_s)
    except SelfTestError as e:
        print(f"smartreader self-test FAILED: {e}", file=sys.stderr, flush=True)
        return EXIT_FAILED
    except Exception as e:
        logging.getLogger(__name__).exception("self-test crashed")
        print(f"smartreader self-test FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        watchdog.cancel()


def _run(timeout_s: float) -> int:
    import smartreader
    from smartreader import resources

    t0 = time.monotonic()
    deadline = t0 + timeout_s
    frozen = bool(getattr(sys, "frozen", False))
    _say(
        f"smartreader {smartreader.__version__} "
        f"({'frozen bundle' if frozen else sys.executable}) "
        f"from {os.path.dirname(smartreader.__file__)}"
    )
    icon = resources.icon_path()  # raises if the resources did not make it into the install

    from smartreader.gui.app import AppController, create_app

    app = create_app()
    _say(f"Qt platform {app.platformName()}, icon {icon.name}")
    if app.windowIcon().isNull():
        raise SelfTestError("the application icon did not load")
    ctl = AppController(app)
    try:
        win = ctl.open(None, demo=True)
        demo = ctl._demo
        if demo is None or not win.demo:
            raise SelfTestError("the demo did not open")
        t_open = time.monotonic()
        feeds = win.store.feeds()
        _say(
            f"demo opened in {t_open - t0:.1f} s: {len(feeds)} feeds, server {demo.server.base_url}"
        )
        if not feeds:
            raise SelfTestError("the demo has no feeds")

        results: list[Any] = []
        finished: list[bool] = []
        before = demo.server.requests
        win.sched.feedUpdated.connect(results.append)
        win.sched.updateFinished.connect(lambda: finished.append(True))
        win.refresh_all()
        _pump_until(
            app,
            lambda: bool(finished) and demo.server.requests > before,
            deadline,
            "the scheduler worker to fetch from the demo server",
        )
        fetched = [r for r in results if r.status in ("ok", "not_modified")]
        failed = [r for r in results if r.status in ("error", "gone", "rate_limited")]
        _say(
            f"worker fetched {len(fetched)} feeds over HTTP "
            f"({demo.server.requests - before} requests, {len(failed)} failed) "
            f"in {time.monotonic() - t_open:.1f} s"
        )
        if not fetched:
            errors = "; ".join(str(r.error) for r in failed[:3])
            raise SelfTestError(f"no feed was fetched from the demo server ({errors})")
        pool = ctl._updater.parse_pool
        if any(r.status == "ok" for r in fetched):
            # a frozen app starts its parse workers differently: they must work there too
            if pool is None or not pool.in_workers or pool.fallbacks:
                raise SelfTestError(
                    "feeds were not parsed in the worker processes"
                    f" ({0 if pool is None else pool.fallbacks} fell back to in-thread)"
                )
            _say(f"{pool.in_workers} documents parsed in {pool.workers} worker processes")

        # An article's page from the demo's site, extracted (readability and lxml
        # are in the bundle and work there).
        linked = next((e for e in win.store.entries(win.store.entry_ids()[:20]) if e.link), None)
        if linked is None:
            raise SelfTestError("the demo has no article with a link")
        pool = ctl._updater.parse_pool
        extracted = (pool.in_workers, pool.fallbacks) if pool is not None else (0, 0)
        try:
            page = ctl._updater.load_full_article(linked.id)
        except SmartReaderError as e:
            raise SelfTestError(f"the full article did not load: {e}") from e
        # (the scheduler's thread may parse a feed in a worker meanwhile: more than
        # one more is fine, a fallback is not)
        if pool is not None and (pool.in_workers <= extracted[0] or pool.fallbacks > extracted[1]):
            raise SelfTestError("the article was not extracted in a worker process")
        _say(f"full article loaded and extracted ({len(page.html)} characters of HTML)")

        # Let the coalesced list/count refresh run, then render the window.
        settle = time.monotonic() + 0.5
        _pump_until(app, lambda: time.monotonic() > settle, deadline, "the window to settle")
        pm = win.grab()
        if pm.isNull() or pm.width() < 100 or pm.height() < 100:
            raise SelfTestError(f"the window did not render ({pm.width()}x{pm.height()})")
        img = pm.toImage()
        colours = {
            img.pixel(x * img.width() // 8, y * img.height() // 8)
            for x in range(8)
            for y in range(8)
        }
        if len(colours) < 2:
            raise SelfTestError("the rendered window is blank")
        shot = os.environ.get("SMARTREADER_SELFTEST_SCREENSHOT")
        if shot and not pm.save(shot):
            raise SelfTestError(f"cannot save the screenshot to {shot}")
        _say(f"window rendered {pm.width()}x{pm.height()}" + (f" -> {shot}" if shot else ""))
    finally:
        ctl.close()
        app.processEvents()
    _say(f"ok in {time.monotonic() - t0:.1f} s")
    return 0


__all__ = ["run"]
