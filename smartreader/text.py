"""Wording shared by the CLI, the GUI and the import/export reports (no Qt)."""

from __future__ import annotations

import datetime as dt
import math
import re
import time

NBSP = "\u00a0"
# a number and the unit after it ("24 h", "47 %", "5.3 MB"), and a duration's parts
# ("1 h 18 min"): where a word-wrapped label must not break a line
_UNIT = r"(?:%|ms|s|min|h|d|KiB|MiB|GiB|KB|MB|GB|B)(?![\w])"
_NUMBER_UNIT = re.compile(rf"(?<=\d) (?={_UNIT})")
_DURATION_PARTS = re.compile(r"(\d\u00a0(?:d|h|min)) (?=\d+\u00a0(?:h|min|s)(?!\w))")


def keep_units(text: str) -> str:
    """``text`` with no-break spaces between each number and its unit, and between
    the parts of a duration, so a wrapped label never ends a line on "24" and
    begins the next with "h" ("785 used in the last 24 h")."""
    return _DURATION_PARTS.sub(rf"\1{NBSP}", _NUMBER_UNIT.sub(NBSP, text))


def with_kind(title: str, kind: str) -> str:
    """A linked feed's name with its kind, unless the name already says it (sites
    title their links "Posts (Atom)" or "RSS Feed": not "Posts (Atom) (Atom)")."""
    if not kind or re.search(rf"(?<!\w){re.escape(kind)}(?!\w)", title, re.IGNORECASE):
        return title
    return f"{title} ({kind})"


def count_of(n: int, noun: str, plural: str | None = None, *, grouped: bool = True) -> str:
    """'1 article', '1,234 articles' (the plural is noun + s unless given);
    ``grouped=False`` writes '1234' as a spin box next to the text shows it."""
    number = f"{n:,}" if grouped else f"{n}"
    return f"{number} {noun if n == 1 else plural or noun + 's'}"


def size_text(n: float) -> str:
    """``"512 B"``, ``"14.4 KiB"``, ``"15 MiB"``: a size for people, not 15728640."""
    if n < 1024:
        return f"{int(n)} B"
    value, unit = (n / 1024, "KiB") if n < 1024 * 1024 else (n / 1024 / 1024, "MiB")
    return f"{value:.1f}".removesuffix(".0") + f" {unit}"


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


# Dates are written with these English names, never strftime's %a/%A/%b/%B: the
# UI is English, and Qt sets the C library's locale from the environment, so
# strftime would put "Di" or "Dienstag" between English words. Day numbers are
# not zero-padded ("3 Nov") and clocks are 24 h, in every view alike.
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def day_name(d: dt.date, *, short: bool = True) -> str:
    """``"Tue"``, or ``"Tuesday"`` with ``short=False``."""
    name = WEEKDAYS[d.weekday()]
    return name[:3] if short else name


def month_name(d: dt.date, *, short: bool = True) -> str:
    """``"Nov"``, or ``"November"`` with ``short=False``."""
    name = MONTHS[d.month - 1]
    return name[:3] if short else name


def clock_text(d: dt.datetime, *, seconds: bool = False) -> str:
    """``"09:05"`` or ``"09:05:07"`` (digits only: no locale in it)."""
    return f"{d.hour:02d}:{d.minute:02d}" + (f":{d.second:02d}" if seconds else "")


def day_clock(d: dt.datetime) -> str:
    """``"Tue 09:05"``: a time within the week around today."""
    return f"{day_name(d)} {clock_text(d)}"


def day_month(d: dt.date, *, weekday: bool = False, year: bool = False) -> str:
    """``"3 Nov"``, ``"Tue 3 Nov"``, ``"3 Nov 2026"``, ``"Tue 3 Nov 2026"``."""
    text = f"{d.day} {month_name(d)}" + (f" {d.year}" if year else "")
    return f"{day_name(d)} {text}" if weekday else text


def date_time_text(d: dt.datetime, *, weekday: bool = False, year: bool = True) -> str:
    """``"3 Nov 2026 23:20"``, ``"Tue 3 Nov 2026 23:20"``, ``"Tue 3 Nov 23:20"``."""
    return f"{day_month(d, weekday=weekday, year=year)} {clock_text(d)}"


def long_date_time(d: dt.datetime) -> str:
    """``"Tuesday 3 November 2026, 23:22"``: a date spelled out in full."""
    day = f"{day_name(d, short=False)} {d.day} {month_name(d, short=False)} {d.year}"
    return f"{day}, {clock_text(d)}"


def local_day_time(t: float, now: float) -> str:
    """A local clock time named by its day when not today: ``"20:38"``,
    ``"tomorrow 01:38"``, ``"Fri 09:00"`` (within a week), ``"3 Dec 09:00"``."""
    when, today = dt.datetime.fromtimestamp(t), dt.datetime.fromtimestamp(now)
    days = (when.date() - today.date()).days
    clock = clock_text(when)
    if days == 0:
        return clock
    if days == 1:
        return f"tomorrow {clock}"
    if days == -1:
        return f"yesterday {clock}"
    if 1 < days < 7:
        return day_clock(when)
    return f"{day_month(when, year=when.year != today.year)} {clock}"


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
