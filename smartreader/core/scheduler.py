"""The smart-polling scheduler shared by the app and the replay simulator.

Driving loop (identical in the app and in ``smartreader.sim``)::

    sched = Scheduler(SchedulerConfig(budget_per_day=500), now)
    sched.add_feed(fid, host="example.org")
    while True:
        for fid in sched.due(now):          # budget-respecting; marks them in flight
            obs = fetch(fid)                 # -> FetchObservation
            verdict = sched.observe(fid, obs)
        sleep_until(sched.next_wakeup())

Pipeline per feed:

* **Estimation** — :class:`~smartreader.core.estimator.RateEstimator` (hourly λ over
  the week, hierarchical shrinkage, exponential forgetting, burst clipping).
* **Allocation** — :func:`~smartreader.core.allocation.allocate`: fetches/day ∝
  √(weight·rate) with a maximum-interval floor and a capacity floor (expected items
  between fetches ≤ ``capacity_margin`` × window); re-run every ``realloc_every``
  seconds of observations, on budget change and on :meth:`Scheduler.replan`.
* **Placement** — :func:`~smartreader.core.schedule.place`: the feed's weekly fetch
  pattern minimising expected delay (Sia & Cho Theorem 3). The next due time is
  the next pattern point, clamped to [min_interval, max_interval] after the last
  fetch, then pushed past server hints (Retry-After per feed and host,
  Cache-Control/Expires/ttl capped at ``cache_hint_cap``, skipHours/skipDays),
  error back-off with jitter, and a per-host minimum gap. A new pattern (new
  feed, changed fetch count, fast-growing evidence) is placed at the feed's next
  fetch; the weekly refreshes (``replace_every``) are placed together at the next
  allocation with :func:`~smartreader.core.schedule.place_many`.
* **Budget** — a hard cap: :meth:`Scheduler.due` never lets the number of
  non-manual fetches in any 24 h window exceed ``floor(budget_per_day)``. A fetch
  is counted when ``due`` hands it out; one never reported back (cancelled, feed
  deleted meanwhile) stays counted and its feed is planned again after
  ``inflight_timeout``. Manual fetches are recorded (and teach the estimator) but
  do not count. The plans add up to the budget on average, not in every 24 h, so
  the cap is often what decides: when it has fewer requests than feeds are due,
  they go to the feeds where waiting costs most (delay gained by the items waiting
  plus items the window may lose, at ``miss_cost_days`` each), and a feed whose last
  fetch already waited hours for the cap waits for its next planned point rather
  than taking the next free request (else its fetch times would stay on the times
  requests happen to free, e.g. the cold start's midnight, for good).
* **Missed items** — :func:`~smartreader.core.missed.check_missed` after every fetch.

Statuses: ``ok``, ``not_modified`` (no items, interval observed), ``error`` (back-off,
interval not observed), ``rate_limited`` (Retry-After honoured for the feed and its
whole host), ``gone`` (dropped from planning until re-added).

Additions to the agreed API: ``SchedulerConfig.seed`` (jitter RNG), ``host_min_gap``,
``catchup_spacing``, ``capacity_margin``, ``budget_fill``, ``realloc_every``,
``replace_every``, ``replace_growth``, ``replace_share_change``, ``inflight_timeout``,
``plan_bins``, ``plan_starts``, ``plan_horizon``; ``Scheduler.freeze_estimates``
(stop learning; used by the frozen ``sia-offline``/``oracle`` replay baselines),
``Scheduler.set_lambda`` (install a known λ), ``Scheduler.feed_ids`` and
``Scheduler.capacity_of``. ``next_wakeup`` returns ``None`` when no feed is planned.
Feeds added with a history (``last_fetch``) are planned together on the next call,
with one allocation for the batch; overdue ones are spread like after a wake-up.
"""

from __future__ import annotations

import contextlib
import heapq
import math
import random
import time
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from smartreader.core.allocation import allocate, allocate_with_missed, capacity_floor
from smartreader.core.estimator import (
    DAY,
    HOUR,
    MONDAY0,
    NSLOTS,
    WEEK,
    RateEstimator,
    novel_lambda,
)
from smartreader.core.missed import check_missed
from smartreader.core.models import FetchObservation, ServerHints
from smartreader.core.schedule import (
    expected_delay,
    expected_delays,
    place_many,
    sqrt_shape_factor,
)

FloatArray = npt.NDArray[np.float64]
INF = float("inf")
COMPETE = 16  # due feeds that compete for the requests the 24 h cap has left
# A feed's last fetch this far after "now" means the clock was set back (a wrong
# clock corrected): its times are moved back with it (see Scheduler._rewind).
CLOCK_BACK_S = 600.0


def _excess(m: float, c: float) -> float:
    """E[max(0, N − c)], N ~ Poisson(m), by the normal approximation (a ranking, not
    a count: ``allocation.poisson_excess`` is the exact one)."""
    if m <= 0.0:
        return 0.0
    sd = math.sqrt(m)
    z = (c - m) / sd
    if z > 8.0:
        return 0.0
    pdf = math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return sd * pdf + (m - c) * 0.5 * math.erfc(z / math.sqrt(2.0))


def _finite(x: Any) -> float:
    v = float(x)
    if not math.isfinite(v):
        raise ValueError(f"not a finite number: {x!r}")
    return v


def requests_per_24h(budget_per_day: float) -> int:
    """The hard cap: whole requests in any 24 h (a budget saved by an older
    version may be fractional; 1.5 allows 1)."""
    return math.floor(budget_per_day + 1e-9)


def _utc(t: float) -> str:
    """An epoch time for people (notes are shown verbatim in the CLI and the GUI)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


def _span(seconds: float) -> str:
    """A maximum interval for a note: "24 h", "6 h", "3 days"."""
    if seconds >= 2 * DAY and seconds % DAY == 0:
        return f"{seconds / DAY:g} days"
    return f"{seconds / 3600:g} h"


def _utc_text(t: float, now: float) -> str:
    """:meth:`Scheduler.explain`'s default ``time_text``."""
    return _utc(t)


@dataclass(frozen=True)
class SchedulerConfig:
    budget_per_day: float = 500.0  # hard cap on scheduled (non-manual) fetches over any 24 h
    min_interval: float = 900.0  # seconds, default per feed
    max_interval: float = 86400.0  # no feed goes unchecked longer (unless a server hint forbids)
    cache_hint_cap: float = 6 * 3600.0  # Cache-Control/Expires/ttl honoured up to this
    seed: int = 0  # jitter RNG
    host_min_gap: float = 1.0  # seconds between two scheduled requests to one host
    catchup_spacing: float = 2.0  # spacing of overdue/new feeds after sleep/start (s)
    capacity_margin: float = 0.5  # plan so a gap expects ≤ margin × window items
    budget_fill: float = 1.0  # share of the budget handed out by the allocation
    realloc_every: float = 3 * 3600.0  # re-run the allocation this often (s)
    replace_every: float = 7 * DAY  # re-place a feed's weekly pattern at least this often
    # ... and sooner while its evidence (observed time) grows by this factor
    replace_growth: float = 1.5
    replace_share_change: float = 0.2  # ... or when its share moved by this fraction
    plan_bins: int = 2016  # placement grid over the week (5 min)
    plan_starts: int = 1  # refinement starts per placement (best kept)
    plan_horizon: float = 2 * DAY  # explain(): planned fetches shown this far ahead
    error_backoff_base: float = 1800.0  # first error back-off (s), doubles per error
    memory_s: float = 5 * WEEK  # estimator forgetting time constant
    prior_rate_per_day: float = 1.0  # a feed we know nothing about
    # place by hour×weekday λ, same fetch count every weekday (else by the day profile)
    weekly_shape: bool = False
    # ... and feeds with fewer than this many fetches a week are always placed by
    # hour×weekday λ: a scarce fetch should land on the weekdays the feed posts
    weekly_below: int = 7
    shape_aware: bool = False  # allocate by √(w·λ·s), s = periodic shape factor
    # when the budget cannot cover every floor: a missed item costs this many days
    # of delay (the floors turn into that trade-off; see allocation.py)
    miss_cost_days: float = 0.5
    # content-aware: the novel share by hour is shrunk toward the feed's overall
    # novel share as far as the evidence says (0), or with the weight of this many
    # items per hour (novel_lambda)
    novel_share_k: float = 0.0
    # a fetch later than this after its planned time waited for the 24 h cap; a
    # feed whose last fetch did so waits for its next planned point (0: never),
    # which may stretch that one interval up to twice max_interval
    lock_tolerance: float = 4 * 3600.0
    # hard floors may take at most this share of the budget (at 100 % every feed
    # would be polled at a fixed interval, with nothing left to place by λ)
    floor_share: float = 0.9
    # a window that grew to at least this many items, all new, is taken as
    # possibly full (see observe); smaller ones as a feed's whole history. 10 is
    # the smallest common default window (WordPress)
    censor_window: int = 10
    inflight_timeout: float = 900.0  # a due() fetch never reported is abandoned after this
    # No server answering at this many different hosts in a row (none answered
    # between): the network is down, not the hosts (see observe). Fewer hosts
    # subscribed: all of them, if at least two.
    offline_hosts: int = 3
    offline_probe: float = 60.0  # offline: one due feed tries this long after the last try
    offline_probe_max: float = 900.0  # ... the wait doubling up to this

    def __post_init__(self) -> None:
        # the placement grid subdivides the 168 hourly λ slots evenly
        if self.plan_bins < NSLOTS or self.plan_bins % NSLOTS:
            raise ValueError(f"plan_bins must be a positive multiple of {NSLOTS}")
        if self.plan_starts < 1:
            raise ValueError("plan_starts must be at least 1")
        if not (self.max_interval > 0 and math.isfinite(self.max_interval)):
            raise ValueError("max_interval must be a positive number of seconds")


