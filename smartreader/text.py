"""Wording shared by the CLI, the GUI and the import/export reports (no Qt)."""

from __future__ import annotations

import datetime as dt
import math
import time


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """'1 article', '1,234 articles' (the plural is noun + s unless given)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def duration_text(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"2 h 10 min"``, ``"3 d 4 h"`` (CLI and GUI alike)."""
    s = max(0.0, seconds)
    if s < 60:
        return f"{s:.0f} s"
    m = round(s / 60)
    if m < 60:
        return f"{m} min"
    h, m = divmod(m, 60)
    if h < 24:
        return f"{h} h {m} min" if m else f"{h} h"
    d, h = divmod(h, 24)
    return f"{d} d {h} h" if h else f"{d} d"


def local_day_time(t: float, now: float) -> str:
    """A local clock time named by its day when not today: ``"20:38"``,
    ``"tomorrow 01:38"``, ``"Fri 09:00"`` (within a week), ``"3 Dec 09:00"``."""
    when, today = dt.datetime.fromtimestamp(t), dt.datetime.fromtimestamp(now)
    days = (when.date() - today.date()).days
    clock = when.strftime("%H:%M")
    if days == 0:
        return clock
    if days == 1:
        return f"tomorrow {clock}"
    if days == -1:
        return f"yesterday {clock}"
    if 1 < days < 7:
        return f"{when:%a} {clock}"
    year = f" {when.year}" if when.year != today.year else ""
    return f"{when.day} {when:%b}{year} {clock}"


def local_time_text(t: float, now: float) -> str:
    """A time for people, local and relative: ``"20:38 (in 2 h)"``; the
    scheduler's notes are worded with it (its own default is UTC)."""
    if t == math.inf:
        return "never"
    delta = t - now
    rel = "now" if abs(delta) < 30 else ("in " if delta > 0 else "") + duration_text(abs(delta))
    return f"{local_day_time(t, now)} ({rel}{'' if delta >= -30 else ' ago'})"


def local_utc_offset(at: float | None = None) -> float:
    """The local UTC offset in seconds at ``at`` (now by default)."""
    t = time.localtime(time.time() if at is None else at)
    return float(t.tm_gmtoff or 0)


def format_utc_offset(offset_s: float) -> str:
    """``"UTC+05:30"``, ``"UTC−03:30"``."""
    sign = "+" if offset_s >= 0 else "−"
    m = round(abs(offset_s) / 60)
    return f"UTC{sign}{m // 60:02d}:{m % 60:02d}"
