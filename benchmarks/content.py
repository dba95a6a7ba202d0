"""Content-aware polling benchmark on ``dev-content`` (Roitman et al. on real text).

    python benchmarks/content.py [--content C.jsonl --feeds F.csv] [--hours 1,3,6,12,24]
        [--betas -0.5,0,0.5,1,2] [--jobs 2] [--out docs/benchmarks-content.md]

Part 1: probes vs profile quality Q (Eq. 4, W = 20) for content-free (``smart``,
``fixed``, ``roitman-*-free``) and content-based (``smart-novelty``, ``roitman-*``)
policies at several budgets (feeds × 24 / H requests/day), β = default.
Part 2: β sweep at one budget. Part 3: the issue's check at equal budget —
novel-item mean delay below ``smart``'s, all-item delay ≤ 1.1 × ``smart``'s.
The Markdown report goes to ``--out`` and stdout.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smartreader.core.content import DEFAULT_BETA
from smartreader.core.scheduler import SchedulerConfig
from smartreader.sim.content import (
    TRUTH_BETA,
    ContentResult,
    ContentTrace,
    load_content,
    replay_content,
    with_reposts,
)
from smartreader.sim.world import load_capacities

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
FREE = ("fixed", "smart", "roitman-fair-free", "roitman-greedy-free")
BASED = ("smart-novelty", "roitman-fair", "roitman-greedy")

_STATE: dict[str, object] = {}


REPOSTS_PER_DAY = 20.0


def repost_feeds(trace: ContentTrace) -> list[str]:
    """Every third GitHub feed gets a re-posting bot (section 5)."""
    return [f for f in trace.feeds if f.startswith("gh:")][::3]


def _init(content: Path, feeds: Path | None) -> None:
    trace = load_content(content)
    _STATE["trace"] = trace
    _STATE["caps"] = load_capacities(feeds)
    _STATE["truth"] = trace.novel(TRUTH_BETA)
    rp = with_reposts(trace, repost_feeds(trace), REPOSTS_PER_DAY)
    _STATE["trace+reposts"] = rp
    _STATE["truth+reposts"] = rp.novel(TRUTH_BETA)


def _job(job: tuple[Any, ...]) -> ContentResult:
    """``(policy, budget, beta[, trace suffix[, novel_share_k or None[, phase_s]]])``."""
    name, budget, beta = job[:3]
    suffix = job[3] if len(job) > 3 else ""
    config = SchedulerConfig(novel_share_k=job[4]) if len(job) > 4 and job[4] else None
    phase = job[5] if len(job) > 5 else 0.0
    trace = _STATE["trace" + suffix]
    assert isinstance(trace, ContentTrace)
    return replay_content(
        trace,
        _STATE["caps"],  # type: ignore[arg-type]
        name,
        budget,
        beta=beta,
        truth=_STATE["truth" + suffix],  # type: ignore[arg-type]
        config=config,
        phase_s=phase,
    )


def _row(r: ContentResult, ref: ContentResult | None) -> str:
    beta = "–" if r.beta is None else f"{r.beta:g}"
    qr = f"{r.quality / ref.quality:.3f}" if ref else "–"
    dr = f"{r.mean_delay_min / ref.mean_delay_min:.2f}" if ref and ref.mean_delay_min else "–"
    nr = f"{r.novel_delay_min / ref.novel_delay_min:.2f}" if ref and ref.novel_delay_min else "–"
    return (
        f"| {r.policy} | {beta} | {r.budget_per_day:.0f} | {r.fetches_per_day:.1f} |"
        f" {r.quality:.4f} | {qr} | {r.mean_delay_min:.1f} | {dr} | {r.novel_delay_min:.1f} |"
        f" {nr} | {r.missed} | {r.novel_missed} |"
    )


def _acceptance(h: float, s: ContentResult, c: ContentResult) -> str:
    """Issue 7's must-show 2 at one budget: novel-item delay below ``smart``'s, all-item
    delay within 1.1 × ``smart``'s."""
    ok1 = c.novel_delay_min < s.novel_delay_min
    ok2 = c.mean_delay_min <= 1.1 * s.mean_delay_min
    return (
        f"- {h:g} h: {'PASS' if ok1 else 'FAIL'}: novel delay {c.novel_delay_min:.2f} <"
        f" {s.novel_delay_min:.2f} min; {'PASS' if ok2 else 'FAIL'}: all-item delay"
        f" {c.mean_delay_min:.1f} ≤ 1.1 × {s.mean_delay_min:.1f} min"
        f" ({c.mean_delay_min / s.mean_delay_min:.2f}×)"
    )


