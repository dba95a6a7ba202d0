"""The Activity page says what actually happens to a feed, not what the learned
model alone suggests: a feed that went quiet, one whose checks keep failing, one
never read yet; the curve and rhythm in half-hour time zones; and where the shown
plan ends on the week chart.

Each feed's history is replayed through the real scheduler and recorded in a real
SQLite store; the page is the real panel over a real ``Updater`` at a fixed "now"."""

from __future__ import annotations

import datetime as dt
import os
import time

import pytest

from smartreader.core.models import FetchObservation, ItemSighting, ParsedEntry
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.gui.activity import ActivityPanel
from smartreader.gui.charts import WeekRateChart
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

DAY = 86400.0
HOUR = 3600.0
SHOTS = os.environ.get("ACTIVITY_SHOTS")  # a folder: save each page as PNG there


@pytest.fixture
def open_panel(qtbot, store):
    made: list[Updater] = []

    def make(fid: int, now: float, name: str = "") -> ActivityPanel:
        store.set_setting("budget_per_day", 100.0)
        up = Updater(store, now=lambda: now)
        made.append(up)
        panel = ActivityPanel(store, up, now=lambda: now)
        qtbot.addWidget(panel)
        panel.resize(900, 820)
        panel.show()
        panel.set_feed(fid)
        if SHOTS and name:
            _shots(panel, name)
        return panel

    yield make
    for up in made:
        up.close()


def _shots(panel: ActivityPanel, name: str) -> None:
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()  # let wrapped card details resize the cards
    panel.grab().save(os.path.join(SHOTS, f"{name}-light.png"))
    dark = QPalette()
    for role, rgb in (
        (QPalette.ColorRole.Window, "#2b2b2b"),
        (QPalette.ColorRole.WindowText, "#e6e6e6"),
        (QPalette.ColorRole.Base, "#1e1e1e"),
        (QPalette.ColorRole.AlternateBase, "#262626"),
        (QPalette.ColorRole.Text, "#e6e6e6"),
        (QPalette.ColorRole.Button, "#333333"),
        (QPalette.ColorRole.ButtonText, "#e6e6e6"),
        (QPalette.ColorRole.PlaceholderText, "#9a9a9a"),
        (QPalette.ColorRole.Highlight, "#3d6fb4"),
    ):
        dark.setColor(role, QColor(rgb))
    light = panel.palette()
    panel.setPalette(dark)
    panel.refresh()
    QApplication.processEvents()
    panel.grab().save(os.path.join(SHOTS, f"{name}-dark.png"))
    panel.setPalette(light)
    panel.refresh()


def _replay(store: Store, fid: int, events: list[tuple[float, str, list[tuple[str, float]]]]):
    """Each (time, status, window of (uid, published)) through the real scheduler
    and into the store, as the updater would record it; the learned state saved."""
    sched = Scheduler(SchedulerConfig(budget_per_day=100.0), events[0][0] - HOUR)
    sched.add_feed(fid, host="127.0.0.1")
    seen: set[str] = set()
    for t, status, window in events:
        items = tuple(ItemSighting(uid, p, uid not in seen) for uid, p in window)
        sched.observe(fid, FetchObservation(t, status, items if status == "ok" else ()))
        ents = [ParsedEntry(uid, uid, None, "", p, None, "", "") for uid, p in window]
        store.record_fetch(
            FetchRecord(
                fid,
                t,
                status,
                http_status={"ok": 200, "not_modified": 304, "error": 500}[status],
                entries=ents if status == "ok" else (),
                error="HTTP 500" if status == "error" else None,
            )
        )
        seen.update(uid for uid, _ in window)
    store.save_scheduler_state({fid: sched.export_state(fid)})


def _posting_days(t0: float, days: int, per_day: int = 6) -> list[tuple[str, float]]:
    """``per_day`` posts a day between 12:00 and 16:00 UTC."""
    return [
        (f"{d}-{k}", t0 + d * DAY + 12 * HOUR + k * 4 * HOUR / per_day)
        for d in range(days)
        for k in range(per_day)
    ]


def _local_day(t: float) -> str:
    when = dt.datetime.fromtimestamp(t)
    return f"{when:%a} {when.day} {when:%b}"


