"""Parse feed documents (and find the article in a web page) in worker processes.

feedparser is pure Python: eight fetch threads parsing at once hold the GIL most
of the time, and the GUI thread, which needs it between every Qt and SQLite call,
waits for it (50–80 ms stalls while hundreds of feeds update). Parsing in other
processes takes that work off this interpreter's GIL, and uses the other cores.

The pool starts on first use (nothing at start-up), from a fork server that has
already imported the parser, so a worker costs a fork, not an interpreter start;
never a plain fork of this process (its threads may hold locks). If the pool
cannot start or a worker dies, the document is parsed in the calling thread and
the pool is started afresh on the next call: a parse never fails for the pool's
sake. ``ParseError`` raised in a worker reaches the caller as it is. A document
that takes longer than ``timeout`` to parse is refused (``ParseError``) and its
worker killed: one hostile feed must not hold a worker, and every update behind it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing.context import BaseContext
from typing import TypeVar

from smartreader.core.models import ParsedFeed
from smartreader.errors import ParseError, SmartReaderError
from smartreader.net.fulltext import FullArticle, FullTextError, extract_article
from smartreader.net.parse import parse_feed

T = TypeVar("T")

log = logging.getLogger(__name__)

# A 15 MiB feed (the fetcher's limit) parses in a few seconds; a minute is hostile.
PARSE_TIMEOUT = 60.0


def _ignore_interrupts() -> None:
    """In a worker: Ctrl+C in the terminal reaches the whole process group, and
    the app ends the workers itself as it quits; a worker that died of it first
    printed a KeyboardInterrupt traceback and made the pool fall back in-thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ParsePool:
    """``parse(body, url=..., content_type=..., now=...)`` like ``parse_feed``;
    ``extract(page, url, charset=...)`` like ``net.fulltext.extract_article``."""

    def __init__(self, workers: int | None = None, *, timeout: float = PARSE_TIMEOUT) -> None:
        # two, not one per core: measured on 2 cores, one worker gave the GUI no
        # shorter stalls (59 vs 54 ms, median of 3) and parsing no faster
        self.workers = workers or max(1, min(2, os.cpu_count() or 1))
        self.timeout = timeout
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.fallbacks = 0  # documents parsed in-thread because the pool failed
        self.in_workers = 0  # documents parsed (or refused as not a feed) by a worker

    def _get(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._closed:
                return None
            if self._pool is None:
                ctx: BaseContext
                try:
                    fs = multiprocessing.get_context("forkserver")
                    # readability too: fulltext imports it only when a page is read
                    preload = ["smartreader.net.parse", "smartreader.net.fulltext", "readability"]
                    fs.set_forkserver_preload(preload)
                    ctx = fs
                except ValueError:  # no fork server on this platform (Windows)
                    ctx = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=ctx, initializer=_ignore_interrupts
                )
            return self._pool

    def parse(
        self,
        body: bytes,
        *,
        url: str,
        content_type: str | None = None,
        now: float | None = None,
    ) -> ParsedFeed:
        return self._run(
            partial(parse_feed, body, url=url, content_type=content_type, now=now),
            ParseError(f"the feed took longer than {self.timeout:g} s to read; refused"),
        )

    def extract(self, page: bytes | str, url: str, *, charset: str | None = None) -> FullArticle:
        """``extract_article`` in a worker: readability is pure Python too (about
        0.3 s of held GIL for a 1 MB page), and a page it takes a minute over is
        refused, its worker stopped."""
        return self._run(
            partial(extract_article, page, url, charset=charset),
            FullTextError(f"The page took longer than {self.timeout:g} s to read; refused."),
        )

    def _run(self, job: Callable[[], T], too_slow: SmartReaderError) -> T:
        """``job`` in a worker, within ``timeout`` (else ``too_slow`` is raised);
        in this thread when the pool cannot run it. An error of ``too_slow``'s
        kind raised by the job reaches the caller as it is."""
        pool = self._get()
        if pool is not None:
            try:
                fut = pool.submit(job)
                try:
                    return fut.result(timeout=self.timeout)
                except TimeoutError:
                    self._kill(pool)
                    raise too_slow from None
                finally:
                    if fut.done() and (
                        fut.exception() is None or isinstance(fut.exception(), type(too_slow))
                    ):
                        self.in_workers += 1
            except (BrokenProcessPool, OSError, RuntimeError) as e:
                # RuntimeError: submit after shutdown (closing meanwhile)
                log.warning("parse worker failed (%s); parsing in-process", e)
                self._discard(pool)
                self.fallbacks += 1
        return job()

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def _kill(self, pool: ProcessPoolExecutor) -> None:
        """Stop a pool whose worker is stuck: shutdown alone would wait for it.
        Other parses in that pool end with BrokenProcessPool and run in-thread."""
        # ``_processes`` is private, but the executor has no public way to kill.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        self._discard(pool)
        for proc in processes:
            proc.terminate()
        log.warning("a parse took longer than %g s; its worker was stopped", self.timeout)

    def close(self) -> None:
        """Stop the workers (waits for parses in progress). Later parses run in-thread."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
