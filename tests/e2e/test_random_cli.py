"""Seeded random sessions of the command line against one data folder.

Each session runs a random sequence of ``smartreader`` commands on one
``--data-dir`` (in a tmp folder), with two local feed servers (two hosts, port 0)
whose feeds change between steps (``random_cli_support.World``: RSS and Atom with
new items, 404, 500, a web page that is no feed, a cut-off document, slow
answers, a feed behind a login, site pages linking one or two feeds). Most
commands run in-process (``cli.main``), some as real processes (``python -m
smartreader``, output piped). The commands, with valid and invalid arguments:

* ``add`` a feed's or a site's address (with ``--folder``, ``--title``, a login in
  the address, duplicates, nonsense, unicode, very long addresses);
* ``remove`` by id (several, twice in one command, unknown, by address);
* ``import`` of OPML files the session wrote itself, exports of its own, files
  other readers write (``tests/net/opml_gen.py``, ``--no-fetch``: their hosts are
  not ours), and what is no OPML at all (missing, a folder, broken files, an
  address); ``export`` to a new file, over an old one, into missing folders, onto
  a folder, under a file, into a read-only folder;
* ``update`` (all, some, unknown, ``--due``), ``feeds`` (text, JSON),
  ``entries`` (feed, unread, starred, search, limit, JSON), ``backup`` (new file,
  over one, missing folders, a folder, the database itself), ``explain`` (known,
  unknown, JSON), ``budget`` (show, valid, zero, negative, huge, fractional,
  nan, not a number), ``cleanup`` (keep limits valid and not, ``--compact``),
  ``--version``, unknown commands, missing arguments, ``replay --data-dir``.

Now and then: another connection holding the write lock for a moment, two
processes at once, a Store opened by the test (to star articles), the data
folder read-only (a read-only bind mount when running as root), a data folder
that is a file, a damaged copy of the database, a read command in a process
whose locale cannot write every character (the C locale without Python's UTF-8
coercion, a Latin-1 terminal).

The session keeps a model (feeds with their address, folder and name, folders,
budget, keep limits, the items each feed address served) and checks after every
step:

* exit status 0 on success; on failure non-zero with one clear line on stderr
  (``smartreader: …``, or argparse's usage and error for status 2); never a
  Python traceback; no password in any output;
* a failed command changes nothing in the database (every row of every table;
  on a data folder with no database yet it may leave an empty one, nothing in it);
* ``feeds`` (text and JSON) and ``entries`` say what the database holds; the
  database's feeds, folders and settings are the model's; a feed holds only
  items its address served, and after a good fetch every item it serves now;
* an export is well-formed, names every feed, re-imports into a fresh folder as
  the same subscriptions and into the same folder as nothing new;
* a backup passes ``integrity_check`` and holds the model's feeds;
* no password in the database files, exports or backups; a login added goes to
  the keyring (in-process sessions with a ``MemoryKeyring``: even seeds) and
  leaves it with ``remove``; with no keyring (odd seeds, and every process) the
  login is refused, saying why;
* the database passes ``PRAGMA integrity_check`` and no ``-wal`` (nor
  ``-journal``) is left beside it once a command has exited.

``KNOWN`` lists what the sessions find the app doing wrong (none now); while
listed the session steers round it (or tolerates it where it shows). What they
found is pinned by the tests at the end of this file.

Committed form: a few fixed seeds. More: ``RANDOM_CLI_SEEDS=100-199`` (or
``5,7,9``), ``RANDOM_CLI_STEPS=40``.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

from smartreader.storage import db_path
from smartreader.storage.store import DB_NAME, Store
from smartreader.subscriptions import ImportReport
from tests.e2e import random_cli_support as sup
from tests.e2e.random_cli_support import CliResult, Slot, World, run_inproc, run_proc
from tests.httpserver import FeedServer
from tests.keyrings import MemoryKeyring, installed
from tests.net import opml_gen as gen
from tests.shared import seeds_from_env

# What the sessions found, all fixed (each pinned by a test at the end), by the
# names KNOWN gave them:
# "non-utf8-output": a command printing a character the output's encoding lacks
#   (a feed's name, "“”", "λ", "→") dies with a UnicodeEncodeError traceback.
# "damaged-db": a database damaged past its header is opened and used by every
#   command (writes included), and a read that meets the damage is a traceback.
# "huge-id": a feed id or --limit past SQLite's 64-bit integers is a traceback.
# "export-over-db": `export` onto the database's own path renames the OPML over the
#   live database (every article lost), or writes a -wal that vanishes at close.
# "budget-inf": `budget` with no feeds says "a fixed interval would give inf d".
KNOWN: frozenset[str] = frozenset()
# Also pinned, not driven by the sessions (they must never reach the user's own data
# folder): `--data-dir ""` was taken as no --data-dir at all.
BIG = str(2**64)


def _seeds() -> list[int]:
    return seeds_from_env("RANDOM_CLI_SEEDS", [1, 2, 3])


STEPS = int(os.environ.get("RANDOM_CLI_STEPS", "26"))

FOLDERS = [None, None, "News", "news", "Tech / Python", "Ünï", "  Spaced   out ", "📁", "R&D"]
TITLES = [None, None, None, "My own name", "  two   spaces ", "日本語の名前", "x" * 300, "Ünï “q”"]
NONSENSE = [
    "not a url at all", "ftp://example.org/feed", "http://", "javascript:alert(1)",
    "mailto:news@example.org", "http://127.0.0.1:1/feed.xml", "", "   ", "http://[::1",
    "http://bücher.invalid/feed", "ünïcödé ☃", "file:///etc/passwd", "https://exa mple.org/x",
]  # fmt: skip


# search texts that are FTS5 syntax, or nearly
ODD_SEARCHES = ['"', "AND", "*", "NEAR(", "-", "^", "a OR", "'", "(", "x:y", '""', "ü*", "C++",
                "rust*", "NOT rust", "日本", "   ", ""]  # fmt: skip


@dataclass
class MFeed:
    """A subscription the model expects."""

    id: int
    url: str
    folder: str | None
    title: str | None  # the name `feeds` shows; None: not modelled (a masked login)
    slot: Slot | None  # None: another reader's feed (not ours to fetch)
    login: bool = False


def name_of(raw: str | None) -> str:
    return gen.store_name(raw or "")


class Session:
    def __init__(
        self, tmp: Path, seed: int, servers: Sequence[FeedServer], keyring: MemoryKeyring | None
    ) -> None:
        self.tmp = tmp
        self.seed = seed
        self.rng = random.Random(seed)
        self.world = World(self.rng, servers)
        self.data = tmp / "data"
        self.db = self.data / DB_NAME
        self.files = tmp / "files"
        self.files.mkdir()
        self.keyring = keyring
        self.feeds: dict[int, MFeed] = {}
        self.folders: dict[str, str] = {}  # casefold -> the name the store has
        self.budget_n = 1000
        self.read_days, self.unread_days = 90.0, 0.0
        self.pool = gen.Pool()
        self.secrets: list[str] = []
        self.log: list[str] = []
        self.step = 0
        self.n_files = 0
        self.tolerated: list[str] = []
        self.t0 = time.monotonic()

    # -- plumbing -------------------------------------------------------------------

    def say(self, what: str) -> None:
        t = time.monotonic() - self.t0
        self.log.append(f"[seed {self.seed} step {self.step} {t:6.1f}s] {what}")

    def fail(self, what: str, res: CliResult | None = None) -> None:
        tail = "\n".join(self.log[-8:])
        pytest.fail(f"{tail}\n{res if res is not None else ''}\n>>> {what}")

    def new_file(self, suffix: str = ".opml") -> Path:
        self.n_files += 1
        return self.files / f"f{self.n_files}{suffix}"

    def argv(self, *args: str) -> list[str]:
        """The command with --data-dir before or after its name."""
        if self.rng.random() < 0.5:
            return ["--data-dir", str(self.data), *args]
        return [*args, "--data-dir", str(self.data)]

    def run(self, argv: list[str], *, proc: bool | None = None, env: str = "utf-8") -> CliResult:
        if proc is None:
            proc = self.rng.random() < 0.15
        res = run_proc(argv, env) if proc else run_inproc(argv)
        self.say(f"{res.how}: {' '.join(argv)[:160]} -> {res.code}")
        self.check_output(res)
        return res

    def secrets_all(self) -> list[str]:
        return self.secrets + self.world.secrets

    def check_output(self, res: CliResult) -> None:
        text = res.out + res.err
        if "Traceback" in text or "Exception ignored" in text:
            if (
                "non-utf8-output" in KNOWN
                and "UnicodeEncodeError" in text
                and res.how
                not in (
                    "in-process",
                    "process utf-8",
                )
            ):
                self.tolerated.append("non-utf8-output")
                return
            self.fail("a Python traceback", res)
        for s in self.secrets_all():
            if s and (s in text or quote(s, safe="") in text):
                self.fail(f"a password in the output: {s!r}", res)
        if res.code == 0:
            return
        if res.code == 2:  # argparse
            if "error:" not in res.err:
                self.fail("exit status 2 without argparse's error line", res)
            return
        lines = [x for x in res.err.splitlines() if x.startswith("smartreader: ")]
        if res.command != "update" and len(lines) != 1:
            self.fail("a failure without exactly one 'smartreader: …' line on stderr", res)
        typed = max((len(a) for a in res.argv), default=0)  # an address echoed is fine
        for line in lines:
            if len(line) > 600 + typed:
                self.fail("a failure line too long to read", res)

    def expect_ok(self, res: CliResult) -> None:
        if res.code != 0:
            self.fail("expected success", res)

    def expect_fail(self, res: CliResult, before: dict[str, list[tuple[object, ...]]]) -> None:
        if res.code == 0:
            self.fail("expected a failure", res)
        after = sup.dump(self.db)
        if not before:
            # no database before: a command may make an empty one (not a change to
            # anything stored), but nothing in it
            if any(after.get(t) for t in ("feeds", "entries", "folders", "fetch_log")):
                self.fail("a failed command on a new data folder stored something", res)
            return
        if after != before:
            self.fail("a failed command changed the database", res)

    # -- the checks after every step -------------------------------------------------

    def db_feeds(self) -> dict[int, tuple[str, str | None, str, str, str | None, str | None]]:
        """id -> (url, folder, display title, status, last error, user name)."""
        con = sup.connect_ro(self.db)
        try:
            rows = con.execute(
                "SELECT f.id, f.url, fo.name, f.user_title, f.title, f.status, f.last_error,"
                " f.auth_username FROM feeds f LEFT JOIN folders fo ON fo.id = f.folder_id"
            ).fetchall()
        finally:
            con.close()
        return {r[0]: (r[1], r[2], r[3] or r[4] or r[1], r[5], r[6], r[7]) for r in rows}

    def db_folders(self) -> list[str]:
        con = sup.connect_ro(self.db)
        try:
            return sorted(r[0] for r in con.execute("SELECT name FROM folders"))
        finally:
            con.close()

    def check_store(self) -> None:
        if not self.db.exists():
            if self.feeds:
                self.fail("the database is gone")
            return
        for side in ("-wal", "-journal"):
            if Path(f"{self.db}{side}").exists():
                self.fail(f"a {side} file is left beside the database after the command")
        check = sup.integrity(self.db)
        if check != "ok":
            self.fail(f"integrity_check: {check}")
        got = self.db_feeds()
        if sorted(got) != sorted(self.feeds):
            self.fail(f"feeds in the database {sorted(got)}, model {sorted(self.feeds)}")
        for fid, m in self.feeds.items():
            url, folder, title, _status, _err, _user = got[fid]
            if url != m.url or folder != m.folder or (m.title is not None and title != m.title):
                self.fail(f"feed {fid}: database {(url, folder, title)}, model {m}")
        folders = self.db_folders()
        if folders != sorted(self.folders.values()):
            self.fail(f"folders {folders}, model {sorted(self.folders.values())}")
        uids = sup.entry_uids(self.db)
        for fid, have in uids.items():
            m = self.feeds[fid]
            if m.slot is None or not have <= m.slot.served:
                self.fail(f"feed {fid} holds items its address never served: {sorted(have)[:5]}")
        budget = sup.setting(self.db, "budget_per_day")
        if budget is not None and float(budget) != self.budget_n:
            self.fail(f"budget {budget} in the database, model {self.budget_n}")
        for key, want in (
            ("keep_read_days", self.read_days),
            ("keep_unread_days", self.unread_days),
        ):
            value = sup.setting(self.db, key)
            if value is not None and float(value) != want:
                self.fail(f"{key} {value} in the database, model {want}")
        for p in self.data.rglob("*"):
            if p.is_file():
                data = p.read_bytes()
                for s in self.secrets_all():
                    if s.encode() in data:
                        self.fail(f"a password in {p}: {s!r}")

    def starred(self) -> dict[int, int]:
        if not self.db.exists():
            return {}
        con = sup.connect_ro(self.db)
        try:
            q = "SELECT feed_id, count(*) FROM entries WHERE starred = 1 GROUP BY feed_id"
            return dict(con.execute(q))
        finally:
            con.close()

    def counts(self) -> dict[int, int]:
        if not self.db.exists():
            return {}
        return {fid: len(u) for fid, u in sup.entry_uids(self.db).items()}

    # -- model helpers -------------------------------------------------------------

    def folder_for(self, raw: str | None) -> str | None:
        name = name_of(raw)
        if not name:
            return None
        return self.folders.get(name.casefold(), name)

    def adopt_folder(self, name: str | None) -> None:
        if name:
            self.folders.setdefault(name.casefold(), name)

    def subscribed(self, url: str) -> MFeed | None:
        return next((f for f in self.feeds.values() if f.url == url), None)

    def id_of(self, url: str) -> int:
        for fid, row in self.db_feeds().items():
            if row[0] == url:
                return fid
        self.fail(f"no feed at {url} in the database")
        raise AssertionError

    def fetch_ok(self, slot: Slot, inproc: bool) -> bool | None:
        """Whether fetching the slot now gives its items (None: cannot say)."""
        if slot.mode == "broken":
            return None
        if slot.mode not in sup.MODES_OK:
            return False
        return slot.login is None or (inproc and self.keyring is not None)

    def local_ids(self) -> list[int]:
        return [fid for fid, f in self.feeds.items() if f.slot is not None]

    def foreign(self) -> bool:
        return any(f.slot is None for f in self.feeds.values())

    # -- commands ---------------------------------------------------------------------

    def add_feed(self, *, login: bool = False) -> None:
        rng, world = self.rng, self.world
        free = [s for s in world.slots if not self.subscribed(s.url)]
        taken = [s for s in world.slots if self.subscribed(s.url)]
        r = 0.0 if login else rng.random()
        if r < 0.45 or not free:
            slot = world.new_slot(login=login or rng.random() < 0.35)
        elif r < 0.75 or not taken:
            slot = rng.choice(free)
        else:
            slot = rng.choice(taken)
        url = slot.url
        creds = slot.login is not None and (login or rng.random() < 0.85)
        if creds:
            assert slot.login is not None
            user, password = slot.login
            url = url.replace("http://", f"http://{user}:{quote(password, safe='')}@")
        elif rng.random() < 0.2:
            url = url.replace("http://", "HTTP://") + rng.choice(["#top", ""])
        folder, title = rng.choice(FOLDERS), rng.choice(TITLES)
        args = ["add", url]
        if folder is not None:
            args += ["--folder", folder]
        if title is not None:
            args += ["--title", title]
        proc = not login and rng.random() < 0.15
        before = sup.dump(self.db)
        res = self.run(self.argv(*args), proc=proc)
        if self.subscribed(slot.url):
            ok: bool | None = False
        elif slot.login is not None and not creds:
            ok = False  # it asks for a login
        else:
            ok = self.fetch_ok(slot, True)
            if ok and slot.login is not None and (proc or self.keyring is None):
                ok = False  # no keyring for its password
                if res.code != 0 and "keyring" not in res.err.lower():
                    self.fail("a login with no keyring to keep it: the reason is not said", res)
        if ok is False or (ok is None and res.code != 0):
            self.expect_fail(res, before)
            return
        self.expect_ok(res)
        self.added_from(res, [slot], folder, title, login=slot.login is not None)

    def added_from(
        self, res: CliResult, slots: list[Slot], folder: str | None, title: str | None, *,
        login: bool = False,
    ) -> Slot:  # fmt: skip
        m = re.match(r"subscribed \[(\d+)\] (.*) <(.*)>: ([\d,]+) entr(y|ies)\n", res.out)
        if m is None:
            self.fail("no 'subscribed [id] …' line", res)
            raise AssertionError
        fid, shown, url, n = int(m[1]), m[2], m[3], int(m[4].replace(",", ""))
        slot = next((s for s in slots if s.url == url), None)
        if slot is None or fid in self.feeds:
            self.fail(f"subscribed to {url} (id {fid}), not one of {[s.url for s in slots]}", res)
            raise AssertionError
        want_title = name_of(title) or slot.title
        if shown != want_title:
            self.fail(f"subscribed as {shown!r}, expected {want_title!r}", res)
        if n != len(slot.current()) and slot.mode != "broken":
            self.fail(f"{n} entries, the feed serves {len(slot.current())}", res)
        fold = self.folder_for(folder)
        self.adopt_folder(fold)
        self.feeds[fid] = MFeed(fid, slot.url, fold, want_title, slot, login)
        if login and res.how == "in-process" and self.keyring is not None:
            assert slot.login is not None
            if slot.login[1] not in self.keyring.data.values():
                self.fail("the login's password is not in the keyring", res)
        return slot

    def add_site(self) -> None:
        rng, world = self.rng, self.world
        site = (
            world.new_site() if not world.sites or rng.random() < 0.6 else rng.choice(world.sites)
        )
        folder, title = rng.choice(FOLDERS), rng.choice(TITLES)
        args = ["add", site.url] + (["--folder", folder] if folder else [])
        args += ["--title", title] if title else []
        before = sup.dump(self.db)
        res = self.run(self.argv(*args))
        fresh = [s for s in site.links if not self.subscribed(s.url)]
        if site.mode == "404" or not fresh:
            self.expect_fail(res, before)
            return
        if len(site.links) == 1:
            ok = self.fetch_ok(fresh[0], True)
            if ok is False or (ok is None and res.code != 0):
                self.expect_fail(res, before)
                return
            self.expect_ok(res)
            self.added_from(res, fresh, folder, title)
            return
        # several: the first fresh one that works, the rest named
        outcomes = [self.fetch_ok(s, True) for s in fresh]
        if all(o is False for o in outcomes):
            self.expect_fail(res, before)
            return
        if res.code != 0 and None in outcomes:
            self.expect_fail(res, before)
            return
        self.expect_ok(res)
        slot = self.added_from(res, fresh, folder, title)
        i = fresh.index(slot)
        if any(o is True for o in outcomes[:i]):
            self.fail(f"took {slot.url}, but an earlier linked feed works", res)
        rest = fresh[i + 1 :]
        if rest and f"the site links {len(rest)} more" not in res.out:
            self.fail(f"the {len(rest)} feeds not tried are not named", res)
        for s in rest:
            if f"<{s.url}>" not in res.out:
                self.fail(f"{s.url} not named", res)

    def add_nonsense(self) -> None:
        rng = self.rng
        server = rng.choice(self.world.servers)
        url = rng.choice(
            [*NONSENSE, server.url("/nothing-here"),
             server.url("/" + "a" * rng.randint(2000, 9000)), server.url("/" + "ü" * 300)]
        )  # fmt: skip
        before = sup.dump(self.db)
        res = self.run(
            self.argv("add", url, *(["--folder", "Never"] if rng.random() < 0.5 else []))
        )
        self.expect_fail(res, before)

    def remove(self) -> None:
        rng = self.rng
        ids = list(self.feeds)
        kind = rng.random()
        before = sup.dump(self.db)
        if kind < 0.1 and ids:
            m = self.feeds[rng.choice(ids)]
            res = self.run(self.argv("remove", m.url))
            if res.code != 2:
                self.fail("remove by address: not a usage error", res)
            self.expect_fail(res, before)
            return
        pick = rng.sample(ids, min(len(ids), rng.randint(1, 3))) if ids else []
        if pick and rng.random() < 0.3:
            pick.append(pick[0])  # twice in one command
        unknown = kind < 0.3 or not pick
        if unknown:
            pick.insert(rng.randint(0, len(pick)), max([*ids, 0]) + rng.randint(1, 50))
        args = ["remove", *map(str, pick)] + (["-y"] if rng.random() < 0.5 else [])
        counts, starred = self.counts(), self.starred()
        res = self.run(self.argv(*args))
        if unknown:
            self.expect_fail(res, before)
            if "no feed with id" not in res.err:
                self.fail("an unknown id is not named", res)
            return
        self.expect_ok(res)
        lines = res.out.splitlines()
        want = []
        for f in dict.fromkeys(pick):
            n, st = counts.get(f, 0), starred.get(f, 0)
            line = f"unsubscribed from “{self.feeds[f].title}”: {n:,} article"
            line += f"{'' if n == 1 else 's'} deleted"
            want.append(line + (f", {st:,} of them starred" if st else ""))
        if any(self.feeds[f].title is None for f in pick):
            want = [w for w in lines]  # a masked name: not checked
        if lines != want:
            self.fail(f"remove said {lines}, expected {want}", res)
        for f in dict.fromkeys(pick):
            gone = self.feeds.pop(f)
            kept = self.keyring.data if self.keyring and res.how == "in-process" else {}
            if gone.login and any(gone.url in account for _svc, account in kept):
                self.fail(f"the password of {gone.url} stays in the keyring", res)
        if rng.random() < 0.3:  # and once more: they are gone
            before = sup.dump(self.db)
            res = self.run(self.argv("remove", str(pick[0])))
            self.expect_fail(res, before)

    def import_local(self) -> None:
        rng, world = self.rng, self.world
        chosen: list[Slot] = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            pool = [s for s in world.slots if s not in chosen and s.login is None]
            if r < 0.6 or not pool:
                chosen.append(world.new_slot())
            else:
                chosen.append(rng.choice(pool))
        lines = []
        for s in chosen:
            label = (
                s.title if rng.random() < 0.6 else rng.choice(["Label ü", "Another & name", "日本"])
            )
            lines.append((s, label, rng.choice([None, "News", "Tech / Python", "ünï", "news"])))
        src = self.new_file()
        src.write_bytes(sup.local_opml([(s.url, label, folder) for s, label, folder in lines]))
        fetch = rng.random() < 0.6
        args = ["import", str(src)] + ([] if fetch else ["--no-fetch"])
        inproc = rng.random() < 0.85
        counts = self.counts()
        res = self.run(self.argv(*args), proc=not inproc)
        self.expect_ok(res)
        added = [(s, label, folder) for s, label, folder in lines if not self.subscribed(s.url)]
        report = ImportReport(added=[0] * len(added), already=len(lines) - len(added))
        if res.out.splitlines()[0] != report.summary():
            self.fail(f"summary {res.out.splitlines()[0]!r}, expected {report.summary()!r}", res)
        for s, label, folder in added:
            fid = self.id_of(s.url)
            fold = self.folder_for(folder)
            self.adopt_folder(fold)
            self.feeds[fid] = MFeed(fid, s.url, fold, name_of(label), s)
        if fetch and added:
            oks = [self.fetch_ok(s, inproc) for s, _l, _f in added]
            m = re.search(r"fetched ([\d,]+) feeds?, (\d+) failed", res.out)
            if m is None:
                self.fail("no 'fetched N feeds, M failed' line", res)
                raise AssertionError
            if None not in oks and int(m[2]) != oks.count(False):
                self.fail(f"{m[2]} failed, expected {oks.count(False)}", res)
            self.check_fetched([self.id_of(s.url) for s, _l, _f in added], inproc, counts)

    def import_gen(self) -> None:
        """Another reader's list, in-process (their hosts are not ours: not fetched)."""
        from tests.net.test_random_opml import display, model_import

        rng = self.rng
        doc = gen.random_document(rng, self.pool, [], logins=True, max_feeds=10)
        data = gen.render(doc, rng)
        exp = gen.expect(doc)
        known = {f.url for f in self.feeds.values()}
        model = model_import(
            exp, known, list(self.folders.values()), keyring_ok=self.keyring is not None
        )
        src = self.new_file()
        src.write_bytes(data)
        for s in model.added:
            if s.login is not None:
                self.secrets.append(s.login.password)
        res = self.run(self.argv("import", "--no-fetch", str(src)), proc=False)
        self.expect_ok(res)
        notes = exp.notes + len(doc.sloppy_used) + gen.lenient_decoding(data, doc)
        report = ImportReport(
            added=[0] * len(model.added), already=model.already, problems=[""] * model.problems,
            notes=[""] * notes, empty_folders=model.empty_made,
        )  # fmt: skip
        if res.out.splitlines()[0] != report.summary():
            self.fail(f"summary {res.out.splitlines()[0]!r}, expected {report.summary()!r}", res)
        for s in model.added:
            fid = self.id_of(s.ident.key)
            masked = s.login is not None and s.login.written in s.label
            title = None if masked else display(s)
            self.feeds[fid] = MFeed(
                fid, s.ident.key, model.folder_of[s.ident.key], title, None, s.login is not None
            )
        self.folders = dict(model.folders)

    def import_broken(self) -> None:
        rng = self.rng
        k = rng.randrange(6)
        if k == 0:
            target = str(self.files / "missing.opml")
        elif k == 1:
            target = str(self.files)
        elif k == 2:
            target = rng.choice(["http://127.0.0.1:9/list.opml", "feed://x.example/a.opml"])
        else:
            what, data = gen.broken_document(
                rng, sup.local_opml([("https://a.example/", "A", None)])
            )
            p = self.new_file()
            p.write_bytes(data)
            target = str(p)
            self.say(f"a broken file: {what}")
        before = sup.dump(self.db)
        res = self.run(self.argv("import", target, *(["--no-fetch"] if rng.random() < 0.5 else [])))
        self.expect_fail(res, before)

    def export(self) -> None:
        rng = self.rng
        k = rng.randrange(8)
        before = sup.dump(self.db)
        if k == 0:
            d = self.files / f"adir{self.step}"
            d.mkdir()
            res = self.run(self.argv("export", str(d)))
            self.expect_fail(res, before)
            if "it is a folder" not in res.err:
                self.fail("exporting onto a folder: no reason", res)
            return
        if k == 1:
            f = self.new_file(".txt")
            f.write_text("mine")
            res = self.run(self.argv("export", str(f / "sub" / "x.opml")))
            self.expect_fail(res, before)
            if f.read_text() != "mine":
                self.fail("the file in the way was changed", res)
            return
        if k == 2 and self.db.exists():
            self.export_read_only(before)
            return
        if k == 6 and self.db.exists() and "export-over-db" not in KNOWN:
            res = self.run(self.argv("export", str(self.db) + rng.choice(["", "-wal", "-shm"])))
            self.expect_fail(res, before)
            return
        if k in (3, 4) and self.n_files:
            dest = self.files / f"f{rng.randint(1, self.n_files)}.opml"  # over an old one
        elif k == 5:
            dest = self.files / f"new{self.step}" / "deeper" / "subs.opml"
        else:
            dest = self.new_file()
        res = self.run(self.argv("export", str(dest)))
        if not self.db.exists() and res.code != 0:
            return
        self.expect_ok(res)
        if list(dest.parent.glob("*.partial")):
            self.fail("a .partial is left beside the export", res)
        if before and sup.dump(self.db) != before:
            self.fail("export changed the database", res)
        self.check_export(dest, res)

    def export_read_only(self, before: dict[str, list[tuple[object, ...]]]) -> None:
        from tests.readonly import read_only

        ro = self.files / f"ro{self.step}"
        ro.mkdir()
        try:
            with read_only(ro):
                res = self.run(self.argv("export", str(ro / "subs.opml")))
        except pytest.skip.Exception:
            return
        self.expect_fail(res, before)
        if "cannot write" not in res.err:
            self.fail("export into a read-only folder: no reason", res)
        if list(ro.iterdir()):
            self.fail("something was left in the read-only folder", res)

    def check_export(self, dest: Path, res: CliResult) -> None:
        data = dest.read_bytes()
        for s in self.secrets_all():
            if s.encode() in data or quote(s, safe="").encode() in data:
                self.fail(f"a password in the export: {s!r}", res)
        try:
            root = ET.fromstring(data)
        except ET.ParseError as e:
            self.fail(f"the export is not well-formed: {e}", res)
            raise
        urls = sorted(o.get("xmlUrl") or "" for o in root.iter("outline") if o.get("xmlUrl"))
        if urls != sorted(f.url for f in self.feeds.values()):
            self.fail(
                f"the export names {urls}, model {sorted(f.url for f in self.feeds.values())}"
            )
        # into a fresh folder: the same subscriptions
        fresh = self.tmp / f"fresh{self.step}"
        back = run_inproc(["import", "--no-fetch", str(dest), "--data-dir", str(fresh)])
        self.check_output(back)
        if back.code != 0:
            self.fail("an export of ours does not import", back)
        if self.feeds:
            con = sup.connect_ro(fresh / DB_NAME)
            try:
                rows = con.execute(
                    "SELECT f.url, fo.name, coalesce(f.user_title, nullif(f.title, ''), f.url)"
                    " FROM feeds f LEFT JOIN folders fo ON fo.id = f.folder_id"
                ).fetchall()
            finally:
                con.close()
            got = sorted(rows, key=repr)
            want = sorted(((f.url, f.folder, f.title) for f in self.feeds.values()), key=repr)
            got = [
                (u, fo, "?" if self.subscribed(u) and self.subscribed(u).title is None else t)  # type: ignore[union-attr]
                for u, fo, t in got
            ]
            want = [(u, fo, "?" if t is None else t) for u, fo, t in want]
            if got != want:
                self.fail(f"re-imported into a fresh folder:\n got {got}\nwant {want}", back)
        shutil.rmtree(fresh, ignore_errors=True)
        # into the same folder: nothing new
        before = sup.dump(self.db)
        again = self.run(self.argv("import", str(dest)), proc=False)
        self.expect_ok(again)
        n = len(self.feeds)
        want_line = ImportReport(already=n).summary()
        if again.out.splitlines()[0] != want_line:
            self.fail(
                f"re-import said {again.out.splitlines()[0]!r}, expected {want_line!r}", again
            )
        if sup.dump(self.db) != before:
            self.fail("re-importing our own export changed the database", again)

    def update(self) -> None:
        rng = self.rng
        local = self.local_ids()
        k = rng.random()
        before = sup.dump(self.db)
        counts = self.counts()
        inproc = rng.random() < 0.8
        if k < 0.15 or not self.db.exists():
            bad = max([*self.feeds, 0]) + rng.randint(1, 9)
            ids = [str(bad)] + [str(i) for i in rng.sample(local, min(1, len(local)))]
            res = self.run(self.argv("update", *ids), proc=not inproc)
            self.expect_fail(res, before)
            if "no feed with id" not in res.err:
                self.fail("an unknown id is not named", res)
            return
        if k < 0.3 and not self.foreign():
            res = self.run(self.argv("update", "--due"), proc=not inproc)
            if res.code not in (0, 1):
                self.fail("update --due: an exit status other than 0 or 1", res)
            return
        if k < 0.6 and not self.foreign():
            asked = sorted(self.feeds)
            res = self.run(self.argv("update"), proc=not inproc)
        else:
            if not local:
                return
            asked = rng.sample(local, rng.randint(1, len(local)))
            res = self.run(self.argv("update", *map(str, asked)), proc=not inproc)
        oks = [self.fetch_ok(self.feeds[f].slot, inproc) for f in asked]  # type: ignore[arg-type]
        if None not in oks:
            want_code = 1 if oks and not any(oks) else 0
            if res.code != want_code:
                self.fail(f"exit status {res.code}, expected {want_code}", res)
            m = re.search(
                r"updated ([\d,]+) feeds? in [\d.]+ s: ([\d,]+) new entr(?:y|ies), (\d+) failed",
                res.out,
            )
            if (
                m is None
                or int(m[1].replace(",", "")) != len(asked)
                or int(m[3]) != oks.count(False)
            ):
                self.fail(f"expected {len(asked)} feeds, {oks.count(False)} failed", res)
            after = self.counts()
            new = sum(after.get(f, 0) - counts.get(f, 0) for f in asked)
            if int(m[2].replace(",", "")) != new:
                self.fail(f"said {m[2]} new entries, the database got {new}", res)
        self.check_fetched(asked, inproc, counts)

    def check_fetched(self, asked: list[int], inproc: bool, counts: dict[int, int]) -> None:
        rows = self.db_feeds()
        uids = sup.entry_uids(self.db)
        for fid in asked:
            slot = self.feeds[fid].slot
            assert slot is not None
            ok = self.fetch_ok(slot, inproc)
            have = uids.get(fid, set())
            err = rows[fid][4]
            if ok:
                missing = {g for g, _t, _w in slot.current()} - have
                if missing or err:
                    self.fail(f"feed {fid} ({slot.mode}) fetched fine but lacks {missing} / {err}")
            elif ok is False:
                if not err:
                    self.fail(f"feed {fid} ({slot.mode}) failed but shows no error")
                if len(have) != counts.get(fid, 0):
                    self.fail(f"feed {fid} failed but its articles changed")

    def list_feeds(self) -> None:
        as_json = self.rng.random() < 0.5
        res = self.run(self.argv("feeds", *(["--json"] if as_json else [])))
        if not self.db.exists() and not self.feeds:
            self.expect_ok(res)
            return
        self.expect_ok(res)
        rows = self.db_feeds()
        unread = self.unread()
        if as_json:
            got = json.loads(res.out)
            want = [
                {"id": fid, "url": r[0], "folder": r[1], "title": r[2],
                 "unread": unread.get(fid, 0), "error": r[4]}
                for fid, r in sorted(rows.items())
            ]  # fmt: skip
            keys = ("id", "url", "folder", "title", "unread", "error")
            got = sorted(({k: g[k] for k in keys} for g in got), key=lambda g: g["id"])
            if got != want:
                self.fail(f"feeds --json:\n got {got}\nwant {want}", res)
            return
        if not rows:
            if res.out != "" or "no subscriptions yet" not in res.err:
                self.fail("feeds with no subscriptions: stdout not empty or no hint", res)
            return
        lines = []
        for fid, r in sorted(rows.items(), key=lambda kv: kv[0]):
            folder = f"{r[1]}/" if r[1] else ""
            flag = " !" if r[4] else ""
            lines.append(f"[{fid:>4}] {folder}{r[2]} ({unread.get(fid, 0)} unread){flag}")
            if r[4]:
                lines.append(f"       error: {r[4]}")
        got_lines = res.out.splitlines()
        if sorted(got_lines) != sorted(lines):
            self.fail(f"feeds:\n got {got_lines}\nwant {lines}", res)

    def unread(self) -> dict[int, int]:
        con = sup.connect_ro(self.db)
        try:
            return dict(
                con.execute("SELECT feed_id, count(*) FROM entries WHERE read = 0 GROUP BY feed_id")
            )
        finally:
            con.close()

    def entries(self) -> None:
        rng = self.rng
        args = ["entries"]
        feed_ids: list[int] = []
        unknown = False
        if self.feeds and rng.random() < 0.4:
            feed_ids = rng.sample(list(self.feeds), min(len(self.feeds), rng.randint(1, 2)))
        if rng.random() < 0.1:
            feed_ids.append(max([*self.feeds, 0]) + 7)
            unknown = True
        for f in feed_ids:
            args += ["--feed", str(f)]
        unread, starred = rng.random() < 0.3, rng.random() < 0.2
        word = rng.choice(sup.WORDS) if rng.random() < 0.3 else None
        odd = None if word or rng.random() < 0.85 else rng.choice(ODD_SEARCHES)
        limit = rng.choice([None, 1, 3, 1000])
        args += ["--unread"] * unread + ["--starred"] * starred
        args += ["--search", word] if word else []
        args += ["--search", odd] if odd is not None else []
        args += ["--limit", str(limit)] if limit else []
        as_json = rng.random() < 0.6
        args += ["--json"] * as_json
        before = sup.dump(self.db)
        res = self.run(self.argv(*args))
        if unknown:
            self.expect_fail(res, before)
            return
        self.expect_ok(res)
        if not self.db.exists():
            return
        con = sup.connect_ro(self.db)
        try:
            rows = con.execute("SELECT id, feed_id, title, read, starred FROM entries").fetchall()
        finally:
            con.close()
        want = {
            r[0]
            for r in rows
            if (not feed_ids or r[1] in feed_ids)
            and (not unread or not r[3])
            and (not starred or r[4])
            and (word is None or word.casefold() in r[2].casefold())
        }
        if odd is not None:  # what FTS syntax means is not modelled: a subset, no error
            n_ok = len(json.loads(res.out)) if as_json else len(res.out.splitlines())
            if n_ok > (limit or 50):
                self.fail("entries --search: more than the limit", res)
            return
        n = limit or 50
        if as_json:
            got = [e["id"] for e in json.loads(res.out)]
        else:
            got = [int(m[1]) for m in re.finditer(r"^.. \[\s*(\d+)\] ", res.out, re.M)]
            if len(got) != len(res.out.splitlines()):
                self.fail("entries: lines that are not entries", res)
        if len(got) != min(n, len(want)) or not set(got) <= want or len(set(got)) != len(got):
            self.fail(f"entries: got {len(got)} {sorted(got)[:10]}, want {min(n, len(want))} of "
                      f"{sorted(want)[:10]}", res)  # fmt: skip

    def star(self) -> None:
        """A Store opened by the test (as the app would be) stars some articles."""
        if not self.db.exists():
            return
        with Store(self.db) as store:
            ids = store.entry_ids(limit=1000)
            if ids:
                pick = self.rng.sample(ids, min(len(ids), 3))
                store.set_starred(pick, self.rng.random() < 0.8)
        self.say("starred some articles through a Store")

    def backup(self) -> None:
        rng = self.rng
        k = rng.randrange(7)
        before = sup.dump(self.db)
        if k == 0:
            res = self.run(self.argv("backup", str(self.files)))
            self.expect_fail(res, before)
            return
        if k == 1 and self.db.exists():
            res = self.run(self.argv("backup", str(self.db)))
            self.expect_fail(res, before)
            return
        if k == 2:
            f = self.new_file(".txt")
            f.write_text("mine")
            res = self.run(self.argv("backup", str(f / "b.sqlite3")))
            self.expect_fail(res, before)
            return
        dest = {
            3: self.files / "backup.sqlite3",  # over the last one
            4: self.files / f"bk{self.step}" / "x" / "b.sqlite3",
        }.get(k, self.new_file(".sqlite3"))
        res = self.run(self.argv("backup", str(dest)))
        self.expect_ok(res)
        if not res.out.rstrip().endswith(f"backup written to {dest}"):
            self.fail("backup: no 'backup written to' line", res)
        if sup.integrity(dest) != "ok":
            self.fail("the backup fails its integrity check", res)
        con = sup.connect_ro(dest)
        try:
            got = sorted(con.execute("SELECT id, url FROM feeds").fetchall())
        finally:
            con.close()
        if got != sorted((f.id, f.url) for f in self.feeds.values()):
            self.fail(f"the backup holds {got}", res)
        data = dest.read_bytes()
        for s in self.secrets_all():
            if s.encode() in data:
                self.fail(f"a password in the backup: {s!r}", res)
        if before and sup.dump(self.db) != before:
            self.fail("backup changed the database", res)

    def explain(self) -> None:
        rng = self.rng
        before = sup.dump(self.db)
        as_json = rng.random() < 0.3
        if not self.feeds or rng.random() < 0.25:
            fid = max([*self.feeds, 0]) + rng.randint(1, 5)
            res = self.run(self.argv("explain", str(fid), *(["--json"] * as_json)))
            self.expect_fail(res, before)
            if "no feed with id" not in res.err:
                self.fail("an unknown id is not named", res)
            return
        fid = rng.choice(list(self.feeds))
        res = self.run(self.argv("explain", str(fid), *(["--json"] * as_json)))
        self.expect_ok(res)
        m = self.feeds[fid]
        if as_json:
            if len(json.loads(res.out)["lambda_week"]) != 168:
                self.fail("explain --json: no λ week", res)
        elif m.title is not None and res.out.splitlines()[0] != f"[{fid}] {m.title} <{m.url}>":
            self.fail("explain: the first line does not name the feed", res)

    def budget(self) -> None:
        rng = self.rng
        before = sup.dump(self.db)
        k = rng.random()
        if k < 0.3:
            res = self.run(self.argv("budget"))
            self.expect_ok(res)
        elif k < 0.65:
            n = rng.choice([1, 2, 7, 96, 500, 1000, 12345, 99999, 100000])
            text = rng.choice([str(n), f"{n}.0", f"{n:.1e}" if n == 100000 else str(n)])
            res = self.run(self.argv("budget", text))
            self.expect_ok(res)
            self.budget_n = n
        else:
            bad = rng.choice(["0", "-5", "100001", "1e9", "1.5", "nan", "inf", "-inf", "abc",
                              "", "0x10", "1,000", "-0"])  # fmt: skip
            res = self.run(self.argv("budget", bad))
            self.expect_fail(res, before)
            return
        want = f"budget {self.budget_n:,} request{'' if self.budget_n == 1 else 's'}/day, "
        if not res.out.startswith(want):
            self.fail(f"budget: expected {want!r}", res)
        if re.search(r"\b(inf|nan)\b", res.out) and ("budget-inf" not in KNOWN or self.feeds):
            self.fail("budget: a number that is no number", res)

    def cleanup(self) -> None:
        rng = self.rng
        args = ["cleanup"]
        good = rng.random() < 0.7
        read = rng.choice(
            [None, None, "0", "0.5", "1", "30", "90", "36500"] if good
            else ["-1", "36501", "nan", "inf", "abc", "1e400"]
        )  # fmt: skip
        unread = rng.choice([None, None, "0", "2", "365", *([] if good else ["-0.5", "1e6"])])
        if read is not None:
            args += ["--read-days", read]
        if unread is not None:
            args += ["--unread-days", unread]
        compact = rng.random() < 0.3
        args += ["--compact"] * compact
        before = sup.dump(self.db)
        counts = self.counts()
        res = self.run(self.argv(*args))

        def valid(v: str | None) -> bool:
            try:
                return v is None or 0 <= float(v) <= 36500
            except ValueError:
                return False

        if not (valid(read) and valid(unread)):
            self.expect_fail(res, before)
            return
        self.expect_ok(res)
        if read is not None:
            self.read_days = float(read)
        if unread is not None:
            self.unread_days = float(unread)

        def keep(d: float) -> str:
            return "always" if d <= 0 else f"{d:g} day{'' if f'{d:g}' == '1' else 's'}"

        total = sum(counts.values())
        want = (
            f"deleted 0 read and 0 unread articles; {total} kept (read ones are kept "
            f"{keep(self.read_days)}, unread ones {keep(self.unread_days)}, starred ones always)"
        )
        if res.out.splitlines()[0] != want:
            self.fail(f"cleanup: expected {want!r}", res)
        if compact and "compacted the database" not in res.out:
            self.fail("cleanup --compact: not said", res)

    def misc(self) -> None:
        rng = self.rng
        before = sup.dump(self.db)
        d = str(self.data)
        argv = rng.choice(
            [["--version"], ["frobnicate"], ["add"], ["remove"], ["backup"], ["explain"],
             ["explain", "abc"], ["entries", "--limit", "0"], ["entries", "--limit", "x"],
             ["replay", "x.csv"], ["update", "one"], ["import"], ["export"], ["--data-dir"],
             ["feeds", "--nope"], ["budget", "1", "2"], ["cleanup", "--read-days"],
             *([] if "huge-id" in KNOWN else
               [["remove", BIG], ["explain", BIG], ["update", BIG], ["entries", "--feed", BIG],
                ["entries", "--limit", BIG]])]
        )  # fmt: skip
        if argv == ["--version"]:
            res = self.run(argv)
            self.expect_ok(res)
            if not res.out.startswith("smartreader "):
                self.fail("--version", res)
            return
        if argv[0] == "replay":
            argv = ["replay", "--data-dir", d, *argv[1:]]
        elif argv != ["--data-dir"]:
            argv = [*argv, "--data-dir", d]
        res = self.run(argv)
        if res.code != 2 and BIG not in argv:
            self.fail("a malformed command line: not exit status 2", res)
        self.expect_fail(res, before)

    # -- events ---------------------------------------------------------------------

    def lock_held(self) -> None:
        """Another program writes for a moment: a write command waits for it."""
        if not self.db.exists():
            return
        n = self.rng.choice([3, 50, 777])
        secs = self.rng.uniform(0.3, 1.5)
        with sup.write_lock_held(self.db, secs):
            res = self.run(self.argv("budget", str(n)), proc=False)
        self.expect_ok(res)
        self.budget_n = n

    def concurrent(self) -> None:
        """Two processes at once on one data folder."""
        rng, world = self.rng, self.world
        a, b = world.new_slot(), world.new_slot()
        n = rng.choice([11, 222])
        local = self.local_ids()
        victim = rng.choice(local) if local else None
        pairs = {
            "add+add": (["add", a.url], ["add", b.url]),
            "add-same": (["add", a.url], ["add", a.url]),
            "add+budget": (["add", a.url], ["budget", str(n)]),
            "update+feeds": (["update", *map(str, local)] if local else ["feeds"], ["feeds"]),
            "remove+update": (
                (["remove", "-y", str(victim)], ["update", str(victim)])
                if victim
                else (["feeds"], ["entries"])
            ),
            "compact+entries": (["cleanup", "--compact"], ["entries", "--json"]),
        }
        name = rng.choice(sorted(pairs))
        first, second = pairs[name]
        p1 = sup.start_proc(self.argv(*first))
        p2 = sup.start_proc(self.argv(*second))
        r1 = sup.finish_proc(p1, first)
        r2 = sup.finish_proc(p2, second)
        for r in (r1, r2):
            self.say(f"concurrently ({name}): {' '.join(r.argv)} -> {r.code}")
            self.check_output(r)
        if name == "add-same":
            if self.fetch_ok(a, False) and sorted((r1.code, r2.code)) != [0, 1]:
                self.fail("one address added twice at once: not one success and one refusal", r2)
            for r in (r1, r2):
                if r.code == 0:
                    self.added_from(r, [a], None, None)
            return
        for r, argv in ((r1, first), (r2, second)):
            if argv[0] == "add":
                slot = a if argv[1] == a.url else b
                if self.fetch_ok(slot, False):
                    self.expect_ok(r)
                if r.code == 0:
                    self.added_from(r, [slot], None, None)
            elif argv[0] == "budget":
                self.expect_ok(r)
                self.budget_n = n
            elif argv[0] in ("feeds", "entries", "cleanup"):
                self.expect_ok(r)
            elif argv[0] == "remove":
                self.expect_ok(r)
                del self.feeds[int(argv[2])]
            elif r.code not in (0, 1):  # update: its feed may be gone meanwhile
                self.fail("update: exit status", r)

    def read_only_dir(self) -> None:
        """The data folder on a read-only mount: reads work (and say so), writes
        fail with one line, nothing changes."""
        from tests.readonly import read_only

        if not self.db.exists():
            return
        before = sup.dump(self.db)
        out = self.files / f"ro-out{self.step}.opml"
        try:
            with read_only(self.data):
                reads = [
                    self.run(self.argv("feeds", "--json")),
                    self.run(self.argv("entries", "--limit", "5")),
                    self.run(self.argv("export", str(out))),
                    self.run(self.argv("backup", str(self.new_file(".sqlite3")))),
                ]
                writes = [
                    self.run(self.argv("budget", "5")),
                    self.run(self.argv("cleanup", "--read-days", "3")),
                    self.run(self.argv("remove", "-y", *map(str, list(self.feeds)[:1] or ["1"]))),
                    self.run(self.argv("add", self.world.new_slot().url)),
                    self.run(self.argv("import", "--no-fetch", str(out))),
                ]
        except pytest.skip.Exception:
            return
        for r in reads:
            self.expect_ok(r)
            if "read-only" not in r.err:
                self.fail("a read on a read-only folder does not say so", r)
        for r in writes:
            self.expect_fail(r, before)
            if "read-only" not in r.err:
                self.fail("a write on a read-only folder: not said why", r)
        self.check_export(out, reads[2])

    def data_dir_is_a_file(self) -> None:
        f = self.new_file(".txt")
        f.write_text("not a folder")
        cmd = self.rng.choice([["feeds"], ["budget", "5"], ["add", "http://127.0.0.1:1/x"],
                               ["export", str(self.new_file())], ["entries"]])  # fmt: skip
        res = self.run([*cmd, "--data-dir", str(f)])
        if res.code != 1 or "a file is in the way" not in res.err:
            self.fail("a data folder that is a file: not one clear line", res)
        if f.read_text() != "not a folder":
            self.fail("the file in the way was changed", res)

    def damaged_copy(self) -> None:
        """A copy of the data folder whose database is damaged: every command says
        so in one line and leaves the file as it was (nothing recoverable lost)."""
        if not self.db.exists():
            return
        rng = self.rng
        copy = self.tmp / f"damaged{self.step}"
        shutil.copytree(self.data, copy)
        db = copy / DB_NAME
        raw = bytearray(db.read_bytes())
        where = "header" if "damaged-db" in KNOWN or rng.random() < 0.5 else "pages"
        if where == "header":
            raw[0:16] = b"Not SQLite, no. "
        else:
            for i in range(4096, min(len(raw), 4096 * 3)):
                raw[i] = 0x55
        db.write_bytes(bytes(raw))
        cmd = rng.choice(
            [["feeds"], ["budget", "9"], ["entries"], ["export", str(self.new_file())],
             ["update"], ["cleanup"], ["backup", str(self.new_file(".sqlite3"))]]
        )  # fmt: skip
        res = self.run([*cmd, "--data-dir", str(copy)], proc=True)
        if res.code != 1 or "damaged" not in res.err:
            self.fail(f"a database damaged in its {where}: not one clear line", res)
        if db.read_bytes() != bytes(raw):
            self.fail("the damaged database was changed", res)
        shutil.rmtree(copy)

    def foreign_locale(self) -> None:
        """A read command in a process whose output cannot write every character."""
        env = self.rng.choice(["LC_ALL=C", "latin-1"])
        cmd = self.rng.choice([["feeds"], ["feeds", "--json"], ["entries"], ["budget"],
                               ["explain", str(next(iter(self.feeds), 1))]])  # fmt: skip
        before = sup.dump(self.db)
        res = self.run(self.argv(*cmd), proc=True, env=env)
        if "UnicodeEncodeError" in res.err and "non-utf8-output" in KNOWN:
            return  # tolerated (check_output), see KNOWN
        if cmd[0] == "explain" and not self.feeds:
            self.expect_fail(res, before)
            return
        self.expect_ok(res)
        if sup.dump(self.db) != before and cmd[0] in ("feeds", "entries"):
            self.fail("a read changed the database", res)

    # -- the session ----------------------------------------------------------------

    def actions(self) -> list[tuple[float, Callable[[], None]]]:
        return [
            (10, self.add_feed), (4, self.add_site), (3, self.add_nonsense), (4, self.remove),
            (4, self.import_local), (3, self.import_gen), (2, self.import_broken),
            (4, self.export), (7, self.update), (4, self.list_feeds), (4, self.entries),
            (2, self.star), (3, self.backup), (3, self.explain), (4, self.budget),
            (4, self.cleanup), (3, self.misc),
        ]  # fmt: skip

    def events(self) -> list[Callable[[], None]]:
        return [
            self.lock_held, self.concurrent, self.read_only_dir, self.data_dir_is_a_file,
            self.damaged_copy, self.foreign_locale,
        ]  # fmt: skip

    def play(self, steps: int) -> None:
        # A deck of the commands (the common ones more than once), shuffled, dealt
        # in turn and dealt again: every command comes up in a short session.
        deck: list[Callable[[], None]] = []
        events = self.events()
        self.say("-- add_feed (a login, first)")
        self.add_feed(login=True)
        self.check_store()
        for self.step in range(1, steps):
            changed = self.world.mutate()
            if changed:
                self.say(f"world: {', '.join(changed)}")
            if self.step % 5 == 4 and self.db.exists():  # now and then, something odd
                act = self.rng.choice(events)
            else:
                if not deck:
                    deck = [a for w, a in self.actions() for _ in range(1 + int(w) // 5)]
                    self.rng.shuffle(deck)
                act = deck.pop()
            self.say(f"-- {act.__name__}")
            act()
            self.check_store()
        # the end: an export re-imports to the same subscriptions
        self.step += 1
        dest = self.new_file()
        res = self.run(self.argv("export", str(dest)), proc=False)
        if self.db.exists():
            self.expect_ok(res)
            self.check_export(dest, res)
        self.check_store()
        # and every feed removed at once: nothing left, no password left behind
        if self.feeds:
            res = self.run(self.argv("remove", "-y", *map(str, self.feeds)), proc=False)
            self.expect_ok(res)
            kept = self.keyring.data if self.keyring is not None else {}
            for f in list(self.feeds.values()):
                del self.feeds[f.id]
                if f.login and any(f.url in account for _svc, account in kept):
                    self.fail(f"the password of {f.url} stays in the keyring", res)
            self.check_store()


@pytest.mark.parametrize("seed", _seeds())
def test_random_cli_session(tmp_path, seed):
    keyring = MemoryKeyring() if seed % 2 == 0 else None
    with FeedServer() as a, FeedServer() as b:
        session = Session(tmp_path, seed, [a, b], keyring)
        if keyring is not None:
            with installed(keyring):
                session.play(STEPS)
        else:
            session.play(STEPS)
    if os.environ.get("RANDOM_CLI_VERBOSE"):
        print("\n".join(session.log))


# -- what the sessions found ----------------------------------------------------


def _data_with_a_feed(tmp_path: Path, title: str = "Café 日本 “news”") -> Path:
    """A data folder holding one feed (id 1) named ``title`` with three articles."""

    from smartreader.core.models import ParsedEntry
    from smartreader.storage.store import FetchRecord

    data = tmp_path / "data"
    now = time.time()
    with Store(data / DB_NAME) as store:
        fid = store.add_feed("http://127.0.0.1:9/feed.xml", title=title, now=now - 60)
        ents = [
            ParsedEntry(f"e{i}", f"Entry {i} → ünï", None, "", now - i, None, "", "")
            for i in range(3)
        ]
        store.record_fetch(FetchRecord(fid, now, "ok", http_status=200, entries=ents))
    return data


@pytest.mark.parametrize("env", ["LC_ALL=C", "latin-1"])
@pytest.mark.parametrize("command", [["feeds"], ["explain", "1"], ["remove", "-y", "1"]])
def test_output_the_locale_cannot_encode_is_no_traceback(tmp_path, env, command):
    data = _data_with_a_feed(tmp_path)
    res = run_proc(["--data-dir", str(data), *command], env)
    assert "Traceback" not in res.err, res
    assert res.code == 0, res


def _damage_table(db: Path, table: str) -> bytes:
    """Overwrite the root page of ``table`` (its header intact, so the file still
    opens); returns the file's bytes after."""
    con = sqlite3.connect(db)
    try:
        page = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        size = con.execute("PRAGMA page_size").fetchone()[0]
    finally:
        con.close()
    raw = bytearray(db.read_bytes())
    start = (page[0] - 1) * size
    raw[start : start + size] = b"\x55" * size
    db.write_bytes(bytes(raw))
    return bytes(raw)


def test_a_damaged_database_is_one_line_not_a_traceback(tmp_path):
    data = _data_with_a_feed(tmp_path)
    raw = _damage_table(data / DB_NAME, "feeds")
    res = run_proc(["export", str(tmp_path / "out.opml"), "--data-dir", str(data)])
    assert "Traceback" not in res.err, res
    assert res.code == 1 and "damaged" in res.err, res
    assert (data / DB_NAME).read_bytes() == raw


def test_a_damaged_database_is_not_written(tmp_path):
    data = _data_with_a_feed(tmp_path)
    raw = _damage_table(data / DB_NAME, "entries")
    res = run_proc(["budget", "5", "--data-dir", str(data)])
    assert (data / DB_NAME).read_bytes() == raw, f"the damaged file was written\n{res}"
    assert res.code == 1 and "damaged" in res.err, res


@pytest.mark.parametrize(
    "command",
    [["remove", "-y", BIG], ["explain", BIG], ["update", BIG], ["entries", "--feed", BIG],
     ["entries", "--limit", BIG]],
)  # fmt: skip
def test_a_huge_number_is_one_line(tmp_path, command):
    data = _data_with_a_feed(tmp_path)
    try:
        res = run_inproc([*command, "--data-dir", str(data)])
    except Exception as e:
        pytest.fail(f"{e!r} escaped main")
    assert res.code in (1, 2) and "smartreader" in res.err, res


def test_an_empty_data_dir_does_not_fall_back_to_the_users_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("SMARTREADER_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # where the default would be
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    res = run_inproc(["remove", "-y", "1", "--data-dir", ""])
    assert not (tmp_path / "xdg").exists(), f"the default data folder was used\n{res}"
    assert res.code != 0, res


@pytest.mark.parametrize("suffix", ["", "-wal"])
def test_an_export_onto_the_database_itself_is_refused(tmp_path, suffix):
    data = _data_with_a_feed(tmp_path)
    db = data / DB_NAME
    before = sup.dump(db)
    res = run_inproc(["export", f"{db}{suffix}", "--data-dir", str(data)])
    try:
        after = sup.dump(db)
    except sqlite3.DatabaseError as e:  # the file is the OPML now
        after = {"error": [(str(e),)]}
    assert after == before, f"the database lost its rows\n{res}"
    assert res.code == 1 and "cannot write" in res.err, res


def test_budget_with_no_feeds_prints_no_infinity(tmp_path):
    Store(db_path(str(tmp_path / "data"))).close()  # an empty database
    res = run_inproc(["budget", "--data-dir", str(tmp_path / "data")])
    assert res.code == 0, res
    assert not re.search(r"\b(inf|nan)\b", res.out), res