def fetch_ceiling(min_interval: float, plan_bins: int = SchedulerConfig.plan_bins) -> float:
    """The most fetches a day a feed can be planned: once per minimum interval, and
    at most once per placement bin (5 min by default: a 2-min minimum interval
    promised 720/day of which the weekly plan could hold 288)."""
    return min(DAY / min_interval, plan_bins / 7.0)


@dataclass(frozen=True)
class FetchVerdict:
    new_items: int
    missed_alert: bool
    missed_estimate: float  # expected number of items missed (0 when no alert)
    missed_from: float | None  # interval the missed items were probably published in
    missed_to: float | None
    next_due: float  # when this feed is next due (inf when gone)


@dataclass(frozen=True)
class FeedExplanation:
    feed_id: Hashable
    rate_per_day: float
    lambda_week: tuple[float, ...]  # 168 hourly values, items/hour, 0 = Monday 00:00 UTC
    observed_week: tuple[float, ...]  # 168 values: observed (spread) item counts per slot
    periodicity: float  # 0..1
    share_per_day: float  # fetches/day allocated to this feed
    planned: tuple[float, ...]  # next planned fetch times (epoch)
    expected_delay_s: float  # expected mean delay under the plan
    capacity: int | None
    notes: tuple[str, ...]


@dataclass(frozen=True)
class PlanSummary:
    budget_per_day: float
    planned_per_day: float
    expected_mean_delay_s: float  # rate-weighted across feeds
    fixed_interval_mean_delay_s: float  # a fixed interval with the same requests
    feeds_starved: tuple[Hashable, ...]
    notes: tuple[str, ...]


@dataclass
class _Feed:
    fid: Hashable
    host: str
    weight: float
    capacity: int | None
    min_interval: float | None
    est: RateEstimator
    # the feed's own maximum interval (its properties), else the configured one
    max_interval: float | None = None
    # rate of novel items (content-aware polling; None until a fetch reports a
    # non-novel item): weighs delay in allocation and placement
    est_n: RateEstimator | None = None
    last_fetch: float | None = None  # last scheduled or manual attempt
    last_ok: float | None = None  # last fetch that observed the window
    cap_seen: int = 0
    share: float = 0.0
    shape: float = 1.0
    pattern: FloatArray | None = None
    stats_src: tuple[FloatArray, FloatArray] | None = None  # the λs ``stats`` came from
    # (allocation rate/day, busiest day's items, hour-of-day profile in items/hour,
    # share of its lost items that count: the novel share when judged, else 1)
    stats: tuple[float, float, FloatArray, float] = (0.0, 0.0, np.zeros(24), 1.0)
    pat_src: FloatArray | None = None  # the pattern pat_a/pat_c were built from
    pat_a: list[float] = field(default_factory=list)  # pattern offsets over 4 weeks
    pat_c: list[float] = field(default_factory=list)  # offset − 0.3 × preceding gap
    placed_share: float = 0.0
    placed_at: float = -INF
    placed_expo: float = 0.0  # estimator evidence (observed seconds) at placement
    next_due: float = 0.0
    not_before: float = -INF
    err_count: int = 0
    gone: bool = False
    starved: bool = False
    skip_hours: frozenset[int] = frozenset()
    skip_days: frozenset[int] = frozenset()
    version: int = 0
    inflight: bool = False
    deferred: bool = False  # its last fetch came late, waiting for the 24 h cap
    notes: list[str] = field(default_factory=list)
    alerts: int = 0
    missed_total: float = 0.0


