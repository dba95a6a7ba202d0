"""How well `novel_lambda` recovers a feed's novel-item λ(t), by shrinkage rule.

    python benchmarks/novel_share.py [--seeds 20]

Synthetic feeds with a known novel λ(t) (so the truth is exact, unlike on a real
trace), observed through fetches 1–5 h apart by an all-items and a novel-items
estimator, as the scheduler does. For each rule the table gives the mean total
variation distance between the hour-of-day profile `novel_lambda` returns and the
true novel profile (0 = exact). Rules: the fixed shrinkage with k = 20 items per
hour (the default until 2026-11), the evidence-driven one (positive-part
James–Stein, the default now), hour-by-hour universal thresholds (a rule for
sparse patterns, tried), and none (λ_all's shape, novelty ignored in time).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smartreader.core.estimator import (
    DAY,
    HOUR,
    MONDAY0,
    NSLOTS,
    WEEK,
    FloatArray,
    RateEstimator,
    novel_lambda,
)

T0 = MONDAY0 + 2900 * WEEK


def peaked(peak_hour: float, width: float, per_day: float) -> FloatArray:
    h = np.arange(NSLOTS) % 24 + 0.5
    dist = np.minimum(np.abs(h - peak_hour), 24 - np.abs(h - peak_hour))
    p = 0.03 + np.exp(-0.5 * (dist / width) ** 2)
    out: FloatArray = p / p.sum() * per_day * 7.0
    return out


def arrivals(lam: FloatArray, weeks: int, rng: np.random.Generator) -> FloatArray:
    slots = np.repeat(np.arange(weeks * NSLOTS), rng.poisson(np.tile(lam, weeks)))
    out: FloatArray = np.sort(T0 + slots * HOUR + rng.uniform(0, HOUR, slots.size))
    return out


def scenario(name: str, rng: np.random.Generator) -> tuple[FloatArray, np.ndarray, FloatArray, int]:
    """(arrival times, novel mask, true novel λ, weeks)."""
    hour = np.arange(NSLOTS) % 24
    if name.startswith("no pattern"):
        per_day, weeks = (12.0, 8) if "busy" in name else (3.0, 4)
        lam = peaked(14.0, 2.0, per_day)
        arr = arrivals(lam, weeks, rng)
        return arr, rng.random(arr.size) < 0.4, 0.4 * lam, weeks
    if name.startswith("reposts"):
        lam, weeks = peaked(14.0, 4.0, 10.0), 8
        arr = arrivals(lam, weeks, rng)
        days = np.arange(weeks * 7)
        rep = (T0 + days * DAY + 3 * HOUR + rng.uniform(0, 1800, (2, days.size))).ravel()
        both = np.concatenate([arr, rep])
        nov = np.concatenate([rng.random(arr.size) < 0.5, np.zeros(rep.size, bool)])
        order = np.argsort(both)
        return both[order], nov[order], 0.5 * lam, weeks
    # novel 70 % by day (10–18 h), 20 % at night
    lam, weeks = peaked(14.0, 5.0, 12.0), 8
    arr = arrivals(lam, weeks, rng)
    h = (arr % DAY) // HOUR
    nov = rng.random(arr.size) < np.where((h >= 10) & (h < 18), 0.7, 0.2)
    return arr, nov, lam * np.where((hour >= 10) & (hour < 18), 0.7, 0.2), weeks


def observe(arr: FloatArray, nov: np.ndarray, weeks: int, rng: np.random.Generator):
    est, est_n = RateEstimator(), RateEstimator()
    t, end = T0, T0 + weeks * WEEK
    while t < end:
        nt = t + rng.uniform(1.0, 5.0) * HOUR
        sel = (arr > t) & (arr <= nt)
        est.observe_interval(t, nt, list(arr[sel]))
        est_n.observe_interval(t, nt, list(arr[sel & nov]))
        t = nt
    return est, est_n


def thresholds(all_items: RateEstimator, novel: RateEstimator) -> FloatArray:
    """Hour by hour: keep a deviation in the proportion 1 − T²/z², T² = 2 ln 24."""
    lam = all_items.lambda_week()
    share = min(1.0, novel.rate_per_hour() / all_items.rate_per_hour())
    ca = all_items.counts.reshape(7, 24).sum(0)
    cn = np.minimum(novel.counts.reshape(7, 24).sum(0), ca)
    rho = float(cn.sum() / ca.sum())
    seen = ca > 0
    dev = cn[seen] / ca[seen] - rho
    z2 = dev * dev * ca[seen] / (rho * (1 - rho))
    t2 = 2.0 * math.log(24.0)
    rel = np.full(24, rho)
    rel[seen] = rho + np.where(z2 > t2, 1 - t2 / np.maximum(z2, t2), 0.0) * dev
    out: FloatArray = lam * np.tile(rel, 7)
    return out * (share * lam.sum() / out.sum())


RULES: dict[str, Callable[[RateEstimator, RateEstimator], FloatArray]] = {
    "fixed k = 20": lambda a, n: novel_lambda(a, n, 20.0),
    "evidence (James–Stein)": lambda a, n: novel_lambda(a, n, 0.0),
    "hour thresholds": thresholds,
    "none (λ_all shape)": lambda a, n: novel_lambda(a, n, 1e12),
}
SCENARIOS = (
    "no pattern, busy (12/day, 8 weeks)",
    "no pattern, sparse (3/day, 4 weeks)",
    "reposts at 03:00 (2/day)",
    "day 70 % / night 20 % novel",
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    a = ap.parse_args()
    err: dict[tuple[str, str], list[float]] = {}
    for sc in SCENARIOS:
        for seed in range(a.seeds):
            rng = np.random.default_rng(1000 + seed)
            arr, nov, truth, weeks = scenario(sc, rng)
            est, est_n = observe(arr, nov, weeks, rng)
            p = truth.reshape(7, 24).mean(0)
            p = p / p.sum()
            for rule, fn in RULES.items():
                q = fn(est, est_n).reshape(7, 24).mean(0)
                q = q / q.sum()
                err.setdefault((sc, rule), []).append(0.5 * float(np.abs(q - p).sum()))
    print(f"Mean TV distance to the true novel hour profile ({a.seeds} seeds; lower is better)\n")
    print("| scenario | " + " | ".join(RULES) + " |")
    print("|---|" + "---:|" * len(RULES))
    for sc in SCENARIOS:
        cells = " | ".join(f"{np.mean(err[(sc, r)]):.3f}" for r in RULES)
        print(f"| {sc} | {cells} |")
    means = " | ".join(
        f"**{np.mean([np.mean(err[(s, r)]) for s in SCENARIOS]):.3f}**" for r in RULES
    )
    print(f"| mean | {means} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
