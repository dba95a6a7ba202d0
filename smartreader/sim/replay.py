"""Replay a posting-time trace against a polling policy and measure it.

    python -m smartreader.sim.replay TRACE.csv --feeds FEEDS.csv \
        (--budget N | --interval-hours H) --policy P [--warmup-days 14] \
        [--fetch-log OUT.csv] [--json]

World and metrics follow ``shared/traces/README.md``: every policy starts cold at
the start of the trace; delay, missed, fetches/day and alerts are measured over
items/fetches after the warm-up. ``--interval-hours H`` means a budget of
feeds × 24 / H fetches/day.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from smartreader.core.estimator import HOUR, MONDAY0, NSLOTS, WEEK
from smartreader.core.scheduler import SchedulerConfig
from smartreader.sim.policies import (
    POLICIES,
    CommaFeedPolicy,
    FixedPolicy,
    MinifluxPolicy,
    Policy,
    SchedulerPolicy,
)
from smartreader.sim.world import FloatArray, World

DAY = 86400.0


@dataclass(frozen=True)
class ReplayResult:
    policy: str
    feeds: int
    items: int
    budget_per_day: float
    fetches_per_day: float
    mean_delay_min: float
    median_delay_min: float
    p95_delay_min: float
    missed: int
    alerts: int
    alerts_correct: int
    fetches_with_missed: int
    wall_s: float = 0.0

    @property
    def precision(self) -> float:
        return self.alerts_correct / self.alerts if self.alerts else 1.0

    @property
    def recall(self) -> float:
        return self.alerts_correct / self.fetches_with_missed if self.fetches_with_missed else 1.0

    def as_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("wall_s")
        return d


def trace_span(trace: dict[str, FloatArray], start: float | None = None) -> tuple[float, float]:
    """The replayed span: from ``start`` (default: the first item's midnight) to
    whole days past the last item."""
    all_t = np.concatenate([a for a in trace.values() if a.size]) if trace else np.zeros(1)
    if start is None:
        start = float(np.floor(all_t.min() / DAY) * DAY)
    return start, start + float(np.ceil((all_t.max() - start) / DAY)) * DAY


def true_lambdas(trace: dict[str, FloatArray], t0: float, t1: float) -> dict[str, FloatArray]:
    """Hour×weekday λ (items/hour) measured over [t0, t1)."""
    weeks = (t1 - t0) / WEEK
    out = {}
    for fid, arr in trace.items():
        a = arr[(arr >= t0) & (arr < t1)]
        idx = ((a - MONDAY0) % WEEK // HOUR).astype(np.int64)
        out[fid] = np.bincount(idx, minlength=NSLOTS).astype(np.float64) / weeks
    return out


def make_policy(
    name: str,
    trace: dict[str, FloatArray],
    budget: float,
    start: float,
    measure_from: float,
    end: float,
    config: SchedulerConfig | None = None,
    oracle_lambdas: dict[str, FloatArray] | None = None,
) -> Policy:
    """``oracle_lambdas``: what ``oracle`` knows instead of the λ measured over
    [measure_from, end) (e.g. a synthetic trace's generating λ)."""
    feeds = sorted(trace)
    if name == "smart":
        return SchedulerPolicy("smart", feeds, budget, start, config=config)
    if name == "sia-offline":
        return SchedulerPolicy(
            "sia-offline", feeds, budget, start, freeze_at=measure_from, config=config
        )
    if name == "oracle":
        lams = (
            oracle_lambdas if oracle_lambdas is not None else true_lambdas(trace, measure_from, end)
        )
        return SchedulerPolicy("oracle", feeds, budget, start, lambdas=lams, config=config)
    if name.startswith("smart-"):  # diagnostics: smart with other knowledge (sim/limits.py)
        from smartreader.sim.limits import InformationPolicy

        return InformationPolicy(name.removeprefix("smart-"), trace, budget, start, config)
    if name == "fixed":
        return FixedPolicy(feeds, start, budget)
    if name == "miniflux":
        return MinifluxPolicy(feeds, start)
    if name == "commafeed":
        return CommaFeedPolicy(feeds, start)
    raise ValueError(f"unknown policy {name!r}; choose from {', '.join(POLICIES)}")


def replay(
    trace: dict[str, FloatArray],
    capacities: dict[str, int],
    policy_name: str,
    budget: float,
    *,
    warmup_days: float = 14.0,
    start: float | None = None,
    end: float | None = None,
    fetch_log: list[tuple[str, float, int, float]] | None = None,
    config: SchedulerConfig | None = None,
    oracle_lambdas: dict[str, FloatArray] | None = None,
    outcomes: list[tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]] | None = None,
) -> ReplayResult:
    import time as _time

    wall0 = _time.perf_counter()
    start, default_end = trace_span(trace, start)
    if end is None:
        end = default_end
    measure_from = start + warmup_days * DAY
    world = World(trace, capacities)
    policy = make_policy(
        policy_name, trace, budget, start, measure_from, end, config, oracle_lambdas
    )
    now = start
    fetches = 0
    alerts = 0
    correct = 0
    truth_pos = 0
    while True:
        t = policy.next_wakeup()
        if t is None or t >= end:  # the measured span is [measure_from, end)
            break
        now = max(now, t)
        batch = policy.due(now)
        if not batch:
            now += 1.0
            continue
        for fid in batch:
            obs, truth = world.fetch(str(fid), now)
            alert, est = policy.observe(fid, obs)
            if now >= measure_from:
                fetches += 1
                if alert:
                    alerts += 1
                    correct += truth.missed_truth > 0
                truth_pos += truth.missed_truth > 0
            if fetch_log is not None:
                fetch_log.append((str(fid), now, truth.new_items, est if alert else 0.0))
    arr, delay, missed = world.item_outcomes(end)
    if outcomes is not None:  # per-item (arrival, delay, missed), for time-resolved reports
        outcomes.append((arr, delay, missed))
    span = (arr >= measure_from) & (arr <= end)
    d = delay[span]
    d = d[~np.isnan(d)] / 60.0
    days = (end - measure_from) / DAY
    return ReplayResult(
        policy=policy_name,
        feeds=len(trace),
        items=int(span.sum()),
        budget_per_day=float(budget),
        fetches_per_day=fetches / days if days > 0 else 0.0,
        mean_delay_min=float(d.mean()) if d.size else 0.0,
        median_delay_min=float(np.median(d)) if d.size else 0.0,
        p95_delay_min=float(np.percentile(d, 95)) if d.size else 0.0,
        missed=int(missed[span].sum()),
        alerts=alerts,
        alerts_correct=int(correct),
        fetches_with_missed=int(truth_pos),
        wall_s=_time.perf_counter() - wall0,
    )


def main(argv: Sequence[str] | None = None) -> int:
    from smartreader.sim.cli import main as cli_main

    return cli_main(list(argv) if argv is not None else None)


if __name__ == "__main__":
    sys.exit(main())
