"""The replay world of ``shared/traces/README.md``.

A fetch of feed F at time t returns the ``capacity`` items of F with the latest
arrival ≤ t (ties broken by file order), each with its id and published time.
The world also keeps the ground truth the metrics need: when each item was first
seen, and for every fetch how many items arrived since the previous fetch of the
same feed but had already left the window.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from smartreader.core.models import FetchObservation, ItemSighting

FloatArray = npt.NDArray[np.float64]


class TraceError(ValueError):
    """A trace or feeds file that cannot be read; the message names the file and,
    where there is one, the line."""


def _rows(path: str | Path, needed: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) of a CSV with the ``needed`` columns. Tolerates what
    spreadsheets and other tools write: a byte-order mark, CRLF, spaces or
    capitals around header names, blank lines."""
    name = Path(path).name
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header: list[str] | None = None
            for row in reader:
                if not any(c.strip() for c in row):
                    continue
                if header is None:
                    header = [c.strip().lower() for c in row]
                    missing = [c for c in needed if c not in header]
                    if missing:
                        raise TraceError(
                            f"{name}: no {' or '.join(repr(m) for m in missing)} column"
                            f" (the first line has: {', '.join(row)})"
                        )
                    continue
                cells = dict(zip(header, (c.strip() for c in row), strict=False))
                yield reader.line_num, cells
    except UnicodeDecodeError as e:
        raise TraceError(f"{name}: not a UTF-8 text file (byte {e.start})") from None
    except csv.Error as e:
        raise TraceError(f"{name}: not a readable CSV file ({e})") from None


def parse_time(text: str) -> float:
    """Epoch seconds (UTC), as the traces are written, or an ISO 8601 date-time
    (``2026-05-25T09:00:00Z``, ``+02:00``; without an offset, UTC)."""
    try:
        t = float(text)
    except ValueError:
        try:
            d = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise ValueError(f"{text!r} is not a time (epoch seconds or ISO 8601)") from None
        if d.tzinfo is None:
            d = d.replace(tzinfo=dt.UTC)
        t = d.timestamp()
    if not math.isfinite(t):
        raise ValueError(f"{text!r} is not a time")
    return t


def load_trace(path: str | Path) -> dict[str, FloatArray]:
    """``feed_id,published`` rows: one item each. Raises :class:`TraceError`
    (and ``OSError`` for a file that cannot be opened)."""
    per: dict[str, list[float]] = {}
    for line, row in _rows(path, ("feed_id", "published")):
        fid = row.get("feed_id", "")
        if not fid:
            raise TraceError(f"{Path(path).name} line {line}: no feed_id")
        try:
            per.setdefault(fid, []).append(parse_time(row.get("published", "")))
        except ValueError as e:
            raise TraceError(f"{Path(path).name} line {line}: published {e}") from None
    return {k: np.sort(np.asarray(v, dtype=np.float64), kind="stable") for k, v in per.items()}


def load_capacities(path: str | Path | None) -> dict[str, int]:
    """``feed_id,capacity`` rows: how many items each feed's window holds (≥ 1)."""
    if path is None:
        return {}
    out: dict[str, int] = {}
    for line, row in _rows(path, ("feed_id", "capacity")):
        fid, text = row.get("feed_id", ""), row.get("capacity", "")
        try:
            cap = float(text)
        except ValueError:
            cap = math.nan
        if not fid or not (cap >= 1 and cap.is_integer()):  # also refuses inf and nan
            what = "no feed_id" if not fid else f"capacity {text!r} is not a whole number ≥ 1"
            raise TraceError(f"{Path(path).name} line {line}: {what}")
        out[fid] = int(cap)
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
