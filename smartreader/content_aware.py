"""Content-aware polling in the app: per-feed channel profiles kept next to the store.

The maths is :mod:`smartreader.core.content`; this module only feeds it text from
the store and from fresh fetches. The updater asks :meth:`ContentTracker.judge`
which of a fetch's new entries are novel and reports the others to the scheduler
with ``is_new=False`` (the setting ``content_aware``, "prefer new content"), so
the scheduler spends requests on feeds that say something new.

A feed's profile is rebuilt from its newest stored entries the first time it is
needed (at most ``2 × window`` entries, so the novelty statistics start warm),
never for all feeds at start-up. No Qt here.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Sequence
from typing import Any

from smartreader.core.content import (
    DEFAULT_BETA,
    DEFAULT_WINDOW,
    NoveltyFilter,
    Overlap,
    Vocabulary,
    item_terms,
    overlaps,
)

SETTING = "content_aware"  # store setting: prefer new content (bool)
BETA_SETTING = "content_beta"  # store setting: novelty threshold β (float)


def _text(e: Any) -> tuple[str, str]:
    return str(e.title or ""), str(e.summary or "") or str(getattr(e, "content", "") or "")


class ContentTracker:
    """Per-feed novelty filters over one shared vocabulary, built lazily from ``store``."""

    def __init__(self, store: Any, *, window: int = DEFAULT_WINDOW, beta: float = DEFAULT_BETA):
        self.store = store
        self.window = window
        # The user's β (store setting), else the measured default.
        with contextlib.suppress(TypeError, ValueError, AttributeError):
            beta = float(store.get_setting(BETA_SETTING, beta))
        self.beta = beta if math.isfinite(beta) else DEFAULT_BETA
        self.vocab = Vocabulary()
        self._filters: dict[int, NoveltyFilter] = {}

    def _filter(self, feed_id: int) -> NoveltyFilter:
        nf = self._filters.get(feed_id)
        if nf is None:
            nf = self._filters[feed_id] = NoveltyFilter(self.vocab, self.window, self.beta)
            ids = self.store.entry_ids(feed_ids=[feed_id], limit=2 * self.window)
            for e in reversed(self.store.entries(ids)):  # oldest first
                nf.add(item_terms(*_text(e)))
        return nf

    def forget(self, feed_id: int) -> None:
        self._filters.pop(feed_id, None)

    def judge(self, feed_id: int, new_entries: Sequence[Any]) -> dict[str, bool]:
        """uid → novel for a fetch's new entries (judged oldest first, as one batch)."""
        if not new_entries:
            return {}
        nf = self._filter(feed_id)
        order = sorted(
            new_entries, key=lambda e: e.published if e.published is not None else float("inf")
        )
        verdicts = nf.add_batch([item_terms(*_text(e)) for e in order])
        return {e.uid: v.novel for e, v in zip(order, verdicts, strict=True)}

    def overlaps(self, feed_id: int, feed_ids: Iterable[int]) -> list[Overlap]:
        """Feeds whose recent content overlaps ``feed_id``'s (strongest first)."""
        vecs = {f: self._filter(f).vector() for f in {feed_id, *feed_ids}}
        return overlaps(vecs, feed_id)


def feed_overlaps(store: Any, feed_id: int, *, limit: int = 3) -> list[str]:
    """Human-readable overlap hints for the feed properties ("mostly contained in
    X"), from the feeds' stored entries; [] when nothing overlaps."""
    tracker = ContentTracker(store)
    feeds = {f.id: f for f in store.feeds() if f.status == "active" or f.id == feed_id}
    out = []
    for o in tracker.overlaps(feed_id, feeds)[:limit]:
        other = feeds.get(int(o.other))  # type: ignore[call-overload]
        if other is not None:
            out.append(o.describe(other.display_title))
    return out
