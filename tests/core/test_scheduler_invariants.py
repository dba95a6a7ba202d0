"""Hypothesis: scheduler invariants under arbitrary feeds, responses and hints."""

from __future__ import annotations

import itertools
import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smartreader.core.estimator import DAY, HOUR, MONDAY0, WEEK
from smartreader.core.models import FetchObservation, ItemSighting, ServerHints
from smartreader.core.scheduler import Scheduler, SchedulerConfig

T0 = MONDAY0 + 2900 * WEEK + 7 * HOUR

response = st.fixed_dictionaries(
    {
        # "unreachable": an error where no server answered (the host or the network down)
        "status": st.sampled_from(
            ["ok", "ok", "ok", "not_modified", "error", "rate_limited", "unreachable"]
        ),
        "n_new": st.integers(0, 30),
        "retry_after": st.one_of(st.none(), st.floats(0, 2 * DAY)),
        "cache": st.one_of(st.none(), st.floats(0, 3 * DAY)),
        "ttl": st.one_of(st.none(), st.floats(0, 2 * DAY)),
    }
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    n_feeds=st.integers(1, 12),
    budget=st.floats(1, 300),
    min_interval=st.floats(300, 4 * HOUR),
    max_interval=st.floats(HOUR, 7 * DAY),  # Settings' range
    responses=st.lists(response, min_size=1, max_size=40),
    capacity=st.integers(5, 40),
    seed=st.integers(0, 1000),
    restarts=st.lists(st.floats(0, 3 * DAY), max_size=3),
    h0_gap=st.one_of(st.none(), st.floats(1, 2 * HOUR)),  # a site's own limit
)
def test_scheduler_invariants(
    n_feeds, budget, min_interval, max_interval, responses, capacity, seed, restarts, h0_gap
):
    cfg = SchedulerConfig(
        budget_per_day=budget, min_interval=min_interval, max_interval=max_interval, seed=seed
    )
    sched = Scheduler(cfg, T0)
    gaps = {} if h0_gap is None else {"h0": h0_gap}
    sched.set_host_gaps(gaps)
    hosts = [f"h{i % 3}" for i in range(n_feeds)]
    for i in range(n_feeds):
        sched.add_feed(i, host=hosts[i], capacity=capacity)
    fetches: list[float] = []
    last: dict[int, float] = {}
    earliest: dict[int, float] = {}  # a server hint (feed or host) forbids fetching before
    host_block: dict[str, float] = {}
    h0_last = -np.inf  # the last hand-out to the site with its own limit
    k = 0
    now = T0
    end = T0 + 3 * DAY
    restart_at = sorted(T0 + r for r in restarts)

    def restarted(old: Scheduler, at: float) -> Scheduler:
        """What the app does at start: each feed from its saved state, and the
        requests of the last 24 h from the fetch log."""
        new = Scheduler(cfg, at)
        new.set_host_gaps(gaps)
        new.restore_requests(fetches, at)
        for i in range(n_feeds):
            st_ = json.loads(json.dumps(old.export_state(i)))
            new.add_feed(
                i, host=hosts[i], capacity=capacity, state=st_, last_fetch=st_["last_fetch"]
            )
        return new

    while True:
        t = sched.next_wakeup()
        if restart_at and (t is None or t >= restart_at[0]):
            # the app was closed until then (the plan's next fetch did not happen)
            now = max(now, restart_at.pop(0))
            sched = restarted(sched, now)
            h0_last = -np.inf  # a site's last request is not kept across a start
            continue
        if t is None or t > end:
            break
        assert t >= now - 1e-6 or t >= T0
        now = max(now, t)
        for fid in sched.due(now):
            assert now >= earliest.get(fid, -np.inf) - 1e-3
            assert now >= host_block.get(hosts[fid], -np.inf) - 1e-3
            if hosts[fid] == "h0" and h0_gap is not None:
                assert now - h0_last >= h0_gap - 1e-3
            if hosts[fid] == "h0":
                h0_last = now
            if fid in last:
                assert now - last[fid] >= min_interval - 1e-3
            r = responses[k % len(responses)]
            k += 1
            items = tuple(
                ItemSighting(f"{fid}-{k}-{j}", now - j * 60.0, True)
                for j in range(min(r["n_new"], capacity))
            )
            ra = None if r["retry_after"] is None else now + r["retry_after"]
            hints = ServerHints(
                retry_after=ra,
                cache_until=None if r["cache"] is None else now + r["cache"],
                ttl_seconds=r["ttl"],
            )
            status = r["status"]
            if status == "unreachable":
                # no server saw it: not a request of the budget, nor an interval
                # a server could feel; its hints are the last document's
                sched.observe(
                    fid, FetchObservation(now, "error", hints=ServerHints(), unreachable=True)
                )
                continue
            fetches.append(now)
            obs = FetchObservation(now, status, items if status == "ok" else (), hints)
            v = sched.observe(fid, obs)
            last[fid] = now
            # the next due time respects every hint the server gave
            floor = now + min_interval
            if ra is not None:
                floor = max(floor, ra)
                if status == "rate_limited":
                    host_block[hosts[fid]] = max(host_block.get(hosts[fid], -np.inf), ra)
            if status in ("ok", "not_modified"):
                if r["cache"] is not None:
                    floor = max(floor, now + min(r["cache"], cfg.cache_hint_cap))
                if r["ttl"]:
                    floor = max(floor, now + min(r["ttl"], cfg.cache_hint_cap))
            assert v.next_due >= floor - 1e-3
            earliest[fid] = floor
            if k > 150:
                break
        if k > 150:
            break
    # budget: never more than floor(budget) non-manual fetches in any 24 h window,
    # across restarts too
    ts = np.sort(np.array(fetches))
    if ts.size:
        counts = np.arange(ts.size) - np.searchsorted(ts, ts - DAY, side="right") + 1
        assert counts.max() <= int(np.floor(budget + 1e-9))
    for i in range(n_feeds):
        ex = sched.explain(i, now)
        assert all(x >= 0 for x in ex.lambda_week)
        assert ex.share_per_day >= 0
        # state survives serialisation
        st_ = json.loads(json.dumps(sched.export_state(i)))
        other = Scheduler(cfg, now)
        other.add_feed(i, host=hosts[i], capacity=capacity, state=st_)
        assert other.export_state(i) == sched.export_state(i)
    s = sched.summary(now)
    assert s.planned_per_day <= budget * (1 + 1e-9)


