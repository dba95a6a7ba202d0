"""What a fetch may connect to, and for how long: checked on the socket itself.

httpx bounds each socket operation (connect, one read, one write) but not a whole
response, and it resolves a host name when it connects, after any check we made
on that name. So, on their own,

* a server dripping one byte just inside the read timeout holds a fetch for as
  long as it likes (the total deadline was checked between reads),
* a name server that is slow to answer holds it for as long as the system's
  resolver waits (``getaddrinfo`` takes no timeout), and
* a redirect target whose name answers a public address to our check and a local
  one to the connection (DNS rebinding) reaches the user's network.

This module sits under httpx as httpcore's network backend. While a fetch runs
inside ``scope(deadline, local_ok)``, every name lookup, connect, read, write
and TLS handshake of its thread is given at most the time left before
``deadline`` (a lookup also at most the connect timeout); and
when ``local_ok`` is false the host is resolved once, refused if any answer is a
local address, and connected to the very addresses checked. A kept-alive
connection to a local address is refused too before a request is written to it.

Outside a scope the backend behaves like httpcore's own. Through a proxy the
connection is to the proxy and the proxy resolves the name: only the deadline
applies there, and the caller's check on the name is all there is.

``install`` puts the backend under an ``httpx.Client``'s connection pools; httpx
0.28 has no public setting for this (encode/httpx#3749), so it reaches for the
pool's backend attribute and says (returns False) when that is not there.

Errors raised here are httpcore's, so httpx reports them as usual; ``found``
tells a fetch whether one of ours (``DeadlineExceeded``, ``LocalAddressRefused``)
was the cause.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import httpcore
import httpx

__all__ = [
    "DeadlineExceeded",
    "GuardedBackend",
    "LocalAddressRefused",
    "LookupTimeout",
    "found",
    "install",
    "is_ip_literal",
    "scope",
]


@dataclass(frozen=True)
class _Scope:
    deadline: float | None  # time.monotonic() value
    local_ok: bool


_SCOPE: ContextVar[_Scope | None] = ContextVar("smartreader_fetch_scope", default=None)


@contextmanager
def scope(deadline: float | None, *, local_ok: bool = True) -> Iterator[None]:
    """Run the enclosed network calls of this thread under ``deadline``
    (``time.monotonic()``) and, unless ``local_ok``, away from local addresses."""
    token = _SCOPE.set(_Scope(deadline, local_ok))
    try:
        yield
    finally:
        _SCOPE.reset(token)


class DeadlineExceeded(Exception):
    """Marks a timeout caused by the fetch's total deadline (not by the
    per-operation connect/read/write timeout)."""


class _ConnectDeadline(DeadlineExceeded, httpcore.ConnectTimeout):
    pass


class _ReadDeadline(DeadlineExceeded, httpcore.ReadTimeout):
    pass


class _WriteDeadline(DeadlineExceeded, httpcore.WriteTimeout):
    pass


class LookupTimeout(httpcore.ConnectTimeout):
    """The name server did not answer within the connect timeout."""

    def __init__(self, host: str, seconds: float) -> None:
        super().__init__(f"looking up {host} took longer than {seconds:g} s")
        self.host = host
        self.seconds = seconds


class LocalAddressRefused(httpcore.ConnectError):
    """A connection (new or kept alive) to a local address in a scope that refuses them."""

    def __init__(self, host: str, address: str) -> None:
        super().__init__(f"{host} resolves to the local address {address}; refused")
        self.host = host
        self.address = address


_E = TypeVar("_E", bound=BaseException)


def found(exc: BaseException, kind: type[_E]) -> _E | None:
    """The first ``kind`` in ``exc``'s chain of causes (httpx re-raises
    httpcore's errors as its own, ``from`` the original)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _limit(timeout: float | None, error: type[DeadlineExceeded]) -> tuple[float | None, bool]:
    """(the timeout to use, whether the deadline is what bounds it)."""
    current = _SCOPE.get()
    if current is None or current.deadline is None:
        return timeout, False
    left = current.deadline - time.monotonic()
    if left <= 0:
        raise error("the fetch's total deadline has passed")
    if timeout is None or left < timeout:
        return left, True
    return timeout, False


_T = TypeVar("_T")


def _bounded(
    op: Callable[[float | None], _T], timeout: float | None, error: type[DeadlineExceeded]
) -> _T:
    limit, by_deadline = _limit(timeout, error)
    try:
        return op(limit)
    except httpcore.TimeoutException as exc:
        if by_deadline:
            raise error("the fetch's total deadline has passed") from exc
        raise


