"""Seeded random sessions of the whole app: the main window and the scheduler worker
in its thread, as ``smartreader`` starts them (``AppController.open`` on a data
folder), a real SQLite file, feeds on local HTTP servers whose answers change.

Fetches come from the worker as they do in use: its own plan (a clock running
``SPEED`` times faster than real time, handed to the updater, its fetcher and the
worker's timer; budget and minimum interval set in Settings) and the user's
refreshes. A step is one user action (keys, clicks, the menus' actions, Add
feed, Settings, Feed ▸ Rules…, Compact, Undo, quitting and starting again) or a change on the
servers; several are races on purpose: the user deletes, renames or moves a
feed, deletes a folder, marks everything read, changes Settings, compacts,
undoes an unsubscribe or quits while a fetch is on the wire (a slow answer),
cancels or quits while Add feed still looks for the feed; and Feed ▸ Pause
updates is turned on and off. Then the step waits until the app is quiet (see
``random_app_support.App.quiet``) and checks, holding the worker still:

* no exception in any thread (slots, the worker, the fetch pool), no ERROR in
  the app's log, no Qt warning;
* the tree against the store (``tests/gui/tree_check.py``): feeds, folders,
  unread counts, the window title; the list: the query the window asks for,
  every article of it listed once, none deleted, flags as stored; the article
  open exists;
* read and starred flags change only by the user's step (or by a rule the
  session added in Feed ▸ Rules…, to new articles its words match, or applied
  at once to the stored ones)s (opening reads one,
  "m" and "s" one, Shift+A only what its list was read from: an article a
  fetch stores meanwhile stays unread); no stored article is lost, except with
  the feed the user deleted; feeds' names and folders change only by the
  user's renames and moves, which stick when a fetch was on the wire;
* a deleted feed never comes back (an in-flight result does not re-create it
  or its articles, the scheduler forgets it), unless Undo brings it back, whole:
  its articles with their flags;
* each feed's last logged fetch is what its server last answered (a 500, a
  broken document or a deadline is an error, a 429/503 a rate limit, a 304
  not-modified); an error shows on the feed in the tree (and in the banner
  over its list) and the next good fetch clears it;
* no request reaches a host before the Retry-After it gave (across restarts);
* the scheduler plans exactly the active feeds; the budget and minimum
  interval it runs on are the ones saved;
* while updates are paused, the status bar says so and no scheduled fetch is
  logged (refreshes are), across restarts;
* the worker thread is alive and answers (a ping through its event loop).

Restarts quit as the user does (Ctrl+Q, File ▸ Quit, the close button), then
check the thread finished (no straggler), both connections closed, the lock
file gone, no WAL left, and the next start finds the feeds, folders, flags,
settings and the window's selection, filter, sort and pause as they were. The last
quit of a session is checked the same way, and the file is opened once more.

Committed form: a few fixed seeds. More: ``RANDOM_APP_SEEDS=100-199`` (or
``5,7,9``), ``RANDOM_APP_STEPS=120``; half the steps taken before the app is
quiet: ``RANDOM_APP_STRESS=1``; each step printed: ``RANDOM_APP_TRACE=1``.
A failure prints the seed and the steps leading to it. What the sessions found
is pinned in ``tests/gui/test_tree_reset.py``.
"""

from __future__ import annotations

import os
import random
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import Qt, QtMsgType
from PySide6.QtWidgets import QDialogButtonBox, QInputDialog

from smartreader.gui import mainwindow, settings
from smartreader.gui.alerts import feed_problem
from smartreader.gui.models import COL_TITLE, RowRole, StatusRole
from smartreader.storage import Store, db_path
from tests.e2e.random_app_support import (
    FETCH_STATUS,
    WORDS,
    App,
    FakeClock,
    NotQuiet,
    Site,
    World,
)
from tests.gui.tree_check import expected_query, tree_problems
from tests.shared import seeds_from_env

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.timeout(600),
]

# The fake clock's seconds per real second: a feed's 5-minute planning slot is 1 s,
# an error's first back-off (30 min) 6 s, a day 4.8 min.
SPEED = 300.0
FOLDERS = ["News", "Tech", "Later"]
NEW_NAMES = ["Morning", "tech", "Zeta", "News", "Later", "Ünïcode ☕"]
SEARCHES = ["kiwi", "otters", "edited", "zebras", "nothingatall"]
_TRACE = bool(os.environ.get("RANDOM_APP_TRACE"))
# the share of steps taken before the app is quiet (RANDOM_APP_STRESS=1: half)
HURRY = 0.5 if os.environ.get("RANDOM_APP_STRESS") else 0.15
_BAD_QT = (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)
# what the servers are asked to answer next (then "ok")
PLANS: list[tuple[list[str], int]] = [
    (["500"], 4), (["500", "500"], 2), (["broken"], 4), (["404"], 2), (["timeout"], 2),
    (["429"], 3), (["503"], 2), (["slow"], 4), (["slow", "slow"], 2), (["302"], 3),
    (["301"], 1), (["410"], 1), (["ok"], 3), (["500", "ok"], 2),
]  # fmt: skip


class Invariant(AssertionError):
    pass


@dataclass
class Step:
    name: str
    choice: int
    hurry: bool = False  # the next step comes before the app is quiet

    def __repr__(self) -> str:
        return f"Step({self.name!r}, {self.choice}{', hurry=True' if self.hurry else ''})"


Flags = dict[int, tuple[int, str, bool, bool]]  # entry id -> feed id, uid, read, starred
# feed id -> (user title, folder id); folder id -> name
Layout = tuple[dict[int, tuple[str | None, int | None]], dict[int, str]]


