"""Polling policies for the replay: the app's Scheduler and the peer baselines.

Every policy exposes the app's driving interface — ``due(now)``,
``next_wakeup()``, ``observe(fid, obs) -> (alert, estimate)`` — so the replay loop
is the same for all. ``smart``, ``sia-offline`` and ``oracle`` *are*
:class:`smartreader.core.scheduler.Scheduler` (unchanged); the latter two only
freeze its estimates (after the warm-up / on the measured-span λ).

Baselines (constants from ``shared/research/peers.md`` §3):

* ``fixed`` — every feed every ``feeds × 24 / budget`` hours, phases staggered.
* ``miniflux`` — ``entry_frequency``: interval = clamp(604800 / weeklyCount, 5 min,
  24 h), weeklyCount = ceil(604800 / mean gap of the entries published in the last
  week), 24 h when ≤ 1 entry; dispatched on the 60 min polling tick.
* ``commafeed`` — "empirical": avg/2 of the document's entry gaps clamped to
  [5 min, MAX/4], MAX = 4 h; idle ≥ 7/14/30 days → MAX/4, MAX/2, MAX.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable
from dataclasses import replace

import numpy as np

from smartreader.core.missed import check_missed
from smartreader.core.models import FetchObservation
from smartreader.core.scheduler import Scheduler, SchedulerConfig

POLICIES = ("smart", "fixed", "miniflux", "commafeed", "sia-offline", "oracle")
# policies whose own rule sets their request rate (the budget does not apply)
SELF_PACED = ("miniflux", "commafeed")


class Policy:
    name = "base"

    def due(self, now: float) -> list[Hashable]:
        raise NotImplementedError

    def next_wakeup(self) -> float | None:
        raise NotImplementedError

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        raise NotImplementedError


class SchedulerPolicy(Policy):
    """The app's scheduler, driven exactly as the app drives it."""

    def __init__(
        self,
        name: str,
        feeds: list[str],
        budget: float,
        start: float,
        freeze_at: float | None = None,
        lambdas: dict[str, np.ndarray] | None = None,
        config: SchedulerConfig | None = None,
    ) -> None:
        self.name = name
        cfg = replace(config or SchedulerConfig(), budget_per_day=budget)
        self.sched = Scheduler(cfg, start)
        for fid in feeds:
            self.sched.add_feed(fid, host=fid.split(":", 1)[0])
        if lambdas is not None:
            for fid, lam in lambdas.items():
                self.sched.set_lambda(fid, lam)
            self.sched.freeze_estimates(True)
            self.sched.replan(start)
        self.freeze_at = freeze_at

    def due(self, now: float) -> list[Hashable]:
        if self.freeze_at is not None and now >= self.freeze_at:
            self.freeze_at = None
            self.sched.freeze_estimates(True)
            self.sched.replan(now)
        return self.sched.due(now)

    def next_wakeup(self) -> float | None:
        return self.sched.next_wakeup()

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        v = self.sched.observe(fid, obs)
        return v.missed_alert, v.missed_estimate


class _HeapPolicy(Policy):
    def __init__(self, feeds: list[str], start: float) -> None:
        self.heap: list[tuple[float, str]] = []
        self.last_ok: dict[str, float] = {}
        self.cap_seen: dict[str, int] = {}
        self.inflight: set[str] = set()

    def push(self, t: float, fid: str) -> None:
        heapq.heappush(self.heap, (t, fid))

    def due(self, now: float) -> list[Hashable]:
        out: list[Hashable] = []
        while self.heap and self.heap[0][0] <= now:
            _, fid = heapq.heappop(self.heap)
            out.append(fid)
        return out

    def next_wakeup(self) -> float | None:
        return self.heap[0][0] if self.heap else None

    def _alert(self, fid: str, obs: FetchObservation) -> tuple[bool, float]:
        self.cap_seen[fid] = max(self.cap_seen.get(fid, 0), len(obs.items))
        mc = check_missed(obs.items, self.last_ok.get(fid), self.cap_seen[fid])
        self.last_ok[fid] = obs.fetched_at
        return mc.alert, mc.estimate


class FixedPolicy(_HeapPolicy):
    name = "fixed"

    def __init__(self, feeds: list[str], start: float, budget: float) -> None:
        super().__init__(feeds, start)
        self.interval = max(900.0, len(feeds) * 86400.0 / budget) if budget > 0 else 86400.0
        for i, fid in enumerate(sorted(feeds)):
            self.push(start + self.interval * i / max(1, len(feeds)), fid)

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        f = str(fid)
        self.push(obs.fetched_at + self.interval, f)
        return self._alert(f, obs)


class MinifluxPolicy(_HeapPolicy):
    name = "miniflux"
    TICK = 3600.0
    EF_MIN = 300.0
    EF_MAX = 86400.0

    def __init__(self, feeds: list[str], start: float) -> None:
        super().__init__(feeds, start)
        self.start = start
        self.entries: dict[str, list[float]] = {f: [] for f in feeds}
        for fid in feeds:
            self.push(start, fid)

    def _tick(self, t: float) -> float:
        return self.start + math.ceil((t - self.start) / self.TICK) * self.TICK

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        f = str(fid)
        ent = self.entries[f]
        ent.extend(i.published for i in obs.items if i.is_new and i.published is not None)
        now = obs.fetched_at
        recent = [p for p in ent[-2000:] if p >= now - 604800.0]
        n = len(recent)
        span = (max(recent) - min(recent)) if n > 1 else 0.0
        weekly = math.ceil(604800.0 / (span / (n - 1))) if n > 1 and span > 0 else 0
        if weekly <= 0:
            interval = self.EF_MAX
        else:
            interval = min(max(604800.0 / weekly, self.EF_MIN), self.EF_MAX)
        self.push(self._tick(now + interval), f)
        return self._alert(f, obs)


class CommaFeedPolicy(_HeapPolicy):
    name = "commafeed"
    INTERVAL = 300.0
    MAX = 4 * 3600.0

    def __init__(self, feeds: list[str], start: float) -> None:
        super().__init__(feeds, start)
        self.pub: dict[str, float | None] = {f: None for f in feeds}
        self.avg: dict[str, float | None] = {f: None for f in feeds}
        for fid in feeds:
            self.push(start, fid)

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        f = str(fid)
        now = obs.fetched_at
        pubs = sorted((i.published for i in obs.items if i.published is not None), reverse=True)
        if pubs:
            self.pub[f] = max(pubs[0], self.pub[f] or pubs[0])
            if len(pubs) >= 2:
                self.avg[f] = float(np.mean(np.abs(np.diff(pubs))))
        pub, avg = self.pub[f], self.avg[f]
        if pub is None:
            nxt = now + self.MAX
        else:
            d = math.floor((now - pub) / 86400.0)
            if d >= 30:
                nxt = now + self.MAX
            elif d >= 14:
                nxt = now + self.MAX / 2
            elif d >= 7:
                nxt = now + self.MAX / 4
            elif avg is not None:
                nxt = now + min(max(avg / 2, self.INTERVAL), self.MAX / 4)
            else:
                nxt = now + self.MAX
        nxt = min(max(nxt, now + self.INTERVAL), now + self.MAX)
        self.push(nxt, f)
        return self._alert(f, obs)
