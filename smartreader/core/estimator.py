"""Online estimate of a feed's publication rate λ(t) over the week.

The week is cut into 168 hourly slots (index 0 = Monday 00:00 UTC). Each fetch
covers the interval since the previous successful fetch; the items it saw are
counted in the slot of their published time when that time lies inside the
interval, and otherwise spread over the interval in proportion to the current
λ(t) (Horincar et al.: spreading counts over the observation interval). The
exposure (hours of each slot that were observed) is accumulated the same way, so
λ for a slot is counts / exposure.

Counts and exposure decay exponentially (``memory_s``) so drifting rates are
followed; an update is O(slots). The estimate is hierarchical with Gamma-Poisson
shrinkage: overall rate → hour-of-day profile → weekday factor → hour × weekday.
A new or sparse feed therefore starts flat at its overall rate and acquires
shape only as evidence accumulates; a feed that stops publishing decays toward
the prior floor.

A silence the estimate cannot explain is believed at once, without waiting for
the decay: when the fetches since the last item saw nothing where λ expected
more than ``SILENCE_ITEMS`` items (P(none) < 5e-5 for a Poisson process), λ is
scaled down until the silence is that plausible. The evidence is kept, so a feed
that resumes after a pause gets its old rate back with its first new item; one
that stopped stops drawing budget within days instead of the weeks the
``memory_s`` decay takes (a 6/day feed read 4/day after two silent weeks).

Bursts (many items in one slot in one fetch) are clipped for the *shape* so a
single merge of fifty commits does not pin the week's profile to that hour; the
overall rate still counts every item.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

HOUR = 3600.0
DAY = 86400.0
WEEK = 604800.0
NSLOTS = 168
MONDAY0 = 4 * DAY  # 1970-01-05 00:00 UTC was a Monday
# a silence λ expected more items than this in is believed (see the module doc)
SILENCE_ITEMS = 10.0


def slot_of(t: float) -> int:
    """Index (0..167) of the hour-of-week slot containing epoch time ``t``."""
    return int(((t - MONDAY0) % WEEK) // HOUR)


def _g(t: float) -> FloatArray:
    """Seconds of each slot elapsed since Monday 00:00 of week 0 (cumulative cover)."""
    u = t - MONDAY0
    weeks = math.floor(u / WEEK)
    rem = u - weeks * WEEK
    # = weeks·HOUR + clip(rem − slot start, 0, HOUR), without np.clip's overhead
    k = min(int(rem // HOUR), NSLOTS - 1)
    out = np.full(NSLOTS, weeks * HOUR)
    out[:k] += HOUR
    out[k] += rem - k * HOUR
    return out


def week_cover(a: float, b: float) -> FloatArray:
    """Seconds of each hour-of-week slot inside the interval (a, b]."""
    if b <= a:
        return np.zeros(NSLOTS)
    return _g(b) - _g(a)


def integrate(lam_per_hour: FloatArray, a: float, b: float) -> float:
    """Expected number of items in (a, b] under an hourly λ (items/hour)."""
    return float(week_cover(a, b) @ lam_per_hour) / HOUR


class RateEstimator:
    """Per-feed online λ(t) estimate; small and JSON-serialisable."""

    __slots__ = (
        "_base_cache",
        "_lam_cache",
        "_rate_cache",
        "counts",
        "expo",
        "frozen",
        "last_item_t",
        "last_t",
        "memory_s",
        "prior_rate_per_day",
        "total_count",
        "total_expo",
    )

    def __init__(self, memory_s: float = 5 * WEEK, prior_rate_per_day: float = 1.0) -> None:
        self.memory_s = memory_s
        self.prior_rate_per_day = prior_rate_per_day
        self.counts = np.zeros(NSLOTS)  # burst-clipped counts (shape)
        self.expo = np.zeros(NSLOTS)  # observed seconds per slot
        self.total_count = 0.0  # unclipped count (rate)
        self.total_expo = 0.0  # seconds observed
        self.last_t: float | None = None
        # when the latest item was seen (its published time when inside its
        # interval, else the fetch that saw it); None: none yet
        self.last_item_t: float | None = None
        self.frozen = False
        # λ from the evidence (changes with each observed interval), and λ with
        # the silence rule applied (also changes as the silence grows)
        self._base_cache: FloatArray | None = None
        self._lam_cache: FloatArray | None = None
        self._rate_cache = 0.0  # lambda_week()'s mean, computed with it

    # ------------------------------------------------------------------ update
    def _decay_to(self, t: float) -> None:
        if self.last_t is not None and t > self.last_t:
            f = math.exp(-(t - self.last_t) / self.memory_s)
            self.counts *= f
            self.expo *= f
            self.total_count *= f
            self.total_expo *= f
        if self.last_t is None or t > self.last_t:
            self.last_t = t
            # λ now counts the time to t as silent, also where observe_interval
            # spreads and clips the items that end it (a burst after a long
            # silence pins the shape less); the evidence part is kept, only the
            # silence factor is worked out again
            self._lam_cache = None

    def observe_interval(
        self,
        a: float,
        b: float,
        published: list[float],
        unplaced: float = 0.0,
        extra: float = 0.0,
        extra_to: float | None = None,
    ) -> None:
        """Record that (a, b] was observed and showed these items.

        ``published``: published times of the new items; those outside (a, b] are
        spread like ``unplaced`` (a count of items without a usable time).
        ``extra``: an estimated count of missed items, spread over (a, extra_to].
        """
        if self.frozen or b <= a:
            if not self.frozen:
                self._decay_to(b)
            return
        self._decay_to(b)
        cover = week_cover(a, b)
        lam = self.lambda_week()
        inside = [p for p in published if a < p <= b]
        unplaced += len(published) - len(inside)
        add = np.zeros(NSLOTS)
        if inside:
            idx = ((np.asarray(inside) - MONDAY0) % WEEK // HOUR).astype(np.int64)
            add += np.bincount(idx, minlength=NSLOTS)
        floor = 0.05 * float(lam.sum()) / NSLOTS
        spread_w = cover * (lam + floor)
        tot_w = spread_w.sum()
        if unplaced > 0 and tot_w > 0:
            add += unplaced * spread_w / tot_w
        if extra > 0:
            eto = b if extra_to is None else min(max(extra_to, a), b)
            ew = week_cover(a, eto) * (lam + floor)
            if ew.sum() <= 0:
                ew = spread_w
            if ew.sum() > 0:
                add += extra * ew / ew.sum()
        n_all = float(add.sum())
        if inside or unplaced > 0 or extra > 0:
            # undated items and missed ones could be as late as the fetch itself
            last = b if unplaced > 0 or extra > 0 else max(inside)
            self.last_item_t = max(self.last_item_t or -math.inf, last)
        # burst clipping for the shape: at most 2 + 2× the expected count per slot
        expected = cover * lam / HOUR
        clipped = np.minimum(add, 2.0 + 2.0 * expected)
        self.counts += clipped
        self.expo += cover
        self.total_count += n_all
        self.total_expo += b - a
        self._base_cache = self._lam_cache = None

    # ---------------------------------------------------------------- estimate
    def silence_factor(self) -> float:
        """How far a silence λ cannot explain has lowered λ (1.0: not at all)."""
        ev = self._evidence_rate_per_hour()
        return min(1.0, self.rate_per_hour() / ev) if ev > 0 else 1.0

    def _evidence_rate_per_hour(self) -> float:
        a0 = 0.5
        prior = self.prior_rate_per_day / 24.0
        return (self.total_count + a0) / (self.total_expo / HOUR + a0 / prior)

    def rate_per_hour(self) -> float:
        """The overall rate (items/hour): the evidence's, lowered by a silence it
        cannot explain (equal to ``lambda_week().sum() / 168``)."""
        self.lambda_week()
        return self._rate_cache

    def rate_per_day(self) -> float:
        return self.rate_per_hour() * 24.0

    def lambda_week(self) -> FloatArray:
        """168 hourly rates (items/hour), always > 0."""
        if self._lam_cache is not None:
            return self._lam_cache
        base = self._base_cache
        if base is None:
            base = self._base_cache = self._evidence_lambda()
        out = base
        lt, li = self.last_t, self.last_item_t
        # (the bound by the peak rate skips the integral for all but long silences)
        if lt is not None and li is not None and (lt - li) / HOUR * base.max() > SILENCE_ITEMS:
            m = integrate(base, li, lt)
            if m > SILENCE_ITEMS:
                out = base * (SILENCE_ITEMS / m)
        self._lam_cache = out
        self._rate_cache = float(out.sum()) / NSLOTS
        return out

    def _evidence_lambda(self) -> FloatArray:
        r = self._evidence_rate_per_hour()
        c = self.counts.reshape(7, 24)
        e = self.expo.reshape(7, 24) / HOUR
        # hour-of-day profile
        a_h = 1.0
        lam_h = (c.sum(0) + a_h) / (e.sum(0) + a_h / r)
        # weekday factor relative to the hour profile
        a_d = 2.0
        m_d = (e * lam_h[None, :]).sum(1)
        f_d = (c.sum(1) + a_d) / (m_d + a_d)
        prior = lam_h[None, :] * f_d[:, None]
        b = 2.0
        lam = (c + b) / (e + b / prior)
        flat = lam.reshape(NSLOTS)
        flat = np.maximum(flat, 0.02 * r)
        # shape from clipped counts, level from the unclipped overall rate
        out: FloatArray = np.asarray(flat * (r * NSLOTS / float(flat.sum())), dtype=np.float64)
        return out

    def periodicity(self) -> float:
        """Total-variation distance of the weekly shape from flat: 0 flat … →1 peaked,
        discounted by how much evidence there is."""
        lam = self.lambda_week()
        p = lam / lam.sum()
        tv = 0.5 * float(np.abs(p - 1.0 / NSLOTS).sum())
        n = self.total_count
        return tv * n / (n + 20.0)

    def observed_week(self) -> FloatArray:
        return self.counts.copy()

    # ----------------------------------------------------------- persistence
    def to_dict(self) -> dict[str, Any]:
        return {
            "v": 1,
            "memory_s": self.memory_s,
            "prior": self.prior_rate_per_day,
            "counts": [round(float(x), 5) for x in self.counts],
            "expo": [round(float(x), 2) for x in self.expo],
            "total_count": self.total_count,
            "total_expo": self.total_expo,
            "last_t": self.last_t,
            "last_item_t": self.last_item_t,
            "frozen": self.frozen,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RateEstimator:
        """The inverse of :meth:`to_dict`; ValueError/TypeError on a malformed dict."""
        memory, prior = float(d.get("memory_s", 5 * WEEK)), float(d.get("prior", 1.0))
        if not (math.isfinite(memory) and memory > 0 and math.isfinite(prior) and prior >= 0):
            raise ValueError("estimator state out of range")
        est = cls(memory, prior)
        counts = np.asarray(d.get("counts", [0.0] * NSLOTS), dtype=np.float64)
        expo = np.asarray(d.get("expo", [0.0] * NSLOTS), dtype=np.float64)
        if not (np.isfinite(counts).all() and np.isfinite(expo).all()):
            raise ValueError("estimator state is not finite")
        if counts.shape == (NSLOTS,) and expo.shape == (NSLOTS,):
            est.counts = np.maximum(counts, 0.0)
            est.expo = np.maximum(expo, 0.0)
        est.total_count = max(0.0, float(d.get("total_count", 0.0)))
        est.total_expo = max(0.0, float(d.get("total_expo", 0.0)))
        lt = d.get("last_t")
        est.last_t = None if lt is None else float(lt)
        li = d.get("last_item_t")  # absent in states saved before it existed
        est.last_item_t = None if li is None else float(li)
        finite = (est.total_count, est.total_expo, est.last_t or 0.0, est.last_item_t or 0.0)
        if not all(math.isfinite(x) for x in finite):
            raise ValueError("estimator state is not finite")
        est.frozen = bool(d.get("frozen", False))
        return est

    @classmethod
    def from_lambda(cls, lam_per_hour: FloatArray, weeks: float = 10.0) -> RateEstimator:
        """An estimator whose evidence is ``weeks`` of a known λ (for oracles/tests)."""
        est = cls()
        est.expo = np.full(NSLOTS, weeks * HOUR)
        est.counts = np.asarray(lam_per_hour, dtype=np.float64) * weeks
        est.total_count = float(est.counts.sum())
        est.total_expo = weeks * WEEK
        return est


def novel_lambda(all_items: RateEstimator, novel: RateEstimator, k: float = 0.0) -> FloatArray:
    """λ(t) of novel items as λ_all(t) × the novel share by hour of day.

    The novel estimator sees fewer items than the all-items one over the same
    fetches, so its own λ(t) is noisier; where novelty has no time pattern of its
    own, placing fetches by it only adds noise. Here the shape comes from all items
    and the novel share from the novel counts: the overall share (from the two
    rates), modulated by the share by hour of day, shrunk toward the overall share.

    ``k`` ≤ 0 (default): the shrinkage follows the evidence (positive-part
    James–Stein): the hourly deviations are kept in the proportion 1 − df/X², X²
    the binomial chi-square of the novel counts against the overall share over the
    df + 1 observed hours. A feed whose novelty has no hour pattern (X² ≈ df) keeps
    λ_all's shape; one whose novelty differs by day and night, or whose reposts
    come at 03:00, gets its shares moved. Chosen over the fixed shrinkage and over
    hour-by-hour thresholds by accuracy on synthetic feeds with known novel λ(t)
    (``benchmarks/novel_share.py``).
    ``k`` > 0: a fixed shrinkage with the weight of ``k`` items per hour.
    """
    lam = all_items.lambda_week()
    share = min(1.0, novel.rate_per_hour() / all_items.rate_per_hour())
    ca = all_items.counts.reshape(7, 24).sum(0)
    cn = np.minimum(novel.counts.reshape(7, 24).sum(0), ca)
    tot_a = float(ca.sum())
    if tot_a <= 0.0:
        return np.asarray(lam * share, dtype=np.float64)
    rho = float(cn.sum()) / tot_a
    if rho <= 0.0 or rho >= 1.0:
        return np.asarray(lam * share, dtype=np.float64)
    if k > 0.0:
        rel24 = (cn + k * rho) / (ca + k)
    else:
        seen = ca > 0
        dev = cn[seen] / ca[seen] - rho
        x2 = float((dev * dev * ca[seen]).sum()) / (rho * (1.0 - rho))
        df = max(1, int(seen.sum()) - 1)
        keep = max(0.0, 1.0 - df / x2) if x2 > 0.0 else 0.0
        rel24 = np.full(24, rho)
        rel24[seen] = rho + keep * dev
    rel = np.tile(rel24, 7)  # share by hour of day
    out = lam * rel
    tot = float(out.sum())
    if tot <= 0.0:
        return np.asarray(lam * share, dtype=np.float64)
    # the level is the overall novel rate; rel only moves it between hours
    return np.asarray(out * (share * float(lam.sum()) / tot), dtype=np.float64)
