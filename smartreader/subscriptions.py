"""Subscriptions in and out of OPML, one way for the CLI and the GUI. No Qt.

An export carries each feed's own settings (its priority, minimum interval, how
long its articles are kept, whether it loads images, a name the user gave it) in
smartreader's OPML namespace, so moving to a new machine keeps them; other
readers ignore those attributes. An import applies them when they are valid and
names each one it could not use. Credentials in a feed URL go to the keyring,
never into the database; unsubscribing takes them out of it again.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from smartreader.core.address import address_key, canonical_url
from smartreader.errors import CredentialsError, UsageError
from smartreader.net import credentials, favicon
from smartreader.net.opml import OpmlSubscription, parse_opml, write_opml
from smartreader.net.urls import typed_address
from smartreader.storage.store import Feed, FeedSnapshot, Store
from smartreader.text import count_of

TITLE = "smartreader subscriptions"

log = logging.getLogger(__name__)


def feed_address(text: str) -> str:
    """A feed address as typed, checked: ``https://`` is added when it names no
    scheme; it must be http(s) with a host, and hold no spaces and no user name
    or password (those have their own fields, and go to the keyring). Raises
    :class:`UsageError` saying what is wrong."""
    url = typed_address(text)  # http(s), a host, a port that is one
    parts = urlsplit(url)
    if any(c.isspace() for c in url):
        raise UsageError(f"not a web address: {text.strip()!r}")
    if "@" in parts.netloc:
        raise UsageError("put the user name and password in their own fields, not in the address")
    return url


@dataclass
class ImportReport:
    added: list[int] = field(default_factory=list)
    already: int = 0  # subscribed before: left as they are
    problems: list[str] = field(default_factory=list)  # left out or ignored, and why
    # Read otherwise than as written, nothing lost (a guessed encoding, a bare "&",
    # feeds nested under a feed put in a folder)
    notes: list[str] = field(default_factory=list)
    empty_folders: list[str] = field(default_factory=list)  # made by this import

    def summary(self) -> str:
        """``"imported 3 feeds, 1 already subscribed, 1 empty folder, 2 problems, 1 note"``."""
        text = f"imported {count_of(len(self.added), 'feed')}"
        if self.already:
            text += f", {self.already:,} already subscribed"
        if self.empty_folders:
            text += f", {count_of(len(self.empty_folders), 'empty folder')}"
        if self.problems:
            text += f", {count_of(len(self.problems), 'problem')}"
        if self.notes:
            text += f", {count_of(len(self.notes), 'note')}"
        return text

    def details(self) -> list[str]:
        """What to tell the user beyond the summary: the problems, then the notes."""
        return [*self.problems, *self.notes]


def _number(low: float, high: float, scale: float = 1.0) -> Callable[[str], float]:
    def parse(value: str) -> float:
        x = float(value)
        if not math.isfinite(x) or not low <= x <= high:
            raise ValueError(f"not between {low:g} and {high:g}")
        return x * scale

    return parse


def _flag(value: str) -> bool:
    v = value.strip().lower()
    if v not in ("true", "false"):
        raise ValueError("not true or false")
    return v == "true"


def _text(value: str) -> str:
    v = " ".join(value.split())
    if not v:
        raise ValueError("empty")
    return v


# OPML attribute -> (store column, parser of the attribute, writer from the column).
# A feed's value equal to the default is not written.
_SETTINGS: dict[str, tuple[str, Callable[[str], Any], Callable[[Any], str | None]]] = {
    "priority": ("weight", _number(0.01, 100), lambda w: None if w == 1 else f"{w:g}"),
    "minIntervalMinutes": (
        "min_interval",
        _number(1, 7 * 24 * 60, 60.0),
        lambda s: None if s is None else f"{s / 60:g}",
    ),
    "maxIntervalMinutes": (
        "max_interval",
        _number(60, 7 * 24 * 60, 60.0),
        lambda s: None if s is None else f"{s / 60:g}",
    ),
    "keepDays": ("keep_days", _number(0, 36500), lambda d: None if d is None else f"{d:g}"),
    "loadImages": ("load_images", _flag, lambda b: "true" if b else None),
    "fullText": ("full_text", _flag, lambda b: "true" if b else None),
    "title": ("user_title", _text, lambda t: t or None),
}


# a site's own limit (Feed properties ▸ Site's limit), on each of its feeds' outlines:
# seconds between two requests to the feed's site
SITE_LIMIT = "siteLimitSeconds"


def feed_settings(feed: Feed) -> tuple[tuple[str, str], ...]:
    """The feed's own settings as OPML attributes (ours), defaults left out."""
    out = []
    for name, (column, _parse, write) in _SETTINGS.items():
        value = write(getattr(feed, column))
        if value is not None:
            out.append((name, value))
    return tuple(out)


