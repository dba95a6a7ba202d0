"""Data safety (§7 rows 50–58): kill -9 during a migration and a backup, corrupt,
locked, full and too-new databases, WAL files left alone, readers vs the writer.

Row 49 (kill -9 during an update) is tests/e2e/test_kill_update.py.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.errors import DatabaseTooNewError, StorageError
from smartreader.storage import backups, recovery, walguard
from smartreader.storage.schema import SCHEMA_VERSION
from smartreader.storage.store import FetchRecord, Store, looks_damaged
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import REPO, item, rss

T0 = 1_800_000_000.0


def entries(n: int, prefix: str = "e", size: int = 200) -> list[ParsedEntry]:
    return [
        ParsedEntry(f"{prefix}{i}", f"title {i}", f"https://x.example/{prefix}{i}", "", None,
                    None, "<p>" + "w" * size + "</p>", "", ())
        for i in range(n)
    ]  # fmt: skip


def filled_store(path: Path, n: int = 50, size: int = 200) -> Store:
    store = Store(path)
    fid = store.add_feed("https://x.example/feed", now=T0)
    store.record_fetch(FetchRecord(fid, T0, "ok", entries=entries(n, size=size)))
    store.set_read([1, 2, 3])
    return store


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def spawn(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"},
    )


def kill_after_line(proc: subprocess.Popen[str], marker: str, delay: float) -> bool:
    """SIGKILL ``proc`` ``delay`` s after it prints ``marker``; False if it ended first."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(marker):
            break
    time.sleep(delay)
    alive = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()
    return alive


# -- row 50: kill -9 during a schema migration --------------------------------------------

MIGRATE_CHILD = """
import sys
import smartreader.storage.store as st
# A heavy fake "v2" migration, so that a kill lands in the middle of it.
st.MIGRATIONS = [*st.MIGRATIONS, '''
    ALTER TABLE entries ADD COLUMN extra TEXT;
    UPDATE entries SET extra = content || content || content;
    CREATE TABLE v2_copy AS SELECT id, extra FROM entries;
    CREATE INDEX v2_copy_extra ON v2_copy (extra);
''']
st.SCHEMA_VERSION = len(st.MIGRATIONS)
print("start", flush=True)
st.Store(sys.argv[1]).close()
print("done", flush=True)
"""


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_kill_during_migration_leaves_old_or_new_schema_never_half(tmp_path: Path) -> None:
    rng = random.Random(50)
    template = tmp_path / "template.sqlite3"
    filled_store(template, n=20_000, size=400).close()
    outcomes = {"old": 0, "new": 0}
    trials = 10
    for trial in range(trials):
        db = tmp_path / f"t{trial}" / "db.sqlite3"
        db.parent.mkdir()
        with sqlite3.connect(template) as src, sqlite3.connect(db) as dst:
            src.backup(dst)
        proc = spawn(MIGRATE_CHILD, str(db))
        kill_after_line(proc, "start", rng.uniform(0.0, 1.2))
        con = sqlite3.connect(db)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            version = con.execute("PRAGMA user_version").fetchone()[0]
            cols = {r[1] for r in con.execute("PRAGMA table_info(entries)")}
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
            assert con.execute("SELECT count(*) FROM entries").fetchone()[0] == 20_000
            assert con.execute("SELECT count(*) FROM entries WHERE read").fetchone()[0] == 3
            # The fake migration takes the current schema one version further.
            if version == SCHEMA_VERSION:
                outcomes["old"] += 1
                assert "extra" not in cols and "v2_copy" not in tables
            else:
                outcomes["new"] += 1
                assert version == SCHEMA_VERSION + 1 and "extra" in cols
                assert con.execute("SELECT count(*) FROM v2_copy").fetchone()[0] == 20_000
        finally:
            con.close()
        if version == SCHEMA_VERSION:  # the app still starts on it
            with Store(db) as store:
                assert store.entry_count() == 20_000
        # The pre-migration backup, if it got its final name, is complete.
        for b in (db.parent / "backups").glob("pre-migration-*.sqlite3"):
            assert backups.is_valid_database(b)
    assert outcomes["old"] >= 1, outcomes  # the kill did land before the commit


def test_migration_takes_a_backup_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import smartreader.storage.store as st

    db = tmp_path / "db.sqlite3"
    filled_store(db).close()
    monkeypatch.setattr(st, "MIGRATIONS", [*st.MIGRATIONS, "CREATE TABLE v2 (x);"])
    monkeypatch.setattr(st, "SCHEMA_VERSION", len(st.MIGRATIONS))
    with Store(db) as store:
        assert store.entry_count() == 50
    (b,) = (tmp_path / "backups").glob(f"pre-migration-v{SCHEMA_VERSION}-*.sqlite3")
    con = sqlite3.connect(b)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("SELECT count(*) FROM entries").fetchone()[0] == 50
    con.close()


