"""Content-aware replay: the polling world of ``shared/traces/README.md`` with item text.

    python -m smartreader.sim.content CONTENT.jsonl [--feeds FEEDS.csv]
        (--budget N | --interval-hours H) [--policy P[,P...]] [--beta B] [--json]

The content trace (``shared/traces/CONTENT.md``) gives every item of a feed its
arrival time and text; the world is :class:`smartreader.sim.world.World` (item
``j`` of feed F has uid ``F#j``, so a policy looks the text up by uid, and only
for items a fetch returned).

Policies (all driven like :mod:`smartreader.sim.policies`):

* ``smart`` — the app's scheduler, content-free (the periodic estimator).
* ``smart-novelty`` — the same scheduler, but every fetch's new items go through a
  per-feed :class:`~smartreader.core.content.NoveltyFilter` first and the ones that
  are not novel are reported with ``novel=False``
  (:func:`~smartreader.core.content.filter_sightings`): through its public
  ``observe`` the scheduler learns the rate of novel items (budget share, fetch
  times) next to the rate of all items (capacity, missed items).
* ``roitman-fair`` / ``roitman-greedy`` — Roitman et al. §6: every ``tick`` the
  budget's share of probes goes to the channels of highest importance (greedy) or
  to channels drawn at random in proportion to importance (fair); a channel's
  rate is learned by Eq. 5 from its novel items. Importance = rate × time since
  the channel's last probe (the expected number of novel items waiting).
  ``-free`` variants learn Eq. 5 from every item (the paper's content-free
  policies); a ``+sim`` suffix refines rates by inter-feed similarity (Eq. 10).

Metrics over the measured span (after the warm-up): probes (fetches/day),
profile quality Q (Eq. 4, W = 20, the time average of the cosine between the
profile of the last W items the policy has seen and that of the last W items
published, averaged over feeds; both with one idf measured over the whole
trace, so Q measures what a policy missed, not idf drift), mean delay over all
items and over *novel* items (novel = the offline filter at β = 0 with the
whole-trace idf, every item seen).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from smartreader.core.content import (
    DEFAULT_BETA,
    DEFAULT_WINDOW,
    BoltzmannRate,
    FixedIdf,
    NoveltyFilter,
    SimilarityMatrix,
    Terms,
    Vocabulary,
    filter_sightings,
    item_terms,
    novel_mask,
)
from smartreader.core.models import FetchObservation
from smartreader.core.scheduler import SchedulerConfig
from smartreader.sim.policies import FixedPolicy, Policy, SchedulerPolicy
from smartreader.sim.world import FloatArray, TraceError, World, load_capacities, parse_time

DAY = 86400.0
CONTENT_POLICIES = (
    "smart",
    "smart-novelty",
    "fixed",
    "roitman-fair",
    "roitman-greedy",
    "roitman-fair-free",
    "roitman-greedy-free",
    "roitman-fair+sim",
    "roitman-greedy+sim",
)
TRUTH_BETA = 0.0  # which items count as "novel" for the novel-item delay


@dataclass
class ContentTrace:
    """Per feed: arrivals (sorted) and each item's terms, in the same order."""

    arrivals: dict[str, FloatArray]
    terms: dict[str, list[Terms]]
    idf: FixedIdf  # over the whole trace (for Q and the novelty ground truth)

    @property
    def feeds(self) -> list[str]:
        return sorted(self.arrivals)

    def novel(
        self, beta: float = TRUTH_BETA, window: int = DEFAULT_WINDOW
    ) -> dict[str, list[bool]]:
        return {f: novel_mask(self.terms[f], self.idf, window, beta) for f in self.feeds}


