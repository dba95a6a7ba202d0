"""How much better could ``smart`` do if it knew more? (a replay diagnostic)

:class:`InformationPolicy` is the app's :class:`Scheduler`, unchanged, whose λ(t)
estimates are replaced at every midnight (UTC) by estimators of the same class
and settings fed from a chosen source:

* ``seen``: the items its own fetches returned and the items it judged missed
  (what ``smart`` learns from) — the control for the daily replacement itself;
* ``all``: every item published up to the feed's last fetch, including those that
  scrolled out of the window unseen — perfect observation of the past, as if the
  window were unbounded;
* ``peek``: every item published up to now — ``all`` plus items no fetch has
  returned yet. A scheduler cannot know these; the row shows how much a "past
  oracle" that forgets this leaks (a post learned at midnight moves the plan
  to fetch right after it, before any fetch could have seen it).

``all`` bounds what a better estimator can gain from the information polling
yields; the gap from there to ``oracle`` (λ over the measured span) is the
future not being like the past, and the plans and the 24 h cap.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Hashable

import numpy as np

from smartreader.core.estimator import DAY, RateEstimator
from smartreader.core.models import FetchObservation
from smartreader.core.scheduler import SchedulerConfig
from smartreader.sim.policies import SchedulerPolicy
from smartreader.sim.world import FloatArray

SOURCES = ("seen", "all", "peek")


class InformationPolicy(SchedulerPolicy):
    def __init__(
        self,
        source: str,
        trace: dict[str, FloatArray],
        budget: float,
        start: float,
        config: SchedulerConfig | None = None,
    ) -> None:
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}; choose from {', '.join(SOURCES)}")
        super().__init__(f"smart-{source}", sorted(trace), budget, start, config=config)
        cfg = self.sched.config
        self.source = source
        self.trace = trace
        self.start = start
        self.ests = {f: RateEstimator(cfg.memory_s, cfg.prior_rate_per_day) for f in trace}
        self.fed_to = dict.fromkeys(trace, start)  # items up to here are in ests
        self.last_ok: dict[str, float] = {}
        self.next_refresh = -math.inf

    def _feed_trace(self, fid: str, upto: float) -> None:
        a = self.fed_to[fid]
        if upto <= a:
            return
        arr = self.trace[fid]
        pubs = arr[(arr > a) & (arr <= upto)]
        self.ests[fid].observe_interval(a, upto, pubs.tolist())
        self.fed_to[fid] = upto

    def refresh(self, now: float) -> None:
        """Hand the scheduler frozen copies of the estimators, fed up to what the
        source allows at ``now``."""
        for fid, est in self.ests.items():
            if self.source == "peek":
                self._feed_trace(fid, now)
            elif self.source == "all" and fid in self.last_ok:
                self._feed_trace(fid, self.last_ok[fid])
            frozen = copy.deepcopy(est)
            frozen.frozen = True
            self.sched.set_estimator(fid, frozen)
        self.sched.replan(now)

    def due(self, now: float) -> list[Hashable]:
        if now >= self.next_refresh:
            self.refresh(now)
            self.next_refresh = (np.floor(now / DAY) + 1.0) * DAY
        return self.sched.due(now)

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        f = str(fid)
        v = self.sched.observe(fid, obs)
        if obs.status == "ok":
            if self.source == "seen":
                # what the scheduler's own estimator learns: the new items, and the
                # items it judged missed (spread as it spreads them)
                prev = self.last_ok.get(f, self.start)
                pubs = [i.published for i in obs.items if i.is_new and i.published is not None]
                extra = v.missed_estimate if v.missed_alert else 0.0
                self.ests[f].observe_interval(
                    prev, obs.fetched_at, pubs, extra=extra, extra_to=v.missed_to
                )
            self.last_ok[f] = obs.fetched_at
        return v.missed_alert, v.missed_estimate
