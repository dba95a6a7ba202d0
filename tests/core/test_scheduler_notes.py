"""The scheduler's notes as people read them: times worded by the caller's
formatter (the app's is local), one line per fact, a refusal not called an error."""

from __future__ import annotations

import time

from smartreader.core.estimator import HOUR, MONDAY0, WEEK
from smartreader.core.models import FetchObservation, ServerHints
from smartreader.core.scheduler import Scheduler, SchedulerConfig

T0 = MONDAY0 + 2900 * WEEK  # Monday 00:00 UTC


def stamp(t: float, now: float) -> str:
    """A formatter that shows what it was given."""
    return f"<t={t - now:+.0f}s>"


def sched_with(*feeds: tuple[str, str]) -> Scheduler:
    s = Scheduler(SchedulerConfig(budget_per_day=1000), T0)
    for fid, host in feeds:
        s.add_feed(fid, host=host)
    s.due(T0 + 10)  # hand them out, as the app's loop does
    return s


def test_a_429_with_retry_after_is_one_line_in_the_callers_words():
    s = sched_with(("a", "example.org"))
    until = T0 + 2 * HOUR
    s.observe("a", FetchObservation(T0 + 10, "rate_limited", hints=ServerHints(retry_after=until)))
    now = T0 + 20
    notes = s.explain("a", now, time_text=stamp).notes
    waits = [n for n in notes if "wait" in n]
    assert waits == [f"The server asked to wait until {stamp(until, now)}"]
    text = " ".join(notes)
    assert "error" not in text and "example.org" not in text and "UTC" not in text
    assert "unsuccessful" not in text  # the one refusal is the wait, said once


def test_without_a_formatter_the_notes_stay_in_utc():
    s = sched_with(("a", "example.org"))
    until = T0 + 5 * HOUR
    s.observe("a", FetchObservation(T0 + 10, "rate_limited", hints=ServerHints(retry_after=until)))
    utc = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))
    assert sum(utc in n for n in s.explain("a", T0 + 20).notes) == 1


def test_another_feed_on_the_refusing_site_says_why_it_waits():
    s = sched_with(("a", "example.org"), ("b", "example.org"))
    until = T0 + 3 * HOUR
    s.observe("a", FetchObservation(T0 + 10, "rate_limited", hints=ServerHints(retry_after=until)))
    s.observe("b", FetchObservation(T0 + 10, "ok"))
    now = T0 + 20
    notes = s.explain("b", now, time_text=stamp).notes
    waits = [n for n in notes if stamp(until, now) in n]
    assert len(waits) == 1 and "another of its feeds" in waits[0]
    assert "example.org" not in waits[0]
    assert not any("unsuccessful" in n or "error" in n for n in notes)


def test_failed_checks_are_counted_and_a_503_wait_is_worded_locally():
    s = sched_with(("a", "example.org"))
    s.observe("a", FetchObservation(T0 + 10, "error"))
    until = T0 + 4 * HOUR
    s.due(T0 + 3 * HOUR)
    s.observe("a", FetchObservation(T0 + 3 * HOUR, "error", hints=ServerHints(retry_after=until)))
    now = T0 + 3 * HOUR + 5
    notes = s.explain("a", now, time_text=stamp).notes
    assert f"The server asked to wait until {stamp(until, now)}" in notes
    assert any(n.startswith("2 unsuccessful checks in a row") for n in notes)


def test_a_cache_hint_is_not_called_a_server_refusal():
    s = sched_with(("a", "example.org"))
    until = T0 + 6 * HOUR
    s.observe("a", FetchObservation(T0 + 10, "ok", hints=ServerHints(cache_until=until)))
    now = T0 + 20
    notes = s.explain("a", now, time_text=stamp).notes
    assert f"The feed asked not to be checked again before {stamp(until, now)}" in notes