def load_content(path: str | Path, *, pairs: bool = True) -> ContentTrace:
    rows: dict[str, list[tuple[float, str, str]]] = {}
    name = Path(path).name
    try:
        with open(path, encoding="utf-8-sig") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    o = json.loads(line)
                except json.JSONDecodeError as e:
                    raise TraceError(f"{name} line {n}: not JSON ({e.msg})") from None
                if not isinstance(o, dict) or "feed_id" not in o or "arrival" not in o:
                    raise TraceError(f"{name} line {n}: not an item with feed_id and arrival")
                try:
                    arrival = parse_time(str(o["arrival"]))
                except ValueError as e:
                    raise TraceError(f"{name} line {n}: arrival {e}") from None
                fid = str(o["feed_id"])
                title, summary = str(o.get("title") or ""), str(o.get("summary") or "")
                rows.setdefault(fid, []).append((arrival, title, summary))
    except UnicodeDecodeError as e:
        raise TraceError(f"{name}: not a UTF-8 text file (byte {e.start})") from None
    arrivals: dict[str, FloatArray] = {}
    terms: dict[str, list[Terms]] = {}
    for fid, items in rows.items():
        items.sort(key=lambda r: r[0])  # stable: file order breaks ties, as World does
        arrivals[fid] = np.asarray([r[0] for r in items], dtype=np.float64)
        terms[fid] = [item_terms(t, s, pairs=pairs) for _, t, s in items]
    return ContentTrace(arrivals, terms, _trace_idf(terms))


def _trace_idf(terms: dict[str, list[Terms]]) -> FixedIdf:
    """One idf over every item of a trace (for Q and the novelty ground truth)."""
    df: Counter[str] = Counter()
    for items in terms.values():
        for t in items:
            df.update(t.keys())
    return FixedIdf(df, sum(len(items) for items in terms.values()))


def with_reposts(
    trace: ContentTrace,
    feeds: Sequence[str],
    per_day: float,
    *,
    hour: float = 3.0,
    seed: int = 0,
) -> ContentTrace:
    """The trace plus re-posts: each of ``feeds`` also publishes, about ``per_day``
    times a day around ``hour`` UTC (±1 h, Poisson), an exact copy of its latest
    item (a bot re-announcing, a feed re-dating old posts). The copies carry real
    text and add nothing new: what content-aware polling should learn to ignore."""
    rng = np.random.default_rng(seed)
    arrivals = dict(trace.arrivals)
    terms = dict(trace.terms)
    for fid in feeds:
        a = trace.arrivals[fid]
        t0 = float(np.floor(a.min() / DAY) * DAY)
        days = int(np.ceil((a.max() - t0) / DAY))
        counts = rng.poisson(per_day, days)
        extra = np.concatenate(
            [
                t0 + d * DAY + (hour + rng.uniform(-1.0, 1.0, c)) * 3600.0
                for d, c in enumerate(counts)
            ]
        )
        src = np.searchsorted(a, extra, side="right") - 1
        keep = src >= 0
        extra, src = extra[keep], src[keep]
        allt = np.concatenate((a, extra))
        order = np.argsort(allt, kind="stable")
        items = list(trace.terms[fid]) + [trace.terms[fid][j] for j in src]
        arrivals[fid] = allt[order]
        terms[fid] = [items[j] for j in order]
    return ContentTrace(arrivals, terms, _trace_idf(terms))


def _split_uid(uid: str) -> tuple[str, int]:
    fid, _, j = uid.rpartition("#")
    return fid, int(j)


class _Novelty:
    """The policy side of novelty detection: one filter per feed over what the
    policy fetched, one idf over every item it has seen (§4.2.1)."""

    def __init__(self, trace: ContentTrace, beta: float, window: int = DEFAULT_WINDOW) -> None:
        self.trace = trace
        self.vocab = Vocabulary()
        self.filters = {f: NoveltyFilter(self.vocab, window, beta) for f in trace.feeds}

    def judge(self, fid: str, obs: FetchObservation) -> dict[str, bool]:
        new = sorted((i for i in obs.items if i.is_new), key=lambda i: _split_uid(i.uid)[1])
        terms = [self.trace.terms[fid][_split_uid(i.uid)[1]] for i in new]
        verdicts = self.filters[fid].add_batch(terms)
        return {i.uid: v.novel for i, v in zip(new, verdicts, strict=True)}


class NoveltySchedulerPolicy(SchedulerPolicy):
    """``smart-novelty``: the app's scheduler fed novelty-filtered sightings."""

    def __init__(
        self,
        trace: ContentTrace,
        budget: float,
        start: float,
        beta: float = DEFAULT_BETA,
        config: SchedulerConfig | None = None,
    ) -> None:
        super().__init__("smart-novelty", trace.feeds, budget, start, config=config)
        self.novelty = _Novelty(trace, beta)

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        novel = self.novelty.judge(str(fid), obs)
        items = filter_sightings(obs.items, novel)
        return super().observe(fid, FetchObservation(obs.fetched_at, obs.status, items))