def parse_settings(sub: OpmlSubscription) -> tuple[dict[str, Any], list[str]]:
    """Store changes from an outline's attributes, and what could not be used."""
    changes: dict[str, Any] = {}
    problems: list[str] = []
    label = sub.title or credentials.redact(sub.url)
    for name, value in sub.settings:
        spec = _SETTINGS.get(name)
        if spec is None:
            continue  # a later version's setting: ignored, not an error
        column, parse, _write = spec
        try:
            changes[column] = parse(value)
        except ValueError as e:
            problems.append(f"{label}: setting {name}={value[:40]!r} ignored ({e})")
    return changes, problems


def save_opml(store: Store, path: Path) -> int:
    """Export every subscription to ``path``, whole or not at all: written to
    ``<name>.partial`` beside it, flushed to disk, then renamed over it. Returns
    how many feeds it holds. Raises UsageError saying why it cannot be written,
    leaving no ``.partial`` behind (nor a file beside a folder named as the target).
    Its folder must exist: the CLI's ``export`` creates missing ones first (the path
    was typed on purpose), the GUI's file dialog picks an existing one."""
    data, n = export_opml(store)
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a folder")
    tmp = path.with_name(path.name + ".partial")
    try:
        f = open(tmp, "wb")  # noqa: SIM115 (closed below, before the rename)
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from e
    try:
        with f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    except BaseException as e:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            log.warning("could not delete %s", tmp)
        if isinstance(e, OSError):
            raise UsageError(f"cannot write {path}: {e.strerror or e}") from e
        raise
    return n


def export_opml(store: Store) -> tuple[bytes, int]:
    """The OPML of every subscription (and every folder, an empty one too), and
    how many feeds it holds."""
    from smartreader.updater import host_gaps_of, host_of

    gaps = host_gaps_of(store)

    def site_limit(url: str) -> tuple[tuple[str, str], ...]:
        gap = gaps.get(host_of(url))
        return () if gap is None else ((SITE_LIMIT, f"{gap:g}"),)

    subs = [
        OpmlSubscription(
            url=f.url,
            title=f.display_title,
            folder=f.folder,
            site_url=f.site_link,
            settings=feed_settings(f) + site_limit(f.url),
        )
        for f in store.feeds()  # the light list lacks keep_days
    ]
    folders = [f.name for f in store.folders()]
    return write_opml(subs, title=TITLE, folders=folders), len(subs)