# -- row 51: kill -9 during a backup ---------------------------------------------------------

BACKUP_CHILD = """
import sys, time
from smartreader.storage import backups
from smartreader.storage.store import Store
store = Store(sys.argv[1])
print("start", flush=True)
# time moves on between runs, as it does between app sessions: each backup is newer
# than the ones a killed run left (else a new one could be the oldest, pruned first)
t = max([1_800_000_000.0] + [b.created for b in backups.list_backups(sys.argv[2])])
while True:
    t += 86_400
    p = backups.make_backup(store, sys.argv[2], now=t, keep=3)
    print("made", p, flush=True)
"""


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_kill_during_backup_never_leaves_a_bad_backup(tmp_path: Path) -> None:
    rng = random.Random(51)
    db = tmp_path / "db.sqlite3"
    filled_store(db, n=20_000, size=1000).close()
    folder = tmp_path / "backups"
    trials = 12
    for _ in range(trials):
        proc = spawn(BACKUP_CHILD, str(db), str(folder))
        kill_after_line(proc, "start", rng.uniform(0.0, 1.5))
        finals = backups.list_backups(folder)
        for b in finals:
            assert backups.is_valid_database(b.path), b.path
        assert len(finals) <= 3 + 1  # a kill between rename and prune leaves one extra
    # The live database was only read.
    with Store(db) as store:
        assert store.integrity_check() == "ok" and store.entry_count() == 20_000
    # A leftover .partial is cleaned up by the next backup, never listed as one.
    with Store(db) as store:
        backups.make_backup(store, folder, now=T0 + 400 * 86_400, keep=3)
    assert not list(folder.glob("*.partial"))
    assert len(backups.list_backups(folder)) == 3  # and any extra from a kill is pruned


# -- rolling backups --------------------------------------------------------------------------


def test_rolling_backups_keep_the_newest_and_verify(tmp_path: Path) -> None:
    store = filled_store(tmp_path / "db.sqlite3")
    folder = tmp_path / "backups"
    (folder).mkdir()
    foreign = folder / "my-notes.txt"
    foreign.write_text("not ours")
    assert backups.backup_due(folder, T0)
    made = [backups.make_backup(store, folder, now=T0 + d * 86_400, keep=3) for d in range(5)]
    kept = backups.list_backups(folder)
    assert [b.path for b in kept] == made[:1:-1]  # the newest three, newest first
    assert foreign.read_text() == "not ours"
    assert not backups.backup_due(folder, T0 + 4 * 86_400 + 3600)
    assert backups.backup_due(folder, T0 + 5 * 86_400)
    # Two in the same second never overwrite each other.
    again = backups.make_backup(store, folder, now=T0 + 4 * 86_400, keep=10)
    assert again != made[-1] and again.exists() and made[-1].exists()
    for b in backups.list_backups(folder):
        con = sqlite3.connect(b.path)
        assert con.execute("SELECT count(*) FROM entries").fetchone()[0] == 50
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        con.close()
    store.close()


def test_backup_is_fsynced_and_renamed_atomically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = filled_store(tmp_path / "db.sqlite3")
    calls: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> None:
        calls.append(("replace", f"{a} -> {b}"))
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    dest = backups.make_backup(store, tmp_path / "b", now=T0)
    store.close()
    kinds = [k for k, _ in calls]
    # file fsync → rename from .partial → directory fsync, in that order
    i = kinds.index("replace")
    assert calls[i][1] == f"{dest}.partial -> {dest}"
    assert ("fsync", f"{dest}.partial") in calls[:i]
    assert ("fsync", str(dest.parent)) in calls[i:]


# -- row 52: corrupt database at start-up -------------------------------------------------


