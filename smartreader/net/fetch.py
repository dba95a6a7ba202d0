"""Polite, bounded HTTP fetching of one feed URL.

``Fetcher.fetch`` does one conditional GET (following up to 5 redirects itself)
and returns a ``FetchResult``. Network and HTTP trouble is data in the result,
never an exception: the scheduler records every attempt.

What it promises (Feed Reader Behavior list, research/reliability.md §3):

* Requests are clean: our ``User-Agent``, a feed ``Accept`` header, only
  encodings we decode ourselves (``gzip, deflate``), no cookies (the jar never
  stores anything), no ``Referer``, no cache-busting query strings, GET only.
* Conditional GET is exact: the stored ``ETag`` goes out in ``If-None-Match``
  and the stored ``Last-Modified`` in ``If-Modified-Since`` byte for byte.
* Validators are one set (see ``FetchResult``).
* Limits: connect/read timeouts plus a hard total deadline per fetch that also
  covers streaming the body: every socket operation gets at most the time left
  (``guard``), so a server dripping bytes is cut off at the deadline, not a read
  timeout later. A body is capped *after* decompression (we decompress
  incrementally with a bounded output size, so a gzip bomb never inflates in
  memory) and refused unread when its Content-Length is over the cap, encoded
  or not. A compressed body must end where its compressed stream ends: a
  truncated one is an error, never a shorter feed.
* Redirects: at most ``max_redirects`` hops, http(s) only, loops detected; the
  chain is reported hop by hop; credentials go only to the feed's own origin
  (or its same-host http→https upgrade). A public feed's redirects never reach
  a local or private address: the name is checked, and (``guard``) the
  connection goes only to addresses checked when it is made, so DNS rebinding
  cannot swap in a local one.
* Rate limits: a 429/503 marks the *host* (``host:port``) as "not before"
  the Retry-After time; until then, fetches to that host return
  ``rate_limited`` without sending anything.
* At most ``per_host_concurrency`` requests in flight per host; the fetcher
  is thread-safe and meant to be shared by a bounded pool of worker threads.

Two pure policy helpers live here for the pipeline: ``error_backoff`` and
``should_update_url``.

Clocks: ``now`` (injected, epoch seconds) stamps results and drives the
rate-limit memory; deadlines and durations use ``time.monotonic`` because
they measure real elapsed time of real sockets.
"""

from __future__ import annotations

import ipaddress
import logging
import random
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, CookiePolicy
from typing import Literal
from urllib.request import Request as UrllibRequest

import httpx

from smartreader import USER_AGENT
from smartreader.core.models import ServerHints
from smartreader.net import guard
from smartreader.net.credentials import redact, split_userinfo
from smartreader.net.hints import format_epoch, hints_from_headers
from smartreader.text import size_text

FetchStatus = Literal["ok", "not_modified", "error", "rate_limited", "gone"]

ACCEPT = (
    "application/atom+xml, application/rss+xml, application/feed+json;q=0.9, "
    "application/json;q=0.8, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.1"
)
# Only what _Decoder can inflate with a bounded output size. brotli is not a
# dependency; add "br" here only together with a bounded brotli decoder.
ACCEPT_ENCODING = "gzip, deflate"

MiB = 1024 * 1024
_PERMANENT = frozenset({301, 308})
_TEMPORARY = frozenset({302, 303, 307})


@dataclass(frozen=True)
class FetchLimits:
    """Per-fetch limits. Defaults follow research/reliability.md §3.2."""

    connect_timeout: float = 10.0
    read_timeout: float = 30.0  # longest silence between two reads
    # Whole fetch: all hops, headers and body. Queueing for a per-host slot
    # before the first request is not counted; the server has not been asked yet.
    total_timeout: float = 60.0
    max_body_bytes: int = 15 * MiB  # after decompression
    max_redirects: int = 5
    per_host_concurrency: int = 2
    # Cool-down for a 429/503 that carries no (usable) Retry-After.
    default_retry_after: float = 15 * 60.0
    # Ceiling on what a Retry-After can make us wait.
    max_retry_after: float = 7 * 24 * 3600.0


@dataclass(frozen=True)
class Hop:
    """One redirect: the response ``status`` at ``url`` pointed to ``location``."""

    status: int
    url: str
    location: str


