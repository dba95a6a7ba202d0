"""``smartreader replay``: replay a posting-time trace against polling policies.

    smartreader replay TRACE.csv --feeds FEEDS.csv (--budget N | --interval-hours H)
        [--policy P[,P...] | --policy all] [--warmup-days 14] [--fetch-log OUT.csv] [--json]

One policy prints one line (or, with ``--json``, one JSON object with the fields the
issue names). Several policies (a comma list or ``all``) run at the same budget and
print a side-by-side table with each policy's delay and missed items as a ratio of
``fixed``'s; with ``--json`` a JSON list. Peers whose own rule sets their rate
(``miniflux``, ``commafeed``) are also compared at equal fetches/day: ``smart`` and
``fixed`` are re-run at the fetches/day the peer realised.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from smartreader.core.content import DEFAULT_BETA
from smartreader.core.estimator import DAY
from smartreader.sim.content import CONTENT_POLICIES, load_content, replay_content
from smartreader.sim.content import _line as content_line
from smartreader.sim.policies import POLICIES, SELF_PACED
from smartreader.sim.replay import ReplayResult, replay, trace_span
from smartreader.sim.world import FloatArray, TraceError, load_capacities, load_trace

# --help is plain text (the module docstring's first line is reST)
DESCRIPTION = (
    "Replay a posting-time trace against polling policies. It reads only the trace "
    "files it is given and uses no data folder."
)


def _policies(text: str) -> list[str]:
    known = tuple(dict.fromkeys((*POLICIES, *CONTENT_POLICIES)))  # both list smart and fixed
    names = list(POLICIES) if text == "all" else [p.strip() for p in text.split(",") if p]
    bad = [p for p in names if p not in known]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown policy {', '.join(bad) or text!r}; choose from {', '.join(known)} or all"
        )
    return names


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "trace", type=Path, help="feed_id,published CSV (epoch seconds, UTC; unused with --content)"
    )
    p.add_argument("--feeds", type=Path, help="feed_id,capacity CSV (default capacity 20)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--budget", type=float, help="requests per day")
    g.add_argument("--interval-hours", type=float, help="average interval; budget = feeds × 24 / H")
    p.add_argument(
        "--policy",
        type=_policies,
        default=["smart"],
        help=f"one of {', '.join(POLICIES)}, a comma list, or all (default smart)",
    )
    p.add_argument(
        "--warmup-days",
        type=float,
        default=14.0,
        metavar="DAYS",
        help="days every policy learns from before delay and missed items are measured "
        "(default 14)",
    )
    p.add_argument(
        "--fetch-log",
        type=Path,
        help="write feed_id,fetched,new_items,missed_estimate (single policy only)",
    )
    p.add_argument(
        "--content",
        type=Path,
        help="content trace (JSON lines, traces/CONTENT.md): fetched items carry text; "
        f"enables {', '.join(CONTENT_POLICIES)} and reports profile quality Q",
    )
    p.add_argument(
        "--beta", type=float, default=DEFAULT_BETA, help="novelty threshold β (with --content)"
    )
    p.add_argument("--json", action="store_true", help="print JSON")


def add_replay_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``replay`` on the top-level CLI's subparsers."""
    p: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a posting trace against polling policies (smart, fixed, peers)",
        description=DESCRIPTION,
    )
    add_arguments(p)
    return p


def load(trace_path: Path, feeds_path: Path | None) -> tuple[dict[str, FloatArray], dict[str, int]]:
    trace = load_trace(trace_path)
    caps = load_capacities(feeds_path)
    for fid in caps:
        trace.setdefault(fid, np.zeros(0))
    return trace, caps


def _line(r: ReplayResult) -> str:
    return (
        f"{r.policy}: {r.feeds} feeds, {r.items} items, budget {r.budget_per_day:.1f}/day,"
        f" {r.fetches_per_day:.1f} fetches/day; delay mean {r.mean_delay_min:.1f} min,"
        f" median {r.median_delay_min:.1f}, p95 {r.p95_delay_min:.1f}; missed {r.missed};"
        f" alerts {r.alerts} ({r.alerts_correct} correct,"
        f" {r.fetches_with_missed} fetches with missed items)"
    )


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b > 0 else "-"


def format_table(rows: list[ReplayResult]) -> str:
    """Side-by-side table; ratios are against the ``fixed`` row at the same budget."""
    fixed = {round(r.budget_per_day, 3): r for r in rows if r.policy == "fixed"}
    head = (
        f"{'policy':<12} {'budget/d':>9} {'fetch/d':>8} {'mean min':>9} {'median':>7}"
        f" {'p95':>7} {'missed':>7} {'delay/fixed':>11} {'missed/fixed':>12}"
        f" {'alert P':>7} {'alert R':>7}"
    )
    out = [head, "-" * len(head)]
    for r in rows:
        f = fixed.get(round(r.budget_per_day, 3))
        out.append(
            f"{r.policy:<12} {r.budget_per_day:>9.1f} {r.fetches_per_day:>8.1f}"
            f" {r.mean_delay_min:>9.1f} {r.median_delay_min:>7.1f} {r.p95_delay_min:>7.1f}"
            f" {r.missed:>7d} {_ratio(r.mean_delay_min, f.mean_delay_min) if f else '-':>11}"
            f" {_ratio(r.missed, f.missed) if f else '-':>12}"
            f" {r.precision:>7.2f} {r.recall:>7.2f}"
        )
    return "\n".join(out)


