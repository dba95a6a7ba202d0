"""A feed whose last update failed and one that probably missed items differ in
the tree by more than a dot's colour (red and orange look alike with
deuteranopia, and a screen reader heard neither): the badge's shape differs,
and the row's accessible text says the state."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, QSize, Qt

from smartreader.gui.models import ERROR_COLOR, FeedTreeModel, KeyRole, letter_icon
from smartreader.storage import FetchRecord, Store

pytestmark = pytest.mark.qt_log_level_fail("WARNING")


def _badge(icon) -> set[tuple[int, int]]:
    """The pixels painted in the badge's colour."""
    img = icon.pixmap(QSize(32, 32)).toImage()
    return {
        (x, y) for y in range(32) for x in range(32) if img.pixelColor(x, y).name() == "#d93025"
    }


def test_the_error_and_missed_badges_differ_in_shape_not_only_colour(qapp):
    # the same colour for both: what is left is the shape
    error = letter_icon("Lint House", badge=ERROR_COLOR, badge_shape="error")
    missed = letter_icon("Lint House", badge=ERROR_COLOR, badge_shape="missed")
    plain = letter_icon("Lint House")
    disc, triangle = _badge(error), _badge(missed)
    assert disc and triangle and not _badge(plain)
    # not one shape slightly moved: each has plenty of pixels the other lacks
    assert len(disc - triangle) > 10 and len(triangle - disc) > 10


def test_a_selected_row_shows_the_icon_and_its_badge_untinted(qapp):
    """The style tinted a selected row's icon into the highlight: the letter's
    colour and the badge washed out on the row the user is reading."""
    from PySide6.QtGui import QIcon

    icon = letter_icon("Lint House", badge=ERROR_COLOR, badge_shape="missed")
    normal = icon.pixmap(QSize(32, 32)).toImage()
    selected = icon.pixmap(QSize(32, 32), QIcon.Mode.Selected).toImage()
    assert selected == normal
    assert _badge(icon)


def test_a_screen_reader_hears_the_feeds_state(qapp, tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    try:
        ok = store.add_feed("https://ok.example/feed", title="Calm")
        bad = store.add_feed("https://bad.example/feed", title="Lint House")
        lossy = store.add_feed("https://lossy.example/feed", title="Harbour Wire")
        store.record_fetch(FetchRecord(ok, 1000.0, "ok"))
        store.record_fetch(FetchRecord(bad, 1000.0, "error", error="HTTP 500"))
        store.record_fetch(
            FetchRecord(lossy, 1000.0, "ok", missed_estimate=4.0, missed_from=1.0, missed_to=2.0)
        )
        m = FeedTreeModel(store)
        spoken = {}

        def walk(parent: QModelIndex) -> None:
            for r in range(m.rowCount(parent)):
                idx = m.index(r, 0, parent)
                spoken[idx.data(KeyRole)] = idx.data(Qt.ItemDataRole.AccessibleTextRole)
                walk(idx)

        walk(QModelIndex())
        assert spoken[f"feed:{ok}"] == "Calm"
        assert spoken[f"feed:{bad}"] == "Lint House, last update failed"
        assert spoken[f"feed:{lossy}"] == "Harbour Wire, items probably missed"
    finally:
        store.close()