@dataclass(frozen=True)
class FetchResult:
    """The outcome of one fetch attempt.

    status
        ``ok`` (200, body set), ``not_modified`` (304, body None), ``gone`` (410),
        ``rate_limited`` (429/503 or the host is still cooling down; then
        ``http_status`` is None and nothing was sent), ``error`` (anything else).
    url / final_url
        The URL asked for (userinfo removed) and the one that answered.
    permanent_redirect
        The target when *every* hop was 301/308 and the result is ok or
        not_modified; otherwise None. The pipeline decides when to adopt it
        (``should_update_url``); 302/307 never change the stored URL.
    etag / last_modified
        The validator set to store, verbatim (quotes, ``W/`` and odd date
        spellings kept). On 200 both come from the response: a missing header
        gives None, so an old value never pairs with a new body. On 304 each
        validator the 304 carries replaces the one we sent, and one it does not
        carry is kept (RFC 9111 §4.3.4 freshening). On every other status they
        are the ones we sent, unchanged, so a 429 or an error never loses them.
    bytes_read
        Body bytes received for the final response, as sent on the wire
        (compressed). ``len(body)`` is the decompressed size.
    error
        A short human message (credentials redacted) for error, gone and
        rate_limited; None otherwise.
    hints
        ``retry_after`` (absolute, also set for a host cool-down) and
        ``cache_until`` (from Cache-Control/Expires on 200/304).
    unreachable
        An error where no server answered at ``final_url``: its name did not
        resolve, or no connection could be made (refused, no route, timed out
        connecting). The host may be down, or the network. A TLS failure, a slow
        answer or a refusal of ours (a local address) is not this: something
        answered there, or it is about this request only.
    headers
        The final response's headers (names lower-cased, Set-Cookie dropped),
        for the parser (content-type charset, content-location...).
    """

    status: FetchStatus
    url: str
    final_url: str
    fetched_at: float
    duration: float
    http_status: int | None = None
    permanent_redirect: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    body: bytes | None = None
    content_type: str | None = None
    bytes_read: int = 0
    error: str | None = None
    hints: ServerHints = field(default_factory=ServerHints)
    redirects: tuple[Hop, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    unreachable: bool = False


# -- pure policy helpers ----------------------------------------------------

ERROR_BACKOFF_BASE = 15 * 60.0
ERROR_BACKOFF_CAP = 24 * 3600.0
ERROR_BACKOFF_JITTER = 0.2


def error_backoff(consecutive_errors: int, rng: random.Random) -> float:
    """Seconds to wait after the ``consecutive_errors``-th failure in a row.

    15 min after the first failure, doubling each time, capped at 24 h, then
    scaled by a uniform factor in [0.8, 1.2] so that feeds failing together
    (one host down) do not come back together. So the result is at most
    1.2 × 24 h. No errors → 0. Meant for "error" results (not for
    rate_limited, which has its own Retry-After, nor gone).
    """
    if consecutive_errors <= 0:
        return 0.0
    exponent = min(consecutive_errors - 1, 32)  # 2**32 × 15 min is far past the cap
    base = min(ERROR_BACKOFF_CAP, ERROR_BACKOFF_BASE * 2.0**exponent)
    return base * rng.uniform(1.0 - ERROR_BACKOFF_JITTER, 1.0 + ERROR_BACKOFF_JITTER)


# -- plumbing ---------------------------------------------------------------


class _RejectAllCookies(CookiePolicy):
    """A cookie policy that neither stores nor returns anything (FRB063)."""

    netscape = True
    rfc2965 = False
    hide_cookie2 = True

    def set_ok(self, cookie: object, request: UrllibRequest) -> bool:
        return False

    def return_ok(self, cookie: object, request: UrllibRequest) -> bool:
        return False

    def domain_return_ok(self, domain: str, request: UrllibRequest) -> bool:
        return False

    def path_return_ok(self, path: str, request: UrllibRequest) -> bool:
        return False


def _no_cookie_jar() -> CookieJar:
    return CookieJar(policy=_RejectAllCookies())


class _FetchFailed(Exception):
    """Internal: ends a fetch with an error result carrying this message."""


class _TooLarge(_FetchFailed):
    pass


class _Decoder:
    """Incremental Content-Encoding decoder with a bounded output size.

    ``zlib``'s ``max_length`` lets us stop inflating as soon as the output
    passes the cap, so a small gzip bomb costs at most ``cap`` bytes of memory.
    """

    def __init__(self, encoding: str, cap: int) -> None:
        self._cap = cap
        self._produced = 0
        self._fed = False  # any body bytes at all
        self._encoding = encoding
        self._first = True
        self._zlib: zlib._Decompress | None
        if encoding == "":
            self._zlib = None
        elif encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj()
        else:
            raise _FetchFailed(f"unsupported content encoding {encoding!r}")

    def _count(self, data: bytes) -> bytes:
        self._produced += len(data)
        if self._produced > self._cap:
            raise _TooLarge(
                f"response too large (more than {size_text(self._cap)} after decompression)"
            )
        return data

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._zlib is None:
            yield self._count(data)
            return
        self._fed = self._fed or bool(data)
        try:
            while data:
                out = self._zlib.decompress(data, self._cap - self._produced + 1)
                self._first = False
                yield self._count(out)
                data = self._zlib.unconsumed_tail
                if self._zlib.eof:
                    rest = self._zlib.unused_data
                    if not rest.startswith(b"\x1f\x8b") or self._encoding == "deflate":
                        break  # trailing garbage after the body is ignored, as browsers do
                    # Concatenated gzip members are one body.
                    self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    data = rest
        except zlib.error as exc:
            if self._encoding == "deflate" and self._first:
                # Some servers send raw deflate without the zlib header.
                self._first = False
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                yield from self.feed(data)
                return
            raise _FetchFailed(f"corrupt {self._encoding} response body: {exc}") from None

    def flush(self) -> bytes:
        if self._zlib is None:
            return b""
        if self._fed and not self._zlib.eof:
            # The stream stopped before its end marker (a half-written file, a cut
            # connection with a matching Content-Length): what inflated so far is a
            # prefix of the feed, and storing it would look like a shorter feed.
            raise _FetchFailed(
                f"corrupt or truncated {self._encoding} response: "
                "the compressed data stops before its end"
            )
        return self._count(self._zlib.flush())


# Compressions we know but do not decode (and never ask for): refusing them beats
# handing compressed bytes to the parser.
_UNDECODABLE = frozenset({"br", "zstd", "compress", "x-compress"})


def _content_encoding(header: str) -> str:
    """The one coding to undo, "" for none. Unknown tokens (servers send
    ``Content-Encoding: utf-8``) are ignored, as httpx and browsers do."""
    codings = [c.strip().lower() for c in header.split(",")]
    codings = [c for c in codings if c in _UNDECODABLE or c in ("gzip", "x-gzip", "deflate")]
    if not codings:
        return ""
    if len(codings) > 1 or codings[0] in _UNDECODABLE:
        raise _FetchFailed(f"unsupported content encoding {header.strip()!r}")
    return codings[0]


_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


_SHARED = ipaddress.ip_network("100.64.0.0/10")  # RFC 6598 shared address space


def _local_ip(addr: str) -> bool:
    try:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return bool(
        ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved
        or ip.is_unspecified or ip.is_multicast
        or ip in _SHARED  # carrier-grade NAT, also VPN meshes (Tailscale): not public
    )  # fmt: skip


def is_local_host(host: str, *, resolve: bool = True) -> bool:
    """True for loopback, private, link-local and similar addresses, by literal or,
    with ``resolve``, by what the name resolves to (any local answer counts)."""
    host = host.strip("[]").rstrip(".").lower()
    if not host:
        return False
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        return True
    if _local_ip(host):
        return True
    if guard.is_ip_literal(host):
        return False  # a public literal
    if not resolve:
        return False
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False  # unresolvable: the request itself will fail clearly
    return any(_local_ip(str(info[4][0])) for info in infos)


def _host_key(url: httpx.URL) -> str:
    """``host:port`` (explicit or scheme default): the unit of politeness."""
    port = url.port or (443 if url.scheme == "https" else 80)
    return f"{url.host.lower()}:{port}"


def _origin(url: httpx.URL) -> tuple[str, str, int]:
    return (url.scheme, url.host.lower(), url.port or (443 if url.scheme == "https" else 80))


def may_send_credentials(feed: httpx.URL, target: httpx.URL) -> bool:
    """Same origin as the feed, or the same host upgraded from http to https."""
    if _origin(feed) == _origin(target):
        return True
    return (
        feed.scheme == "http"
        and target.scheme == "https"
        and feed.host.lower() == target.host.lower()
        and (feed.port in (None, 80))
        and (target.port in (None, 443))
    )


def _header_safe(value: str) -> bool:
    return not any(c in value for c in "\r\n\0")


def _encode_header(value: str) -> bytes:
    # Validators are kept as latin-1 text of the original bytes; this restores them.
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8")


def _raw_header(response: httpx.Response, name: bytes) -> str | None:
    """First value of a header, decoded byte-preserving (latin-1) so it round-trips."""
    for key, value in response.headers.raw:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _strip_fragment(url: httpx.URL) -> httpx.URL:
    return url.copy_with(fragment=None) if url.fragment else url


def _describe_status(status: int, sent_auth: bool) -> str:
    phrase = httpx.codes.get_reason_phrase(status)
    label = f"HTTP {status} {phrase}".strip()
    if status == 401:
        if sent_auth:
            return f"authentication failed: check the user name and password ({label})"
        return f"authentication required: this feed needs a user name and password ({label})"
    if status == 403:
        return f"access forbidden: the server refuses to serve this feed ({label})"
    if status == 404:
        return f"not found: the feed is not at this address ({label})"
    if status == 410:
        return f"gone: the server says this feed was removed for good ({label})"
    if 500 <= status < 600:
        return f"server error ({label})"
    return f"unexpected response ({label})"


# getaddrinfo's "this name does not exist" (EAI_NODATA is not on every platform)
_NO_SUCH_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


def _request_host(exc: httpx.HTTPError) -> str:
    try:
        return str(exc.request.url.host) or "the server"
    except RuntimeError:  # raised before a request was made
        return "the server"


def _describe_tls(exc: ssl.SSLError, host: str) -> str:
    """OpenSSL's words ("[SSL: WRONG_VERSION_NUMBER] wrong version number
    (_ssl.c:1000)") said little to a reader; the certificate's own reason is kept."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = exc.verify_message or exc.reason or "it could not be verified"
        return f"{host}'s certificate is not trusted ({why}); the connection was refused"
    if exc.reason == "WRONG_VERSION_NUMBER":
        return (
            f"{host} did not answer with a secure (TLS) connection: "
            "does the address need http:// rather than https://?"
        )
    reason = (exc.reason or str(exc)).replace("_", " ").lower()
    return f"no secure (TLS) connection could be made with {host}: {reason}"


def _describe_exception(exc: Exception) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "timed out while connecting"
    if isinstance(exc, httpx.TimeoutException):
        return "timed out waiting for the server"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect: {exc}"
    if isinstance(exc, httpx.ProxyError):
        return f"proxy error: {exc}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the server broke the HTTP protocol: {exc}"
    if isinstance(exc, httpx.TransportError):
        return f"network error: {exc}"
    if isinstance(exc, httpx.InvalidURL):
        return f"invalid URL: {exc}"
    return f"{type(exc).__name__}: {exc}"


# -- logging ----------------------------------------------------------------


class _RedactingFilter(logging.Filter):
    """Redacts userinfo and secret query values in httpx/httpcore log records.

    httpx logs every request URL at INFO and httpcore logs response headers
    (a ``Location`` may carry ``user:pass@``) at DEBUG, whatever level the
    application configures; a filter on those loggers is the one place that
    catches both.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: let logging report it as usual
            return True
        record.msg, record.args = redact(message), None
        return True


_log = logging.getLogger(__name__)
_LOG_FILTER = _RedactingFilter()
for _name in ("httpx", "httpcore", "httpcore.connection", "httpcore.http11",
              "httpcore.http2", "httpcore.proxy", "httpcore.socks"):  # fmt: skip
    if _LOG_FILTER not in logging.getLogger(_name).filters:
        logging.getLogger(_name).addFilter(_LOG_FILTER)


# -- the fetcher ------------------------------------------------------------


class Fetcher:
    """Fetches feeds politely. Thread-safe; share one per process.

    ``client``: an ``httpx.Client`` to use (its cookie jar is replaced by one
    that stores nothing). Otherwise one is built with ``transport`` (tests pass
    ``httpx.MockTransport``), HTTP/2 enabled and ``trust_env`` for proxies.

    The client's own connection pools get ``guard``'s network backend (the hard
    deadline, the address check at connect time); ``guarded`` says whether they
    did. A transport of another kind (``MockTransport``) is left as it is: the
    deadline is then checked between reads and redirect targets by name only.
    """

    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
        now: Callable[[], float] = time.time,
        limits: FetchLimits | None = None,
        trust_env: bool = True,
    ) -> None:
        self.limits = limits or FetchLimits()
        self._now = now
        self._owns_client = client is None
        if client is None:
            client = httpx.Client(
                http2=True,
                transport=transport,
                follow_redirects=False,
                trust_env=trust_env,
                cookies=_no_cookie_jar(),
                headers={"User-Agent": USER_AGENT},
            )
        else:
            client.cookies = _no_cookie_jar()  # a bare CookieJar keeps its policy
        self._client = client
        self.guarded = guard.install(client, is_local=_local_ip)
        if not self.guarded and self._owns_client and transport is None:
            _log.warning(
                "httpx internals changed: no connection guard; the total deadline "
                "is soft and redirect targets are checked by name only"
            )
        self._lock = threading.Lock()
        self._host_slots: dict[str, threading.BoundedSemaphore] = {}
        self._not_before: dict[str, float] = {}

    # -- lifecycle

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- per-host state

    def _slot(self, host: str) -> threading.BoundedSemaphore:
        with self._lock:
            slot = self._host_slots.get(host)
            if slot is None:
                slot = threading.BoundedSemaphore(max(1, self.limits.per_host_concurrency))
                self._host_slots[host] = slot
            return slot

    def host_not_before(self, url: str) -> float | None:
        """Epoch time before which ``url``'s host is cooling down, or None."""
        host = _host_key(httpx.URL(url))
        now = self._now()
        with self._lock:
            until = self._not_before.get(host)
            if until is not None and until <= now:
                del self._not_before[host]
                return None
            return until

    def rate_limit_host(self, url: str, until: float) -> None:
        """Treat ``url``'s host as cooling down until ``until`` (a Retry-After
        learned before this Fetcher existed: the app's previous run)."""
        self._rate_limit_host(_host_key(httpx.URL(url)), until)

    def host_blocks(self) -> dict[str, float]:
        """Every ``host:port`` still cooling down, and until when (to keep them
        across a restart; :meth:`restore_host_blocks` puts them back)."""
        now = self._now()
        with self._lock:
            return {h: t for h, t in self._not_before.items() if t > now}

    def restore_host_blocks(self, blocks: dict[str, float]) -> None:
        for host, until in blocks.items():
            self._rate_limit_host(host, until)

    def _rate_limit_host(self, host: str, until: float) -> None:
        with self._lock:
            self._not_before[host] = max(until, self._not_before.get(host, until))

    # -- fetching

    def fetch(
        self,
        url: str,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
        auth: tuple[str, str] | None = None,
        public_only: bool = False,
    ) -> FetchResult:
        """One conditional GET of ``url``. Never raises for network or HTTP trouble.

        ``auth`` is (user name, password) for HTTP Basic; if absent, userinfo in
        ``url`` is used. Either way the URL is sent and reported without it.

        ``public_only``: ``url`` was named by a public document (a discovered feed,
        an icon), not by the user, so neither it nor its redirects may connect to
        a local or private address, whatever its name answers to a check.
        """
        fetched_at = self._now()
        started = time.monotonic()
        try:
            clean_url, url_user, url_password = split_userinfo(url)
        except ValueError:  # e.g. "http://[::1" (urlsplit refuses it)
            clean_url, url_user, url_password = redact(url), None, None
        if auth is None and url_user is not None:
            auth = (url_user, url_password or "")
        run = _Run(
            fetcher=self,
            url=clean_url,
            etag=etag,
            last_modified=last_modified,
            auth=auth,
            fetched_at=fetched_at,
            started=started,
            public_only=public_only,
        )
        return run.execute()


