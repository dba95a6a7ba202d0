"""A feed that read, but not as published (malformed XML read leniently), says so
on its Activity page: in the fetch log, and in the overview's status column,
in the warning colour and with the parser's words. Before, it showed a plain
"ok" and the warnings were dropped after parsing."""

from __future__ import annotations

import time

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.gui.activity import ActivityPanel
from smartreader.net.parse import cap_note
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

WARNING = "malformed feed, read leniently: XML parse error at line 7: undefined entity"


@pytest.fixture
def panel(qtbot, tmp_path):
    now = time.time()
    store = Store(tmp_path / "db.sqlite3")
    ids = []
    for name in ("clean", "lenient", "huge"):
        fid = store.add_feed(f"http://127.0.0.1/{name}.xml", title=name, now=now - 86400)
        ids.append(fid)
        ents = [ParsedEntry(f"{name}{i}", "x", None, "", now - 60, None, "", "") for i in range(3)]
        store.record_fetch(
            FetchRecord(
                fid,
                now - 600,
                "ok",
                http_status=200,
                entries=ents,
                warnings={"lenient": (WARNING,), "huge": (cap_note(3000),)}.get(name, ()),
            )
        )
    up = Updater(store, now=lambda: now)
    p = ActivityPanel(store, up, now=lambda: now)
    qtbot.addWidget(p)
    p.resize(900, 700)
    p.show()
    yield p, ids
    up.close()
    store.close()


def _is_warning_colour(item) -> bool:
    c = item.foreground().color()
    return c.red() > c.blue() and c.green() > c.blue()  # amber, not text grey/black


def test_the_fetch_log_says_what_the_parser_worked_around(panel):
    p, (clean, lenient, _huge) = panel
    p.set_feed(lenient)
    t = p.feed_view.log_table
    assert t.item(0, 1).text() == "ok"
    details = t.item(0, 5)
    assert details.text() == f"3 items in the feed; read with problems: {WARNING}"
    assert WARNING in details.toolTip()
    assert _is_warning_colour(t.item(0, 1))
    p.set_feed(clean)
    assert p.feed_view.log_table.item(0, 5).text() == "3 items in the feed"
    assert not _is_warning_colour(p.feed_view.log_table.item(0, 1))


def test_the_overview_marks_the_feed_read_with_problems(panel):
    p, _ids = panel
    p.set_feed(None)
    ov = p.overview
    rows = {ov.proxy.index(r, 0).data(): r for r in range(ov.proxy.rowCount())}
    status = ov.model.itemFromIndex(ov.proxy.mapToSource(ov.proxy.index(rows["lenient"], 6)))
    assert status.text() == "ok, with problems"
    assert WARNING in status.toolTip() and _is_warning_colour(status)
    name = ov.model.itemFromIndex(ov.proxy.mapToSource(ov.proxy.index(rows["lenient"], 0)))
    assert "read with problems" in name.toolTip()
    assert ov.proxy.index(rows["clean"], 6).data() == "ok"


def test_our_own_entry_limit_is_a_plain_note_not_a_problem(panel):
    """A feed listing 3000 entries, of which the parser reads 2000: every fetch
    says so, and painting every row amber as "read with problems" cried wolf."""
    p, (_clean, _lenient, huge) = panel
    p.set_feed(huge)
    t = p.feed_view.log_table
    assert t.item(0, 5).text() == (
        "3 items in the feed; the feed lists 3000 entries; only the first 2000 are read"
    )
    assert not _is_warning_colour(t.item(0, 1))
    p.set_feed(None)
    ov = p.overview
    rows = {ov.proxy.index(r, 0).data(): r for r in range(ov.proxy.rowCount())}
    assert ov.proxy.index(rows["huge"], 6).data() == "ok"
