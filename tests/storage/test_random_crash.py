"""Seeded random crash sessions of the storage layer (SIGKILL at any moment).

``tests/e2e/test_kill_update.py`` kills ``update`` alone; here every other writer
runs too, mixed: a child process (``random_crash_child.py``) opens a real Store on
a data folder as the app does and performs a random sequence of real operations
(adding feeds into folders, updates from a local HTTP server, read/star flags,
mark-all-read, rename, move, folder add/rename/delete, unsubscribe and its undo,
settings, OPML imports, the daily purge and ``purge_old`` in small batches, rolling
backups, compaction (VACUUM), alert dismissal, a restart), printing a line before
each operation and one after it committed, with a hash of the database's logical
content. The parent kills it at a random moment: a random delay, a random few
ms after a given line, or at an exact point it chooses and the child arms: the Nth
SQLite progress callback of the writer connection or the Nth transaction of the
session, or the same counted within one chosen operation (so every kind of
operation gets kills inside its transactions, between two of them, and after its
last commit before it was reported). Then it reopens the folder as the app does
(``walguard``, ``recovery.diagnose``, ``Store``, an ``Updater`` reading the
scheduler state back and explaining every feed) and checks:

* it opens without a problem, no WAL of ours is set aside, ``integrity_check``
  and ``foreign_key_check`` pass, FTS5 ``integrity-check`` passes and the index
  holds exactly what the triggers make of the articles (FTS5's own check against
  the content table cannot be used: the index holds content and summary);
* the content is exactly what the last reported operation left, or, killed inside
  one, what it leaves when it completes: the parent replays the session on a copy
  of the folder as it was before the round (the session is deterministic: seeded,
  fake clock, documents by round; the replay must report the same hashes) to get
  that state. Only operations made of several transactions by design may end in
  between, and then only one unit at a time: a feed's fetch (``update``), an
  article with its identity left behind (purge), a feed (OPML import, whose feeds
  are committed one by one), a setting (Settings' OK saves them one by one);
* no file other than the database's own, complete verified backups (at most
  ``keep`` + 1) and the one ``.partial`` the next backup removes is left over;
  every file named as a backup is a good database at the current schema;
* the next round continues on that folder.

Also: kills (one to three) during the upgrade of golden databases (``golden/``),
then the upgrade completes with nothing lost and a whole copy of the old file
kept; kills during ``make_backup`` (copying, checking, renaming, pruning) never
leave a file named as a backup that is not a complete, verified copy.

What the sessions found is pinned by the tests at the end.

Committed form: a few fixed seeds. More: ``RANDOM_CRASH_SEEDS=100-199`` (or
``5,7,9``; also the upgrade and backup tests), ``RANDOM_CRASH_ROUNDS=8``.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from smartreader.storage import backups, recovery, walguard
from smartreader.storage.schema import SCHEMA_VERSION
from smartreader.storage.store import DB_NAME, PARTIAL, Store
from tests.httpserver import FeedServer, RecordedRequest, Reply
from tests.shared import seeds_from_env
from tests.storage import random_crash_child as child_mod
from tests.storage.fts_check import index_problems
from tests.storage.golden import make as golden

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("random_crash_child.py")
GOLDEN = Path(__file__).parent / "golden"
SEEDS = seeds_from_env("RANDOM_CRASH_SEEDS", [1, 2, 3])
# the upgrade and backup kills: fewer seeds unless asked for more
UPGRADE_SEEDS = seeds_from_env("RANDOM_CRASH_SEEDS", [1, 2])
BACKUP_SEEDS = seeds_from_env("RANDOM_CRASH_SEEDS", [1])
ROUNDS = int(os.environ.get("RANDOM_CRASH_ROUNDS", "3"))
OPS = 20  # operations a round asks of its child (most rounds are killed before)
CHILD_DEADLINE = 90.0  # s; a round takes one or two
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO)}
# Operations of several transactions by design: the groups that must be whole.
PER_FEED = {"update", "import"}
PER_ARTICLE = {"purge"}
# Settings saved one key per transaction, as Settings' OK does (``gui/settings.py``
# ``accept``: the read and unread limits, budget, interval, each on its own).
PER_ROW = {"setting"}


# ---------------------------------------------------------------- the feed server


class Farm:
    """Feed ``n`` in round ``gen``: 8 items, a window that moves 3 items a round,
    some titles edited each round; an ETag by round (a second fetch gets a 304);
    one feed in nine answers 500 in a round. A pure function of (n, gen): the
    replay of a round sees what the killed child saw."""

    def __init__(self) -> None:
        self.gen = 0

    def reply(self, n: int, req: RecordedRequest) -> Reply:
        gen = self.gen
        if (n + gen) % 9 == 0:
            return Reply(status=500, body=b"busy")
        etag = f'"g{gen}-n{n}"'
        if req.header("if-none-match") == etag:
            return Reply(status=304, headers={"ETag": etag})
        start = child_mod.T0 + gen * child_mod.ROUND_SPAN
        items = []
        for j in range(3 * gen, 3 * gen + 8):
            title = f"Item {j} of feed {n}" + (f" (edited in round {gen})" if j % 4 == 0 else "")
            items.append(
                f"<item><guid>f{n}-i{j}</guid><title>{title}</title>"
                f"<link>http://127.0.0.1/{n}/{j}</link>"
                f"<pubDate>{formatdate(start - 3600.0 * (8 - j + 3 * gen), usegmt=True)}</pubDate>"
                f"<description>Lorem ipsum {n} {j} dolor sit amet straße café</description></item>"
            )
        body = (
            f'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed {n}</title>'
            f"<link>http://127.0.0.1/{n}/</link>{''.join(reversed(items))}</channel></rss>"
        ).encode()
        return Reply(body=body, headers={"ETag": etag, "Content-Type": "application/rss+xml"})


@pytest.fixture(scope="module")
def farm() -> Any:
    f = Farm()
    with FeedServer() as server:
        for n in range(child_mod.MAX_FEEDS):
            server.route(f"/f/{n}.xml", lambda req, n=n: f.reply(n, req))
        yield f, server.port


# ---------------------------------------------------------------- running a child


@dataclass
class Run:
    lines: list[str]
    returncode: int
    stderr: str
    killed: bool = field(init=False)

    def __post_init__(self) -> None:
        self.killed = self.returncode == -signal.SIGKILL

    def parsed(self, tag: str) -> list[list[str]]:
        out = []
        for line in self.lines:
            parts = line.rstrip("\n").split(" ", 4)
            if parts and parts[0] == tag:
                out.append(parts)
        return out

    def committed(self) -> dict[int, str]:
        """Operation index → snapshot hash, of every operation reported committed."""
        return {int(p[1]): p[3] for p in self.parsed("C") if len(p) >= 4}

    def began(self) -> dict[int, str]:
        return {int(p[1]): p[2] for p in self.parsed("B") if len(p) >= 3}

    def snaps(self) -> dict[int, dict[str, Any]]:
        out = {}
        for line in self.lines:
            if line.startswith("S "):
                _, i, text = line.split(" ", 2)
                out[int(i)] = json.loads(text)
        return out


def run_child(
    cfg: dict[str, Any],
    *,
    kill_when: tuple[str, int, float] | None = None,
    kill_after: float | None = None,
    err: Path,
) -> Run:
    """Run the child; the parent's own kills: at line ``(tag, index, extra delay)``
    or ``kill_after`` seconds from the start."""
    with err.open("w") as e:
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), json.dumps(cfg)],
            stdout=subprocess.PIPE,
            stderr=e,
            env=ENV,
            text=True,
            cwd=REPO,
        )
    hung = threading.Event()

    def stall() -> None:
        hung.set()
        proc.kill()

    watchdog = threading.Timer(CHILD_DEADLINE, stall)
    watchdog.start()
    timer = None
    if kill_after is not None:
        timer = threading.Timer(kill_after, lambda: proc.send_signal(signal.SIGKILL))
        timer.start()
    lines: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line)
            if kill_when is not None:
                tag, index, extra = kill_when
                parts = line.split(" ", 2)
                if parts[0] == tag and len(parts) > 1 and parts[1] == str(index):
                    if extra:
                        time.sleep(extra)
                    proc.send_signal(signal.SIGKILL)
                    kill_when = None
        proc.wait(timeout=60)
    finally:
        watchdog.cancel()
        if timer is not None:
            timer.cancel()
        proc.stdout.close()
    stderr = err.read_text()
    assert not hung.is_set(), f"child hung for {CHILD_DEADLINE} s\n{stderr[-3000:]}"
    return Run(lines, proc.returncode, stderr)


# ---------------------------------------------------------------- reopening as the app


def reopen_as_app(data: Path) -> Store:
    """What ``gui/app.py`` ``AppController.open`` does with the data folder (the
    lock aside): a stray WAL set aside, diagnose, then the Store. A WAL a crash
    left is ours: it must be applied, never set aside."""
    db = data / DB_NAME
    stray = walguard.before_open(db, backups.backups_dir(db))
    assert stray is None, f"the crash's own WAL was set aside as stray: {stray}"
    problem = recovery.diagnose(db)
    assert problem is None, f"start-up problem after a crash: {problem}"
    store = Store(db)
    assert store.stray_wal is None
    return store


def check_database(store: Store) -> None:
    assert store.integrity_check() == "ok"
    assert store._q("PRAGMA foreign_key_check") == []
    with store._lock:
        db = store._db
        assert index_problems(db) == [], "the full-text index does not match the articles"


def check_scheduler_loads(store: Store, clock: float) -> None:
    """The learned state of every feed loads into the real Scheduler and explains."""
    from smartreader.updater import Updater

    up = Updater(store, now=lambda: clock, max_workers=1)
    try:
        for f in store.feeds():
            if f.status == "active":
                assert up.explain(f.id).feed_id == f.id
        up.summary()
    finally:
        up.close()


_OURS = re.compile(
    rf"^{re.escape(DB_NAME)}(-wal|-shm|\.closed)?$"  # the database's own files
)


def leftovers(data: Path) -> list[str]:
    """The files that should not be there in the data folder."""
    bad: list[str] = []
    for p in sorted(data.iterdir()):
        if p.is_dir() and p.name == "backups":
            continue
        if not _OURS.match(p.name):
            bad.append(p.name)
    folder = backups.backups_dir(data / DB_NAME)
    if folder.is_dir():
        good = {b.path.name for b in backups.list_backups(folder)}
        partials: set[str] = set()
        for p in sorted(folder.iterdir()):
            if p.name in good:
                continue
            if PARTIAL.match(p.name):
                # a killed copy's (with SQLite's files beside it): the next removes it
                partials.add(p.name.split(".partial")[0])
                if len(partials) > 1:
                    bad.append("backups/" + p.name)
            else:
                bad.append("backups/" + p.name)
        for b in backups.list_backups(folder):
            assert backups.is_valid_database(b.path), f"{b.path.name} is named a backup but bad"
            con = sqlite3.connect(b.path.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
                con.execute("SELECT count(*) FROM feeds").fetchone()
            finally:
                con.close()
        # one more than kept: a backup killed between its rename and the prune
        assert len(good) <= backups.DEFAULT_KEEP + 1, sorted(good)
    return bad


# ---------------------------------------------------------------- comparing states


def _group(op: str, table: str, key: str, row: Any) -> Any:
    """Which unit of the operation in flight a row belongs to (None: any)."""
    if op in PER_FEED:
        if table == "feeds":
            return ("feed", int(key))
        if table in ("entries", "fetch_log", "alerts"):
            return ("feed", int(row[0]))
        if table == "purged":
            return ("feed", int(key.split(":")[0]))
        return ("row", table, key)  # folders, settings, spent requests: each on its own
    if op in PER_ROW:
        return ("row", table, key)
    if op in PER_ARTICLE:
        if table == "entries":
            return ("article", int(row[0]), str(row[1]))
        if table == "purged":
            fid, uid = key.split(":", 1)
            return ("article", int(fid), uid)
        return ("row", table, key)
    return "all"


def compare(op: str, rec: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The violations of the recovered state ``rec`` against the
    states before (``old``) and after (``new``) the operation in flight: every unit
    (see ``_group``) wholly old or wholly new."""
    sides: dict[Any, set[str]] = {}
    why: dict[Any, list[str]] = {}
    for table in sorted(set(rec) | set(old) | set(new)):
        r_t, o_t, n_t = rec.get(table, {}), old.get(table, {}), new.get(table, {})
        for key in sorted(set(r_t) | set(o_t) | set(n_t)):
            r, o, n = r_t.get(key), o_t.get(key), n_t.get(key)
            if r == o == n:
                continue
            row = r if r is not None else (o if o is not None else n)
            g = _group(op, table, key, row)
            ok = {s for s, v in (("old", o), ("new", n)) if v == r}
            if table == "id_high" and g != "all" and None not in (r, o, n) and o <= r <= n:
                ok = {"old", "new"}  # the high mark rises with each transaction
            if (
                table == "rules"
                and g != "all"
                and None not in (r, o, n)
                and r[:-1] == o[:-1] == n[:-1]
                and o[-1] <= r[-1] <= n[-1]
            ):
                ok = {"old", "new"}  # a rule's hits rise with each fetch's transaction
            sides[g] = sides.get(g, {"old", "new"}) & ok
            why.setdefault(g, []).append(f"{table}[{key}]: got {r!r}, before {o!r}, after {n!r}")
    return [
        f"{op}: unit {g} is neither before nor after: " + "; ".join(why[g][:4])
        for g, s in sides.items()
        if not s
    ]