def test_a_feed_that_stopped_posting_says_since_when(store, open_panel):
    now = time.time() // DAY * DAY + 9 * HOUR
    t0 = now - 35 * DAY
    fid = store.add_feed("http://127.0.0.1/stopper.xml", title="stopper", now=t0 - DAY)
    posts = _posting_days(t0, 21)
    events = []
    for d in range(35):
        t = t0 + d * DAY + 17 * HOUR
        window = [p for p in posts if p[1] <= t][-10:]
        events.append((t, "ok", window))
    _replay(store, fid, events)
    last_new = t0 + 20 * DAY + 17 * HOUR  # the check that saw the last post
    panel = open_panel(fid, now, "stopper")
    view = panel.feed_view
    # the learned rate still remembers the posts: the card says they stopped
    assert view.rate.value.text() != "—"
    assert f"nothing new since {_local_day(last_new)}" in view.rate.detail.text()
    assert view.rate.warned
    assert f"Nothing new since {_local_day(last_new)} (14 checks found nothing)" in (
        view.notes.text()
    )
    assert view.periodicity.detail.text().endswith(f"until {_local_day(last_new)}")


def test_a_feed_that_posts_does_not_get_the_quiet_note(store, open_panel):
    now = time.time() // DAY * DAY + 9 * HOUR
    t0 = now - 21 * DAY
    fid = store.add_feed("http://127.0.0.1/alive.xml", title="alive", now=t0 - DAY)
    posts = _posting_days(t0, 21)
    events = [
        (t0 + d * DAY + 17 * HOUR, "ok", [p for p in posts if p[1] <= t0 + d * DAY + 17 * HOUR])
        for d in range(21)
    ]
    _replay(store, fid, [(t, s, w[-10:]) for t, s, w in events])
    panel = open_panel(fid, now)
    view = panel.feed_view
    assert "nothing new" not in view.rate.detail.text()
    assert not view.rate.warned
    assert "Nothing new" not in view.notes.text()
    assert "The feed shows its 10 most recent items." in view.notes.text()


def test_a_failing_feed_shows_its_back_off_not_a_healthy_share(store, open_panel):
    now = time.time() // DAY * DAY + 9 * HOUR
    t0 = now - 38 * DAY
    fid = store.add_feed("http://127.0.0.1/broken.xml", title="broken", now=t0 - DAY)
    posts = _posting_days(t0, 10, per_day=9)
    events = []
    for d in range(38):
        t = t0 + d * DAY + 17 * HOUR
        ok = d < 10
        events.append((t, "ok" if ok else "error", [p for p in posts if p[1] <= t][-10:]))
    _replay(store, fid, events)
    first_error = t0 + 10 * DAY + 17 * HOUR
    panel = open_panel(fid, now, "broken")
    view = panel.feed_view
    ex = panel.updater.explain(fid)
    nxt = min(t for t in ex.planned if t >= now - 60)
    assert view.share.value.text() == "backing off"
    assert "28 failed in a row" in view.share.detail.text()
    assert "next check" in view.share.detail.text()
    assert dt.datetime.fromtimestamp(nxt).strftime("%H:%M") in view.share.detail.text()
    # it gets only what its back-off uses (one check a day by now); the rest of
    # its share went to the feeds that answer, and comes back when it does
    assert ex.share_per_day <= 1.0 + 1e-6
    assert "at most 1.00 fetches/day" in view.share.toolTip()
    assert "works again" in view.share.toolTip()
    assert view.delay.value.text() == "—"
    assert view.delay.detail.text() == f"failing since {_local_day(first_error)}"
    assert "HTTP 500" in view.delay.toolTip()
    assert view.share.warned and view.delay.warned
    # the overview agrees: its back-off share, and no delay to expect
    panel.set_feed(None)
    ov = panel.overview
    qtbot_wait_rows(ov, 1)
    row = [ov.proxy.index(0, c).data() for c in range(len(ov.COLUMNS))]
    assert row[0] == "broken" and float(row[2]) <= 1.0 and row[4] == "—", row


def qtbot_wait_rows(ov, n: int) -> None:
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + 5
    while ov.proxy.rowCount() < n and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
    assert ov.proxy.rowCount() == n


def test_a_new_feed_shows_the_empty_state_until_it_is_read(store, open_panel):
    now = time.time()
    fid = store.add_feed("http://127.0.0.1/fresh.xml", title="fresh", now=now - 60)
    panel = open_panel(fid, now, "fresh")
    view = panel.feed_view
    assert view.rate.value.text() == "—"
    assert view.periodicity.value.text() == "—"
    assert view.delay.value.text() == "—"
    # no invented flat curve: the chart's empty text shows, with the first check
    assert not view.chart.has_data()
    assert view.chart.empty_text.startswith("No posting history yet")
    assert "first check" in view.chart.empty_text
    assert view.planned.count() >= 1  # the plan is real: it is shown


