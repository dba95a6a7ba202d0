"""The Activity panel shows what the scheduler explains: the λ(t) curve for a feed
with history, its plan and fetch log; and every feed in the overview."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QSplitter

from smartreader.core.models import FetchObservation, ItemSighting, ParsedEntry
from smartreader.core.rhythm import to_local_slots
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.gui.activity import ActivityPanel
from smartreader.gui.charts import humanize_duration, humanize_in
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


DAY = 86400.0


def _learned_state(now: float, per_day: int, at_hour: int, window: int) -> dict:
    """What the real scheduler learns from three weeks of daily fetches of a feed
    that posts ``per_day`` items around ``at_hour`` UTC and lists its newest
    ``window``, as the store keeps it."""
    t0 = (now - 21 * DAY) // DAY * DAY
    sched = Scheduler(SchedulerConfig(budget_per_day=200.0), t0)
    sched.add_feed("f", host="127.0.0.1")
    posted: list[tuple[str, float]] = []
    for d in range(21):
        day = t0 + d * DAY
        posted += [(f"{d}-{k}", day + at_hour * 3600 + k * 1200 / per_day) for k in range(per_day)]
        shown = posted[-window:]
        items = tuple(ItemSighting(uid, p, uid.startswith(f"{d}-")) for uid, p in shown)
        sched.observe("f", FetchObservation(day + (at_hour + 3) * 3600, "ok", items))
    return sched.export_state("f")


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


@pytest.fixture
def updater_on(store):
    """The real updater on the store's feeds [alpha, beta]: alpha posts 3 items a
    day around 09:00 UTC and lists 10, beta 60 around 14:00 and lists 20 (each
    fetch loses 40); the store holds what the scheduler learned of them."""
    made: list[Updater] = []

    def make(now: float, ids: list[int], budget: float = 200.0) -> Updater:
        store.set_setting("budget_per_day", budget)
        store.save_scheduler_state(
            {ids[0]: _learned_state(now, 3, 9, 10), ids[1]: _learned_state(now, 60, 14, 20)}
        )
        made.append(Updater(store, now=lambda: now))
        return made[-1]

    yield make
    for up in made:
        up.close()


def _feed_panel(qtbot, store, updater_on, width: int, height: int):
    """The panel showing alpha's activity, at the given size."""
    now = time.time()
    fid, other = _history(store, now)
    up = updater_on(now, [fid, other])
    panel = ActivityPanel(store, up, now=lambda: now)
    qtbot.addWidget(panel)
    panel.resize(width, height)
    panel.show()
    panel.set_feed(fid)
    return panel, up, fid, now


def test_feed_view_plots_the_explanation(qtbot, store, updater_on):
    panel, up, fid, now = _feed_panel(qtbot, store, updater_on, 900, 800)
    view = panel.feed_view
    assert panel.stack.currentWidget() is view
    ex = up.explain(fid)
    chart = view.chart
    ys = [y for _, y in chart.curve_points()]
    assert len(ys) == 168 and any(ys)
    assert ys == pytest.approx(to_local_slots(ex.lambda_week, chart.utc_offset_s))
    # the learned curve peaks at the posting hour (09 UTC); the observed counts show
    assert max(range(168), key=lambda i: ex.lambda_week[i]) % 24 == 9
    assert any(v > 0 for v in chart.bar_values())
    upcoming = sorted(t for t in ex.planned if t >= now - 60)
    assert upcoming, "the scheduler plans fetches"
    assert len(chart.planned_positions()) == len(ex.planned)
    assert view.planned.count() == min(12, len(upcoming))
    assert view.planned.item(0).text().endswith(humanize_in(upcoming[0], now))
    # three weeks of 3 items a day: the estimate is near 3/day
    assert 2.0 < float(view.rate.value.text()) < 4.0
    assert view.delay.value.text() == humanize_duration(ex.expected_delay_s)
    # one burst a day at the same hour is a strong daily rhythm, named in local time
    assert view.periodicity.value.text() == "Strong"
    assert view.periodicity.detail.text().startswith("busiest ")
    assert f"{ex.periodicity:.2f}" in view.periodicity.toolTip()
    # Fetch log: newest first, 304 visible, the error in the error colour.
    t = view.log_table
    assert [t.item(r, 1).text() for r in range(3)] == ["error", "not modified", "ok"]
    assert t.item(1, 2).text() == "304"
    assert t.item(0, 5).text() == "HTTP 503"
    err = t.item(0, 1).foreground().color()
    assert err.red() > err.green() and err.red() > err.blue()
    img = chart.grab().toImage()
    assert img.width() > 300  # paints without error


