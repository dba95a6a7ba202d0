"""Plain data that crosses layers: parsed feeds, server hints, fetch observations.

Frozen dataclasses only; no I/O. Times are float seconds since the epoch (UTC).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServerHints:
    """What the server (headers) and the feed document ask of a polite client.

    All times are absolute epoch seconds, already resolved against the fetch time.
    """

    retry_after: float | None = None  # do not fetch before this (429/503 Retry-After)
    cache_until: float | None = None  # Cache-Control max-age / Expires (uncapped)
    ttl_seconds: float | None = None  # RSS <ttl>
    update_period_seconds: float | None = None  # sy:updatePeriod / sy:updateFrequency
    skip_hours: frozenset[int] = frozenset()  # RSS <skipHours>, 0..23 UTC
    skip_days: frozenset[int] = frozenset()  # RSS <skipDays>, 0=Monday..6=Sunday


@dataclass(frozen=True)
class Enclosure:
    url: str
    type: str = ""
    length: int | None = None


@dataclass(frozen=True)
class ParsedEntry:
    """One item after parsing and sanitising; safe to store and to render."""

    uid: str  # stable identity: guid/id, else link, else content hash (never dates)
    title: str  # plain text
    link: str | None  # http(s)/mailto only
    author: str
    published: float | None  # epoch seconds, None when absent or implausible
    updated: float | None
    content: str  # sanitised HTML
    summary: str  # sanitised HTML
    enclosures: tuple[Enclosure, ...] = ()


@dataclass(frozen=True)
class ParsedFeed:
    title: str
    link: str | None  # the site
    entries: tuple[ParsedEntry, ...]
    ttl_seconds: float | None = None
    update_period_seconds: float | None = None
    skip_hours: frozenset[int] = frozenset()
    skip_days: frozenset[int] = frozenset()
    warnings: tuple[str, ...] = ()  # e.g. feedparser bozo, truncated fields
    icon: str | None = None


@dataclass(frozen=True)
class ItemSighting:
    """An item seen by a fetch, as the scheduler needs it."""

    uid: str
    published: float | None
    is_new: bool  # not seen by any earlier fetch of this feed
    # judged novel by content-aware polling (only read when it is on): the scheduler
    # then spends delay on the rate of novel items, capacity on the rate of all
    novel: bool = True


@dataclass(frozen=True)
class FetchObservation:
    """What one fetch attempt taught us, handed to the scheduler.

    status: "ok" (200 parsed), "not_modified" (304), "error" (network/parse/HTTP
    failure), "rate_limited" (429/503), "gone" (410).
    """

    fetched_at: float
    status: str
    items: tuple[ItemSighting, ...] = ()  # every item in the window (empty on 304/error)
    hints: ServerHints = field(default_factory=ServerHints)
    manual: bool = False  # user-initiated: outside the budget but recorded
    # the host that answered when a redirect led off the feed's own (spelled as the
    # feed's host is): a 429's Retry-After blocks that host, not the feed's; with
    # ``unreachable``, the host where none did
    answered_by: str | None = None
    # an error where no server answered at the host asked last (its name did not
    # resolve, no connection): the host is down, or the network
    unreachable: bool = False
    # whether any server answered (a redirect's first host did, say); None: as the
    # status says (every status but "error" is an answer)
    answered: bool | None = None
