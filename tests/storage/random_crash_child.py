"""The child process of ``test_random_crash.py``: a seeded random session of real
Store/Updater writes on a data folder, killed by the parent (or by itself, at a
point the parent chose) at any moment.

    python tests/storage/random_crash_child.py '<json config>'

It opens the data folder as the app does (``walguard.before_open``,
``recovery.diagnose``, ``Store``, ``Updater``), then runs ``ops`` operations chosen
by ``random.Random(f"{seed}/{round}")`` from the database's own state, so a rerun
on a copy of the folder as it was (the parent's replay) does exactly the same.
Before each operation it prints ``B <i> <name> <params>``; after it committed,
``C <i> <name> <snapshot hash> <info>``; with ``snaps`` the whole logical snapshot
(``S <i> <json>``) after the operations named there (-1: before the first).

Self-kill points (``kill``), exact and deterministic:

* ``{"kind": "step", "n": N}``: SIGKILL at the Nth progress callback (every
  ``PROGRESS_EVERY`` virtual-machine steps) of the Store's writer connection;
* ``{"kind": "tx", "n": N}``: SIGKILL before the Nth ``Store._tx`` (between two
  transactions of one operation as well as between operations);
* ``{"kind": "optx", "op": I, "j": J}``: SIGKILL before the Jth transaction of
  operation I, or when it is done and before it is reported if it has fewer;
* ``{"kind": "opstep", "op": I, "n": N}``: likewise at its Nth progress callback;
* ``{"kind": "call", "target": "Store.update_feed", "n": N}``: SIGKILL when a
  Store method (or ``backups.<function>``) is called the Nth time;
* ``{"kind": "partial", "n": N}``: SIGKILL at the Nth progress callback of a
  connection to a backup's temporary ``.partial`` file.

Other modes (``mode``): ``migrate`` opens a database (an old schema: the upgrade
runs) with ``migrate_step`` counted on every connection; ``backup`` runs
``make_backup``; ``import`` imports an OPML file; ``add_feed`` adds one feed in a
new folder; ``restore`` restores the newest backup over a damaged database, killed
just before the backup's copy is renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any, ClassVar

if __name__ == "__main__":  # run as a script from anywhere: the checkout first
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from smartreader.storage import backups, recovery, walguard
from smartreader.storage.store import DB_NAME, Store

T0 = 1_800_000_000.0
DAY = 86400.0
ROUND_SPAN = 2 * DAY  # each round's clock starts this much after the previous one
OP_SPAN = 900.0  # seconds of the fake clock per operation
MAX_FEEDS = 60  # feed documents the parent's server serves: /f/<n>.xml
PROGRESS_EVERY = 20

# ---------------------------------------------------------------- killing


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


# The operation running (its index in the session), and its own transactions and
# progress callbacks so far: ``optx`` and ``opstep`` kills count within one operation.
OP = {"index": -2, "tx": 0, "steps": 0}
OP_KILL: dict[str, Any] = {}  # the ``optx``/``opstep`` kill armed, if any


def kill_on_progress(con: sqlite3.Connection, n: int | None, counter: list[int]) -> None:
    def handler() -> int:
        counter[0] += 1
        if n is not None and counter[0] >= n:
            die()
        if OP_KILL.get("kind") == "opstep" and OP["index"] == OP_KILL["op"]:
            OP["steps"] += 1
            if OP["steps"] >= OP_KILL["n"]:
                die()
        return 0

    con.set_progress_handler(handler, PROGRESS_EVERY)


TX_COUNT = [0]  # transactions begun (``Store._tx``), counted always


def count_transactions(kill: dict[str, Any] | None) -> None:
    """Count ``Store._tx`` calls; with a ``tx`` kill, die before the Nth; with an
    ``optx`` kill, before the Jth of operation ``op``."""
    orig_tx = Store._tx
    n = kill["n"] if kill and kill["kind"] == "tx" else None
    if kill and kill["kind"] in ("optx", "opstep"):
        OP_KILL.update(kill)

    def _tx(self: Store) -> Any:
        TX_COUNT[0] += 1
        if n is not None and TX_COUNT[0] >= n:
            die()
        if OP_KILL.get("kind") == "optx" and OP["index"] == OP_KILL["op"]:
            OP["tx"] += 1
            if OP["tx"] >= OP_KILL["j"]:
                die()
        return orig_tx(self)

    Store._tx = _tx  # type: ignore[method-assign]


def install_kill(kill: dict[str, Any] | None) -> list[int]:
    """The kills that are armed before anything opens (the store's own are armed
    by ``arm_store``). Returns the progress-callback counter of ``partial`` and
    ``migrate_step`` (counted even with no ``n``)."""
    counter = [0]
    if not kill:
        return counter
    kind = kill["kind"]
    if kind == "call":
        # "Store.method" or "backups.function": die at its Nth call
        owner_name, name = kill["target"].split(".")
        owner: Any = {"Store": Store, "backups": backups}[owner_name]
        orig = getattr(owner, name)
        calls = [0]

        def wrapper(*a: Any, **k: Any) -> Any:
            calls[0] += 1
            if calls[0] >= kill["n"]:
                die()
            return orig(*a, **k)

        setattr(owner, name, wrapper)
    elif kind in ("partial", "migrate_step"):
        real_connect = sqlite3.connect

        def connect(*a: Any, **k: Any) -> sqlite3.Connection:
            con = real_connect(*a, **k)
            target = str(a[0]) if a else str(k.get("database"))
            if kind == "migrate_step" or target.endswith(".partial"):
                kill_on_progress(con, kill.get("n"), counter)
            return con

        sqlite3.connect = connect  # type: ignore[assignment]
    return counter


def arm_store(store: Store, kill: dict[str, Any] | None, counter: list[int]) -> None:
    """Count the writer connection's progress callbacks; with a ``step`` kill, die
    at the Nth."""
    kill_on_progress(store._db, kill["n"] if kill and kill["kind"] == "step" else None, counter)


# ---------------------------------------------------------------- snapshots


def snapshot(db: Path) -> dict[str, dict[str, Any]]:
    """The database's logical content, table by table, row by key (what the user
    sees and the app relies on; not timings, rowids of keyless tables, or bytes)."""
    con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        q = con.execute
        snap: dict[str, dict[str, Any]] = {}
        snap["folders"] = {str(r[1]): r[0] for r in q("SELECT id, name FROM folders")}
        snap["feeds"] = {
            str(r[0]): list(r[1:])
            for r in q(
                "SELECT feeds.id, url, title, user_title, folders.name, weight, min_interval, "
                "load_images, keep_days, status, etag, last_modified, last_error, error_count, "
                "last_fetched, last_success, capacity, redirect_url, hints_json, "
                "scheduler_state, previous_urls, auth_username, added_at, site_link "
                "FROM feeds LEFT JOIN folders ON folders.id = feeds.folder_id"
            )
        }
        snap["entries"] = {
            str(r[0]): [*r[1:13], hashlib.sha1((r[13] + "\0" + r[14]).encode()).hexdigest()]
            for r in q(
                "SELECT id, feed_id, uid, title, title_key, link, author, published, updated, "
                "first_seen, sort_time, read, starred, content, summary FROM entries"
            )
        }
        snap["purged"] = {
            f"{r[0]}:{r[1]}": r[2] for r in q("SELECT feed_id, uid, purged FROM purged_entries")
        }
        snap["fetch_log"] = {
            str(r[0]): list(r[1:])
            for r in q(
                "SELECT id, feed_id, time, status, http_status, bytes, new_items, window_items, "
                "error, manual, missed_estimate, warnings FROM fetch_log"
            )
        }
        snap["alerts"] = {
            str(r[0]): list(r[1:])
            for r in q(
                "SELECT id, feed_id, created, missed_estimate, window_from, window_to, "
                "capacity, dismissed FROM alerts"
            )
        }
        snap["settings"] = {str(r[0]): r[1] for r in q("SELECT key, value FROM settings")}
        snap["spent"] = {"times": sorted(r[0] for r in q("SELECT time FROM spent_requests"))}
        snap["id_high"] = {str(r[0]): r[1] for r in q("SELECT tbl, high FROM id_high")}
        if q("SELECT 1 FROM sqlite_master WHERE name = 'rules'").fetchone():  # schema v13
            snap["rules"] = {
                str(r[0]): list(r[1:])
                for r in q(
                    "SELECT id, query, feed_id, title_only, action, created, hits FROM rules"
                )
            }
        return snap
    finally:
        con.close()


def digest(snap: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(snap, sort_keys=True).encode()).hexdigest()[:20]


# ---------------------------------------------------------------- the session


def say(*parts: Any) -> None:
    print(*parts, flush=True)


class Session:
    def __init__(self, cfg: dict[str, Any]) -> None:
        self.cfg = cfg
        self.data = Path(cfg["data"])
        self.db = self.data / DB_NAME
        self.rng = random.Random(f"{cfg['seed']}/{cfg['round']}")
        self.base = f"http://127.0.0.1:{cfg['port']}"
        self.clock = T0 + cfg["round"] * ROUND_SPAN
        self.undos: list[Any] = []
        self.step_counter = [0]
        self.store: Store
        self.up: Any = None

    def now(self) -> float:
        return self.clock

    def open(self) -> None:
        """As the app starts: a stray WAL set aside, then diagnose, then the Store."""
        from smartreader.updater import Updater

        stray = walguard.before_open(self.db, backups.backups_dir(self.db))
        if stray is not None:
            say("STRAY", stray)
            sys.exit(4)
        problem = recovery.diagnose(self.db)
        if problem is not None:
            say("PROBLEM", problem.kind, problem.detail)
            sys.exit(3)
        self.store = Store(self.db)
        arm_store(self.store, self.cfg.get("kill"), self.step_counter)
        self.up = Updater(self.store, now=self.now, max_workers=1)

    def close(self) -> None:
        self.up.close()
        self.store.close()

    # -- choices from the database's own state

    def feeds(self) -> list[Any]:
        return sorted(self.store.feeds(), key=lambda f: f.id)

    def entry_ids(self) -> list[int]:
        return sorted(self.store.entry_ids())

    def folder_names(self) -> list[str]:
        return [f.name for f in self.store.folders()]

    def free_paths(self) -> list[int]:
        taken = {f.url for f in self.store.feeds()}
        return [n for n in range(MAX_FEEDS) if f"{self.base}/f/{n}.xml" not in taken]

    def new_folder(self) -> str:
        r = self.rng
        return r.choice(["News", "Tech", "Misc", "Café", "Dev » tools"]) + f" {r.randrange(30)}"

    # -- operations: each returns (params, info) or None when it does not apply

    def op_add_feed(self) -> Any:
        free = self.free_paths()
        if not free:
            return None
        n = self.rng.choice(free)
        names = self.folder_names()
        folder = self.rng.choice([None, self.new_folder(), *names[:3]])
        params = {"n": n, "folder": folder}
        yield params
        fid = self.store.add_feed(
            f"{self.base}/f/{n}.xml", folder=folder, title=f"Feed {n}", now=self.now()
        )
        yield {"fid": fid}

    def op_update(self) -> Any:
        feeds = [f.id for f in self.feeds() if f.status == "active"]
        if not feeds:
            return None
        ids = self.rng.sample(feeds, self.rng.randint(1, min(len(feeds), 12)))
        manual = self.rng.random() < 0.5
        yield {"ids": ids, "manual": manual}
        if not manual and self.rng.random() < 0.5:
            res = self.up.run_due()
        else:
            res = self.up.update(ids, manual=manual)
        yield {"results": [[r.feed_id, r.status, r.new_entries] for r in res]}

    def op_flags(self) -> Any:
        ids = self.entry_ids()
        if not ids:
            return None
        pick = self.rng.sample(ids, self.rng.randint(1, min(len(ids), 80)))
        col = self.rng.choice(["read", "starred"])
        value = self.rng.random() < 0.7
        yield {"col": col, "value": value, "n": len(pick)}
        (self.store.set_read if col == "read" else self.store.set_starred)(pick, value)
        yield {}

    def op_rules(self) -> Any:
        """A rule added (words of the served feeds' items), changed or removed: the
        next fetches apply them in their own transaction."""
        rules = self.store.rules()
        what = self.rng.choice(["add", "add", "update", "delete"] if rules else ["add"])
        words = self.rng.choice(["edited", "strasse", "cafe dolor", "item 3", "round"])
        feeds = [f.id for f in self.feeds()]
        feed = self.rng.choice([None, None, *feeds[:3]])
        title_only = self.rng.random() < 0.3
        action = self.rng.choice(["read", "read", "star"])
        rid = self.rng.choice(rules).id if rules else None
        yield {"what": what, "words": words, "feed": feed, "title_only": title_only,
               "action": action, "rule": rid}  # fmt: skip
        if what == "add":
            yield {"id": self.store.add_rule(words, feed_id=feed, title_only=title_only,
                                             action=action, now=self.now())}  # fmt: skip
        elif what == "update":
            assert rid is not None
            self.store.update_rule(rid, words, feed_id=feed, title_only=title_only, action=action)
            yield {}
        else:
            assert rid is not None
            self.store.delete_rule(rid)
            yield {}

    def op_mark_read(self) -> Any:
        ids = self.entry_ids()
        if not ids:
            return None
        pick = self.rng.sample(ids, self.rng.randint(1, min(len(ids), 40)))
        yield {"n": len(pick)}
        yield {"marked": len(self.store.mark_read(pick))}

    def op_mark_all_read(self) -> Any:
        feeds = [f.id for f in self.feeds()]
        ids = self.entry_ids()
        if not feeds or not ids:
            return None
        some = self.rng.sample(feeds, self.rng.randint(1, len(feeds)))
        which = self.rng.choice([None, some])
        upto = self.rng.choice([None, self.rng.choice(ids)])
        yield {"feeds": which, "upto": upto}
        yield {"marked": len(self.store.mark_all_read(which, upto_id=upto))}

    def op_rename_feed(self) -> Any:
        feeds = self.feeds()
        if not feeds:
            return None
        f = self.rng.choice(feeds)
        name = self.rng.choice([None, f"Renamed {self.rng.randrange(1000)}", "Ünïcode ½"])
        yield {"fid": f.id, "name": name}
        self.store.update_feed(f.id, user_title=name)
        yield {}

    def op_move_feed(self) -> Any:
        feeds = self.feeds()
        if not feeds:
            return None
        f = self.rng.choice(feeds)
        folder = self.rng.choice([None, self.new_folder(), *self.folder_names()[:4]])
        yield {"fid": f.id, "folder": folder}
        self.store.update_feed(f.id, folder=folder)
        yield {}

    def op_feed_settings(self) -> Any:
        feeds = self.feeds()
        if not feeds:
            return None
        f = self.rng.choice(feeds)
        changes = {
            "weight": self.rng.choice([0.5, 1.0, 3.0]),
            "keep_days": self.rng.choice([None, 0, 1, 30]),
            "min_interval": self.rng.choice([None, 600.0, 3600.0]),
            "load_images": self.rng.random() < 0.5,
        }
        yield {"fid": f.id, **changes}
        self.store.update_feed(f.id, **changes)
        with self.up._lock:
            self.up.feed_changed(f.id)
        yield {}

    def op_folders(self) -> Any:
        names = self.folder_names()
        what = self.rng.choice(["add", "rename", "delete"] if names else ["add"])
        if what == "add":
            name = self.new_folder()
            yield {"add": name}
            self.store.folder_id(name)
        else:
            folder = self.rng.choice(self.store.folders())
            if what == "rename":
                name = self.new_folder()
                yield {"rename": folder.name, "to": name}
                try:
                    self.store.rename_folder(folder.id, name)
                except Exception as e:  # a taken name: refused, nothing written
                    yield {"refused": str(e)}
                    return
            else:
                yield {"delete": folder.name}
                self.store.delete_folder(folder.id)
        yield {}

    def op_unsubscribe(self) -> Any:
        from smartreader.subscriptions import unsubscribe

        feeds = self.feeds()
        if not feeds:
            return None
        f = self.rng.choice(feeds)
        yield {"fid": f.id}
        done = unsubscribe(self.store, f.id, keep_for_undo=True)
        with self.up._lock:
            self.up.feed_changed(f.id)
        if done.undo is not None:
            self.undos.append(done.undo)
        yield {"articles": done.articles}

    def op_resubscribe(self) -> Any:
        from smartreader.subscriptions import resubscribe

        if not self.undos:
            return None
        undo = self.undos.pop(self.rng.randrange(len(self.undos)))
        yield {"url": undo.snapshot.feed["url"]}
        try:
            fid, _ = resubscribe(self.store, undo)
        except Exception as e:  # its address taken again meanwhile: refused
            yield {"refused": str(e)}
            return
        with self.up._lock:
            self.up.feed_changed(fid)
        yield {"fid": fid}

    def op_setting(self) -> Any:
        from smartreader.updater import CONTENT_AWARE, KEEP_READ_DAYS, KEEP_UNREAD_DAYS

        what = self.rng.choice(["budget", "interval", "keep", "ui", "content"])
        if what == "budget":
            v = float(self.rng.choice([20, 100, 500]))
            yield {"budget": v}
            self.up.set_budget(v)
        elif what == "interval" and self.rng.random() < 0.5:
            v = float(self.rng.choice([3600, 86400, 604800]))
            yield {"max_interval": v}
            self.up.set_max_interval(v)
        elif what == "interval":
            v = float(self.rng.choice([60, 900, 3600]))
            yield {"min_interval": v}
            self.up.set_min_interval(v)
        elif what == "keep":
            v = self.rng.choice([0, 1, 2, 90])
            yield {"keep_read_days": v}
            self.store.set_setting(KEEP_READ_DAYS, v)
            self.store.set_setting(KEEP_UNREAD_DAYS, self.rng.choice([0, 3]))
        elif what == "content":
            v = self.rng.random() < 0.5
            yield {"content_aware": v}
            self.store.set_setting(CONTENT_AWARE, v)
        else:
            v = {"zoom": self.rng.randrange(5), "split": [self.rng.randrange(900), 300]}
            yield {"ui": v}
            self.store.set_setting("ui.window", v)
        yield {}

    def op_import(self) -> Any:
        from smartreader.net.opml import FOLDER_SEP, OpmlSubscription, write_opml
        from smartreader.subscriptions import import_opml

        r = self.rng
        free = self.free_paths()
        k = r.choice([2, 8, 30])
        subs = []
        existing = [f.url for f in self.feeds()]
        top = f"Import {self.cfg['round']}-{r.randrange(100)}"
        for j in range(k):
            if free and r.random() < 0.6:
                url = f"{self.base}/f/{free.pop(r.randrange(len(free)))}.xml"
            elif existing and r.random() < 0.2:
                url = r.choice(existing)  # already subscribed: left as it is
            else:
                url = f"{self.base}/gone/{self.cfg['round']}-{j}-{r.randrange(10**6)}.xml"
            folder = r.choice([None, top, top + FOLDER_SEP + f"Sub {j % 3}"])
            settings = []
            if r.random() < 0.5:
                settings.append(("priority", r.choice(["2", "0.5"])))
            if r.random() < 0.4:
                settings.append(("keepDays", r.choice(["0", "7"])))
            if r.random() < 0.3:
                settings.append(("minIntervalMinutes", "30"))
            if r.random() < 0.3:
                settings.append(("title", f"Imported {j}"))
            subs.append(OpmlSubscription(url=url, title=f"Outline {j}", folder=folder,
                                         settings=tuple(settings)))  # fmt: skip
        empty = [top + FOLDER_SEP + "Empty", f"Lonely {r.randrange(100)}"]
        data = write_opml(subs, folders=empty)
        yield {"outlines": k, "top": top}
        report = import_opml(self.store, data, now=self.now())
        with self.up._lock:
            for fid in report.added:
                self.up.feed_changed(fid)
        yield {"added": len(report.added), "already": report.already}

    def op_purge(self) -> Any:
        if self.rng.random() < 0.5:
            yield {"cleanup": True}
            res = self.up.cleanup(force=True)
        else:
            read_days = self.rng.choice([0.5, 1.0, 2.0])
            unread_days = self.rng.choice([None, 3.0])
            batch = self.rng.choice([3, 20, 500])
            yield {"read_days": read_days, "unread_days": unread_days, "batch": batch}
            res = self.store.purge_old(
                self.now(), read_days=read_days, unread_days=unread_days, batch=batch
            )
        assert res is not None
        yield {"read": res.read, "unread": res.unread, "log": res.log_rows}

    def op_backup(self) -> Any:
        yield {}
        made = backups.make_backup(self.store, now=self.now())
        yield {"made": made.name}

    def op_compact(self) -> Any:
        yield {}
        self.store.compact()
        yield {}

    def op_dismiss(self) -> Any:
        alerts = self.store.alerts()
        if not alerts:
            return None
        yield {"n": len(alerts)}
        self.store.dismiss_alerts([a.id for a in alerts])
        yield {}

    def op_restart(self) -> Any:
        yield {}
        self.close()
        self.open()
        yield {}

    WEIGHTS: ClassVar[dict[str, int]] = {
        "add_feed": 4,
        "update": 5,
        "flags": 4,
        "rules": 1,
        "mark_read": 2,
        "mark_all_read": 2,
        "rename_feed": 2,
        "move_feed": 2,
        "feed_settings": 2,
        "folders": 2,
        "unsubscribe": 1,
        "resubscribe": 1,
        "setting": 2,
        "import": 1,
        "purge": 2,
        "backup": 1,
        "compact": 1,
        "dismiss": 1,
        "restart": 1,
    }

    def run(self) -> None:
        cfg = self.cfg
        snaps = set(cfg.get("snaps", ()))
        stop_after = cfg.get("stop_after")
        install_kill(cfg.get("kill"))
        count_transactions(cfg.get("kill"))
        self.open()
        snap = snapshot(self.db)
        say("C", -1, "open", digest(snap), "{}")
        if -1 in snaps:
            say("S", -1, json.dumps(snap))
        names = list(self.WEIGHTS)
        weights = [self.WEIGHTS[n] for n in names]
        for i in range(cfg["ops"]):
            if stop_after is not None and i > stop_after:
                break
            self.clock = T0 + cfg["round"] * ROUND_SPAN + (i + 1) * OP_SPAN
            while True:  # an operation that does not apply now: another one
                name = self.rng.choices(names, weights)[0]
                steps = getattr(self, "op_" + name)()
                params = next(steps, None) if steps is not None else None
                if params is not None:
                    break
            say("B", i, name, json.dumps(params, default=str))
            OP.update(index=i, tx=0, steps=0)
            info = next(steps, {})
            for more in steps:  # a refusal reported after the fact
                info = {**info, **more}
            OP["index"] = -2
            if OP_KILL and OP_KILL["op"] == i:  # not reached inside: done, not reported
                die()
            snap = snapshot(self.db)
            info = {**info, "_tx": TX_COUNT[0], "_steps": self.step_counter[0]}
            say("C", i, name, digest(snap), json.dumps(info, default=str))
            if i in snaps:
                say("S", i, json.dumps(snap))
        self.close()
        say("END")


# ---------------------------------------------------------------- other modes


def run_migrate(cfg: dict[str, Any]) -> None:
    counter = install_kill(cfg.get("kill"))
    db = Path(cfg["data"]) / DB_NAME
    store = Store(db)
    say("OPENED", store._q("PRAGMA user_version")[0][0], counter[0])
    store.close()


def run_backup(cfg: dict[str, Any]) -> None:
    counter = install_kill(cfg.get("kill"))
    store = Store(Path(cfg["data"]) / DB_NAME)
    made = backups.make_backup(store, now=cfg["now"])
    say("MADE", made.name, counter[0])
    store.close()


def run_import(cfg: dict[str, Any]) -> None:
    from smartreader.subscriptions import import_opml

    install_kill(cfg.get("kill"))
    count_transactions(cfg.get("kill"))
    store = Store(Path(cfg["data"]) / DB_NAME)
    report = import_opml(store, Path(cfg["opml"]).read_bytes(), now=T0)
    say("IMPORTED", len(report.added))
    store.close()


def run_add_feed(cfg: dict[str, Any]) -> None:
    install_kill(cfg.get("kill"))
    count_transactions(cfg.get("kill"))
    store = Store(Path(cfg["data"]) / DB_NAME)
    fid = store.add_feed(cfg["url"], folder=cfg["folder"], now=T0)
    say("ADDED", fid)
    store.close()


def run_restore(cfg: dict[str, Any]) -> None:
    """What the app does when the user picks "Restore the backup", killed just
    before the backup's copy is renamed into place."""
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(".restoring"):
            die()
        real_replace(src, dst)

    os.replace = replace  # type: ignore[assignment]
    db = Path(cfg["data"]) / DB_NAME
    problem = recovery.diagnose(db)
    assert problem is not None and problem.backup is not None, problem
    recovery.restore_backup(db, problem.backup.path, now=cfg["now"])
    say("RESTORED")


def main() -> None:
    cfg = json.loads(sys.argv[1])
    mode = cfg.get("mode", "session")
    if mode == "session":
        Session(cfg).run()
    else:
        {"migrate": run_migrate, "backup": run_backup, "import": run_import,
         "add_feed": run_add_feed, "restore": run_restore}[mode](cfg)  # fmt: skip


if __name__ == "__main__":
    main()
