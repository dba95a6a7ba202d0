"""A small configurable HTTP server on 127.0.0.1 for tests (stdlib only).

    with FeedServer() as server:
        server.route("/feed.xml", Reply(body=b"<rss/>", headers={"ETag": '"v1"'}))
        server.route("/seq", [Reply(status=200, body=b"a"), Reply(status=304)])
        server.route("/dyn", lambda req: Reply(body=req.header("user-agent", "").encode()))
        fetch(server.url("/feed.xml"))
        assert server.requests[0].header("if-none-match") is None

* Routes match the path without the query string; unknown paths get a 404.
* A route is a ``Reply``, a list of replies served in turn (the last one
  repeats), or a function ``(RecordedRequest) -> Reply``.
* ``Reply`` can delay before answering, drip the body slowly, gzip it, omit
  Content-Length (then the connection closes after the body).
* Every request is recorded with its raw header list, in arrival order, so
  tests can assert exact conditional headers, the absence of Cookie/Referer...
* ``in_flight`` / ``max_in_flight`` count concurrently handled requests.
* Each server is its own host for politeness purposes (a distinct port).

``stop()`` wakes any handler that is sleeping or dripping, so tests end fast.
"""

from __future__ import annotations

import gzip as gzip_module
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = ["FeedServer", "RecordedRequest", "Reply", "Route"]


@dataclass(frozen=True)
class Reply:
    """A canned response.

    delay: seconds to wait before sending anything.
    drip: if set, seconds to wait between chunks of ``drip_chunk`` body bytes.
    gzip: compress ``body`` and add ``Content-Encoding: gzip`` (ignored when
        ``raw_body`` is given: then the bytes are sent exactly as they are).
    content_length: send Content-Length (else close the connection after the body).
    headers: a mapping or a sequence of (name, value) pairs (repeats allowed).
    """

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] | Sequence[tuple[str, str]] = ()
    delay: float = 0.0
    drip: float | None = None
    drip_chunk: int = 1
    gzip: bool = False
    content_length: bool = True
    raw_body: bytes | None = None  # pre-encoded body, sent verbatim

    def header_items(self) -> list[tuple[str, str]]:
        if isinstance(self.headers, Mapping):
            return list(self.headers.items())
        return list(self.headers)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str  # with the query string
    headers: tuple[tuple[str, str], ...]  # as received, in order
    server_port: int
    time: float = field(default_factory=time.monotonic)

    @property
    def route_path(self) -> str:
        return urlsplit(self.path).path

    @property
    def query(self) -> str:
        return urlsplit(self.path).query

    def header(self, name: str, default: str | None = None) -> str | None:
        """The first value of a header (case-insensitive name), else ``default``."""
        values = self.header_all(name)
        return values[0] if values else default

    def header_all(self, name: str) -> list[str]:
        lname = name.lower()
        return [v for k, v in self.headers if k.lower() == lname]

    def has_header(self, name: str) -> bool:
        return bool(self.header_all(name))


Handler = Callable[[RecordedRequest], Reply]
Route = Reply | Sequence[Reply] | Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _serve(self) -> None:
        owner = self.server.owner
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers=tuple(self.headers.items()),
            server_port=owner.port,
        )
        owner._enter(request)
        try:
            reply = owner._reply_for(request)
            self._send(reply, owner._stopping)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
            self.close_connection = True
        finally:
            owner._leave()

    do_GET = _serve
    do_HEAD = _serve
    do_POST = _serve

    def _send(self, reply: Reply, stopping: threading.Event) -> None:
        if reply.delay and stopping.wait(reply.delay):
            self.close_connection = True
            return
        body = reply.body
        headers = reply.header_items()
        if reply.raw_body is not None:
            body = reply.raw_body
        elif reply.gzip:
            body = gzip_module.compress(body)
            headers.append(("Content-Encoding", "gzip"))
        self.send_response(reply.status)
        for name, value in headers:
            self.send_header(name, value)
        no_body = self.command == "HEAD" or reply.status in (204, 304) or reply.status < 200
        if reply.content_length and not no_body:
            self.send_header("Content-Length", str(len(body)))
        elif not no_body:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if no_body:
            return
        if reply.drip is None:
            self.wfile.write(body)
            self.wfile.flush()
            return
        step = max(1, reply.drip_chunk)
        for i in range(0, len(body), step):
            self.wfile.write(body[i : i + step])
            self.wfile.flush()
            if stopping.wait(reply.drip):
                self.close_connection = True
                return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FeedServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a deadline test) resets its kept-alive connection
        # while the handler waits for the next request: expected, not worth a
        # traceback in the test output. Anything else is still printed.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FeedServer:
    """A threaded HTTP/1.1 server on 127.0.0.1, port chosen by the OS."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._routes: dict[str, Route] = {}
        self._cursor: dict[str, int] = {}
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd = _Server((host, port), _Handler)
        self._httpd.owner = self
        self.host = host
        self.port: int = self._httpd.server_address[1]
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> FeedServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"FeedServer:{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FeedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- configuration

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    def route(self, path: str, response: Route) -> None:
        """Serve ``path`` with a Reply, a sequence of Replies (last repeats) or a function."""
        with self._lock:
            self._routes[path] = response
            self._cursor[path] = 0

    def routes(self, mapping: Mapping[str, Route]) -> None:
        for path, response in mapping.items():
            self.route(path, response)

    # -- observation

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def requests_for(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.route_path == path]

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            self.max_in_flight = self.in_flight

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(self.requests) >= count:
                return True
            time.sleep(0.01)
        return False

    # -- called from handler threads

    def _enter(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _reply_for(self, request: RecordedRequest) -> Reply:
        path = request.route_path
        with self._lock:
            route = self._routes.get(path)
            if isinstance(route, Reply) or route is None:
                return route or Reply(status=404, body=b"not found")
            if callable(route):
                handler = route
            else:
                replies = list(route) if isinstance(route, Iterable) else [route]
                i = self._cursor[path]
                self._cursor[path] = i + 1
                return replies[min(i, len(replies) - 1)]
        return handler(request)
