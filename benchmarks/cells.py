"""What a cap-feasible slot plan would gain over the shipped plans (diagnostic).

    python benchmarks/cells.py --out docs/scheduling-cells.md [--hours 24 12]

The shipped scheduler plans each feed on its own and lets the 24 h cap delay
fetches at run time. This prints the expected mean delay (items weighted, exact
for a weekly plan under the given λ) of:

* the shipped per-feed plans, as planned and as the cap serves them (first come,
  first served, ``core.cells.fifo_capped``);
* per-feed plans placed by hour × weekday λ for every feed, likewise;
* a cell plan (``core.cells.optimise``): the shipped fetch counts on B daily
  slots, which meets the cap by construction.

First with the hindsight λ (weeks 3–12 of dev-portfolio, as the ``oracle`` gets),
then with what ``smart`` had learned at five points of a cold-start replay, each
judged against the two weeks that followed. Last, a replay of the cell plan:
the app's Scheduler with its fetch times taken, every midnight, from a cell plan
whose slots start at the times its requests of the last 24 h free up
(:func:`token_cell_replay`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import smartreader.core.scheduler as sched_mod
import smartreader.sim.policies as pol_mod
from smartreader.core.cells import _Search, fifo_capped, max_in_24h, optimise, trim_to_budget
from smartreader.core.estimator import DAY, MONDAY0, WEEK
from smartreader.core.schedule import expected_delays
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.sim import replay as rp
from smartreader.sim.world import load_capacities, load_trace


def _delay_min(lams: list[Any], pats: list[Any]) -> float:
    rates = np.array([float(x.sum()) for x in lams])
    return float(rates @ expected_delays(lams, pats) / rates.sum() / 60.0)


def _plans(
    trace: dict[str, Any],
    caps: dict[str, int],
    lams: dict[str, Any],
    b: int,
    t0: float,
    weekly_below: int,
) -> tuple[list[str], list[Any]]:
    cfg = SchedulerConfig(budget_per_day=b, weekly_below=weekly_below)
    s = Scheduler(cfg, t0)
    for fid in sorted(trace):
        s.add_feed(fid, host=fid, capacity=caps.get(fid, 20))
        s.set_lambda(fid, lams[fid])
    s.replan(t0)
    fids = s.feed_ids()
    return fids, [s._feeds[f].pattern for f in fids]  # private: a diagnostic


def hindsight(trace: dict[str, Any], caps: dict[str, int], b: int) -> list[tuple[str, float, int]]:
    all_t = np.concatenate([a for a in trace.values() if a.size])
    t0 = float(np.floor(all_t.min() / DAY) * DAY)
    lams = rp.true_lambdas(trace, t0 + 14 * DAY, t0 + 84 * DAY)
    rows = []
    fids, shipped = _plans(trace, caps, lams, b, t0, 7)
    lam_l = [lams[f] for f in fids]
    fifo = fifo_capped(trim_to_budget(lam_l, shipped, b), b)
    rows.append(
        ("shipped per-feed plans, as planned", _delay_min(lam_l, shipped), max_in_24h(shipped))
    )
    rows.append(
        (
            "shipped per-feed plans, as the cap serves them",
            _delay_min(lam_l, fifo),
            max_in_24h(fifo),
        )
    )
    fids_w, weekly = _plans(trace, caps, lams, b, t0, 10**6)
    assert fids_w == fids
    fifo_w = fifo_capped(trim_to_budget(lam_l, weekly, b), b)
    rows.append(
        (
            "hour × weekday plans for every feed, as planned",
            _delay_min(lam_l, weekly),
            max_in_24h(weekly),
        )
    )
    rows.append(
        (
            "hour × weekday plans, as the cap serves them",
            _delay_min(lam_l, fifo_w),
            max_in_24h(fifo_w),
        )
    )
    plan = optimise(lam_l, shipped, b, min_gaps_s=[900.0] * len(fids), trim=True)
    rows.append(
        (
            "cell plan (shipped counts on B daily slots)",
            _delay_min(lam_l, plan.patterns),
            max_in_24h(plan.patterns),
        )
    )
    return rows


def learned(trace: dict[str, Any], caps: dict[str, int], b: int) -> list[tuple[int, float, float]]:
    all_t = np.concatenate([a for a in trace.values() if a.size])
    t0 = float(np.floor(all_t.min() / DAY) * DAY)
    days = [21, 35, 49, 63, 77]
    marks = [t0 + d * DAY for d in days]
    snaps: list[dict[str, Any]] = []
    orig = sched_mod.Scheduler.due

    def due(self: Any, now: float) -> Any:
        if marks and now >= marks[0]:
            marks.pop(0)
            fs = list(self._feeds.values())
            snaps.append(
                {
                    "fids": [f.fid for f in fs],
                    "lam": [self._lam_delay(f).copy() for f in fs],
                    "pat": [f.pattern.copy() for f in fs],
                }
            )
        return orig(self, now)

    sched_mod.Scheduler.due = due  # type: ignore[method-assign]
    try:
        rp.replay(trace, caps, "smart", b)
    finally:
        sched_mod.Scheduler.due = orig  # type: ignore[method-assign]
    out = []
    for d, sn in zip(days, snaps, strict=False):
        truth = rp.true_lambdas(trace, t0 + d * DAY, t0 + (d + 14) * DAY)
        tl = [truth[f] for f in sn["fids"]]
        # rounded counts may add up to a little more than the budget; the run
        # time skips those fetches rather than queue them for ever, so trim both
        pats = trim_to_budget(sn["lam"], sn["pat"], b)
        cur = _delay_min(tl, fifo_capped(pats, b))
        plan = optimise(sn["lam"], sn["pat"], b, min_gaps_s=[900.0] * len(tl), trim=True)
        out.append((d, cur, _delay_min(tl, plan.patterns)))
    return out


class _TokenSearch(_Search):
    """Slots may only move later than the time their request frees up; each
    5-minute step later leaves that request idle once, charged at ``v``."""

    def __init__(self, *a: Any, free: Any, v: float) -> None:
        super().__init__(*a)
        self.free = free
        self.v = v

    def candidates(self, s: int) -> tuple[Any, Any, int]:
        delta = np.arange(self.dayb)
        cur = int((self.tau[s] - self.free[s]) % self.dayb)
        return (self.free[s] + delta) % self.dayb, self.v * delta.astype(np.float64), cur


def _next_point(cp: Any, t: float) -> float:
    off = (t - MONDAY0) % WEEK
    a = np.concatenate((cp, cp + WEEK))
    return float(t - off + a[int(np.searchsorted(a, off - 1e-6))])


def _cell_replan(sch: Any, now: float) -> None:
    """Every feed's fetch times for the coming week from one cell plan (private
    Scheduler state: a diagnostic)."""
    cfg = sch.config
    b = math.floor(cfg.budget_per_day + 1e-9)
    g = cfg.plan_bins
    step, dayb = WEEK / g, g // 7
    sch._flush()
    sch._prune_log(now)
    if sch._alloc_dirty:
        sch._reallocate(now)
    fs = [f for f in sch._feeds.values() if not f.gone]
    for f in fs:
        sch._ensure_pattern(f, now)  # the shipped plan: its fetch count and start
    lams = [sch._lam_delay(f) for f in fs]
    pats = trim_to_budget(lams, [f.pattern for f in fs], b)
    # request j of the last 24 h frees up 24 h later: slot j starts then
    free = sorted(t + DAY for t in list(sch._log)[-b:])
    free = np.array([now] * (b - len(free)) + free)
    tod = (free - MONDAY0) % DAY
    free_bins = np.ceil(tod / step - 1e-9).astype(np.int64) % dayb
    cellpos = ((np.arange(7)[:, None] * dayb + free_bins[None, :]) % g).ravel()
    own = np.full(7 * b, -1, dtype=np.int64)
    for i, pat in enumerate(pats):  # each planned fetch to the nearest free cell
        for p in pat:
            d = np.abs((cellpos - round(p / step) % g + g // 2) % g - g // 2).astype(float)
            d[own >= 0] = np.inf
            own[int(np.argmin(d))] = i
    w = np.array([f.weight for f in fs])
    gaps = np.ceil(np.array([sch._min_int(f) for f in fs]) / step).astype(np.int64)
    s = _TokenSearch(lams, w, gaps, free_bins.copy(), own.reshape(7, b), g, free=free_bins, v=0.0)
    # an idle request-day costs what one fetch saves on average
    s.v = s.total() / max(1, int((own >= 0).sum())) / dayb
    for _ in range(8):
        if s.swaps(max_iter=70 * b) + s.slot_sweep() == 0:
            break
    tod_s = np.where(s.tau == free_bins, tod, s.tau * step)
    for i, f in enumerate(fs):
        dd = np.argwhere(s.owner == i)
        offs = np.sort((dd[:, 0] * DAY + tod_s[dd[:, 1]]) % WEEK)
        f.cellpat = offs if offs.size else None
        if f.inflight or f.cellpat is None:
            continue
        lo = now if f.last_fetch is None else max(now, f.last_fetch + sch._min_int(f))
        sch._set_due(f, max(_next_point(f.cellpat, lo), f.not_before))


@contextmanager
def _cell_mode() -> Any:
    """Feeds fetch at their cells (no max-interval clamp) and the plan is redone
    every midnight from the third day on."""
    cls, pcls = sched_mod.Scheduler, pol_mod.SchedulerPolicy
    orig = (cls._compute_next, pcls.due)

    def compute_next(self: Any, f: Any, t0: float) -> float:
        cp = getattr(f, "cellpat", None)
        if cp is None or f.err_count:
            return float(orig[0](self, f, t0))
        mi = self._min_int(f)
        nxt = max(_next_point(cp, t0 + mi), f.not_before, self._host_block.get(f.host, -math.inf))
        return float(self._skip_ok(f, nxt))

    def due(self: Any, now: float) -> Any:
        nd = getattr(self, "_cell_next", None)
        if nd is None:
            nd = self._cell_next = (math.floor(now / DAY) + 2) * DAY
        if now >= nd:
            self._cell_next = (math.floor(now / DAY) + 1) * DAY
            _cell_replan(self.sched, now)
        return orig[1](self, now)

    cls._compute_next = compute_next  # type: ignore[method-assign]
    pcls.due = due  # type: ignore[method-assign]
    try:
        yield
    finally:
        cls._compute_next, pcls.due = orig  # type: ignore[method-assign]


def token_cell_replay(args: tuple[str, float, float, bool]) -> tuple[float, int, float, float]:
    """(mean delay, missed, fetches/day, share of fetches > 60 s after their
    planned time) of one cold start ``shift`` seconds before the trace's first
    midnight, with cells or as shipped."""
    tdir, h, shift, cells = args
    trace = load_trace(Path(tdir) / "dev-portfolio.csv")
    caps = load_capacities(Path(tdir) / "dev-portfolio.feeds.csv")
    start, end = rp.trace_span(trace)
    late: list[float] = []
    orig_due = sched_mod.Scheduler.due

    def due(self: Any, now: float) -> Any:
        planned = {fid: f.next_due for fid, f in self._feeds.items()}
        out = orig_due(self, now)
        late.extend(now - planned[fid] for fid in out)
        return out

    sched_mod.Scheduler.due = due  # type: ignore[method-assign]
    try:
        with _cell_mode() if cells else nullcontext():
            r = rp.replay(
                trace,
                caps,
                "smart",
                len(trace) * 24 / h,
                start=start - shift,
                end=end,
                warmup_days=14 + shift / DAY,
            )
    finally:
        sched_mod.Scheduler.due = orig_due  # type: ignore[method-assign]
    lt = np.array(late[len(late) // 6 :])  # past the cold start's first days
    return r.mean_delay_min, r.missed, r.fetches_per_day, float((lt > 60).mean())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, nargs="+", default=[24.0, 12.0])
    ap.add_argument("--out")
    default_dir = Path(__file__).resolve().parents[2] / "shared" / "traces"
    ap.add_argument("--trace-dir", default=str(default_dir))
    a = ap.parse_args()
    tdir = Path(a.trace_dir)
    trace = load_trace(tdir / "dev-portfolio.csv")
    caps = load_capacities(tdir / "dev-portfolio.feeds.csv")
    t = time.time()
    lines = [
        "# A cap-feasible plan: what B daily slots would gain",
        "",
        "Generated by `python benchmarks/cells.py --out docs/scheduling-cells.md` (a",
        "diagnostic, not a replay). Expected mean delay of weekly plans on `dev-portfolio`,",
        'exact for a plan repeated every week under the λ it is judged by. "Most in 24 h"',
        "is the most fetches the merged plan puts in any 24 h; the budget B is the cap.",
    ]
    for h in a.hours:
        b = int(len(trace) * 24 / h)
        lines += [
            "",
            f"## Average interval {h:g} h (B = {b} requests a day)",
            "",
            "Hindsight λ (weeks 3–12, what `oracle` gets):",
            "",
            "| plan | mean delay (min) | most in 24 h |",
            "|---|---:|---:|",
        ]
        for name, dl, mx in hindsight(trace, caps, b):
            lines.append(f"| {name} | {dl:.1f} | {mx} |")
        lines += [
            "",
            "What `smart` had learned by day N of a cold-start replay, judged against "
            "days N to N+14:",
            "",
            "| day | shipped plans as the cap serves them | cell plan from the same λ and counts |",
            "|---:|---:|---:|",
        ]
        rows = learned(trace, caps, b)
        for d, cur, cell in rows:
            lines.append(f"| {d} | {cur:.1f} | {cell:.1f} |")
        cur_m = float(np.mean([r[1] for r in rows]))
        cell_m = float(np.mean([r[2] for r in rows]))
        lines.append(f"| mean | {cur_m:.1f} | {cell_m:.1f} ({cell_m / cur_m:.3f} ×) |")
    starts = 2
    lines += [
        "",
        f"## Replay at 24 h: the Scheduler fetching at its cells ({starts} cold starts)",
        "",
        "`smart` as shipped, and the same Scheduler with every feed's fetch times taken",
        "from a cell plan redone every midnight from the third day (`token_cell_replay`):",
        "each slot starts when one of the last 24 h's requests frees up and may only",
        "move later, an idle step charged as a share of one fetch. Late: fetches more",
        "than 60 s after their planned time (after the first two weeks).",
        "",
        "| variant | mean delay (min) | missed | fetches/day | late |",
        "|---|---:|---:|---:|---:|",
    ]
    jobs = [
        (str(tdir), 24.0, k * DAY / starts, cells) for cells in (False, True) for k in range(starts)
    ]
    with ProcessPoolExecutor(2) as ex:
        res = list(ex.map(token_cell_replay, jobs))
    for cells in (False, True):
        rr = np.array([r for j, r in zip(jobs, res, strict=True) if j[3] == cells])
        name = "cell plans from the request times" if cells else "shipped per-feed plans"
        lines.append(
            f"| {name} | {rr[:, 0].mean():.1f} | {rr[:, 1].mean():.0f} | "
            f"{rr[:, 2].mean():.2f} | {100 * rr[:, 3].mean():.0f} % |"
        )
    lines += [
        "",
        "## Why the Scheduler does not run cell plans",
        "",
        "- With 7·B fetches a week every request is in use, so a request's time of day can",
        "  only move later: one late fetch makes that slot late every following day. A",
        "  first prototype that re-planned cells without regard to the request times",
        "  had 40–50 % of its fetches late. Planned from the request times (the replay",
        "  above), no fetch is late, and the delay is still worse than the shipped plans",
        "  at 24 h. The expected gain above is for a plan kept two weeks; redone every",
        "  day, the plan's cost does not see when each feed was last fetched, and the",
        "  rarely fetched feeds (hour × weekday λ from a few items) lost most (tokio",
        "  2410 min an item against 1640, pytest 1637 against 1044, one start). The",
        "  shipped run time, which gives a short cap's requests to the feeds whose",
        "  waiting costs most, does better than its first-come first-served estimate.",
        "- The search weighs delay only; busy feeds must also keep their window from",
        "  overflowing (the prototype missed more items than `fixed` allows).",
        "- `optimise` is quadratic in 7·B (about 1 s at B = 22, 5 s at B = 44): the app's",
        "  budgets of hundreds a day need a windowed search.",
        "",
        f"({time.time() - t:.0f} s)",
    ]
    text = "\n".join(lines) + "\n"
    if a.out:  # written first: a closed pipe on stdout does not lose the report
        Path(a.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