# ---------------------------------------------------------------- the sessions


@dataclass
class Tally:
    kills: int = 0
    mid_op: int = 0
    replays: int = 0
    inside: dict[str, int] = field(default_factory=dict)  # operation killed → times


def _choose_kill(rng: random.Random, est: dict[str, int]) -> dict[str, Any]:
    """How this round ends. The exact points are drawn over what a round takes
    (``est``: the most transactions and progress callbacks a round reported)."""
    how = rng.choices(
        ["none", "line_B", "line_C", "delay", "step", "tx", "optx", "opstep"],
        [1, 2, 1, 2, 2, 2, 4, 4],
    )[0]
    if how == "optx":  # between two transactions of one operation, or right after it
        j = rng.choice([1, 2, 2, 3, rng.randint(2, 40)])
        return {"how": how, "kill": {"kind": "optx", "op": rng.randrange(OPS), "j": j}}
    if how == "opstep":  # inside one operation's transaction (a VACUUM, a big import...)
        n = int(math.exp(rng.uniform(0, math.log(3000))))
        return {"how": how, "kill": {"kind": "opstep", "op": rng.randrange(OPS), "n": n}}
    if how == "line_B":
        return {"how": how, "at": ("B", rng.randrange(OPS), rng.uniform(0, 0.03))}
    if how == "line_C":
        return {"how": how, "at": ("C", rng.randrange(-1, OPS), rng.uniform(0, 0.003))}
    if how == "delay":
        return {"how": how, "after": rng.uniform(0.5, 4.0)}
    if how == "step":
        top = math.log(est["steps"] * 1.2)
        return {"how": how, "kill": {"kind": "step", "n": int(math.exp(rng.uniform(0, top)))}}
    if how == "tx":
        return {"how": how, "kill": {"kind": "tx", "n": rng.randint(1, int(est["tx"] * 1.2))}}
    return {"how": how}