def import_opml(store: Store, data: bytes, *, now: float | None = None) -> ImportReport:
    """Subscribe to every feed of an OPML file not already subscribed, with its
    folder and settings, and make its empty folders. Raises ParseError only when
    nothing can be read; a bad outline or setting is a problem in the report,
    never fatal for the rest."""
    result = parse_opml(data)
    report = ImportReport(problems=list(result.problems))
    # Every address a feed has now or had (``Store.feed_id_by_address``), read once:
    # asking the store per outline scans every feed's old addresses each time, and
    # a list of 20,000 feeds took 42 s instead of a few.
    # In one spelling: "HTTP://Example.org/feed" from a file is the feed at
    # "http://example.org/feed", not a second one.
    # ("bücher.example" and its ASCII form "xn--bcher-kva.example" alike: address_key)
    known = {address_key(u) for f in store.feeds() for u in (f.url, *f.previous_urls)}
    handled: set[str] = set()  # by this import: a second outline of one is a duplicate
    limits: dict[str, float] = {}  # the sites' own limits the file names
    for sub in result.subscriptions:
        url, user, password = credentials.split_userinfo(sub.url)
        url = canonical_url(url)
        _site_limit(sub, url, limits, report)
        key = address_key(url)
        if key in handled:  # the file's own duplicate, in another spelling or with a login
            label = sub.title or credentials.redact(sub.url)
            report.problems.append(f"outline {label!r}: duplicate of {url}")
            continue
        if key in known:  # also under an address it left
            handled.add(key)
            report.already += 1
            continue
        # a reader names a feed it has no name for by its address, login and all:
        # the password goes to the keyring, not into the name
        title = credentials.without_userinfo(sub.title)
        # ... and a folder named by such an outline ("https://ann:pw@… / News")
        folder = credentials.without_userinfo(sub.folder) if sub.folder else sub.folder
        changes, problems = parse_settings(sub)
        report.problems.extend(problems)
        if user:
            # Never store the password from the file in the database.
            try:
                credentials.store_password(url, user, password or "")
            except CredentialsError as e:
                report.problems.append(f"{credentials.redact(sub.url)}: {e}")
                continue
        # The name the feed had in the reader the list comes from: kept, unless
        # the first fetch shows it was only the feed's own title (then it follows
        # the feed's). A file of ours names only what its user renamed.
        own = None if result.ours or title == url else title
        try:
            # with its settings, in one transaction: never a feed without them
            fid = store.add_feed(
                url, folder=folder, title=title or "", user_title=own,
                auth_username=user, now=now, site_link=sub.site_url, settings=changes,
            )  # fmt: skip
        except UsageError as e:
            if store.feed_id_by_url(url) is None:
                report.problems.append(f"{credentials.redact(sub.url)}: {e}")
            else:  # subscribed meanwhile (the updater moved a feed there)
                report.already += 1
            continue
        known.add(key)
        handled.add(key)
        report.added.append(fid)
    # the store's own test of a name (any case, cleaned): "news" is "News"
    report.empty_folders = store.add_folders(
        [credentials.without_userinfo(f) for f in result.folders]
    )
    report.notes = list(result.notes)
    _keep_site_limits(store, limits)
    return report


def _site_limit(
    sub: OpmlSubscription, url: str, out: dict[str, float], report: ImportReport
) -> None:
    """The site's own limit an outline names (its first outline's, for a site)."""
    from smartreader.updater import HOST_GAP_RANGE, host_of

    value = dict(sub.settings).get(SITE_LIMIT)
    if value is None:
        return
    try:
        gap = _number(*HOST_GAP_RANGE)(value)
    except ValueError as e:
        label = sub.title or credentials.redact(sub.url)
        report.problems.append(f"{label}: setting {SITE_LIMIT}={value[:40]!r} ignored ({e})")
        return
    out.setdefault(host_of(url), gap)


def _keep_site_limits(store: Store, limits: dict[str, float]) -> None:
    """The file's site limits, for the sites that have none of their own yet (a
    limit set here stands)."""
    from smartreader.updater import HOST_GAPS, host_gaps_of

    gaps = host_gaps_of(store)
    new = {h: g for h, g in limits.items() if h not in gaps}
    if new:
        store.set_setting(HOST_GAPS, {**gaps, **new})


# An unsubscribe keeps what it deleted in memory for its undo only up to this much
# article text: a huge feed is not undoable (the question says so).
UNDO_MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Resubscribe:
    """What an unsubscribe deleted, held to undo it (``resubscribe``)."""

    snapshot: FeedSnapshot
    spent: tuple[float, ...]  # the feed's requests it left counted in the 24 h cap
    password: str | None  # read before it was deleted; None: none, or unreadable
    session_only: bool  # the password was kept for the session, not in the keyring
    icon: bytes | None = None  # its cached favicon (else the undo fetches it again)


@dataclass(frozen=True)
class Unsubscribed:
    title: str
    articles: int  # deleted with the feed
    starred: int  # of those, starred
    password_problem: str | None = None  # the keyring kept its password: why
    undo: Resubscribe | None = None  # asked for and small enough to hold

    def summary(self) -> str:
        text = f"unsubscribed from “{self.title}”: {count_of(self.articles, 'article')} deleted"
        if self.starred:
            text += f", {self.starred:,} of them starred"
        return text