def test_overview_lists_every_feed_sorted_with_summary(qtbot, store, updater_on):
    now = time.time()
    ids = _history(store, now)
    # one request a day cannot keep up with beta's 60 items a day in a 20-item window
    up = updater_on(now, ids, budget=1.0)
    panel = ActivityPanel(store, up, now=lambda: now)
    qtbot.addWidget(panel)
    panel.resize(660, 720)  # the reading pane's width in a 1360 px window
    panel.show()
    ov = panel.overview
    assert panel.stack.currentWidget() is ov
    assert ov.proxy.rowCount() == 2
    # The table fits the pane. Filling detaches the proxy's source, which dropped
    # the per-column resize modes: every column fell back to 100 px, the table
    # scrolled sideways and the feed names were cut to a few letters.
    qtbot.wait(50)
    hh = ov.table.horizontalHeader()
    assert hh.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
    assert ov.table.horizontalScrollBar().maximum() == 0
    widths = [hh.sectionSize(c) for c in range(len(ov.COLUMNS))]
    assert widths[0] >= 90 and widths[4] < 100, widths  # name stretches; "Delay" fits
    for c, why in enumerate(ov.COLUMN_TIPS):
        assert ov.model.horizontalHeaderItem(c).toolTip() == why
    ov.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert [ov.proxy.index(r, 0).data() for r in range(2)] == ["alpha", "beta"]
    assert ov.proxy.index(0, 6).data() == "error"
    summary = up.summary()
    assert ov.smart.value.text() == humanize_duration(summary.expected_mean_delay_s)
    assert ov.fixed.value.text() == humanize_duration(summary.fixed_interval_mean_delay_s)
    assert ids[1] in summary.feeds_starved
    assert ov.starved.isVisibleTo(panel) and "beta" in ov.starved.text()
    with qtbot.wait_signal(panel.feedActivated, timeout=1000) as sig:
        ov.table.activated.emit(ov.proxy.index(1, 0))
    assert sig.args == [ids[1]]


def test_feed_view_in_a_short_pane_keeps_the_chart_clear_of_the_lists(qtbot, store, updater_on):
    # The reading pane of a 1024 × 640 window. The stats wrap to more lines than
    # the minimum size hint foresees; with a 210 px chart minimum the layout could
    # not be met and the lists below were laid over the chart's axis labels.
    panel, *_ = _feed_panel(qtbot, store, updater_on, 505, 545)
    qtbot.wait(50)
    view = panel.feed_view
    chart = view.chart.geometry()
    below = [w.geometry() for w in view.findChildren(QSplitter)]
    assert below and all(chart.bottom() < g.top() for g in below), (chart, below)
    assert chart.bottom() < view.height() and chart.height() >= 150


def test_overview_in_a_narrow_pane_drops_columns_instead_of_scrolling(qtbot, store, updater_on):
    now = time.time()
    ids = _history(store, now)
    up = updater_on(now, ids)
    panel = ActivityPanel(store, up, now=lambda: now)
    qtbot.addWidget(panel)
    ov = panel.overview
    panel.resize(900, 720)
    panel.show()
    qtbot.wait(50)
    assert not any(ov.table.isColumnHidden(c) for c in range(len(ov.COLUMNS)))
    assert ov.stats.columns == 4  # the four cards in one row
    # The reading pane of a 1024 px window: every column did not fit and the table
    # scrolled sideways, with the feed names cut to a few letters.
    panel.resize(430, 720)
    qtbot.waitUntil(lambda: ov.table.isColumnHidden(3), timeout=2000)
    hh = ov.table.horizontalHeader()
    assert ov.table.horizontalScrollBar().maximum() == 0
    assert hh.sectionSize(0) >= ov.MIN_FEED_PX - 10
    kept = [c for c in range(len(ov.COLUMNS)) if not ov.table.isColumnHidden(c)]
    assert {0, 2, 4, 7} <= set(kept)  # the name, the plan, the delay and the alerts stay
    assert ov.stats.columns == 2 and ov.stats.width() <= panel.width()
    # What a dropped column said is in the feed's tooltip.
    ov.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    tipped = ov.proxy.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "alpha.xml" in tipped and "Share of the budget:" in tipped
    assert "(error: HTTP 503)" in tipped
    # And back: a wide pane shows every column again.
    panel.resize(900, 720)
    qtbot.waitUntil(lambda: not ov.table.isColumnHidden(3), timeout=2000)
    assert not any(ov.table.isColumnHidden(c) for c in range(len(ov.COLUMNS)))
    assert ov.stats.columns == 4


def test_a_cards_detail_never_ends_a_line_on_a_number_whose_unit_follows(qtbot):
    """The overview's budget card read "785 used in the last 24" / "h"."""
    from smartreader.gui.activity import _Stat
    from tests.gui.textlayout import wrapped_lines

    card = _Stat("Request budget")
    qtbot.addWidget(card)
    card.set("800/day", "785 used in the last 24 h")
    fm = card.detail.fontMetrics()
    # as narrow as ends the first line right after "24"
    width = fm.horizontalAdvance("785 used in the last 24") + 2
    lines = wrapped_lines(card.detail.text(), card.detail.font(), width, rich=False, margin=0)
    assert len(lines) >= 2
    assert not any(line.rstrip().endswith("24") for line in lines), lines
    assert card.detail.text().replace("\u00a0", " ") == "785 used in the last 24 h"
