"""No server answering: a host that is down, or the network.

A fetch where no server answered (the name did not resolve, no connection could be
made) says nothing about the feed. Its host's other feeds wait with it, rather
than each finding it out with a request of its own; when no server answers at
several hosts in a row, the network is down: the feeds are not marked failing,
one due feed tries the network now and then, and when it answers the feeds that
fell due meanwhile are spread out. No server saw such a try, so the 24 h budget
does not count it (a day offline would otherwise spend the next day's).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable

import pytest

from smartreader.core.estimator import DAY, HOUR, MONDAY0, WEEK
from smartreader.core.models import FetchObservation, ItemSighting, ServerHints
from smartreader.core.scheduler import Scheduler, SchedulerConfig

T0 = MONDAY0 + 2900 * WEEK + 9 * HOUR


def ok(t: float, fid: Hashable = "x", manual: bool = False) -> FetchObservation:
    return FetchObservation(t, "ok", (ItemSighting(f"{fid}-{t}", t - 60.0, True),), manual=manual)


def down(t: float, manual: bool = False, **kw: object) -> FetchObservation:
    return FetchObservation(t, "error", unreachable=True, manual=manual, **kw)  # type: ignore[arg-type]


def started(
    hosts: dict[Hashable, str], budget: float = 200.0, **cfg: float
) -> tuple[Scheduler, float]:
    """A scheduler whose feeds have all been fetched once (ok), and the time after."""
    s = Scheduler(SchedulerConfig(budget_per_day=budget, seed=3, **cfg), T0)  # type: ignore[arg-type]
    for fid, host in hosts.items():
        s.add_feed(fid, host=host, capacity=50)
    now = T0
    seen: set[Hashable] = set()
    while seen != set(hosts):
        t = s.next_wakeup()
        assert t is not None
        now = max(now, t)
        for fid in s.due(now):
            s.observe(fid, ok(now, fid))
            seen.add(fid)
    return s, now


def network_lost(s: Scheduler, t: float) -> None:
    """No server answers at three hosts in a row (``f0``..``f2``, from ``t``)."""
    for k, fid in enumerate(("f0", "f1", "f2")):
        s.observe(fid, down(t + k))


def run_until(s: Scheduler, end: float, outcome) -> list[tuple[float, Hashable]]:  # type: ignore[no-untyped-def]
    """Drive ``s`` to ``end``; ``outcome(fid, t)`` answers each fetch. The fetches made."""
    made = []
    while True:
        t = s.next_wakeup()
        if t is None or t > end:
            return made
        for fid in s.due(t):
            made.append((t, fid))
            s.observe(fid, outcome(fid, t))


def test_a_host_where_no_server_answers_holds_its_other_feeds():
    s, now = started({"a1": "a.example", "a2": "a.example", "b": "b.example"})
    t = now + HOUR
    s.observe("a1", down(t))
    until = s.unreachable_hosts(t)["a.example"][1]
    # the first wait is the error back-off's first step (jittered ±25 %)
    assert 0.75 * 1800 <= until - t <= 1.25 * 1800
    assert s.explain("a2", t).planned[0] >= until - 1e-6
    # the other host is not held
    assert "b.example" not in s.unreachable_hosts(t)
    made = run_until(s, t + 2 * DAY, lambda fid, at: ok(at, fid))
    assert all(at >= until - 1e-6 for at, fid in made if fid in ("a1", "a2"))
    assert any(fid == "b" and at < until for at, fid in made)
    # the host answered again: nothing is held
    assert s.unreachable_hosts(t + 2 * DAY) == {}


def test_the_hosts_wait_doubles_with_each_try_in_a_row_and_ends_with_an_answer():
    s, now = started({"a1": "a.example", "a2": "a.example", "b": "b.example"})
    waits = []
    t = now + HOUR
    for fid in ("a1", "a2", "a1", "a2"):
        s.observe(fid, down(t))
        n, until = s.unreachable_hosts(t)["a.example"]
        waits.append((n, until - t))
        t = until
    assert [n for n, _ in waits] == [1, 2, 3, 4]
    for k, (_, w) in enumerate(waits):
        assert 0.75 * 1800 * 2**k <= w <= 1.25 * 1800 * 2**k
    s.observe("a1", ok(t, "a1"))
    assert s.unreachable_hosts(t) == {}
    # the next failure starts from the first step again
    s.observe("a2", down(t + HOUR))
    assert s.unreachable_hosts(t + HOUR)["a.example"][0] == 1


def test_a_manual_refresh_that_finds_the_host_back_frees_its_feeds_at_once():
    s, now = started({"a1": "a.example", "a2": "a.example", "b": "b.example"})
    t = now + HOUR
    s.observe("a1", down(t))
    until = s.unreachable_hosts(t)["a.example"][1]
    held = s.explain("a2", t).planned[0]
    assert held >= until - 1e-6
    s.observe("a1", ok(t + 60, "a1", manual=True))
    assert s.unreachable_hosts(t + 60) == {}
    assert s.explain("a2", t + 60).planned[0] < held


def test_a_try_no_server_saw_is_not_a_request_of_the_budget():
    s, now = started({"a": "a.example", "b": "b.example", "c": "c.example"}, budget=6)
    used = s.requests_in_last_24h(now)
    t = s.next_wakeup()
    assert t is not None
    out = s.due(t)
    assert len(out) >= 2
    assert s.requests_in_last_24h(t) == used + len(out)  # counted when handed out
    s.observe(out[0], down(t))
    assert s.requests_in_last_24h(t) == used + len(out) - 1  # and given back
    # an ordinary error is a request a server saw
    s.observe(out[1], FetchObservation(t, "error", answered=True))
    assert s.requests_in_last_24h(t) == used + len(out) - 1


def test_no_server_at_three_hosts_in_a_row_is_the_network_down():
    hosts = {f"f{i}": f"h{i}.example" for i in range(6)}
    s, now = started(hosts, offline_hosts=3)
    t = now + HOUR
    s.observe("f0", down(t))
    s.observe("f1", down(t + 1))
    assert s.network_down(t + 1) is None  # two hosts: could be two hosts down
    assert s.export_state("f0")["err_count"] == 1
    s.observe("f2", down(t + 2))
    since, next_try = s.network_down(t + 2)
    assert since == t + 2
    # the failures were the network's: no feed backs off for them, no host waits
    assert [s.export_state(f)["err_count"] for f in hosts] == [0] * 6
    assert s.unreachable_hosts(t + 2) == {}
    assert next_try >= t + 2 + 60 - 1e-6


def test_offline_one_due_feed_tries_the_network_ever_less_often_and_no_request_counts():
    hosts = {f"f{i}": f"h{i}.example" for i in range(6)}
    s, now = started(hosts)
    used = s.requests_in_last_24h(now)
    t0 = now + HOUR
    network_lost(s, t0)
    made = run_until(s, t0 + DAY, lambda fid, at: down(at))
    times = [at for at, _ in made]
    assert all(len(s.due(at)) == 0 for at in times)  # handed out one at a time
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # 1, 2, 4, 8 min, then every 15 min
    assert gaps[:4] == pytest.approx([120, 240, 480, 900], abs=1.0)
    assert all(g == pytest.approx(900, abs=1.0) for g in gaps[4:])
    assert len({at for at in times}) == len(times)  # never two at once
    assert s.requests_in_last_24h(t0 + DAY) <= used  # a day offline spent nothing
    assert all(s.export_state(f)["err_count"] == 0 for f in hosts)


def test_back_online_the_feeds_that_fell_due_are_spread_not_burst():
    hosts = {f"f{i}": f"h{i}.example" for i in range(8)}
    s, now = started(hosts)
    t0 = now + HOUR
    network_lost(s, t0)
    back = t0 + 2 * DAY  # every feed fell due meanwhile (maximum interval 1 day)
    run_until(s, back, lambda fid, at: down(at))
    assert s.network_down(back) is not None
    t = s.next_wakeup()
    assert t is not None
    (probe,) = s.due(t)
    s.observe(probe, ok(t, probe))
    assert s.network_down(t) is None
    planned = sorted(s.explain(f, t).planned[0] for f in hosts if f != probe)
    assert planned[0] >= t - 1e-6
    spacing = s.config.catchup_spacing
    assert all(b - a >= spacing - 1e-6 for a, b in itertools.pairwise(planned))
    assert planned[-1] <= t + len(planned) * spacing + 1.0  # all soon after


def test_an_answer_anywhere_ends_it_a_manual_one_too():
    hosts = {f"f{i}": f"h{i}.example" for i in range(4)}
    s, now = started(hosts)
    t = now + HOUR
    network_lost(s, t)
    assert s.network_down(t + 10) is not None
    s.observe("f3", FetchObservation(t + 20, "error", manual=True, answered=True))  # a 404
    assert s.network_down(t + 20) is None
    # an error with no answer (no request made: a missing password) proves nothing
    network_lost(s, t + 30)
    s.observe("f3", FetchObservation(t + 40, "error", manual=True))
    assert s.network_down(t + 40) is not None


def test_one_host_alone_is_never_taken_for_the_network():
    s, now = started({"a1": "a.example", "a2": "a.example"})
    t = now + HOUR
    for _ in range(5):
        s.observe("a1", down(t))
        t = s.unreachable_hosts(t)["a.example"][1]
    assert s.network_down(t) is None
    assert s.export_state("a1")["err_count"] == 5  # it backs off as a failing feed does


def test_two_hosts_subscribed_both_silent_is_the_network():
    s, now = started({"a": "a.example", "b": "b.example"})
    t = now + HOUR
    s.observe("a", down(t))
    s.observe("b", down(t + 1))
    assert s.network_down(t + 1) is not None


def test_a_redirect_whose_target_does_not_answer_holds_that_host_not_the_feeds():
    s, now = started({"a1": "a.example", "a2": "a.example", "b": "b.example"})
    t = now + HOUR
    # a.example answered with a redirect to cdn.example, where nothing answered
    s.observe("a1", down(t, answered_by="cdn.example", answered=True))
    assert set(s.unreachable_hosts(t)) == {"cdn.example"}
    assert s.explain("a2", t).planned[0] < t + HOUR
    assert s.export_state("a1")["err_count"] == 1  # the feed itself backs off


def test_a_host_held_gives_its_feeds_share_to_the_others():
    hosts = {"a1": "a.example", "a2": "a.example", "b": "b.example", "c": "c.example"}
    s, now = started(hosts, budget=300)  # 75 a day each, under the 15 min ceiling
    before = s.explain("b", now).share_per_day
    t = now + HOUR
    s.observe("a1", down(t))
    s.replan(t + 1)
    # a2 did not fail itself: its host's wait is what holds it
    assert s.explain("a2", t + 1).share_per_day <= DAY / 1800 + 1e-9
    assert s.explain("b", t + 1).share_per_day > before


def test_explain_says_why_a_feed_waits():
    s, now = started({"a1": "a.example", "a2": "a.example", "b": "b.example"})
    t = now + HOUR
    s.observe("a1", down(t))
    (note,) = [n for n in s.explain("a2", t).notes if "No server answered" in n]
    assert "a.example (1 try in a row" in note
    assert not [n for n in s.explain("b", t).notes if "No server" in n]
    s.observe("b", down(t + 1, answered_by="c.example"))
    s.observe("a2", down(t + 2))  # a third host: the network
    (note,) = [n for n in s.explain("b", t + 2).notes if "No server" in n]
    assert "the network seems down" in note


def test_the_system_saying_the_network_is_back_is_taken_at_its_word():
    hosts = {f"f{i}": f"h{i}.example" for i in range(4)}
    s, now = started(hosts)
    t = now + 2 * DAY  # all due
    network_lost(s, t)
    run_until(s, t + 3 * HOUR, lambda fid, at: down(at))  # the tries are 15 min apart now
    nxt = s.next_wakeup()
    late = nxt - 600  # between two tries
    assert s.due(late) == []
    s.network_back(late)
    assert s.network_down(late) is None
    # the feeds that fell due go now, spread, without waiting for the next try
    firsts = sorted(s.explain(f, late).planned[0] for f in hosts)
    assert firsts[0] == pytest.approx(late) and firsts[-1] < late + 60
    assert all(b - a >= s.config.catchup_spacing - 1e-6 for a, b in itertools.pairwise(firsts))


def test_feeds_failing_for_days_failing_together_are_not_the_network():
    """Three dead feeds (their names gone) fail fast, in one run, before the live
    feeds of the run answer: that said "offline", and undid their back-off."""
    hosts = {f"f{i}": f"h{i}.example" for i in range(5)}
    s, now = started(hosts)
    t = now + HOUR
    for fid in ("f0", "f1", "f2"):
        s.observe(fid, FetchObservation(t, "error", answered=True))  # failing since
    t += 3 * HOUR
    network_lost(s, t)  # their names stop resolving too
    assert s.network_down(t + 3) is None
    assert [s.export_state(f)["err_count"] for f in ("f0", "f1", "f2")] == [2, 2, 2]
    # a feed never answered says nothing either
    s.add_feed("new", host="h9.example")
    s.observe("f3", down(t + 10))
    s.observe("new", down(t + 11))
    assert s.network_down(t + 11) is None
    s.observe("f4", down(t + 12))
    assert s.network_down(t + 12) is None  # two hosts that answered until now, not three


def test_the_hosts_wait_never_passes_a_maximum_interval_of_its_feeds():
    s, now = started({"a1": "a.example", "b": "b.example"})
    s.add_feed("a2", host="a.example", max_interval=HOUR)  # a status page: hourly at least
    t = now + HOUR
    for _ in range(8):  # the wait would have doubled to the day's cap
        s.observe("a1", down(t))
        n, until = s.unreachable_hosts(t)["a.example"]
        assert until - t <= HOUR + 1e-6
        t = until
    assert n == 8


def test_finding_the_network_down_keeps_a_later_try_of_a_feed():
    """Hypothesis found it: f0's host did not answer, then f0 was tried again
    (an error that proves nothing of the network, as a missing password); when
    the network was then found down, undoing the first failure set f0's last try
    back to before both, and it went a minute after its last request."""
    hosts = {f"f{i}": f"h{i}.example" for i in range(4)}
    s, now = started(hosts, min_interval=900.0)
    t = now + HOUR
    s.observe("f0", down(t))
    s.observe("f0", FetchObservation(t + 600, "error"))  # tried again
    s.observe("f1", down(t + 601))
    s.observe("f2", down(t + 602))
    assert s.network_down(t + 602) is not None
    assert s.export_state("f0")["last_fetch"] == t + 600
    assert s.explain("f0", t + 602).planned[0] >= t + 600 + 900


def test_back_online_right_after_a_wake_up_goes_on_with_its_spread():
    """The laptop wakes offline: the wake-up spreads the overdue feeds 2 s apart
    and the first one tries the network; its answer spread them again from that
    moment, one slot early, and the two spreads overlapped (random sessions,
    seeds 48 and 57)."""
    hosts = {f"f{i}": f"h{i}.example" for i in range(8)}
    s, now = started(hosts)
    t = now + 2 * DAY
    network_lost(s, t)
    wake = t + 3 * HOUR
    s.replan(wake)
    (probe,) = s.due(wake)
    s.observe(probe, ok(wake + 1.0, probe))
    assert s.network_down(wake + 1.0) is None
    firsts = sorted(s.explain(f, wake + 1.0).planned[0] for f in hosts if f != probe)
    spacing = s.config.catchup_spacing
    assert firsts[0] >= wake + spacing - 1e-6  # the spread's next slot, not at once
    assert all(b - a >= spacing - 1e-6 for a, b in itertools.pairwise(firsts))


def test_a_feed_held_for_hours_does_not_hold_the_spread_after_it():
    """Random seed 99: the wake-up's spread ended with a feed its skipHours held
    hours on; going on after that slot held every feed as long."""
    hosts = {f"f{i}": f"h{i}.example" for i in range(8)}
    s, now = started(hosts)
    t = now + 2 * DAY
    wake = t + 3 * HOUR
    h = int((wake % DAY) // HOUR)
    skip = frozenset((h + k) % 24 for k in range(4))  # f7 is not to be read for 4 h
    s.observe("f7", FetchObservation(now + 60, "ok", hints=ServerHints(skip_hours=skip)))
    network_lost(s, t)
    s.replan(wake)
    assert s.explain("f7", wake).planned[0] >= wake + 3 * HOUR
    (probe,) = s.due(wake)
    s.observe(probe, ok(wake + 1.0, probe))
    firsts = sorted(s.explain(f, wake + 1.0).planned[0] for f in hosts if f not in (probe, "f7"))
    assert firsts[-1] < wake + 60  # not after f7's hours