@settings(max_examples=4, deadline=None)
@given(budget=st.floats(10, 40), quiet_weeks=st.integers(8, 12))
def test_a_feed_that_stops_publishing_decays_toward_its_floor(budget, quiet_weeks):
    cfg = SchedulerConfig(budget_per_day=budget)
    sched = Scheduler(cfg, T0)
    sched.add_feed("a", host="a", capacity=50)
    sched.add_feed("b", host="b", capacity=50)
    now = T0
    end_busy = T0 + 2 * WEEK
    end = end_busy + quiet_weeks * WEEK
    busy = None
    rates: list[float] = []
    next_look = end_busy
    prev_b = -np.inf
    while True:
        t = sched.next_wakeup()
        assert t is not None
        if t > end:
            break
        now = t
        for fid in sched.due(now):
            items: tuple[ItemSighting, ...] = ()
            if fid == "a" and now < end_busy:
                items = tuple(ItemSighting(f"{now}-{j}", now - j * 300.0, True) for j in range(4))
            elif fid == "b":  # b keeps publishing every two hours
                pubs = T0 + 2 * HOUR * np.arange(int((now - T0) // (2 * HOUR)) + 1)[-50:]
                items = tuple(ItemSighting(f"b{p}", p, p > prev_b) for p in pubs)
                prev_b = now
            sched.observe(fid, FetchObservation(now, "ok", items))
        if now >= end_busy and (not rates or now >= next_look):
            ex = sched.explain("a", now)
            busy = busy or ex
            rates.append(ex.rate_per_day)
            next_look = now + DAY
    final = sched.explain("a", now)
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(rates))
    assert final.rate_per_day < 0.1 * busy.rate_per_day
    assert final.share_per_day < 0.7 * busy.share_per_day
    # ... but never below the max-interval floor (one fetch a day by default)
    assert final.share_per_day >= DAY / cfg.max_interval - 1e-3
    assert min(final.lambda_week) > 0
