"""The update pipeline: scheduler decides, fetcher fetches, parser parses, store stores.

This is the one place where I/O meets the pure scheduler (``core.scheduler``).
It is used the same way by the CLI (``smartreader update``), the GUI's worker
thread and the end-to-end tests. No Qt here.

Threads: fetch + parse of several feeds run in a bounded pool (the fetcher adds
a per-host limit); the scheduler and the store are touched under one lock, so
the caller may drive an ``Updater`` from one thread while another thread reads
the store.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from smartreader.content_aware import SETTING as CONTENT_AWARE
from smartreader.content_aware import ContentTracker
from smartreader.core.address import address_key, canonical_url
from smartreader.core.content import filter_sightings
from smartreader.core.estimator import DAY
from smartreader.core.models import FetchObservation, ItemSighting, ParsedFeed, ServerHints
from smartreader.core.scheduler import (
    FeedExplanation,
    PlanSummary,
    Scheduler,
    SchedulerConfig,
)
from smartreader.errors import (
    CredentialsError,
    FetchError,
    ParseError,
    StorageError,
    UsageError,
)
from smartreader.net import credentials, favicon
from smartreader.net.discover import (
    DiscoveredFeed,
    discover_feeds,
    guess_feed_urls,
    looks_like_feed,
    looks_like_page,
)
from smartreader.net.fetch import Fetcher, FetchResult, is_local_host, may_send_credentials
from smartreader.net.fulltext import FullTextError, fetch_full_article, without_title
from smartreader.net.parse import parse_feed
from smartreader.net.parsepool import ParsePool
from smartreader.net.urls import typed_address
from smartreader.storage.store import (
    MAX_INTERVAL_LIMITS,
    Feed,
    FetchRecord,
    FullText,
    PurgeResult,
    Store,
    is_https_upgrade,
)
from smartreader.text import duration_text, local_time_text

DEFAULT_BUDGET_PER_DAY = 1000.0
DEFAULT_MIN_INTERVAL = 15 * 60.0
# what the Settings dialog offers; a stored value outside falls back to the default
BUDGET_RANGE = (1.0, 100_000.0)  # requests per day
MIN_INTERVAL_RANGE = (60.0, 86_400.0)  # seconds
# the longest any feed goes unchecked (a server's Retry-After may still hold it
# back): a day by default; quiet feeds can wait up to a week when the budget is
# small, or every feed be checked every hour
DEFAULT_MAX_INTERVAL = 86_400.0
MAX_INTERVAL_RANGE = MAX_INTERVAL_LIMITS  # seconds; a feed's own is held to it too
# How long articles are kept (days; 0 = for ever). Starred ones always are. A
# year of 200 feeds is ~10^6 articles and gigabytes; read ones are rarely looked
# for after a few months (Miniflux keeps read entries 60 days by default).
KEEP_READ_DAYS = "keep_read_days"
KEEP_UNREAD_DAYS = "keep_unread_days"
DEFAULT_KEEP_READ_DAYS = 90.0
DEFAULT_KEEP_UNREAD_DAYS = 0.0
KEEP_DAYS_RANGE = (0.0, 36_500.0)
CLEANUP_EVERY = 86_400.0  # seconds between two purges of old articles
LAST_CLEANUP = "last_cleanup"
# the fetcher's Retry-After blocks by host:port, kept across restarts: one an icon
# request or a redirect's target met is not any feed's own host
HOST_BLOCKS = "host_blocks"
# a site's own least time between two requests, {host: seconds} (Feed properties ▸
# Site's limit): for a site that refuses more (Reddit: one a minute)
HOST_GAPS = "host_gaps"
HOST_GAP_RANGE = (1.0, 24 * 3600.0)


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FeedOption:
    """One of the feeds a web page links; crosses threads as plain data."""

    url: str  # shown to the user: never carries credentials
    title: str
    kind: str  # "RSS", "Atom", "JSON Feed", ...
    subscribed: bool  # already in the store
    # What to subscribe to: ``url`` with the site's credentials when on the same
    # host, and whether it must be fetched public_only (it was named by a page).
    address: str
    public_only: bool


class SeveralFeeds(UsageError):
    """The page links more than one feed, and the caller asked to choose: which
    of them are wanted (posts, comments, a category) is the user's call."""

    def __init__(self, page: str, options: list[FeedOption]) -> None:
        names = ", ".join(o.title or o.url for o in options)
        super().__init__(
            f"{credentials.redact(page)} links {len(options)} feeds ({names}): "
            "subscribe to one of their addresses"
        )
        self.page = page
        self.options = options


class LoginRequired(FetchError):
    """The feed (or the site) answered 401: it needs a user name and password, or
    refused the ones sent (``refused``). The GUI then asks for them."""

    def __init__(self, message: str, *, refused: bool) -> None:
        super().__init__(message)
        self.refused = refused


def check_ranges(
    *, per_day: float | None = None, shortest: float | None = None, longest: float | None = None
) -> None:
    """Raise UsageError for a budget, minimum or maximum interval out of range (a
    NaN included); None: not given. Needs no database: a command checks before it
    opens, and perhaps creates, one."""
    budget = f"the request budget must be between {BUDGET_RANGE[0]:g} and {BUDGET_RANGE[1]:g}"
    for value, (lo, hi), message in (
        (per_day, BUDGET_RANGE, f"{budget} per day"),
        (shortest, MIN_INTERVAL_RANGE, "the minimum interval must be between 1 minute and 1 day"),
        (longest, MAX_INTERVAL_RANGE, "the maximum interval must be between 1 hour and 1 week"),
    ):
        if value is not None and not lo <= value <= hi:
            raise UsageError(message)


@dataclass(frozen=True)
class UpdateResult:
    """What one fetch attempt did; crosses threads as plain data."""

    feed_id: int
    status: str  # ok | not_modified | error | rate_limited | gone | skipped
    new_entries: int
    error: str | None
    missed_estimate: float
    alert_id: int | None
    manual: bool
    fetched_at: float
    missed_from: float | None = None
    missed_to: float | None = None
    warnings: tuple[str, ...] = ()  # what the parser worked around (ok fetches)
    ruled_read: int = 0  # of the new entries, those a rule marked read (not news)