def _lookup(host: str, port: int, timeout: float | None) -> list[Any]:
    """``getaddrinfo`` within the connect timeout and the time left.

    The resolver has no timeout of its own to pass (a slow or hostile name server
    holds it for as long as the system allows), so the lookup runs on a daemon
    thread and is abandoned, not waited for, when the time is up.
    """
    limit, by_deadline = _limit(timeout, _ConnectDeadline)  # none once past the deadline
    if is_ip_literal(host):  # nothing to ask a name server: no thread
        return _getaddrinfo(host, port)
    box: dict[str, Any] = {}
    done = threading.Event()

    def resolve() -> None:
        try:
            box["infos"] = _getaddrinfo(host, port)
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=resolve, name=f"lookup {host}", daemon=True).start()
    if limit is None:
        done.wait()  # no scope and no timeout: as httpcore's own backend
    elif not done.wait(limit):
        if by_deadline:
            raise _ConnectDeadline("the fetch's total deadline has passed")
        raise LookupTimeout(host, limit)
    if "error" in box:
        raise box["error"]
    return list(box["infos"])


def _getaddrinfo(host: str, port: int) -> list[Any]:
    try:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise httpcore.ConnectError(str(exc)) from exc


def is_ip_literal(host: str) -> bool:
    """``host`` is an address, not a name ("[::1]", "fe80::1%eth0" included)."""
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


class _GuardedStream(httpcore.NetworkStream):
    """A connected stream whose operations obey the current scope.

    ``local`` is whether the peer is a local address (None: not known, e.g. a
    proxy's connection, never refused)."""

    def __init__(self, inner: httpcore.NetworkStream, host: str, peer: str, local: bool | None):
        self._inner = inner
        self._host = host
        self._peer = peer
        self._local = local

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return _bounded(lambda t: self._inner.read(max_bytes, t), timeout, _ReadDeadline)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # A request is about to go out: a kept-alive connection made when local
        # addresses were fine (the user's own local feed) must not carry a
        # public feed's redirect to the same name.
        current = _SCOPE.get()
        if current is not None and not current.local_ok and self._local:
            raise LocalAddressRefused(self._host, self._peer)
        _bounded(lambda t: self._inner.write(buffer, t), timeout, _WriteDeadline)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = _bounded(
            lambda t: self._inner.start_tls(ssl_context, server_hostname, t),
            timeout,
            _ConnectDeadline,
        )
        return _GuardedStream(inner, self._host, self._peer, self._local)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore network backend applying the current ``scope``.

    ``is_local(address)`` classifies a numeric address. With ``police`` false
    (a proxy's pool) addresses are not checked, only the deadline applies.
    """

    def __init__(
        self,
        inner: httpcore.NetworkBackend,
        *,
        is_local: Callable[[str], bool],
        police: bool = True,
    ) -> None:
        self._inner = inner
        self._is_local = is_local
        self._police = police

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        def connect(address: str) -> httpcore.NetworkStream:
            return _bounded(
                lambda t: self._inner.connect_tcp(address, port, t, local_address, socket_options),
                timeout,
                _ConnectDeadline,
            )

        if not self._police:
            return _GuardedStream(connect(host), host, host, None)
        current = _SCOPE.get()
        infos = _lookup(host, port, timeout)
        # Connect to exactly the addresses checked here: no second lookup.
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if current is not None and not current.local_ok:
            for address in addresses:
                if self._is_local(address):
                    raise LocalAddressRefused(host, address)
        if not addresses:
            raise httpcore.ConnectError(f"{host} has no address")
        error: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:  # in the resolver's order, as socket.create_connection
            try:
                stream = connect(address)
            except DeadlineExceeded:
                raise
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
                continue
            return _GuardedStream(stream, host, address, self._is_local(address))
        assert error is not None
        raise error

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        return self._inner.connect_unix_socket(path, timeout, socket_options)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install(client: httpx.Client, *, is_local: Callable[[str], bool]) -> bool:
    """Put a ``GuardedBackend`` under ``client``'s own connection pool (policed)
    and its proxies' pools (deadline only). False if the client's transport is
    not httpx's (a test's ``MockTransport``) or httpx's internals have changed."""
    direct = getattr(client, "_transport", None)
    mounts: dict[Any, httpx.BaseTransport | None] = getattr(client, "_mounts", {})
    ok = _install(direct, is_local=is_local, police=True)
    for transport in mounts.values():
        if transport is not None and transport is not direct:
            ok = _install(transport, is_local=is_local, police=False) and ok
    return ok


def _install(transport: object, *, is_local: Callable[[str], bool], police: bool) -> bool:
    if not isinstance(transport, httpx.HTTPTransport):
        return False
    pool = getattr(transport, "_pool", None)
    inner = getattr(pool, "_network_backend", None)
    if not isinstance(inner, httpcore.NetworkBackend):
        return False
    if not isinstance(inner, GuardedBackend):
        # httpcore's pools (direct, HTTP and SOCKS proxies) keep it here and hand it
        # to each new connection.
        pool._network_backend = GuardedBackend(  # type: ignore[union-attr]
            inner, is_local=is_local, police=police
        )
    return True