def _copy(src: Path, dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, copy_function=shutil.copy2)


def run_session(seed: int, rounds: int, tmp: Path, farm: Any) -> Tally:
    fm, port = farm
    data = tmp / "data"
    data.mkdir()
    rng = random.Random(seed)
    tally = Tally()
    est = {"tx": 40, "steps": 2000}
    for rnd in range(rounds):
        fm.gen = rnd
        before = tmp / "before"
        _copy(data, before)
        plan = _choose_kill(rng, est)
        cfg = {"data": str(data), "seed": seed, "round": rnd, "ops": OPS, "port": port}
        if "kill" in plan:
            cfg["kill"] = plan["kill"]
        where = f"seed {seed} round {rnd} kill {plan}"
        run = run_child(
            cfg, kill_when=plan.get("at"), kill_after=plan.get("after"), err=tmp / "child.err"
        )
        assert run.killed or run.returncode == 0, (
            f"{where}: child failed ({run.returncode})\n{run.stderr[-4000:]}"
        )
        if not run.killed:
            assert run.lines and run.lines[-1].startswith("END"), f"{where}: {run.lines[-3:]}"
        tally.kills += run.killed
        for p in run.parsed("C"):
            info = json.loads(p[4]) if len(p) > 4 else {}
            est["tx"] = max(est["tx"], info.get("_tx", 0))
            est["steps"] = max(est["steps"], info.get("_steps", 0))
        committed, began = run.committed(), run.began()
        last = max(committed) if committed else None
        in_flight = max(began) if began else None
        if in_flight is not None and in_flight in committed:
            in_flight = None
        with reopen_as_app(data) as store:
            check_database(store)
            rec = child_mod.snapshot(data / DB_NAME)
            clock = child_mod.T0 + (rnd + 1) * child_mod.ROUND_SPAN
            check_scheduler_loads(store, clock)
        after_check = child_mod.snapshot(data / DB_NAME)
        assert after_check == rec, f"{where}: reopening and reading wrote something"
        if last is None:
            # killed before it had opened the store: nothing may have changed (on the
            # first round: no database yet, and the reopening made an empty one)
            if not (before / DB_NAME).exists():
                Store(tmp / "empty" / DB_NAME).close()
                before = tmp / "empty"
            assert rec == child_mod.snapshot(before / DB_NAME), where
        elif in_flight is None:
            assert child_mod.digest(rec) == committed[last], (
                f"{where}: the state is not what operation {last} "
                f"({run.began().get(last, 'open')}) committed"
            )
        elif child_mod.digest(rec) == committed[in_flight - 1]:
            tally.mid_op += 1  # the operation in flight left nothing: whole (no replay needed)
            tally.inside[began[in_flight]] = tally.inside.get(began[in_flight], 0) + 1
        else:
            tally.mid_op += 1
            op = began[in_flight]
            tally.inside[op] = tally.inside.get(op, 0) + 1
            replay_dir = tmp / "replay"
            _copy(before, replay_dir)
            rcfg = {**cfg, "data": str(replay_dir), "stop_after": in_flight,
                    "snaps": [in_flight - 1, in_flight]}  # fmt: skip
            rcfg.pop("kill", None)
            replay = run_child(rcfg, err=tmp / "replay.err")
            tally.replays += 1
            assert replay.returncode == 0, f"{where}: replay failed\n{replay.stderr[-4000:]}"
            # the replay is the same session: it committed what the killed one did
            rc = replay.committed()
            for i, h in committed.items():
                assert rc.get(i) == h, f"{where}: the replay differs at operation {i}"
            snaps = replay.snaps()
            old, new = snaps[in_flight - 1], snaps[in_flight]
            assert child_mod.digest(old) == committed[in_flight - 1], where
            if rec != old and rec != new:
                bad = compare(op, rec, old, new)
                assert not bad, f"{where}: half-done operation {in_flight}:\n" + "\n".join(bad)
        bad_files = leftovers(data)
        assert not bad_files, f"{where}: files left over: {bad_files}"
    return tally


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_crash_session(seed, tmp_path, farm):
    tally = run_session(seed, ROUNDS, tmp_path, farm)
    print(
        f"seed {seed}: {ROUNDS} rounds, {tally.kills} kills, {tally.mid_op} inside an "
        f"operation ({tally.replays} replays); killed inside: {sorted(tally.inside.items())}"
    )
    assert tally.kills >= 1 or ROUNDS < 4


