"""Missed-item alerts: the banner's sentence, dismissing it, and the alerts list."""

from __future__ import annotations

import datetime as dt

import pytest
from PySide6.QtCore import Qt

from smartreader.core.models import ParsedEntry
from smartreader.gui.alerts import AlertsView, MissedBanner, alert_text, notify
from smartreader.storage.store import Alert, FetchRecord, Store

# Qt warnings fail the test; the offscreen platform's size-hint notice is noise.
pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _today_at(hour: int) -> float:
    return dt.datetime.now().replace(hour=hour, minute=0, second=0, microsecond=0).timestamp()


def _alert(**kw) -> Alert:
    base = dict(
        id=7,
        feed_id=1,
        created=_today_at(14) + 60,
        missed_estimate=4.2,
        window_from=_today_at(10),
        window_to=_today_at(14),
        capacity=20,
        dismissed=False,
    )
    base.update(kw)
    return Alert(**base)


def test_banner_sentence_names_count_window_and_capacity(qtbot):
    banner = MissedBanner()
    qtbot.addWidget(banner)
    banner.set_alert(_alert(), now=_today_at(15))
    assert banner.isVisibleTo(None) or not banner.isHidden()
    assert banner.text() == (
        "About 4 items between 10:00 and 14:00 were not seen — this feed only shows 20; "
        "checks are now more frequent."
    )


def test_banner_sentence_other_day_and_unknown_window():
    yesterday = _today_at(10) - 86400
    a = _alert(window_from=yesterday, window_to=yesterday + 4 * 3600, missed_estimate=1)
    day = dt.datetime.fromtimestamp(yesterday).strftime("%a")
    assert alert_text(a, _today_at(15)).startswith(
        f"About 1 item on {day} between 10:00 and 14:00 was not seen"
    )
    b = _alert(window_from=None, window_to=None, capacity=None)
    assert alert_text(b) == "About 4 items were not seen; checks are now more frequent."


def test_banner_dismiss_emits_id_and_hides(qtbot):
    banner = MissedBanner()
    qtbot.addWidget(banner)
    banner.show()
    banner.set_alert(_alert(id=42))
    assert banner.isVisible()
    with qtbot.wait_signal(banner.dismissed, timeout=1000) as sig:
        qtbot.mouseClick(banner.button, Qt.MouseButton.LeftButton)
    assert sig.args == [42]
    assert not banner.isVisible()
    assert banner.alert() is None
    banner.set_alert(None)  # idempotent
    assert not banner.isVisible()


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def _raise_alert(store: Store, title: str, t: float) -> int:
    fid = store.add_feed(f"http://127.0.0.1/{title}.xml", title=title, now=t - 86400)
    entries = [
        ParsedEntry(f"{title}-{i}", f"item {i}", None, "", t - i, None, "", "") for i in range(20)
    ]
    store.record_fetch(
        FetchRecord(
            fid,
            t,
            "ok",
            http_status=200,
            entries=entries,
            missed_estimate=3.0,
            missed_from=t - 4 * 3600,
            missed_to=t - 3600,
        )
    )
    return fid


def test_alerts_view_lists_activates_and_dismisses(qtbot, store):
    t = _today_at(12)
    f1 = _raise_alert(store, "alpha", t)
    _raise_alert(store, "beta", t + 60)
    view = AlertsView(store)
    qtbot.addWidget(view)
    view.show()
    assert view.table.rowCount() == 2
    assert {view.table.item(r, 0).text() for r in range(2)} == {"alpha", "beta"}
    assert view.table.item(0, 2).text() == "≈ 3 items (shows 20)"

    row_alpha = next(r for r in range(2) if view.table.item(r, 0).text() == "alpha")
    with qtbot.wait_signal(view.feedActivated, timeout=1000) as sig:
        view.table.selectRow(row_alpha)
        qtbot.mouseClick(view.show_feed, Qt.MouseButton.LeftButton)
    assert sig.args == [f1]

    with qtbot.wait_signal(view.alertsDismissed, timeout=1000) as sig:
        qtbot.mouseClick(view.dismiss, Qt.MouseButton.LeftButton)
    assert len(sig.args[0]) == 1
    assert [a.feed_id for a in store.alerts()] != [f1] and len(store.alerts()) == 1
    assert view.table.rowCount() == 1

    qtbot.mouseClick(view.dismiss_all, Qt.MouseButton.LeftButton)
    assert store.alerts() == []
    assert view.empty.isVisible() and not view.table.isVisible()


def test_notify_without_tray_is_a_quiet_no():
    assert notify(None, "t", "m") is False


def test_with_no_alerts_the_page_keeps_its_title_on_top_and_buttons_at_the_foot(qtbot, tmp_path):
    """With the table hidden nothing took its room, and the title, the hint, the
    "No open alerts" line and the buttons spread evenly down the pane."""
    store = Store(tmp_path / "db.sqlite3")
    view = AlertsView(store)
    qtbot.addWidget(view)
    view.resize(600, 700)
    view.show()
    qtbot.waitUntil(lambda: view.empty.isVisible())
    hint = view.hint.geometry()
    assert hint.top() < 120, hint  # right under the title
    foot = view.dismiss_all.mapTo(view, view.dismiss_all.rect().bottomLeft()).y()
    assert foot > 700 - 60, foot
    # the message sits in the room between them
    assert (
        hint.bottom()
        < view.empty.geometry().center().y()
        < view.dismiss_all.mapTo(view, view.dismiss_all.rect().topLeft()).y()
    )
    store.close()
