"""How a feed's learned λ(t) reads to a person: its posting rhythm in words.

Shared by the Activity panel and ``smartreader explain``; pure Python.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

HOURS_PER_WEEK = 168


def to_local_slots(values: Sequence[float], utc_offset_s: float) -> list[float]:
    """Re-index 168 UTC hour slots to local hour slots (whole-hour part of the offset;
    half-hour zones are shifted by the nearest hour)."""
    vals = [float(v) for v in values]
    if len(vals) != HOURS_PER_WEEK:
        return vals
    k = round(utc_offset_s / 3600.0) % HOURS_PER_WEEK
    # local slot j shows UTC slot j - k
    return vals[-k:] + vals[:-k] if k else vals


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
    day = [sum(local[d * 24 + h] for d in range(7)) for h in range(24)]
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
    window = f"{busy:02d}:00–{(busy + w) % 24:02d}:00"
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
