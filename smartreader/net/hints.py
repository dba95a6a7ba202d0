"""Pure parsing of the HTTP headers that tell a polite client when to come back.

* ``Retry-After`` (on 429/503): delta-seconds or an HTTP-date, resolved to an
  absolute epoch time.
* ``Cache-Control`` / ``Expires`` (on 200/304): the response's freshness
  lifetime, resolved to ``cache_until`` (epoch seconds), following RFC 9111
  §4.2.1 for a private cache: ``no-store`` or ``no-cache`` give no hint;
  ``max-age`` wins over ``Expires``; ``Expires`` is taken relative to the
  response's ``Date`` when there is one (so a skewed server clock does not
  matter); ``Age`` is subtracted.

Everything takes ``now`` (epoch seconds) explicitly and does no I/O. Unparseable
values are ignored (``None``), never raised: they come from arbitrary servers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from smartreader.core.models import ServerHints

_DIRECTIVE = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*(\"[^\"]*\"|[^,]*))?\s*(?:,|$)")


def parse_http_date(value: str | None) -> float | None:
    """An HTTP-date (IMF-fixdate, RFC 850 or asctime) as epoch seconds, else None.

    Dates without a zone (asctime) are UTC, as HTTP requires.
    """
    if not value or not value.strip():
        return None
    try:
        dt = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def _delta_seconds(value: str) -> float | None:
    """A non-negative number of seconds. RFC says integer; we also accept "12.5"."""
    try:
        seconds = float(value.strip().strip('"'))
    except ValueError:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds


def parse_retry_after(value: str | None, now: float) -> float | None:
    """``Retry-After`` as an absolute epoch time ("do not come back before").

    A delta (``"120"``) gives ``now + 120``; an HTTP-date gives that date, but
    never earlier than ``now`` (a date in the past means "now"). Garbage → None.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text[0].isdigit() or text[0] in "+-.":
        delta = _delta_seconds(text)
        return None if delta is None else now + delta
    when = parse_http_date(text)
    if when is None:
        return None
    return max(when, now)


def parse_cache_control(value: str | None) -> dict[str, str | None]:
    """Cache-Control directives, names lower-cased, quotes removed from values.

    Repeated headers may be passed comma-joined. Later duplicates do not
    override earlier ones (RFC 9111 says such a response is invalid; first wins).
    """
    directives: dict[str, str | None] = {}
    if not value:
        return directives
    pos = 0
    while pos < len(value):
        m = _DIRECTIVE.match(value, pos)
        if m is None or m.end() == pos:
            # Skip a malformed piece up to the next comma.
            comma = value.find(",", pos)
            if comma < 0:
                break
            pos = comma + 1
            continue
        name = m.group(1).lower()
        arg = m.group(2)
        if arg is not None:
            arg = arg.strip()
            if arg.startswith('"') and arg.endswith('"') and len(arg) >= 2:
                arg = arg[1:-1]
        directives.setdefault(name, arg)
        pos = m.end()
    return directives


def parse_cache_until(
    *,
    cache_control: str | None,
    expires: str | None,
    date: str | None,
    age: str | None,
    now: float,
) -> float | None:
    """Until when (epoch seconds) the response is fresh; None for no usable hint.

    A lifetime that is already over (``max-age=0``, ``Expires: 0``, a past
    date) gives None: the server offers no reason to wait. The value is not
    capped here; the scheduler decides how much of it to honour.
    """
    directives = parse_cache_control(cache_control)
    if "no-store" in directives or "no-cache" in directives:
        return None
    lifetime: float | None = None
    max_age = directives.get("max-age")
    if max_age is not None:
        lifetime = _delta_seconds(max_age)
    if lifetime is None and expires is not None:
        expires_at = parse_http_date(expires)
        if expires_at is None:
            return None  # invalid Expires (e.g. "0") means "already expired"
        date_at = parse_http_date(date)
        lifetime = expires_at - date_at if date_at is not None else expires_at - now
    if lifetime is None:
        return None
    current_age = _delta_seconds(age) if age is not None else None
    if current_age is not None:
        lifetime -= current_age
    if lifetime <= 0:
        return None
    return now + lifetime


def hints_from_headers(headers: Mapping[str, str], *, status: int, now: float) -> ServerHints:
    """The ServerHints a response carries. Header names are matched case-insensitively.

    ``retry_after`` is read only on 429 and 503 (elsewhere it has other meanings);
    ``cache_until`` only on 200 and 304 (what a cache would store or freshen).
    """
    lower = {k.lower(): v for k, v in headers.items()}
    retry_after = None
    if status in (429, 503):
        retry_after = parse_retry_after(lower.get("retry-after"), now)
    cache_until = None
    if status in (200, 203, 304):
        cache_until = parse_cache_until(
            cache_control=lower.get("cache-control"),
            expires=lower.get("expires"),
            date=lower.get("date"),
            age=lower.get("age"),
            now=now,
        )
    return ServerHints(retry_after=retry_after, cache_until=cache_until)


def format_epoch(when: float) -> str:
    """A short UTC timestamp for human messages, e.g. ``2026-11-22 14:05:00 UTC``."""
    return datetime.fromtimestamp(when, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