def test_after_one_fetch_the_window_size_is_an_estimate(store, open_panel):
    now = time.time()
    fid = store.add_feed("http://127.0.0.1/one.xml", title="one", now=now - 3600)
    _replay(store, fid, [(now - 600, "ok", [("only", now - 7200)])])
    panel = open_panel(fid, now, "one-fetch")
    view = panel.feed_view
    assert view.rate.value.text() != "—"  # an ok fetch is real evidence
    notes = view.notes.text()
    assert "The feed shows its 1 most recent items" not in notes
    assert "Up to 1 item seen in the feed so far" in notes


def test_half_hour_zone_curve_is_at_the_exact_offset(qtbot):
    # Posts Mon 03:00–04:00 UTC = 08:30–09:30 in India: the curve's weight is
    # split evenly between the local 08:00 and 09:00 slots (centred on 09:00,
    # where a fetch planned at 03:30 UTC is marked), not all in 09:00–10:00.
    chart = WeekRateChart()
    qtbot.addWidget(chart)
    lam = [0.0] * 168
    lam[3] = 2.0
    monday = 4 * DAY + 52 * 7 * DAY  # a Monday 00:00 UTC
    chart.set_data(lam, planned=[monday + 3.5 * HOUR], now=monday, utc_offset_s=5.5 * HOUR)
    ys = dict(chart.curve_points())
    assert ys[8.5] == pytest.approx(1.0) and ys[9.5] == pytest.approx(1.0)
    assert chart.planned_positions() == [pytest.approx(9.0)]
    # Nepal, +5:45: 15 min of the hour falls in 08:00, 45 in 09:00
    chart.set_data(lam, now=monday, utc_offset_s=5.75 * HOUR)
    ys = dict(chart.curve_points())
    assert ys[8.5] == pytest.approx(0.5) and ys[9.5] == pytest.approx(1.5)


def test_half_hour_zone_rhythm_text_on_the_page(store, open_panel, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        now = time.time() // DAY * DAY + 9 * HOUR
        t0 = now - 21 * DAY
        fid = store.add_feed("http://127.0.0.1/ist.xml", title="ist", now=t0 - DAY)
        posts = _posting_days(t0, 21)  # 12:00–16:00 UTC = 17:30–21:30 IST
        events = [
            (t, "ok", [p for p in posts if p[1] <= t][-10:])
            for t in (t0 + d * DAY + 17 * HOUR for d in range(21))
        ]
        _replay(store, fid, events)
        panel = open_panel(fid, now, "ist")
        view = panel.feed_view
        assert view.chart.utc_offset_s == 5.5 * HOUR
        detail = view.periodicity.detail.text()
        assert ":30–" in detail, detail  # named at the exact offset, not whole hours
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_the_week_chart_marks_where_the_shown_plan_ends(qtbot):
    chart = WeekRateChart()
    qtbot.addWidget(chart)
    now = 4 * DAY + 52 * 7 * DAY + 10 * HOUR  # a Monday 10:00 UTC
    planned = [now + k * 2 * HOUR for k in range(1, 25)]  # the next 2 days
    lam = [1.0 + (i % 24 == 12) for i in range(168)]
    chart.set_data(lam, planned=planned, now=now, utc_offset_s=0.0, plan_until=planned[-1])
    assert chart.plan_label() == "plan shown for the next 2 d"
    start, hours = chart.unplanned_span()
    assert start == pytest.approx(58.0) and hours == pytest.approx(7 * 24 - 48)
    chart.resize(720, 260)
    chart.show()
    qtbot.waitExposed(chart)
    chart.grab()  # paints the shading, hour ticks and labels
    # hovering past the plan says why no fetch is marked there
    plot = chart._plot
    x = plot.left() + plot.width() * 100 / 168
    assert "none marked here" in chart._tooltip_at(plot.center().__class__(x, plot.center().y()))
    # a plan that covers the week has nothing to mark
    chart.set_data(lam, planned=planned, now=now, plan_until=now + 8 * DAY)
    assert chart.unplanned_span() is None and chart.plan_label() is None


@pytest.mark.parametrize(
    ("smart", "fixed", "said"),
    [(6.0, 12.0, "50 % shorter than a fixed interval"),
     (10.1, 10.0, "about the same as a fixed interval"),
     (9.9, 10.0, "about the same as a fixed interval"),
     (13.0, 10.0, "30 % longer than a fixed interval")],
)  # fmt: skip
def test_the_overview_says_how_the_delay_compares_in_words(smart, fixed, said):
    """It read "-1 % shorter than a fixed interval" when the two were the same."""
    from smartreader.gui.activity import gain_text

    assert gain_text(smart, fixed) == said
