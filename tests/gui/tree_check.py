"""The feed tree against the store, for the random-session drivers: each feed under
its folder with its name and unread count, every folder with its name and its
feeds' sum, the smart views' counts and the window title's total."""

from __future__ import annotations

from typing import Any

from smartreader.gui.models import UnreadRole


def tree_problems(win: Any, store: Any) -> list[str]:
    problems: list[str] = []
    feeds = store.feeds()
    counts = store.unread_counts()
    tm = win.tree_model
    for f in feeds:
        idx = tm.index_for_key(f"feed:{f.id}")
        if not idx.isValid():
            problems.append(f"feed {f.id} ({f.display_title}) not in the tree")
            continue
        if idx.data() != f.display_title:
            problems.append(f"feed {f.id} shown as {idx.data()!r}, is {f.display_title!r}")
        parent = idx.parent()
        shown_folder = tm.node(parent).title if parent.isValid() else None
        if shown_folder != f.folder:
            problems.append(f"feed {f.id} under {shown_folder!r}, in {f.folder!r}")
        got = int(idx.data(UnreadRole))
        if got != counts.get(f.id, 0):
            problems.append(f"feed {f.id} shows {got} unread, store {counts.get(f.id, 0)}")
    in_tree = {k for k, _n in tm.unread_in_order()}
    gone = {k for k in in_tree if k.startswith("feed:")} - {f"feed:{f.id}" for f in feeds}
    if gone:
        problems.append(f"tree shows unsubscribed feeds {sorted(gone)}")
    for folder in store.folders():
        idx = tm.index_for_key(f"folder:{folder.id}")
        if not idx.isValid():
            problems.append(f"folder {folder.name!r} not in the tree")
            continue
        if idx.data() != folder.name:
            problems.append(f"folder {folder.name!r} shown as {idx.data()!r}")
        want = sum(counts.get(f.id, 0) for f in feeds if f.folder_id == folder.id)
        if int(idx.data(UnreadRole)) != want:
            problems.append(f"folder {folder.name!r} shows {idx.data(UnreadRole)}, store {want}")
    total = sum(counts.values())
    for key, want in (("smart:unread", total), ("smart:starred", store.starred_count())):
        got = int(tm.index_for_key(key).data(UnreadRole))
        if got != want:
            problems.append(f"{key} shows {got}, store {want}")
    title = win.windowTitle()
    if (f"({total})" not in title) if total else ("(" in title):
        problems.append(f"window title {title!r}, {total} unread")
    return problems


def expected_query(win: Any, store: Any) -> dict[str, Any]:
    """The list query the window should be showing, worked out apart from it: the
    node selected, "show unread only", the search (which lists read ones too)."""
    key = win.current_key()
    q: dict[str, Any] = {}
    kind, _, ident = key.partition(":")
    if kind == "feed":
        q["feed_ids"] = [int(ident)]
    elif kind == "folder":
        q["feed_ids"] = sorted(f.id for f in store.feeds() if f.folder_id == int(ident))
    if key == "smart:unread":
        q["unread"] = True
    elif key == "smart:starred":
        q["starred"] = True
    elif win.act_unread_only.isChecked() and key != "smart:all":
        q["unread"] = True
    text = win.search.text().strip()
    if text:
        q["search"] = text
        q.pop("unread", None)
    return q