class Scheduler:
    def __init__(self, config: SchedulerConfig, now: float, rng: random.Random | None = None):
        self.config = config
        self.rng = rng if rng is not None else random.Random(config.seed)
        self._feeds: dict[Hashable, _Feed] = {}
        self._heap: list[tuple[float, int, int, Hashable]] = []
        self._seq = 0
        self._log: deque[float] = deque()  # non-manual request times, last 24 h
        self._inflight: dict[Hashable, float] = {}  # handed out by due(), not yet observed
        self._pending: dict[Hashable, _Feed] = {}  # added with a history, not planned yet
        # when the next feed added without history may be fetched first: a batch of
        # them is staggered (a count from the start made the thousandth feed of a
        # run, and every one after, wait half an hour)
        self._new_slot = -INF
        self._manual = 0
        self._host_block: dict[str, float] = {}
        # blocks taken from feeds' saved states and not yet planned: (the restored
        # until, the host's block before it, the feed whose state it came from);
        # see _rewind_restored
        self._restored_blocks: dict[str, tuple[float, float, Hashable]] = {}
        self._host_last: dict[str, float] = {}
        # a site's own least time between two requests (the user's, for a site that
        # refuses more: Reddit takes one a minute); others: host_min_gap
        self._host_gaps: dict[str, float] = {}
        # hosts where no server answered: (failed tries in a row, no request before)
        self._host_down: dict[str, tuple[int, float]] = {}
        # since a server last answered: the hosts where none did, and the feeds whose
        # fetch failed so (their hosts' back-off is undone if the network was down)
        # (when they were tried before, and then)
        self._unreached: dict[str, list[tuple[Hashable, float | None, float]]] = {}
        self._offline_since: float | None = None  # when the network went down
        self._probe_at = -INF  # offline: when a due feed may try again
        self._probe_gap = 0.0
        # feeds whose saved state changed without a fetch of theirs (see take_touched)
        self._touched: set[Hashable] = set()
        self._spread_last = -INF  # the last time overdue feeds were spread to
        self._last_alloc = -INF
        self._alloc_dirty = True
        self._starved: tuple[Hashable, ...] = ()
        self._plan_notes: tuple[str, ...] = ()
        self._anchor: float | None = None  # see estimate_delay_for_budget; per allocation
        self._now = now
        self._frozen = False
        self._stale: set[Hashable] = set()  # patterns to re-place at the next allocation

    # ------------------------------------------------------------ feed admin
    def feed_ids(self) -> list[Hashable]:
        return list(self._feeds)

    def capacity_of(self, feed_id: Hashable) -> int | None:
        f = self._feeds[feed_id]
        return f.capacity if f.capacity is not None else (f.cap_seen or None)

    def add_feed(
        self,
        feed_id: Hashable,
        *,
        host: str,
        weight: float = 1.0,
        capacity: int | None = None,
        min_interval: float | None = None,
        state: dict[str, Any] | None = None,
        last_fetch: float | None = None,
        max_interval: float | None = None,
    ) -> None:
        cfg = self.config
        est = RateEstimator(cfg.memory_s, cfg.prior_rate_per_day)
        if max_interval is not None and not (max_interval > 0 and math.isfinite(max_interval)):
            raise ValueError("max_interval must be a positive number of seconds")
        f = _Feed(feed_id, host, float(weight), capacity, min_interval, est, max_interval)
        if state:
            try:
                est = self._restore(f, state)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                # valid JSON of the wrong shape (a hand edit, a future version):
                # what was learned is lost, the feed is not
                state = None
                f = _Feed(feed_id, host, float(weight), capacity, min_interval, est, max_interval)
                f.notes.append("its saved schedule could not be read: learning it again")
        if self._frozen:
            est.frozen = True
            if f.est_n is not None:
                f.est_n.frozen = True
        f.est = est
        if last_fetch is not None:
            f.last_fetch = last_fetch
            if f.last_ok is None and state:
                f.last_ok = last_fetch
        self._feeds[feed_id] = f
        self._alloc_dirty = True
        if f.last_fetch is None:
            # new feed: fetch soon, but never all at once
            t = max(self._now, self._new_slot)
            self._new_slot = t + cfg.catchup_spacing
            self._set_due(f, t)
        else:
            # planned on the next call (one allocation for a whole batch of adds)
            self._pending[feed_id] = f

    def _restore(self, f: _Feed, state: dict[str, Any]) -> RateEstimator:
        """Fill ``f`` from :meth:`export_state`'s dict; raises on a malformed one."""
        est = RateEstimator.from_dict(state.get("est", {}))
        if state.get("est_n"):
            f.est_n = RateEstimator.from_dict(state["est_n"])
        f.cap_seen = int(state.get("cap_seen", 0))
        lo = state.get("last_ok")
        f.last_ok = None if lo is None else _finite(lo)
        f.err_count = int(state.get("err_count", 0))
        nb = state.get("not_before")
        f.not_before = -INF if nb is None else _finite(nb)
        f.skip_hours = frozenset(int(h) for h in state.get("skip_hours", []))
        f.skip_days = frozenset(int(d) for d in state.get("skip_days", []))
        lf = state.get("last_fetch")
        f.last_fetch = None if lf is None else _finite(lf)
        hb = state.get("host_block")
        if hb and hb[0] == f.host:  # not when the feed has moved to another host
            until = _finite(hb[1])
            before = self._host_block.get(f.host, -INF)
            if until > before:
                self._host_block[f.host] = until
                _, first, _ = self._restored_blocks.get(f.host, (until, before, f.fid))
                self._restored_blocks[f.host] = (until, first, f.fid)
        return est

    def _rewind(self, f: _Feed, now: float) -> float:
        """Move ``f``'s times back when its last fetch lies after ``now``: the clock
        was ahead then (a wrong clock since corrected). Its next fetch was planned
        from that time, and it waited until the clock caught up (a year ahead:
        no poll for a year). Every time moves by the same amount, so the
        intervals, a server's hint and what the estimator learned keep their
        meaning. Returns how far it moved them (0: not at all)."""
        if f.last_fetch is None or f.last_fetch <= now + CLOCK_BACK_S:
            return 0.0
        d = f.last_fetch - now
        f.last_fetch = now
        if f.last_ok is not None:
            f.last_ok -= d
        if f.not_before != -INF:
            f.not_before -= d
        for est in (f.est, f.est_n):
            if est is None:
                continue
            if est.last_t is not None and est.last_t > now:
                est.last_t -= d
            if est.last_item_t is not None and est.last_item_t > now:
                est.last_item_t -= d
        return d

    def _clock_went_back(self, now: float) -> bool:
        """Whether the clock is now well before a time it showed (a wrong clock
        corrected, while running); if so every feed's times are moved back
        (``_rewind``) and so are the requests counted against the 24 h cap."""
        if now >= self._now - CLOCK_BACK_S:
            return False
        back = self._now - now
        for f in self._feeds.values():
            self._rewind(f, now)
            if f.placed_at > now:
                f.placed_at -= back
        self._log = deque(sorted(min(t - back, now) for t in self._log))
        self._shift_host_blocks(back, now)
        for host, t in list(self._host_last.items()):
            self._host_last[host] = min(t - back, now)
        self._spread_last = min(self._spread_last - back, now)
        for fid, t in list(self._inflight.items()):
            self._inflight[fid] = min(t - back, now)
        if self._last_alloc > now:
            self._last_alloc -= back
        self._now = now
        return True

    def _rewind_restored(self, feeds: list[_Feed]) -> None:
        """Feeds restored from a run whose clock was ahead: their times moved back
        (``_rewind``), and the host blocks their saved states brought with them.
        Only those: a feed re-added later (a property edit, from a row saved while
        the clock was ahead) moved every host's, a Retry-After given since too;
        and a block this run already moved when its clock went back was moved
        twice (a fetch went days before the server's Retry-After). A block moves
        with the feed whose state brought it, by as much as that feed's times: a
        Retry-After given after the clock was set right came with a feed saved
        then, and moving it with the other feeds of its host, saved while the
        clock was ahead, sent a request days before it."""
        back = {f.fid: self._rewind(f, self._now) for f in feeds}
        for host, (until, before, fid) in self._restored_blocks.items():
            moved = back.get(fid, 0.0)
            # only a block still the one a saved state set (a later one stands)
            if moved > 0 and self._host_block.get(host) == until:
                self._move_host_block(host, max(before, self._now, until - moved), self._now)
        self._restored_blocks.clear()

    def _shift_host_blocks(self, back: float, now: float) -> None:
        """Hosts' Retry-After blocks, set by a clock ``back`` s ahead, moved with it."""
        for host, until in list(self._host_block.items()):
            if until > now:
                self._move_host_block(host, max(now, until - back), now)

    def _move_host_block(self, host: str, to: float, now: float) -> None:
        """Move ``host``'s block back to ``to``; feeds set to wait for the old time
        follow it (they waited days past their plan for a block that had moved)."""
        until = self._host_block[host]
        self._host_block[host] = to
        self._release_held(host, until, now)

    def _release_held(self, host: str, until: float, now: float) -> None:
        """``host``'s feeds set to wait until ``until`` go back to their plans (the
        wait moved or ended); the overdue ones spread after any spread going on (a
        wake-up's), not all at once."""
        held = [
            f
            for f in self._feeds.values()
            if f.host == host
            and not (f.gone or f.inflight)
            and f.last_fetch is not None
            and until - 1.0 <= f.next_due < INF
        ]
        if held:
            self._spread(held, now, go_on=True)

    def _flush(self) -> None:
        """Plan feeds added with a history; overdue ones are spread, not burst."""
        if not self._pending:
            return
        pending = [f for f in self._pending.values() if self._feeds.get(f.fid) is f]
        self._pending.clear()
        self._rewind_restored(pending)
        self._reallocate(self._now)
        self._place_feeds([f for f in pending if f.pattern is None and not f.gone], self._now)
        self._spread(pending, self._now)

    def remove_feed(self, feed_id: Hashable) -> None:
        self._feeds.pop(feed_id, None)
        self._inflight.pop(feed_id, None)
        self._pending.pop(feed_id, None)
        self._alloc_dirty = True

    def update_feed(
        self,
        feed_id: Hashable,
        *,
        weight: float | None = None,
        min_interval: float | None = None,
        capacity: int | None = None,
    ) -> None:
        f = self._feeds[feed_id]
        if weight is not None:
            f.weight = float(weight)
        if min_interval is not None:
            f.min_interval = float(min_interval)
            f.pattern = None
        if capacity is not None:
            f.capacity = int(capacity)
        self._alloc_dirty = True

    def set_config(self, config: SchedulerConfig, now: float) -> None:
        self.config = config
        for f in self._feeds.values():
            f.pattern = None
            f.stats_src = None
        self.replan(now)

    def freeze_estimates(self, frozen: bool = True) -> None:
        """Stop (or resume) learning; plans then stay on the current λ."""
        self._frozen = frozen
        for f in self._feeds.values():
            f.est.frozen = frozen
            if f.est_n is not None:
                f.est_n.frozen = frozen

    def set_lambda(self, feed_id: Hashable, lam_per_hour: FloatArray, weeks: float = 10.0) -> None:
        """Install a known λ(t) (items/hour, 168 values) for a feed."""
        est = RateEstimator.from_lambda(np.asarray(lam_per_hour, dtype=np.float64), weeks)
        est.frozen = self._feeds[feed_id].est.frozen or self._frozen
        self.set_estimator(feed_id, est)

    def set_estimator(self, feed_id: Hashable, est: RateEstimator) -> None:
        """Replace a feed's λ(t) estimate (replay diagnostics: what the scheduler does
        with other knowledge); its weekly plan is placed afresh."""
        f = self._feeds[feed_id]
        f.est = est
        f.est_n = None
        f.pattern = None
        self._alloc_dirty = True

    # --------------------------------------------------------------- helpers
    def _lam_delay(self, f: _Feed) -> FloatArray:
        """The λ(t) delay is weighed by: novel items when content-aware polling has
        judged any (all items' shape × the novel share by hour), else all items."""
        if f.est_n is None:
            return f.est.lambda_week()
        return novel_lambda(f.est, f.est_n, self.config.novel_share_k)

    def _min_int(self, f: _Feed, default: float | None = None) -> float:
        """The feed's own minimum interval, else ``default`` (the configured one)."""
        if f.min_interval is not None:
            return f.min_interval
        return self.config.min_interval if default is None else default

    def _max_int(self, f: _Feed, default: float | None = None) -> float:
        """The feed's own maximum interval, else ``default`` (the configured one)."""
        if f.max_interval is not None:
            return f.max_interval
        return self.config.max_interval if default is None else default

    def _cap(self, f: _Feed) -> int:
        if f.capacity is not None:
            return f.capacity
        return f.cap_seen

    def _set_due(self, f: _Feed, t: float) -> None:
        # A version unique in this scheduler, not per feed: a feed removed and added
        # again (a property edit, an undo) starts a new _Feed, and a count from 0
        # matched the heap entries of the old one, which then fetched it by its old
        # plan (before a longer minimum interval the edit set).
        self._seq += 1
        f.version = self._seq
        if t < INF:
            # every time a fetch is set for, not only a planned one: a start's or a
            # wake-up's spread of overdue feeds, a wait for a host or for the cap
            # fell in skipHours/skipDays too
            t = self._skip_ok(f, t)
        f.next_due = t
        if not f.gone and not f.inflight and t < INF:
            heapq.heappush(self._heap, (t, self._seq, f.version, f.fid))

    def set_host_gaps(self, gaps: dict[str, float]) -> None:
        """Each site's least time between two requests (seconds), replacing the
        ones set before; a site not named keeps ``host_min_gap``."""
        new = {h: float(g) for h, g in gaps.items() if math.isfinite(g) and g > 0}
        if new != self._host_gaps:
            self._host_gaps = new
            self._alloc_dirty = True

    def host_gap(self, host: str) -> float:
        """The least time between two requests to ``host``."""
        return self._gap(host)

    def _gap(self, host: str) -> float:
        return max(self.config.host_min_gap, self._host_gaps.get(host, 0.0))

    def _host_wait(self, host: str) -> float:
        """No request to ``host`` before this: its Retry-After, or its back-off
        while no server answers there."""
        down = self._host_down.get(host)
        return max(self._host_block.get(host, -INF), -INF if down is None else down[1])

    def _prune_log(self, now: float) -> None:
        while self._log and self._log[0] <= now - DAY:
            self._log.popleft()

    def _reallocate(self, now: float) -> None:
        cfg = self.config
        feeds = [f for f in self._feeds.values() if not f.gone]
        self._last_alloc = now
        self._alloc_dirty = False
        self._anchor = None
        if not feeds:
            self._starved = ()
            return
        rates = np.empty(len(feeds))
        weights = np.empty(len(feeds))
        peak = np.empty(len(feeds))
        hourly = np.empty((len(feeds), 24))
        caps = np.empty(len(feeds))
        ceil = np.empty(len(feeds))
        counted = np.empty(len(feeds))
        for i, f in enumerate(feeds):
            lam_all = f.est.lambda_week()
            lam = self._lam_delay(f)
            if f.stats_src is None or f.stats_src[0] is not lam or f.stats_src[1] is not lam_all:
                # per-λ statistics, recomputed only when the estimate changed
                rate = float(lam.sum()) / 7.0
                if cfg.shape_aware:
                    # a periodic feed's delay at n fetches is ≈ s·(period / 2n) with
                    # s = (mean √λ)²/mean λ, so Theorem 1's cost weight is w·λ·s
                    rate *= sqrt_shape_factor(np.tile(lam.reshape(7, 24).mean(0), 7))
                # capacity: the window fills with every item, novel or not
                wk = lam_all.reshape(7, 24)
                # the share of its items that count (novel ones when judged)
                tot_all = float(lam_all.sum())
                share = min(1.0, float(lam.sum()) / tot_all) if tot_all > 0 else 1.0
                f.stats = (rate, float(wk.sum(1).max()), wk.sum(0) / 7.0, share)
                f.stats_src = (lam, lam_all)
            rates[i], peak[i], hourly[i], counted[i] = f.stats
            weights[i] = f.weight
            c = self._cap(f)
            caps[i] = c if c > 0 else np.inf
            ceil[i] = fetch_ceiling(self._min_int(f), cfg.plan_bins)
            if f.err_count > 0:
                # a failing feed is fetched only as its back-off allows: the rest
                # of its share goes to the feeds that answer
                ceil[i] = min(ceil[i], DAY / self._backoff(f))
            down = self._host_down.get(f.host)
            if down is not None:  # so is a feed whose host does not answer
                ceil[i] = min(ceil[i], DAY / self._host_backoff(down[0]))
        if self._host_gaps:
            # a site that takes one request every g seconds serves its feeds DAY/g
            # a day between them (shared evenly: the plan cannot spend more there)
            on_host: dict[str, int] = {}
            for f in feeds:
                on_host[f.host] = on_host.get(f.host, 0) + 1
            for i, f in enumerate(feeds):
                g = self._host_gaps.get(f.host)
                if g is not None:
                    ceil[i] = min(ceil[i], DAY / (g * on_host[f.host]))
        longest = np.array([self._max_int(f) for f in feeds])
        budget = cfg.budget_per_day
        if cfg.weekly_shape:
            # the budget is a cap over every 24 h, so the busiest day must fit in it
            sq = np.sqrt(np.stack([self._lam_delay(f) for f in feeds])).reshape(-1, 7, 24)
            q = sq.sum(2)
            q /= q.sum(1, keepdims=True)
            for _ in range(3):
                k, starved = self._alloc(
                    rates, weights, peak, hourly, caps, ceil, budget, counted, longest
                )
                # feeds fetched at least daily keep the same count every weekday
                qk = np.where((np.round(7.0 * k) >= 7)[:, None], 1.0 / 7.0, q)
                load = float((7.0 * k[:, None] * qk).sum(0).max())
                if load <= cfg.budget_per_day * cfg.budget_fill * 1.001:
                    break
                budget *= cfg.budget_per_day * cfg.budget_fill / load
        else:
            k, starved = self._alloc(
                rates, weights, peak, hourly, caps, ceil, budget, counted, longest
            )
        names = []
        todo = []
        for i, f in enumerate(feeds):
            f.share = float(k[i])
            was_starved, f.starved = f.starved, bool(starved[i])
            if f.starved:
                names.append(f.fid)
            elif was_starved and not f.inflight and f.err_count == 0 and f.last_fetch is not None:
                # its share came back (feeds removed, a larger budget): the fetch
                # planned while it was starved may lie past the maximum interval
                limit = max(
                    now,
                    f.last_fetch + max(self._max_int(f), self._min_int(f)),
                    f.not_before,
                    self._host_wait(f.host),
                )
                if f.next_due > max(limit, self._spread_last):
                    if limit <= now:
                        # overdue (after a sleep, say): after the feeds spread then,
                        # not all at this moment
                        limit = max(now, self._spread_last + cfg.catchup_spacing)
                        self._spread_last = limit
                    self._set_due(f, limit)
            if f.pattern is None or f.err_count > 0:
                # new: placed at its first fetch; failing: its pattern waits for
                # it to answer again, when its share comes back
                continue
            # re-place when the fetch count really moved (hysteresis: estimates
            # jitter between re-allocations and placement is the costly step), and
            # the periodic refreshes; all in one vectorised batch
            if (
                max(1, round(f.share * 7.0)) != f.pattern.size
                and abs(f.share - f.placed_share) > cfg.replace_share_change * f.placed_share
            ) or (f.fid in self._stale and now - f.placed_at >= cfg.replace_every):
                todo.append(f)
        self._starved = tuple(names)
        self._stale.clear()
        self._place_feeds(todo, now)
        notes = []
        if names:
            # each at its own maximum interval (its properties', else Settings')
            spans = sorted({self._max_int(f) for f in feeds if f.starved})
            every = (
                _span(spans[0]) if len(spans) == 1 else f"{_span(spans[0])} to {_span(spans[-1])}"
            )
            notes.append(
                f"budget {cfg.budget_per_day:g}/day is too small for {len(names)} feed(s) "
                f"to get their minimum (every {every}, or enough to "
                "catch every item): their checks go where they save the most delay and "
                "missed items"
            )
        self._plan_notes = tuple(notes)

    def _alloc(
        self,
        rates: FloatArray,
        weights: FloatArray,
        peak: FloatArray,
        hourly: FloatArray,
        caps: FloatArray,
        ceil: FloatArray,
        budget: float,
        counted: FloatArray | None = None,
        max_interval: float | FloatArray | None = None,
    ) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """Capacity floors first (Han et al.), then the max-interval floor, then √(wλ).

        When the budget cannot cover every floor, both become soft: each feed's
        fetches trade expected delay against expected missed items (a missed item
        costs ``miss_cost_days``; with content-aware polling only the novel share
        ``counted`` of the lost items counts, as only novel items weigh delay), so a
        rarely-publishing feed waits longer and an overflowing one gets fetches only
        where they catch items. Feeds below their floor are reported starved.
        """
        cfg = self.config
        b = budget * cfg.budget_fill
        capf = np.minimum(capacity_floor(peak, caps, cfg.capacity_margin), ceil)
        mx = cfg.max_interval if max_interval is None else max_interval
        floors = np.minimum(np.maximum(DAY / mx, capf), ceil)
        if float(floors.sum()) <= cfg.floor_share * b:
            return allocate(rates, weights, floors, ceil, b)
        if cfg.miss_cost_days > 0:
            k = allocate_with_missed(
                rates, weights, hourly, caps, ceil, b, cfg.miss_cost_days, miss_weights=counted
            )
        else:
            k, _ = allocate(rates, weights, capf, ceil, b)
        return k, k < floors * (1 - 1e-6)

    def _ensure_pattern(self, f: _Feed, now: float) -> FloatArray:
        cfg = self.config
        if f.pattern is None or f.est.total_expo > cfg.replace_growth * f.placed_expo + DAY:
            # new, or its evidence grew a lot (young feeds): place now
            self._place_feeds([f], now)
        elif now - f.placed_at >= cfg.replace_every:
            # periodic refresh: done with the next allocation (≤ realloc_every away)
            # in one vectorised batch with the other feeds due then
            self._stale.add(f.fid)
        assert f.pattern is not None
        return f.pattern

    def _place_feeds(self, feeds: list[_Feed], now: float) -> None:
        """(Re-)place the weekly patterns of these feeds (one vectorised batch)."""
        if not feeds:
            return
        cfg = self.config
        lams: list[FloatArray] = []
        ns: list[int] = []
        inits: list[FloatArray | None] = []
        for f in feeds:
            n = max(1, round(f.share * 7.0))
            lam = self._lam_delay(f)
            if not cfg.weekly_shape and n >= cfg.weekly_below:
                lam = np.tile(lam.reshape(7, 24).mean(0), 7)
            lams.append(lam)
            ns.append(n)
            inits.append(f.pattern if f.pattern is not None and f.pattern.size == n else None)
        gaps = [self._min_int(f) for f in feeds]
        pats = place_many(
            lams,
            ns,
            bins=cfg.plan_bins,
            min_gaps_s=gaps,
            inits=inits,
            per_day=cfg.weekly_shape,
            starts=cfg.plan_starts,
        )
        for f, lam, pat in zip(feeds, lams, pats, strict=True):
            f.pattern = pat
            f.placed_share = f.share
            f.placed_at = now
            f.placed_expo = f.est.total_expo
            f.shape = sqrt_shape_factor(lam)
            self._stale.discard(f.fid)

    def _pattern_next(self, f: _Feed, t0: float, min_gap: float) -> float:
        """The first pattern point at least ``min_gap`` and 0.3 × its preceding gap
        after ``t0`` (both conditions are monotone along the pattern: bisection)."""
        pat = self._ensure_pattern(f, t0)
        if f.pat_src is not pat:
            a = np.concatenate((pat - WEEK, pat, pat + WEEK, pat + 2 * WEEK))
            gaps = np.diff(a, prepend=a[0] - WEEK / max(1, pat.size))
            f.pat_a = a.tolist()
            f.pat_c = (a - 0.3 * gaps).tolist()
            f.pat_src = pat
        off0 = (t0 - MONDAY0) % WEEK
        ws = t0 - off0
        i = max(bisect_left(f.pat_a, off0 + min_gap), bisect_left(f.pat_c, off0))
        return ws + f.pat_a[i] if i < len(f.pat_a) else t0 + WEEK

    def _skip_ok(self, f: _Feed, t: float) -> float:
        if not f.skip_hours and not f.skip_days:
            return t
        if len(f.skip_hours) >= 24 or len(f.skip_days) >= 7:
            return t  # "never": a mistake, not a request (it left a week's wait)
        for _ in range(NSLOTS + 1):
            wd = int(((t - MONDAY0) % WEEK) // DAY)
            hr = int((t % DAY) // HOUR)
            if hr not in f.skip_hours and wd not in f.skip_days:
                return t
            t = (math.floor(t / HOUR) + 1) * HOUR
        return t

    def _backoff(self, f: _Feed, jitter: float = 1.0) -> float:
        """The wait after ``f.err_count`` errors in a row: doubling from
        ``error_backoff_base``, within [min interval, max interval]."""
        cfg = self.config
        mi = self._min_int(f)
        back = cfg.error_backoff_base * 2.0 ** min(f.err_count - 1, 30) * jitter
        return min(max(mi, back), max(mi, self._max_int(f)))

    def _compute_next(self, f: _Feed, t0: float) -> float:
        mi = self._min_int(f)
        if f.err_count > 0:
            nxt = t0 + self._backoff(f, self.rng.uniform(0.75, 1.25))
        else:
            # A fetch runs a little after its planned point; demanding a whole
            # minimum interval after the actual fetch skipped every other point of a
            # plan whose points are one minimum interval apart (a busy feed got half
            # its share). The next point may come up to a minute early; the clamp
            # below still keeps the minimum interval.
            nxt = self._pattern_next(f, t0, mi - min(0.5 * mi, 60.0))
            mx = self._max_int(f)
            if f.starved and f.share > 0:
                mx = max(mx, 1.5 * DAY / f.share)
            nxt = min(nxt, t0 + mx)
            nxt = max(nxt, t0 + mi)
        nxt = max(nxt, f.not_before, self._host_wait(f.host))
        return self._skip_ok(f, nxt)

    # ------------------------------------------------------------- the loop
    def requests_in_last_24h(self, now: float) -> int:
        self._prune_log(now)
        return len(self._log)

    def request_free_at(self, budget_per_day: float, now: float) -> float | None:
        """When a budgeted request would next be free under this budget, given the
        requests of the last 24 h (None: one is free now). Settings shows it when
        the user lowers the budget below what was already used."""
        self._prune_log(now)
        cap = requests_per_24h(budget_per_day)
        used = len(self._log)
        if used < cap:
            return None
        if cap <= 0:
            return math.inf
        return self._log[used - cap] + DAY

    def _requests_per_24h(self) -> int:
        return requests_per_24h(self.config.budget_per_day)

    def restore_requests(self, times: Iterable[float], now: float) -> None:
        """Count budgeted requests made before this Scheduler existed (the app's
        previous run, the CLI's previous ``update --due``). Without them every
        restart would begin with a whole day's budget, and the cap would hold
        only within one run. A time after ``now`` (the clock went back) counts
        as ``now``: it keeps its request without blocking the cap for longer
        than a day."""
        self._now = max(self._now, now)
        kept = [min(t, now) for t in times if t > now - DAY]
        if kept:
            self._log = deque(sorted([*self._log, *kept]))

    def blocked_hosts(self, now: float) -> dict[str, float]:
        """Every host a 429/503's Retry-After still forbids, and until when."""
        return {h: t for h, t in self._host_block.items() if t > now}

    def block_host(self, host: str, until: float) -> None:
        """No request to ``host`` before ``until`` (a Retry-After)."""
        self._host_block[host] = max(self._host_block.get(host, -INF), until)

    def host_blocked_until(self, host: str, now: float) -> float | None:
        """Until when a 429/503's Retry-After forbids requests to ``host`` (None: it
        does not)."""
        until = self._host_block.get(host)
        return until if until is not None and until > now else None

    def extra_request(self, feed_id: Hashable, now: float, *, manual: bool) -> bool:
        """May a fetch of this feed make one more request now (a move's new address
        tried at once when the old one is gone)? A manual fetch's is recorded
        outside the budget, like the fetch; a scheduled one's takes a request of the
        24 h budget, counting the fetch itself if :meth:`due` did not hand it out.
        False: none is left, and the caller must not make it."""
        self._now = max(self._now, now)
        if manual:
            self._manual += 1
            return True
        self._prune_log(now)
        pending = 0 if feed_id in self._inflight else 1  # observe() will count it
        if len(self._log) + pending + 1 > self._requests_per_24h():
            return False
        self._log.append(now)
        return True

    def _release_abandoned(self, now: float) -> None:
        """A fetch handed out by :meth:`due` but never observed (cancelled, feed
        deleted meanwhile) stays counted in the budget; its feed is planned again."""
        limit = now - self.config.inflight_timeout
        if self._alloc_dirty and any(t <= limit for t in self._inflight.values()):
            self._reallocate(now)
        for fid, t in list(self._inflight.items()):
            if t <= limit:
                del self._inflight[fid]
                f = self._feeds.get(fid)
                if f is not None and f.inflight:
                    f.inflight = False
                    self._set_due(f, max(now, self._compute_next(f, t)))

    def due(self, now: float) -> list[Hashable]:
        """Feeds to fetch now. Each is counted against the budget as it is handed
        out and stays in flight until :meth:`observe` (or ``inflight_timeout``)."""
        if self._clock_went_back(now):
            self.replan(now)
        self._now = max(self._now, now)
        self._flush()
        self._prune_log(now)
        if self._inflight:
            self._release_abandoned(now)
        allowed = self._requests_per_24h() - len(self._log)
        out: list[Hashable] = []
        if self._offline_since is not None:
            if now < self._probe_at:
                return out
            allowed = min(allowed, 1)  # the network is down: one due feed tries it
        if allowed <= 0:
            return out
        ready: list[tuple[tuple[float, int, int, Hashable], _Feed]] = []
        hosts: set[str] = set()
        # the longest-waiting few compete for the requests left (bounded: with
        # thousands of feeds overdue after a sleep this runs for every request)
        limit = max(allowed, COMPETE)
        while self._heap and self._heap[0][0] <= now and len(ready) < limit:
            entry = heapq.heappop(self._heap)
            f = self._feeds.get(entry[3])
            if f is None or f.version != entry[2] or f.gone or f.inflight:
                continue
            hb = self._host_wait(f.host)
            hl = self._host_last.get(f.host, -INF) + self._gap(f.host)
            # a time that came while the cap was full may lie in skipHours by now
            wait = max(hb, hl, f.not_before, self._skip_ok(f, now))
            if wait > now:
                self._set_due(f, wait)
                continue
            late = now - entry[0] > self.config.lock_tolerance
            if late and f.deferred and self.config.lock_tolerance > 0 and f.err_count == 0:
                # Its last fetch already waited for the cap: fetching whenever a
                # request frees would keep it on yesterday's times for good (one
                # feed at 1/day, first fetched at midnight, would stay at midnight
                # instead of going after its 15:00 posts). Wait for the next point
                # of its plan instead, once.
                f.deferred = False
                nxt = self._pattern_next(f, now, 60.0)
                if f.last_fetch is not None:
                    nxt = min(nxt, max(now + 60.0, f.last_fetch + 2 * self._max_int(f)))
                if nxt > now:
                    self._set_due(f, nxt)
                    continue
            if f.host in hosts:  # one request per host per turn, as its gap says
                self._set_due(f, now + self._gap(f.host))
                continue
            hosts.add(f.host)
            ready.append((entry, f))
        if len(ready) > allowed:
            # The 24 h cap has fewer requests left than feeds are due (their plans
            # add up to the budget, but not evenly over every 24 h): the requests
            # go where waiting costs most; the others stay due.
            costs = self._waiting_costs([f for _e, f in ready], now)
            order = sorted(range(len(ready)), key=lambda i: -costs[i])
            ready = [ready[i] for i in order]
            for entry, _g in ready[allowed:]:
                heapq.heappush(self._heap, entry)
            ready = ready[:allowed]
        for entry, f in ready:
            f.deferred = now - entry[0] > self.config.lock_tolerance
            f.inflight = True
            self._inflight[f.fid] = now
            self._log.append(now)
            self._host_last[f.host] = now
            out.append(f.fid)
        if out and self._offline_since is not None:
            # until it answers (an abandoned try: after the wait anyway)
            self._probe_at = now + max(self._probe_gap, self.config.offline_probe)
        return out

    def _waiting_costs(self, feeds: list[_Feed], now: float) -> list[float]:
        """What leaving each feed for the next free request costs, by its priority
        weight: the delay its waiting items gain meanwhile, plus the items its
        window is expected to lose meanwhile at ``miss_cost_days`` each (the
        allocation's own exchange rate). The wait is the average gap between two
        requests of the budget; rates are the feeds' average ones and the loss a
        normal approximation (this runs for every request while the cap is short)."""
        cfg = self.config
        dt = DAY / max(1.0, cfg.budget_per_day)
        out: list[float] = []
        for f in feeds:
            if f.last_ok is None:
                out.append(INF)  # never seen: its first fetch tells the most
                continue
            since = now - f.last_ok
            r_all = f.est.rate_per_hour() / HOUR
            r_d = r_all if f.est_n is None else f.est_n.rate_per_hour() / HOUR
            cost = r_d * since * dt
            cap = self._cap(f)
            if cap:
                lost = _excess(r_all * (since + dt), cap) - _excess(r_all * since, cap)
                # only the novel share of what scrolls out counts (as for delay)
                cost += cfg.miss_cost_days * DAY * lost * min(1.0, r_d / r_all)
            out.append(f.weight * cost)
        return out

    def next_wakeup(self) -> float | None:
        """When :meth:`due` may next return something (None: nothing planned)."""
        self._flush()
        t_inf = (
            min(self._inflight.values()) + self.config.inflight_timeout if self._inflight else INF
        )
        while self._heap:
            t, _, ver, fid = self._heap[0]
            f = self._feeds.get(fid)
            if f is None or f.version != ver or f.gone or f.inflight:
                heapq.heappop(self._heap)
                continue
            budget = self._requests_per_24h()
            if budget <= 0:
                return None
            if len(self._log) >= budget:
                # the oldest request that must leave the 24 h window first
                t = max(t, self._log[len(self._log) - budget] + DAY)
            if self._offline_since is not None:
                t = max(t, self._probe_at)
            return min(t, t_inf)
        return None if t_inf == INF else t_inf

    def observe(self, feed_id: Hashable, obs: FetchObservation) -> FetchVerdict:
        f = self._feeds[feed_id]
        now = obs.fetched_at
        self._now = max(self._now, now)
        self._flush()
        f.inflight = False
        handed = self._inflight.pop(feed_id, None)
        # answering until now: its failure now says something of the network (one
        # failing for days, or never fetched, says nothing: dead feeds failing
        # together in one run are not the network down)
        healthy = f.err_count == 0 and f.last_ok is not None
        if obs.manual:
            self._manual += 1
        elif handed is None:
            # a budgeted fetch that did not come from due(): count it now
            self._prune_log(now)
            self._log.append(now)
            handed = now
        tried_before, f.last_fetch = f.last_fetch, now
        h: ServerHints = obs.hints
        cfg = self.config
        if obs.status == "ok" or h.skip_hours or h.skip_days:
            # a document read says what it asks now: one that dropped its skipHours
            # was skipped in those hours for good. Other answers carry the last
            # document's (the updater passes them on).
            f.skip_hours, f.skip_days = h.skip_hours, h.skip_days
        answered = obs.answered if obs.answered is not None else obs.status != "error"
        if answered:
            self._network_answered(now)
        if obs.status == "error" and obs.unreachable:
            if handed is not None and not obs.manual:
                # no server saw it: not a request of the budget (else a day offline
                # would spend the next day's)
                self._refund(handed)
            host = obs.answered_by or f.host
            if self._offline_since is None:
                if healthy:
                    self._unreached.setdefault(host, [])
                if not (healthy and self._offline_now(now)):
                    if healthy:
                        self._unreached[host].append((f.fid, tried_before, now))
                    self._host_failed(host, f, now)
            if self._offline_since is not None:
                f.last_fetch = tried_before  # no server saw this try
                return self._while_offline(f, now)
        elif answered:
            self._host_answered(obs.answered_by or f.host, now)
        if obs.status == "gone":
            f.gone = True
            f.notes.append("server says the feed is gone (410); not polled again")
            self._alloc_dirty = True
            self._set_due(f, INF)
            return FetchVerdict(0, False, 0.0, None, None, INF)
        nb = -INF
        new = 0
        mc = None
        if obs.status in ("error", "rate_limited"):
            before = self._backoff(f) if f.err_count else 0.0
            f.err_count += 1
            if self._backoff(f) != before:
                self._alloc_dirty = True  # its ceiling fell (see _reallocate)
            if obs.status == "rate_limited":
                ra = h.retry_after
                if ra is None:
                    ra = now + min(
                        self._max_int(f), cfg.error_backoff_base * 2 ** (f.err_count - 1)
                    )
                nb = ra
                # the host that sent it (a redirect's target), not always the feed's
                host = obs.answered_by or f.host
                self.block_host(host, ra)
            elif h.retry_after is not None:
                nb = h.retry_after  # e.g. a 503 with Retry-After: honoured for this feed
        else:
            if f.err_count:
                self._alloc_dirty = True  # answering again: its share comes back
            f.err_count = 0
            items = obs.items if obs.status == "ok" else ()
            lam = f.est.lambda_week()
            # an unknown window size is learned as the largest window seen; a window
            # still growing is not full
            cap_known = f.capacity if f.capacity is not None else f.cap_seen
            grew = f.capacity is None and len(items) > f.cap_seen
            if grew:
                cap_known = len(items) + 1
            f.cap_seen = max(f.cap_seen, len(items))
            new_items = [i for i in items if i.is_new]
            new = len(new_items)
            if f.last_ok is None:
                pubs = [i.published for i in items if i.published is not None]
                pubs = [p for p in pubs if p <= now]
                if pubs:
                    a = max(min(pubs), now - cfg.memory_s)
                    f.est.observe_interval(a, now, [p for p in pubs if p > a])
            else:
                obs_from = f.last_ok
                if grew and len(items) >= cfg.censor_window and len(new_items) == len(items):
                    # A window that grew to a new size and holds only new items, all
                    # published after the last fetch, may have been full: older items
                    # may have scrolled out unseen, and nothing tells how many. Learn
                    # only from the stretch it covers; counting its items as all that
                    # was published since the last fetch underestimates a busy feed
                    # for weeks (a 75/day feed learned as 14/day after its first day).
                    dated = [i.published for i in items if i.published is not None]
                    oldest = min(dated, default=now)
                    if len(dated) == len(items) and f.last_ok < oldest <= now:
                        obs_from = oldest - 1.0
                mc = check_missed(items, f.last_ok, cap_known, lam, now)
                pubs = [i.published for i in new_items if i.published is not None]
                unplaced = float(sum(1 for i in new_items if i.published is None))
                extra = mc.estimate if mc.alert else 0.0
                f.est.observe_interval(
                    obs_from, now, pubs, unplaced=unplaced, extra=extra, extra_to=mc.end
                )
                if f.est_n is None and any(not i.novel for i in new_items):
                    # first verdict: start from what all items taught so far
                    f.est_n = RateEstimator.from_dict(f.est.to_dict())
                    f.est_n.frozen = f.est.frozen
                elif f.est_n is not None:
                    nov = [i for i in new_items if i.novel]
                    share = len(nov) / len(new_items) if new_items else 1.0
                    f.est_n.observe_interval(
                        obs_from,
                        now,
                        [i.published for i in nov if i.published is not None],
                        unplaced=float(sum(1 for i in nov if i.published is None)),
                        extra=extra * share,
                        extra_to=mc.end,
                    )
                if mc.alert:
                    f.alerts += 1
                    f.missed_total += mc.estimate
            f.last_ok = now
            if h.cache_until is not None:
                nb = max(nb, min(h.cache_until, now + cfg.cache_hint_cap))
            for p in (h.ttl_seconds, h.update_period_seconds):
                if p is not None and p > 0:
                    nb = max(nb, now + min(p, cfg.cache_hint_cap))
            if h.retry_after is not None:
                nb = max(nb, h.retry_after)
        f.not_before = nb
        if self._alloc_dirty or now - self._last_alloc >= cfg.realloc_every:
            self._reallocate(now)
        nxt = self._compute_next(f, now)
        self._set_due(f, nxt)
        if mc is not None and mc.alert:
            return FetchVerdict(new, True, mc.estimate, mc.start, mc.end, nxt)
        return FetchVerdict(new, False, 0.0, None, None, nxt)

    # ------------------------------------------- unreachable hosts, offline
    def _refund(self, t: float) -> None:
        with contextlib.suppress(ValueError):  # already out of the 24 h window
            self._log.remove(t)

    def _host_backoff(self, n: int) -> float:
        """How long a host waits after ``n`` tries in a row where no server answered."""
        cfg = self.config
        return min(cfg.error_backoff_base * 2.0 ** min(n - 1, 30), cfg.max_interval)

    def _host_failed(self, host: str, f: _Feed, now: float) -> None:
        """No server answered at ``host`` (its name, its address): its other feeds
        wait too, the wait doubling with each such try in a row, rather than each
        finding it out with a request of its own. ``f`` backs off as any failing
        feed does."""
        n = self._host_down.get(host, (0, -INF))[0] + 1
        on_host = [g for g in self._feeds.values() if g.host == host and not g.gone]
        # never past a maximum interval of one of its feeds (set for a status page,
        # say): then that feed tries it
        longest = min((self._max_int(g) for g in on_host), default=self.config.max_interval)
        wait = min(self._host_backoff(n) * self.rng.uniform(0.75, 1.25), longest)
        until = now + max(wait, self._min_int(f))
        self._host_down[host] = (n, until)
        self._alloc_dirty = True  # its feeds' shares go to hosts that answer
        for g in on_host:
            # planned before: their plans show the wait (due() would hold them anyway)
            if g is not f and not g.inflight and g.next_due < until:
                self._set_due(g, until)

    def _host_answered(self, host: str, now: float) -> None:
        """A server answered at ``host`` again: its feeds held for it go back to
        their plans (a manual refresh may find it back before its wait ends)."""
        down = self._host_down.pop(host, None)
        if down is None:
            return
        self._alloc_dirty = True
        self._release_held(host, down[1], now)

    def _offline_now(self, now: float) -> bool:
        """Whether the failures since a server last answered say the network is
        down: no server answered at ``offline_hosts`` different hosts (all the
        subscribed ones, when fewer, if at least two), for feeds that answered
        until then. Then those failures were
        the network's: the feeds' and hosts' back-offs they caused are undone, and
        one due feed at a time tries the network (see :meth:`due`)."""
        cfg = self.config
        hosts = {g.host for g in self._feeds.values() if not g.gone}
        need = max(2, min(cfg.offline_hosts, len(hosts)))
        if len(self._unreached) < need:
            return False
        self._offline_since = now
        self._probe_gap = 0.0
        for host in self._unreached:
            self._host_down.pop(host, None)
        for tries in self._unreached.values():
            for fid, before, at in reversed(tries):  # the earliest try's time stays
                g = self._feeds.get(fid)
                # only while that try is still its last (one since stands as it was)
                if g is not None and g.err_count > 0 and g.last_fetch == at:
                    g.err_count -= 1
                    g.last_fetch = before
                    self._touched.add(fid)
                    if not (g.gone or g.inflight) and before is not None:
                        self._set_due(g, self._compute_next(g, before))
        self._unreached.clear()
        self._alloc_dirty = True
        return True

    def _while_offline(self, f: _Feed, now: float) -> FetchVerdict:
        """A try while the network is down: nothing learned about the feed (it stays
        due as it was); the next try waits longer, up to ``offline_probe_max``."""
        cfg = self.config
        self._probe_gap = min(max(2.0 * self._probe_gap, cfg.offline_probe), cfg.offline_probe_max)
        self._probe_at = now + self._probe_gap
        nxt = now if f.last_fetch is None else max(now, self._compute_next(f, f.last_fetch))
        self._set_due(f, nxt)
        return FetchVerdict(0, False, 0.0, None, None, nxt)

    def _network_answered(self, now: float) -> None:
        """A server answered: the network works. Back from offline, the feeds that
        fell due meanwhile are spread out, not fetched in one burst."""
        self._unreached.clear()
        if self._offline_since is None:
            return
        self._offline_since = None
        self._probe_at = -INF
        live = [f for f in self._feeds.values() if not (f.gone or f.inflight)]
        self._spread(live, now, go_on=True)

    def network_down(self, now: float) -> tuple[float, float] | None:
        """(since when, next try) while no server answers anywhere (the network is
        down: see :meth:`_offline_now`); None while the network works."""
        if self._offline_since is None:
            return None
        nxt = self.next_wakeup()
        return self._offline_since, max(now, self._probe_at if nxt is None else nxt)

    def take_touched(self) -> set[Hashable]:
        """The feeds whose :meth:`export_state` changed since the last call other
        than by a fetch of their own (the back-off of failures the network down
        caused, undone), for the caller to save again."""
        out, self._touched = self._touched, set()
        return {fid for fid in out if fid in self._feeds}

    def network_back(self, now: float) -> None:
        """The system says the network is back: taken at its word (the feeds that
        fell due meanwhile are spread from now; if it is not, the next tries find
        out again)."""
        self._network_answered(now)

    def unreachable_hosts(self, now: float) -> dict[str, tuple[int, float]]:
        """Hosts where no server answered, still waiting: (tries in a row, until)."""
        return {h: d for h, d in self._host_down.items() if d[1] > now}

    def replan(self, now: float) -> None:
        """Re-allocate and re-plan every feed's next fetch (after sleep/resume or a
        settings change); overdue feeds are spread out, not burst. Weekly patterns
        are kept unless the feed's share moved (see ``replace_share_change``)."""
        self._clock_went_back(now)
        self._now = max(self._now, now)
        self._rewind_restored(list(self._pending.values()))  # planned below with the rest
        self._pending.clear()
        self._reallocate(now)
        feeds = [f for f in self._feeds.values() if not f.gone and not f.inflight]
        # every pattern _spread is about to need, placed in one batch (same λ, same
        # result as one by one)
        self._place_feeds([f for f in feeds if f.pattern is None], now)
        self._spread(feeds, now)

    def _spread(self, feeds: list[_Feed], now: float, *, go_on: bool = False) -> None:
        """Plan ``feeds``; the overdue ones from now, ``catchup_spacing`` apart
        (``go_on``: after the last spread's last slot, when that is still to come)."""
        overdue: list[_Feed] = []
        for f in feeds:
            if f.gone or f.inflight:
                continue
            if f.last_fetch is None:
                overdue.append(f)
                continue
            t = self._compute_next(f, f.last_fetch)
            if t < now:
                overdue.append(f)
            else:
                self._set_due(f, t)
        # each from the earliest time it may go (a Retry-After, skipHours), then
        # spacing apart: feeds held to one time came in a burst when it came
        earliest = {
            f.fid: self._skip_ok(f, max(now, f.not_before, self._host_wait(f.host)))
            for f in overdue
        }
        overdue.sort(
            key=lambda g: (earliest[g.fid], g.last_fetch if g.last_fetch is not None else -INF)
        )
        gap = self.config.catchup_spacing
        t = self._spread_last if go_on and self._spread_last > now - gap else -INF
        # the end of the run of slots a spacing apart from now (one held to a later
        # time, a Retry-After's, is not part of it: going on after it would hold
        # every feed that far)
        run = max(t, now - gap)
        for f in overdue:
            t = max(earliest[f.fid], t + gap)
            self._set_due(f, t)
            if t <= run + gap + 1e-6:
                run = t
        if overdue:
            self._spread_last = max(self._spread_last, run) if go_on else run

    # -------------------------------------------------------------- explain
    def export_state(self, feed_id: Hashable) -> dict[str, Any]:
        f = self._feeds[feed_id]
        return {
            "v": 1,
            "est": f.est.to_dict(),
            "est_n": f.est_n.to_dict() if f.est_n is not None else None,
            "cap_seen": f.cap_seen,
            "last_ok": f.last_ok,
            "last_fetch": f.last_fetch,
            "err_count": f.err_count,
            "not_before": None if f.not_before == -INF else f.not_before,
            "skip_hours": sorted(f.skip_hours),
            "skip_days": sorted(f.skip_days),
            # a 429's Retry-After blocks the whole host: kept with each of its
            # feeds, so a restart cannot send another feed there early
            "host_block": [f.host, self._host_block[f.host]]
            if f.host in self._host_block
            else None,
        }

    def _planned(self, f: _Feed, now: float) -> list[float]:
        if f.gone:
            return []
        out: list[float] = []
        t = f.next_due
        horizon = now + self.config.plan_horizon
        if t < INF:
            out.append(t)
        cur = t
        while len(out) < 200 and cur < horizon:
            cur = self._compute_next(f, cur) if f.err_count == 0 else cur + INF
            if cur >= horizon or cur == INF:
                break
            out.append(cur)
        return out

    def explain(
        self,
        feed_id: Hashable,
        now: float,
        *,
        time_text: Callable[[float, float], str] | None = None,
    ) -> FeedExplanation:
        """What the scheduler learned and plans for one feed. ``time_text(t, now)``
        words the times in its notes (default: UTC, as the core knows no time zone;
        the app passes a local one)."""
        self._flush()
        if self._alloc_dirty:
            self._reallocate(now)
        f = self._feeds[feed_id]
        lam = f.est.lambda_week()
        notes = list(f.notes[-5:])
        if f.starved:
            notes.append("below minimum: budget too small")
        when = time_text or _utc_text
        gap = self._host_gaps.get(f.host)
        if gap is not None:
            n = sum(1 for g in self._feeds.values() if g.host == f.host and not g.gone)
            every = f"{gap / 60:g} min" if gap >= 60 else f"{gap:g} s"
            share = f": its {n} feeds there share that" if n > 1 else ""
            notes.append(f"{f.host} takes one request every {every} (its limit){share}")
        notes.extend(self._wait_notes(f, now, when))
        if f.est.total_count < 5:
            notes.append("little evidence yet: using the overall rate")
        quiet = f.est.silence_factor()
        if quiet < 0.99 and f.est.last_item_t is not None:
            notes.append(
                f"rate lowered to {quiet:.0%} of what earlier weeks showed: nothing since "
                f"{when(f.est.last_item_t, now)} is far longer than they explain; the "
                "first new item restores it"
            )
        pat = self._ensure_pattern(f, now)
        return FeedExplanation(
            feed_id=feed_id,
            rate_per_day=float(lam.sum()) / 7.0,
            lambda_week=tuple(float(x) for x in lam),
            observed_week=tuple(float(x) for x in f.est.observed_week()),
            periodicity=f.est.periodicity(),
            share_per_day=f.share,
            planned=tuple(self._planned(f, now)),
            expected_delay_s=expected_delay(lam, pat, self.config.plan_bins),
            capacity=self.capacity_of(feed_id),
            notes=tuple(notes),
        )

    def _wait_notes(
        self, f: _Feed, now: float, time_text: Callable[[float, float], str]
    ) -> list[str]:
        """Why the feed waits (a server's Retry-After or cache hint, a rate limit on
        its site) and its failed checks, one line each. A 429 sets both the feed's
        and its host's wait to the same time: that is one fact, said once, and a
        refusal is not called an error."""
        notes = []
        hb = self._host_block.get(f.host, -INF)
        # this feed's own last answer set the host's block (a 429 sets both to its
        # Retry-After, or to the back-off without one)
        refused_here = f.err_count > 0 and hb > now and abs(f.not_before - hb) < 1.0
        if hb > now and not refused_here and hb > f.not_before:
            notes.append(
                f"The site asked to wait (it refused a request for another of its "
                f"feeds): not checked before {time_text(hb, now)}"
            )
        elif f.not_before > now:
            if f.err_count:
                notes.append(f"The server asked to wait until {time_text(f.not_before, now)}")
            else:  # an ok answer's cache lifetime or TTL
                notes.append(
                    f"The feed asked not to be checked again before {time_text(f.not_before, now)}"
                )
        down = self._host_down.get(f.host)
        if down is not None and down[1] > now:
            n = down[0]
            notes.append(
                f"No server answered at {f.host} ({n} tr{'y' if n == 1 else 'ies'} in a row "
                f"for its feeds): not checked before {time_text(down[1], now)}"
            )
        if self._offline_since is not None:
            notes.append(
                f"No server has answered since {time_text(self._offline_since, now)}: the "
                "network seems down. One feed at a time tries it; none counts as failing"
            )
        failed = f.err_count - (1 if refused_here else 0)
        if failed > 0:
            notes.append(
                f"{f.err_count} unsuccessful check{'' if f.err_count == 1 else 's'} in a "
                "row: waiting longer after each until one succeeds"
            )
        return notes

    def summary(self, now: float) -> PlanSummary:
        self._flush()
        if self._alloc_dirty:
            self._reallocate(now)
        feeds = [f for f in self._feeds.values() if not f.gone]
        rates = np.array([f.est.rate_per_day() for f in feeds]) if feeds else np.zeros(0)
        pats = [self._ensure_pattern(f, now) for f in feeds]
        delays = expected_delays([f.est.lambda_week() for f in feeds], pats)
        planned = float(sum(f.share for f in feeds))
        tot = float(rates.sum())
        smart = float(rates @ delays / tot) if tot > 0 else 0.0
        fixed = DAY * len(feeds) / planned / 2.0 if planned > 0 else INF
        return PlanSummary(
            budget_per_day=self.config.budget_per_day,
            planned_per_day=planned,
            expected_mean_delay_s=smart,
            fixed_interval_mean_delay_s=fixed,
            feeds_starved=self._starved,
            notes=self._plan_notes,
        )

    def estimate_delay_for_budget(
        self,
        budget_per_day: float,
        min_interval: float | None = None,
        now: float | None = None,
        max_interval: float | None = None,
    ) -> tuple[float, float]:
        """(smart, fixed) expected mean delay in seconds at another budget (cheap),
        and at another default minimum or maximum interval if given (Settings shows
        them before they are applied; a feed's own minimum interval still wins).

        The cheap model (each feed's √-shape factor at its allocated share) was
        within ~6 % of the plans' own expected delay on the dev-portfolio replay
        (1, 6 and 24 h budgets, days 28 and 56), and ~15 % off on the demo; not equal
        to it, so Settings and the overview would print different numbers for the
        same budget. Given ``now``, the estimate is scaled so that at the current
        budget and minimum interval it equals :meth:`summary`'s; the factor is
        computed once per allocation."""
        smart, fixed = self._cheap_estimate(budget_per_day, min_interval, max_interval)
        if now is None or not (0.0 < smart < INF):
            return (smart, fixed)
        if self._alloc_dirty or self._anchor is None:
            plan = self.summary(now).expected_mean_delay_s
            here, _ = self._cheap_estimate(self.config.budget_per_day, None)
            self._anchor = plan / here if plan > 0 and 0.0 < here < INF else 1.0
        return (smart * self._anchor, fixed)

    def _cheap_estimate(
        self, budget_per_day: float, min_interval: float | None, max_interval: float | None = None
    ) -> tuple[float, float]:
        mi = self.config.min_interval if min_interval is None else float(min_interval)
        feeds = [f for f in self._feeds.values() if not f.gone]
        if not feeds or budget_per_day <= 0:
            return (INF, INF)
        lams = [f.est.lambda_week() for f in feeds]
        rates = np.array([float(lam.sum()) / 7.0 for lam in lams])
        shapes = np.array([sqrt_shape_factor(lam) for lam in lams])
        peak = np.array([float(lam.reshape(7, 24).sum(1).max()) for lam in lams])
        hourly = np.stack([lam.reshape(7, 24).mean(0) for lam in lams])
        caps = np.array([float(self._cap(f)) if self._cap(f) > 0 else np.inf for f in feeds])
        ceil = np.array([fetch_ceiling(self._min_int(f, mi), self.config.plan_bins) for f in feeds])
        w = np.array([f.weight for f in feeds])
        longest = np.array([self._max_int(f, max_interval) for f in feeds])
        k, _ = self._alloc(rates, w, peak, hourly, caps, ceil, budget_per_day, max_interval=longest)
        k = np.maximum(k, 1e-9)
        d_smart = shapes * DAY / k / 2.0
        tot = float(rates.sum())
        smart = float(rates @ d_smart / tot) if tot > 0 else float(d_smart.mean())
        fixed_int = max(DAY * len(feeds) / budget_per_day, mi)
        return (smart, fixed_int / 2.0)
