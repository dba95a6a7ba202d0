"""Zones whose UTC offset is not whole hours (India +5:30, Nepal +5:45,
Newfoundland −3:30): the λ curve's local slots and the rhythm text use the exact
offset. Rounding it to whole hours put the curve and the named busy hours 30 min
off the "now" line and the planned fetches, which are placed exactly."""

from __future__ import annotations

import pytest

from smartreader.core.rhythm import HOURS_PER_WEEK, describe_rhythm, to_local_slots

IST = 5.5 * 3600
NPT = 5.75 * 3600
NST = -3.5 * 3600


def _impulse(slot: int) -> list[float]:
    week = [0.0] * HOURS_PER_WEEK
    week[slot] = 1.0
    return week


def test_half_hour_offset_splits_an_hour_between_two_local_slots():
    # Mon 03:00–04:00 UTC is 08:30–09:30 in India: half in local slot 8, half in 9.
    local = to_local_slots(_impulse(3), IST)
    assert local[8] == pytest.approx(0.5) and local[9] == pytest.approx(0.5)
    assert sum(local) == pytest.approx(1.0)
    assert sum(1 for v in local if v) == 2


def test_quarter_hour_offset_weights_by_minutes_covered():
    # 03:00–04:00 UTC is 08:45–09:45 in Nepal: 15 min of slot 8, 45 min of slot 9.
    local = to_local_slots(_impulse(3), NPT)
    assert local[8] == pytest.approx(0.25) and local[9] == pytest.approx(0.75)
    assert sum(local) == pytest.approx(1.0)


def test_negative_half_hour_offset_wraps_round_the_week():
    # Mon 03:00–04:00 UTC is Sun 23:30 – Mon 00:30 in Newfoundland.
    local = to_local_slots(_impulse(3), NST)
    assert local[HOURS_PER_WEEK - 1] == pytest.approx(0.5) and local[0] == pytest.approx(0.5)


def _daily(start_h: int, hours: int) -> list[float]:
    """A feed that posts every day from ``start_h`` UTC for ``hours`` hours."""
    return [1.0 if (i % 24 - start_h) % 24 < hours else 0.02 for i in range(HOURS_PER_WEEK)]


@pytest.mark.parametrize(
    ("offset", "window"),
    [
        (IST, "busiest 07:30–11:30"),  # 02:00–06:00 UTC
        (NPT, "busiest 07:45–11:45"),
        (NST, "busiest 22:30–02:30"),
    ],
)
def test_rhythm_names_the_busy_hours_at_the_exact_offset(offset, window):
    level, detail = describe_rhythm(_daily(2, 4), 0.45, offset)
    assert level == "Strong"
    assert detail.startswith(window), detail
