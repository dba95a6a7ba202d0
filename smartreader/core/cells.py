"""Cap-feasible weekly plans: B daily request slots × 7 days (not yet used by the
Scheduler; ``benchmarks/cells.py`` measures what it would gain).

Why: the budget is a cap over *every* 24 h. A weekly plan with 7·B fetches meets
it only if, in time order, fetch j + B comes at least 24 h after fetch j; with
exactly 7·B fetches that forces every gap to be exactly 24 h, i.e. B times of day
used every day (the slots), each day's uses possibly going to different feeds.
Per-feed plans merged together do not have this shape, so the cap delays fetches
at run time (first come, first served), and a plan placed by hour × weekday λ —
more fetches on the busy weekdays — is delayed most.

:func:`optimise` takes per-feed plans (their fetch counts are kept), snaps them
onto B slots and improves the result by local search on the expected delay under
each feed's weekly λ: swap the feeds of two cells (or move a point to an empty
cell), then move each slot's time of day, until neither helps.
:func:`fifo_capped` is what the cap makes of any plan served first come, first
served (the steady-state week).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from smartreader.core.estimator import DAY, WEEK
from smartreader.core.schedule import _grid_mass, _prefix, _seg_cost, expected_delays

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class CellPlan:
    slots_s: FloatArray  # (B,) the slots' times of day, seconds after 00:00 UTC
    owner: IntArray  # (7, B) the feed fetched in each day's slot, −1: left free
    patterns: list[FloatArray]  # per feed: sorted weekly offsets (s after Monday 00:00)
    cost: float  # Σ weight × items × delay (item·seconds a week) under the given λs


class _Search:
    def __init__(
        self,
        lams: list[FloatArray],
        weights: FloatArray,
        gaps: IntArray,
        tau: IntArray,
        owner: IntArray,
        g: int,
    ) -> None:
        self.g = g
        self.dayb = g // 7
        self.tabs = [_prefix(_grid_mass(lam, g)) for lam in lams]
        self.w = weights
        self.gaps = gaps
        self.tau = tau % self.dayb
        self.owner = owner

    def pos(self) -> IntArray:
        p: IntArray = (np.arange(7)[:, None] * self.dayb + self.tau[None, :]) % self.g
        return p

    def cost_rows(self, i: int, rows: IntArray) -> FloatArray:
        """Cost of feed ``i`` for each row of grid positions (any order)."""
        cum, mcum = self.tabs[i]
        p = np.sort(rows, axis=1)
        prev = np.concatenate((p[:, -1:] - self.g, p[:, :-1]), axis=1)
        out: FloatArray = _seg_cost(cum, mcum, prev, p, self.g).sum(1) * self.w[i]
        return out

    def total(self) -> float:
        pos = self.pos()
        return float(
            sum(
                self.cost_rows(i, pos[self.owner == i][None, :])[0]
                for i in range(len(self.tabs))
                if (self.owner == i).any()
            )
        )

    def _moves(self, i: int, pos: IntArray, own: IntArray) -> tuple[IntArray, FloatArray]:
        """Cost change of feed i moving each of its points to each cell."""
        cells = np.flatnonzero(own == i)
        p = pos[cells]
        k, c = cells.size, pos.size
        base = self.cost_rows(i, p[None, :])[0]
        out = np.full((k, c), np.inf)
        for m in range(k):
            rows = np.repeat(p[None, :], c, 0)
            rows[:, m] = pos
            d = self.cost_rows(i, rows) - base
            if k > 1 and self.gaps[i] > 0:
                others = np.delete(p, m)
                dist = np.abs((pos[:, None] - others[None, :] + self.g // 2) % self.g - self.g // 2)
                d[(dist < self.gaps[i]).any(1)] = np.inf
            out[m] = d
        out[:, cells] = np.inf
        return cells, out

    def swaps(self, max_iter: int) -> int:
        pos = self.pos().ravel()
        own = self.owner.ravel().copy()
        c = own.size
        r = np.zeros((c, c))  # r[a, b]: cost change of owner(a) moving from a to b
        for i in range(len(self.tabs)):
            if (own == i).any():
                cells, rows = self._moves(i, pos, own)
                r[cells] = rows
        n = 0
        while n < max_iter:
            d = r + r.T
            np.fill_diagonal(d, np.inf)
            j = int(np.argmin(d))
            a, b = divmod(j, c)
            if not d[a, b] < -1e-9:
                break
            n += 1
            ia, ib = int(own[a]), int(own[b])
            own[a], own[b] = ib, ia
            for i in {ia, ib} - {-1}:
                cells, rows = self._moves(i, pos, own)
                r[cells] = rows
            for x in (a, b):
                if own[x] < 0:
                    r[x] = 0.0
        self.owner = own.reshape(self.owner.shape)
        return n

    def candidates(self, s: int) -> tuple[IntArray, FloatArray, int]:
        """Times of day slot ``s`` may move to, a cost added to each, and the index
        of its present time among them (here: anywhere, at no cost)."""
        return np.arange(self.dayb), np.zeros(self.dayb), int(self.tau[s])

    def slot_sweep(self) -> int:
        moved = 0
        for s in range(self.tau.size):
            feeds = set(self.owner[:, s].tolist()) - {-1}
            if not feeds:
                continue
            cand, tot, cur = self.candidates(s)
            pos = self.pos()
            for i in feeds:
                mine = self.owner == i
                days = np.argwhere(mine)[:, 0]
                col = np.argwhere(mine)[:, 1] == s
                rows = np.repeat(pos[mine][None, :], cand.size, 0)
                rows[:, col] = (days[col][None, :] * self.dayb + cand[:, None]) % self.g
                tot += self.cost_rows(i, rows)
                if self.gaps[i] > 0 and mine.sum() > 1:
                    srt = np.sort(rows, axis=1)
                    wrap = np.concatenate((srt[:, 1:], srt[:, :1] + self.g), axis=1) - srt
                    tot[(wrap < self.gaps[i]).any(1)] = np.inf
            best = int(np.argmin(tot))
            if best != cur and tot[best] < tot[cur] - 1e-9:
                self.tau[s] = cand[best]
                moved += 1
        return moved


def optimise(
    lams: list[FloatArray],
    patterns: list[FloatArray],
    budget: int,
    *,
    weights: FloatArray | None = None,
    min_gaps_s: list[float] | None = None,
    bins: int = 2016,
    rounds: int = 8,
    trim: bool = False,
) -> CellPlan:
    """A cap-feasible plan with each feed's fetch count from ``patterns`` (weekly
    offsets, seconds after Monday 00:00 UTC) placed on ``budget`` daily slots.

    More than 7 × budget fetches raise ValueError, or with ``trim`` the fetches
    whose removal costs least are dropped first (per-feed counts are rounded, so
    they may add up to a little more than the budget)."""
    n = len(lams)
    b = int(budget)
    g = bins
    step = WEEK / g
    c = 7 * b
    patterns = [np.asarray(p, dtype=np.float64) for p in patterns]
    total = sum(p.size for p in patterns)
    if total > c and not trim:
        raise ValueError(f"{total} fetches a week do not fit {b} requests a day")
    if total > c:
        patterns = trim_to_budget(lams, patterns, b, weights)
    sizes = [int(p.size) for p in patterns]
    pts = np.concatenate([np.round(np.asarray(p, dtype=np.float64) / step) for p in patterns])
    pts = pts.astype(np.int64) % g
    own = np.repeat(np.arange(n), sizes).astype(np.int64)
    free = c - pts.size
    if free:
        # free cells, spread over the week (the search moves points onto them)
        ph = ((np.arange(free) + 0.5) * g / free).astype(np.int64)
        pts = np.concatenate((pts, ph))
        own = np.concatenate((own, np.full(free, -1, dtype=np.int64)))
    o = np.argsort(pts, kind="stable")
    pts, own = pts[o], own[o]
    dayb = g // 7
    # the j-th fetch of each day-long block of the time order shares slot j
    tau = np.round((pts.reshape(7, b) - np.arange(7)[:, None] * dayb).mean(0)).astype(np.int64)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    gaps = np.zeros(n, dtype=np.int64)
    if min_gaps_s is not None:
        gaps = np.ceil(np.asarray(min_gaps_s, dtype=np.float64) / step).astype(np.int64)
    s = _Search(lams, w, gaps, tau, own.reshape(7, b), g)
    for _ in range(rounds):
        moved = s.swaps(max_iter=10 * c) + s.slot_sweep()
        if moved == 0:
            break
    pos = s.pos()
    pats = [np.sort(pos[s.owner == i].astype(np.float64) * step) for i in range(n)]
    return CellPlan(s.tau.astype(np.float64) * step, s.owner, pats, s.total() * step)


def trim_to_budget(
    lams: list[FloatArray],
    patterns: list[FloatArray],
    budget: int,
    weights: FloatArray | None = None,
) -> list[FloatArray]:
    """At most 7 × budget fetches a week: drop, one at a time, the fetch whose
    removal adds least expected delay."""
    c = 7 * int(budget)
    pats = [np.sort(p) for p in patterns]
    w = np.ones(len(pats)) if weights is None else np.asarray(weights, dtype=np.float64)
    rates = np.array([float(lam.sum()) for lam in lams])
    while sum(p.size for p in pats) > c:
        best: tuple[float, int, int] | None = None
        for i, p in enumerate(pats):
            if p.size <= 1:
                continue
            cand = [np.delete(p, m) for m in range(p.size)]
            base = float(expected_delays([lams[i]], [p])[0])
            d = expected_delays([lams[i]] * p.size, cand) - base
            m = int(np.argmin(d))
            cost = float(d[m]) * rates[i] * w[i]
            if best is None or cost < best[0]:
                best = (cost, i, m)
        if best is None:
            break
        _c, i, m = best
        pats[i] = np.delete(pats[i], m)
    return pats


def fifo_capped(patterns: list[FloatArray], budget: int, warm_weeks: int = 4) -> list[FloatArray]:
    """The weekly plans as run under the 24 h cap, first come first served: a
    fetch waits until the request ``budget`` places back is 24 h old. Returns the
    steady-state week's fetch offsets per feed."""
    ev = sorted(
        (float(t) + k * WEEK, i)
        for i, p in enumerate(patterns)
        for t in np.asarray(p).tolist()
        for k in range(warm_weeks + 1)
    )
    log: list[float] = []
    got: list[list[float]] = [[] for _ in patterns]
    for t, i in ev:
        tt = t if len(log) < budget else max(t, log[-budget] + DAY)
        log.append(tt)
        if warm_weeks * WEEK <= tt < (warm_weeks + 1) * WEEK:
            got[i].append(tt - warm_weeks * WEEK)
    return [np.sort(np.asarray(x, dtype=np.float64)) for x in got]


def max_in_24h(patterns: list[FloatArray]) -> int:
    """Most fetches in any 24 h window of the merged weekly plans (repeating)."""
    pts = np.sort(np.concatenate([np.asarray(p, dtype=np.float64) for p in patterns]) % WEEK)
    if pts.size == 0:
        return 0
    ext = np.concatenate((pts, pts + WEEK))
    ends = np.searchsorted(ext, pts + DAY, side="left")
    return int((ends - np.arange(pts.size)).max())
