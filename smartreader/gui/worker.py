"""The scheduler's thread: polling, manual refreshes and subscribing, off the GUI thread.

``SchedulerWorker`` is a ``QObject`` that lives in a long-lived ``QThread`` and owns
every call into the :class:`~smartreader.updater.Updater` that may touch the network
or write SQLite. The GUI talks to it only through queued signals and hears back
through signals that carry plain, frozen data (``UpdateResult``,
``SchedulerStatus``), so the GUI thread never waits on a fetch.

Timing: one single-shot ``QTimer`` created in the worker thread is re-armed to
``updater.next_wakeup()``, but never further than a short heartbeat ahead. On each
tick the worker compares how far the wall clock moved with how far the monotonic
clock moved; after a suspend/resume or a clock change the two disagree, and the
worker calls ``updater.replan()`` so the plan is moved forward in time instead of
fetching every overdue feed at once.

Shutdown: ``SchedulerThread.shutdown()`` sets a ``threading.Event`` seen by the
running update (queued fetches are skipped, in-flight ones finish and are
recorded), queues ``stop()`` (which stops the timer in its own thread and quits the
event loop), then joins the thread with a timeout.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from smartreader.gui._compat import guard_pyside_refcounts
from smartreader.net import credentials
from smartreader.updater import LoginRequired, SeveralFeeds

log = logging.getLogger(__name__)
guard_pyside_refcounts()  # before this thread makes thousands of Qt calls

# Wake at least this often (ms) to notice sleep/resume and clock changes promptly:
# a monotonic timer does not count suspended time, so a long timer would fire far
# too late in wall-clock terms after a resume.
HEARTBEAT_MS = 60_000
# Wall clock vs monotonic clock disagreement (s) that counts as a jump.
CLOCK_JUMP_S = 90.0
# Back-off (ms) when the scheduler says "due" but nothing was fetched (e.g. every
# due feed is held back by the budget); avoids a busy loop.
IDLE_BACKOFF_MS = 30_000


@dataclass(frozen=True)
class SchedulerStatus:
    """What the status bar shows; crosses threads by value."""

    requests_today: int
    budget: float
    next_wakeup: float | None  # epoch seconds, None when nothing is planned
    updating: bool = False
    paused: bool = False  # scheduled fetches paused; manual refreshes still run
    # no server answers anywhere (the network is down): since when, next try
    offline: tuple[float, float] | None = None


class SchedulerWorker(QObject):
    """Runs the updater in its own thread.

    Signals:
        feedUpdated(object): an ``UpdateResult`` for every feed a run touched.
        progress(int, int): done, total of the current run.
        updateStarted(bool): a run began; True for a user-initiated refresh. Scheduled
            runs announce themselves only once a feed is actually fetched.
        updateFinished(): the run announced by ``updateStarted`` ended; sent after
            the ``statusChanged`` that says so.
        nextWakeup(float): epoch seconds of the next planned fetch (``math.inf`` when
            nothing is planned).
        alertRaised(object): an ``UpdateResult`` whose ``missed_estimate`` > 0.
        statusChanged(object): a ``SchedulerStatus``.
        subscribed(int): the feed id of a new subscription.
        subscribeFailed(str, bool): why a subscription failed, for the user, and
            whether the feed asks for a user name and password (a 401).
        feedsFound(str, object): the page (no credentials) and its ``FeedOption``
            list, instead of ``subscribed``, for a request that asked to choose.
        errorOccurred(str): a failure that is not about one feed (bad setting, bug).
        replanned(): the plan was rebuilt after a clock jump.
        entriesPurged(int): that many old articles were deleted (see ``cleanup``).
        compactFinished(object): ``{"before": bytes, "after": bytes, "error": None}``
            after ``compact``, or ``{"error": "why"}``.
    """

    feedUpdated = Signal(object)
    progress = Signal(int, int)
    updateStarted = Signal(bool)
    updateFinished = Signal()
    nextWakeup = Signal(float)
    alertRaised = Signal(object)
    statusChanged = Signal(object)
    subscribed = Signal(int)
    subscribeFailed = Signal(str, bool)
    feedsFound = Signal(str, object)
    errorOccurred = Signal(str)
    replanned = Signal()
    entriesPurged = Signal(int)
    compactFinished = Signal(object)

    def __init__(
        self,
        updater: Any,
        parent: QObject | None = None,
        *,
        wall_clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        heartbeat_ms: int = HEARTBEAT_MS,
        clock_jump_s: float = CLOCK_JUMP_S,
        autostart_polling: bool = True,
    ) -> None:
        super().__init__(parent)
        self.updater = updater
        self._wall = wall_clock
        self._mono = monotonic
        self._heartbeat_ms = heartbeat_ms
        self._clock_jump_s = clock_jump_s
        self._polling = autostart_polling
        self._timer: QTimer | None = None
        self._armed_wall = 0.0
        self._armed_mono = 0.0
        self._stopping = threading.Event()
        self._run_lock = threading.Lock()
        self._run_cancel: threading.Event | None = None
        self._updating = False
        self._last_run_fetched = True
        self._last_refresh_all_start = -math.inf

    # -- thread-safe controls (may be called from any thread) -------------

    def request_stop(self) -> None:
        """Make the running update skip what it has not started, and refuse new work.

        Thread-safe and non-blocking: this is how the GUI thread interrupts a run
        that keeps the worker's event loop busy."""
        self._stopping.set()
        self.cancel_current()
        self.updater.store.stop_compact()  # SQLite rolls a running VACUUM back

    def cancel_current(self) -> None:
        """Cancel the running update, if any (thread-safe); polling continues."""
        with self._run_lock:
            if self._run_cancel is not None:
                self._run_cancel.set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def timer_active(self) -> bool:
        return self._timer is not None and self._timer.isActive()

    # -- lifecycle (worker thread) ---------------------------------------

    @Slot()
    def start(self) -> None:
        """Create the timer in this (the worker's) thread and arm it."""
        if self._timer is None:
            self._timer = QTimer(self)
            self._timer.setSingleShot(True)
            self._timer.timeout.connect(self._on_timeout)
        self._arm()
        self._emit_status()
        self.cleanup(False)  # also when polling is paused (then the timer never ticks)

    @Slot()
    def stop(self) -> None:
        """Stop polling and quit the worker thread's event loop."""
        self._stopping.set()
        if self._timer is not None:
            self._timer.stop()
        thread = self.thread()
        if thread is not QThread.currentThread():
            return  # called directly in tests without a thread
        thread.quit()

    # -- slots (worker thread) -------------------------------------------

    @Slot()
    def refreshAll(self) -> None:
        self._run(None, manual=True)

    @Slot(float)
    def refreshAllRequestedAt(self, requested_at: float) -> None:
        """Refresh all, unless a refresh-all started after ``requested_at``
        (monotonic): clicks queued while one runs collapse into it."""
        if requested_at < self._last_refresh_all_start:
            return
        self._run(None, manual=True)

    @Slot(list)
    def refreshFeeds(self, feed_ids: list[int]) -> None:
        ids = [int(i) for i in feed_ids]
        if ids:
            self._run(ids, manual=True)

    @Slot(str, object, object)
    def subscribe(self, url: str, folder: str | None = None, how: object = None) -> None:
        """Answers with exactly one of subscribed, feedsFound, subscribeFailed
        (the window pairs answers with its requests in order)."""
        if self.stopping:
            return
        opts = dict(how) if isinstance(how, dict) else {}
        try:
            fid = self.updater.subscribe(
                url,
                folder=folder or None,
                choose=bool(opts.get("choose")),
                public_only=bool(opts.get("public_only")),
                login=opts.get("login"),
                session_password=True,  # the app runs on: no keyring loses no feed
            )
        except SeveralFeeds as e:
            self.feedsFound.emit(credentials.redact(e.page), list(e.options))
        except Exception as e:  # SmartReaderError for user-facing trouble; bugs too
            if not _is_expected(e):
                log.exception("subscribing to %s failed", credentials.redact(url))
            self.subscribeFailed.emit(str(e) or type(e).__name__, isinstance(e, LoginRequired))
        else:
            self.subscribed.emit(int(fid))
        self._arm()
        self._emit_status()

    @Slot(float)
    def setBudget(self, per_day: float) -> None:
        self._configure(self.updater.set_budget, float(per_day))

    @Slot(float)
    def setMinInterval(self, seconds: float) -> None:
        self._configure(self.updater.set_min_interval, float(seconds))

    @Slot(float)
    def setMaxInterval(self, seconds: float) -> None:
        self._configure(self.updater.set_max_interval, float(seconds))

    @Slot(int)
    def feedChanged(self, feed_id: int) -> None:
        self._configure(self.updater.feed_changed, int(feed_id))

    @Slot()
    def replan(self) -> None:
        self._configure(lambda _: self.updater.replan(), None)
        self.replanned.emit()

    @Slot(bool)
    def cleanup(self, force: bool = False) -> None:
        """Delete old articles as the user keeps them: once a day (checked on each
        timer tick, cheaply), or now when ``force`` (the setting just changed).
        Batched and cancellable like an update, so quitting does not wait for it."""
        if self.stopping:
            return
        cancel = threading.Event()
        with self._run_lock:
            self._run_cancel = cancel
        if self._stopping.is_set():
            cancel.set()
        try:
            res = self.updater.cleanup(force=bool(force), cancel=cancel)
        except Exception as e:
            if not _is_expected(e):
                log.exception("deleting old articles failed")
            self.errorOccurred.emit(f"Deleting old articles failed: {e}")
            return
        finally:
            with self._run_lock:
                self._run_cancel = None
        if res is not None and res.read + res.unread > 0:
            self.entriesPurged.emit(int(res.read + res.unread))

    @Slot()
    def compact(self) -> None:
        """Give the space of deleted articles back to the disk (the user asked, in
        Settings). Every write waits meanwhile: seconds for hundreds of MB (the
        window shows that it waits, with a button that calls ``stop_compact``)."""
        if self.stopping:
            return
        try:
            before, after = self.updater.store.compact()
        except Exception as e:
            if not _is_expected(e):
                log.exception("compacting the database failed")
            self.compactFinished.emit({"error": str(e)})
        else:
            self.compactFinished.emit({"before": before, "after": after, "error": None})

    def stop_compact(self) -> None:
        """Stop a running compaction (thread-safe, non-blocking: the worker's own
        thread is inside it); nothing changes, and ``compactFinished`` says so."""
        self.updater.store.stop_compact()

    @Slot()
    def networkBack(self) -> None:
        """The system reports the network is back: the scheduler takes its word."""
        self._configure(lambda _: self.updater.network_back(), None)

    @Slot(bool)
    def setPolling(self, enabled: bool) -> None:
        """Pause or resume scheduled polling (manual refreshes still work)."""
        self._polling = bool(enabled)
        self._arm()
        self._emit_status()

    # -- internals -------------------------------------------------------

    def _configure(self, fn: Callable[[Any], None], arg: Any) -> None:
        if self.stopping:
            return
        try:
            fn(arg)
        except Exception as e:
            if not _is_expected(e):
                log.exception("scheduler configuration failed")
            self.errorOccurred.emit(str(e) or type(e).__name__)
        self._arm()
        self._emit_status()

    def _arm(self) -> None:
        if self._timer is None or self.stopping:
            return
        self._timer.stop()
        if not self._polling:
            self.nextWakeup.emit(math.inf)
            return
        wake = self._next_wakeup()
        now = self._wall()
        if wake is None:
            delay_ms = self._heartbeat_ms
            self.nextWakeup.emit(math.inf)
        else:
            # rounded up: a timer that fired a millisecond early, after a run that
            # fetched nothing, read as "due now, nothing to fetch" and idled 30 s
            delay_ms = math.ceil(max(0.0, wake - now) * 1000)
            if delay_ms == 0 and not self._last_run_fetched:
                delay_ms = IDLE_BACKOFF_MS
            delay_ms = min(delay_ms, self._heartbeat_ms)
            self.nextWakeup.emit(float(wake))
        self._armed_wall = now
        self._armed_mono = self._mono()
        self._timer.start(delay_ms)

    def _next_wakeup(self) -> float | None:
        try:
            wake = self.updater.next_wakeup()
        except Exception:
            log.exception("next_wakeup failed")
            return None
        return None if wake is None else float(wake)

    @Slot()
    def _on_timeout(self) -> None:
        if self.stopping:
            return
        wall_elapsed = self._wall() - self._armed_wall
        mono_elapsed = self._mono() - self._armed_mono
        if abs(wall_elapsed - mono_elapsed) > self._clock_jump_s:
            # Suspend/resume or a clock change: every planned time may now lie in
            # the past. Re-plan from now rather than fetching all of them at once.
            log.info("clock jump of %.0f s detected; re-planning", wall_elapsed - mono_elapsed)
            self.replan()
            return
        wake = self._next_wakeup()
        if wake is not None and wake <= self._wall():
            self._run_due()
        else:
            self._arm()
        self.cleanup(False)

    def _run_due(self) -> None:
        self._execute(lambda cancel, cb: self.updater.run_due(cancel=cancel, progress=cb), False)

    def _run(self, feed_ids: Sequence[int] | None, *, manual: bool) -> None:
        if feed_ids is None and manual:
            self._last_refresh_all_start = time.monotonic()
        self._execute(
            lambda cancel, cb: self.updater.update(
                feed_ids, manual=manual, progress=cb, cancel=cancel
            ),
            manual,
        )

    def _execute(self, job: Callable[[threading.Event, Any], Any], manual: bool) -> None:
        if self.stopping:
            return
        cancel = threading.Event()
        with self._run_lock:
            self._run_cancel = cancel
        if self._stopping.is_set():  # request_stop() raced with us
            cancel.set()
        started = False
        fetched = 0

        def announce() -> None:
            nonlocal started
            if not started:
                started = True
                self._updating = True
                self.updateStarted.emit(manual)
                self._emit_status()

        def on_progress(done: int, total: int, result: Any) -> None:
            nonlocal fetched
            announce()
            if result.status != "skipped":
                fetched += 1
            self.progress.emit(int(done), int(total))
            self.feedUpdated.emit(result)
            if (result.missed_estimate or 0) > 0:
                self.alertRaised.emit(result)

        if manual:
            announce()
        try:
            job(cancel, on_progress)
        except Exception as e:
            log.exception("update failed")
            self.errorOccurred.emit(f"Update failed: {e}")
        finally:
            with self._run_lock:
                self._run_cancel = None
            self._last_run_fetched = fetched > 0 or manual
            self._updating = False
        self._arm()
        # the status (no longer updating) goes first: a slot of updateFinished
        # then sees the status bar as it will stay
        self._emit_status()
        if started:
            self.updateFinished.emit()

    def _emit_status(self) -> None:
        try:
            status = SchedulerStatus(
                requests_today=int(self.updater.requests_today()),
                budget=float(self.updater.budget()),
                next_wakeup=self._next_wakeup() if self._polling else None,
                updating=self._updating,
                paused=not self._polling,
                offline=self.updater.network_down() if self._polling else None,
            )
        except Exception:
            log.exception("reading the scheduler status failed")
            return
        self.statusChanged.emit(status)


