"""The parts of ``test_random_cli.py`` that are not the session itself: running the
command line (in-process through ``smartreader.cli.main``, or as a real process),
the feed servers' world, and reading the database apart from the app.

* ``run_inproc``: ``main(argv)`` with stdout and stderr caught (neither is a
  terminal, as when piped), ``SystemExit`` (argparse) turned into its status.
* ``run_proc``: ``python -m smartreader`` in a process of its own, stdout and
  stderr piped, with extra environment (a non-UTF-8 locale, say).
* ``World``: feed "slots" on two ``FeedServer``s (two hosts) whose answers change
  between steps (RSS or Atom with items added, 404, 500, a web page that is no
  feed, a slow answer, a login), and site pages linking one or two of them. Every
  item a slot served in a whole document is remembered: the store may hold no
  other for that feed.
* ``dump``: every row of every table, read with ``immutable=1`` (no lock, no
  ``-wal``/``-shm`` made beside the file: a plain read-only connection leaves
  both behind, which the app's WAL guard would then treat as a stray log).
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from tests.httpserver import FeedServer, RecordedRequest, Reply

REPO = Path(__file__).resolve().parents[2]
T_ITEMS = 1_780_000_000  # items' publication times start here (2026)
WINDOW = 6  # a feed document shows its newest WINDOW items
WORDS = ["rust", "python", "zebra", "harbour", "comet"]
FEED_TITLES = [
    "Alpha news", "Café “Ünï” & Co", "日本語ニュース", "Ελληνικά νέα", "R&D <weekly>",
    "Plain",
]  # fmt: skip


@dataclass
class CliResult:
    argv: list[str]
    code: int
    out: str
    err: str
    how: str = "in-process"  # or "process", "process LC_ALL=C"…

    @property
    def command(self) -> str:
        """The command's name (what follows the options before it)."""
        i = 0
        while i < len(self.argv):
            if self.argv[i] == "--data-dir":
                i += 2
                continue
            return self.argv[i]
        return ""

    def __str__(self) -> str:
        return (
            f"$ smartreader {' '.join(self.argv)}   ({self.how}) -> {self.code}\n"
            f"--- stdout\n{self.out[-1500:]}--- stderr\n{self.err[-1500:]}"
        )


def run_inproc(argv: Sequence[str]) -> CliResult:
    from smartreader.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse: --version, --help, usage errors
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    return CliResult(list(argv), int(code), out.getvalue(), err.getvalue())


# Environments a process may run in: a UTF-8 one, and locales that cannot write
# every character (the C locale without Python's coercion, a Latin-1 terminal).
ENVS: dict[str, dict[str, str]] = {
    "utf-8": {},
    "LC_ALL=C": {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
    "latin-1": {"PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"},
}


def proc_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.pop("PYTHONIOENCODING", None)
    env.pop("PYTHONUTF8", None)
    env["PYTHONPATH"] = str(REPO)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"  # never the user's
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.update(extra or {})
    return env


def start_proc(argv: Sequence[str], env_name: str = "utf-8") -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "smartreader", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=proc_env(ENVS[env_name]),
        cwd=REPO,
    )


def finish_proc(
    p: subprocess.Popen[bytes], argv: Sequence[str], env_name: str = "utf-8", timeout: float = 90
) -> CliResult:
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err += b"\n[test: killed after the timeout]"
    return CliResult(
        list(argv),
        p.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        how=f"process {env_name}",
    )


def run_proc(argv: Sequence[str], env_name: str = "utf-8", timeout: float = 90) -> CliResult:
    return finish_proc(start_proc(argv, env_name), argv, env_name, timeout)


# -- reading the database apart from the app -------------------------------------


def connect_ro(db: Path) -> sqlite3.Connection:
    """The file as it lies (``immutable``): no lock, nothing created beside it.
    Only while no program writes it (between commands)."""
    return sqlite3.connect(f"{db.resolve().as_uri()}?immutable=1", uri=True)


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    if not db.exists():
        return {}
    con = connect_ro(db)
    try:
        names = [
            r[0]
            for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not r[0].startswith("sqlite_")
        ]
        return {n: sorted(con.execute(f'SELECT * FROM "{n}"'), key=repr) for n in names}
    finally:
        con.close()


def integrity(db: Path) -> str:
    con = connect_ro(db)
    try:
        return "; ".join(str(r[0]) for r in con.execute("PRAGMA integrity_check").fetchall()[:5])
    finally:
        con.close()