ProgressFn = Callable[[int, int, UpdateResult], None]


def host_of(url: str) -> str:
    parts = urlsplit(url)
    return (parts.hostname or "") + (f":{parts.port}" if parts.port else "")


def credentials_may_follow(from_url: str, to_url: str) -> bool:
    """Whether a password given for ``from_url`` may be used at ``to_url``.

    The fetcher's rule for redirects (same origin, or the same host upgraded
    from http to https), so a feed's password follows it when it moves exactly
    where it would have been sent anyway, and never to another site.
    """
    try:
        return may_send_credentials(httpx.URL(from_url), httpx.URL(to_url))
    except (httpx.InvalidURL, TypeError, ValueError):
        return False


def _withheld_password_error(feed: Feed, result: FetchResult) -> str | None:
    """The error to show when the server sent a password-protected feed to another
    site that asks for a password: the fetcher rightly did not send it there, and
    "authentication required" alone would send the user retyping the same password
    for the old address."""
    if not (feed.auth_username and result.http_status == 401 and result.redirects):
        return None
    if credentials_may_follow(result.url, result.final_url):
        return None  # the password did go there: a plain authentication failure
    permanent = all(hop.status in (301, 308) for hop in result.redirects)
    how = "has moved permanently" if permanent else "is being redirected"
    return (
        f"this feed {how} to another site, {credentials.redact(result.final_url)}, which "
        "asks for a user name and password; your password is only ever sent to the site "
        "you gave it for. If you trust the new address, enter it in the feed's properties "
        "together with the user name and password for it"
    )


def _missing_password_error(feed: Feed) -> str:
    return (
        "the password for this feed is missing from the keyring: none is saved for "
        f"{credentials.redact(feed.url)} (a password never follows a feed that moves to "
        "another site). Enter the user name and password for this address in the feed's "
        "properties"
    )


def _not_into_local_network(source: str, urls: list[str]) -> tuple[list[str], bool]:
    """``urls`` named by the document at ``source``, without those on loopback or
    private addresses unless ``source`` is itself there: a public page or feed
    must not point our requests into the user's own network (router admin pages).

    Also whether they must be fetched ``public_only``: a name that checks as
    public here may answer a local address when connected to (DNS rebinding).
    """
    if is_local_host(urlsplit(source).hostname or ""):
        return urls, False
    return [u for u in urls if not is_local_host(urlsplit(u).hostname or "")], True


def _merge_hints(headers: ServerHints, doc: ParsedFeed | None) -> ServerHints:
    if doc is None:
        return headers
    return replace(
        headers,
        ttl_seconds=doc.ttl_seconds,
        update_period_seconds=doc.update_period_seconds,
        skip_hours=doc.skip_hours,
        skip_days=doc.skip_days,
    )


def keep_days_of(store: Store) -> tuple[float, float]:
    """Settings' limits: days read and unread articles are kept (0: for ever)."""
    return (
        store.get_number(KEEP_READ_DAYS, DEFAULT_KEEP_READ_DAYS, *KEEP_DAYS_RANGE),
        store.get_number(KEEP_UNREAD_DAYS, DEFAULT_KEEP_UNREAD_DAYS, *KEEP_DAYS_RANGE),
    )


def intervals_of(store: Store) -> tuple[float, float]:
    """Settings' minimum and maximum interval between two fetches of a feed
    (seconds): each feed's unless its properties set its own."""
    return (
        store.get_number("min_interval", DEFAULT_MIN_INTERVAL, *MIN_INTERVAL_RANGE),
        store.get_number("max_interval", DEFAULT_MAX_INTERVAL, *MAX_INTERVAL_RANGE),
    )


def host_gaps_of(store: Store) -> dict[str, float]:
    """The sites' own limits (:data:`HOST_GAPS`); a damaged value: none."""
    value = store.get_setting(HOST_GAPS, {})
    if not isinstance(value, dict):
        return {}
    lo, hi = HOST_GAP_RANGE
    return {
        h: float(g)
        for h, g in value.items()
        if isinstance(h, str)
        and isinstance(g, int | float)
        and not isinstance(g, bool)
        and lo <= g <= hi
    }


def set_host_gap(store: Store, host: str, seconds: float | None) -> None:
    """Set (None: clear) the least time between two requests to ``host``, for
    every feed there. The scheduler follows at :meth:`Updater.feed_changed`."""
    gaps = host_gaps_of(store)
    if seconds is None:
        gaps.pop(host, None)
    else:
        lo, hi = HOST_GAP_RANGE
        if not lo <= seconds <= hi:
            raise UsageError(f"a site's limit is between {lo:g} s and {hi / 3600:g} h")
        gaps[host] = float(seconds)
    store.set_setting(HOST_GAPS, gaps)


def _comments_on(doc: ParsedFeed, page: str) -> bool:
    """Whether ``doc`` is the comments feed of ``page``: it names the page as its
    site, and each of its items links into the page (``post/#comment-12``)."""
    here = canonical_url(page)
    if doc.link is None or canonical_url(doc.link) != here:
        return False
    return all(e.link is not None and canonical_url(e.link) == here for e in doc.entries)


def _address(result: FetchResult, asked: str) -> str:
    """Where to subscribe after the redirects of the first fetch: as far as they
    were permanent (301/308) or only https of the same address. A temporary one
    (302/307, often a signed or rotating address) names a place the feed may
    leave again; updates never move a feed for one either."""
    where = asked
    for hop in result.redirects:
        if hop.status not in (301, 308) and not is_https_upgrade(where, hop.location):
            break
        where = hop.location
    return where


