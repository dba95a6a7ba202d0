"""Scheduling benchmark: every policy on a real trace at several budgets, plus scaling.

    python benchmarks/scheduling.py [--trace T.csv --feeds F.csv] [--hours 1,3,6,12,24]
        [--jobs 2] [--starts 8] [--held-out 6,24] [--scale-feeds 1000] [--replan-feeds 10000]
        [--out docs/benchmarks.md]

Part 1 replays ``dev-portfolio`` (every policy cold, measured over weeks 3–12) at
average intervals of 1, 3, 6, 12 and 24 h, i.e. budgets of feeds × 24 / H
requests/day, and checks the issue's acceptance ratios. Self-paced peers
(``miniflux``, ``commafeed``) ignore the budget; they run once and ``smart`` and
``fixed`` are re-run at the fetches/day they realised. Then ``smart``, ``fixed``
and ``oracle`` are re-run from ``--starts`` cold starts spread over the day before
the first midnight, to show how far one start is from the average, and the same
ratios are shown, one cold start each, on worlds derived from the trace (halves of
its feeds, one moved in time; halved windows). Part 2 times a replay of synthetic
feeds (:mod:`smartreader.sim.synthetic`), a full re-plan of many feeds and the
per-fetch ``observe`` cost. The Markdown report goes to ``--out`` and stdout.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from smartreader.core.models import FetchObservation, ItemSighting
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.sim.cli import format_table, load
from smartreader.sim.policies import POLICIES, SELF_PACED
from smartreader.sim.replay import ReplayResult, replay, trace_span
from smartreader.sim.synthetic import generate
from smartreader.sim.world import DEFAULT_CAPACITY, FloatArray

DAY = 86400.0
TRACES = Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"
DEFAULT_TRACE = TRACES / "dev-portfolio.csv"
DEFAULT_FEEDS = TRACES / "dev-portfolio.feeds.csv"

_TRACE: dict[str, FloatArray] = {}
_CAPS: dict[str, int] = {}


def _init(trace: dict[str, FloatArray], caps: dict[str, int]) -> None:
    _TRACE.update(trace)
    _CAPS.update(caps)


def _use(trace: dict[str, FloatArray], caps: dict[str, int]) -> None:
    """Make this the world that :func:`_job` (here and in new workers) replays."""
    _TRACE.clear()
    _CAPS.clear()
    _init(trace, caps)


def _job(args: tuple[str, float] | tuple[str, float, float]) -> ReplayResult:
    policy, budget = args[0], args[1]
    if len(args) == 2:
        return replay(_TRACE, _CAPS, policy, budget)
    # a cold start ``shift`` seconds before the trace's first midnight; the
    # warm-up grows by as much, so the measured span stays weeks 3–12
    shift = args[2]
    start, end = trace_span(_TRACE)
    return replay(
        _TRACE,
        _CAPS,
        policy,
        budget,
        start=start - shift,
        end=end,
        warmup_days=14.0 + shift / DAY,
    )


def _map(
    jobs: list[tuple[str, float]] | list[tuple[str, float, float]], n_jobs: int
) -> list[ReplayResult]:
    if n_jobs <= 1:
        return [_job(j) for j in jobs]
    with ProcessPoolExecutor(n_jobs, initializer=_init, initargs=(_TRACE, _CAPS)) as ex:
        return list(ex.map(_job, jobs))


def portfolio(
    trace: dict[str, FloatArray], caps: dict[str, int], hours: list[float], n_jobs: int
) -> tuple[dict[float, list[ReplayResult]], list[ReplayResult]]:
    """(rows per interval, equal-fetches rows for the self-paced peers)."""
    _use(trace, caps)
    n = len(trace)
    budgeted = [p for p in POLICIES if p not in SELF_PACED]
    jobs = [(p, n * 24.0 / h) for h in hours for p in budgeted]
    jobs += [(p, 0.0) for p in SELF_PACED]
    res = _map(jobs, n_jobs)
    per: dict[float, list[ReplayResult]] = {h: [] for h in hours}
    for (_p, b), r in zip(jobs, res, strict=True):
        if b > 0:
            per[n * 24.0 / b].append(r)
    peers = [r for (p, _b), r in zip(jobs, res, strict=True) if p in SELF_PACED]
    eq_jobs = [(p, r.fetches_per_day) for r in peers for p in ("smart", "fixed")]
    eq = _map(eq_jobs, n_jobs)
    peer_rows: list[ReplayResult] = []
    for i, r in enumerate(peers):
        peer_rows += [r, *eq[2 * i : 2 * i + 2]]
    return per, peer_rows


def check(rows: list[ReplayResult]) -> list[tuple[str, bool]]:
    """The issue's acceptance ratios for one budget (Must show 1 and 2)."""
    by = {r.policy: r for r in rows}
    s, f, o, so = by["smart"], by["fixed"], by["oracle"], by["sia-offline"]
    return [
        (
            f"delay ≤ 0.65×fixed ({s.mean_delay_min / f.mean_delay_min:.3f})",
            s.mean_delay_min <= 0.65 * f.mean_delay_min,
        ),
        (
            f"delay ≤ 1.25×oracle ({s.mean_delay_min / o.mean_delay_min:.3f})",
            s.mean_delay_min <= 1.25 * o.mean_delay_min,
        ),
        (
            f"delay < sia-offline ({s.mean_delay_min / so.mean_delay_min:.3f})",
            s.mean_delay_min < so.mean_delay_min,
        ),
        (f"missed ≤ fixed ({s.missed} vs {f.missed})", s.missed <= f.missed),
        (f"missed ≤ 1.2×oracle ({s.missed} vs {o.missed})", s.missed <= 1.2 * o.missed),
        (
            f"fetches/day ≤ budget ({s.fetches_per_day:.1f} ≤ {s.budget_per_day:.1f})",
            s.fetches_per_day <= s.budget_per_day + 1e-9,
        ),
        (
            f"alert precision {s.precision:.2f}, recall {s.recall:.2f} (≥ 0.9)",
            s.precision >= 0.9 and s.recall >= 0.9,
        ),
    ]