def compare(
    trace: dict[str, FloatArray],
    caps: dict[str, int],
    policies: list[str],
    budget: float,
    warmup_days: float = 14.0,
) -> list[ReplayResult]:
    """Run every policy at ``budget``; self-paced peers also get ``smart`` and
    ``fixed`` re-run at the fetches/day they realised."""
    rows = [replay(trace, caps, p, budget, warmup_days=warmup_days) for p in policies]
    for r in list(rows):
        if r.policy in SELF_PACED and r.fetches_per_day > 0:
            for p in ("smart", "fixed"):
                rows.append(replay(trace, caps, p, r.fetches_per_day, warmup_days=warmup_days))
    return rows


def _run_content(args: argparse.Namespace) -> int:
    """Replay on the content trace: the same arrivals, items with text."""
    content = load_content(args.content)
    caps = load_capacities(args.feeds)
    if args.budget is not None:
        budget = float(args.budget)
    else:
        budget = len(content.feeds) * 24.0 / args.interval_hours
    truth = content.novel()
    rows = [
        replay_content(
            content, caps, name, budget, beta=args.beta, warmup_days=args.warmup_days, truth=truth
        )
        for name in args.policy
    ]
    if args.json:
        print(json.dumps([r.as_json() for r in rows] if len(rows) > 1 else rows[0].as_json()))
    else:
        print("\n".join(content_line(r) for r in rows))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    """Exit status 0; 2 for arguments or files it cannot use, with one line saying why."""
    problem = _check_arguments(args)
    if problem:
        print(f"smartreader replay: {problem}")
        return 2
    try:
        return _run(args)
    except TraceError as e:
        print(f"smartreader replay: {e}")
        return 2
    except OSError as e:  # missing, a folder, unreadable; or the fetch log's folder
        print(f"smartreader replay: {e.filename or ''}: {e.strerror or e}")
        return 2


def _check_arguments(args: argparse.Namespace) -> str | None:
    for flag, value in (("--budget", args.budget), ("--interval-hours", args.interval_hours)):
        if value is not None and not (math.isfinite(value) and value > 0):
            return f"{flag} must be a positive number"
    if not (math.isfinite(args.warmup_days) and args.warmup_days >= 0):
        return "--warmup-days must be 0 or more"
    log = getattr(args, "fetch_log", None)
    if log is not None and not log.parent.is_dir():  # found before the replay, not after
        return f"--fetch-log: there is no folder {str(log.parent)!r}"
    return None


def _run(args: argparse.Namespace) -> int:
    if getattr(args, "content", None) is not None:
        if args.fetch_log:
            print("smartreader replay: --fetch-log is not available with --content")
            return 2
        return _run_content(args)
    unknown = [p for p in args.policy if p not in POLICIES]
    if unknown:
        print(f"smartreader replay: {', '.join(unknown)} needs --content FILE.jsonl")
        return 2
    trace, caps = load(args.trace, args.feeds)
    if not any(a.size for a in trace.values()):
        print(f"smartreader replay: {args.trace.name} has no items")
        return 2
    if args.budget is not None:
        budget = float(args.budget)
    else:
        budget = len(trace) * 24.0 / args.interval_hours
    start, end = trace_span(trace)
    if args.warmup_days * DAY >= end - start:
        days = (end - start) / DAY
        print(
            f"smartreader replay: the trace spans {days:g} day{'' if days == 1 else 's'} and"
            f" the warm-up {args.warmup_days:g}: nothing would be measured (see --warmup-days)"
        )
        return 2
    policies: list[str] = args.policy
    if len(policies) == 1:
        log: list[tuple[str, float, int, float]] | None = [] if args.fetch_log else None
        res = replay(trace, caps, policies[0], budget, warmup_days=args.warmup_days, fetch_log=log)
        if log is not None:
            with open(args.fetch_log, "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(["feed_id", "fetched", "new_items", "missed_estimate"])
                for fid, t, n, m in log:
                    w.writerow([fid, round(t), n, round(m, 3)])
        print(json.dumps(res.as_json()) if args.json else _line(res))
        return 0
    if args.fetch_log:
        print("smartreader replay: --fetch-log needs a single --policy")
        return 2
    rows = compare(trace, caps, policies, budget, args.warmup_days)
    if args.json:
        print(json.dumps([r.as_json() for r in rows]))
    else:
        print(format_table(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="smartreader replay", description=DESCRIPTION)
    add_arguments(p)
    return run_replay(p.parse_args(argv))
