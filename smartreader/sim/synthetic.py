"""Synthetic posting traces for scaling runs.

Each feed is a periodic Poisson process over the week with
- a rate drawn from a power law (Sia & Cho 2007, Fig. 7: few feeds post a lot,
  most post little), clipped to [0.05, 200] items/day;
- a shape (Horincar et al., Fig. 6 mixes): ``flat``, ``daily`` (one peak a day),
  ``office`` (weekday business hours), ``twice`` (two peaks a day), ``weekly``
  (one busy weekday);
- optionally bursty arrivals (clusters of items at the same second, like merged
  commit series).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from smartreader.core.estimator import DAY, HOUR, MONDAY0, NSLOTS, WEEK

FloatArray = npt.NDArray[np.float64]
SHAPES = ("flat", "daily", "office", "twice", "weekly")


def shape_profile(kind: str, rng: np.random.Generator) -> FloatArray:
    h = np.arange(NSLOTS) % 24
    d = np.arange(NSLOTS) // 24
    if kind == "flat":
        p = np.ones(NSLOTS)
    elif kind == "daily":
        peak = rng.uniform(0, 24)
        width = rng.uniform(2, 6)
        dist = np.minimum(np.abs(h - peak), 24 - np.abs(h - peak))
        p = 0.05 + np.exp(-0.5 * (dist / width) ** 2)
    elif kind == "office":
        start = rng.integers(6, 11)
        p = np.where((h >= start) & (h < start + 9) & (d < 5), 1.0, 0.04)
    elif kind == "twice":
        a, b = rng.uniform(0, 12), rng.uniform(12, 24)
        da = np.minimum(np.abs(h - a), 24 - np.abs(h - a))
        db = np.minimum(np.abs(h - b), 24 - np.abs(h - b))
        p = 0.05 + np.exp(-0.5 * (da / 2) ** 2) + 0.6 * np.exp(-0.5 * (db / 2) ** 2)
    else:  # weekly
        day = rng.integers(0, 7)
        p = np.where(d == day, 1.0, 0.08) * (0.3 + (np.abs(h - 14) < 5))
    return p / p.sum()


def generate(
    n_feeds: int,
    weeks: int = 12,
    *,
    seed: int = 0,
    start: float = MONDAY0 + 2926 * WEEK,
) -> tuple[dict[str, FloatArray], dict[str, int]]:
    """Return (trace, capacities) like the loaders in :mod:`smartreader.sim.world`."""
    trace, caps, _lams = generate_with_lambdas(n_feeds, weeks, seed=seed, start=start)
    return trace, caps


def generate_with_lambdas(
    n_feeds: int,
    weeks: int = 12,
    *,
    seed: int = 0,
    start: float = MONDAY0 + 2926 * WEEK,
) -> tuple[dict[str, FloatArray], dict[str, int], dict[str, FloatArray]]:
    """:func:`generate` plus each feed's generating λ: expected items per hour in
    each of the week's 168 hours (what ``replay.true_lambdas`` would measure
    over infinitely many weeks)."""
    rng = np.random.default_rng(seed)
    rates = np.clip(0.3 * (rng.pareto(1.2, n_feeds) + 1.0) ** 1.3, 0.05, 200.0)
    trace: dict[str, FloatArray] = {}
    caps: dict[str, int] = {}
    lams: dict[str, FloatArray] = {}
    for i in range(n_feeds):
        kind = SHAPES[int(rng.integers(0, len(SHAPES)))]
        bursty = rng.random() < 0.3
        prof = shape_profile(kind, rng)
        mean_burst = 4.0 if bursty else 1.0
        lam_events = prof * rates[i] * 7.0 / mean_burst  # events per slot per week
        counts = rng.poisson(np.tile(lam_events, weeks))
        slots = np.repeat(np.arange(weeks * NSLOTS), counts)
        t = start + slots * HOUR + rng.uniform(0, HOUR, slots.size)
        if bursty and t.size:
            sizes = rng.geometric(1.0 / mean_burst, t.size)
            t = np.repeat(np.floor(t), sizes)
        trace[f"syn{i:05d}"] = np.sort(t)
        caps[f"syn{i:05d}"] = int(rng.choice([10, 20, 20, 20, 50]))
        lams[f"syn{i:05d}"] = prof * rates[i] * 7.0  # a slot is one hour a week
    return trace, caps, lams


def eu_summer_time(t: FloatArray) -> npt.NDArray[np.bool_]:
    """Whether the EU's summer time is in force at UTC instants ``t``: from the
    last Sunday of March to the last Sunday of October, 01:00 UTC both (the rule
    since 1996). Written out so the sim needs no time-zone database."""
    t = np.asarray(t, dtype=np.float64)
    years = (t // DAY).astype("datetime64[D]").astype("datetime64[Y]")

    def last_sunday_0100(month: int) -> FloatArray:
        # the month's last day: the day before the 1st of the next month
        first_next = years.astype("datetime64[M]") + np.timedelta64(month, "M")
        day = first_next.astype("datetime64[D]") - np.timedelta64(1, "D")
        # 1970-01-01 was a Thursday: weekday 3 with Monday = 0
        wd = (day.astype(np.int64) + 3) % 7
        sunday = day - ((wd - 6) % 7).astype("timedelta64[D]")
        at: FloatArray = sunday.astype(np.int64) * DAY + HOUR
        return at

    return (t >= last_sunday_0100(3)) & (t < last_sunday_0100(10))


def local_clock_trace(
    n_feeds: int,
    weeks: int = 12,
    *,
    seed: int = 0,
    start: float = MONDAY0 + 2926 * WEEK,
    standard_offset_s: float = HOUR,
    clock: str = "eu",
) -> tuple[dict[str, FloatArray], dict[str, int]]:
    """:func:`generate`'s feeds, but posting by a wall clock ``standard_offset_s``
    ahead of UTC: ``clock="eu"`` follows the EU's summer time, ``"standard"`` and
    ``"summer"`` never change (the controls). All three draw the same local posting
    times, so ``"eu"`` is identical to ``"standard"`` in winter and to ``"summer"``
    in summer, and an hour apart from it in UTC otherwise. Local times in the hour
    the clocks skip or repeat map to UTC by the offset after the change."""
    if clock not in ("eu", "standard", "summer"):
        raise ValueError(f"unknown clock {clock!r}")
    local, caps, _ = generate_with_lambdas(n_feeds, weeks, seed=seed, start=start)
    trace = {}
    for fid, tau in local.items():
        # the local profile starts at ``start`` local time whatever the clock
        t = tau - standard_offset_s
        if clock == "eu":
            t = t - HOUR * eu_summer_time(t)
        elif clock == "summer":
            t = t - HOUR
        trace[fid] = np.sort(t)
    return trace, caps