class RoitmanPolicy(Policy):
    """Roitman et al. §6 multi-channel monitoring at a budget of probes per day."""

    def __init__(
        self,
        trace: ContentTrace,
        budget: float,
        start: float,
        *,
        greedy: bool,
        content: bool,
        beta: float = DEFAULT_BETA,
        similarity: bool = False,
        tick: float = 900.0,
        seed: int = 0,
    ) -> None:
        self.name = (
            f"roitman-{'greedy' if greedy else 'fair'}{'' if content else '-free'}"
            f"{'+sim' if similarity else ''}"
        )
        self.feeds = trace.feeds
        self.greedy = greedy
        self.novelty = _Novelty(trace, beta) if content or similarity else None
        self.content = content
        self.rates = {f: BoltzmannRate(start) for f in self.feeds}
        self.last = dict.fromkeys(self.feeds, start)
        self.per_tick = budget * tick / DAY
        self.tick = tick
        self.credit = 0.0
        self.t = start
        self.rng = np.random.default_rng(seed)
        self.sim = SimilarityMatrix(self.feeds) if similarity else None
        self.next_sample = start + DAY
        self._due: list[Hashable] = []

    def _rates(self) -> np.ndarray:
        lam = np.array([self.rates[f].rate for f in self.feeds])
        if self.sim is not None and self.sim.count:
            lam = self.sim.refine(lam, min_sim=0.1)
        return lam

    def next_wakeup(self) -> float | None:
        return self.t

    def due(self, now: float) -> list[Hashable]:
        if now < self.t:
            return []
        self.credit += self.per_tick
        k = min(int(self.credit), len(self.feeds))
        self.credit -= k
        self.t = now + self.tick
        if k <= 0:
            return []
        age = np.array([now - self.last[f] for f in self.feeds])
        imp = self._rates() * np.maximum(age, 0.0) + 1e-12
        if self.greedy:
            idx = np.argsort(-imp, kind="stable")[:k]
        else:
            idx = self.rng.choice(len(self.feeds), size=k, replace=False, p=imp / imp.sum())
        return [self.feeds[int(i)] for i in idx]

    def observe(self, fid: Hashable, obs: FetchObservation) -> tuple[bool, float]:
        f = str(fid)
        now = obs.fetched_at
        self.last[f] = now
        n_new = sum(1 for i in obs.items if i.is_new)
        if self.novelty is not None:
            novel = self.novelty.judge(f, obs)
            if self.content:
                n_new = sum(novel.values())
        self.rates[f].observe(now, n_new)
        if self.sim is not None and self.novelty is not None and now >= self.next_sample:
            self.sim.sample({g: nf.vector() for g, nf in self.novelty.filters.items()})
            self.next_sample = now + DAY
        return False, 0.0


def make_content_policy(
    name: str,
    trace: ContentTrace,
    budget: float,
    start: float,
    beta: float = DEFAULT_BETA,
    config: SchedulerConfig | None = None,
) -> Policy:
    """``config``: the scheduler's settings for ``smart`` and ``smart-novelty``."""
    if name == "smart":
        return SchedulerPolicy("smart", trace.feeds, budget, start, config=config)
    if name == "smart-novelty":
        return NoveltySchedulerPolicy(trace, budget, start, beta, config)
    if name == "fixed":
        return FixedPolicy(trace.feeds, start, budget)
    if name.startswith("roitman-"):
        base = name.removesuffix("+sim")
        kind = base.removeprefix("roitman-").removesuffix("-free")
        if kind in ("fair", "greedy") and base.removeprefix("roitman-") in (kind, f"{kind}-free"):
            return RoitmanPolicy(
                trace,
                budget,
                start,
                greedy=kind == "greedy",
                content=not base.endswith("-free"),
                beta=beta,
                similarity=name.endswith("+sim"),
            )
    raise ValueError(f"unknown policy {name!r}; choose from {', '.join(CONTENT_POLICIES)}")


