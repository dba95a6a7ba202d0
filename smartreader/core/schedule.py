"""Optimal placement of n fetches over one week for a periodic rate λ(t).

Delay cost (Sia & Cho 2007): items published in (t_{j-1}, t_j] wait until t_j, so
D = Σ_j ∫_{t_{j-1}}^{t_j} λ(s)(t_j − s) ds. Theorem 3: at the optimum every fetch
balances λ(t_j)(t_{j+1} − t_j) = ∫_{t_{j-1}}^{t_j} λ. We solve it by iterative
coordinate refinement on a fine grid: given its neighbours a < t < b, a fetch's
part of the cost is (t − b)·Λ(t) − t·Λ(a) + const (Λ = cumulative λ), so each
fetch moves to the exact grid minimum between its neighbours; fetches of one
parity are independent and move together (vectorised). Start: quantiles of
∫√λ — the asymptotically optimal fetch density ∝ √λ.

:func:`place_many` refines the patterns of many feeds in the same numpy calls
(identical results; the scheduler re-places its weekly refreshes that way).
``method="exhaustive"`` is an exact dynamic programme over the grid (pruned,
O(n·g²) per position of the earliest fetch): the benchmark compares both —
refinement is ~200× faster and usually, not always, optimal (it can stop in a
local minimum; ``starts`` > 1 tries shifted starts and keeps the best).
``per_day`` keeps the same number of fetches every weekday (for an
hour × weekday λ without piling requests onto busy weekdays).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from smartreader.core.estimator import HOUR, NSLOTS, WEEK

INF = float("inf")
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
        # five whole-week blocks q = −2..2 (x = q·g + r, r in [0, g)) and x = 3g
        tot, mtot = cum[-1], mcum[-1]
        q = np.arange(-2, 3, dtype=np.float64)[:, None]
        r_cum = cum[None, :-1]
        lam = q * tot + r_cum
        m = q * mtot + (q * (q - 1) / 2.0) * g * tot + mcum[None, :-1] + q * g * r_cum
        self.off = 2 * g
        self.lam: FloatArray = np.append(lam.ravel(), 3.0 * tot + cum[0])
        self.m: FloatArray = np.append(m.ravel(), 3.0 * mtot + 3.0 * g * tot + mcum[0])

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
    per_day: bool = False,
    starts: int = 1,
    method: str = "refine",
) -> FloatArray:
    """Return n sorted fetch offsets (seconds from Monday 00:00) minimising delay.

    ``method``: ``"refine"`` (default) — iterative coordinate refinement from the
    √λ quantiles (or ``init``); ``"exhaustive"`` — exact dynamic programming over
    the grid with pruning, O(g²·n) per anchor: only for small grids (the
    benchmark compares both on an hourly grid). ``per_day``: when n ≥ 7, every
    weekday keeps the same number of fetches (±1) and each fetch stays inside its
    day, so a weekly λ shapes the time of day per weekday without piling the
    requests of many feeds onto the busy weekdays.
    """
    if method == "exhaustive":
        g = bins
        step = WEEK / g
        n = int(max(1, min(n, g)))
        mg = max(1, int(np.ceil(min_gap_s / step - 1e-9)))
        n = min(n, max(1, g // mg))
        cum, mcum = _prefix(_grid_mass(lam168, g))
        if n == 1:
            return place(lam168, 1, bins=g)
        return _exhaustive(cum, mcum, g, n, mg) * step
    return place_many(
        [lam168],
        [n],
        bins=bins,
        min_gaps_s=[min_gap_s],
        sweeps=sweeps,
        inits=[init],
        per_day=per_day,
        starts=starts,
    )[0]


def place_many(
    lams: list[FloatArray],
    ns: list[int],
    *,
    bins: int = DEFAULT_BINS,
    min_gaps_s: list[float] | None = None,
    sweeps: int = 40,
    inits: list[FloatArray | None] | None = None,
    per_day: bool = False,
    starts: int = 1,
    chunk: int = 32,
) -> list[FloatArray]:
    """:func:`place` for many feeds at once: one vectorised refinement per chunk of
    feeds instead of one per feed (the results are the same as one by one).

    ``starts`` > 1: refinement stops in local minima (see the benchmark's
    comparison with exhaustive search), so it is also started from the √λ
    quantiles shifted by s/starts of a spacing (s = 1 … starts − 1) and the
    cheapest result is kept."""
    k_all = len(lams)
    gaps = min_gaps_s if min_gaps_s is not None else [0.0] * k_all
    starts_init = inits if inits is not None else [None] * k_all
    out: list[FloatArray] = [np.zeros(0)] * k_all
    batch: list[int] = []
    g = bins
    step = WEEK / g
    for i in range(k_all):
        n = int(max(1, min(ns[i], g)))
        mg = max(1, int(np.ceil(gaps[i] / step - 1e-9)))
        if min(n, max(1, g // mg)) == 1:
            # exhaustive search is exact (and cheap) for a single fetch
            cum, mcum = _prefix(_grid_mass(lams[i], g))
            t = np.arange(g, dtype=np.int64)
            cost = _seg_cost(cum, mcum, t - g, t, g)
            out[i] = np.array([float(np.argmin(cost)) * step])
        else:
            batch.append(i)
    jobs = [(i, s) for i in batch for s in range(max(1, starts))]
    per = max(1, chunk)
    best: dict[int, tuple[float, FloatArray]] = {}
    for c0 in range(0, len(jobs), per):
        part = jobs[c0 : c0 + per]
        res = _place_batch(
            [lams[i] for i, _ in part],
            [ns[i] for i, _ in part],
            [gaps[i] for i, _ in part],
            [starts_init[i] if s == 0 else None for i, s in part],
            g,
            sweeps,
            per_day,
            [s / max(1, starts) for _, s in part],
        )
        for (i, _s), r in zip(part, res, strict=True):
            c = expected_delay(lams[i], r, g) if starts > 1 else 0.0
            if i not in best or c < best[i][0]:
                best[i] = (c, r)
    for i, (_c, r) in best.items():
        out[i] = r
    return out


def _day_start(
    mass: FloatArray, n: int, g: int, mg: int
) -> tuple[IntArray, IntArray, IntArray] | None:
    """Per-weekday start (√λ quantiles inside each day) and each fetch's day bounds;
    None when a per-day split is impossible (n < 7, grid not in whole days, or the
    minimum gap does not fit)."""
    if n < 7 or g % 7:
        return None
    gd = g // 7
    k, extra = divmod(n, 7)
    day_mass = np.sqrt(np.maximum(mass, 0.0)).reshape(7, gd)
    counts = np.full(7, k, dtype=np.int64)
    if extra:
        counts[np.argsort(-day_mass.sum(1), kind="stable")[:extra]] += 1
    if int(counts.max()) * mg > gd:
        return None
    pos_l, lo_l, hi_l = [], [], []
    for d in range(7):
        c = int(counts[d])
        if c == 0:
            continue
        cs = np.concatenate(([0.0], np.cumsum(day_mass[d])))
        if cs[-1] <= 0:
            cs = np.arange(gd + 1, dtype=np.float64)
        p = np.searchsorted(cs, (np.arange(c) + 1.0) / c * cs[-1], side="left")
        p = np.minimum(p, gd - 1)
        if np.unique(p).size < c or (c > 1 and np.diff(p).min() < mg):
            p = ((np.arange(c) + 1) * gd) // c - 1
        pos_l.append(d * gd + p)
        lo_l.append(np.full(c, d * gd))
        hi_l.append(np.full(c, (d + 1) * gd - 1))
    pos = np.concatenate(pos_l).astype(np.int64)
    if not _gaps_ok(pos, mg, g):
        return None
    return pos, np.concatenate(lo_l), np.concatenate(hi_l)


def _place_batch(
    lams: list[FloatArray],
    ns: list[int],
    gaps: list[float],
    inits: list[FloatArray | None],
    g: int,
    sweeps: int,
    per_day: bool,
    phases: list[float] | None = None,
) -> list[FloatArray]:
    """Coordinate refinement of many feeds' patterns at once. Each fetch moves to
    the exact grid minimum between its neighbours (its part of the cost is
    (t − b)·Λ(t) − t·Λ(a) + const); fetches of one parity are independent and
    move together, for all feeds of the batch in the same numpy calls. A feed
    stops when a sweep moves none of its fetches (as it would alone)."""
    step = WEEK / g
    k = len(lams)
    width = 5 * g + 1
    lam_tab = np.empty((k, width))
    m_tab = np.empty((k, width))
    pos_l: list[IntArray] = []
    lo_l: list[IntArray] = []
    hi_l: list[IntArray] = []
    mgs = np.empty(k, dtype=np.int64)
    for j in range(k):
        mg = max(1, int(np.ceil(gaps[j] / step - 1e-9)))
        n = min(int(max(1, min(ns[j], g))), max(1, g // mg))
        mass = _grid_mass(lams[j], g)
        cum, mcum = _prefix(mass)
        tab = _Tables(cum, mcum, g)
        lam_tab[j], m_tab[j] = tab.lam, tab.m
        split = _day_start(mass, n, g, mg) if per_day else None
        if split is not None:
            p, lo_b, hi_b = split
        else:
            p = _start(mass, n, g, mg, step, inits[j], phases[j] if phases else 0.0)
            lo_b = np.full(p.size, -2 * g, dtype=np.int64)
            hi_b = np.full(p.size, 3 * g, dtype=np.int64)
        pos_l.append(p)
        lo_l.append(lo_b)
        hi_l.append(hi_b)
        mgs[j] = mg
    lam_flat, m_flat = lam_tab.ravel(), m_tab.ravel()
    nk = np.array([p.size for p in pos_l], dtype=np.int64)
    s_k = np.concatenate(([0], np.cumsum(nk)[:-1]))
    pos = np.concatenate(pos_l)
    b_lo, b_hi = np.concatenate(lo_l), np.concatenate(hi_l)
    fid = np.repeat(np.arange(k), nk)
    loc = np.arange(pos.size) - s_k[fid]
    n_e = nk[fid]
    last = loc == n_e - 1
    grp_of = np.where(loc % 2 == 1, 1, np.where((n_e % 2 == 1) & last, 2, 0))
    i_all = np.arange(pos.size)
    i_prev = np.where(loc > 0, i_all - 1, s_k[fid] + n_e - 1)
    i_next = np.where(~last, i_all + 1, s_k[fid])
    base = fid * width + 2 * g  # offset of x = 0 in each element's table row
    mg_e = mgs[fid]
    groups = [np.flatnonzero(grp_of == q) for q in range(3)]
    # the bounds never need re-sorting: without per-day bounds they are the same
    # for every fetch, with them no fetch leaves its day (the order is fixed)
    wrap_p = np.where(loc > 0, 0, g)
    wrap_n = np.where(last, g, 0)

    def statics(active: npt.NDArray[np.bool_]) -> list[tuple[IntArray, ...]]:
        """Per parity group: the indices and constants of its active fetches."""
        out: list[tuple[IntArray, ...]] = []
        for grp_all in groups:
            grp = grp_all[active[fid[grp_all]]]
            out.append(
                (
                    grp,
                    i_prev[grp],
                    i_next[grp],
                    wrap_p[grp],
                    wrap_n[grp],
                    mg_e[grp],
                    b_lo[grp],
                    b_hi[grp],
                    base[grp],
                    fid[grp],
                )
            )
        return out

    active = np.ones(k, dtype=bool)
    cache = statics(active)
    for _ in range(sweeps):
        moved_f = np.zeros(k, dtype=bool)
        for grp, ip, inx, wp, wn, mgg, blo, bhi, bs, fg in cache:
            if grp.size == 0:
                continue
            prev = pos[ip] - wp
            nxt = pos[inx] + wn
            lo = np.maximum(prev + mgg, blo)
            lens = np.minimum(nxt - mgg, bhi) - lo + 1
            if lens.min() <= 0:
                ok = lens > 0
                if not ok.any():
                    continue
                grp, prev, nxt, lo, lens = grp[ok], prev[ok], nxt[ok], lo[ok], lens[ok]
                bs, fg = bs[ok], fg[ok]
            seg = np.repeat(np.arange(grp.size), lens)
            st = np.zeros(grp.size, dtype=np.int64)
            np.cumsum(lens[:-1], out=st[1:])
            t = np.arange(seg.size) + (lo - st)[seg]
            b = bs[seg]
            pa = prev[seg] + b
            pb = nxt[seg] + b
            lt = lam_flat[t + b]
            cost = t * (lt - lam_flat[pa]) + nxt[seg] * (lam_flat[pb] - lt)
            cost += m_flat[pa] - m_flat[pb]
            # first minimum of each fetch's candidate range
            mins = np.minimum.reduceat(cost, st)
            hit = np.flatnonzero(cost <= mins[seg])
            first_hit = hit[np.flatnonzero(np.diff(seg[hit], prepend=-1))]
            best = t[first_hit]
            # positions stay unwrapped within a sweep so every fetch keeps its
            # circular neighbours (the first may go below 0, the last past g)
            mv = best != pos[grp]
            if mv.any():
                moved_f[fg[mv]] = True
                pos[grp] = best
        pos %= g
        if k == 1:
            pos.sort()
        else:
            pos = pos[np.lexsort((pos, fid))]
        if not (active & ~moved_f).any():
            if not moved_f.any():
                break
            continue
        active &= moved_f
        if not active.any():
            break
        cache = statics(active)
    return [pos[s_k[j] : s_k[j] + nk[j]].astype(np.float64) * step for j in range(k)]


def _start(
    mass: FloatArray,
    n: int,
    g: int,
    mg: int,
    step: float,
    init: FloatArray | None,
    phase: float = 0.0,
) -> IntArray:
    """Starting grid positions: ``init`` when it has n points, else √λ quantiles;
    an even spread when those collide or break the minimum gap."""
    if init is not None and init.size == n:
        pos = np.unique(np.round(np.asarray(init) / step).astype(np.int64) % g)
    else:
        pos = _sqrt_start(mass, n, g, phase)
    pos = np.sort(pos)
    if pos.size < n or not _gaps_ok(pos, mg, g):
        # collisions or gaps below the minimum: start from an even spread instead
        first = int(pos[0]) if pos.size else 0
        pos = np.sort((first + (np.arange(n) * g) // n) % g).astype(np.int64)
    return pos


def _sqrt_start(mass: FloatArray, n: int, g: int, phase: float = 0.0) -> IntArray:
    """Quantiles of ∫√λ (the asymptotically optimal fetch density ∝ √λ), shifted
    by ``phase`` (a fraction of one spacing) for alternative starts."""
    sq = np.sqrt(np.maximum(mass, 0.0))
    c = np.concatenate(([0.0], np.cumsum(sq)))
    targets = (np.arange(n) + 1.0 - phase) / n * c[-1]  # phase in [0, 1)
    pos = np.searchsorted(c, targets, side="left").astype(np.int64) % g
    out: IntArray = np.unique(pos)
    return out


def _exhaustive(cum: FloatArray, mcum: FloatArray, g: int, n: int, mg: int) -> FloatArray:
    """Exact optimum over the grid: for every position a of the earliest fetch,
    dynamic programming places the other n − 1 in (a, g) (vectorised over
    positions, O(n·g²) per a). Pruned: a ≤ g − n·mg (room for the rest), and
    only positions that leave room for the fetches still to come are kept."""
    best_cost = INF
    best = np.zeros(0)
    for a0 in range(0, g - (n - 1) * mg):
        xs = np.arange(a0 + mg, g, dtype=np.int64)  # candidates for fetches 2..n
        if xs.size < n - 1:
            break
        m = xs.size
        # c[y, x]: cost of the items in (xs[y], xs[x]] (upper triangle, gap ≥ mg)
        yy, xx = np.meshgrid(xs, xs, indexing="ij")
        c = _seg_cost(cum, mcum, yy, xx, g)
        c[(xx - yy) < mg] = INF
        d = _seg_cost(cum, mcum, np.full(m, a0), xs, g)  # fetch 2 at x
        back = []
        for _j in range(3, n + 1):
            tot = d[:, None] + c
            arg = np.argmin(tot, axis=0)
            d = tot[arg, np.arange(m)]
            back.append(arg)
        # the last fetch closes the week back to a0 + g
        close = _seg_cost(cum, mcum, xs, np.full(m, a0 + g), g)
        close[(a0 + g - xs) < mg] = INF
        tot_end = d + close
        k = int(np.argmin(tot_end))
        if tot_end[k] < best_cost:
            best_cost = float(tot_end[k])
            path = [k]
            for arg in reversed(back):
                path.append(int(arg[path[-1]]))
            best = np.sort(np.array([a0] + [int(xs[i]) for i in path], dtype=np.float64))
    return best


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


def expected_delays(
    lams: list[FloatArray], patterns: list[FloatArray], bins: int = DEFAULT_BINS
) -> FloatArray:
    """:func:`expected_delay` of many feeds in the same numpy calls (same results)."""
    k = len(lams)
    out = np.zeros(k)
    if k == 0:
        return out
    g = bins
    step = WEEK / g
    per = g // NSLOTS
    # the grid's mass is constant within an hour (λ_h / per a bin), so its prefix
    # sums are read off hourly tables (169 values a feed instead of g + 1)
    lam = np.asarray(lams, dtype=np.float64).reshape(k, NSLOTS)
    tot = lam.sum(1)
    hc = np.zeros((k, NSLOTS + 1))
    np.cumsum(lam, axis=1, out=hc[:, 1:])
    hm = np.zeros((k, NSLOTS + 1))  # Σ mass·(i + 0.5) over whole hours
    np.cumsum(lam * (per * np.arange(NSLOTS) + per / 2.0), axis=1, out=hm[:, 1:])
    sizes = np.array([len(p) for p in patterns], dtype=np.int64)
    if int(sizes.sum()) == 0:
        return out
    fid = np.repeat(np.arange(k), sizes)
    pos = np.concatenate(
        [np.sort(np.round(np.asarray(p) / step).astype(np.int64) % g) for p in patterns]
    )
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    first = np.zeros(pos.size, dtype=bool)
    first[starts[sizes > 0]] = True
    last_of = (starts + sizes - 1)[fid]
    prev = np.where(first, pos[last_of] - g, np.concatenate(([0], pos[:-1])))
    base = fid * (NSLOTS + 1)
    hcf, hmf, lf = hc.ravel(), hm.ravel(), lam.ravel()
    c_end, m_end = hc[fid, -1], hm[fid, -1]

    def tables(r: IntArray) -> tuple[FloatArray, FloatArray]:
        """cum[r] and mcum[r] of the bin grid, 0 ≤ r ≤ g."""
        h, j = np.divmod(r, per)
        hh = np.minimum(h, NSLOTS - 1)
        rate = np.where(h < NSLOTS, lf[fid * NSLOTS + hh], 0.0) / per
        c = hcf[base + h] + j * rate
        m = hmf[base + h] + rate * (j * (per * h) + j * j / 2.0)
        return c, m

    def lam_at(x: IntArray) -> FloatArray:
        q, r = np.divmod(x, g)
        out_: FloatArray = q * c_end + tables(r)[0]
        return out_

    def m_at(x: IntArray) -> FloatArray:
        q, r = np.divmod(x, g)
        c, m = tables(r)
        full = q * m_end + (q * (q - 1) / 2.0) * g * c_end
        out_: FloatArray = full + m + q * g * c
        return out_

    seg = pos * (lam_at(pos) - lam_at(prev)) - (m_at(pos) - m_at(prev))
    cost = np.bincount(fid, weights=seg, minlength=k)
    ok = (tot > 0) & (sizes > 0)
    out[ok] = cost[ok] / tot[ok] * step
    return out


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


__all__ = [
    "HOUR",
    "expected_delay",
    "fixed_delay",
    "place",
    "place_many",
    "sqrt_shape_factor",
]