# ---------------------------------------------------------------- schema upgrades

GOLDEN_VERSIONS = sorted(int(p.stem[1:]) for p in GOLDEN.glob("v*.sqlite3"))


def _child(cfg: dict[str, Any], tmp: Path) -> Run:
    return run_child(cfg, err=tmp / "child.err")


def check_golden_content(store: Store, old: int) -> None:
    """What ``test_golden_upgrades.py`` checks of an upgraded golden database."""
    feeds = sorted(store.feeds(), key=lambda f: f.id)
    got = [(f.url, f.folder, f.user_title, f.weight, f.auth_username) for f in feeds]
    assert got == golden.FEEDS
    assert [f.title for f in feeds] == ["Feed 0", "Feed 1", "Feed 2"]
    assert feeds[0].etag == '"e0"' and feeds[2].last_error == golden.ERROR
    for key, value in golden.SETTINGS.items():
        assert store.get_setting(key) == value
    if old < 7:  # v7: a database with articles keeps them all until its user says
        assert store.get_setting("keep_read_days") == 0
    for i, f in enumerate(feeds):
        ids = store.entry_ids(feed_ids=[f.id])
        assert len(ids) == golden.N_ENTRIES[i]
        rows = store.entry_rows(ids)
        for k, eid in enumerate(ids):
            r = rows[eid]
            assert (r.title, r.read, r.starred) == (
                golden.title(i, k),
                golden.is_read(i, k),
                golden.is_starred(i, k),
            )
    assert len(store.search_ids("Straße")) == 5
    keys = store.entry_title_keys()  # the v4 keys, every one filled
    assert len(keys) == sum(golden.N_ENTRIES) and all(k[1] for k in keys)
    (alert,) = store.alerts()
    assert alert.feed_id == feeds[1].id and alert.missed_estimate == 2.0
    assert len(store.fetch_log(limit=100)) == 6
    assert len(store.budget_request_times(golden.T0 - 86400.0)) == 6
    check_scheduler_loads(store, golden.T0 + 3600.0)