class _Run:
    """State of one fetch() call: the redirect loop and result building."""

    def __init__(
        self,
        *,
        fetcher: Fetcher,
        url: str,
        etag: str | None,
        last_modified: str | None,
        auth: tuple[str, str] | None,
        fetched_at: float,
        started: float,
        public_only: bool = False,
    ) -> None:
        self.f = fetcher
        self.public_only = public_only
        self.limits = fetcher.limits
        self.url = url
        self.etag = etag
        self.last_modified = last_modified
        self.auth = auth
        self.fetched_at = fetched_at
        self.started = started
        self.deadline: float | None = None  # set when the first request goes out
        self.hops: list[Hop] = []
        self.current = url
        self.http_status: int | None = None  # of the last response received
        self.bytes_read = 0  # body bytes of the final response, as on the wire
        self.unreachable = False  # see FetchResult.unreachable

    # -- result helpers

    def _result(self, status: FetchStatus, **kw: object) -> FetchResult:
        kw.setdefault("etag", self.etag)
        kw.setdefault("last_modified", self.last_modified)
        kw.setdefault("http_status", self.http_status)
        kw.setdefault("bytes_read", self.bytes_read)
        kw.setdefault("unreachable", self.unreachable)
        return FetchResult(
            status=status,
            url=self.url,
            final_url=self.current,
            fetched_at=self.fetched_at,
            duration=time.monotonic() - self.started,
            redirects=tuple(self.hops),
            **kw,  # type: ignore[arg-type]
        )

    def _cooling_down(self, host: str, until: float) -> FetchResult:
        return self._result(
            "rate_limited",
            http_status=None,
            error=f"{host} asked us to wait until {format_epoch(until)}",
            hints=ServerHints(retry_after=until),
        )

    def _error(self, message: str, **kw: object) -> FetchResult:
        return self._result("error", error=redact(message), **kw)

    def _remaining(self) -> float:
        assert self.deadline is not None
        return self.deadline - time.monotonic()

    def _deadline_message(self) -> str:
        return f"timed out: the fetch took longer than {self.limits.total_timeout:g} s in total"

    def _check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _FetchFailed(self._deadline_message())

    def _timeout(self) -> httpx.Timeout:
        remaining = max(0.01, self._remaining())
        lim = self.limits
        return httpx.Timeout(
            connect=min(lim.connect_timeout, remaining),
            read=min(lim.read_timeout, remaining),
            write=min(lim.read_timeout, remaining),
            pool=min(lim.connect_timeout, remaining),
        )

    def _headers(self) -> list[tuple[bytes, bytes]]:
        headers = [
            (b"User-Agent", USER_AGENT.encode("ascii")),
            (b"Accept", ACCEPT.encode("ascii")),
            (b"Accept-Encoding", ACCEPT_ENCODING.encode("ascii")),
        ]
        if self.etag is not None and _header_safe(self.etag):
            headers.append((b"If-None-Match", _encode_header(self.etag)))
        if self.last_modified is not None and _header_safe(self.last_modified):
            headers.append((b"If-Modified-Since", _encode_header(self.last_modified)))
        return headers

    # -- main loop

    def execute(self) -> FetchResult:
        try:
            target = httpx.URL(self.url)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            return self._error(f"invalid URL: {exc}")
        if target.scheme not in ("http", "https"):
            return self._error(f"unsupported URL {self.url!r}: only http and https are fetched")
        if not target.host:
            return self._error(f"not a web address: {self.url!r} names no server")
        feed_url = target
        # Whether the feed itself is on a local address, decided once, at the first
        # redirect (a second lookup could answer differently). The feed is fetched
        # wherever it is (the user chose it); a public feed's redirects must stay public.
        feed_local: bool | None = False if self.public_only else None
        local_ok = not self.public_only
        seen = {str(_strip_fragment(target))}
        try:
            while True:
                host = _host_key(target)
                until = self.f.host_not_before(str(target))
                if until is not None:
                    return self._cooling_down(host, until)
                send_auth = self.auth is not None and may_send_credentials(feed_url, target)
                outcome = self._one_request(target, host, send_auth, local_ok)
                if isinstance(outcome, FetchResult):
                    return outcome
                # A redirect: validate the next hop.
                status, location = outcome
                try:
                    nxt = target.join(location)
                except (httpx.InvalidURL, TypeError, ValueError) as exc:
                    return self._error(f"redirect to an invalid URL: {exc}", http_status=status)
                if nxt.scheme not in ("http", "https") or not nxt.host:
                    # Checked before re-parsing: "javascript:..." is not a URL httpx
                    # can rebuild, and it must be a clear error, not an exception.
                    self.hops.append(Hop(status=status, url=str(target), location=redact(str(nxt))))
                    self.current = redact(str(nxt))
                    return self._error(
                        f"redirected to an unsupported URL scheme {nxt.scheme!r} "
                        "(only http and https are followed)",
                        http_status=status,
                    )
                # Never let userinfo in a Location carry credentials anywhere.
                clean, _, _ = split_userinfo(str(nxt))
                try:
                    nxt = httpx.URL(clean)
                except (httpx.InvalidURL, TypeError, ValueError) as exc:
                    return self._error(f"redirect to an invalid URL: {exc}", http_status=status)
                self.hops.append(Hop(status=status, url=str(target), location=str(nxt)))
                self.current = str(nxt)
                if feed_local is None:
                    feed_local = is_local_host(feed_url.host)
                    local_ok = feed_local
                if not feed_local and is_local_host(nxt.host):
                    # A public feed must not steer us into the user's own network
                    # (routers, admin pages): SSRF. Subscribing to a local URL is fine.
                    # This check on the name gives the clear early answer; the guard
                    # (local_ok=False) holds the connection itself to it.
                    return self._error(
                        f"redirected from a public site to a local or private address "
                        f"({nxt.host}); refused",
                        http_status=status,
                    )
                key = str(_strip_fragment(nxt))
                if key in seen:
                    return self._error("redirect loop", http_status=status)
                if len(self.hops) > self.limits.max_redirects:
                    return self._error(
                        f"too many redirects (more than {self.limits.max_redirects})",
                        http_status=status,
                    )
                seen.add(key)
                target = nxt
        except _FetchFailed as exc:
            return self._error(str(exc))

    def _one_request(
        self, target: httpx.URL, host: str, send_auth: bool, local_ok: bool
    ) -> FetchResult | tuple[int, str]:
        """Send one GET. A final answer becomes a result; a redirect is (status, location).

        ``local_ok`` false: the connection must not be to a local address (see guard).
        """
        slot = self.f._slot(host)
        if self.deadline is None:
            # Waiting for a free slot on a busy host is queueing, not the server's time.
            slot.acquire()
            self.deadline = time.monotonic() + self.limits.total_timeout
        elif not slot.acquire(timeout=max(0.0, self._remaining())):
            raise _FetchFailed(f"timed out waiting for a free connection to {host}")
        try:
            self._check_deadline()
            # Re-check after waiting for the slot: the request that held it may
            # have just been told to back off (a 429 storm must cost one request).
            until = self.f.host_not_before(str(target))
            if until is not None:
                return self._cooling_down(host, until)
            client = self.f._client
            request = client.build_request(
                "GET", target, headers=self._headers(), timeout=self._timeout()
            )
            auth = httpx.BasicAuth(*self.auth) if send_auth and self.auth else None
            response: httpx.Response | None = None
            try:
                with guard.scope(self.deadline, local_ok=local_ok):
                    response = client.send(request, stream=True, follow_redirects=False, auth=auth)
                    return self._handle(response, target, host, send_auth)
            except httpx.HTTPError as exc:
                raise _FetchFailed(self._describe(exc)) from None
            except httpx.InvalidURL as exc:
                # httpx builds the next request of every redirect, even when not
                # following it, and raises for a Location such as "javascript:x"
                # (its own words, "path must be empty or begin with '/'", help no one)
                _log.debug("redirect not followed: %s", exc)
                raise _FetchFailed(
                    "redirected to an address that is not a web page's "
                    "(only http and https redirects are followed)"
                ) from None
            finally:
                if response is not None:
                    response.close()
        finally:
            slot.release()

    def _describe(self, exc: httpx.HTTPError) -> str:
        if guard.found(exc, guard.DeadlineExceeded) is not None:
            return self._deadline_message()
        self._check_deadline()
        slow = guard.found(exc, guard.LookupTimeout)
        if slow is not None:
            self.unreachable = True
            return (
                f"timed out looking up {slow.host}: no answer from the name server "
                f"within {slow.seconds:g} s"
            )
        lookup = guard.found(exc, socket.gaierror)
        if lookup is not None:  # not "[Errno -2] Name or service not known"
            self.unreachable = True
            host = _request_host(exc)
            if lookup.errno in _NO_SUCH_HOST:
                return f"no server called {host} was found: check the address"
            return f"could not look up {host}: {lookup.strerror or lookup}"
        tls = guard.found(exc, ssl.SSLError)
        if tls is not None:
            return _describe_tls(tls, _request_host(exc))
        refused = guard.found(exc, guard.LocalAddressRefused)
        if refused is not None:
            where = f"({refused.host} resolves to {refused.address}); refused"
            if not self.hops:
                return f"a public page pointed to a local or private address {where}"
            return f"redirected from a public site to a local or private address {where}"
        # refused, no route, or no answer to the connection (a ProxyError is ours)
        self.unreachable = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
        return _describe_exception(exc)

    def _handle(
        self, response: httpx.Response, target: httpx.URL, host: str, sent_auth: bool
    ) -> FetchResult | tuple[int, str]:
        status = response.status_code
        self.http_status = status
        now = self.f._now()
        hints = hints_from_headers(response.headers, status=status, now=now)
        if status in _PERMANENT or status in _TEMPORARY:
            location = response.headers.get("location")
            if not location:
                return self._error(
                    f"redirect (HTTP {status}) without a Location header", http_status=status
                )
            return status, location
        if status in (429, 503):
            lim = self.limits
            until = hints.retry_after
            if until is None:
                until = now + lim.default_retry_after
            until = min(until, now + lim.max_retry_after)
            self.f._rate_limit_host(host, until)
            return self._result(
                "rate_limited",
                http_status=status,
                error=f"rate limited by the server (HTTP {status}); "
                f"retrying {host} after {format_epoch(until)}",
                hints=ServerHints(retry_after=until),
            )
        if status == 304:
            new_etag = _raw_header(response, b"etag")
            new_lm = _raw_header(response, b"last-modified")
            return self._result(
                "not_modified",
                http_status=status,
                etag=new_etag if new_etag is not None else self.etag,
                last_modified=new_lm if new_lm is not None else self.last_modified,
                hints=hints,
                permanent_redirect=self._permanent_target(),
                headers=_public_headers(response),
            )
        if status == 410:
            return self._result(
                "gone", http_status=status, error=_describe_status(status, sent_auth)
            )
        if status not in (200, 203):
            return self._error(_describe_status(status, sent_auth), http_status=status)
        body, wire = self._read_body(response)
        return self._result(
            "ok",
            http_status=status,
            etag=_raw_header(response, b"etag"),
            last_modified=_raw_header(response, b"last-modified"),
            body=body,
            bytes_read=wire,
            content_type=response.headers.get("content-type"),
            hints=hints,
            permanent_redirect=self._permanent_target(),
            headers=_public_headers(response),
        )

    def _permanent_target(self) -> str | None:
        if self.hops and all(h.status in _PERMANENT for h in self.hops):
            return self.hops[-1].location
        return None

    def _read_body(self, response: httpx.Response) -> tuple[bytes, int]:
        cap = self.limits.max_body_bytes
        encoding = _content_encoding(response.headers.get("content-encoding", ""))
        declared = response.headers.get("content-length", "")
        # Content-Length counts the bytes on the wire, compressed or not; those are
        # capped too (below), so an encoded body declared over the cap is refused
        # before it is read as well.
        if declared.isdigit() and int(declared) > cap:
            raise _TooLarge(
                f"response too large ({size_text(int(declared))}; the limit is {size_text(cap)})"
            )
        if response.is_stream_consumed:
            # A transport that hands over an already-read body (httpx.MockTransport
            # with content=...): httpx has decoded it, so only the cap applies.
            body = response.content
            self.bytes_read = len(body)
            if len(body) > cap:
                raise _TooLarge(f"response too large (more than {size_text(cap)})")
            return body, len(body)
        decoder = _Decoder(encoding, cap)
        chunks: list[bytes] = []
        wire = 0
        for raw in response.iter_raw():
            wire += len(raw)
            self.bytes_read = wire
            if wire > cap:
                raise _TooLarge(f"response too large (more than {size_text(cap)})")
            chunks.extend(decoder.feed(raw))
            self._check_deadline()
        chunks.append(decoder.flush())
        return b"".join(chunks), wire


def _public_headers(response: httpx.Response) -> tuple[tuple[str, str], ...]:
    return tuple(
        (name.lower(), value)
        for name, value in response.headers.multi_items()
        if name.lower() != "set-cookie"
    )