@dataclass(frozen=True)
class ContentResult:
    policy: str
    budget_per_day: float
    beta: float | None  # None for content-free policies
    fetches_per_day: float
    quality: float  # Q, Eq. 4
    mean_delay_min: float  # all items seen in the measured span
    novel_delay_min: float  # novel items only
    missed: int
    novel_missed: int
    items: int
    novel_items: int

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def profile_quality(
    trace: ContentTrace,
    first_seen: dict[str, FloatArray],
    t0: float,
    t1: float,
    window: int = DEFAULT_WINDOW,
) -> float:
    """Eq. 4 over [t0, t1): per feed the time average of sim(P_opt, P_pol), then the
    mean over feeds. P_opt: the last ``window`` items published; P_pol: the last
    ``window`` items (by publication order) the policy had fetched."""
    qs = []
    for fid in trace.feeds:
        arr = trace.arrivals[fid]
        if arr.size == 0:
            continue
        qs.append(_feed_quality(trace, fid, first_seen[fid], t0, t1, window))
    return float(np.mean(qs)) if qs else 1.0


def _feed_quality(
    trace: ContentTrace, fid: str, seen: FloatArray, t0: float, t1: float, window: int
) -> float:
    idf = trace.idf
    vecs = [{t: c * idf.idf(t) for t, c in terms.items()} for terms in trace.terms[fid]]
    arr = trace.arrivals[fid]
    # events: (time, kind, index); kind 0 = published, 1 = fetched by the policy
    ev: list[tuple[float, int, int]] = [(float(a), 0, j) for j, a in enumerate(arr)]
    ev += [(float(s), 1, j) for j, s in enumerate(seen) if math.isfinite(s)]
    ev.sort()
    opt: dict[str, float] = {}
    opt_items: list[int] = []  # indices in the optimal window
    nopt = 0.0
    pol: dict[str, float] = {}
    npol = 0.0
    seen_idx: list[int] = []
    dot = 0.0
    integral = 0.0
    t_prev = t0

    def cos() -> float:
        if nopt <= 1e-18 and npol <= 1e-18:
            return 1.0
        if nopt <= 1e-18 or npol <= 1e-18:
            return 0.0
        return min(1.0, max(0.0, dot / math.sqrt(nopt * npol)))

    def add(vec: dict[str, float], sign: float) -> None:
        nonlocal nopt, dot
        for t, w in vec.items():
            old = opt.get(t, 0.0)
            new = old + sign * w
            if abs(new) < 1e-12:
                opt.pop(t, None)
                new = 0.0
            else:
                opt[t] = new
            nopt += new * new - old * old
            dot += sign * w * pol.get(t, 0.0)

    i = 0
    while i < len(ev):
        t = ev[i][0]
        if t > t0:
            lo, hi = max(t_prev, t0), min(t, t1)
            if hi > lo:
                integral += cos() * (hi - lo)
            t_prev = max(t_prev, t)
        if t >= t1:
            break
        pol_changed = False
        while i < len(ev) and ev[i][0] == t:
            _, kind, j = ev[i]
            if kind == 0:
                add(vecs[j], 1.0)
                opt_items.append(j)
                if len(opt_items) > window:
                    add(vecs[opt_items.pop(0)], -1.0)
            else:
                seen_idx.append(j)
                pol_changed = True
            i += 1
        if pol_changed:
            seen_idx.sort()
            del seen_idx[:-window]
            pol = {}
            for j in seen_idx:
                for term, w in vecs[j].items():
                    pol[term] = pol.get(term, 0.0) + w
            npol = math.fsum(w * w for w in pol.values())
            nopt = math.fsum(w * w for w in opt.values())
            small, big = (pol, opt) if len(pol) < len(opt) else (opt, pol)
            dot = math.fsum(w * big.get(term, 0.0) for term, w in small.items())
    if t_prev < t1:
        integral += cos() * (t1 - max(t_prev, t0))
    return integral / (t1 - t0)