def _corrupt(db: Path, how: str) -> None:
    data = bytearray(db.read_bytes())
    if how == "zeroed header":
        data[:100] = bytes(100)
    elif how == "random pages":
        rng = random.Random(7)
        page = 4096
        for p in range(2, len(data) // page):
            if rng.random() < 0.5:
                start = p * page + 8
                data[start : start + 2000] = rng.randbytes(2000)
    elif how == "truncated":
        data = data[: len(data) // 3 + 123]
    elif how == "not a database":
        data = bytearray(b"<html>this is not a database</html>" * 50)
    else:
        word, at, byte = SCHEMA_FLIPS[how]
        assert data.count(word) == 1  # in the schema (sqlite_master), nowhere else
        data[data.index(word) + at] = byte
    db.write_bytes(bytes(data))


# One byte of the schema's text changed, as bit rot or a torn page changes it. Before,
# the first crashed every command and the app with a UnicodeDecodeError (Python's
# sqlite3 cannot decode SQLite's message quoting the damaged name); the other two
# opened, then failed at the first query naming the column (a traceback, or
# "cannot use database" where it was read at start-up).
SCHEMA_FLIPS = {
    "index name not UTF-8": (b"sqlite_autoindex_folders_1", 25, 0xB4),
    "column name not UTF-8": (b"site_link", 0, 0xB4),
    "column renamed": (b"site_link", 6, ord("o")),
    # the full-text table's definition: SQLite's words named no damage ("no such
    # module: gts5", "unrecognized option", "parse error in"), so no backup was
    # offered
    "full-text module name": (b"USING fts5", 6, ord("g")),
    "full-text option": (b"content='entries'", 1, ord("n")),
    "full-text column list": (b"    search_title, search_text, content=", 16, ord("-")),
    # ... and one that still opened, to fail at the first search reading its text
    "full-text content table": (b"content='entries'", 9, ord("d")),
}


@pytest.mark.parametrize(
    "how", ["zeroed header", "random pages", "truncated", "not a database", *SCHEMA_FLIPS]
)
def test_corrupt_database_is_explained_kept_and_restorable(tmp_path: Path, how: str) -> None:
    db = tmp_path / "smartreader.sqlite3"
    store = filled_store(db, n=400, size=2000)
    good = backups.make_backup(store, now=T0)  # default folder: next to the database
    store.record_fetch(FetchRecord(1, T0 + 60, "ok", entries=entries(5, prefix="late")))
    store.close()
    _corrupt(db, how)
    damaged = db.read_bytes()

    problem = recovery.diagnose(db)
    assert problem is not None and problem.kind == "corrupt", problem
    assert "damaged" in problem.message and "not been changed" in problem.message
    assert problem.backup is not None and problem.backup.path == good
    assert db.read_bytes() == damaged  # diagnosing changed nothing

    # Opening it directly is a clear error too, never a silent replacement.
    with pytest.raises(StorageError), Store(db) as s:
        s.entry_count()
        s.integrity_check() == "ok" or (_ for _ in ()).throw(StorageError("damaged"))
    assert db.read_bytes() == damaged

    preserved = recovery.restore_backup(db, problem.backup.path, now=T0 + 3600)
    assert preserved is not None and preserved.read_bytes() == damaged
    assert preserved.name.startswith("smartreader.sqlite3.corrupt-")
    assert recovery.diagnose(db) is None
    with Store(db) as s:
        assert s.entry_count() == 400 and s.integrity_check() == "ok"


@pytest.mark.parametrize("how", SCHEMA_FLIPS)
@pytest.mark.parametrize("command", [["feeds"], ["update"], ["add", "https://x.example/b"]])
def test_a_damaged_schema_is_one_line_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, command: list[str]
) -> None:
    from smartreader.cli import main

    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    _corrupt(db, how)
    damaged = db.read_bytes()
    assert main([*command, "--data-dir", str(tmp_path)]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"smartreader: {db} is damaged (")
    assert line.endswith("); it has not been modified")
    assert db.read_bytes() == damaged


def test_a_backup_damaged_in_its_schema_is_passed_over(tmp_path: Path) -> None:
    db = tmp_path / "smartreader.sqlite3"
    store = filled_store(db)
    older = backups.make_backup(store, now=T0)
    newer = backups.make_backup(store, now=T0 + 86400)
    store.close()
    _corrupt(newer, "index name not UTF-8")
    _corrupt(db, "zeroed header")
    assert not backups.is_valid_database(newer)
    problem = recovery.diagnose(db)
    assert problem is not None and problem.backup is not None and problem.backup.path == older


def test_a_check_report_naming_a_damaged_table_still_reads(tmp_path: Path) -> None:
    """quick_check names the table it finds wrong; damage that left the name not
    UTF-8 (and the table's rows breaking its own rules) is reported, not a crash."""
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("CREATE TABLE notes (x TEXT)")
    con.execute("INSERT INTO notes VALUES (NULL)")
    con.execute("PRAGMA writable_schema = ON")
    name = b"no\xb4es"
    con.execute(
        "UPDATE sqlite_master SET sql = CAST(? AS TEXT), name = CAST(? AS TEXT), "
        "tbl_name = CAST(? AS TEXT) WHERE name = 'notes'",
        (b"CREATE TABLE " + name + b" (x TEXT NOT NULL)", name, name),
    )
    con.close()
    problem = recovery.diagnose(db)
    assert problem is not None and problem.kind == "corrupt"
    assert problem.detail == "NULL value in no\ufffdes.x"


def test_corrupt_without_backup_offers_a_fresh_start_and_keeps_the_file(tmp_path: Path) -> None:
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    _corrupt(db, "zeroed header")
    damaged = db.read_bytes()
    problem = recovery.diagnose(db)
    assert problem is not None and problem.kind == "corrupt" and not problem.can_restore
    kept = recovery.set_aside(db, now=T0)
    assert kept.read_bytes() == damaged and not db.exists()
    with Store(db) as s:
        assert s.entry_count() == 0


def test_restore_refuses_a_damaged_backup_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    bad = tmp_path / "backup-20300101-000000.sqlite3"
    bad.write_bytes(b"garbage" * 100)
    before = sha(db)
    with pytest.raises(StorageError, match="damaged"):
        recovery.restore_backup(db, bad, now=T0)
    assert sha(db) == before and list(tmp_path.glob("*.corrupt-*")) == []


def test_healthy_and_missing_databases_need_nothing(tmp_path: Path) -> None:
    assert recovery.diagnose(tmp_path / "none.sqlite3") is None
    filled_store(tmp_path / "ok.sqlite3").close()
    assert recovery.diagnose(tmp_path / "ok.sqlite3") is None


# -- row 58: a database from a newer version ------------------------------------------------


def test_too_new_database_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 999")
    con.close()
    before = sha(db)
    with pytest.raises(DatabaseTooNewError, match="newer"):
        Store(db)
    problem = recovery.diagnose(db)
    assert problem is not None and problem.kind == "too_new" and not problem.can_restore
    assert sha(db) == before


# -- rows 54 and 56: locked database, readers while the writer writes -------------------------

HOLD_LOCK = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
if len(sys.argv) > 3:  # like a program that keeps the file to itself (readers blocked too)
    con.execute("PRAGMA locking_mode = EXCLUSIVE")
con.execute("BEGIN EXCLUSIVE")
con.execute("CREATE TABLE IF NOT EXISTS _holder (x)")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
con.execute("COMMIT")
print("released", flush=True)
"""


def test_write_waits_for_another_process_lock_then_succeeds(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    store = filled_store(db)
    with spawn(HOLD_LOCK, str(db), "1.5") as proc:
        assert proc.stdout is not None and proc.stdout.readline().startswith("locked")
        t = time.monotonic()
        store.record_fetch(FetchRecord(1, T0 + 1, "ok", entries=entries(3, prefix="new")))
        assert time.monotonic() - t >= 1.0  # it waited (busy_timeout) rather than failing
        assert store.entry_count() == 53
        proc.wait(timeout=10)
    store.close()


def test_a_write_locked_out_fails_that_feed_only_and_the_run_goes_on(
    tmp_path: Path, feed_server: FeedServer
) -> None:
    """Row 54 during an update: another program holds the database longer than the
    busy timeout. The feed whose write falls in that time fails with the reason;
    the feeds after it are still fetched and stored; the run then reports the
    database problem (the GUI shows it, the CLI exits non-zero)."""
    from smartreader.net.fetch import Fetcher
    from smartreader.updater import Updater

    db = tmp_path / "db.sqlite3"
    store = Store(db, busy_timeout=0.5)
    feed_server.route("/a.xml", Reply(body=rss(item("a1") + item("a2"))))
    # answers after the lock is gone
    feed_server.route("/b.xml", Reply(body=rss(item("b1") + item("b2") + item("b3")), delay=3.0))
    a = store.add_feed(feed_server.url("/a.xml"))
    b = store.add_feed(feed_server.url("/b.xml"))
    up = Updater(store, fetcher=Fetcher(trust_env=False))
    seen: list = []
    try:
        with spawn(HOLD_LOCK, str(db), "1.5") as proc:
            assert proc.stdout is not None and proc.stdout.readline().startswith("locked")
            with pytest.raises(StorageError) as raised:
                up.update([a, b], progress=lambda _d, _t, r: seen.append(r))
            proc.wait(timeout=10)
        by = {r.feed_id: r for r in seen}
        assert by[a].status == "error" and by[a].error == str(raised.value)
        assert "lock" in by[a].error or "busy" in by[a].error
        assert by[b].status == "ok" and by[b].new_entries == 3
        assert store.entry_count() == 3  # b's items; a's were never half-written
        assert up.update([a])[0].new_entries == 2  # a's next update brings them
    finally:
        up.close()
        store.close()


def test_cli_update_reports_every_feed_before_the_database_error(
    tmp_path: Path, feed_server: FeedServer, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """The same locked-out write from ``smartreader update``: the per-feed summary
    (what was stored, which feed failed and why) is printed, then the database
    error, and the exit code is non-zero. Before, only the error was printed."""
    import functools

    import smartreader.storage
    from smartreader import cli

    data = tmp_path / "data"
    feed_server.route("/a.xml", Reply(body=rss(item("a1") + item("a2"))))
    feed_server.route("/b.xml", Reply(body=rss(item("b1") + item("b2") + item("b3")), delay=3.0))
    for path in ("/a.xml", "/b.xml"):
        assert cli.main(["--data-dir", str(data), "add", feed_server.url(path)]) == 0
    feed_server.route("/a.xml", Reply(body=rss(item("a3") + item("a1") + item("a2"))))
    capsys.readouterr()
    # the CLI's store gives up on the lock after 0.5 s instead of 10 s
    monkeypatch.setattr(
        smartreader.storage, "Store", functools.partial(smartreader.storage.Store, busy_timeout=0.5)
    )
    db = data / "smartreader.sqlite3"
    with spawn(HOLD_LOCK, str(db), "1.5") as proc:
        assert proc.stdout is not None and proc.stdout.readline().startswith("locked")
        code = cli.main(["--data-dir", str(data), "update"])
        proc.wait(timeout=10)
    out, err = capsys.readouterr()

    assert code == 1
    assert "updated 2 feeds" in out and "1 failed" in out
    lines = err.splitlines()
    failed = [ln for ln in lines if ln.startswith("  [1] ")]
    assert len(failed) == 1 and ("lock" in failed[0] or "busy" in failed[0])
    assert lines[-1].startswith("smartreader: ")  # the error itself, last
    assert err.index(failed[0]) < err.index(lines[-1])


@pytest.mark.slow
def test_locked_database_at_startup_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    filled_store(db).close()
    with spawn(HOLD_LOCK, str(db), "30", "exclusive") as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline().startswith("locked")
            problem = recovery.diagnose(db, timeout=0.5)
            assert problem is not None and problem.kind == "locked" and problem.can_retry
            assert "in use by another program" in problem.message
        finally:
            proc.kill()
            proc.wait()
    assert recovery.diagnose(db) is None


def test_readers_never_see_locked_while_the_writer_writes(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    writer = filled_store(db)
    size0 = db.stat().st_size
    stop = threading.Event()
    errors: list[BaseException] = []
    reads = [0]

    def read() -> None:
        try:
            with Store(db, readonly=True) as r:
                while not stop.is_set():
                    ids = r.entry_ids(limit=50)
                    r.entry_rows(ids)
                    r.unread_counts()
                    reads[0] += 1
                    time.sleep(0.005)  # a GUI reads on events, not in a tight loop
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        end = time.monotonic() + 3.0
        batch = 0
        while time.monotonic() < end:
            batch += 1
            writer.record_fetch(
                FetchRecord(1, T0 + batch, "ok", entries=entries(20, prefix=f"b{batch}-"))
            )
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=10)
    assert not errors, errors[:3]
    assert reads[0] > 10 and batch > 5
    # Checkpoints progress while readers read: only a checkpoint writes the main
    # file in WAL mode. (The WAL's own size is no measure: how often it can restart
    # from its beginning depends on how the readers' snapshots happen to overlap,
    # and on a loaded machine it grew past any fixed bound.)
    assert db.stat().st_size > size0 + 1024 * 1024
    assert writer.integrity_check() == "ok"
    writer.close()


# -- row 57: disk full, read-only -----------------------------------------------------------


def test_disk_full_rolls_back_with_a_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    store = filled_store(db)
    before = store.entry_count()
    pages = store._q("PRAGMA page_count")[0][0]
    store._q(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(StorageError, match="disk is full") as info:
        store.record_fetch(
            FetchRecord(1, T0 + 5, "ok", entries=entries(500, prefix="big", size=4000))
        )
    assert "nothing stored was lost" in str(info.value)
    assert store.entry_count() == before  # the whole batch rolled back
    assert store.fetch_log(1, limit=10)[0].time == T0  # no half record either
    store._q("PRAGMA max_page_count = 1073741823")
    store.record_fetch(FetchRecord(1, T0 + 6, "ok", entries=entries(5, prefix="after")))
    assert store.entry_count() == before + 5 and store.integrity_check() == "ok"
    store.close()


def test_read_only_database_refuses_writes_clearly(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    filled_store(db).close()
    before = sha(db)
    with Store(db, readonly=True) as ro:
        assert ro.entry_count() == 50
        with pytest.raises(StorageError, match="read-only"):
            ro.set_read([1])
        # Even through the raw connection SQLite refuses, and we say so in words.
        ro.readonly = False
        with pytest.raises(StorageError, match="read-only"):
            ro.set_read([1])
    assert sha(db) == before


# -- row 53: never delete or rename -wal / -shm ourselves ------------------------------------


def _wal_of_another_database(tmp_path: Path) -> tuple[Path, Path]:
    """Another smartreader database, open, with 300 entries still in its WAL:
    returns copies of its file and its -wal taken together while it was open."""
    other = tmp_path / "elsewhere" / "smartreader.sqlite3"
    other.parent.mkdir()
    o = Store(other)
    fid = o.add_feed("https://theirs.example/feed", now=T0)
    con = sqlite3.connect(other)
    con.execute("PRAGMA wal_autocheckpoint = 0")
    con.close()
    o._db.execute("PRAGMA wal_autocheckpoint = 0")
    o.record_fetch(FetchRecord(fid, T0, "ok", entries=entries(300, prefix="theirs")))
    main, wal = tmp_path / "their.sqlite3", tmp_path / "their.sqlite3-wal"
    main.write_bytes(other.read_bytes())
    wal.write_bytes(Path(str(other) + "-wal").read_bytes())
    (tmp_path / "their.sqlite3-shm").write_bytes(Path(str(other) + "-shm").read_bytes())
    o.close()
    return main, wal


def test_a_stray_wal_from_another_database_is_set_aside_not_applied(tmp_path: Path) -> None:
    """Row 53: a -wal that is not ours (sync tool, partial restore) lands next to a
    database that was closed cleanly. SQLite would apply it and replace our data;
    it is moved into backups/ instead, byte for byte, and our file is untouched."""
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    assert not Path(str(db) + "-wal").exists()  # a clean close leaves no WAL
    _, their_wal = _wal_of_another_database(tmp_path)
    stray = Path(str(db) + "-wal")
    stray.write_bytes(their_wal.read_bytes())
    with Store(db) as store:
        assert [f.url for f in store.feeds()] == ["https://x.example/feed"]
        assert store.entry_count() == 50 and store.integrity_check() == "ok"
        assert store.stray_wal is not None and store.stray_wal.parent == tmp_path / "backups"
        kept = store.stray_wal / stray.name
        assert kept.read_bytes() == their_wal.read_bytes()  # nothing lost either
    with Store(db) as again:  # the next open is an ordinary one
        assert again.stray_wal is None and again.entry_count() == 50


def test_a_stray_wal_with_its_shm_is_set_aside_when_nobody_has_it_open(tmp_path: Path) -> None:
    """Row 53 when the -wal arrives with its -shm (a folder copied while the other
    database was open): no program holds a lock on that -shm, so neither is live;
    both are moved into backups/, byte for byte, and our data stays."""
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    _, their_wal = _wal_of_another_database(tmp_path)
    their_shm = tmp_path / "their.sqlite3-shm"
    stray, shm = Path(str(db) + "-wal"), Path(str(db) + "-shm")
    stray.write_bytes(their_wal.read_bytes())
    shm.write_bytes(their_shm.read_bytes())
    assert not walguard.locked_by_anyone(shm, db)
    with Store(db) as store:
        assert [f.url for f in store.feeds()] == ["https://x.example/feed"]
        assert store.entry_count() == 50 and store.integrity_check() == "ok"
        assert store.stray_wal is not None
        assert (store.stray_wal / stray.name).read_bytes() == their_wal.read_bytes()
        assert (store.stray_wal / shm.name).read_bytes() == their_shm.read_bytes()


def test_a_shm_counts_as_in_use_when_locks_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without /proc/locks (another OS, a locked-down sandbox) nothing tells a stale
    -shm from a live one: the WAL is left to SQLite, as before row 53's fix."""
    monkeypatch.setattr(walguard, "PROC_LOCKS", tmp_path / "no-such-file")
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    _, their_wal = _wal_of_another_database(tmp_path)
    Path(str(db) + "-wal").write_bytes(their_wal.read_bytes())
    Path(str(db) + "-shm").write_bytes((tmp_path / "their.sqlite3-shm").read_bytes())
    assert walguard.locked_by_anyone(db)
    with Store(db) as store:
        assert store.stray_wal is None
    assert not (tmp_path / "backups").exists()


def test_lock_table_lines_are_matched_by_inode(tmp_path: Path, monkeypatch) -> None:
    f, g = tmp_path / "a", tmp_path / "b"
    f.write_bytes(b"x")
    g.write_bytes(b"y")
    table = tmp_path / "locks"
    monkeypatch.setattr(walguard, "PROC_LOCKS", table)
    ino = f.stat().st_ino
    for line, expected in [
        (f"1: POSIX  ADVISORY  READ 28261 fe:00:{ino} 128 128", True),
        (f"1: -> POSIX  ADVISORY  WRITE 28262 fe:00:{ino} 128 128", True),
        (f"2: OFDLCK ADVISORY  WRITE -1 08:02:{ino} 0 EOF", True),
        (f"3: FLOCK  ADVISORY  WRITE 99 08:02:{ino}1 0 EOF", False),
        ("", False),
    ]:
        table.write_text(line + "\n", encoding="ascii")
        assert walguard.locked_by_anyone(f) is expected, line
        assert walguard.locked_by_anyone(g) is False


def test_a_database_replaced_with_its_own_wal_is_left_to_sqlite(tmp_path: Path) -> None:
    """The file itself changed since our clean close (another copy put in its place,
    with its WAL): the pair belongs together and SQLite applies it as usual."""
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    their_main, their_wal = _wal_of_another_database(tmp_path)
    shutil.copyfile(their_main, db)
    shutil.copyfile(their_wal, Path(str(db) + "-wal"))
    with Store(db) as store:
        assert store.stray_wal is None
        assert [f.url for f in store.feeds()] == ["https://theirs.example/feed"]
        assert store.entry_count() == 300 and store.integrity_check() == "ok"


def test_another_program_writing_our_closed_database_keeps_its_writes(tmp_path: Path) -> None:
    """A database browser (here: sqlite3) opened the database after our clean close
    and is still writing it: its WAL is live (a -shm beside it), and is applied,
    not moved away from under it."""
    db = tmp_path / "smartreader.sqlite3"
    filled_store(db).close()
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("PRAGMA wal_autocheckpoint = 0")
        con.execute("INSERT INTO settings (key, value) VALUES ('note', '\"by hand\"')")
        assert Path(str(db) + "-wal").stat().st_size > 32
        with Store(db) as store:
            assert store.stray_wal is None
            assert store.get_setting("note") == "by hand"
        assert con.execute("SELECT count(*) FROM entries").fetchone()[0] == 50  # still works
    finally:
        con.close()


def test_our_code_never_unlinks_or_renames_wal_files_during_normal_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touched: list[str] = []
    real_unlink, real_remove, real_replace, real_rename = (
        Path.unlink, os.remove, os.replace, os.rename,
    )  # fmt: skip

    def note(p: object) -> None:
        if str(p).endswith(("-wal", "-shm")):
            touched.append(str(p))

    def unlink(self: Path, missing_ok: bool = False) -> None:
        note(self)
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    monkeypatch.setattr(os, "remove", lambda p, *a, **k: (note(p), real_remove(p, *a, **k)))
    monkeypatch.setattr(os, "unlink", lambda p, *a, **k: (note(p), real_remove(p, *a, **k)))
    monkeypatch.setattr(os, "replace", lambda a, b, *r, **k: (note(a), real_replace(a, b)))
    monkeypatch.setattr(os, "rename", lambda a, b, *r, **k: (note(a), real_rename(a, b)))

    db = tmp_path / "smartreader.sqlite3"
    store = filled_store(db)
    # A stray WAL from some other database sits next to a second file.
    other = tmp_path / "other.sqlite3"
    stray = Path(str(other) + "-wal")
    stray.write_bytes(Path(str(db) + "-wal").read_bytes())
    backups.make_backup(store, now=T0)
    store.close()
    assert recovery.diagnose(db) is None
    assert stray.exists()
    assert touched == []


# -- a damaged or hand-edited setting ----------------------------------------------------


@pytest.mark.parametrize(
    "raw", ['"abc"', "null", "NaN", "-5", "0", "1e400", "Infinity", "[1]", "true", "1" + "0" * 400]
)
def test_damaged_numeric_setting_falls_back_and_the_app_still_starts(
    tmp_path: Path, raw: str
) -> None:
    from smartreader.updater import DEFAULT_BUDGET_PER_DAY, DEFAULT_MIN_INTERVAL, Updater

    db = tmp_path / "db.sqlite3"
    Store(db).close()
    with sqlite3.connect(db) as con:  # as another tool (or a bad disk) left it
        con.executemany(
            "INSERT INTO settings (key, value) VALUES (?, ?)",
            [("budget_per_day", raw), ("min_interval", raw)],
        )
    store = Store(db)
    try:
        up = Updater(store)
        cfg = up.scheduler.config
        assert (cfg.budget_per_day, cfg.min_interval) == (
            DEFAULT_BUDGET_PER_DAY,
            DEFAULT_MIN_INTERVAL,
        )
        assert up.budget() == DEFAULT_BUDGET_PER_DAY
        up.scheduler.due(T0)  # the scheduler runs on the fallback
        # the row is left as it was until the user saves a new value
        assert store._q("SELECT value FROM settings WHERE key = 'budget_per_day'")[0][0] == raw
        up.set_budget(250.0)
        assert up.scheduler.config.budget_per_day == 250.0
    finally:
        store.close()


def test_setting_a_budget_outside_the_offered_range_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    from smartreader.errors import UsageError
    from smartreader.updater import Updater

    store = Store(tmp_path / "db.sqlite3")
    try:
        up = Updater(store)
        up.set_budget(300.0)
        for bad in (0.5, float("inf"), float("nan"), 1e9):
            with pytest.raises(UsageError):
                up.set_budget(bad)
        with pytest.raises(UsageError):
            up.set_min_interval(float("inf"))
        assert up.budget() == 300.0
        assert store.get_setting("budget_per_day") == 300.0
    finally:
        store.close()


def test_a_malformed_scheduler_state_costs_only_what_that_feed_learned(
    tmp_path: Path, feed_server: FeedServer
) -> None:
    """Valid JSON of the wrong shape in one feed's saved scheduler state (a hand
    edit, a newer version's format): the app and the CLI used to fail at start.
    Now that feed starts learning afresh and says so; the others keep theirs."""
    from smartreader.updater import Updater

    feed_server.route("/a.xml", Reply(body=rss(item("a", "A"))))
    feed_server.route("/b.xml", Reply(body=rss(item("b", "B"))))
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    a, b = store.add_feed(feed_server.url("/a.xml")), store.add_feed(feed_server.url("/b.xml"))
    up = Updater(store)
    up.update()
    up.close()
    good = store.feed(b).scheduler_state
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE feeds SET scheduler_state = ? WHERE id = ?", ('{"est": [1, 2]}', a))
    db.commit()
    db.close()

    store = Store(path)
    up = Updater(store)  # raised AttributeError before
    try:
        assert any("could not be read" in n for n in up.explain(a).notes)
        assert up.scheduler.export_state(b) == good
        assert {r.feed_id: r.status for r in up.update()} == {a: "ok", b: "ok"}
        assert store.feed(a).scheduler_state["est"]["v"] == 1  # saved afresh
    finally:
        up.close()
        store.close()


def test_unsubscribing_and_restarting_does_not_free_a_days_spent_budget(
    tmp_path: Path, feed_server: FeedServer
) -> None:
    """A deleted feed's fetch log goes with it; its budgeted requests of the last
    day must not, or unsubscribing and restarting would hand the day's spent
    requests out again and the 24 h cap would not hold."""
    from smartreader.updater import Updater

    for name in "abc":
        feed_server.route(f"/{name}.xml", Reply(body=rss(item(name, name.upper()))))
    path = tmp_path / "db.sqlite3"
    store = Store(path)
    a, b = store.add_feed(feed_server.url("/a.xml")), store.add_feed(feed_server.url("/b.xml"))
    store.set_setting("budget_per_day", 2.0)
    up = Updater(store)
    assert [r.status for r in up.update([a, b], manual=False)] == ["ok", "ok"]
    store.delete_feed(a)
    up.feed_changed(a)
    assert up.requests_today() == 2
    up.close()
    store.close()

    store = Store(path)
    c = store.add_feed(feed_server.url("/c.xml"))  # due at once, but the day is spent
    up = Updater(store)
    try:
        assert up.requests_today() == 2  # 1 before: feed a's request was forgotten
        feed_server.clear()
        assert up.run_due() == []
        assert feed_server.requests == []
        assert [r.status for r in up.update([c])] == ["ok"]  # the user's own refresh
    finally:
        up.close()
        store.close()


def test_a_sqlite_without_fts5_is_not_taken_for_damage() -> None:
    """Only a module name our schema does not use is damage: a SQLite built
    without FTS5 must be said as such, not answered with "restore a backup"."""
    assert not looks_damaged("no such module: fts5")
    assert looks_damaged("no such module: gts5")