def cold_starts(
    trace: dict[str, FloatArray], hours: list[float], starts: int, n_jobs: int
) -> list[str]:
    """``smart``, ``fixed`` and ``oracle`` from ``starts`` cold starts spread over a
    day (0, 24/starts, … h before the trace's first midnight), same measured span.
    One replay is chaotic (a fetch that waits for the 24 h cap moves the next day's
    free requests); this shows how far the single start of the checks above can be
    from the average."""
    n = len(trace)
    shifts = [k * DAY / starts for k in range(starts)]
    pols = ("smart", "fixed", "oracle")
    jobs = [(p, n * 24.0 / h, s) for h in hours for p in pols for s in shifts]
    res = _map(jobs, n_jobs)
    out = [
        "| interval | smart delay (min) | fixed | oracle | smart ÷ fixed | range over"
        " starts | smart ÷ oracle | missed: smart mean (max) | missed within limit |"
        " alert precision: all starts (min) | recall: all starts (min) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for h in hours:
        by: dict[str, list[ReplayResult]] = {p: [] for p in pols}
        for (p, b, _s), r in zip(jobs, res, strict=True):
            if abs(b - n * 24.0 / h) < 1e-9:
                by[p].append(r)
        d = {p: np.array([r.mean_delay_min for r in by[p]]) for p in pols}
        se = {p: d[p].std(ddof=1) / np.sqrt(d[p].size) if d[p].size > 1 else 0.0 for p in pols}
        ratios = d["smart"] / d["fixed"]
        missed = np.array([r.missed for r in by["smart"]])
        limit = np.minimum([r.missed for r in by["fixed"]], [1.2 * r.missed for r in by["oracle"]])
        prec = np.array([r.precision for r in by["smart"]])
        rec = np.array([r.recall for r in by["smart"]])
        # pooled: every start's alerts together (a single start's ~120 alerts at 24 h
        # give its precision a standard error of about 0.025)
        ok = sum(r.alerts_correct for r in by["smart"])
        pool_p = ok / max(1, sum(r.alerts for r in by["smart"]))
        pool_r = ok / max(1, sum(r.fetches_with_missed for r in by["smart"]))
        out.append(
            f"| {h:g} h | {d['smart'].mean():.1f} ± {se['smart']:.1f} |"
            f" {d['fixed'].mean():.1f} ± {se['fixed']:.1f} |"
            f" {d['oracle'].mean():.1f} ± {se['oracle']:.1f} |"
            f" {d['smart'].mean() / d['fixed'].mean():.3f} |"
            f" {ratios.min():.3f}–{ratios.max():.3f} |"
            f" {d['smart'].mean() / d['oracle'].mean():.3f} |"
            f" {missed.mean():.0f} ({missed.max()}) |"
            f" {int((missed <= limit).sum())} of {missed.size} |"
            f" {pool_p:.2f} ({prec.min():.2f}) | {pool_r:.2f} ({rec.min():.2f}) |"
        )
    return out


def variants(
    trace: dict[str, FloatArray], caps: dict[str, int]
) -> list[tuple[str, dict[str, FloatArray], dict[str, int]]]:
    """Worlds derived from the trace that nothing was tuned on: each half of the
    feeds (one half moved by 3 d 5 h 17 min, as if published from another time zone
    and starting mid-week), and every feed with its window halved (more overflow, so
    capacity decides more of the plan), and every third feed falling silent after
    4 weeks (subscriptions outlive feeds: the budget must move to those that post)."""
    ids = sorted(trace)
    odd, even = ids[1::2], ids[0::2]
    halved = {f: max(5, caps.get(f, DEFAULT_CAPACITY) // 2) for f in ids}
    shift = 3 * DAY + 5 * 3600.0 + 17 * 60.0
    stop = trace_span(trace)[0] + 28 * DAY
    stopped = {
        f: (a[a < stop] if i % 3 == 0 else a) for i, (f, a) in enumerate(sorted(trace.items()))
    }
    return [
        ("odd half, moved 3 d 5 h 17 min", {f: trace[f] + shift for f in odd},
         {f: caps[f] for f in odd if f in caps}),
        ("even half", {f: trace[f] for f in even}, {f: caps[f] for f in even if f in caps}),
        ("windows halved", dict(trace), halved),
        ("every third feed silent after 4 weeks", stopped, dict(caps)),
    ]  # fmt: skip


def held_out(
    trace: dict[str, FloatArray], caps: dict[str, int], hours: list[float], n_jobs: int
) -> list[str]:
    """The must-show ratios on :func:`variants`, one cold start each."""
    pols = ("smart", "fixed", "sia-offline", "oracle")
    out = [
        "| world | feeds | interval | smart delay (min) | ÷ fixed | ÷ oracle | ÷ sia-offline"
        " | oracle ÷ fixed | missed: smart / fixed / oracle | alert precision / recall |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, tr, cp in variants(trace, caps):
        _use(tr, cp)
        n = len(tr)
        jobs = [(p, n * 24.0 / h) for h in hours for p in pols]
        res = _map(jobs, n_jobs)
        for i, h in enumerate(hours):
            by = {r.policy: r for r in res[i * len(pols) : (i + 1) * len(pols)]}
            s, f, o, so = by["smart"], by["fixed"], by["oracle"], by["sia-offline"]
            out.append(
                f"| {name} | {n} | {h:g} h | {s.mean_delay_min:.1f} |"
                f" {s.mean_delay_min / f.mean_delay_min:.3f} |"
                f" {s.mean_delay_min / o.mean_delay_min:.3f} |"
                f" {s.mean_delay_min / so.mean_delay_min:.3f} |"
                f" {o.mean_delay_min / f.mean_delay_min:.3f} |"
                f" {s.missed} / {f.missed} / {o.missed} |"
                f" {s.precision:.2f} / {s.recall:.2f} |"
            )
    return out


def scaling_replay(n_feeds: int, weeks: int, hours: float) -> tuple[ReplayResult, int]:
    trace, caps = generate(n_feeds, weeks, seed=1)
    items = sum(a.size for a in trace.values())
    return replay(trace, caps, "smart", n_feeds * 24.0 / hours), items


def replan_timing(n_feeds: int) -> tuple[float, float, float, float]:
    """(seconds for the first plan, seconds for a full re-plan, median and mean
    seconds per ``observe``) on feeds with a history and a learned-looking λ."""
    rng = np.random.default_rng(2)
    t0 = 1779667200.0
    sched = Scheduler(SchedulerConfig(budget_per_day=n_feeds * 4.0), t0)
    for i in range(n_feeds):
        sched.add_feed(i, host=f"h{i % 500}", last_fetch=t0 - rng.uniform(0, 6 * 3600.0))
        lam = rng.gamma(0.5, 1.0, 168) * rng.uniform(0.01, 2.0)
        sched.set_lambda(i, lam)
    t = time.perf_counter()
    sched.replan(t0)  # allocation + placement of every weekly pattern
    first_s = time.perf_counter() - t
    t = time.perf_counter()
    sched.replan(t0 + 60.0)  # e.g. after a wake-up: allocation + every next due time
    replan_s = time.perf_counter() - t
    # per-fetch update: observe() on a feed with a window of 20 items, 3 of them new
    n_obs = 3000
    now = t0 + 3600.0
    costs = np.empty(n_obs)
    for j in range(n_obs):
        fid = j % n_feeds
        now += 4.0  # 3,000 fetches over 3.3 h: one periodic re-allocation included
        items = tuple(
            ItemSighting(f"{fid}-{j}-{k}", now - 600.0 * (k + 1), k < 3) for k in range(20)
        )
        obs = FetchObservation(fetched_at=now, status="ok", items=items)
        t = time.perf_counter()
        sched.observe(fid, obs)
        costs[j] = time.perf_counter() - t
    return first_s, replan_s, float(np.median(costs)), float(costs.mean())


def placement_comparison(trace: dict[str, FloatArray]) -> list[str]:
    """Issue: "exhaustive search with pruning or iterative refinement — measure
    which is better". Both place n fetches/week on each feed's λ (measured over
    the whole trace) on an hourly grid, where the exhaustive DP is exact and
    affordable; refinement is also run on the scheduler's 5-minute grid."""
    from smartreader.core.schedule import expected_delay, place
    from smartreader.sim.replay import true_lambdas

    all_t = np.concatenate(list(trace.values()))
    lams = true_lambdas(trace, float(all_t.min()), float(all_t.max()) + 1.0)
    out = [
        "| λ shape | fetches/week | feeds | refine excess delay vs exact: mean | max |"
        " exact (hourly grid) | refine (hourly) | refine (5-min grid) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for shape in ("day profile", "hour × weekday"):
        for n in (3, 7, 14):
            ex_t = rf_t = fine_t = 0.0
            excess = []
            for lam in lams.values():
                if lam.sum() <= 0:
                    continue
                lp = np.tile(lam.reshape(7, 24).mean(0), 7) if shape == "day profile" else lam
                t = time.perf_counter()
                pe = place(lp, n, bins=168, method="exhaustive")
                ex_t += time.perf_counter() - t
                t = time.perf_counter()
                pr = place(lp, n, bins=168)
                rf_t += time.perf_counter() - t
                t = time.perf_counter()
                place(lp, n)
                fine_t += time.perf_counter() - t
                de = expected_delay(lp, pe, 168)
                excess.append(expected_delay(lp, pr, 168) / de - 1.0 if de > 0 else 0.0)
            k = max(1, len(excess))
            ex = np.array(excess)
            out.append(
                f"| {shape} | {n} | {len(excess)} | {100 * ex.mean():.2f} % |"
                f" {100 * ex.max():.2f} % | {1e3 * ex_t / k:.0f} ms | {1e3 * rf_t / k:.2f} ms |"
                f" {1e3 * fine_t / k:.2f} ms |"
            )
    return out


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:  # not available on this platform
        return "n/a"


def _md_table(rows: list[ReplayResult]) -> str:
    fixed = {round(r.budget_per_day, 3): r for r in rows if r.policy == "fixed"}
    out = [
        "| policy | budget/day | fetches/day | mean delay (min) | median | p95 | missed |"
        " delay ÷ fixed | missed ÷ fixed | alert precision | alert recall |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        f = fixed.get(round(r.budget_per_day, 3))
        budget = "—" if r.policy in SELF_PACED else f"{r.budget_per_day:.1f}"
        dr = f"{r.mean_delay_min / f.mean_delay_min:.3f}" if f and f.mean_delay_min else "—"
        mr = f"{r.missed / f.missed:.3f}" if f and f.missed else "—"
        out.append(
            f"| {r.policy} | {budget} | {r.fetches_per_day:.1f} | {r.mean_delay_min:.1f} |"
            f" {r.median_delay_min:.1f} | {r.p95_delay_min:.1f} | {r.missed} | {dr} | {mr} |"
            f" {r.precision:.2f} | {r.recall:.2f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    p.add_argument("--feeds", type=Path, default=DEFAULT_FEEDS)
    p.add_argument("--hours", default="1,3,6,12,24")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--scale-feeds", type=int, default=1000, help="0 skips the scaling replay")
    p.add_argument("--replan-feeds", type=int, default=10000, help="0 skips the re-plan timing")
    p.add_argument(
        "--starts", type=int, default=8, help="cold starts per budget for the spread (0 skips)"
    )
    p.add_argument(
        "--held-out", default="6,24", help="intervals for the derived worlds ('' skips them)"
    )
    p.add_argument("--out", type=Path, help="write the Markdown report here")
    args = p.parse_args(argv)
    hours = [float(h) for h in args.hours.split(",")]
    trace, caps = load(args.trace, args.feeds)
    wall = time.perf_counter()
    per, peers = portfolio(trace, caps, hours, args.jobs)
    lines = [
        "# Scheduling benchmarks",
        "",
        "Generated by `smartreader/sim/bench.py`; reproduce with",
        "",
        "```",
        "python benchmarks/scheduling.py --out docs/benchmarks.md",
        "```",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()},"
        f" {args.jobs} worker process(es).",
        "",
        f"## Replay: `{args.trace.name}` ({len(trace)} feeds), every policy cold,"
        " measured over weeks 3–12",
        "",
        "Budget = feeds × 24 / H requests per day. Ratios are against `fixed` at the"
        " same budget. Alerts: precision/recall of the policy's missed-item alerts"
        " against the replay's ground truth.",
    ]
    all_ok = True
    for h in hours:
        rows = per[h]
        lines += ["", f"### Average interval {h:g} h", "", _md_table(rows), ""]
        for text, ok in check(rows):
            all_ok &= ok
            lines.append(f"- {'PASS' if ok else 'FAIL'}: {text}")
        print(f"\n== {h:g} h ==\n{format_table(rows)}", flush=True)
    lines += [
        "",
        "### Self-paced peers at equal fetches/day",
        "",
        "`miniflux` and `commafeed` choose their own rate; `smart` and `fixed` are re-run"
        " with the fetches/day each peer realised as their budget.",
        "",
        _md_table(peers),
    ]
    print(f"\n== peers at equal fetches/day ==\n{format_table(peers)}", flush=True)
    if args.starts > 1:
        lines += [
            "",
            f"### Spread over {args.starts} cold starts",
            "",
            "The checks above use one cold start, at the trace's first midnight. One"
            " replay is chaotic: a fetch that waits for the 24 h cap moves the next"
            " day's free requests, so a different start changes every later fetch."
            f" Here `smart`, `fixed` and `oracle` start cold {args.starts} times, every"
            f" {24 / args.starts:g} h of the day before the first midnight, and are"
            " measured over the same weeks 3–12: mean ± standard error of the mean"
            " delay, smart ÷ fixed as the ratio of the means and its range over the"
            " starts (each start against `fixed` from the same start), and `smart`'s"
            " missed items (starts where they are within the stricter of ≤ fixed and"
            " ≤ 1.2 × oracle from the same start). Alert precision and recall are"
            " pooled over every start's alerts (one start's ~120 alerts at 24 h leave"
            " its precision a standard error of about 0.025), with the worst start.",
            "",
            *cold_starts(trace, hours, args.starts, args.jobs),
        ]
    if args.held_out:
        lines += [
            "",
            "### Worlds derived from the trace",
            "",
            "The scheduler's constants were chosen on the replay above; the issue warns"
            " that the same code will run on traces it has never seen. These worlds are"
            " cut from the same trace but differ in what matters to a plan: which feeds"
            " share the budget, where their busy hours fall in the day and week, and how"
            " often their windows overflow. Every policy starts cold once, measured over"
            " weeks 3–12; `oracle ÷ fixed` shows how much any schedule can gain over"
            " fixed intervals in that world.",
            "",
            *held_out(trace, caps, [float(h) for h in args.held_out.split(",")], args.jobs),
        ]
    lines += [
        "",
        "## Placement: exhaustive search vs iterative refinement",
        "",
        "Each feed's λ(t) (measured over the whole trace), n fetches per week. Exact ="
        " exhaustive search (every position of the earliest fetch, dynamic programming"
        " for the rest, pruned to positions that leave room for the remaining fetches;"
        " O(n·g²) per start) on an hourly grid; refinement = the scheduler's method"
        " (coordinate refinement from the √λ quantiles). Times are per placement.",
        "",
        *placement_comparison(trace),
    ]
    lines += ["", "## Scaling", ""]
    if args.scale_feeds:
        load0 = _load()
        r, items = scaling_replay(args.scale_feeds, 12, 6.0)
        lines.append(
            f"- Replay of {args.scale_feeds:,} synthetic feeds × 12 weeks ({items:,} items)"
            f" at a 6 h budget, `smart`: **{r.wall_s:.1f} s**"
            f" (target ≤ 60 s: {'met' if r.wall_s <= 60 else 'NOT met'})"
            f" ({r.fetches_per_day:.0f} fetches/day, mean delay {r.mean_delay_min:.1f} min;"
            f" 1-min load average {load0} before, {_load()} after, {os.cpu_count()} CPUs)."
        )
    if args.replan_feeds:
        first, rp, med, mean = replan_timing(args.replan_feeds)
        lines.append(
            f"- {args.replan_feeds:,} feeds: first plan (allocation + placing every weekly"
            f" pattern) **{first:.2f} s**; full re-plan (allocation + every next due time,"
            f" patterns kept) **{rp:.3f} s** (target ≤ 1 s: {'met' if rp <= 1 else 'NOT met'})."
        )
        lines.append(
            f"- Per-fetch update (`Scheduler.observe`, {args.replan_feeds:,} feeds):"
            f" median **{med * 1e3:.3f} ms**, mean {mean * 1e3:.3f} ms (target ≤ 1 ms:"
            f" {'met' if mean <= 1e-3 else 'NOT met'}; the mean includes one periodic"
            " re-allocation of every feed and the re-placements it triggers)."
        )
    lines += [
        "",
        f"Acceptance checks: {'all pass' if all_ok else 'SOME FAIL (see FAIL lines)'}.",
        f"Total wall time {time.perf_counter() - wall:.0f} s.",
        "",
    ]
    text = "\n".join(lines)
    print("\n" + "\n".join(lines[-8:]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