def _pre_migration_files(data: Path) -> tuple[list[Path], list[str]]:
    """(complete pre-migration copies, anything else in the backups folder)."""
    folder = data / "backups"
    done, other = [], []
    for p in sorted(folder.iterdir()) if folder.is_dir() else []:
        if re.match(r"^pre-migration-v\d+-\d{8}-\d{6}\.sqlite3$", p.name):
            done.append(p)
        else:
            other.append(p.name)
    return done, other


@pytest.mark.slow
@pytest.mark.parametrize("seed", UPGRADE_SEEDS)
def test_kill_during_schema_upgrade(seed, tmp_path):
    """Killed (once or several times) while an old database is upgraded: the next
    start completes the upgrade and nothing is lost; a copy of the file as it was
    is kept, complete."""
    rng = random.Random(seed)
    for old in rng.sample(GOLDEN_VERSIONS, 2):
        data = tmp_path / f"v{old}"
        data.mkdir()
        shutil.copyfile(GOLDEN / f"v{old}.sqlite3", data / DB_NAME)
        # how many progress callbacks a whole upgrade takes, on a copy
        probe = tmp_path / f"probe{old}"
        _copy(data, probe)
        run = _child(
            {"mode": "migrate", "data": str(probe), "kill": {"kind": "migrate_step"}}, tmp_path
        )
        assert run.returncode == 0, run.stderr[-3000:]
        total = int(run.lines[-1].split()[2])
        for _ in range(rng.randint(1, 3)):
            n = rng.randint(1, total)
            cfg = {"mode": "migrate", "data": str(data), "kill": {"kind": "migrate_step", "n": n}}
            run = _child(cfg, tmp_path)
            assert run.killed or run.returncode == 0, run.stderr[-3000:]
        with reopen_as_app(data) as store:
            assert int(store._q("PRAGMA user_version")[0][0]) == SCHEMA_VERSION
            check_database(store)
            check_golden_content(store, old)
        copies, other = _pre_migration_files(data)
        assert [p for p in copies if f"-v{old}-" in p.name], f"no copy of v{old} kept: {other}"
        for p in copies:  # every file named as a copy is a whole one
            assert backups.is_valid_database(p), p.name
            with Store(p, readonly=True) as kept:
                assert [f.url for f in sorted(kept.feeds(), key=lambda f: f.id)] == [
                    f[0] for f in golden.FEEDS
                ]
                assert kept.entry_count() == sum(golden.N_ENTRIES)
        # a killed copy's .partial (and SQLite's files beside it) go at the next start
        assert not other, other


