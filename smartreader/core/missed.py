"""Missed-item detection (Han et al.).

After a fetch at τ (previous successful fetch τ′): if every item in the window is
new, the window is full, and even its oldest item was published after τ′, then
items published in (τ′, oldest) have probably scrolled out unseen. Their expected
number is the window's own rate (its items over (oldest, τ]) carried over to
(τ′, oldest) with λ(t)'s shape, i.e. n·Λ(τ′, oldest)/Λ(oldest, τ), capped at
3·Λ(τ′, oldest) + n and at least one. No alert when that expectation is below ln 2
(then "no item fell in the gap" is the likelier explanation), and none when an
item is dated after the fetch: a feed whose clock runs ahead (local time labelled
UTC is common) makes its window look younger than it is, and every fetch would
report items missed that were never published.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from smartreader.core.estimator import integrate
from smartreader.core.models import ItemSighting


@dataclass(frozen=True)
class MissedCheck:
    alert: bool
    estimate: float
    start: float | None
    end: float | None


NO_ALERT = MissedCheck(False, 0.0, None, None)
_LN2 = 0.6931471805599453
CLOCK_SLACK = 600.0  # seconds a feed's clock may run ahead of ours before its dates are distrusted


def check_missed(
    items: tuple[ItemSighting, ...],
    prev_fetch: float | None,
    capacity: int,
    lam_per_hour: npt.NDArray[np.float64] | None = None,
    fetched_at: float | None = None,
) -> MissedCheck:
    if prev_fetch is None or not items or len(items) < max(1, capacity):
        return NO_ALERT
    if not all(i.is_new for i in items):
        return NO_ALERT
    pubs = [i.published for i in items]
    if any(p is None for p in pubs):
        return NO_ALERT
    oldest = min(p for p in pubs if p is not None)
    newest = max(p for p in pubs if p is not None)
    if fetched_at is not None and newest > fetched_at + CLOCK_SLACK:
        return NO_ALERT  # dates from the future: the window's span cannot be trusted
    if oldest <= prev_fetch:
        return NO_ALERT
    est = 1.0
    if lam_per_hour is not None and fetched_at is not None and fetched_at > oldest:
        gap = integrate(lam_per_hour, prev_fetch, oldest)
        seen = integrate(lam_per_hour, oldest, fetched_at)
        # the window itself measures the current rate: it held len(items) items over
        # (oldest, now]; scale by λ's shape to the unseen stretch (prev, oldest)
        ratio = len(items) * gap / seen if seen > 0 else gap
        ratio = min(ratio, 3.0 * gap + len(items))
        if ratio < _LN2:
            # P(an item fell in the gap) = 1 − e^(−ratio) < ½: a full window of new
            # items that merely filled up since τ′ is the likelier explanation
            return NO_ALERT
        est = max(1.0, ratio)
    elif lam_per_hour is not None:
        est = max(1.0, integrate(lam_per_hour, prev_fetch, oldest))
    return MissedCheck(True, est, prev_fetch, oldest)
