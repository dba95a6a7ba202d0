"""The feed tree shows a feed's cached favicon, and repaints when one arrives."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from smartreader.gui.models import FeedTreeModel
from smartreader.net import favicon
from smartreader.storage import Store
from tests.gui.pictures import png


def _centre(model: FeedTreeModel, fid: int) -> QColor:
    icon = model.index_for_key(f"feed:{fid}").data(Qt.ItemDataRole.DecorationRole)
    return icon.pixmap(16, 16).toImage().pixelColor(8, 8)


def test_cached_icon_replaces_the_letter_and_a_new_one_repaints(qtbot, tmp_path):
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed("https://example.org/feed.xml", title="Example")
        model = FeedTreeModel(store)
        letter = _centre(model, fid)
        assert letter != QColor("#ff0000")

        favicon.save_icon(favicon.icons_dir(store.path), fid, png(32, 32, "#ff0000"))
        with qtbot.waitSignal(model.dataChanged, timeout=1000):
            model.reload()
        assert _centre(model, fid) == QColor("#ff0000")

        # A broken file falls back to the letter icon instead of a blank square.
        (favicon.icons_dir(store.path) / f"{fid}.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
        model.reload()
        assert _centre(model, fid) == letter
