"""How a feed's learned λ(t) reads to a person: its posting rhythm in words.

Shared by the Activity panel and ``smartreader explain``; pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

HOURS_PER_WEEK = 168


def to_local_slots(values: Sequence[float], utc_offset_s: float) -> list[float]:
    """Re-index 168 UTC hour slots to local hour slots at the exact offset.

    Local slot j covers local hours [j, j+1). In a zone whose offset is not whole
    hours (India +5:30, Nepal +5:45, Newfoundland −3:30) that straddles two UTC
    slots, so it gets each one's rate weighted by how much of the hour it covers
    (linear interpolation between slot centres). The week's total is unchanged;
    rounding the offset instead drew a curve 30 min off the exact "now" line and
    planned-fetch marks."""
    vals = [float(v) for v in values]
    if len(vals) != HOURS_PER_WEEK:
        return vals
    whole, frac = _split_offset(utc_offset_s)
    # local slot j is (1 − frac) of UTC slot j − whole and frac of the slot before it
    shifted = _rotate(vals, whole)
    if frac == 0.0:
        return shifted
    before = _rotate(vals, whole + 1)
    return [(1.0 - frac) * a + frac * b for a, b in zip(shifted, before, strict=True)]


def _split_offset(utc_offset_s: float) -> tuple[int, float]:
    """(whole hours rounded down, the fraction of an hour left, 0 ≤ frac < 1)."""
    minutes = round(utc_offset_s / 60.0)  # offsets are whole minutes; drop float noise
    whole, rest = divmod(minutes, 60)
    return whole, rest / 60.0


def _rotate(vals: list[float], k: int) -> list[float]:
    """Slot j of the result is slot j − k of ``vals`` (cyclic)."""
    k %= HOURS_PER_WEEK
    return vals[-k:] + vals[:-k] if k else list(vals)


RHYTHM_WINDOW_H = 4  # the busiest and quietest stretches of the day are this long


def describe_rhythm(
    lambda_week: Sequence[float], periodicity: float, utc_offset_s: float = 0.0
) -> tuple[str, str]:
    """(level, detail) for the learned λ(t): how strongly posting follows the clock,
    and when. ``periodicity`` is the estimator's 0–1 distance of the weekly shape
    from flat (discounted while evidence is thin); real feeds whose busy hours see
    5–40× the quiet hours' rate score 0.15–0.5 on it, so the levels sit there (a
    label of "irregular" on a news site that sleeps at night would be wrong). The
    detail names the busiest stretch of the day in local time, how much busier it
    is than the quietest, and quiet weekends."""
    if periodicity <= 0 or len(lambda_week) != HOURS_PER_WEEK or sum(lambda_week) <= 0:
        return "—", "not enough history"
    local = to_local_slots(lambda_week, utc_offset_s)
    # The busiest stretch is found on whole-hour slots (shifted by the offset's
    # whole hours) and named at the exact offset: interpolated slots would smear
    # a stretch over a half-hour boundary into a tie named 30 min off.
    whole, frac = _split_offset(utc_offset_s)
    hourly = _rotate([float(v) for v in lambda_week], whole)
    day = [sum(hourly[d * 24 + h] for d in range(7)) for h in range(24)]
    w = RHYTHM_WINDOW_H
    sums = [sum(day[(h + k) % 24] for k in range(w)) for h in range(24)]
    busy = max(range(24), key=lambda h: sums[h])
    ratio = sums[busy] / min(sums) if min(sums) > 0 else math.inf
    days = [sum(local[d * 24 : d * 24 + 24]) for d in range(7)]
    weekday, weekend = sum(days[:5]) / 5, sum(days[5:]) / 2
    week_note = ""
    if weekend < 0.5 * weekday:
        week_note = "quiet at weekends"
    elif weekday < 0.5 * weekend:
        week_note = "busiest at weekends"
    if periodicity >= 0.35:
        level = "Strong"
    elif periodicity >= 0.15 and (ratio >= 2.5 or week_note):
        level = "Clear"
    else:
        level = "Weak"
    start = busy * 60 + round(frac * 60)
    window = f"{_hhmm(start)}–{_hhmm(start + w * 60)}"
    if ratio < 1.5:
        parts = ["posts at any hour"]
    elif level == "Weak":
        parts = [f"a little busier {window}"]
    else:
        parts = [f"busiest {window}"]
        parts.append(
            f"{ratio:.0f}× the quietest hours" if ratio < 100 else "quiet the rest of the day"
        )
    if week_note:
        parts.append(week_note)
    return level, " · ".join(parts)


def _hhmm(minutes: int) -> str:
    h, m = divmod(minutes % (24 * 60), 60)
    return f"{h:02d}:{m:02d}"