# Threads that outlived shutdown(); referenced so they are never destroyed running.
_STRAGGLERS: list[tuple[QThread, SchedulerWorker]] = []

_RELAYED = (
    "feedUpdated",
    "progress",
    "updateStarted",
    "updateFinished",
    "nextWakeup",
    "alertRaised",
    "statusChanged",
    "subscribed",
    "subscribeFailed",
    "feedsFound",
    "errorOccurred",
    "replanned",
    "entriesPurged",
    "compactFinished",
)


def _is_expected(e: Exception) -> bool:
    try:
        from smartreader.errors import SmartReaderError
    except ImportError:  # pragma: no cover
        return False
    return isinstance(e, SmartReaderError)


class SchedulerThread(QObject):
    """Creates the worker thread, forwards GUI requests to it, and shuts it down.

    Use from the GUI thread::

        sched = SchedulerThread(updater)
        sched.feedUpdated.connect(...)
        sched.start()
        sched.refresh_all()
        ...
        sched.shutdown()   # at quit: cancels, quits, joins (bounded)

    The request methods only emit queued signals; none of them blocks.

    Signals: the worker's signals (see ``SchedulerWorker``) re-emitted in the GUI
    thread. Connect to these rather than to ``worker``'s: a lambda or plain
    function connected to a worker signal would run in the worker thread, where
    touching a widget is a crash waiting to happen.
    """

    feedUpdated = Signal(object)
    progress = Signal(int, int)
    updateStarted = Signal(bool)
    updateFinished = Signal()
    nextWakeup = Signal(float)
    alertRaised = Signal(object)
    statusChanged = Signal(object)
    subscribed = Signal(int)
    subscribeFailed = Signal(str, bool)
    feedsFound = Signal(str, object)
    errorOccurred = Signal(str)
    replanned = Signal()
    entriesPurged = Signal(int)
    compactFinished = Signal(object)

    _refreshAll = Signal(float)
    _refreshFeeds = Signal(list)
    _subscribe = Signal(str, object, object)
    _setBudget = Signal(float)
    _setMinInterval = Signal(float)
    _setMaxInterval = Signal(float)
    _feedChanged = Signal(int)
    _replan = Signal()
    _setPolling = Signal(bool)
    _networkBack = Signal()
    _cleanup = Signal(bool)
    _compact = Signal()
    _stop = Signal()

    def __init__(
        self,
        updater: Any,
        parent: QObject | None = None,
        *,
        stop_timeout_s: float = 15.0,
        **worker_options: Any,
    ) -> None:
        super().__init__(parent)
        self.stop_timeout_s = stop_timeout_s
        self.qthread = QThread()
        self.qthread.setObjectName("smartreader-scheduler")
        self.worker = SchedulerWorker(updater, **worker_options)
        self.worker.moveToThread(self.qthread)
        self.qthread.started.connect(self.worker.start)
        self._refreshAll.connect(self.worker.refreshAllRequestedAt)
        self._refreshFeeds.connect(self.worker.refreshFeeds)
        self._subscribe.connect(self.worker.subscribe)
        self._setBudget.connect(self.worker.setBudget)
        self._setMinInterval.connect(self.worker.setMinInterval)
        self._setMaxInterval.connect(self.worker.setMaxInterval)
        self._feedChanged.connect(self.worker.feedChanged)
        self._replan.connect(self.worker.replan)
        self._setPolling.connect(self.worker.setPolling)
        self._networkBack.connect(self.worker.networkBack)
        self._cleanup.connect(self.worker.cleanup)
        self._compact.connect(self.worker.compact)
        self._stop.connect(self.worker.stop)
        queued = Qt.ConnectionType.QueuedConnection
        for name in _RELAYED:
            getattr(self.worker, name).connect(getattr(self, name), queued)
        self._started = False

    def start(self) -> None:
        if not self._started:
            self._started = True
            self.qthread.start()

    def is_running(self) -> bool:
        return self.qthread.isRunning()

    # Requests (GUI thread, non-blocking).
    def refresh_all(self) -> None:
        self._refreshAll.emit(time.monotonic())

    def refresh_feeds(self, feed_ids: Sequence[int]) -> None:
        self._refreshFeeds.emit([int(i) for i in feed_ids])

    def subscribe(
        self,
        url: str,
        folder: str | None = None,
        *,
        choose: bool = False,
        public_only: bool = False,
        login: tuple[str, str] | None = None,
    ) -> None:
        """``choose``: a page linking several feeds answers ``feedsFound``.
        ``public_only``: the address came from a page (a ``FeedOption``).
        ``login``: the user name and password typed for it (else any in the URL)."""
        how = {"choose": choose, "public_only": public_only, "login": login}
        self._subscribe.emit(url, folder, how)

    def set_budget(self, per_day: float) -> None:
        self._setBudget.emit(float(per_day))

    def set_min_interval(self, seconds: float) -> None:
        self._setMinInterval.emit(float(seconds))

    def set_max_interval(self, seconds: float) -> None:
        self._setMaxInterval.emit(float(seconds))

    def feed_changed(self, feed_id: int) -> None:
        self._feedChanged.emit(int(feed_id))

    def replan(self) -> None:
        self._replan.emit()

    def network_back(self) -> None:
        self._networkBack.emit()

    def set_polling(self, enabled: bool) -> None:
        self._setPolling.emit(bool(enabled))

    def cleanup_now(self) -> None:
        """Delete old articles now, by the settings just saved."""
        self._cleanup.emit(True)

    def compact_now(self) -> None:
        """Compact the database (``compactFinished`` says how it went)."""
        self._compact.emit()

    def stop_compact(self) -> None:
        """Stop a running compaction (thread-safe; ``compactFinished`` follows)."""
        self.worker.stop_compact()

    def cancel_current(self) -> None:
        self.worker.cancel_current()

    def shutdown(self, timeout_s: float | None = None) -> bool:
        """Cancel in-flight work, stop the timer, quit and join the thread.

        Returns True when the thread has finished. Only fetches already on the wire
        are waited for (they are recorded so the budget stays honest); the wait is
        bounded by ``timeout_s``."""
        timeout = self.stop_timeout_s if timeout_s is None else timeout_s
        self.worker.request_stop()
        if not self._started or self.qthread.isFinished():
            return True
        self._stop.emit()  # queued: runs once the current job returns
        finished = bool(self.qthread.wait(int(timeout * 1000)))
        if not finished:
            # A fetch already on the wire is still running (bounded by the fetcher's
            # total timeout). Destroying a running QThread aborts the process, so
            # keep both objects alive; the thread quits once the fetch returns.
            log.warning("the scheduler thread did not stop within %.0f s", timeout)
            _STRAGGLERS.append((self.qthread, self.worker))
        return finished
