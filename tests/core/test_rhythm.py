"""The posting rhythm in words: busy hours in local time, contrast, weekends."""

from __future__ import annotations

from smartreader.core.rhythm import describe_rhythm, to_local_slots


def _week(per_hour) -> tuple:
    """168 UTC slots from a function of (weekday, hour)."""
    return tuple(float(per_hour(i // 24, i % 24)) for i in range(168))


def test_rhythm_names_the_busy_hours_in_local_time():
    office = _week(lambda d, h: (5.0 if 9 <= h < 13 else 0.2) if d < 5 else 0.2)
    level, detail = describe_rhythm(office, 0.45)
    assert level == "Strong"
    assert detail == "busiest 09:00–13:00 · 18× the quietest hours · quiet at weekends"
    # two hours ahead of UTC, the same posts fall at 11:00–15:00
    assert describe_rhythm(office, 0.45, 2 * 3600)[1].startswith("busiest 11:00–15:00")
    # a news site that sleeps at night (5× by day) is a clear rhythm, not "irregular"
    news = _week(lambda d, h: 5.0 if 8 <= h < 20 else 1.0)
    assert describe_rhythm(news, 0.2) == ("Clear", "busiest 08:00–12:00 · 5× the quietest hours")
    weekend = _week(lambda d, h: 3.0 if d >= 5 else 0.5)
    assert describe_rhythm(weekend, 0.3)[1] == "posts at any hour · busiest at weekends"
    assert describe_rhythm(weekend, 0.3)[0] == "Clear"


def test_rhythm_is_weak_or_unknown_without_evidence_of_one():
    flat = _week(lambda d, h: 1.0)
    assert describe_rhythm(flat, 0.03) == ("Weak", "posts at any hour")
    # a score without a daily or weekly contrast behind it stays weak
    mild = _week(lambda d, h: 2.0 if 12 <= h < 16 else 1.0)
    assert describe_rhythm(mild, 0.2) == ("Weak", "a little busier 12:00–16:00")
    assert describe_rhythm(flat, 0.0) == ("—", "not enough history")
    assert describe_rhythm((), 0.5) == ("—", "not enough history")


def test_local_slots_shift_by_the_whole_hours_of_the_offset():
    utc = [float(i) for i in range(168)]
    assert to_local_slots(utc, 0) == utc
    # two hours east of UTC, local Monday 02:00 shows UTC Monday 00:00
    assert to_local_slots(utc, 7200)[2] == 0.0
    assert to_local_slots(utc, -3600)[0] == 1.0
    assert to_local_slots([1.0, 2.0], 7200) == [1.0, 2.0]  # not a week: unchanged
