"""Random user sessions on the real main window, checked against the store.

A seeded ``random.Random`` builds a store (feeds in folders, articles some read
or starred, some sharing a time, long titles), opens the window and plays a
sequence of real user actions: tree clicks, the list's keys, header clicks,
"Show unread only", a search typed and cleared, undo and redo, fetch results
announced as the scheduler announces them (new articles, an edited title),
mark all / above / below read, rename, move (menu, drag), unsubscribe, delete a
folder, a purge of old articles, quit and start again. A step may be taken
before the last one has settled (``Step.hurry``). After each step, once the
event loop has settled, ``Session.check`` compares what the window shows with
the store:

* the tree: its feeds and folders, each node's unread count (feeds, folders,
  "All unread"), "Starred"'s count, the window title's total;
* the list: the query it shows is the one the tree, the filter and the search
  ask for; every article of that query is in it, once; every row it gained
  matched the query when it came (a row that stops matching may stay: an
  article read a moment ago does not vanish under the cursor); its rows are in
  the sort order (equal keys in any order: the tie order is the store's
  business); the read and starred flags and titles it shows are the store's;
* the article open: it exists, the reading pane shows it;
* the read and starred flags change only by a step that reads, marks or stars
  (``Session.check_flags``): selecting, sorting, searching, fetching, renaming
  or restarting change none, opening marks at most the article it opens;
  Shift+A leaves none of the list unread; Space opens an unread article;
* Qt's model tester on both models; no exception in a slot, no Qt warning.

A failing sequence is printed as replayable steps (``Session.play``). More
seeds and steps: RANDOM_ACTIONS_SEEDS=100-299 RANDOM_ACTIONS_STEPS=200; bigger
feeds and more hurried steps: RANDOM_ACTIONS_STRESS=1; each step printed as it
runs: RANDOM_ACTIONS_TRACE=1.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import QEvent, QPoint, Qt, QtMsgType
from PySide6.QtGui import QKeyEvent
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QApplication, QInputDialog

from smartreader.core.models import ParsedEntry
from smartreader.gui import mainwindow, models
from smartreader.gui.models import COL_DATE, COL_FEED, COL_TITLE, RowRole
from smartreader.storage.store import FetchRecord
from tests.gui.tree_check import expected_query, tree_problems
from tests.shared import seeds_from_env

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
DAY = 86400.0
# Bigger feeds (many pages) and more steps taken before the event loop settles.
STRESS = bool(os.environ.get("RANDOM_ACTIONS_STRESS"))
_TRACE = bool(os.environ.get("RANDOM_ACTIONS_TRACE"))
_BAD_MSGS = (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg)
WORDS = ["cats", "zebras", "Straße", "strasse", "éclair", "Éclair", "apple", "Banana",
         "dogs", "otters", "C++", "kiwi"]  # fmt: skip
SEARCHES = ["cats", "zeb", "straße", "éclair", "apple banana", "otters", "kiwi", "nothingatall"]
FEED_NAMES = ["Alpha", "beta", "Beta", "Gamma", "delta", "Épsilon", "Zeta"]
FOLDERS = ["News", "Tech", "Later"]
NEW_NAMES = ["alpha", "Aardvark", "zz top", "Mango", "Beta", "News"]


def _title(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
    t = " ".join(words)
    if rng.random() < 0.1:
        t = (t + " ") * 30  # a long title
    return t.strip()


def pe(uid: str, title: str, published: float) -> ParsedEntry:
    return ParsedEntry(uid, title, f"https://e.example/{uid}", "", published, None,
                       f"<p>{title}</p>", "")  # fmt: skip


@dataclass
class Step:
    name: str
    choice: int
    hurry: bool = False  # the next step comes before the event loop settles

    def __repr__(self) -> str:
        return f"Step({self.name!r}, {self.choice}{', hurry=True' if self.hurry else ''})"


class Invariant(AssertionError):
    pass


@dataclass
class Session:
    env: Any
    qtbot: Any
    qtlog: Any
    monkeypatch: Any
    seed: int
    log: list[str] = field(default_factory=list)

    # -- the store -------------------------------------------------------------------

    def build(self) -> None:
        rng = random.Random(self.seed)
        store = self.env.store
        self.now = now = time.time()
        self.uid = 0
        n_feeds = rng.randint(3, 6)
        names = rng.sample(FEED_NAMES, n_feeds)
        for name in FOLDERS:
            if rng.random() < 0.8:
                store.folder_id(name)
        folders = [f.name for f in store.folders()]
        shared = [now - rng.randint(1, 500) * 60 for _ in range(4)]  # times shared
        for k, name in enumerate(names):
            folder = rng.choice([None, *folders]) if folders else None
            fid = store.add_feed(
                f"https://{k}.{name.lower()}.example/feed", title=name, folder=folder
            )
            # an old fetch (first seen 40 days ago: a purge takes its read ones), a new one
            most = 60 if STRESS else 18
            for at, count in ((now - 40 * DAY, rng.randint(0, 6)), (now, rng.randint(2, most))):
                entries = []
                for _ in range(count):
                    self.uid += 1
                    t = rng.choice(shared) if rng.random() < 0.25 else at - rng.randint(0, 900) * 60
                    entries.append(pe(f"u{self.uid}", _title(rng), min(t, at)))
                if entries:
                    store.record_fetch(FetchRecord(fid, at, "ok", entries=entries))
        ids = store.entry_ids()
        store.set_read([i for i in ids if rng.random() < 0.35], True)
        store.set_starred([i for i in ids if rng.random() < 0.12], True)
        self.small_pages = rng.random() < 0.5
        if self.small_pages:
            self.monkeypatch.setattr(models, "FIRST_PAGE", 7)
            self.monkeypatch.setattr(models, "KEY_PAGE", 11)
            self.monkeypatch.setattr(models, "SEARCH_SLICE", 40)
            self.monkeypatch.setattr(models, "LOAD_SLICE_S", 0.0)

    # -- the window -------------------------------------------------------------------

    def open(self) -> None:
        mp = self.monkeypatch
        self.warned: list[str] = []
        mp.setattr(mainwindow, "ask", lambda *_a, **_k: True)
        mp.setattr(mainwindow, "ask_to_delete", lambda *_a, **_k: True)
        mp.setattr(
            mainwindow, "warn", lambda _p, title, text: self.warned.append(f"{title}: {text}")
        )
        self.rename_to = "x"
        mp.setattr(QInputDialog, "getText", lambda *_a, **_k: (self.rename_to, True))
        self._new_window()

    def _new_window(self) -> None:
        self.win = win = self.env.window(start_scheduler=False)
        self._watch_list()
        self._track_resets()
        # Qt's own model checks on every change of either model (a failure is a
        # Qt warning, which fails the step)
        mode = QAbstractItemModelTester.FailureReportingMode.Warning
        self.testers = [
            QAbstractItemModelTester(m, mode, win) for m in (win.list_model, win.tree_model)
        ]
        win.list.setFocus()
        self.settle()

    def _watch_list(self) -> None:
        """Every row the list gains matches its query at that moment."""
        m = self.win.list_model
        self.foreign: list[str] = []

        def check_rows(ids: list[int], how: str) -> None:
            if not ids:
                return
            want = set(self.store_ids(m.query(), only=ids))
            bad = [i for i in ids if i not in want]
            if "search" in m.query():
                # A search's matches are collected first, over a few turns of the
                # event loop: an article whose title a fetch edited meanwhile can
                # come in on the strength of its old title (a race, not checked)
                bad = [i for i in bad if i not in self.retitled]
            if bad:
                self.foreign.append(f"{how}: rows {bad} do not match {m.query()}")

        m.rowsInserted.connect(
            lambda _p, a, b: check_rows([m.entry_id(r) for r in range(a, b + 1)], "inserted")
        )
        m.modelReset.connect(lambda: check_rows(list(m._ids), "reset"))

    def store_ids(self, q: dict[str, Any], only: list[int] | None = None) -> list[int]:
        """The store's own list query for ``q`` (newest first)."""
        store = self.env.store
        ids = store.entry_ids(
            feed_ids=q.get("feed_ids"),
            unread=bool(q.get("unread")),
            starred=bool(q.get("starred")),
            search=q.get("search"),
        )
        if only is not None:
            keep = set(only)
            ids = [i for i in ids if i in keep]
        return ids

    # -- settling ----------------------------------------------------------------------

    def busy(self) -> bool:
        w = self.win
        return bool(
            w.list_model.loading()
            or w._refresh_timer.isActive()
            or w._list_timer.isActive()
            or w._search_timer.isActive()
        )

    def settle(self) -> None:
        w = self.win
        for _ in range(200):
            if w._refresh_timer.isActive():  # the 0.3-1 s coalescing delay: not waited out
                w._refresh_timer.stop()
                w._refresh_after_update()
            if w._search_timer.isActive():
                w._search_timer.stop()
                w._apply_query()
            self.qtbot.wait(1)
            if not self.busy():
                break
        self.qtbot.waitUntil(lambda: not self.busy(), timeout=3000)

    # -- the checks ---------------------------------------------------------------------

    def expected_query(self) -> dict[str, Any]:
        return expected_query(self.win, self.env.store)

    def sort_key(self, col: int, order: Qt.SortOrder):
        """A tie-free-of-ids key whose ascending order is the list's."""
        titles = {f.id: f.display_title.casefold() for f in self.env.store.feeds()}
        desc = order == DESC

        def key(r: tuple[int, int, str, float]) -> tuple[Any, ...]:
            _id, feed, title, t = r
            if col == COL_DATE:
                return (-t,) if desc else (t,)
            text = (title or "").casefold() if col == COL_TITLE else titles.get(feed, "")
            return (_Rev(text), t) if desc else (text, -t)

        return key

    def check(self) -> None:
        w, store = self.win, self.env.store
        problems: list[str] = []
        if self.foreign:
            problems += self.foreign
            self.foreign = []
        if self.warned:
            # a name taken is the user's slip, said in a box: not a bug
            problems += [f"warning box: {x}" for x in self.warned if "already exists" not in x]
            self.warned = []
        # -- the tree
        problems += tree_problems(w, store)
        # -- the list
        m = w.list_model
        if m.loading():
            problems.append("list still loading after settling")
        q = self.expected_query()
        mq = m.query()
        norm = {k: (sorted(v) if k == "feed_ids" else v) for k, v in mq.items()}
        if norm != q:
            problems.append(f"list shows query {mq}, the window asks for {q}")
        ids = list(m._ids)
        if len(ids) != len(set(ids)):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            problems.append(f"list has rows twice: {dup}")
        want = self.store_ids(q)
        missing = [i for i in want if i not in set(ids)]
        if missing:
            problems.append(f"list lacks {len(missing)} matching articles {missing[:8]}")
        rows = {r[0]: r for r in store.entry_sort_rows_of(ids)}
        deleted = [i for i in ids if i not in rows]
        if deleted:
            problems.append(f"list shows deleted articles {deleted[:8]}")
        col, order = m.sort_state()
        key = self.sort_key(col, order)
        # A row whose title a fetch edited keeps its place (a title-sorted list is
        # then only sorted between such rows: new rows go between neighbours that
        # fit); the rows a re-query put on top of a newest-first list sit there.
        split = self.retitled if col == COL_TITLE else set()
        skip = set(self.on_top)
        prev = None
        for i in ids:
            if i in split or i not in rows:
                prev = None
                continue
            if i in skip:
                continue
            k = key(rows[i])
            if prev is not None and k < prev[1]:
                problems.append(
                    f"list out of order ({col=}, {order=}): {prev[0]} {prev[1]} before {i} {k}"
                )
                break
            prev = (i, k)
        node = w.tree_model.node(w.tree.currentIndex())
        if w.tree.currentIndex().isValid() and w.list_title.text() != node.title:
            problems.append(f"list titled {w.list_title.text()!r}, the tree's {node.title!r}")
        names = {f.id: f.display_title for f in store.feeds()}
        store_rows = store.entry_rows(ids)
        for r, i in enumerate(ids):
            shown = m.data(m.index(r, COL_TITLE), RowRole)
            real = store_rows.get(i)
            if shown is None or real is None:
                continue
            if (shown.read, shown.starred) != (real.read, real.starred):
                problems.append(
                    f"row {r} (article {i}) shows read={shown.read} starred={shown.starred}, "
                    f"store read={real.read} starred={real.starred}"
                )
            feed_name = m.data(m.index(r, COL_FEED))
            if feed_name != names.get(real.feed_id):
                problems.append(f"row {r} (article {i}) feed shown {feed_name!r}, is "
                                f"{names.get(real.feed_id)!r}")  # fmt: skip
            if shown.title != real.title:
                problems.append(
                    f"row {r} (article {i}) shows title {shown.title!r}, is {real.title!r}"
                )
        # -- the article open
        cur = w._current_entry
        if cur is not None:
            try:
                store.entry(cur)
            except Exception:
                problems.append(f"the article open ({cur}) is not in the store")
            shown = w.article_view.entry
            if shown is None or shown.id != cur:
                problems.append(
                    f"reading pane shows {getattr(shown, 'id', None)}, the article open is {cur}"
                )
        # -- Qt warnings
        for rec in self.qtlog.records[self._qt_seen :]:
            if rec.type in _BAD_MSGS and "propagateSizeHints" not in rec.message:
                problems.append(f"Qt: {rec.message}")
        self._qt_seen = len(self.qtlog.records)
        if problems:
            raise Invariant("\n".join(problems))

    _qt_seen = 0
    after: list[Any] = field(default_factory=list)  # checks of a step, once settled
    retitled: set[int] = field(default_factory=set)

    # -- actions ----------------------------------------------------------------------

    def _key(self, key: Qt.Key, mod=Qt.KeyboardModifier.NoModifier, widget=None) -> None:
        w = widget or self.win.list
        if not w.hasFocus():
            w.setFocus()
        self.qtbot.keyClick(w, key, mod)

    def a_click_tree(self, c: int) -> str:
        keys = self.win.tree_model.feed_keys_in_order()
        key = keys[c % len(keys)]
        idx = self.win.tree_model.index_for_key(key)
        self.win.tree.scrollTo(idx)
        rect = self.win.tree.visualRect(idx)
        self.qtbot.mouseClick(
            self.win.tree.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center())
        )
        return key

    def a_select_key(self, c: int) -> str:
        keys = self.win.tree_model.feed_keys_in_order()
        key = keys[c % len(keys)]
        self.win.select_key(key)
        return key

    LIST_KEYS: ClassVar[list[tuple[str, Qt.Key, Any]]] = [
        ("j", Qt.Key.Key_J, None), ("k", Qt.Key.Key_K, None), ("n", Qt.Key.Key_N, None),
        ("p", Qt.Key.Key_P, None), ("o", Qt.Key.Key_O, None), ("s", Qt.Key.Key_S, None),
        ("m", Qt.Key.Key_M, None), ("Space", Qt.Key.Key_Space, None),
        ("Shift+Space", Qt.Key.Key_Space, Qt.KeyboardModifier.ShiftModifier),
        ("Shift+N", Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier),
        ("Shift+P", Qt.Key.Key_P, Qt.KeyboardModifier.ShiftModifier),
        ("Home", Qt.Key.Key_Home, None), ("End", Qt.Key.Key_End, None),
        ("PageDown", Qt.Key.Key_PageDown, None), ("Down", Qt.Key.Key_Down, None),
        ("Enter", Qt.Key.Key_Return, None),
    ]  # fmt: skip

    def a_list_key(self, c: int) -> str:
        name, key, mod = self.LIST_KEYS[c % len(self.LIST_KEYS)]
        # what Space opens (if it opens one) was unread; but a search's Enter waiting
        # for its first result opens that one when it comes
        if name == "Space" and not self.win._first_result_pending:
            was, unread = self.win._current_entry, set(self.env.store.entry_ids(unread=True))

            def opened_unread() -> None:
                now = self.win._current_entry
                if now is not None and now != was and now not in unread:
                    self.foreign.append(f"Space opened article {now}, read already")

            self.after.append(opened_unread)
        where = (
            self.win.tree if (c // 97) % 5 == 0 and name in ("j", "k", "s", "m", "Space") else None
        )
        self._key(key, mod or Qt.KeyboardModifier.NoModifier, where)
        return name + (" (in the tree)" if where else "")

    def a_mark_all(self, _c: int) -> str:
        m = self.win.list_model
        shown = list(m._ids) if not m.loading() else []
        self._key(Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)

        def all_read() -> None:  # every article the list showed is read
            rows = self.env.store.entry_rows(shown)
            left = [i for i in shown if i in rows and not rows[i].read]
            if left:
                self.foreign.append(f"Shift+A left articles {left[:8]} of the list unread")

        self.after.append(all_read)
        return "Shift+A"

    def a_unread_only(self, _c: int) -> str:
        self.win.act_unread_only.trigger()
        return f"unread only -> {self.win.act_unread_only.isChecked()}"

    def a_header(self, c: int) -> str:
        hh = self.win.list.horizontalHeader()
        cols = [k for k in (COL_TITLE, COL_FEED, COL_DATE) if not hh.isSectionHidden(k)]
        col = cols[c % len(cols)]
        x = hh.sectionViewportPosition(col) + hh.sectionSize(col) // 2
        self.qtbot.mouseClick(
            hh.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, hh.height() // 2)
        )
        return (
            f"header click {['Title', 'Feed', 'Date'][col]} -> {self.win.list_model.sort_state()}"
        )

    def a_sort_api(self, c: int) -> str:
        col = (COL_TITLE, COL_FEED, COL_DATE)[c % 3]
        order = (ASC, DESC)[(c // 3) % 2]
        self.win.list.sortByColumn(col, order)
        return f"sortByColumn({col}, {order})"

    def a_search(self, c: int) -> str:
        text = SEARCHES[c % len(SEARCHES)]
        self._key(Qt.Key.Key_Slash)
        for ch in text:  # QTest's key clicks know ASCII only
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                ev = QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, ch)
                QApplication.sendEvent(self.win.search, ev)
        if (c // 11) % 2:
            self.qtbot.keyClick(self.win.search, Qt.Key.Key_Return)
            return f"search {text!r} + Enter"
        return f"search {text!r}"

    def a_escape(self, c: int) -> str:
        w = self.win.search if c % 2 else self.win.list
        self._key(Qt.Key.Key_Escape, widget=w)
        return f"Esc in {'search' if c % 2 else 'list'}"

    def a_undo(self, _c: int) -> str:
        self._key(Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        return "Ctrl+Z"

    def a_redo(self, c: int) -> str:
        keys = [k for k in self.win.act_redo.shortcuts()  # Ctrl+Y, Ctrl+Shift+Z (not Key_Redo)
                if k[0].keyboardModifiers() & Qt.KeyboardModifier.ControlModifier]  # fmt: skip
        seq = keys[c % len(keys)]
        self._key(seq[0].key(), seq[0].keyboardModifiers())
        return f"redo {seq.toString()}"

    def a_fetch(self, c: int) -> str:
        """A fetch stored and announced as the scheduler does (feedUpdated)."""
        from smartreader.updater import UpdateResult

        store, rng = self.env.store, random.Random(c)
        feeds = store.feeds()
        if not feeds:
            return "fetch: no feeds"
        fid = feeds[c % len(feeds)].id
        at = time.time()
        entries = []
        new = rng.randint(0, 3)
        olds = store.entry_ids(feed_ids=[fid])
        for _ in range(new):
            self.uid += 1
            r = rng.random()
            if r < 0.4 or not olds:
                t = at - rng.randint(0, 5)
            elif r < 0.7:  # the time of an article stored already
                t = store.entry(rng.choice(olds)).sort_time
            else:
                t = at - rng.randint(0, 2000) * 60
            entries.append(pe(f"u{self.uid}", _title(rng), t))
        edited = None
        if olds and rng.random() < 0.4:  # an upstream edit of an article's title
            e = store.entry(rng.choice(olds))
            edited = e.id
            entries.append(pe(e.uid, _title(rng) + " (edited)", e.published or e.sort_time))
        res = store.record_fetch(FetchRecord(fid, at, "ok", entries=entries))
        if edited is not None:
            self.retitled.add(edited)
        self.win.sched.feedUpdated.emit(
            UpdateResult(fid, "ok", len(res.new_entry_ids), None, 0.0, None, False, at)
        )
        return f"fetch feed {fid}: new {list(res.new_entry_ids)}, edited {edited}"

    def a_rename(self, c: int) -> str:
        w = self.win
        keys = [k for k in w.tree_model.feed_keys_in_order() if not k.startswith("smart:")]
        if not keys:
            return "rename: nothing"
        key = keys[c % len(keys)]
        w.select_key(key)
        self.rename_to = NEW_NAMES[(c // 7) % len(NEW_NAMES)]
        self._key(Qt.Key.Key_F2, widget=w.tree)
        return f"rename {key} to {self.rename_to!r} (F2)"

    def a_move(self, c: int) -> str:
        w = self.win
        feeds = [k for k in w.tree_model.feed_keys_in_order() if k.startswith("feed:")]
        if not feeds:
            return "move: no feeds"
        key = feeds[c % len(feeds)]
        w.select_key(key)
        w.move_menu.aboutToShow.emit()
        acts = [a for a in w.move_menu.actions() if a.isEnabled() and a.text()
                and not a.text().startswith("&New")]  # fmt: skip
        if not acts:
            return f"move {key}: nowhere"
        act = acts[(c // 7) % len(acts)]
        act.trigger()
        return f"move {key} to {act.text()!r} (Feed > Move to)"

    def a_unsubscribe(self, c: int) -> str:
        w = self.win
        feeds = [k for k in w.tree_model.feed_keys_in_order() if k.startswith("feed:")]
        if len(feeds) <= 1:
            return "unsubscribe: keeping the last feed"
        key = feeds[c % len(feeds)]
        w.select_key(key)
        self._key(Qt.Key.Key_Delete, widget=w.tree)
        return f"unsubscribe {key} (Del, Yes)"

    def a_purge(self, c: int) -> str:
        """The daily clean-up as the worker runs it: old read articles deleted, then
        entriesPurged announced."""
        res = self.env.store.purge_old(time.time(), read_days=30.0)
        n = res.read + res.unread
        if n:
            self.win.sched.entriesPurged.emit(n)
        return f"purge: {n} deleted"

    def a_open_in_browser(self, _c: int) -> str:
        self._key(Qt.Key.Key_V)
        return "v"

    def a_delete_folder(self, c: int) -> str:
        w = self.win
        keys = [k for k in w.tree_model.feed_keys_in_order() if k.startswith("folder:")]
        if not keys:
            return "delete folder: none"
        key = keys[c % len(keys)]
        w.select_key(key)
        self._key(Qt.Key.Key_Delete, widget=w.tree)
        return f"delete {key} (Del, Yes)"

    def a_drop(self, c: int) -> str:
        """A feed dragged onto a folder (the tree model's drop, as a drag ends)."""
        from PySide6.QtCore import QMimeData

        tm = self.win.tree_model
        feeds = [k for k in tm.feed_keys_in_order() if k.startswith("feed:")]
        folders = [k for k in tm.feed_keys_in_order() if k.startswith("folder:")]
        if not feeds or not folders:
            return "drop: nothing"
        fkey, target = feeds[c % len(feeds)], folders[(c // 7) % len(folders)]
        md = QMimeData()
        md.setData(models.FEED_MIME, fkey.split(":")[1].encode())
        tm.dropMimeData(md, Qt.DropAction.MoveAction, -1, 0, tm.index_for_key(target))
        return f"drag {fkey} onto {target}"

    def a_mark_side(self, c: int) -> str:
        act = self.win.act_mark_above if c % 2 else self.win.act_mark_below
        act.trigger()  # the list's context menu
        return act.text()

    def a_click_row(self, c: int) -> str:
        w = self.win
        n = w.list_model.rowCount()
        if not n:
            return "click row: empty list"
        r = c % min(n, 15)
        w.list.scrollTo(w.list_model.index(r, COL_TITLE))
        rect = w.list.visualRect(w.list_model.index(r, COL_TITLE))
        self.qtbot.mouseClick(w.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        return f"click row {r} (article {w.list_model.entry_id(r)})"

    def a_restart(self, _c: int) -> str:
        """Quit and start again on the same store: the window restores the
        selection, the sort, the filter and the article open (its prefs file)."""
        # Quitting ends the event loop: nothing pending in the old window may run
        # later (a search's first result, still loading, opened an article in it).
        self.settle()
        before = (self.win.current_key(), self.win._current_entry)
        self.win.close()
        self._new_window()
        return f"restart (was {before}, now {(self.win.current_key(), self.win._current_entry)})"

    ACTIONS: ClassVar[dict[str, int]] = {
        "click_tree": 12, "select_key": 3, "list_key": 40, "mark_all": 3, "unread_only": 4,
        "header": 4, "sort_api": 2, "search": 3, "escape": 3, "undo": 5, "redo": 2,
        "fetch": 8, "rename": 2, "move": 2, "unsubscribe": 1, "purge": 1, "open_in_browser": 2,
        "delete_folder": 1, "drop": 1, "mark_side": 2, "click_row": 6, "restart": 1,
    }  # fmt: skip

    # -- running ----------------------------------------------------------------------

    @classmethod
    def steps_for(cls, seed: int, n: int) -> list[Step]:
        rng = random.Random(seed * 7919 + 1)
        names, weights = zip(*cls.ACTIONS.items(), strict=True)
        hurry = 0.3 if STRESS else 0.1
        return [
            Step(rng.choices(names, weights)[0], rng.randrange(1 << 30), rng.random() < hurry)
            for _ in range(n)
        ]

    def _track_resets(self) -> None:
        """What a full re-read of the list (a reset, a new sort) forgets: the rows
        a re-query put on top of a newest-first list (by design, whatever their
        dates) and the titles edited since (rows keep their places)."""
        m = self.win.list_model
        self.on_top: set[int] = set()
        before: list[Any] = []

        def forget() -> None:
            self.retitled.clear()
            self.on_top.clear()

        def about() -> None:
            before[:] = [m.sort_state()]

        def changed() -> None:
            if before and before[0] != m.sort_state():
                forget()

        def inserted(_p: Any, a: int, b: int) -> None:
            if a == 0 and not m.loading() and m.sort_state() == (COL_DATE, DESC):
                self.on_top.update(m.entry_id(r) for r in range(a, b + 1))

        m.modelReset.connect(forget)
        m.layoutAboutToBeChanged.connect(about)
        m.layoutChanged.connect(changed)
        m.rowsInserted.connect(inserted)

    # What a step may do to the read and starred flags: "none", "open" (mark the
    # article it opens read), "star" (star or unstar one), "any".
    OPENING = ("j", "k", "o", "Enter", "Space", "Home", "End", "PageDown", "Down")

    @classmethod
    def effect(cls, step: Step, what: str) -> str:
        if step.name in ("mark_all", "mark_side", "undo", "redo"):
            return "any"
        if step.name in ("click_row", "open_in_browser") or what.endswith("+ Enter"):
            return "open"
        if step.name == "list_key":
            key = what.split(" ")[0]
            if key in cls.OPENING:
                return "open"
            return {"s": "star", "m": "any"}.get(key, "none")
        return "none"

    def flags(self) -> dict[int, tuple[bool, bool]]:
        store = self.env.store
        return {i: (r.read, r.starred) for i, r in store.entry_rows(store.entry_ids()).items()}

    def check_flags(self, before: dict[int, tuple[bool, bool]], effects: list[str]) -> None:
        """Only the steps that read, mark or star change the read and starred flags:
        selecting, sorting, filtering, searching, fetching, renaming, moving,
        restarting change none; opening marks (at most) the article opened read."""
        if "any" in effects:
            return
        after = self.flags()
        read = [i for i, f in after.items() if i in before and f[0] and not before[i][0]]
        unread = [i for i, f in after.items() if i in before and before[i][0] and not f[0]]
        star = [i for i, f in after.items() if i in before and f[1] != before[i][1]]
        problems = []
        if unread:
            problems.append(f"articles {unread} became unread")
        if len(read) > effects.count("open"):
            problems.append(f"articles {read} became read ({effects.count('open')} opened)")
        if star and "star" not in effects:
            problems.append(f"articles {star} were starred or unstarred")
        if problems:
            raise Invariant("\n".join(problems))

    def play(self, steps: list[Step], *, check: bool = True) -> None:
        self.check()
        before, effects = self.flags(), []
        for k, step in enumerate(steps):
            with self.qtbot.capture_exceptions() as raised:
                what = getattr(self, f"a_{step.name}")(step.choice)
                self.log.append(f"{k:3d} {step!r}: {what}")
                effects.append(self.effect(step, what))
                if _TRACE:
                    print(self.log[-1], flush=True)
                if step.hurry and k + 1 < len(steps):
                    self.after.clear()  # what the next steps do is mixed in
                    continue
                self.settle()
                for after in self.after:
                    after()
                self.after.clear()
            if raised:
                raise Invariant(f"exception in a slot after {step!r}: {raised[0][1]!r}")
            if check:
                try:
                    self.check_flags(before, effects)
                    self.check()
                except Invariant as e:
                    raise Invariant(f"after step {k} {step!r}:\n{e}") from None
            before, effects = self.flags(), []


class _Rev:
    """Reverses the order of a string in a tuple key."""

    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _Rev) -> bool:
        return self.s > other.s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Rev) and self.s == other.s

    def __repr__(self) -> str:
        return f"~{self.s!r}"


def _session(env, qtbot, qtlog, monkeypatch, seed: int) -> Session:
    s = Session(env, qtbot, qtlog, monkeypatch, seed)
    s.build()
    s.open()
    return s


def run_seed(env, qtbot, qtlog, monkeypatch, seed: int, n: int) -> None:
    s = _session(env, qtbot, qtlog, monkeypatch, seed)
    try:
        s.play(Session.steps_for(seed, n))
    except Invariant as e:
        pytest.fail(f"seed {seed}:\n" + "\n".join(s.log[-25:]) + f"\n{e}", pytrace=False)


def _seeds() -> list[int]:
    return seeds_from_env("RANDOM_ACTIONS_SEEDS", [1, 2, 3, 4, 5])


@pytest.mark.parametrize("seed", _seeds())
def test_random_session(env, qtbot, qtlog, monkeypatch, seed):
    run_seed(env, qtbot, qtlog, monkeypatch, seed, int(os.environ.get("RANDOM_ACTIONS_STEPS", 80)))


# -- regressions: the bugs the random sessions found, each as a fixed sequence ----------
#
# A to E were fixed with these tests (d7e7688), F and G later.


def _settled(win) -> bool:
    return not (
        win.list_model.loading()
        or win._refresh_timer.isActive()
        or win._list_timer.isActive()
        or win._search_timer.isActive()
    )


def _announce(env, qtbot, win, fid: int, entries: list[ParsedEntry]) -> None:
    """A fetch stored and announced as the scheduler does; the window refreshed."""
    from smartreader.updater import UpdateResult

    at = time.time()
    res = env.store.record_fetch(FetchRecord(fid, at, "ok", entries=entries))
    win.sched.feedUpdated.emit(
        UpdateResult(fid, "ok", len(res.new_entry_ids), None, 0.0, None, False, at)
    )
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)


def _yes(monkeypatch) -> None:
    monkeypatch.setattr(mainwindow, "ask", lambda *_a, **_k: True)
    monkeypatch.setattr(mainwindow, "ask_to_delete", lambda *_a, **_k: True)


def _press(qtbot, widget, key, mod=Qt.KeyboardModifier.NoModifier) -> None:
    widget.setFocus()
    qtbot.keyClick(widget, key, mod)


def _open_first(qtbot, win, n: int) -> int:
    qtbot.waitUntil(lambda: win.list_model.rowCount() == n and _settled(win), timeout=3000)
    _press(qtbot, win.list, Qt.Key.Key_J)
    assert win._current_entry is not None
    return win._current_entry


def _shows_no_deleted_article(env, qtbot, win) -> None:
    """The reading pane shows no deleted article, and the keys that act on the
    article open (v, Ctrl+Shift+C, s, m) raise nothing."""
    problems = [
        f"article {eid} is deleted but still open"
        for eid in {win._current_entry, getattr(win.article_view.entry, "id", None)}
        if eid is not None and not env.store.entry_rows([eid])
    ]
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    for key, mod, name in ((Qt.Key.Key_V, None, "v"), (Qt.Key.Key_C, ctrl_shift, "Ctrl+Shift+C"),
                           (Qt.Key.Key_S, None, "s"), (Qt.Key.Key_M, None, "m")):  # fmt: skip
        with qtbot.capture_exceptions() as raised:
            _press(qtbot, win.list, key, mod or Qt.KeyboardModifier.NoModifier)
        problems += [f"{name} raised {r[1]!r}" for r in raised]
    assert not problems, "; ".join(problems)


def test_unsubscribing_the_feed_of_the_article_open_closes_it(env, qtbot, monkeypatch):
    """Bug A (unsubscribe): the reading pane kept the deleted article, and "v"
    (open in browser) or Ctrl+Shift+C then raised UsageError("no entry with id …")."""
    from tests.gui.test_mainwindow import stored_feed

    alpha = stored_feed(env, "Alpha", 3)
    stored_feed(env, "Beta", 2)
    _yes(monkeypatch)
    win = env.window(start_scheduler=False)
    win.select_feed(alpha)
    _open_first(qtbot, win, 3)
    win.select_feed(alpha)
    _press(qtbot, win.tree, Qt.Key.Key_Delete)
    assert alpha not in [f.id for f in env.store.feeds()]
    _shows_no_deleted_article(env, qtbot, win)


def test_a_purge_that_deletes_the_article_open_closes_it(env, qtbot):
    """Bug A (purge): the daily clean-up deleted the article being read (read, so
    old enough to go); the pane kept it and "v" raised UsageError."""
    now = time.time()
    fid = env.store.add_feed("https://old.example/feed", title="Old")
    old = [pe(f"old{i}", f"Old {i}", now - 41 * DAY - i * 60) for i in range(3)]
    env.store.record_fetch(FetchRecord(fid, now - 40 * DAY, "ok", entries=old))
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    eid = _open_first(qtbot, win, 3)
    res = env.store.purge_old(time.time(), read_days=30.0)  # what the worker runs daily
    assert res.read == 1 and not env.store.entry_rows([eid])
    win.sched.entriesPurged.emit(res.read)  # … and announces
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)
    _shows_no_deleted_article(env, qtbot, win)


def test_undoing_an_unsubscribe_lists_the_feeds_articles_sorted_by_feed(env, qtbot, monkeypatch):
    """Bug B: Undo of an unsubscribe gave the list model no title for the feed it
    brought back (``_resubscribe`` does not call ``reload_feed_titles``): sorted
    by feed its list was empty (the tree said 3 unread), and its rows showed no
    feed name. Only once another fetch result or a rename has re-read the titles
    without the feed, as the scheduler does all the time."""
    from tests.gui.test_mainwindow import stored_feed, unread_of

    alpha = stored_feed(env, "Alpha", 3)
    beta = stored_feed(env, "Beta", 2)
    _yes(monkeypatch)
    win = env.window(start_scheduler=False)
    win.list.sortByColumn(COL_FEED, ASC)
    win.select_feed(alpha)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 3, timeout=3000)
    _press(qtbot, win.tree, Qt.Key.Key_Delete)
    assert alpha not in [f.id for f in env.store.feeds()]
    _announce(env, qtbot, win, beta, [pe("beta-new", "Beta news", time.time())])
    _press(qtbot, win.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert win.current_key() == f"feed:{alpha}" and unread_of(win, f"feed:{alpha}") == 3
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)
    assert win.list_model.rowCount() == 3, "the feed's articles are not listed"
    win.select_key("smart:all")
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)
    m = win.list_model
    names = {m.index(r, COL_FEED).data() for r in range(m.rowCount())}
    assert names == {"Alpha", "Beta"}


def test_marking_the_article_open_unread_brings_it_back_to_all_unread(env, qtbot):
    """Bug C: "m" on the article being read when its row is no longer listed (the
    unread list was read again after it was read) marks it unread, and the tree
    counts it, but "All unread" does not show it: the list is short of its count.
    (Undoing a mark-all already re-reads such a list: ``FlagCommand.apply``.)"""
    from tests.gui.test_mainwindow import stored_feed, unread_of

    stored_feed(env, "Alpha", 3)
    beta = stored_feed(env, "Beta", 1)
    win = env.window(start_scheduler=False)
    win.select_key("smart:unread")
    eid = _open_first(qtbot, win, 4)
    win.select_feed(beta)
    win.select_key("smart:unread")  # back: read again, without the article read
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)
    assert eid not in win.list_model.ids() and win._current_entry == eid
    _press(qtbot, win.list, Qt.Key.Key_M)
    assert not env.store.entry(eid).read and unread_of(win, "smart:unread") == 4
    assert eid in win.list_model.ids(), "the tree counts 4 unread, the list shows 3"


def test_a_title_a_fetch_edits_shows_in_the_list(env, qtbot):
    """Bug D: a fetch that edits an article's title (same uid, new title) updates
    the store, but the list keeps painting the old title from its row cache (a
    re-query reads only new ids; even re-sorting keeps the cache) until another
    feed is selected."""
    from tests.gui.test_mainwindow import stored_feed

    fid = stored_feed(env, "Alpha", 3)
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 3, timeout=3000)
    m = win.list_model
    e = env.store.entry(m.entry_id(1))
    assert m.index(1, COL_TITLE).data() == e.title  # painted, so cached
    _announce(env, qtbot, win, fid, [pe(e.uid, "Edited upstream", e.published)])
    assert env.store.entry(e.id).title == "Edited upstream"
    assert m.index(m.row_of(e.id), COL_TITLE).data() == "Edited upstream"


def test_the_article_being_read_shows_a_fetchs_edit_where_the_reader_was(env, qtbot):
    """A fetch that edits the article open (title, text) shows the edit in the
    reading pane, which kept the old text until another article was opened; the
    scroll position stays, the article stays read. A fetch that changes nothing
    in it does not redraw it (a selection of its text stays)."""
    from tests.gui.test_mainwindow import stored_feed

    fid = stored_feed(env, "Alpha", 3)
    win = env.window(start_scheduler=False)
    win.resize(900, 500)
    win.select_feed(fid)
    eid = _open_first(qtbot, win, 3)
    e = env.store.entry(eid)
    long_text = "".join(f"<p>Paragraph {i} of a long article.</p>" for i in range(120))
    edit = ParsedEntry(e.uid, e.title, e.link, "", e.published, None, long_text, "")
    _announce(env, qtbot, win, fid, [edit])
    view = win.article_view
    assert "Paragraph 119" in view.html() and env.store.entry(eid).read
    bar = view.browser.verticalScrollBar()
    assert bar.maximum() > 400
    bar.setValue(400)
    retitled = ParsedEntry(e.uid, "Edited upstream", e.link, "", e.published, None,
                           long_text.replace("Paragraph 5 ", "Edited 5 "), "")  # fmt: skip
    _announce(env, qtbot, win, fid, [retitled])
    html = view.html()
    assert "Edited upstream" in html and "Edited 5" in html
    assert bar.value() == 400 and win._current_entry == eid
    assert env.store.entry(eid).read
    assert "was updated by its feed" in win.statusBar().currentMessage()
    view.browser.selectAll()
    _announce(env, qtbot, win, fid, [retitled, pe("other", "Another", time.time())])
    assert view.browser.textCursor().hasSelection() and bar.value() == 400
    # an edit to another article of the feed leaves the pane alone
    other = env.store.entry(win.list_model.entry_id(win.list_model.row_of(eid) + 1))
    _announce(env, qtbot, win, fid, [pe(other.uid, "Other edited", other.published)])
    assert view.browser.textCursor().hasSelection() and "Edited upstream" in view.html()


def test_the_article_read_keeps_its_place_when_an_unread_list_is_sorted(env, qtbot):
    """Bug E: sorting keeps the selected row; one that no longer matches the list's
    query (the article just read, in "All unread") never gets its page, and is
    left at the end of the list, out of the new order."""
    from tests.gui.test_mainwindow import stored_feed

    stored_feed(env, "Alpha", 5, title=lambda i: f"{'aedcb'[i]} item")
    win = env.window(start_scheduler=False)
    win.select_key("smart:unread")
    eid = _open_first(qtbot, win, 5)
    assert env.store.entry(eid).title == "a item"
    win.list.sortByColumn(COL_TITLE, ASC)
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)
    titles = [env.store.entry(i).title for i in win.list_model.ids()]
    assert win.selected_entry_id() == eid
    assert titles == sorted(titles), titles


def test_an_article_marked_unread_stays_unread_across_a_restart(env, qtbot):
    """Bug F: the window reopens the article open at quit, and opening marks it
    read: one marked unread with "m" (to keep it for later) was read again at
    the next start (``_restore_state`` → ``_select_in_list(open_=True)`` →
    ``open_entry``), and the tree's counts dropped by one."""
    from tests.gui.test_mainwindow import stored_feed, unread_of

    fid = stored_feed(env, "Alpha", 3)
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    eid = _open_first(qtbot, win, 3)
    _press(qtbot, win.list, Qt.Key.Key_M)  # keep it unread
    assert not env.store.entry(eid).read
    win.close()
    again = env.window(start_scheduler=False)
    qtbot.waitUntil(lambda: _settled(again), timeout=3000)
    assert again.current_key() == f"feed:{fid}"
    assert not env.store.entry(eid).read, "restarting marked it read"
    assert unread_of(again, f"feed:{fid}") == 3


def test_a_fetch_does_not_open_the_article_selected_with_n(env, qtbot):
    """Bug G: "n" and "p" move the selection without opening (or marking read);
    a fetch result then inserts its new articles above the selected row, the
    selection model reports a selection change (Qt does on a row insert before
    the selection), and ``_article_changed`` opened the selected article and
    marked it read, with no key pressed."""
    from tests.gui.test_mainwindow import stored_feed, unread_of

    fid = stored_feed(env, "Alpha", 3)
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 3 and _settled(win), timeout=3000)
    _press(qtbot, win.list, Qt.Key.Key_N)
    chosen = win.selected_entry_id()
    assert chosen is not None and win._current_entry is None
    _announce(env, qtbot, win, fid, [pe("new", "New", time.time())])
    assert win.list_model.rowCount() == 4
    assert win.selected_entry_id() == chosen  # still selected, and only selected
    assert win._current_entry is None and not env.store.entry(chosen).read
    assert unread_of(win, f"feed:{fid}") == 4
