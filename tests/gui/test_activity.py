"""The Activity panel shows what the scheduler explains: the λ(t) curve for a feed
with history, its plan and fetch log; and every feed in the overview."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import pytest
from PySide6.QtCore import Qt

from smartreader.core.models import ParsedEntry
from smartreader.core.rhythm import to_local_slots
from smartreader.gui.activity import ActivityPanel
from smartreader.storage.store import FetchRecord, Store

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@dataclass(frozen=True)
class Ex:
    feed_id: int
    rate_per_day: float
    lambda_week: tuple
    observed_week: tuple
    periodicity: float
    share_per_day: float
    planned: tuple
    expected_delay_s: float
    capacity: int | None
    notes: tuple


@dataclass(frozen=True)
class Summary:
    budget_per_day: float
    planned_per_day: float
    expected_mean_delay_s: float
    fixed_interval_mean_delay_s: float
    feeds_starved: tuple
    notes: tuple


class FakeUpdater:
    def __init__(self, now):
        self.now = now

    def budget(self):
        return 200.0

    def requests_today(self):
        return 17

    def explain(self, fid):
        lam = tuple(0.1 + math.exp(-(((i % 24) - 9) ** 2) / 6) for i in range(168))
        obs = tuple(round(3 * v) for v in lam)
        planned = tuple(self.now + 3600 * k for k in range(1, 6))
        return Ex(fid, sum(lam) / 7, lam, obs, 0.8, 12.0, planned, 1800.0, 20, ("busy mornings",))

    def summary(self):
        return Summary(200.0, 190.0, 1500.0, 3600.0, (2,), ())


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def _history(store: Store, now: float) -> list[int]:
    ids = []
    for name in ("alpha", "beta"):
        fid = store.add_feed(f"http://127.0.0.1/{name}.xml", title=name, now=now - 86400)
        ids.append(fid)
        for k, status in enumerate(("ok", "not_modified", "error")):
            t = now - 3600 * (3 - k)
            ents = [ParsedEntry(f"{name}{k}{i}", "x", None, "", t, None, "", "") for i in range(3)]
            store.record_fetch(
                FetchRecord(
                    fid,
                    t,
                    status,
                    http_status={"ok": 200, "not_modified": 304, "error": 503}[status],
                    entries=ents if status == "ok" else (),
                    error="HTTP 503" if status == "error" else None,
                )
            )
    return ids


def test_feed_view_plots_the_explanation(qtbot, store):
    now = time.time()
    fid, _ = _history(store, now)
    up = FakeUpdater(now)
    panel = ActivityPanel(store, up)
    qtbot.addWidget(panel)
    panel.resize(900, 800)
    panel.show()
    panel.set_feed(fid)
    view = panel.feed_view
    assert panel.stack.currentWidget() is view
    ex = up.explain(fid)
    chart = view.chart
    ys = [y for _, y in chart.curve_points()]
    assert len(ys) == 168 and any(ys)
    assert ys == pytest.approx(to_local_slots(ex.lambda_week, chart.utc_offset_s))
    assert any(v > 0 for v in chart.bar_values())
    assert len(chart.planned_positions()) == len(ex.planned)
    assert view.planned.count() == len(ex.planned)
    assert view.planned.item(0).text().endswith("in 1 h")
    assert view.rate.value.text() == f"{ex.rate_per_day:.2f}"
    assert view.delay.value.text() == "30 min"
    # the fake's morning peak is a strong daily rhythm, named in local time
    assert view.periodicity.value.text() == "Strong"
    assert view.periodicity.detail.text().startswith("busiest ")
    assert "0.80" in view.periodicity.toolTip()
    # Fetch log: newest first, 304 visible, the error in the error colour.
    t = view.log_table
    assert [t.item(r, 1).text() for r in range(3)] == ["error", "not modified", "ok"]
    assert t.item(1, 2).text() == "304"
    assert t.item(0, 5).text() == "HTTP 503"
    err = t.item(0, 1).foreground().color()
    assert err.red() > err.green() and err.red() > err.blue()
    assert "busy mornings" in view.notes.text()
    img = chart.grab().toImage()
    assert img.width() > 300  # paints without error


def test_overview_lists_every_feed_sorted_with_summary(qtbot, store):
    now = time.time()
    ids = _history(store, now)
    panel = ActivityPanel(store, FakeUpdater(now))
    qtbot.addWidget(panel)
    panel.show()
    ov = panel.overview
    assert panel.stack.currentWidget() is ov
    assert ov.proxy.rowCount() == 2
    ov.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert [ov.proxy.index(r, 0).data() for r in range(2)] == ["alpha", "beta"]
    assert ov.proxy.index(0, 6).data() == "error"
    assert ov.smart.value.text() == "25 min" and ov.fixed.value.text() == "1 h"
    assert ov.starved.isVisibleTo(panel) and "beta" in ov.starved.text()
    with qtbot.wait_signal(panel.feedActivated, timeout=1000) as sig:
        ov.table.doubleClicked.emit(ov.proxy.index(1, 0))
    assert sig.args == [ids[1]]
