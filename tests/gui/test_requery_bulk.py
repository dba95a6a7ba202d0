"""A re-query whose new entries land in many places of a sorted list changes the
layout once (instead of one row insert per place); the order is exact and the
selected row stays selected."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QTableView

from smartreader.core.models import ParsedEntry
from smartreader.gui import models
from smartreader.gui.models import COL_TITLE, ArticleListModel
from smartreader.storage import FetchRecord, Store


def pe(uid: str, published: float, title: str) -> ParsedEntry:
    return ParsedEntry(uid, title, None, "", published, None, "<p>x</p>", "")


def test_a_burst_spread_over_the_list_is_one_layout_change(qtbot, tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    fid = store.add_feed("https://a.example/feed", title="A")
    old = [pe(f"o{i}", 1000.0 + i, f"title {i:03d}0") for i in range(200)]
    store.record_fetch(FetchRecord(fid, 5000.0, "ok", entries=old))
    m = ArticleListModel(store)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(m)
    m.sort(COL_TITLE, Qt.SortOrder.AscendingOrder)
    m.set_query()
    m.finish_loading()
    chosen = m.ids()[150]
    view.selectionModel().setCurrentIndex(
        m.index(150, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    # 100 new titles, each between two old ones: 100 separate places
    new = [pe(f"n{i}", 2000.0 + i, f"title {i * 2:03d}5") for i in range(100)]
    store.record_fetch(FetchRecord(fid, 6000.0, "ok", entries=new))
    inserted: list[int] = []
    m.rowsInserted.connect(lambda *_: inserted.append(1))
    with qtbot.wait_signal(m.layoutChanged, timeout=1000):
        added = m.requery()
    assert len(added) == 100 > models.BULK_RUNS and not inserted
    fresh = ArticleListModel(store)
    fresh.sort(COL_TITLE, Qt.SortOrder.AscendingOrder)
    fresh.set_query()
    fresh.finish_loading()
    assert m.ids() == fresh.ids()
    cur = view.selectionModel().currentIndex()
    assert m.ids()[cur.row()] == chosen  # the selection moved with its row
    assert [m.ids()[i.row()] for i in view.selectionModel().selectedRows()] == [chosen]
    store.close()