# ---------------------------------------------------------------- backups


def _filled(data: Path, feeds: int = 6, items: int = 60) -> None:
    from smartreader.core.models import ParsedEntry
    from smartreader.storage.store import FetchRecord

    data.mkdir(parents=True, exist_ok=True)
    with Store(data / DB_NAME) as store:
        for f in range(feeds):
            fid = store.add_feed(f"http://127.0.0.1:9/{f}.xml", folder=f"Folder {f % 3}")
            entries = [
                ParsedEntry(f"u{f}-{k}", f"Title {f}.{k}", f"http://x/{f}/{k}", "", None, None,
                            "<p>" + "text " * 200 + "</p>", "summary", ())
                for k in range(items)
            ]  # fmt: skip
            store.record_fetch(FetchRecord(fid, child_mod.T0, "ok", entries=entries))


@pytest.mark.slow
@pytest.mark.parametrize("seed", BACKUP_SEEDS)
def test_kill_during_backup_never_leaves_a_bad_backup(seed, tmp_path):
    """Killed while copying, checking, renaming or pruning: every file named as a
    backup is a whole, verified copy (never a truncated one under a good name), at
    most ``keep`` + 1 of them, and the next backup removes the ``.partial``."""
    rng = random.Random(seed)
    data = tmp_path / "data"
    _filled(data)
    with Store(data / DB_NAME) as store:
        want = (len(store.feeds()), store.entry_count())
    probe = tmp_path / "probe"
    _copy(data, probe)
    run = _child({"mode": "backup", "data": str(probe), "now": child_mod.T0,
                  "kill": {"kind": "partial"}}, tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    total = int(run.lines[-1].split()[2])
    for i in range(7):
        how = rng.choice(["partial", "partial", "prune", "none"])
        cfg: dict[str, Any] = {"mode": "backup", "data": str(data), "now": child_mod.T0 + i * 86400}
        if how == "partial":
            cfg["kill"] = {"kind": "partial", "n": rng.randint(1, total)}
        elif how == "prune":  # renamed into place, not pruned yet
            cfg["kill"] = {"kind": "call", "target": "backups.prune", "n": 1}
        run = _child(cfg, tmp_path)
        assert run.killed or run.returncode == 0, run.stderr[-3000:]
        listed = backups.list_backups(data / "backups")
        assert len(listed) <= backups.DEFAULT_KEEP + 1
        for b in listed:
            assert backups.is_valid_database(b.path), b.path.name
            with Store(b.path, readonly=True) as copy:
                assert (len(copy.feeds()), copy.entry_count()) == want, b.path.name
        if how == "none":
            left = [p.name for p in (data / "backups").iterdir() if p.name.endswith(".partial")]
            assert not left, left
        assert recovery.newest_good_backup(data / "backups") == (listed[0] if listed else None)


# ---------------------------------------------------------------- what the sessions found


def _empty_store(data: Path) -> None:
    data.mkdir(parents=True, exist_ok=True)
    Store(data / DB_NAME).close()


def test_an_import_killed_at_any_transaction_never_leaves_a_feed_without_its_settings(tmp_path):
    """import_opml added a feed and then applied its OPML settings in a second
    transaction: killed between them, the feed stayed without them (keepDays=0,
    "keep for ever", became the Settings limit) and a second import of the file
    skipped it as already subscribed. Killed before each transaction in turn."""
    from smartreader.net.opml import OpmlSubscription, write_opml

    url = "http://127.0.0.1:9/keep.xml"
    opml = tmp_path / "list.opml"
    settings = (("keepDays", "0"), ("priority", "3"))
    opml.write_bytes(write_opml([OpmlSubscription(url, "Keep", "Archive", None, settings)]))
    killed = 0
    for n in (1, 2, 3):
        data = tmp_path / f"data{n}"
        _empty_store(data)
        cfg = {"mode": "import", "data": str(data), "opml": str(opml),
               "kill": {"kind": "tx", "n": n}}  # fmt: skip
        run = _child(cfg, tmp_path)
        killed += run.killed
        with reopen_as_app(data) as store:
            fid = store.feed_id_by_url(url)
            # all or nothing: not imported, or imported with its settings
            if fid is not None:
                feed = store.feed(fid)
                assert (feed.keep_days, feed.weight, feed.folder) == (0.0, 3.0, "Archive"), n
            else:
                assert run.killed, run.stderr[-3000:]
    assert killed, "no kill point was reached"


def test_an_add_feed_killed_at_any_transaction_leaves_no_empty_folder(tmp_path):
    """Store.add_feed made a new folder in its own transaction before the feed's:
    killed between them, an empty folder was left."""
    killed = 0
    for n in (1, 2):
        data = tmp_path / f"data{n}"
        _empty_store(data)
        cfg = {"mode": "add_feed", "data": str(data), "url": "http://127.0.0.1:9/a.xml",
               "folder": "New folder", "kill": {"kind": "tx", "n": n}}  # fmt: skip
        run = _child(cfg, tmp_path)
        killed += run.killed
        with reopen_as_app(data) as store:
            feeds, folders = store.feeds(), [f.name for f in store.folders()]
            if feeds:  # added, whole
                assert [f.folder for f in feeds] == ["New folder"] and folders == ["New folder"]
            else:  # not added, and so nothing of it
                assert run.killed and folders == [], (n, folders)
    assert killed, "no kill point was reached"


def test_a_refused_add_feed_makes_no_folder(tmp_path):
    from smartreader.errors import UsageError

    with Store(tmp_path / DB_NAME) as store:
        store.add_feed("http://127.0.0.1:9/a.xml")
        with pytest.raises(UsageError):
            store.add_feed("http://127.0.0.1:9/a.xml", folder="New folder")
        assert store.folders() == []


def test_killed_backup_leaves_no_stray_files(tmp_path):
    data = tmp_path / "data"
    _filled(data, feeds=2, items=20)
    cfg = {"mode": "backup", "data": str(data), "now": child_mod.T0,
           "kill": {"kind": "partial", "n": 1}}  # fmt: skip
    assert _child(cfg, tmp_path).killed
    run = _child({"mode": "backup", "data": str(data), "now": child_mod.T0 + 86400}, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    folder = data / "backups"
    listed = {b.path.name for b in backups.list_backups(folder)}
    assert len(listed) == 1
    assert sorted(p.name for p in folder.iterdir()) == sorted(listed)


def test_killed_pre_migration_copy_leaves_no_partial_files(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    shutil.copyfile(GOLDEN / f"v{GOLDEN_VERSIONS[-1]}.sqlite3", data / DB_NAME)
    cfg = {"mode": "migrate", "data": str(data), "kill": {"kind": "partial", "n": 1}}
    assert _child(cfg, tmp_path).killed
    time.sleep(1.1)  # the next start, a second later at least (copies are named by second)
    with reopen_as_app(data) as store:  # upgrades, with a copy made again
        assert int(store._q("PRAGMA user_version")[0][0]) == SCHEMA_VERSION
    copies, other = _pre_migration_files(data)
    assert len(copies) >= 1
    assert other == []


def test_restore_killed_before_the_rename_never_starts_empty(tmp_path):
    data = tmp_path / "data"
    _filled(data, feeds=3, items=5)
    db = data / DB_NAME
    with Store(db) as store:
        backups.make_backup(store, now=child_mod.T0)
    with db.open("r+b") as f:  # the header damaged: "file is not a database"
        f.write(b"not a database!!")
    cfg = {"mode": "restore", "data": str(data), "now": child_mod.T0 + 60}
    assert _child(cfg, tmp_path).killed
    # The next start: the damaged file still there (the user is asked again), or
    # the backup in its place; never an empty database with the data elsewhere.
    problem = recovery.diagnose(db)
    if problem is not None:
        assert problem.kind == "corrupt" and problem.backup is not None
    else:
        with Store(db) as store:
            assert len(store.feeds()) == 3