@dataclass
class Session:
    seed: int
    tmp: Path
    qtbot: Any
    qtlog: Any
    monkeypatch: Any
    captured: Any
    log: list[str] = field(default_factory=list)
    # feed id -> (its address, {uid: (read, starred)} when it was deleted)
    deleted: dict[int, tuple[str, dict[str, tuple[bool, bool]]]] = field(default_factory=dict)
    warned: list[str] = field(default_factory=list)
    # feed id -> fake time Undo brought it back: a fetch on the wire while it was
    # deleted was dropped, rightly (its server's answer then is no log row)
    restored: dict[int, float] = field(default_factory=dict)
    # the fetch log's last row and the time when the app was first seen paused
    # (Feed ▸ Pause updates): no scheduled fetch may follow while the pause lasts
    paused_after: tuple[int, float] | None = None
    app: App | None = None
    _qt_seen: int = 0

    # -- set-up ------------------------------------------------------------------------

    def setup(self) -> None:
        rng = random.Random(self.seed)
        self.rng = rng
        self.clock = FakeClock(SPEED)
        self.world = World(random.Random(self.seed + 1), self.clock)
        self.data_dir = self.tmp / "data"
        mp = self.monkeypatch
        mp.setattr(mainwindow, "ask", lambda *_a, **_k: True)
        mp.setattr(mainwindow, "ask_to_delete", lambda *_a, **_k: True)
        mp.setattr(
            mainwindow, "warn", lambda _p, title, text: self.warned.append(f"{title}: {text}")
        )
        self.rename_to = "x"
        self.rules_seen: set[tuple[str, int | None, bool, str]] = set()
        mp.setattr(QInputDialog, "getText", lambda *_a, **_k: (self.rename_to, True))
        # Settings ▸ Compact shows with 1 MB to give back; these databases are small
        mp.setattr(settings, "COMPACT_MIN_FREE", 0)
        sites = [self.world.new_site() for _ in range(rng.randint(4, 8))]
        folders = {s.idx: rng.choice([None, None, *FOLDERS]) for s in sites}
        self.how_started = "prefilled" if rng.random() < 0.5 else "welcome"
        if self.how_started == "prefilled":
            # subscribed earlier (`smartreader import`), never fetched: due at start
            with Store(db_path(self.data_dir)) as store:
                store.set_setting("budget_per_day", 5000.0)
                store.set_setting("min_interval", 60.0)
                for s in sites:
                    store.add_feed(s.url, folder=folders[s.idx], now=self.clock())
            self.start()
        else:
            self.start()  # the welcome screen
            self.settings(5000, 1)
            opml = self.tmp / "feeds.opml"
            opml.write_text(_opml(sites, folders), encoding="utf-8")
            added = self.win.import_opml(str(opml))  # File ▸ Import OPML…
            assert added == len(sites), f"imported {added} of {len(sites)}"
        self.before = self.check(first=True)

    def start(self) -> None:
        self.app = App(self.data_dir, self.clock, self.qtbot, self.monkeypatch)
        if self.app.problems:
            raise Invariant(f"start-up problem: {[p.message for p in self.app.problems]}")
        self.win.list.setFocus()

    @property
    def win(self) -> Any:
        assert self.app is not None
        return self.app.win

    @property
    def store(self) -> Any:
        assert self.app is not None
        return self.app.store

    # -- snapshots ---------------------------------------------------------------------

    def flags(self) -> Flags:
        rows = self.store._q("SELECT id, feed_id, uid, read, starred FROM entries")
        return {int(r[0]): (int(r[1]), str(r[2]), bool(r[3]), bool(r[4])) for r in rows}

    def layout(self) -> Layout:
        """The names and places the user gives: feeds' own names and folders, and
        folders' names."""
        st = self.store
        return (
            {f.id: (f.user_title, f.folder_id) for f in st.feeds()},
            {f.id: f.name for f in st.folders()},
        )

    def state(self) -> dict[str, Any]:
        """What a restart must keep."""
        st = self.store
        return {
            "feeds": sorted((f.id, f.user_title, f.folder) for f in st.feeds()),
            "folders": sorted(f.name for f in st.folders()),
            "settings": tuple(
                st.get_setting(k) for k in ("budget_per_day", "min_interval", "max_interval")
            ),
            "selection": self.win.current_key(),
            "unread only": self.win.act_unread_only.isChecked(),
            "paused": self.win.act_pause.isChecked(),
            "sort": self.win.list_model.sort_state(),
        }

    # -- checks ------------------------------------------------------------------------

    def check(self, effects: list[tuple[Any, ...]] | None = None, *, first: bool = False) -> Flags:
        """Wait until the app is quiet, compare it with the store and the servers;
        returns the flags, the next step's "before" (and keeps the layout)."""
        assert self.app is not None
        try:
            with self.app.quiet():
                problems = self._problems(effects or [], first=first)
                after = self.flags()
                self.layout_before = self.layout()
        except NotQuiet as e:
            problems, after = [str(e)], {}
        problems += self._captured()
        if problems:
            raise Invariant("\n".join(problems))
        return after

    def _captured(self) -> list[str]:
        problems = []
        exceptions, records = self.captured.take()
        problems += [f"exception: {e}" for e in exceptions]
        for r in records:
            if r.levelno >= 40 or "did not stop" in r.getMessage():
                problems.append(f"log {r.levelname} {r.name}: {r.getMessage()}")
        for rec in self.qtlog.records[self._qt_seen :]:
            if rec.type in _BAD_QT and "propagateSizeHints" not in rec.message:
                problems.append(f"Qt: {rec.message}")
        self._qt_seen = len(self.qtlog.records)
        if self.world.violations:
            problems += [f"Retry-After: {v}" for v in self.world.violations]
            self.world.violations.clear()
        # the user's own slips, said in a box: a name taken; an Undo of an
        # unsubscribe whose address was subscribed again since
        expected = ("already exists", "another feed now has the address")
        warned = [w for w in self.warned if not any(e in w for e in expected)]
        problems += [f"warning box: {w}" for w in warned]
        self.warned.clear()
        return problems

    def _problems(self, effects: list[tuple[Any, ...]], *, first: bool) -> list[str]:
        assert self.app is not None
        w, st, up = self.win, self.store, self.app.updater
        problems = tree_problems(w, st)
        feeds = st.feeds()
        ids = {f.id for f in feeds}
        # -- the worker
        if not self.app.sched.is_running():
            problems.append("the scheduler thread is not running")
        active = {f.id for f in feeds if f.status == "active"}
        planned = set(up._scheduled_ids)
        if planned != active or set(up.scheduler._feeds) != planned:
            problems.append(
                f"the scheduler plans {sorted(planned)} ({sorted(up.scheduler._feeds)}), "
                f"the active feeds are {sorted(active)}"
            )
        for key, running in (
            ("budget_per_day", up.budget()),
            ("min_interval", up.min_interval()),
            ("max_interval", up.max_interval()),
        ):
            saved = st.get_setting(key)
            if saved is not None and float(saved) != running:
                problems.append(f"{key} saved {saved}, the scheduler runs on {running}")
        problems += self._pause_problems()
        # -- deleted feeds stay deleted
        urls = {f.url for f in feeds}
        for fid, (url, _flags) in self.deleted.items():
            if fid in ids:
                problems.append(f"deleted feed {fid} ({url}) is back")
            n = st._q(
                "SELECT (SELECT count(*) FROM entries WHERE feed_id = ?) + "
                "(SELECT count(*) FROM fetch_log WHERE feed_id = ?)",
                (fid, fid),
            )[0][0]
            if n:
                problems.append(f"deleted feed {fid} has {n} articles or log rows")
            if url in urls and not any(f.url == url and f.id > fid for f in feeds):
                problems.append(f"deleted feed {fid}'s address {url} is subscribed again")
        # -- each feed's state against its server
        selected = w.current_feed_id()
        for f in feeds:
            problems += self._feed_problems(f, selected)
        problems += self._list_problems()
        problems += self._full_problems()
        if not first:
            problems += self._flag_problems(self.before, self.flags(), effects)
            problems += self._layout_problems(self.layout_before, self.layout(), effects)
        return problems

    def _pause_problems(self) -> list[str]:
        """Paused: the status bar says so, and nothing is fetched unasked. The
        worker has run the pause by now (``quiet`` waited for it), so the fetch
        log's last row then is the line no scheduled fetch may cross (rows an Undo
        puts back come after it, with their old times)."""
        w, st = self.win, self.store
        if not w.act_pause.isChecked():
            self.paused_after = None
            return []
        problems = []
        status = w._status
        if status is not None and not status.updating and w.next_label.text() != "Updates paused":
            problems.append(f"paused, but the status bar says {w.next_label.text()!r}")
        last = int(st._q("SELECT coalesce(max(id), 0) FROM fetch_log")[0][0])
        if self.paused_after is None:
            self.paused_after = (last, self.clock())
            return problems
        rows = st._q(
            "SELECT feed_id, time FROM fetch_log WHERE id > ? AND time >= ? AND manual = 0",
            self.paused_after,
        )
        if rows:
            problems.append(f"scheduled fetches while paused: {[tuple(r) for r in rows][:5]}")
        return problems

    def _layout_problems(self, before: Layout, after: Layout, effects: list[Any]) -> list[str]:
        """Names and folders change only by the user's renames and moves, and those
        stick (a fetch on the wire meanwhile does not put the old ones back)."""
        if any(e[0] in ("any", "layout") for e in effects):
            return []
        want_feeds, want_folders = dict(before[0]), dict(before[1])
        for e in effects:
            if e[0] == "renamed" and e[1].startswith("feed:") and int(e[1][5:]) in want_feeds:
                fid = int(e[1][5:])
                want_feeds[fid] = (e[2], want_feeds[fid][1])
            elif e[0] == "renamed" and e[1].startswith("folder:"):
                want_folders[int(e[1][7:])] = e[2]
            elif e[0] == "moved" and e[1] in want_feeds:
                want_feeds[e[1]] = (want_feeds[e[1]][0], e[2])
        problems = [
            f"feed {fid} is named and placed {after[0][fid]}, the user left it {want}"
            for fid, want in want_feeds.items()
            if fid in after[0] and after[0][fid] != want
        ]
        problems += [
            f"folder {fid} is named {after[1][fid]!r}, the user named it {want!r}"
            for fid, want in want_folders.items()
            if fid in after[1] and after[1][fid] != want
        ]
        return problems

    def _feed_problems(self, f: Any, selected: int | None) -> list[str]:
        problems: list[str] = []
        site = self.world.site_of(f.url)
        rows = self.store.fetch_log(f.id, limit=1)
        if site is None or not rows:
            return problems
        row, served = rows[0], self.world.last_served(site)
        name = f"feed {f.id} ({site.path})"
        if served is not None and served.fake < self.restored.get(f.id, -1.0):
            pass  # answered while the feed was deleted; Undo brought it back since
        elif served is not None and row.time <= served.fake:
            want = FETCH_STATUS[served.kind]
            if row.status != want:
                problems.append(
                    f"{name}: its server last answered {served.kind} ({served.status}), "
                    f"its last fetch is logged {row.status} ({row.error})"
                )
        elif row.status != "rate_limited":  # no request: only a host's Retry-After holds one
            problems.append(f"{name}: last fetch {row.status} ({row.error}) sent no request")
        status = self.win.tree_model.index_for_key(f"feed:{f.id}").data(StatusRole)
        if row.status == "error" and not (f.last_error and f.error_count and status == "error"):
            problems.append(
                f"{name}: its last fetch failed ({row.error}), the feed shows "
                f"error={f.last_error!r} (count {f.error_count}), tree status {status!r}"
            )
        if row.status in ("ok", "not_modified") and (f.last_error or status == "error"):
            problems.append(
                f"{name}: its last fetch worked, the feed still shows {f.last_error!r}, "
                f"tree status {status!r}"
            )
        if row.status == "gone" and not (f.status == "gone" and status == "error"):
            problems.append(f"{name}: gone (410), shown as status {f.status!r}, tree {status!r}")
        if f.id == selected:
            banner = self.win.error_banner.isVisible()
            if banner != (feed_problem(f) is not None):
                problems.append(f"{name}: error banner shown={banner}, problem {feed_problem(f)!r}")
        return problems

    def expected_query(self) -> dict[str, Any]:
        return expected_query(self.win, self.store)

    def _full_problems(self) -> list[str]:
        """The open article shows its page exactly when one is kept for it, and
        the page is that article's (its guid in it, from the world's server)."""
        view, st = self.win.article_view, self.store
        e = view.entry
        if e is None or not st.entry_rows([e.id]):
            return []
        kept = st.full_article(e.id)
        if (kept is None) != (view.full is None):
            return [f"article {e.id}: page kept {kept is not None}, shown {view.full is not None}"]
        if kept is not None and view.full is not None:
            if view.full.entry_id != e.id or kept.html != view.full.html:
                return [f"article {e.id} shows the page of article {view.full.entry_id}"]
            if f"The article {e.uid} at length" not in kept.html:
                return [f"article {e.id} ({e.uid}) kept another page: {kept.html[:120]!r}"]
        return []

    def _list_problems(self) -> list[str]:
        w, st = self.win, self.store
        m = w.list_model
        problems = []
        q = self.expected_query()
        shown_q = {k: (sorted(v) if k == "feed_ids" else v) for k, v in m.query().items()}
        if shown_q != q:
            problems.append(f"list shows query {m.query()}, the window asks for {q}")
        if not w.tree.currentIndex().isValid():
            # the window takes none for "All unread" (Shift+A reads every feed)
            problems.append(f"the tree has no current item (the list shows {m.query()})")
        ids = list(m._ids)
        if len(ids) != len(set(ids)):
            problems.append(f"list has rows twice: {sorted({i for i in ids if ids.count(i) > 1})}")
        want = st.entry_ids(feed_ids=q.get("feed_ids"), unread=bool(q.get("unread")),
                            starred=bool(q.get("starred")), search=q.get("search"))  # fmt: skip
        missing = [i for i in want if i not in set(ids)]
        if missing:
            about = {i: (r.feed_id, r.title, r.read) for i, r in st.entry_rows(missing[:4]).items()}
            problems.append(
                f"list ({w.current_key()}, {q}, sorted {m.sort_state()}, {len(ids)} rows) lacks "
                f"{len(missing)} articles of its query: {missing[:8]} {about}"
            )
        rows = st.entry_rows(ids)
        gone = [i for i in ids if i not in rows]
        if gone:
            problems.append(f"list shows deleted articles {gone[:8]}")
        for r, i in enumerate(ids):
            shown, real = m.data(m.index(r, COL_TITLE), RowRole), rows.get(i)
            if shown is None or real is None:
                continue
            seen = (shown.read, shown.starred, shown.title)
            if seen != (real.read, real.starred, real.title):
                problems.append(
                    f"row {r} (article {i}) shows {seen}, stored "
                    f"{(real.read, real.starred, real.title)}"
                )
        cur = w._current_entry
        if cur is not None and not st.entry_rows([cur]):
            problems.append(f"the article open ({cur}) is not in the store")
        return problems

    def _flag_problems(
        self, before: Flags, after: Flags, effects: list[tuple[Any, ...]]
    ) -> list[str]:
        problems = []
        dropped = {fid for e in effects if e[0] == "deleted" for fid in e[1]}
        lost = [i for i, v in before.items() if i not in after and v[0] not in dropped]
        if lost:
            problems.append(f"stored articles lost: {[(i, before[i][:2]) for i in lost[:8]]}")
        for fid in dropped:
            left = [i for i, v in after.items() if v[0] == fid]
            if left and fid in self.deleted:
                problems.append(f"feed {fid} was deleted, its articles {left[:8]} are not")
        if any(e[0] == "any" for e in effects):
            return problems
        # a rule applied to stored articles now (Feed ▸ Rules…), and what rules may
        # do to new ones: what they match by their words now
        applied = {c: {i for e in effects if e[0] == "rule_apply" and e[1] == c for i in e[2]}
                   for c in ("read", "starred")}  # fmt: skip
        ruled = self._ruled({i for i in after if i not in before})
        budget = {k: sum(1 for e in effects if e[0] == k) for k in ("open", "toggle", "star")}
        marks = [e for e in effects if e[0] == "mark_all"]
        bad = []
        for i, (fid, uid, read, starred) in after.items():
            was_read, was_starred = (before[i][2], before[i][3]) if i in before else (False, False)
            star_ruled = starred and (i in applied["starred"] or i in ruled["star"])
            if starred != was_starred and not star_ruled:
                if budget["star"] > 0:
                    budget["star"] -= 1
                else:
                    bad.append(f"article {i} ({uid}) {'starred' if starred else 'unstarred'}")
            if read == was_read:
                continue
            if read and (i in applied["read"] or i in ruled["read"]):
                continue
            if read and any(_marked_by(e, i, fid) for e in marks):
                continue
            for k in ("open", "toggle") if read else ("toggle",):
                if budget[k] > 0:
                    budget[k] -= 1
                    break
            else:
                new = "" if i in before else " (new)"
                bad.append(f"article {i} ({uid}){new} became {'read' if read else 'unread'}")
        if bad:
            problems.append(f"flags changed by no user action ({effects}): " + "; ".join(bad[:8]))
        return problems

    def _ruled(self, new: set[int]) -> dict[str, set[int]]:
        """Of the articles ``new`` since the last check, those a rule (any added
        in this session, removed since or not) matches now, by its action."""
        out: dict[str, set[int]] = {"read": set(), "star": set()}
        if not new:
            return out
        for query, feed_id, title_only, action in self.rules_seen:
            out[action] |= new & set(
                self.store.rule_matches(query, feed_id=feed_id, title_only=title_only)
            )
        return out

    # -- user actions: each returns what it did, for the log --------------------------

    def _key(
        self, key: Qt.Key, mod: Any = Qt.KeyboardModifier.NoModifier, widget: Any = None
    ) -> None:
        assert self.app is not None
        self.app.activate()
        target = widget or self.win.list
        target.setFocus()
        self.qtbot.keyClick(target, key, mod)

    def _tree_keys(self, prefix: str = "") -> list[str]:
        return [k for k in self.win.tree_model.feed_keys_in_order() if k.startswith(prefix)]

    def _select(self, key: str) -> None:
        w = self.win
        idx = w.tree_model.index_for_key(key)
        w.tree.scrollTo(idx)
        rect = w.tree.visualRect(idx)
        if rect.isValid() and rect.height() > 0:
            self.qtbot.mouseClick(w.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        if w.current_key() != key:
            w.select_key(key)

    def a_select(self, c: int) -> tuple[str, tuple[Any, ...]]:
        keys = self._tree_keys()
        if c % 4 == 0:
            mod = Qt.KeyboardModifier.ShiftModifier
            self._key(Qt.Key.Key_N if c % 8 else Qt.Key.Key_P, mod)
            return f"Shift+{'N' if c % 8 else 'P'} -> {self.win.current_key()}", ("none",)
        key = keys[c % len(keys)]
        self._select(key)
        return f"click {key}", ("none",)

    LIST_KEYS: ClassVar[list[tuple[str, Qt.Key, str]]] = [
        ("j", Qt.Key.Key_J, "open"), ("k", Qt.Key.Key_K, "open"), ("n", Qt.Key.Key_N, "none"),
        ("p", Qt.Key.Key_P, "none"), ("o", Qt.Key.Key_O, "open"),
        ("Enter", Qt.Key.Key_Return, "open"), ("Space", Qt.Key.Key_Space, "open"),
        ("m", Qt.Key.Key_M, "toggle"), ("s", Qt.Key.Key_S, "star"),
    ]  # fmt: skip

    def a_list_key(self, c: int) -> tuple[str, tuple[Any, ...]]:
        name, key, effect = self.LIST_KEYS[c % len(self.LIST_KEYS)]
        self._key(key)
        return f"{name} (article {self.win._current_entry})", (effect,)

    def a_full(self, _c: int) -> tuple[str, tuple[Any, ...]]:
        # d: the open article's page from its site (a world server), or back
        eid = self.win._current_entry
        self._key(Qt.Key.Key_D)
        return f"d (article {eid})", ("none",)

    def a_click_row(self, c: int) -> tuple[str, tuple[Any, ...]]:
        w = self.win
        n = w.list_model.rowCount()
        if not n:
            return "click row: empty list", ("none",)
        r = c % min(n, 12)
        idx = w.list_model.index(r, COL_TITLE)
        w.list.scrollTo(idx)
        self.qtbot.mouseClick(w.list.viewport(), Qt.MouseButton.LeftButton,
                              pos=w.list.visualRect(idx).center())  # fmt: skip
        return f"click row {r} (article {w.list_model.entry_id(r)})", ("open",)

    def a_mark_all(self, _c: int) -> tuple[str, tuple[Any, ...]]:
        w = self.win
        key = w.current_key()
        if key == "smart:starred" or w.search.text().strip():
            scope: tuple[Any, ...] = ("mark_all", None, -1, set(w.list_model.ids()))
        else:
            # what the list was read from: an article stored since, not listed yet,
            # stays unread
            feeds = w.tree_model.feed_ids_for(w.tree.currentIndex())
            upto, above = w.list_model.shown_upto()
            scope = ("mark_all", None if feeds is None else set(feeds), upto, set(above))
        self._key(Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
        return f"Shift+A on {key}", scope

    def a_search(self, c: int) -> tuple[str, tuple[Any, ...]]:
        if self.win.search.text() and c % 2:
            self._key(Qt.Key.Key_Escape, widget=self.win.search)
            return f"Esc in the search (now {self.win.search.text()!r})", ("none",)
        text = SEARCHES[c % len(SEARCHES)]
        self._key(Qt.Key.Key_Slash)
        self.win.search.clear()
        self.qtbot.keyClicks(self.win.search, text)
        return f"search {text!r}", ("none",)

    def a_unread_only(self, _c: int) -> tuple[str, tuple[Any, ...]]:
        self.win.act_unread_only.trigger()
        return f"unread only -> {self.win.act_unread_only.isChecked()}", ("none",)

    def a_pause(self, _c: int) -> tuple[str, tuple[Any, ...]]:
        self.win.act_pause.trigger()  # Feed ▸ Pause updates (or the tray's)
        return f"pause updates -> {self.win.act_pause.isChecked()}", ("none",)

    def a_refresh(self, c: int) -> tuple[str, tuple[Any, ...]]:
        keys = self._tree_keys()
        key = keys[c % len(keys)]
        self._select(key)
        name, k = ("R", Qt.Key.Key_R) if c % 3 else ("F5", Qt.Key.Key_F5)
        self._key(k)
        return f"{name} on {key}", ("none",)

    def a_refresh_all(self, c: int) -> tuple[str, tuple[Any, ...]]:
        if c % 2:
            self._refresh_all_key()
            return "Shift+R", ("none",)
        self.win.act_refresh_all.trigger()  # the toolbar's button
        return "Refresh all (toolbar)", ("none",)

    def _unsubscribed_sites(self) -> list[Site]:
        urls = {f.url for f in self.store.feeds()}
        return [s for s in self.world.sites if not (s.urls() & urls)]

    def a_add(self, c: int) -> tuple[str, tuple[Any, ...]]:
        """File ▸ Add feed…, an address on a local server, a folder, Subscribe."""
        rng = random.Random(c)
        free = self._unsubscribed_sites()
        if rng.random() < 0.15:
            server = rng.choice(self.world.servers)
            url, site = server.url(f"/nothing-{c % 1000}.xml"), None  # 404
        else:
            site = rng.choice(free) if free and rng.random() < 0.5 else self.world.new_site()
            url = site.url
            if rng.random() < 0.2:
                self.world.set_plan(site, [rng.choice(["broken", "500", "slow"])])
        folder = rng.choice(["", "", *FOLDERS, "Fresh"])
        seen = site.arrived if site is not None else 0
        dlg = self.win.add_feed()
        dlg.url.setText(url)
        dlg.folder.setCurrentText(folder)
        dlg.ok.click()
        if c % 5 == 0:  # Cancel while it looks: no subscription stays
            self.qtbot.waitUntil(
                lambda: site is None or site.arrived > seen or not self.win._requests, timeout=5000
            )
            dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
            return f"add {url} in {folder!r}, Cancel while it looks", ("none",)
        self.qtbot.waitUntil(lambda: not self.win._requests, timeout=8000)
        said = dlg.error.text() if self.win._add_dialog is dlg else ""
        if self.win._add_dialog is dlg:
            dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
        got = self.store.feed_id_by_url(url)
        return f"add {url} in {folder!r}: feed {got} {said[:60]!r}", ("none",)

    def _delete_feed(self, key: str) -> tuple[str, tuple[Any, ...]]:
        fid = int(key.split(":")[1])
        feed = self.store.feed(fid)
        flags = {v[1]: (v[2], v[3]) for v in self.flags().values() if v[0] == fid}
        self._select(key)
        self._key(Qt.Key.Key_Delete, widget=self.win.tree)
        if self.store.feed_id_by_url(feed.url) == fid:
            return f"Del on {key}: still subscribed", ("none",)
        self.deleted[fid] = (feed.url, flags)
        return f"Del on {key} ({feed.url})", ("deleted", {fid})

    def a_delete(self, c: int) -> tuple[str, tuple[Any, ...]]:
        keys = self._tree_keys("feed:")
        if len(keys) <= 2:
            return "delete: keeping the last feeds", ("none",)
        return self._delete_feed(keys[c % len(keys)])

    def a_delete_folder(self, c: int) -> tuple[str, tuple[Any, ...]]:
        keys = self._tree_keys("folder:")
        if not keys:
            return "delete folder: none", ("none",)
        key = keys[c % len(keys)]
        self._select(key)
        self._key(Qt.Key.Key_Delete, widget=self.win.tree)
        return f"Del on {key}", ("layout",)  # its feeds move to the top level

    def a_rename(self, c: int) -> tuple[str, tuple[Any, ...]]:
        keys = self._tree_keys("feed:") + self._tree_keys("folder:")
        key = keys[c % len(keys)]
        self._select(key)
        self.rename_to = NEW_NAMES[(c // 7) % len(NEW_NAMES)]
        return self._rename(key)

    def _rename(self, key: str) -> tuple[str, tuple[Any, ...]]:
        """F2 on the selected feed or folder, the new name typed (``rename_to``)."""
        self._key(Qt.Key.Key_F2, widget=self.win.tree)
        kind, _, ident = key.partition(":")
        if kind == "feed":
            now = self.store.feed(int(ident)).user_title
        else:
            now = next((f.name for f in self.store.folders() if f.id == int(ident)), None)
        return f"F2 on {key} -> {self.rename_to!r} (now {now!r})", ("renamed", key, now)

    def a_move(self, c: int) -> tuple[str, tuple[Any, ...]]:
        w = self.win
        keys = self._tree_keys("feed:")
        key = keys[c % len(keys)]
        self._select(key)
        w.move_menu.aboutToShow.emit()  # Feed ▸ Move to
        acts = [a for a in w.move_menu.actions()
                if a.isEnabled() and a.text() and not a.text().startswith("&New")]  # fmt: skip
        if not acts:
            return f"move {key}: nowhere", ("none",)
        act = acts[(c // 7) % len(acts)]
        act.trigger()
        fid = int(key.split(":")[1])
        now = self.store.feed(fid)
        return f"move {key} to {act.text()!r} (now in {now.folder!r})", (
            "moved",
            fid,
            now.folder_id,
        )

    def settings(
        self, budget: int, minutes: int, *, longest: float | None = None, ok: bool = True
    ) -> None:
        dlg = self.win.open_settings()
        dlg.budget_spin.setValue(budget)
        dlg.min_interval.setValue(minutes)
        if longest is not None:
            dlg.max_interval.setCurrentIndex(dlg.max_interval.findData(longest))
        button = (
            QDialogButtonBox.StandardButton.Ok if ok else QDialogButtonBox.StandardButton.Cancel
        )
        dlg.buttons.button(button).click()
        assert self.win._settings is None or not dlg.isVisible()

    def a_settings(self, c: int) -> tuple[str, tuple[Any, ...]]:
        budget = [5000, 20000, 2000, 5000, 300, 20000, 50][c % 7]
        minutes = [1, 1, 2, 5][(c // 7) % 4]
        ok = (c // 20) % 4 != 0
        longest = [86_400.0, 3_600.0, 86_400.0, 604_800.0, 21_600.0][(c // 3) % 5]
        self.settings(budget, minutes, longest=longest, ok=ok)
        return (
            f"Settings: budget {budget}, min interval {minutes} min, max interval "
            f"{longest / 3600:g} h, {'OK' if ok else 'Cancel'}",
            ("none",),
        )

    def a_rules(self, c: int) -> tuple[str, tuple[Any, ...]]:
        """Feed ▸ Rules…: a rule added (sometimes applied to the stored articles at
        once), or one removed."""
        rng = random.Random(c)
        dlg = self.win.open_rules()
        dlg._confirm = lambda *_a: True
        rules = self.store.rules()
        if rules and rng.random() < 0.3:
            rule = rng.choice(rules)
            dlg.table.setCurrentItem(
                next(
                    dlg.table.topLevelItem(k)
                    for k in range(dlg.table.topLevelItemCount())
                    if dlg.table.topLevelItem(k).data(0, Qt.ItemDataRole.UserRole) == rule.id
                )
            )
            dlg.remove_rule()
            dlg.close()
            return f"rules: removed {rule.query!r}", ("none",)
        words = " ".join(w.lower() for w in rng.sample(WORDS, rng.choice([1, 1, 2])))
        asked: dict[str, Any] = {}

        def edit(rd: Any) -> bool:
            rd.words.setText(words)
            if rng.random() < 0.4:
                rd.scope.setCurrentIndex(rng.randrange(rd.scope.count()))
            rd.action.setCurrentIndex(rng.randrange(rd.action.count()))
            rd.title_only.setChecked(rng.random() < 0.3)
            rd.update_preview()
            self.qtbot.waitUntil(rd.settled, timeout=10_000)
            if rng.random() < 0.5:
                rd.apply_now.setChecked(True)
            asked.update(rd.values(), ids=rd.ids_to_apply())
            return True

        dlg._edit = edit
        dlg.add_rule()
        dlg.close()
        v = asked
        self.rules_seen.add((v["query"], v["feed_id"], v["title_only"], v["action"]))
        column = "starred" if v["action"] == "star" else "read"
        return (
            f"rules: added {v['query']!r} feed {v['feed_id']} title_only {v['title_only']} "
            f"{v['action']}, applied to {len(v['ids'])}",
            ("rule_apply", column, set(v["ids"])),
        )

    def a_undo(self, _c: int) -> tuple[str, tuple[Any, ...]]:
        stack = self.win.undo_stack
        text = stack.undoText()
        self._key(Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        back = {
            fid for fid in self.deleted if self.store.feed_id_by_url(self.deleted[fid][0]) == fid
        }
        for fid in back:  # the user brought it back: whole, flags and all
            _url, flags = self.deleted.pop(fid)
            self.restored[fid] = self.clock()
            now = {v[1]: (v[2], v[3]) for v in self.flags().values() if v[0] == fid}
            differ = {u: (f, now.get(u)) for u, f in flags.items() if now.get(u) != f}
            if differ:
                raise Invariant(f"Undo brought feed {fid} back without its articles as they "
                                f"were: {dict(list(differ.items())[:5])}")  # fmt: skip
        return f"Ctrl+Z ({text!r}; feeds back: {sorted(back)})", ("any",)

    def a_retry(self, _c: int) -> tuple[str, tuple[Any, ...]]:
        w = self.win
        if not w.error_banner.isVisible():
            return "retry: no error shown", ("none",)
        self.qtbot.mouseClick(w.error_banner.retry, Qt.MouseButton.LeftButton)
        return f"click {w.error_banner.retry.text()!r} on feed {w.current_feed_id()}", ("none",)

    def a_clock_jump(self, c: int) -> tuple[str, tuple[Any, ...]]:
        hours = 1 + c % 3
        self.clock.jump(hours * 3600.0)
        return f"the clock jumps {hours} h (suspend and resume)", ("none",)

    def a_restart(self, c: int) -> tuple[str, tuple[Any, ...]]:
        how = ["Ctrl+Q", "File > Quit", "close"][c % 3]
        return self.restart(how), ("none",)

    def restart(self, how: str) -> str:
        """Quit as the user does, start again on the same folder: what was there is."""
        self.before = self.check()  # the state to find again
        before = self.state()
        self.quit(how)
        self.start()
        after_flags = self.check()
        after = self.state()
        problems = []
        for k, v in before.items():
            if k == "selection" and not self.win.tree_model.index_for_key(v).isValid():
                continue
            if after[k] != v:
                problems.append(f"{k}: {v!r} before, {after[k]!r} after")
        changed = {i: (v, after_flags.get(i)) for i, v in self.before.items()
                   if after_flags.get(i) != v}  # fmt: skip
        if changed:
            problems.append(f"articles changed: {dict(list(changed.items())[:5])}")
        if problems:
            raise Invariant(f"the restart ({how}) did not keep: " + "; ".join(problems))
        self.before = after_flags
        return f"quit ({how}) and start again"

    def quit(self, how: str) -> None:
        assert self.app is not None
        problems = self.app.quit(how)
        self.app = None
        path = db_path(self.data_dir)
        if (self.data_dir / "smartreader.lock").exists():
            problems.append("the lock file is still there")
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            problems.append(f"a WAL of {wal.stat().st_size} bytes was left")
        problems += self._captured()
        if problems:
            raise Invariant(f"quitting ({how}): " + "; ".join(problems))

    # -- the servers change ------------------------------------------------------------

    def a_world(self, c: int) -> tuple[str, tuple[Any, ...]]:
        rng = random.Random(c)
        done = []
        for site in rng.sample(self.world.sites, min(len(self.world.sites), rng.randint(1, 3))):
            r = rng.random()
            if r < 0.45:
                for _ in range(rng.randint(1, 3)):
                    self.world.add_item(site)
                done.append(f"{site.path} +items")
            elif r < 0.6:
                self.world.edit_item(site)
                done.append(f"{site.path} edit")
            elif r < 0.7:
                self.world.remove_item(site)
                done.append(f"{site.path} drops an item")
            else:
                plan = rng.choices([p for p, _ in PLANS], [w for _, w in PLANS])[0]
                self.world.set_plan(site, plan)
                done.append(f"{site.path} answers {plan}")
        return "servers: " + ", ".join(done), ("none",)

    # -- races: the user acts while a fetch is on the wire ------------------------------

    def _subscribed_sites(self) -> list[Site]:
        return [s for f in self.store.feeds() if (s := self.world.site_of(f.url)) is not None]

    def _refresh_all_key(self) -> None:
        self._key(Qt.Key.Key_R, Qt.KeyboardModifier.ShiftModifier)

    def _on_the_wire(self, sites: list[Site], trigger: Any) -> str:
        for s in sites:  # a slow answer, with something new in it (not a 304)
            self.world.set_plan(s, ["slow"])
            self.world.add_item(s)
        seen = {s.idx: s.arrived for s in sites}
        trigger()
        try:
            self.qtbot.waitUntil(lambda: any(s.arrived > seen[s.idx] for s in sites), timeout=3000)
        except Exception:  # held back (a Retry-After) or not fetched: the race is off
            return "(not on the wire)"
        return "(on the wire)"

    def _feed_site(self, key: str) -> Site | None:
        return self.world.site_of(self.store.feed(int(key.split(":")[1])).url)

    def _race_target(self, c: int) -> tuple[str, Site] | None:
        keys = [k for k in self._tree_keys("feed:") if self._feed_site(k) is not None]
        if not keys:
            return None
        key = keys[c % len(keys)]
        site = self._feed_site(key)
        assert site is not None
        return key, site

    def a_race_delete(self, c: int) -> tuple[str, tuple[Any, ...]]:
        target = self._race_target(c)
        if target is None or len(self._tree_keys("feed:")) <= 2:
            return "race delete: no feed to spare", ("none",)
        key, site = target
        self._select(key)
        wire = self._on_the_wire([site], lambda: self._key(Qt.Key.Key_R))
        what, effect = self._delete_feed(key)
        if c % 3 == 0:  # and undo it at once, the fetch still out
            undo, _ = self.a_undo(c)
            return f"R on {key} {wire}, {what}, {undo}", [effect, ("any",)]
        return f"R on {key} {wire}, {what}", effect

    def a_race_delete_folder(self, c: int) -> tuple[str, tuple[Any, ...]]:
        folders = self._tree_keys("folder:")
        if not folders:
            return "race delete folder: none", ("none",)
        key = folders[c % len(folders)]
        fid = int(key.split(":")[1])
        sites = [s for f in self.store.feeds() if f.folder_id == fid
                 if (s := self.world.site_of(f.url)) is not None]  # fmt: skip
        self._select(key)
        wire = self._on_the_wire(sites, lambda: self._key(Qt.Key.Key_R))
        self._key(Qt.Key.Key_Delete, widget=self.win.tree)
        return f"R on {key} {wire}, Del on it", ("layout",)

    def a_race_rename(self, c: int) -> tuple[str, tuple[Any, ...]]:
        target = self._race_target(c)
        if target is None:
            return "race rename: no feed", ("none",)
        key, site = target
        self._select(key)
        wire = self._on_the_wire([site], lambda: self._key(Qt.Key.Key_R))
        self.rename_to = NEW_NAMES[c % len(NEW_NAMES)]
        what, effect = self._rename(key)
        return f"R on {key} {wire}, {what}", effect

    def a_race_move(self, c: int) -> tuple[str, tuple[Any, ...]]:
        target = self._race_target(c)
        if target is None:
            return "race move: no feed", ("none",)
        key, site = target
        self._select(key)
        wire = self._on_the_wire([site], lambda: self._key(Qt.Key.Key_R))
        what, effect = self.a_move(c)
        return f"R on {key} {wire}, {what}", effect

    def a_race_mark_all(self, c: int) -> tuple[str, tuple[Any, ...]]:
        """Shift+A while a fetch stores new articles (on the wire, or stored and
        announced while the list waits to be read again): those stay unread."""
        target = self._race_target(c)
        if target is None:
            return "race mark all: no feed", ("none",)
        key, site = target
        where = [key, "smart:unread", "smart:all"][c % 3]
        self._select(where)
        if c % 2:
            wire = self._on_the_wire([site], self._refresh_all_key)
        else:  # stored, the window's coalesced refresh (0.3-1 s) still to come
            top = self.store.max_entry_id()
            self.world.add_item(site)
            self.world.set_plan(site, ["ok"])
            self._refresh_all_key()
            try:
                self.qtbot.waitUntil(lambda: self.store.max_entry_id() > top, timeout=3000)
                wire = f"(stored, list refresh pending: {self.win._refresh_timer.isActive()})"
            except Exception:
                wire = "(nothing stored)"
        what, effect = self.a_mark_all(c)
        return f"Shift+R {wire}, {what}", effect

    def a_race_settings(self, c: int) -> tuple[str, tuple[Any, ...]]:
        wire = self._on_the_wire(self._subscribed_sites()[:2], self._refresh_all_key)
        what, effect = self.a_settings(c)
        return f"Shift+R {wire}, {what}", effect

    def a_race_quit(self, c: int) -> tuple[str, tuple[Any, ...]]:
        """Quit while fetches are on the wire: they finish and are recorded (the
        budget stays honest); nothing is lost, the thread ends."""
        wire = self._on_the_wire(self._subscribed_sites()[:3], self._refresh_all_key)
        return f"Shift+R {wire}, {self._quit_mid_fetch(c)}", ("none",)

    def _quit_mid_fetch(self, c: int) -> str:
        how = ["Ctrl+Q", "File > Quit", "close"][c % 3]
        self.quit(how)
        self.start()
        self.before = self.check()  # nothing lost, no flag changed (as of the last check)
        return f"quit ({how}) at once, start again"

    def a_compact(self, c: int) -> tuple[str, tuple[Any, ...]]:
        """Settings ▸ Compact (every write waits meanwhile), sometimes while a
        refresh is on the wire."""
        wire = ""
        if c % 2:
            sites = self._subscribed_sites()[:2]
            wire = f"Shift+R {self._on_the_wire(sites, self._refresh_all_key)}, "
        dlg = self.win.open_settings()
        assert dlg.compact.isEnabled(), "Settings ▸ Compact is disabled"
        with self.qtbot.waitSignal(self.win.sched.compactFinished, timeout=10_000) as done:
            dlg.compact.click()
        dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
        result = done.args[0]
        if result.get("error"):
            raise Invariant(f"compacting failed: {result['error']}")
        return f"{wire}Settings > Compact: {result}", ("none",)

    def a_race_add_quit(self, c: int) -> tuple[str, tuple[Any, ...]]:
        """Quit while Add feed still looks for the feed (a slow answer)."""
        site = self.world.new_site()
        self.world.set_plan(site, ["slow"])
        dlg = self.win.add_feed()
        dlg.url.setText(site.url)
        dlg.ok.click()
        try:
            self.qtbot.waitUntil(lambda: site.arrived > 0, timeout=3000)
            wire = "(on the wire)"
        except Exception:
            wire = "(not on the wire)"
        what = self._quit_mid_fetch(c)
        return (
            f"add {site.url} {wire}, {what}; subscribed: {self.store.feed_id_by_url(site.url)}",
            ("none",),
        )

    ACTIONS: ClassVar[dict[str, int]] = {
        "select": 10, "list_key": 14, "click_row": 5, "mark_all": 3, "search": 3,
        "unread_only": 2, "refresh": 7, "refresh_all": 4, "add": 4, "delete": 2,
        "delete_folder": 1, "rename": 2, "move": 2, "settings": 2, "undo": 2, "retry": 3,
        "clock_jump": 1, "restart": 2, "pause": 2, "world": 14, "race_delete": 4,
        "race_delete_folder": 1, "race_rename": 2, "race_move": 2, "race_mark_all": 3,
        "race_settings": 1, "race_quit": 1, "race_add_quit": 1, "compact": 1, "rules": 2,
        "full": 3,
    }  # fmt: skip

    # -- running -----------------------------------------------------------------------

    @classmethod
    def steps_for(cls, seed: int, n: int) -> list[Step]:
        rng = random.Random(seed * 7919 + 1)
        names, weights = zip(*cls.ACTIONS.items(), strict=True)
        return [
            Step(rng.choices(names, weights)[0], rng.randrange(1 << 30), rng.random() < HURRY)
            for _ in range(n)
        ]

    QUITTING = ("restart", "race_quit", "race_add_quit")

    def play(self, steps: list[Step]) -> None:
        effects: list[tuple[Any, ...]] = []
        for k, step in enumerate(steps):
            if self.rng.random() < 0.3:  # the feeds post now and then
                self.world.add_item(self.rng.choice(self.world.sites))
            if self.rng.random() < 0.15:  # and their servers have moods
                plan = self.rng.choices([p for p, _ in PLANS], [w for _, w in PLANS])[0]
                self.world.set_plan(self.rng.choice(self.world.sites), plan)
            if effects and step.name in self.QUITTING:  # what hurried steps did, first
                self.before = self.check(effects)
                effects = []
            try:
                what, effect = getattr(self, f"a_{step.name}")(step.choice)
            except Invariant as e:
                raise Invariant(f"step {k} {step!r}:\n{e}") from None
            except Exception as e:  # a wait that timed out, a dialog that did not come
                raise Invariant(f"step {k} {step!r}: {traceback.format_exc()}") from e
            effects += effect if isinstance(effect, list) else [effect]
            self.log.append(f"{k:3d} {step!r}: {what}")
            if _TRACE:
                print(self.log[-1], flush=True)
            if step.hurry and k + 1 < len(steps):
                continue
            try:
                self.before = self.check(effects)
            except Invariant as e:
                raise Invariant(f"after step {k} {step!r}:\n{e}") from None
            effects = []

    def finish(self) -> None:
        """The last quit, then the file is opened once more: whole, no WAL applied."""
        if self.app is None:
            return
        self.before = self.check()
        state = self.state()
        self.quit(["Ctrl+Q", "File > Quit", "close"][self.seed % 3])
        with Store(db_path(self.data_dir)) as store:
            assert store.stray_wal is None
            assert store.integrity_check() == "ok"
            feeds = sorted((f.id, f.user_title, f.folder) for f in store.feeds())
            assert feeds == state["feeds"], (feeds, state["feeds"])
            rows = store._q("SELECT id, feed_id, uid, read, starred FROM entries")
            flags = {int(r[0]): (int(r[1]), str(r[2]), bool(r[3]), bool(r[4])) for r in rows}
            changed = {i: (v, flags.get(i)) for i, v in self.before.items() if flags.get(i) != v}
            assert not changed, f"articles changed by the last quit: {changed}"


def _marked_by(effect: tuple[Any, ...], entry_id: int, feed_id: int) -> bool:
    """Whether a Shift+A (``("mark_all", feeds, upto, extra)``) may have marked it:
    an article of its feeds stored by the time of the key, or one its list had."""
    _, feeds, upto, extra = effect
    if entry_id in extra:
        return True
    return entry_id <= upto and (feeds is None or feed_id in feeds)


def _opml(sites: list[Site], folders: dict[int, str | None]) -> str:
    def outline(s: Site) -> str:
        return f'<outline type="rss" text="{s.name}" xmlUrl="{s.url}"/>'

    body = [outline(s) for s in sites if folders[s.idx] is None]
    for name in FOLDERS:
        inner = "".join(outline(s) for s in sites if folders[s.idx] == name)
        if inner:
            body.append(f'<outline text="{name}">{inner}</outline>')
    return f'<?xml version="1.0"?><opml version="2.0"><body>{"".join(body)}</body></opml>'


def _seeds() -> list[int]:
    return seeds_from_env("RANDOM_APP_SEEDS", [1, 2, 3])


@pytest.fixture
def captured():
    from tests.e2e.random_app_support import Captured

    c = Captured()
    c.install()
    yield c
    c.uninstall()


@pytest.mark.parametrize("seed", _seeds())
def test_random_app_session(seed, tmp_path, qtbot, qtlog, monkeypatch, captured):
    import gc

    s = Session(seed, tmp_path, qtbot, qtlog, monkeypatch, captured)
    steps = Session.steps_for(seed, int(os.environ.get("RANDOM_APP_STEPS", 40)))
    try:
        s.setup()
        s.play(steps)
        if _TRACE:
            logged = s.store._q(
                "SELECT status || (CASE manual WHEN 1 THEN ' (manual)' ELSE '' END), count(*) "
                "FROM fetch_log GROUP BY 1"
            )
            print(f"answers {s.world.tally()}, logged {dict((r[0], r[1]) for r in logged)}")
        s.finish()
    except Invariant as e:
        pytest.fail(
            f"seed {seed} ({getattr(s, 'how_started', '?')} start):\n"
            + "\n".join(s.log[-25:])
            + f"\n{e}\nreplay: RANDOM_APP_SEEDS={seed} RANDOM_APP_STEPS={len(steps)}",
            pytrace=False,
        )
    finally:
        if s.app is not None:
            s.app.ctl.close()
        s.world.close() if hasattr(s, "world") else None
        gc.unfreeze()  # AppController.open froze what the app had made