class Updater:
    def __init__(
        self,
        store: Store,
        *,
        fetcher: Fetcher | None = None,
        now: Callable[[], float] = time.time,
        max_workers: int = 8,
        fetch_icons: bool = False,
        parse_pool: ParsePool | None = None,
    ) -> None:
        self.store = store
        # The GUI parses in worker processes (its thread must get the GIL often);
        # the CLI, with no one waiting on it, parses in its fetch threads.
        self.parse_pool = parse_pool
        self.now = now
        self.fetch_icons = fetch_icons  # the GUI shows them; the CLI has no use for them
        self.fetcher = fetcher if fetcher is not None else Fetcher(now=now)
        self.max_workers = max_workers
        self._lock = threading.RLock()
        self._scheduled_ids: set[int] = set()
        t0 = now()
        self.scheduler = Scheduler(self._config(), t0)
        # the 24 h cap spans runs: what the last run (or `update --due`) spent counts
        self.scheduler.restore_requests(store.budget_request_times(t0 - DAY), t0)
        self.content = ContentTracker(store)  # profiles built lazily, per feed
        self._gap_lock = threading.Lock()
        self._host_next: dict[str, float] = {}  # monotonic: a site's next request
        self._host_gaps: dict[str, float] = {}
        self._load_host_gaps()
        own: dict[str, list[str]] = {}  # feeds' addresses by host
        for feed in store.feeds():
            self._add_to_scheduler(feed)
            own.setdefault(host_of(feed.url), []).append(feed.url)
        # ... and so does a host's Retry-After, also for the user's own refresh (the
        # fetcher's own, a redirect target's or an icon's included, are saved whole)
        for host, until in self.scheduler.blocked_hosts(t0).items():
            for url in own.get(host, []):
                self.fetcher.rate_limit_host(url, until)
        self._kept_blocks = _blocks(store.get_setting(HOST_BLOCKS), t0)
        self.fetcher.restore_host_blocks(self._kept_blocks)
        for host, urls in own.items():  # the fetcher's (a redirect target's) plan too
            for url in urls:
                held = self.fetcher.host_not_before(url)
                if held is not None:
                    self.scheduler.block_host(host, held)

    # -- configuration ---------------------------------------------------

    def _config(self) -> SchedulerConfig:
        shortest, longest = intervals_of(self.store)
        return SchedulerConfig(
            budget_per_day=self.store.get_number(
                "budget_per_day", DEFAULT_BUDGET_PER_DAY, *BUDGET_RANGE
            ),
            min_interval=shortest,
            max_interval=longest,
        )

    def budget(self) -> float:
        """The budget the scheduler is running on (the Settings dialog saves a new
        one before the worker applies it: the status bar must not run ahead)."""
        with self._lock:
            return self.scheduler.config.budget_per_day

    def min_interval(self) -> float:
        """The default minimum interval the scheduler is running on (a feed's own,
        when it has one, comes first)."""
        with self._lock:
            return self.scheduler.config.min_interval

    def max_interval(self) -> float:
        """The longest the scheduler lets a feed go unchecked (a server's hint
        aside; a feed's own minimum interval, when longer, wins)."""
        with self._lock:
            return self.scheduler.config.max_interval

    def set_budget(self, per_day: float) -> None:
        check_ranges(per_day=per_day)
        self.store.set_setting("budget_per_day", float(per_day))
        with self._lock:
            self.scheduler.set_config(self._config(), self.now())

    def set_min_interval(self, seconds: float) -> None:
        check_ranges(shortest=seconds)
        self.store.set_setting("min_interval", float(seconds))
        with self._lock:
            self.scheduler.set_config(self._config(), self.now())

    def check_intervals(self, shortest: float | None, longest: float | None) -> None:
        """Raise UsageError unless the minimum and maximum intervals given (None:
        the one in force) are each in range and the minimum is not the longer
        (the command line sets both at once; Settings prevents the second)."""
        check_ranges(shortest=shortest, longest=longest)
        a = self.min_interval() if shortest is None else shortest
        b = self.max_interval() if longest is None else longest
        if a > b:
            raise UsageError(
                f"the minimum interval ({duration_text(a)}) would be longer than the "
                f"maximum ({duration_text(b)})"
            )

    def set_max_interval(self, seconds: float) -> None:
        check_ranges(longest=seconds)
        self.store.set_setting("max_interval", float(seconds))
        with self._lock:
            self.scheduler.set_config(self._config(), self.now())

    def keep_days(self) -> tuple[float, float]:
        """How many days read and unread articles are kept (0: for ever)."""
        return keep_days_of(self.store)

    def load_full_article(self, entry_id: int) -> FullText:
        """Fetch an article's own page, extract the article from it and keep it
        (``Store.save_full_article``), for a feed that carries only a summary.

        Any thread (the GUI loads pages beside the scheduler's runs): the fetcher
        is shared, so a host's Retry-After holds here too and a 429 here holds
        for its feeds. Not a feed fetch: no budget is spent, nothing is learned.
        A private feed's login goes with a page on the feed's own site (the
        fetcher's rule for a redirect), never elsewhere.
        Raises ``FullTextError`` (a message for the user) when the page cannot
        be loaded or holds no article, ``UsageError`` when the article is gone."""
        entry = self.store.entry(entry_id)
        if not entry.link:
            raise FullTextError("This article has no link to load its page from")
        feed = self.store.feed(entry.feed_id)
        auth = None
        if feed.auth_username and credentials_may_follow(feed.url, entry.link):
            # a private feed's pages on its own site ask for its login too
            try:
                pw = credentials.get_password(feed.url, feed.auth_username)
            except CredentialsError as e:
                raise FullTextError(f"The page could not be loaded: {e}") from e
            if pw is not None:
                auth = (feed.auth_username, pw)
        # in a parse worker when there are some (the GUI's): off this process's GIL
        extract = self.parse_pool.extract if self.parse_pool is not None else None
        page = fetch_full_article(
            self.fetcher, entry.link, source=feed.url, auth=auth, extract=extract
        )
        text = without_title(page.html, entry.title)  # the pane shows the title above
        fetched = self.now()
        if not self.store.save_full_article(entry_id, page.url, text, fetched):
            raise UsageError("The article was deleted while its page loaded")
        return FullText(entry_id, page.url, text, fetched)

    def cleanup(
        self, *, force: bool = False, cancel: threading.Event | None = None
    ) -> PurgeResult | None:
        """Delete articles older than the user keeps them (see ``Store.purge_old``),
        at most once per ``CLEANUP_EVERY`` unless ``force``; None when not due."""
        now = self.now()
        last = self.store.get_number(LAST_CLEANUP, -math.inf)
        # a clock that went back must not postpone the purge for as long
        if not force and 0 <= now - last < CLEANUP_EVERY:
            return None
        read_days, unread_days = self.keep_days()
        result = self.store.purge_old(
            now, read_days=read_days, unread_days=unread_days, cancel=cancel
        )
        if result.finished:
            self.store.set_setting(LAST_CLEANUP, now)
        if result.read or result.unread:
            log.info("deleted %d read and %d unread old articles", result.read, result.unread)
        return result

    def _load_host_gaps(self) -> None:
        try:
            gaps = host_gaps_of(self.store)
        except StorageError as e:  # keep the ones in force
            log.warning("could not read the sites' limits: %s", e)
            return
        self._host_gaps = gaps
        self.scheduler.set_host_gaps(gaps)

    def _space_request(self, feed: Feed, cancel: threading.Event | None) -> bool:
        """Wait for the feed's site's own limit since the last request to it (the
        scheduler spaces its own fetches; a manual refresh of every feed would
        send them all at once). False: cancelled meanwhile."""
        host = host_of(feed.url)
        gap = self._host_gaps.get(host)
        if not gap:
            return True
        with self._gap_lock:
            at = max(time.monotonic(), self._host_next.get(host, -math.inf))
            self._host_next[host] = at + gap  # the next one's turn, reserved now
        delay = at - time.monotonic()
        if delay <= 0:
            return True
        if cancel is None:
            time.sleep(delay)
            return True
        return not cancel.wait(delay)

    def _add_to_scheduler(self, feed: Feed) -> None:
        if feed.status != "active":
            return
        self.scheduler.add_feed(
            feed.id,
            host=host_of(feed.url),
            weight=feed.weight,
            capacity=feed.capacity,
            min_interval=feed.min_interval,
            max_interval=feed.max_interval,
            state=feed.scheduler_state,
            last_fetch=feed.last_fetched,
        )
        self._scheduled_ids.add(feed.id)

    def _remove_from_scheduler(self, feed_id: int) -> None:
        if feed_id in self._scheduled_ids:
            self.scheduler.remove_feed(feed_id)
            self._scheduled_ids.discard(feed_id)
        self.content.forget(feed_id)

    def feed_changed(self, feed_id: int) -> None:
        """Re-read a feed's settings after the user edited, added or deleted it
        (its site's limit too)."""
        with self._lock:
            self._load_host_gaps()
            self._remove_from_scheduler(feed_id)
            try:
                feed = self.store.feed(feed_id)
            except UsageError:  # deleted (unsubscribe forgets its icon)
                return
            self._add_to_scheduler(feed)

    # -- subscribing -----------------------------------------------------

    def subscribe(
        self,
        url: str,
        *,
        folder: str | None = None,
        title: str | None = None,
        choose: bool = False,
        public_only: bool = False,
        login: tuple[str, str] | None = None,
        session_password: bool = False,
    ) -> int:
        """Subscribe to a feed URL or a site URL (discovering its feed), fetch it
        once, and return the new feed id. The credentials, ``login`` (user name,
        password) or else those in the URL, go to the keyring. With no keyring at
        all this raises ``CredentialsError``, unless ``session_password`` (an app
        that keeps running, as the GUI): then the password is kept for this
        session only (``credentials.kept_for_session`` says so) rather than lose a
        feed just fetched with it. A keyring that refuses (locked) always raises;
        a feed that asks for a login raises ``LoginRequired``.

        A page that links several feeds gives its first (posts before comments),
        or with ``choose`` raises ``SeveralFeeds`` listing them, having fetched
        only the page. ``public_only`` for an address a page named (a
        ``FeedOption``): it must not lead into the local network.
        """
        # in one spelling: "HTTP://Example.org/feed#top" is not a second subscription
        clean, user, password = credentials.split_userinfo(typed_address(url))
        if login is not None:
            user, password = login
        auth = (user, password or "") if user else None
        feed_url, result, doc = self._resolve_feed(
            clean, auth, choose=choose, public_only=public_only
        )
        feed_url = canonical_url(feed_url)  # a page's link may be spelt any way
        existing = self.store.feed_id_by_address(feed_url)
        if existing is not None:
            now_at = self.store.feed(existing).url
            if address_key(now_at) == address_key(feed_url):  # spelt alike, or not (IDN)
                raise UsageError(f"already subscribed to {credentials.redact(now_at)}")
            raise UsageError(
                f"already subscribed to {credentials.redact(feed_url)}: the feed has "
                f"moved to {credentials.redact(now_at)}"
            )
        if user:
            self._keep_password(feed_url, user, password or "", session=session_password)
        fid = self.store.add_feed(
            feed_url, folder=folder, user_title=title, now=self.now(), auth_username=user
        )
        with self._lock:
            self._add_to_scheduler(self.store.feed(fid))
        self._finish(self.store.feed(fid), result, manual=True, doc=doc)
        return fid

    @staticmethod
    def _keep_password(url: str, user: str, password: str, *, session: bool) -> None:
        """Save the password of a feed just fetched with it. Nothing is ever written
        in plain text: with no keyring at all and ``session``, it is kept in memory
        until quit (the feed stays; its properties take the password again after a
        restart). A keyring that refuses raises CredentialsError, for the user to
        unlock it; so does no keyring for a command that ends at once (the CLI),
        where a session-only password would be gone before the next update."""
        try:
            credentials.store_password(url, user, password)
        except CredentialsError:
            if not session or credentials.keyring_available():
                raise
            credentials.keep_for_session(url, user, password)
            log.info(
                "no keyring: the password of %s is kept for this session only",
                credentials.redact(url),
            )

    def _resolve_feed(
        self,
        url: str,
        auth: tuple[str, str] | None,
        *,
        choose: bool = False,
        public_only: bool = False,
    ) -> tuple[str, FetchResult, ParsedFeed]:
        """The feed's address, its first fetch and that document, parsed: a
        subscription is stored only once its document reads as a feed (a broken
        one is refused with the reason, not added as a feed that shows nothing)."""
        result = self.fetcher.fetch(url, auth=auth, public_only=public_only)
        if result.status != "ok" or result.body is None:
            message = f"could not fetch {credentials.redact(url)}: {result.error}"
            if result.http_status == 401:
                # refused: the password went there (not withheld from another site)
                sent = auth is not None and credentials_may_follow(url, result.final_url)
                raise LoginRequired(message, refused=sent)
            raise FetchError(message)
        page = result.final_url or url
        if looks_like_feed(result.body, result.content_type):
            try:
                return _address(result, url), result, self._parse(result, page)
            except ParseError as e:
                raise ParseError(f"cannot subscribe to {credentials.redact(url)}: {e}") from e
        linked = discover_feeds(result.body, page)
        named = [d.url for d in linked]
        # The usual paths come after what the page links: tried only when those fail.
        guessed = [g for g in guess_feed_urls(page) if g not in named]
        candidates, public_only = _not_into_local_network(page, named + guessed)
        offered = [d for d in linked if d.url in set(candidates)]
        if choose and len(offered) > 1:
            # Only what the page links is offered (guessed paths are tried, not
            # shown): its titles name them, and nothing more is fetched yet.
            raise SeveralFeeds(page, [self._option(d, url, auth, public_only) for d in offered])
        broken: str | None = None  # the first candidate that looked like a feed but was not
        # a guess that found the page's own comments (taken only if nothing else is)
        comments: tuple[str, FetchResult, ParsedFeed] | None = None
        dead: str | None = None  # the first linked one that could not be fetched
        locked: LoginRequired | None = None  # the first that asked for a login
        for cand in candidates:
            cand_auth = auth if credentials_may_follow(url, cand) else None
            r = self.fetcher.fetch(
                cand,
                # never downgraded to http, never to another port or site
                auth=cand_auth,
                public_only=public_only,
            )
            if r.http_status == 401 and locked is None and cand in named:
                # a public page linking a private feed: "links no feed" would be wrong
                locked = LoginRequired(
                    f"could not fetch the feed {credentials.redact(url)} links, "
                    f"{credentials.redact(cand)}: {r.error}",
                    refused=cand_auth is not None,
                )
            elif r.status != "ok" and dead is None and cand in named:
                dead = f"{credentials.redact(cand)} is linked, but {r.error or r.status}"
            if r.status == "ok" and r.body is not None and looks_like_feed(r.body, r.content_type):
                found = r.final_url or cand
                try:
                    doc = self._parse(r, found)
                except ParseError as e:
                    broken = broken or f"{credentials.redact(found)} is linked, but {e}"
                    continue
                if cand not in named and _comments_on(doc, page):
                    # a post's own folder guessed: WordPress answers /post/feed/
                    # with that post's comments, rarely what the user meant
                    comments = comments or (_address(r, cand), r, doc)
                    continue
                return _address(r, cand), r, doc
        if comments is not None:
            return comments
        if broken is None and locked is not None:
            raise locked
        if broken is None and not looks_like_page(result.body, result.content_type):
            # Not a web page either (XML of another kind, plain text): what is
            # wrong with the document itself says more than "links to no feed".
            try:
                self._parse(result, page)
            except ParseError as e:
                raise ParseError(f"cannot subscribe to {credentials.redact(url)}: {e}") from e
        raise ParseError(
            f"no feed found at {credentials.redact(url)}: "
            + (broken or dead or "the page does not link to an RSS, Atom or JSON feed")
        )

    def _option(
        self, d: DiscoveredFeed, site: str, auth: tuple[str, str] | None, public_only: bool
    ) -> FeedOption:
        address = d.url
        if auth is not None and credentials_may_follow(site, d.url):
            parts = urlsplit(d.url)
            user = quote(auth[0], safe="")
            login = f"{user}:{quote(auth[1], safe='')}" if auth[1] else user
            address = parts._replace(netloc=f"{login}@{parts.netloc}").geturl()
        return FeedOption(
            url=d.url,
            title=d.title,
            kind=d.kind,
            subscribed=self.store.feed_id_by_address(d.url) is not None,
            address=address,
            public_only=public_only,
        )

    def _parse(self, result: FetchResult, url: str) -> ParsedFeed:
        """Parse a fetched document (in a parse worker when there is a pool)."""
        assert result.body is not None
        parse = self.parse_pool.parse if self.parse_pool is not None else parse_feed
        return parse(result.body, url=url, content_type=result.content_type, now=result.fetched_at)

    # -- updating --------------------------------------------------------

    def update(
        self,
        feed_ids: Sequence[int] | None = None,
        *,
        manual: bool = True,
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> list[UpdateResult]:
        """Fetch these feeds (all active ones by default) now."""
        if feed_ids is None:
            feeds = [f for f in self.store.feeds() if f.status == "active"]
        else:
            feeds = []
            for fid in feeds_ids_unique(feed_ids):
                try:
                    feeds.append(self.store.feed(fid))
                except UsageError:
                    continue
        results: list[UpdateResult] = []
        total = len(feeds)
        if not feeds:
            return results
        # At most per-host-concurrency feeds of one host are handed to the pool at a
        # time, round-robin over hosts: a worker waiting for a busy (slow, rate
        # limiting) host's slot would be a worker lost to every other host.
        per_host = max(1, self.fetcher.limits.per_host_concurrency)
        queues: dict[str, deque[Feed]] = {}
        for f in feeds:
            queues.setdefault(host_of(f.url), deque()).append(f)
        busy: dict[str, int] = dict.fromkeys(queues, 0)
        workers = max(1, min(self.max_workers, total))
        running: dict[Future[UpdateResult], tuple[str, Feed]] = {}
        storage_error: StorageError | None = None
        with ThreadPoolExecutor(max_workers=workers) as pool:

            def fill() -> None:
                added = True
                while added and len(running) < workers:
                    added = False
                    for host, queue in queues.items():
                        if queue and busy[host] < per_host and len(running) < workers:
                            busy[host] += 1
                            feed = queue.popleft()
                            fut = pool.submit(self._update_one, feed, manual, cancel)
                            running[fut] = (host, feed)
                            added = True

            try:
                fill()
                while running:
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        host, feed = running.pop(fut)
                        busy[host] -= 1
                        try:
                            res = fut.result()
                        except StorageError as e:
                            # This feed's write failed (the database locked by another
                            # program past the busy timeout, disk full): the others may
                            # still get through; the first such error is raised after.
                            storage_error = storage_error or e
                            res = self._failed(feed, str(e), manual)
                        except Exception as e:  # a bug on one feed's data stops only it
                            if not self._still_subscribed(feed.id):
                                # unsubscribed while its fetch ran: nothing to record
                                log.debug("feed %s was removed during its update", feed.id)
                                res = UpdateResult(
                                    feed.id, "skipped", 0, "unsubscribed", 0.0, None, manual,
                                    self.now(),
                                )  # fmt: skip
                            else:
                                log.exception("updating feed %s failed", feed.id)
                                res = self._failed(
                                    feed, f"internal error: {e!r}", manual, record=True
                                )
                        results.append(res)
                        if progress is not None:
                            progress(len(results), total, res)
                    fill()
            except BaseException:
                for fut in running:
                    fut.cancel()
                raise
        if storage_error is not None:
            raise storage_error
        return results

    def _still_subscribed(self, feed_id: int) -> bool:
        try:
            self.store.feed(feed_id)
        except UsageError:
            return False
        except StorageError:
            return True  # cannot tell: report the failure as it was
        return True

    def _failed(
        self, feed: Feed, message: str, manual: bool, *, record: bool = False
    ) -> UpdateResult:
        """The result of a feed whose update raised; recorded as its error when the
        database can still take it."""
        if record:
            try:
                return self._record_error(feed, message, manual)
            except Exception:
                log.exception("cannot record the error of feed %s", feed.id)
        return UpdateResult(feed.id, "error", 0, message, 0.0, None, manual, self.now())

    def run_due(
        self, *, progress: ProgressFn | None = None, cancel: threading.Event | None = None
    ) -> list[UpdateResult]:
        """Fetch the feeds whose planned time has come (the budgeted path)."""
        with self._lock:
            due = [int(f) for f in self.scheduler.due(self.now())]  # type: ignore[call-overload]
        return self.update(due, manual=False, progress=progress, cancel=cancel)

    def _update_one(self, feed: Feed, manual: bool, cancel: threading.Event | None) -> UpdateResult:
        now = self.now()
        if cancel is not None and cancel.is_set():
            return UpdateResult(feed.id, "skipped", 0, "cancelled", 0.0, None, manual, now)
        if feed.status == "gone":
            return UpdateResult(feed.id, "skipped", 0, feed.last_error, 0.0, None, manual, now)
        auth = None
        if feed.auth_username:
            try:
                pw = credentials.get_password(feed.url, feed.auth_username)
            except CredentialsError as e:
                return self._record_error(feed, str(e), manual)
            if pw is None:
                return self._record_error(feed, _missing_password_error(feed), manual)
            auth = (feed.auth_username, pw)
        if not self._space_request(feed, cancel):
            return UpdateResult(feed.id, "skipped", 0, "cancelled", 0.0, None, manual, now)
        result = self.fetcher.fetch(
            feed.url, etag=feed.etag, last_modified=feed.last_modified, auth=auth
        )
        target = self._moved_away_to(feed, result)
        if target is not None and self._extra_request(feed, manual, result.fetched_at):
            # The old address is gone (404/410) after announcing a permanent move
            # that was not confirmed yet: the target is tried at once and taken if
            # it answers (research §3.2). One request beyond the plan, once per
            # move, counted like the fetch: in the budget unless manual (with none
            # left, the next fetch tries).
            if not manual:  # the log will hold one row for the two requests
                self.store.record_request(result.fetched_at)
            moved = self.fetcher.fetch(
                target, auth=auth if credentials_may_follow(feed.url, target) else None
            )
            if moved.status in ("ok", "not_modified"):
                return self._finish_made(feed, moved, manual=manual, adopt=target)
            result = replace(
                result,
                error=f"{result.error}; the address it was moving to "
                f"({credentials.redact(target)}) failed too: {moved.error}",
            )
        # Even when cancelled meanwhile, a fetch that happened is recorded so the
        # budget and validators stay honest.
        return self._finish_made(feed, result, manual=manual)

    def _finish_made(
        self, feed: Feed, result: FetchResult, *, manual: bool, adopt: str | None = None
    ) -> UpdateResult:
        """:meth:`_finish` for a request that was made. A feed unsubscribed while
        it was on the wire has no fetch-log row left to hold it, so a budgeted
        request is kept where the 24 h cap finds it after a restart."""
        try:
            return self._finish(feed, result, manual=manual, adopt=adopt)
        except Exception:
            if not manual and not self._still_subscribed(feed.id):
                try:
                    self.store.record_request(result.fetched_at)
                except StorageError as e:  # the feed's own failure is the one to report
                    log.warning("could not count feed %s's last request: %s", feed.id, e)
            raise

    def _extra_request(self, feed: Feed, manual: bool, at: float) -> bool:
        with self._lock:
            if not self._scheduled(feed.id):
                return manual  # paused: only the user's own refresh goes on
            return self.scheduler.extra_request(feed.id, at, manual=manual)

    def _moved_away_to(self, feed: Feed, result: FetchResult) -> str | None:
        """The pending permanent-redirect target to take now: the feed's own
        address answered 404/410 itself (no redirect), and no other feed has the
        target already."""
        target = feed.redirect_url
        if (
            target is None
            or target == feed.url
            or result.status not in ("error", "gone")
            or result.http_status not in (404, 410)
            or result.redirects
        ):
            return None
        other = self.store.feed_id_by_url(target)
        return target if other is None or other == feed.id else None

    def _record_error(self, feed: Feed, message: str, manual: bool) -> UpdateResult:
        now = self.now()
        obs = FetchObservation(fetched_at=now, status="error", manual=manual)
        with self._lock:
            verdict = self.scheduler.observe(feed.id, obs) if self._scheduled(feed.id) else None
            state = self.scheduler.export_state(feed.id) if verdict is not None else None
            self.store.record_fetch(
                FetchRecord(
                    feed.id, now, "error", error=message, manual=manual, scheduler_state=state
                )
            )
        return UpdateResult(feed.id, "error", 0, message, 0.0, None, manual, now)

    def _scheduled(self, feed_id: int) -> bool:
        return feed_id in self._scheduled_ids

    def _finish(
        self,
        feed: Feed,
        result: FetchResult,
        *,
        manual: bool,
        adopt: str | None = None,
        doc: ParsedFeed | None = None,
    ) -> UpdateResult:
        """Parse (off the lock), then teach the scheduler and store atomically.
        ``adopt``: the feed moves to this address now (its old one is gone);
        ``doc``: the result's body already parsed (subscribing)."""
        status = result.status
        error = result.error
        if doc is None and status == "ok" and result.body is not None:
            try:
                doc = self._parse(result, result.final_url or feed.url)
            except ParseError as e:
                # Recorded like an HTTP failure: the feed shows the error, keeps
                # its articles and backs off.
                status, error = "error", str(e)
        if status == "error":
            error = _withheld_password_error(feed, result) or error
        hints = _merge_hints(result.hints, doc)
        if doc is None and feed.hints is not None and status != "ok":
            # Keep what the document told us last time (ttl, skipHours...).
            hints = replace(
                hints,
                ttl_seconds=feed.hints.ttl_seconds,
                update_period_seconds=feed.hints.update_period_seconds,
                skip_hours=feed.hints.skip_hours,
                skip_days=feed.hints.skip_days,
            )
        entries = doc.entries if doc is not None else ()
        with self._lock:
            if entries:
                # an item whose id changes on every fetch is the item stored: not a
                # new article, and not new to the scheduler
                entries = self.store.stable_uids(feed.id, entries)
            known = self.store.known_uids(feed.id, [e.uid for e in entries]) if entries else set()
            items = tuple(ItemSighting(e.uid, e.published, e.uid not in known) for e in entries)
            if entries and self.store.get_setting(CONTENT_AWARE, False):
                # "prefer new content": the scheduler learns the rate of novel items
                novel = self.content.judge(feed.id, [e for e in entries if e.uid not in known])
                items = filter_sightings(items, novel)
            answered = host_of(result.final_url) if result.final_url else None
            obs = FetchObservation(
                fetched_at=result.fetched_at,
                status=status,
                items=items,
                hints=hints,
                manual=manual,
                answered_by=answered if answered and answered != host_of(feed.url) else None,
                unreachable=status == "error" and result.unreachable,
                # a local refusal (a host still cooling down) sent nothing
                answered=result.http_status is not None,
            )
            verdict = self.scheduler.observe(feed.id, obs) if self._scheduled(feed.id) else None
            missed = (
                verdict.missed_estimate if verdict is not None and verdict.missed_alert else 0.0
            )
            rec = FetchRecord(
                feed_id=feed.id,
                time=result.fetched_at,
                status=status,
                http_status=result.http_status,
                bytes=result.bytes_read,
                duration=result.duration,
                error=credentials.redact(error) if error else None,
                manual=manual,
                entries=entries,
                feed_title=doc.title if doc is not None else None,
                site_link=doc.link if doc is not None else None,
                icon_url=doc.icon if doc is not None else None,
                etag=result.etag,
                last_modified=result.last_modified,
                update_validators=status in ("ok", "not_modified"),
                hints=hints,
                scheduler_state=self.scheduler.export_state(feed.id)
                if verdict is not None
                else None,
                missed_estimate=missed,
                warnings=doc.warnings if doc is not None and status == "ok" else (),
                missed_from=verdict.missed_from if missed and verdict is not None else None,
                missed_to=verdict.missed_to if missed and verdict is not None else None,
                redirect_url=adopt or result.permanent_redirect,
                redirect_adopt=adopt is not None,
                unreachable=obs.unreachable,
            )
            out = self.store.record_fetch(rec)
            touched = self.scheduler.take_touched() - {feed.id}
            if touched:
                # the network was down, not their hosts: their failures were undone,
                # and so they start again after a restart
                self.store.save_scheduler_state(
                    {int(f): self.scheduler.export_state(f) for f in touched}  # type: ignore[call-overload]
                )
            # A confirmed permanent redirect moved the feed: the scheduler follows
            # the host (per-host gaps and Retry-After), a password the URL.
            old_url, new_url = out.moved_from, rec.redirect_url
            if status == "gone":
                self._remove_from_scheduler(feed.id)
            elif old_url and new_url and host_of(old_url) != host_of(new_url):
                self.feed_changed(feed.id)  # re-added with the state just saved
        if old_url and new_url and feed.auth_username:
            # Outside the lock: a keyring may wait for the user to unlock it.
            self._password_follows_move(feed.id, feed.auth_username, old_url, new_url)
        if doc is not None:
            try:
                self._refresh_icon(feed, doc)
            except Exception:  # an icon is decoration: it must never fail an update
                log.exception("icon lookup failed for feed %s", feed.id)
        self._keep_host_blocks()
        return UpdateResult(
            feed.id,
            status,
            len(out.new_entry_ids),
            rec.error,
            missed,
            out.alert_id,
            manual,
            result.fetched_at,
            rec.missed_from,
            rec.missed_to,
            tuple(rec.warnings),
            out.ruled_read,
        )

    def _password_follows_move(
        self, feed_id: int, username: str, old_url: str, new_url: str
    ) -> None:
        """The feed's URL just followed a permanent redirect: re-key its password.

        * Same site (where the fetcher sends the password anyway): the keyring
          entry moves (``credentials.move_password``: new entry first, old one
          deleted after).
        * The keyring will not take the new entry: the old one is kept and the
          feed goes back to its old URL, whose redirect keeps working with that
          password; the move is tried again when the redirect is next confirmed.
        * Another site: the password stays where it is and goes nowhere; the
          next update says the user must enter the credentials for the new address.
        """
        old, new = credentials.redact(old_url), credentials.redact(new_url)
        if not credentials_may_follow(old_url, new_url):
            log.warning(
                "feed %s moved permanently to another site (%s, was %s); its password was "
                "not taken there and stays saved for the old address: the user name and "
                "password for the new address must be entered in the feed's properties",
                feed_id,
                new,
                old,
            )
            return
        try:
            moved = credentials.move_password(old_url, username, new_url, username)
        except Exception as e:  # any keyring failure: never lose the only copy
            reason = credentials.redact(str(e) or type(e).__name__)
            log.warning(
                "feed %s moved permanently from %s to %s, but its password could not be "
                "moved in the system keyring (%s); it stays saved for the old address, the "
                "feed keeps that address for now and the move will be tried again",
                feed_id,
                old,
                new,
                reason,
            )
            with self._lock:
                try:
                    self.store.update_feed(feed_id, url=old_url)
                except UsageError as e2:  # deleted meanwhile, or the old URL taken
                    log.warning("feed %s: cannot go back to %s: %s", feed_id, old, e2)
            return
        if moved:
            log.info("feed %s moved to %s; its password moved with it", feed_id, new)
        else:
            log.warning(
                "feed %s moved to %s, but no password was saved for its old address", feed_id, new
            )

    def _refresh_icon(self, feed: Feed, doc: ParsedFeed) -> None:
        """Cache the feed's icon next to the database (weekly at most; never fatal)."""
        if not self.fetch_icons:
            return
        folder = favicon.icons_dir(self.store.path)
        if not favicon.icon_due(folder, feed.id, self.now()):
            return
        data: bytes | None = None
        # the site link and <image> come from the feed
        candidates, public_only = _not_into_local_network(
            feed.url, favicon.icon_candidates(feed.url, doc.link or feed.site_link, doc.icon)
        )
        for url in candidates:
            # no credentials: an icon is not the feed
            r = self.fetcher.fetch(url, public_only=public_only)
            if r.status == "ok" and r.body and favicon.sniff_image(r.body):
                data = r.body
                break
        try:
            favicon.save_icon(folder, feed.id, data)
        except OSError as e:
            log.info("cannot cache the icon of feed %s: %s", feed.id, e)

    # -- what the GUI and `explain` read ----------------------------------

    def next_wakeup(self) -> float | None:
        with self._lock:
            return self.scheduler.next_wakeup()

    def replan(self) -> None:
        with self._lock:
            self.scheduler.replan(self.now())

    def explain(
        self, feed_id: int, *, time_text: Callable[[float, float], str] = local_time_text
    ) -> FeedExplanation:
        """The scheduler's view of a feed; the times in its notes are worded by
        ``time_text(t, now)``, local by default (the Activity page and the CLI show
        the notes as they are)."""
        with self._lock:
            if not self._scheduled(feed_id):
                raise UsageError(f"feed {feed_id} is not scheduled (unknown, gone or paused)")
            return self.scheduler.explain(feed_id, self.now(), time_text=time_text)

    def summary(self) -> PlanSummary:
        with self._lock:
            return self.scheduler.summary(self.now())

    def estimate_delay_for_budget(
        self,
        budget_per_day: float,
        min_interval: float | None = None,
        max_interval: float | None = None,
    ) -> tuple[float, float]:
        with self._lock:
            return self.scheduler.estimate_delay_for_budget(
                budget_per_day, min_interval, self.now(), max_interval=max_interval
            )

    def network_down(self) -> tuple[float, float] | None:
        """(since when, next try) while no server answers anywhere; see
        :meth:`Scheduler.network_down`."""
        with self._lock:
            return self.scheduler.network_down(self.now())

    def network_back(self) -> None:
        """The system reports the network is back (see :meth:`Scheduler.network_back`)."""
        with self._lock:
            self.scheduler.network_back(self.now())

    def requests_today(self) -> int:
        with self._lock:
            return self.scheduler.requests_in_last_24h(self.now())

    def request_free_at(self, budget_per_day: float) -> float | None:
        """See :meth:`Scheduler.request_free_at`."""
        with self._lock:
            return self.scheduler.request_free_at(budget_per_day, self.now())

    def _keep_host_blocks(self) -> None:
        """Save the fetcher's Retry-After blocks when they change (rarely)."""
        blocks = self.fetcher.host_blocks()
        with self._lock:
            if blocks == self._kept_blocks:
                return
            self._kept_blocks = blocks
            try:
                self.store.set_setting(HOST_BLOCKS, blocks)
            except StorageError as e:  # a busy or full disk, a read-only store: in memory
                log.warning("could not save the hosts' Retry-After: %s", e)

    def close(self) -> None:
        try:
            self._keep_host_blocks()
        except Exception:  # closing must not fail (a store closed first, say)
            log.exception("could not save the hosts' Retry-After at close")
        self.fetcher.close()
        if self.parse_pool is not None:
            self.parse_pool.close()


def _blocks(value: Any, now: float) -> dict[str, float]:
    """A saved ``HOST_BLOCKS`` setting, the blocks not over yet (a damaged value:
    none)."""
    if not isinstance(value, dict):
        return {}
    out = {}
    for host, until in value.items():
        if isinstance(host, str) and isinstance(until, int | float) and until > now:
            out[host] = float(until)
    return out


def feeds_ids_unique(ids: Sequence[int]) -> list[int]:
    seen: set[int] = set()
    out = []
    for i in ids:
        if i not in seen:
            seen.add(i)
            out.append(int(i))
    return out
