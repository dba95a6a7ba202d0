"""A search list and upstream edits: an article a fetch edits so that it now
matches joins the list, at its place, without the search being run again (it
showed only once the search ran again: a re-query reads only the articles
stored since the list was read). Real store, real window."""

from __future__ import annotations

import time

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.gui.models import COL_DATE, COL_TITLE
from smartreader.storage.store import FetchRecord
from tests.gui.test_mainwindow import stored_feed
from tests.gui.test_random_actions import _announce, _settled

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _edit(env, qtbot, win, fid: int, entry_id: int, title: str) -> None:
    """An upstream edit of one article's title, stored and announced as the
    scheduler does; the window refreshed."""
    e = env.store.entry(entry_id)
    _announce(
        env,
        qtbot,
        win,
        fid,
        [ParsedEntry(e.uid, title, None, "", e.published, None, "<p>x</p>", "")],
    )


def _search(qtbot, win, text: str) -> None:
    win.search.setText(text)
    qtbot.waitUntil(lambda: win.list_model.query().get("search") == text, timeout=3000)
    qtbot.waitUntil(lambda: _settled(win), timeout=3000)


@pytest.mark.parametrize("col", [COL_DATE, COL_TITLE])
def test_an_article_edited_to_match_joins_the_search_list_at_its_place(env, qtbot, col):
    fid = stored_feed(
        env, "Alpha", 12, title=lambda i: f"kiwi {i:02d}" if i % 3 else f"plum {i:02d}"
    )
    stored_feed(env, "Beta", 3, title=lambda i: f"kiwi b{i}")
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    win.list_model.sort(col, win.list_model.sort_state()[1])
    _search(qtbot, win, "kiwi")
    before = win.list_model.ids()
    assert len(before) == 8 + 3
    win.list.setCurrentIndex(win.list_model.index(2, 0))  # reading one of them
    reading = win.list_model.entry_id(2)
    plum = [i for i in env.store.entry_ids(feed_ids=[fid]) if i not in before]
    _edit(env, qtbot, win, fid, plum[1], "kiwi (edited)")
    after = win.list_model.ids()
    assert set(after) == set(before) | {plum[1]}
    order = win.list_model.ids()
    keys = {r[0]: r for r in env.store.entry_sort_rows_of(order)}
    if col == COL_DATE:  # newest first
        assert [keys[i][3] for i in order] == sorted((keys[i][3] for i in order), reverse=True)
    else:
        titles = [keys[i][2].casefold() for i in order]
        assert titles == sorted(titles, reverse=win.list_model.sort_state()[1].value == 1)
    assert win.list_model.entry_id(win.list.currentIndex().row()) == reading
    # an edit that does not make a match adds nothing; the other feed is untouched
    _edit(env, qtbot, win, fid, plum[2], "still a plum")
    assert set(win.list_model.ids()) == set(after)


def test_a_search_in_one_feed_takes_only_that_feeds_edits(env, qtbot):
    alpha = stored_feed(env, "Alpha", 4, title=lambda i: f"plum {i}")
    beta = stored_feed(env, "Beta", 4, title=lambda i: f"plum {i}")
    win = env.window(start_scheduler=False)
    win.select_feed(alpha)
    _search(qtbot, win, "kiwi")
    assert win.list_model.ids() == []
    b = env.store.entry_ids(feed_ids=[beta])[0]
    _edit(env, qtbot, win, beta, b, "kiwi in beta")
    assert win.list_model.ids() == []
    a = env.store.entry_ids(feed_ids=[alpha])[0]
    _edit(env, qtbot, win, alpha, a, "kiwi in alpha")
    assert win.list_model.ids() == [a]


def test_an_edit_while_the_search_list_still_loads(env, qtbot, small_pages):
    fid = stored_feed(env, "Alpha", 120, title=lambda i: f"{'kiwi' if i % 2 else 'plum'} {i:03d}")
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    m = win.list_model
    m.set_query(feed_ids=[fid], search="kiwi")
    assert m.loading()  # one small page at a time
    plums = [i for i in env.store.entry_ids(feed_ids=[fid]) if env.store.entry(i).title[0] == "p"]
    first, last = plums[0], plums[-1]  # the newest (read already) and the oldest (to come)
    for eid in (first, last):
        e = env.store.entry(eid)
        edited = ParsedEntry(e.uid, f"kiwi {e.title}", None, "", e.published, None, "", "")
        env.store.record_fetch(FetchRecord(fid, time.time(), "ok", entries=[edited]))
    m.requery()
    m.take_edited_matches({fid})
    qtbot.waitUntil(lambda: not m.loading(), timeout=5000)
    ids = m.ids()
    assert len(ids) == len(set(ids)) == 62
    assert {first, last} <= set(ids)
    times = [env.store.entry(i).sort_time for i in ids]
    assert times == sorted(times, reverse=True)
