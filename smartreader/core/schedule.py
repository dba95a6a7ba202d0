"""Optimal placement of n fetches over one week for a periodic rate λ(t).

Delay cost (Sia & Cho 2007): items published in (t_{j-1}, t_j] wait until t_j, so
D = Σ_j ∫_{t_{j-1}}^{t_j} λ(s)(t_j − s) ds. Theorem 3: at the optimum every fetch
balances λ(t_j)(t_{j+1} − t_j) = ∫_{t_{j-1}}^{t_j} λ. We solve it by iterative
coordinate refinement on a fine grid: given its neighbours a < t < b, a fetch's
part of the cost is (t − b)·Λ(t) − t·Λ(a) + const (Λ = cumulative λ), so each
fetch moves to the exact grid minimum between its neighbours; fetches of one
parity are independent and move together (vectorised). Start: quantiles of
∫√λ — the asymptotically optimal fetch density ∝ √λ. Exhaustive search is
only used for n = 1 (it is exact there); `benchmarks` compares both.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from smartreader.core.estimator import HOUR, NSLOTS, WEEK

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DEFAULT_BINS = 2016  # 5-minute grid


def _grid_mass(lam168: FloatArray, bins: int) -> FloatArray:
    per = bins // NSLOTS
    return np.repeat(np.asarray(lam168, dtype=np.float64) / per, per)  # items per bin


def _seg_cost(cum: FloatArray, mcum: FloatArray, a: IntArray, b: IntArray, g: int) -> FloatArray:
    """Σ over (a, b] of mass·(b − s) with unwrapped integer grid positions."""

    def lam_at(x: IntArray) -> FloatArray:
        q, r = np.divmod(x, g)
        out: FloatArray = q * cum[-1] + cum[r]
        return out

    def m_at(x: IntArray) -> FloatArray:
        q, r = np.divmod(x, g)
        # Σ s·mass over [0, x): full weeks shift s by q·g
        full = q * mcum[-1] + (q * (q - 1) / 2.0) * g * cum[-1]
        out: FloatArray = full + mcum[r] + q * g * cum[r]
        return out

    return b * (lam_at(b) - lam_at(a)) - (m_at(b) - m_at(a))


class _Tables:
    """Λ(x) and Σ s·mass over [0, x) tabulated for unwrapped x in [−2g, 3g): the
    refinement then indexes instead of wrapping (positions stay within a week of
    their neighbours, so they never leave this range)."""

    def __init__(self, cum: FloatArray, mcum: FloatArray, g: int) -> None:
        x = np.arange(-2 * g, 3 * g + 1, dtype=np.int64)
        q, r = np.divmod(x, g)
        self.off = 2 * g
        self.lam: FloatArray = q * cum[-1] + cum[r]
        self.m: FloatArray = q * mcum[-1] + (q * (q - 1) / 2.0) * g * cum[-1] + mcum[r]
        self.m += q * g * cum[r]

    def pair_cost(self, a: IntArray, t: IntArray, b: IntArray) -> FloatArray:
        """_seg_cost(a, t) + _seg_cost(t, b); the Σ s·mass terms at t cancel."""
        la, lt, lb = self.lam[a + self.off], self.lam[t + self.off], self.lam[b + self.off]
        out: FloatArray = t * (lt - la) + b * (lb - lt) + self.m[a + self.off]
        out -= self.m[b + self.off]
        return out


def _prefix(mass: FloatArray) -> tuple[FloatArray, FloatArray]:
    g = mass.size
    # item mass of bin i is treated as published at its centre i + 0.5
    cum = np.concatenate(([0.0], np.cumsum(mass)))
    pos = np.arange(g, dtype=np.float64) + 0.5
    mcum = np.concatenate(([0.0], np.cumsum(mass * pos)))
    return cum, mcum


def _gaps_ok(pos: IntArray, mg: int, g: int) -> bool:
    """Sorted grid positions keep at least ``mg`` bins apart, around the week too."""
    if pos.size <= 1:
        return True
    d = np.diff(np.concatenate((pos, [pos[0] + g])))
    return bool((d >= mg).all())


def place(
    lam168: FloatArray,
    n: int,
    *,
    bins: int = DEFAULT_BINS,
    min_gap_s: float = 0.0,
    sweeps: int = 40,
    init: FloatArray | None = None,
) -> FloatArray:
    """Return n sorted fetch offsets (seconds from Monday 00:00) minimising delay."""
    g = bins
    step = WEEK / g
    n = int(max(1, min(n, g)))
    mg = max(1, int(np.ceil(min_gap_s / step - 1e-9)))
    n = min(n, max(1, g // mg))
    mass = _grid_mass(lam168, g)
    cum, mcum = _prefix(mass)
    if n == 1:
        t = np.arange(g, dtype=np.int64)
        cost = _seg_cost(cum, mcum, t - g, t, g)
        return np.array([float(np.argmin(cost)) * step])
    if init is not None and init.size == n:
        pos = np.unique(np.round(np.asarray(init) / step).astype(np.int64) % g)
    else:
        sq = np.sqrt(np.maximum(mass, 0.0))
        c = np.concatenate(([0.0], np.cumsum(sq)))
        targets = (np.arange(n) + 1.0) / n * c[-1]
        pos = np.searchsorted(c, targets, side="left").astype(np.int64) % g
        pos = np.unique(pos)
    pos = np.sort(pos)
    if pos.size < n or not _gaps_ok(pos, mg, g):
        # collisions or gaps below the minimum: start from an even spread instead
        first = int(pos[0]) if pos.size else 0
        pos = np.sort((first + (np.arange(n) * g) // n) % g).astype(np.int64)
    n = pos.size
    idx = np.arange(n)
    groups = [idx[(idx % 2 == 0) & (idx < n - 1)], idx[idx % 2 == 1]]
    if n % 2 == 1:
        groups.append(np.array([n - 1]))
    else:
        groups[0] = idx[idx % 2 == 0]
    tables = _Tables(cum, mcum, g)
    for _ in range(sweeps):
        moved = False
        for grp in groups:
            if grp.size == 0:
                continue
            prev = np.where(grp > 0, pos[grp - 1], pos[(grp - 1) % n] - g)
            nxt = np.where(grp < n - 1, pos[(grp + 1) % n], pos[(grp + 1) % n] + g)
            lo = prev + mg
            hi = nxt - mg
            lens = np.maximum(hi - lo + 1, 0)
            ok = lens > 0
            if not ok.any():
                continue
            grp_ok, lo_ok, nxt_ok, prev_ok, lens_ok = grp[ok], lo[ok], nxt[ok], prev[ok], lens[ok]
            seg = np.repeat(np.arange(grp_ok.size), lens_ok)
            starts = np.concatenate(([0], np.cumsum(lens_ok)[:-1]))
            t = lo_ok[seg] + (np.arange(seg.size) - starts[seg])
            cost = tables.pair_cost(prev_ok[seg], t, nxt_ok[seg])
            # first minimum of each fetch's candidate range
            mins = np.minimum.reduceat(cost, starts)
            hit = np.flatnonzero(cost <= mins[seg])
            _, first_hit = np.unique(seg[hit], return_index=True)
            best = t[hit[first_hit]]
            # positions stay unwrapped within a sweep so every fetch keeps its
            # circular neighbours (pos[0] may go below 0, pos[-1] past g)
            if np.any(best != pos[grp_ok]):
                moved = True
                pos[grp_ok] = best
        pos = np.sort(pos % g)
        if not moved:
            break
    return pos.astype(np.float64) * step


def expected_delay(lam168: FloatArray, offsets: FloatArray, bins: int = DEFAULT_BINS) -> float:
    """Mean delay (seconds) of an item under fetches at the given weekly offsets."""
    g = bins
    step = WEEK / g
    mass = _grid_mass(lam168, g)
    tot = float(mass.sum())
    if tot <= 0 or len(offsets) == 0:
        return 0.0
    cum, mcum = _prefix(mass)
    pos = np.sort(np.round(np.asarray(offsets) / step).astype(np.int64) % g)
    prev = np.concatenate(([pos[-1] - g], pos[:-1]))
    c = float(_seg_cost(cum, mcum, prev, pos, g).sum())
    return c / tot * step


def fixed_delay(interval_s: float) -> float:
    """Mean delay of a fixed interval for Poisson arrivals: half the interval."""
    return interval_s / 2.0


def sqrt_shape_factor(lam168: FloatArray) -> float:
    """(mean √λ)² / mean λ ∈ (0, 1]: delay of the √λ-density schedule relative to
    a uniform one with the same number of fetches (asymptotically)."""
    lam = np.maximum(np.asarray(lam168, dtype=np.float64), 0.0)
    m = float(lam.mean())
    if m <= 0:
        return 1.0
    return float(np.sqrt(lam).mean() ** 2 / m)


__all__ = ["HOUR", "expected_delay", "fixed_delay", "place", "sqrt_shape_factor"]