def replay_content(
    trace: ContentTrace,
    capacities: dict[str, int],
    policy_name: str,
    budget: float,
    *,
    beta: float = DEFAULT_BETA,
    warmup_days: float = 14.0,
    phase_s: float = 0.0,
    truth: dict[str, list[bool]] | None = None,
    window: int = DEFAULT_WINDOW,
    config: SchedulerConfig | None = None,
) -> ContentResult:
    all_t = np.concatenate([a for a in trace.arrivals.values() if a.size])
    # ``phase_s``: the policy starts this much earlier (a different cold start, the
    # same measured span): replicates of a replay whose trajectories are chaotic
    day0 = float(np.floor(all_t.min() / DAY) * DAY)
    start = day0 - phase_s
    end = day0 + float(np.ceil((all_t.max() - day0) / DAY)) * DAY
    measure_from = day0 + warmup_days * DAY
    if measure_from >= end:
        raise ValueError("the warm-up covers the whole trace")
    world = World(trace.arrivals, capacities)
    policy = make_content_policy(policy_name, trace, budget, start, beta, config)
    now = start
    fetches = 0
    while True:
        t = policy.next_wakeup()
        if t is None or t >= end:
            break
        now = max(now, t)
        batch = policy.due(now)
        if not batch:
            now += 1.0
            continue
        for fid in batch:
            obs, _truth = world.fetch(str(fid), now)
            policy.observe(fid, obs)
            fetches += now >= measure_from
    if truth is None:
        truth = trace.novel()
    delays: list[FloatArray] = []
    ndelays: list[FloatArray] = []
    missed = nmissed = items = nitems = 0
    for fid in trace.feeds:
        fw = world.feeds[fid]
        a = fw.arrivals
        span = (a >= measure_from) & (a <= end)
        seen = np.isfinite(fw.first_seen)
        gone = np.arange(a.size) < a.size - fw.capacity
        nov = np.asarray(truth[fid], dtype=bool)
        d = (fw.first_seen - a) / 60.0
        delays.append(d[span & seen])
        ndelays.append(d[span & seen & nov])
        missed += int((span & ~seen & gone).sum())
        nmissed += int((span & ~seen & gone & nov).sum())
        items += int(span.sum())
        nitems += int((span & nov).sum())
    q = profile_quality(
        trace, {f: world.feeds[f].first_seen for f in trace.feeds}, measure_from, end, window
    )
    days = (end - measure_from) / DAY
    dall = np.concatenate(delays)
    dnov = np.concatenate(ndelays)
    content_based = policy_name == "smart-novelty" or (
        policy_name.startswith("roitman-") and "-free" not in policy_name
    )
    return ContentResult(
        policy=policy_name,
        budget_per_day=float(budget),
        beta=beta if content_based else None,
        fetches_per_day=fetches / days,
        quality=q,
        mean_delay_min=float(dall.mean()) if dall.size else 0.0,
        novel_delay_min=float(dnov.mean()) if dnov.size else 0.0,
        missed=missed,
        novel_missed=nmissed,
        items=items,
        novel_items=nitems,
    )


def _line(r: ContentResult) -> str:
    b = "" if r.beta is None else f" β={r.beta:g}"
    return (
        f"{r.policy}{b}: budget {r.budget_per_day:.1f}/day, {r.fetches_per_day:.1f} probes/day;"
        f" Q {r.quality:.4f}; delay all {r.mean_delay_min:.1f} min, novel"
        f" {r.novel_delay_min:.1f} min; missed {r.missed} ({r.novel_missed} novel)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m smartreader.sim.content", description=__doc__)
    p.add_argument("content", type=Path, help="content trace (JSON lines, CONTENT.md)")
    p.add_argument("--feeds", type=Path, help="feed_id,capacity CSV (default capacity 20)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--budget", type=float)
    g.add_argument("--interval-hours", type=float)
    p.add_argument("--policy", default="smart,smart-novelty")
    p.add_argument("--beta", type=float, default=DEFAULT_BETA)
    p.add_argument("--warmup-days", type=float, default=14.0)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(list(argv) if argv is not None else None)
    trace = load_content(a.content)
    caps = load_capacities(a.feeds)
    budget = a.budget if a.budget is not None else len(trace.feeds) * 24.0 / a.interval_hours
    truth = trace.novel()
    rows = [
        replay_content(
            trace, caps, name.strip(), budget, beta=a.beta, warmup_days=a.warmup_days, truth=truth
        )
        for name in a.policy.split(",")
        if name.strip()
    ]
    for r in rows:
        print(json.dumps(r.as_json()) if a.json else _line(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