# cold starts every 3 h of the day: one run moves by ±2 %, the mean of 8 by ±0.7 %
PHASES = tuple(h * 3600.0 for h in range(0, 24, 3))


def _mean_result(rs: list[ContentResult]) -> ContentResult:
    """The delays averaged over replicates (the rest from the first)."""
    return replace(
        rs[0],
        mean_delay_min=float(np.mean([r.mean_delay_min for r in rs])),
        novel_delay_min=float(np.mean([r.novel_delay_min for r in rs])),
    )


HEAD = (
    "| policy | β | budget/day | probes/day | Q | Q ÷ smart | delay all (min) | ÷ smart |"
    " delay novel (min) | ÷ smart | missed | novel missed |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def headroom(trace: ContentTrace, truth: dict[str, list[bool]]) -> list[str]:
    """What a scheduler could gain from knowing which items are novel, on this trace:
    per-feed novel share, how differently novel items fall over the day (total
    variation vs all items, next to the same statistic for a random subset of the
    same size: the sampling noise), and the best novel-item delay ratio √λ_novel
    allocation can reach over √λ_all (uniform Poisson, no capacity limits)."""
    rng = np.random.default_rng(0)
    rows = ["| feed | items | novel share | TV(hour: novel vs all) | TV(random subset) |"]
    rows.append("|---|---:|---:|---:|---:|")
    lam_all, lam_nov = [], []
    for fid in trace.feeds:
        a = trace.arrivals[fid]
        m = np.asarray(truth[fid], dtype=bool)
        h = (a % 86400 // 3600).astype(np.int64)
        p_all = np.bincount(h, minlength=24) / max(1, a.size)

        def tv(mask: np.ndarray, h: np.ndarray = h, p_all: np.ndarray = p_all) -> float:
            q = np.bincount(h[mask], minlength=24) / max(1, int(mask.sum()))
            return 0.5 * float(np.abs(q - p_all).sum())

        rnd = np.zeros(a.size, dtype=bool)
        rnd[rng.choice(a.size, int(m.sum()), replace=False)] = True
        rows.append(f"| {fid} | {a.size} | {m.mean():.2f} | {tv(m):.2f} | {tv(rnd):.2f} |")
        lam_all.append(float(a.size))
        lam_nov.append(float(m.sum()))
    la, ln = np.asarray(lam_all), np.asarray(lam_nov)
    # novel delay ∝ Σ λn_i / f_i; f ∝ √λn (optimal) vs f ∝ √λ (content-free), same Σ f
    best = float(np.sqrt(ln).sum() ** 2 / (np.sqrt(la).sum() * (ln / np.sqrt(la)).sum()))
    return [
        *rows,
        "",
        f"Best possible novel-item delay of √λ_novel allocation ÷ √λ_all allocation on"
        f" these rates (uniform Poisson, no capacity limits): **{best:.3f}**.",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--content", type=Path, default=TRACES / "dev-content.jsonl")
    p.add_argument("--feeds", type=Path, default=TRACES / "dev-portfolio.feeds.csv")
    p.add_argument("--hours", default="1,3,6,12,24")
    p.add_argument("--betas", default="-0.5,0,0.5,1,2")
    p.add_argument("--beta-hours", type=float, default=6.0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    _init(a.content, a.feeds)
    trace = _STATE["trace"]
    assert isinstance(trace, ContentTrace)
    n = len(trace.feeds)
    hours = [float(h) for h in a.hours.split(",")]
    betas = [float(b) for b in a.betas.split(",")]
    jobs = [(pol, n * 24.0 / h, DEFAULT_BETA) for h in hours for pol in FREE + BASED]
    bb = n * 24.0 / a.beta_hours
    jobs += [(pol, bb, b) for b in betas if b != DEFAULT_BETA for pol in BASED]
    jobs += [(pol, bb, DEFAULT_BETA) for pol in ("roitman-fair+sim", "roitman-greedy+sim")]
    rjobs = [
        (pol, n * 24.0 / h, DEFAULT_BETA, "+reposts")
        for h in hours
        for pol in ("smart", "smart-novelty")
    ]
    k_default = SchedulerConfig().novel_share_k
    ks = [k for k in (5.0, 20.0, 60.0) if k != k_default]
    kjobs = [("smart-novelty", n * 24.0 / h, DEFAULT_BETA, "", k) for k in ks for h in hours]
    # section 3 over replicates: the same measured span, cold starts 3 h, 6 h, …
    # earlier (phase 0 is section 1's run)
    pjobs = [
        (pol, n * 24.0 / h, DEFAULT_BETA, "", None, ph)
        for ph in PHASES[1:]
        for h in hours
        for pol in ("smart", "smart-novelty")
    ]
    every = jobs + rjobs + kjobs + pjobs
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs, initializer=_init, initargs=(a.content, a.feeds)) as ex:
            res = list(ex.map(_job, every))
    else:
        res = [_job(j) for j in every]
    n0 = len(jobs) + len(rjobs) + len(kjobs)
    pres = res[n0:]
    kres = res[len(jobs) + len(rjobs) : n0]
    rres = res[len(jobs) : len(jobs) + len(rjobs)]
    by_phase = {(j[0], round(j[1], 3), j[5]): r for j, r in zip(pjobs, pres, strict=True)}
    res = res[: len(jobs)]
    by = {(r.policy, round(r.budget_per_day, 3), r.beta): r for r in res}

    def smart(b: float) -> ContentResult | None:
        return by.get(("smart", round(b, 3), None))

    nov = sum(sum(v) for v in _STATE["truth"].values())  # type: ignore[attr-defined]
    tot = sum(len(v) for v in _STATE["truth"].values())  # type: ignore[attr-defined]
    out = [
        "# Content-aware polling benchmarks",
        "",
        "Generated by `benchmarks/content.py`; reproduce with",
        "",
        "```",
        "python benchmarks/content.py --out docs/benchmarks-content.md",
        "```",
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()},"
        f" {a.jobs} worker process(es), {time.perf_counter() - t0:.0f} s.",
        "",
        f"Trace: `{a.content.name}` — {n} feeds (17 GitHub commit streams, DER SPIEGEL"
        f" tops), {tot} items; {nov} ({100 * nov / tot:.0f} %) are *novel* by the offline"
        f" filter (β = {TRUTH_BETA:g}, whole-trace idf, every item seen). Every policy starts"
        " cold; metrics over weeks 3–12. Q = Eq. 4 with W = 20 (1 = the profile of a reader"
        " who saw every item). Budget = feeds × 24 / H requests/day. Ratios against `smart`"
        " at the same budget.",
        "",
        f"## 1. Probes vs Q at several budgets (β = {DEFAULT_BETA:g})",
        "",
    ]
    for h in hours:
        b = n * 24.0 / h
        out += [f"### Average interval {h:g} h", "", HEAD]
        for pol in FREE + BASED:
            r = by[(pol, round(b, 3), DEFAULT_BETA if pol in BASED else None)]
            out.append(_row(r, smart(b)))
        out.append("")
    out += [f"## 2. β sweep at {a.beta_hours:g} h ({bb:.0f} requests/day)", "", HEAD]
    ref = smart(bb)
    for pol in BASED:
        for bt in sorted(set(betas) | {DEFAULT_BETA}):
            r = by.get((pol, round(bb, 3), bt))
            if r is not None:
                out.append(_row(r, ref))
    for pol in ("roitman-fair+sim", "roitman-greedy+sim"):
        out.append(_row(by[(pol, round(bb, 3), DEFAULT_BETA)], ref))
    if ref is not None:
        out.append(_row(ref, ref))
    out += [
        "",
        "## 3. Acceptance at equal budget (`smart-novelty` vs `smart`)",
        "",
        "The replay is chaotic: a small change early on (a different cold start) moves"
        f" a policy's delay by a few per cent. So each policy runs {len(PHASES)} times, starting"
        f" cold {', '.join(f'{p / 3600:g} h' for p in PHASES)} before the trace's first"
        " day (same measured span); the checks use the means.",
        "",
        "| H | smart novel delay (min), per run | smart-novelty | mean ratio |",
        "|---:|---|---|---:|",
    ]
    checks3 = []
    for h in hours:
        b = round(n * 24.0 / h, 3)
        s0, c0 = smart(b), by[("smart-novelty", b, DEFAULT_BETA)]
        assert s0 is not None
        ss = [s0] + [by_phase[("smart", b, p)] for p in PHASES[1:]]
        cs = [c0] + [by_phase[("smart-novelty", b, p)] for p in PHASES[1:]]
        ms, mc = _mean_result(ss), _mean_result(cs)
        out.append(
            f"| {h:g} | {' / '.join(f'{r.novel_delay_min:.1f}' for r in ss)} |"
            f" {' / '.join(f'{r.novel_delay_min:.1f}' for r in cs)} |"
            f" {mc.novel_delay_min / ms.novel_delay_min:.3f} |"
        )
        checks3.append(_acceptance(h, ms, mc))
    out += ["", *checks3]
    out += [
        "",
        "## 4. What there is to exploit on `dev-content`",
        "",
        *headroom(trace, _STATE["truth"]),  # type: ignore[arg-type]
    ]
    rp = _STATE["trace+reposts"]
    assert isinstance(rp, ContentTrace)
    rtruth = _STATE["truth+reposts"]
    rn = sum(arr.size for arr in rp.arrivals.values())
    rnov = sum(sum(v) for v in rtruth.values())  # type: ignore[attr-defined]
    out += [
        "",
        "## 5. Where novelty has something to exploit: the same trace plus re-posts",
        "",
        f"Every third GitHub feed ({', '.join(f'`{f}`' for f in repost_feeds(trace))}) also"
        f" re-posts a copy of its latest item about {REPOSTS_PER_DAY:g} times a day around"
        " 03:00 UTC (`with_reposts`: real text, synthetic timing — a bot re-announcing, a"
        f" feed re-dating old posts). {rn} items, {rnov} ({100 * rnov / rn:.0f} %) novel by"
        " the offline filter. Budget counts the same 18 feeds.",
        "",
        HEAD,
    ]
    rby = {round(r.budget_per_day, 3): {} for r in rres}
    for r in rres:
        rby[round(r.budget_per_day, 3)][r.policy] = r
    checks = []
    for h in hours:
        b = n * 24.0 / h
        s_, c_ = rby[round(b, 3)]["smart"], rby[round(b, 3)]["smart-novelty"]
        out += [_row(s_, s_), _row(c_, s_)]
        checks.append(_acceptance(h, s_, c_))
    out += ["", *checks]
    # How much of section 3's margin is the choice of k (novel_lambda's shrinkage of
    # the novel share by hour): the replay is chaotic, small changes move it.
    out += [
        "",
        "## 6. Sensitivity: the shrinkage of the novel share by hour",
        "",
        "`smart-novelty` places and weighs fetches by λ_all(t) × the novel share by hour"
        " of day, shrunk toward the feed's overall novel share: by default as far as the"
        " evidence says (positive-part James–Stein on the hourly chi-square,"
        " `SchedulerConfig.novel_share_k` = 0), or with a fixed weight of k items per"
        " hour (k = 20 was the default before). Novel-item delay ÷ `smart`'s on"
        " `dev-content` (one cold start each, as in section 1): the differences are"
        " within the replay's run-to-run chaos (±0.02).",
        "",
        "| k | " + " | ".join(f"{h:g} h" for h in hours) + " | mean |",
        "|---:|" + "---:|" * (len(hours) + 1),
    ]
    for k in sorted([*ks, k_default]):
        ratios = []
        for h in hours:
            b = round(n * 24.0 / h, 3)
            s_ = smart(b)
            assert s_ is not None
            c_ = (
                by[("smart-novelty", b, DEFAULT_BETA)]
                if k == k_default
                else next(
                    r for j, r in zip(kjobs, kres, strict=True) if j[4] == k and round(j[1], 3) == b
                )
            )
            ratios.append(c_.novel_delay_min / s_.novel_delay_min)
        label = "adaptive (default)" if k == k_default and k <= 0 else f"{k:g}"
        out.append(
            f"| {label} | "
            + " | ".join(f"{x:.3f}" for x in ratios)
            + f" | {float(np.mean(ratios)):.3f} |"
        )
    text = "\n".join(out) + "\n"
    print(text)
    if a.out:
        a.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
