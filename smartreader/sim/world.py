"""The replay world of ``shared/traces/README.md``.

A fetch of feed F at time t returns the ``capacity`` items of F with the latest
arrival ≤ t (ties broken by file order), each with its id and published time.
The world also keeps the ground truth the metrics need: when each item was first
seen, and for every fetch how many items arrived since the previous fetch of the
same feed but had already left the window.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from smartreader.core.models import FetchObservation, ItemSighting

FloatArray = npt.NDArray[np.float64]


def load_trace(path: str | Path) -> dict[str, FloatArray]:
    per: dict[str, list[float]] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            per.setdefault(row["feed_id"], []).append(float(row["published"]))
    return {k: np.sort(np.asarray(v, dtype=np.float64), kind="stable") for k, v in per.items()}


def load_capacities(path: str | Path | None) -> dict[str, int]:
    if path is None:
        return {}
    out: dict[str, int] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out[row["feed_id"]] = int(row["capacity"])
    return out


@dataclass
class FeedWorld:
    fid: str
    arrivals: FloatArray
    capacity: int
    first_seen: FloatArray = field(init=False)
    seen_hi: int = 0  # items [0, seen_hi) have been seen or have scrolled out
    last_fetch: float | None = None
    _cache: dict[tuple[int, bool], ItemSighting] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.first_seen = np.full(self.arrivals.size, np.inf)


@dataclass(frozen=True)
class FetchTruth:
    feed_id: str
    fetched: float
    new_items: int
    missed_truth: int  # arrived in (prev fetch, now] but no longer in the window


DEFAULT_CAPACITY = 20  # a feed's window when --feeds does not name it (issue 3)


class World:
    def __init__(
        self,
        trace: dict[str, FloatArray],
        capacities: dict[str, int],
        default_cap: int = DEFAULT_CAPACITY,
    ):
        self.feeds = {
            fid: FeedWorld(fid, arr, int(capacities.get(fid, default_cap)))
            for fid, arr in trace.items()
        }

    def fetch(self, fid: str, now: float) -> tuple[FetchObservation, FetchTruth]:
        fw = self.feeds[fid]
        idx = int(np.searchsorted(fw.arrivals, now, side="right"))
        lo = max(0, idx - fw.capacity)
        # truth: items after the previous fetch that scrolled out of the window unseen
        prev_idx = fw.seen_hi
        missed = max(0, lo - prev_idx) if fw.last_fetch is not None else 0
        start_new = max(lo, prev_idx)
        if start_new < idx:
            fw.first_seen[start_new:idx] = now
        items = []
        for j in range(idx - 1, lo - 1, -1):
            new = j >= prev_idx
            key = (j, new)
            s = fw._cache.get(key)
            if s is None:
                s = ItemSighting(f"{fid}#{j}", float(fw.arrivals[j]), new)
                fw._cache[key] = s
                if len(fw._cache) > 4 * fw.capacity + 64:
                    for k in [k for k in fw._cache if k[0] < lo]:
                        del fw._cache[k]
            items.append(s)
        fw.seen_hi = max(prev_idx, idx)
        fw.last_fetch = now
        obs = FetchObservation(fetched_at=now, status="ok", items=tuple(items))
        return obs, FetchTruth(fid, now, max(0, idx - start_new), missed)

    def item_outcomes(self, end: float) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
        """(arrival, delay or nan, missed flag) over all items that arrived ≤ end."""
        arr, dl, ms = [], [], []
        for fw in self.feeds.values():
            a = fw.arrivals[fw.arrivals <= end]
            fs = fw.first_seen[: a.size]
            n_end = a.size
            seen = np.isfinite(fs)
            # left the window before any fetch saw it (still-visible ones are pending)
            gone = np.arange(a.size) < n_end - fw.capacity
            arr.append(a)
            dl.append(np.where(seen, fs - a, np.nan))
            ms.append(~seen & gone)
        if not arr:
            return np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool)
        return np.concatenate(arr), np.concatenate(dl), np.concatenate(ms)
