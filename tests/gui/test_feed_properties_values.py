"""Feed properties: OK with no edits changes nothing, even values its spin boxes
cannot show exactly (an OPML import sets a priority of 0.05 or 1.5 minutes)."""

from __future__ import annotations

import pytest

from smartreader.gui.dialogs import FeedPropertiesDialog
from smartreader.storage.store import Store

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "db.sqlite3") as s:
        yield s


def dialog(qtbot, store, fid) -> FeedPropertiesDialog:
    dlg = FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(dlg)
    return dlg


@pytest.mark.parametrize(
    ("weight", "min_interval"),
    [(0.05, 90.0), (2.25, 90.5 * 60), (0.005, None), (1.0, 61.0)],
)
def test_ok_without_edits_keeps_every_stored_value(qtbot, store, weight, min_interval):
    fid = store.add_feed("https://a.example/feed", title="A")
    store.update_feed(fid, weight=weight, min_interval=min_interval)
    dlg = dialog(qtbot, store, fid)
    dlg.save()
    assert dlg.result() == dlg.DialogCode.Accepted, dlg.error.text()
    feed = store.feed(fid)
    assert (feed.weight, feed.min_interval) == (weight, min_interval)


def test_the_dialog_shows_a_small_priority_as_it_is(qtbot, store):
    fid = store.add_feed("https://a.example/feed", title="A")
    store.update_feed(fid, weight=0.05)
    assert dialog(qtbot, store, fid).weight.text() == "0.05"


def test_what_the_user_changes_is_written(qtbot, store):
    fid = store.add_feed("https://a.example/feed", title="A")
    store.update_feed(fid, weight=0.05, min_interval=90.0)
    dlg = dialog(qtbot, store, fid)
    dlg.weight.setValue(3.5)
    dlg.min_interval.setValue(20)
    dlg.save()
    feed = store.feed(fid)
    assert (feed.weight, feed.min_interval) == (3.5, 1200.0)
    dlg = dialog(qtbot, store, fid)
    dlg.min_interval.setValue(0)  # "default": the feed follows Settings again
    dlg.save()
    assert store.feed(fid).min_interval is None


def test_an_empty_folder_box_is_as_wide_as_the_other_fields(qtbot, store):
    """A feed at the top level with no folders yet: the box was sized to its empty
    text, 30 px, and its "(none — top level)" placeholder could not be read."""
    fid = store.add_feed("https://a.example/feed", title="A")
    dlg = dialog(qtbot, store, fid)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.folder.currentText() == ""
    assert dlg.folder.width() >= dlg.title.width() - 2


def test_a_long_address_shows_its_host(qtbot, store):
    # scrolled to its end, the field showed "…/feed.xml?format=rss&lang=en", no host
    url = "https://news.example.org/" + "/".join(["deep"] * 20) + "/feed.xml?format=rss"
    fid = store.add_feed(url, title="A")
    dlg = dialog(qtbot, store, fid)
    dlg.resize(520, 340)
    dlg.show()
    qtbot.waitExposed(dlg)
    assert dlg.url.text() == url and dlg.url.cursorPosition() == 0
    left = dlg.url.cursorRect().left()
    assert left < dlg.url.width() // 4  # the start of the text is in view