def entry_uids(db: Path) -> dict[int, set[str]]:
    con = connect_ro(db)
    try:
        out: dict[int, set[str]] = {}
        for fid, uid in con.execute("SELECT feed_id, uid FROM entries"):
            out.setdefault(int(fid), set()).add(str(uid))
        return out
    finally:
        con.close()


def setting(db: Path, key: str) -> str | None:
    con = connect_ro(db)
    try:
        row = con.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])
    finally:
        con.close()


@contextlib.contextmanager
def write_lock_held(db: Path, seconds: float) -> Iterator[threading.Thread]:
    """Another program's write transaction on the database for ``seconds`` (from a
    thread, with a connection of its own), while the ``with`` body runs."""
    ready = threading.Event()

    def hold() -> None:
        con = sqlite3.connect(db, isolation_level=None, timeout=30)
        try:
            con.execute("BEGIN IMMEDIATE")
            ready.set()
            threading.Event().wait(seconds)
            con.execute("ROLLBACK")
        finally:
            ready.set()
            con.close()

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    ready.wait(30)
    try:
        yield t
    finally:
        t.join(60)


# -- the servers' world ----------------------------------------------------------

MODES_OK = ("ok", "slow")  # a whole feed document comes back
MODES_BAD = ("404", "500", "html", "broken")


@dataclass
class Slot:
    """One feed address on a server: what it answers now, and every item it has
    served in a whole document."""

    key: str
    server: FeedServer
    path: str
    fmt: str  # rss | atom
    title: str
    mode: str = "ok"
    login: tuple[str, str] | None = None  # (user, password) it asks for
    items: list[tuple[str, str, int]] = field(default_factory=list)  # guid, title, time
    served: set[str] = field(default_factory=set)
    serial: int = 0

    @property
    def url(self) -> str:
        return self.server.url(self.path)

    def current(self) -> list[tuple[str, str, int]]:
        return self.items[-WINDOW:]

    def add_items(self, n: int, words: Sequence[str]) -> None:
        for _ in range(n):
            self.serial += 1
            word = words[(self.serial + len(self.key)) % len(words)]
            guid = f"{self.key}-{self.serial}"
            self.items.append(
                (guid, f"Post {self.serial} of {self.key} about {word}", T_ITEMS + self.serial)
            )

    def document(self) -> bytes:
        from email.utils import formatdate

        t = escape(self.title)
        if self.fmt == "atom":
            entries = "".join(
                f"<entry><id>{g}</id><title>{escape(title)}</title>"
                f'<link href="/p/{g}"/><updated>{_iso(when)}</updated>'
                f"<summary>Body text {g}</summary></entry>"
                for g, title, when in reversed(self.current())
            )
            return (
                '<?xml version="1.0" encoding="utf-8"?>'
                f'<feed xmlns="http://www.w3.org/2005/Atom"><title>{t}</title>'
                f"<id>urn:{self.key}</id><updated>{_iso(T_ITEMS)}</updated>{entries}</feed>"
            ).encode()
        items = "".join(
            f"<item><guid>{g}</guid><title>{escape(title)}</title><link>/p/{g}</link>"
            f"<pubDate>{formatdate(when, usegmt=True)}</pubDate>"
            f"<description>Body text {g}</description></item>"
            for g, title, when in reversed(self.current())
        )
        return (
            '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
            f"<title>{t}</title><link>{self.server.url('/')}</link>{items}</channel></rss>"
        ).encode()