def undoable(store: Store, feed_id: int) -> bool:
    """Whether unsubscribing from the feed can be undone (its text is small
    enough to hold in memory until then)."""
    return store.feed_text_bytes(feed_id) <= UNDO_MAX_BYTES


def unsubscribe(store: Store, feed_id: int, *, keep_for_undo: bool = False) -> Unsubscribed:
    """Delete a feed with its articles, and forget its saved password: a keyring
    entry for a feed that no longer exists is a secret nobody can see or remove.
    A keyring that fails does not undo the unsubscribe; the result says why.

    ``keep_for_undo``: the result holds everything deleted, password included,
    unless the feed is over ``UNDO_MAX_BYTES``."""
    feed = store.feed(feed_id)  # UsageError for an unknown id
    articles, starred = store.entry_count(feed_id), store.starred_count(feed_id)
    snapshot = store.snapshot_feed(feed_id, max_bytes=UNDO_MAX_BYTES) if keep_for_undo else None
    password, session_only = None, False
    if snapshot is not None and feed.auth_username:
        session_only = credentials.kept_for_session(feed.url, feed.auth_username)
        try:
            password = credentials.get_password(feed.url, feed.auth_username)
        except CredentialsError as e:  # the undo then asks for it again
            log.info("cannot read the password of %s to undo: %s", credentials.redact(feed.url), e)
    icon = _cached_icon(store, feed_id) if snapshot is not None else None
    spent = store.delete_feed(feed_id)
    # Its cached icon goes too (a database from before schema v10 may give the next
    # feed the same id).
    try:
        favicon.forget_icon(favicon.icons_dir(store.path), feed_id)
    except OSError as e:
        log.warning("could not delete the icon of feed %d: %s", feed_id, e)
    problem = None
    if feed.auth_username:
        try:
            credentials.delete_password(feed.url, feed.auth_username)
        except CredentialsError as e:
            # With no keyring at all nothing was saved in one: nothing to say. A
            # keyring that refused (locked) may still hold it: the caller says so,
            # once (a warning here too printed it twice in the CLI).
            if credentials.keyring_available():
                problem = str(e)
                log.info("unsubscribed from %s; its password stays in the keyring: %s",
                         credentials.redact(feed.url), e)  # fmt: skip
    undo = None
    if snapshot is not None:
        undo = Resubscribe(snapshot, spent, password, session_only, icon)
    return Unsubscribed(feed.display_title, articles, starred, problem, undo)


def _cached_icon(store: Store, feed_id: int) -> bytes | None:
    path = favicon.icon_path(favicon.icons_dir(store.path), feed_id)
    try:
        if path is not None and path.stat().st_size <= favicon.MAX_ICON_BYTES:
            return path.read_bytes()
    except OSError:
        pass
    return None


def resubscribe(store: Store, undo: Resubscribe) -> tuple[int, str | None]:
    """Undo an unsubscribe: the feed, its articles (read, starred), its fetch log,
    alerts, learned schedule and password come back. Returns its id and, when its
    password could not be put back, why (the feed is back all the same). Raises
    UsageError when another feed has taken its address meanwhile."""
    fid = store.restore_feed(undo.snapshot, spent=undo.spent)
    if undo.icon is not None:
        try:
            favicon.save_icon(favicon.icons_dir(store.path), fid, undo.icon)
        except OSError as e:  # fetched again on its next update
            log.warning("could not put back the icon of feed %d: %s", fid, e)
    user = undo.snapshot.feed.get("auth_username")
    url = str(undo.snapshot.feed["url"])
    if not user:
        return fid, None
    if undo.password is None:
        return fid, "its password could not be read before; enter it in the feed's properties"
    if undo.session_only:
        credentials.keep_for_session(url, user, undo.password)
        return fid, None
    try:
        credentials.store_password(url, user, undo.password)
    except CredentialsError as e:
        credentials.keep_for_session(url, user, undo.password)  # usable until quit
        return fid, f"the keyring refused its password, kept for this session only ({e})"
    return fid, None