def _iso(t: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Site:
    key: str
    server: FeedServer
    path: str
    links: list[Slot]
    mode: str = "ok"  # ok | 404

    @property
    def url(self) -> str:
        return self.server.url(self.path)


class World:
    """Feeds and sites on two servers; ``mutate`` changes what they answer."""

    def __init__(self, rng: Any, servers: Sequence[FeedServer]) -> None:
        self.rng = rng
        self.servers = list(servers)
        self.slots: list[Slot] = []
        self.sites: list[Site] = []
        self._lock = threading.Lock()
        self.secrets: list[str] = []

    def new_slot(self, *, login: bool = False, server: FeedServer | None = None) -> Slot:
        rng = self.rng
        k = len(self.slots)
        server = server or rng.choice(self.servers)
        path = rng.choice(["/f{k}.xml", "/feeds/{k}/rss", "/blog/{k}/atom.xml", "/F{k}/Feed"])
        slot = Slot(
            key=f"s{k}",
            server=server,
            path=path.format(k=k),
            fmt=rng.choice(["rss", "atom"]),
            title=f"{rng.choice(FEED_TITLES)} {k}",
        )
        if login:
            password = f"pw-{k}-{rng.choice(['s3cr3t', 'p:ss', 'ç-ß', 'h%20llo'])}"
            slot.login = (rng.choice(["ann", "bob"]), password)
            self.secrets.append(password)
        slot.add_items(rng.randint(1, 4), WORDS)
        server.route(slot.path, lambda req, s=slot: self._answer(s, req))
        self.slots.append(slot)
        return slot

    def new_site(self) -> Site:
        rng = self.rng
        server = rng.choice(self.servers)
        links = [self.new_slot(server=server) for _ in range(rng.choice([1, 1, 2]))]
        site = Site(f"w{len(self.sites)}", server, f"/site{len(self.sites)}/", links)
        server.route(site.path, lambda req, s=site: self._page(s))
        self.sites.append(site)
        return site

    def slot_at(self, url: str) -> Slot | None:
        return next((s for s in self.slots if s.url == url), None)

    def mutate(self) -> list[str]:
        """Between steps: items come, modes change. Returns what changed."""
        rng = self.rng
        said = []
        for s in self.slots:
            r = rng.random()
            if r < 0.5:
                s.add_items(rng.randint(1, 3), WORDS)
            if rng.random() < 0.25:
                old = s.mode
                s.mode = rng.choice(["ok", "ok", "ok", "slow", "404", "500", "html", "broken"])
                if s.mode != old:
                    said.append(f"{s.key}:{old}->{s.mode}")
        for w in self.sites:
            if rng.random() < 0.15:
                w.mode = rng.choice(["ok", "ok", "404"])
        return said

    # -- answers (server threads) ----------------------------------------------------

    def _answer(self, slot: Slot, req: RecordedRequest) -> Reply:
        with self._lock:
            if slot.login is not None:
                user, password = slot.login
                token = base64.b64encode(f"{user}:{password}".encode()).decode()
                if req.header("authorization") != f"Basic {token}":
                    return Reply(
                        status=401,
                        body=b"login please",
                        headers={"WWW-Authenticate": 'Basic realm="feeds"'},
                    )
            mode = slot.mode
            if mode == "404":
                return Reply(status=404, body=b"not found")
            if mode == "500":
                return Reply(status=500, body=b"oops")
            if mode == "html":
                return Reply(
                    body=b"<html><head><title>Moved</title></head><body>no feed</body></html>",
                    headers={"Content-Type": "text/html; charset=utf-8"},
                )
            body = slot.document()
            slot.served.update(g for g, _t, _w in slot.current())  # a cut one: some may be read
            if mode == "broken":  # cut off in the middle: not a whole feed
                return Reply(body=body[: len(body) // 2], headers={"Content-Type": "text/xml"})
            ctype = "application/atom+xml" if slot.fmt == "atom" else "application/rss+xml"
            return Reply(
                body=body,
                headers={"Content-Type": ctype},
                delay=self.rng.uniform(0.2, 0.6) if mode == "slow" else 0.0,
            )

    def _page(self, site: Site) -> Reply:
        if site.mode == "404":
            return Reply(status=404, body=b"not found")
        links = "".join(
            f'<link rel="alternate" type="application/{s.fmt}+xml" href="{s.path}" '
            f'title="{escape(s.title)}">'
            for s in site.links
        )
        return Reply(
            body=f"<html><head><title>Site</title>{links}</head><body>hi</body></html>".encode(),
            headers={"Content-Type": "text/html; charset=utf-8"},
        )


def local_opml(entries: Sequence[tuple[str, str, str | None]]) -> bytes:
    """An OPML file (as another reader writes it) of (url, label, folder path with
    " / " for nesting or None)."""
    tree: dict[str | None, list[str]] = {}
    for url, label, folder in entries:
        line = f'<outline type="rss" text="{escape(label)}" xmlUrl="{escape(url)}"/>'
        tree.setdefault(folder, []).append(line)
    body = "".join(tree.pop(None, []))
    for folder, lines in tree.items():
        assert folder is not None
        parts = folder.split(" / ")
        inner = "".join(lines)
        for name in reversed(parts):
            inner = f'<outline text="{escape(name)}">{inner}</outline>'
        body += inner
    return (
        '<?xml version="1.0" encoding="UTF-8"?><opml version="2.0">'
        f"<head><title>Mine</title></head><body>{body}</body></opml>"
    ).encode()
