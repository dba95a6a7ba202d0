"""Keyboard and screen-reader access, from an accessibility audit: Tab leaves the
tables, Enter opens a row, the Activity lists are reachable and named, charts say
what they show, the shortcut sheet closes only on its keys, Settings starts on a
real control with named fields and Alt letters, a question before deleting
defaults to No, a form's error is tied to its field, an untitled article is read
as "(untitled)".

Real widgets, real key events, a real Store (and Updater where the scheduler's
explanation is shown); nothing touches the network."""

from __future__ import annotations

import re
import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from smartreader import subscriptions
from smartreader.core.models import ParsedEntry
from smartreader.gui.activity import ActivityPanel, OverviewView
from smartreader.gui.alerts import AlertsView
from smartreader.gui.dialogs import AddFeedDialog, FeedPropertiesDialog, HelpOverlay
from smartreader.gui.models import COL_TITLE, ArticleListModel
from smartreader.gui.settings import SettingsDialog
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import KEEP_READ_DAYS, Updater
from tests.gui.test_activity import _history, _learned_state
from tests.gui.test_alerts import _raise_alert
from tests.gui.test_mainwindow import stored_feed

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

DAY = 86400.0


def name_of(w: QWidget) -> str:
    return QAccessible.queryAccessibleInterface(w).text(QAccessible.Text.Name)


def description_of(w: QWidget) -> str:
    return QAccessible.queryAccessibleInterface(w).text(QAccessible.Text.Description)


def mnemonic(text: str) -> str | None:
    """The Alt letter of a label's or button's text ("&&" is a plain "&")."""
    m = re.search(r"&([^&])", text.replace("&&", ""))
    return m.group(1).lower() if m else None


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def _shown(qtbot, w: QWidget, size: tuple[int, int] = (700, 560)) -> QWidget:
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=3000)
    return w


def _double_click(qtbot, w: QWidget, at) -> None:
    """As a mouse does it: a click, then the second press (a double-click event)."""
    left = Qt.MouseButton.LeftButton
    qtbot.mouseClick(w, left, pos=at)
    qtbot.mouseDClick(w, left, pos=at)


def _focus(qtbot, w: QWidget) -> None:
    w.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(w.hasFocus, timeout=1000)


# -- the Alerts page ----------------------------------------------------------


@pytest.fixture
def alerts_view(qtbot, store):
    t = time.time() - 60
    ids = [_raise_alert(store, "alpha", t), _raise_alert(store, "beta", t + 1)]
    view = _shown(qtbot, AlertsView(store))
    assert view.table.rowCount() == 2
    return view, ids


def test_tab_leaves_the_alerts_table_for_its_buttons(qtbot, alerts_view):
    """Tab went from cell to cell: the buttons under the table could not be reached."""
    view, _ids = alerts_view
    view.table.selectRow(0)
    _focus(qtbot, view.table)
    reached = []
    for _ in range(8):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.append(QApplication.focusWidget())
    assert reached[0] is not view.table
    assert {view.show_feed, view.dismiss_feed, view.dismiss, view.dismiss_all} <= set(reached)
    assert name_of(view.table) == "Missed-item alerts"


def test_enter_on_an_alert_shows_its_feed(qtbot, alerts_view):
    view, ids = alerts_view
    view.table.setCurrentCell(1, 0)
    _focus(qtbot, view.table)
    feed = view.alerts()[1].feed_id
    with qtbot.wait_signal(view.feedActivated, timeout=1000) as sig:
        qtbot.keyClick(view.table, Qt.Key.Key_Return)
    assert sig.args == [feed] and feed in ids


def test_a_double_click_on_an_alert_shows_its_feed_once(qtbot, alerts_view):
    """Qt emits doubleClicked and activated for it: one choice, one signal."""
    view, _ids = alerts_view
    got: list[int] = []
    view.feedActivated.connect(got.append)
    at = view.table.visualRect(view.table.model().index(0, 0)).center()
    _double_click(qtbot, view.table.viewport(), at)
    qtbot.wait(50)
    assert got == [view.alerts()[0].feed_id]


def test_the_alerts_buttons_have_alt_letters_of_their_own(qtbot, alerts_view):
    view, _ids = alerts_view
    buttons = (view.show_feed, view.open_site, view.dismiss_feed, view.dismiss, view.dismiss_all)
    letters = [mnemonic(b.text()) for b in buttons]
    assert None not in letters and len(set(letters)) == len(letters), letters
    # Alt+M is "Dismiss": the selected alert goes
    view.table.selectRow(0)
    _focus(qtbot, view.table)
    with qtbot.wait_signal(view.alertsDismissed, timeout=1000):
        qtbot.keyClick(view.table, mnemonic(view.dismiss.text()), Qt.KeyboardModifier.AltModifier)
    assert view.table.rowCount() == 1


def test_the_alerts_alt_letters_are_not_the_menu_bars(env, qtbot):
    """In the window, a letter the menu bar has too would be an ambiguous shortcut."""
    _raise_alert(env.store, "alpha", time.time() - 60)
    win = env.window()
    menus = {mnemonic(a.text()) for a in win.menuBar().actions()} - {None}
    view = win.alerts_view
    buttons = (view.show_feed, view.open_site, view.dismiss_feed, view.dismiss, view.dismiss_all)
    assert menus and not menus & {mnemonic(b.text()) for b in buttons}
    win.tabs.setCurrentWidget(view)
    view.refresh()
    view.table.selectRow(0)
    _focus(qtbot, view.table)
    with qtbot.wait_signal(view.alertsDismissed, timeout=1000):
        qtbot.keyClick(view.table, mnemonic(view.dismiss.text()), Qt.KeyboardModifier.AltModifier)


# -- the Activity panel -------------------------------------------------------


def _overview_rows(ids: list[int]) -> list[dict]:
    return [
        {
            "feed_id": fid,
            "title": f"feed {fid}",
            "url": f"https://{fid}.example/feed",
            "alerts": 0,
            "last_fetch": time.time() - 600,
            "status": "ok",
            "error": None,
            "warnings": [],
            "rate": 3.0,
            "share": 10.0,
            "pct": 5.0,
            "delay": 1800.0,
        }
        for fid in ids
    ]


@pytest.fixture
def overview(qtbot):
    ov = OverviewView()
    ov.show_overview(_overview_rows([11, 12, 13]), None, None, None)
    return _shown(qtbot, ov, (800, 700))


def test_tab_leaves_the_overview_table(qtbot, overview):
    ov = overview
    ov.table.setCurrentIndex(ov.proxy.index(0, 0))
    _focus(qtbot, ov.table)
    qtbot.keyClick(ov.table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not ov.table
    assert ov.table.currentIndex().column() == 0  # not moved to the next cell
    assert name_of(ov.table) == "Polling by feed"


def test_enter_on_an_overview_row_opens_its_feed(qtbot, overview):
    ov = overview
    ov.table.setCurrentIndex(ov.proxy.index(2, 0))
    _focus(qtbot, ov.table)
    want = ov.proxy.index(2, 0).data(Qt.ItemDataRole.UserRole + 2)
    with qtbot.wait_signal(ov.feedActivated, timeout=1000) as sig:
        qtbot.keyClick(ov.table, Qt.Key.Key_Enter)
    assert sig.args == [want] and want in (11, 12, 13)


def test_a_double_click_on_an_overview_row_opens_its_feed_once(qtbot, overview):
    ov = overview
    got: list[int] = []
    ov.feedActivated.connect(got.append)
    idx = ov.proxy.index(0, 0)
    _double_click(qtbot, ov.table.viewport(), ov.table.visualRect(idx).center())
    qtbot.wait(50)
    assert got == [idx.data(Qt.ItemDataRole.UserRole + 2)]


@pytest.fixture
def feed_panel(qtbot, store):
    """The panel on alpha (3 items a day around 09:00 UTC), with its fetch log."""
    now = time.time()
    fid, other = _history(store, now)
    store.set_setting("budget_per_day", 200.0)
    store.save_scheduler_state(
        {fid: _learned_state(now, 3, 9, 10), other: _learned_state(now, 60, 14, 20)}
    )
    up = Updater(store, now=lambda: now)
    panel = ActivityPanel(store, up, now=lambda: now)
    _shown(qtbot, panel, (900, 800))
    panel.set_feed(fid)
    yield panel
    panel.close()
    up.close()


def test_the_planned_fetches_and_the_fetch_log_are_reached_by_tab_and_named(qtbot, feed_panel):
    """Both were NoFocus: "Recent fetches" could not be reached or read."""
    view = feed_panel.feed_view
    assert view.log_table.rowCount() == 3
    assert name_of(view.planned) == "Next planned fetches"
    assert name_of(view.log_table) == "Recent fetches"
    _focus(qtbot, view.planned)
    qtbot.keyClick(view.planned, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is view.log_table
    # rows are read with the arrows, and nothing can be edited
    qtbot.keyClick(view.log_table, Qt.Key.Key_Down)
    assert view.log_table.currentRow() >= 0
    qtbot.keyClick(view.log_table, Qt.Key.Key_F2)
    assert view.log_table.state() != view.log_table.State.EditingState
    qtbot.keyClick(view.log_table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not view.log_table


def test_the_week_chart_says_what_it_shows(qtbot, feed_panel):
    view = feed_panel.feed_view
    assert name_of(view.chart) == "Posting rate over the week"
    said = description_of(view.chart)
    assert f"About {view.rate.value.text()} items per day" in said
    assert "busiest" in said and "(local time)" in said
    assert "Next planned fetch" in said


def test_the_overview_heatmap_says_when_the_feeds_post(qtbot, feed_panel):
    feed_panel.set_feed(None)
    heatmap = feed_panel.overview.heatmap
    assert name_of(heatmap) == "When your feeds post"
    assert "busiest" in description_of(heatmap)


# -- the shortcut sheet -------------------------------------------------------

SHEET = [
    ("Articles", [("j k", "next / previous article"), ("o Enter", "open it")]),
    ("Anywhere", [("?", "this help")]),
]


@pytest.fixture
def sheet(qtbot):
    host = QWidget()
    field = QLineEdit(host)
    _shown(qtbot, host, (700, 500))
    _focus(qtbot, field)
    sheet = HelpOverlay(SHEET, host)
    sheet.open()
    qtbot.waitUntil(sheet.hasFocus, timeout=1000)
    yield sheet, field
    host.close()  # (held here: the widgets go with it)


def test_the_shortcut_sheet_has_a_name_and_reads_its_list(qtbot, sheet):
    s, _field = sheet
    assert name_of(s) == "Keyboard shortcuts"
    assert description_of(s) == (
        "Articles:\nj, k: next / previous article\no, Enter: open it\nAnywhere:\n?: this help"
    )


@pytest.mark.parametrize(
    "key", [Qt.Key.Key_Down, Qt.Key.Key_J, Qt.Key.Key_Space, Qt.Key.Key_Tab, Qt.Key.Key_PageDown]
)
def test_other_keys_leave_the_shortcut_sheet_open(qtbot, sheet, key):
    """Any key closed it, the arrows a screen reader's user reads on with too."""
    s, _field = sheet
    qtbot.keyClick(s, key)
    assert s.isVisible() and s.hasFocus()


@pytest.mark.parametrize(
    "key", [Qt.Key.Key_Escape, Qt.Key.Key_Question, Qt.Key.Key_Return, Qt.Key.Key_Enter]
)
def test_esc_question_mark_and_enter_close_the_sheet_and_the_focus_goes_back(qtbot, sheet, key):
    s, field = sheet
    qtbot.keyClick(s, Qt.Key.Key_Down)
    qtbot.keyClick(s, key)
    assert not s.isVisible()
    assert QApplication.focusWidget() is field


# -- Settings -----------------------------------------------------------------


@pytest.fixture
def settings(qtbot, request, store):
    up = Updater(store)
    request.addfinalizer(up.close)
    dlg = SettingsDialog(store, up, prefs={})
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.activateWindow()
    qtbot.waitUntil(dlg.isActiveWindow, timeout=3000)
    return dlg


def test_settings_opens_on_the_first_control(qtbot, settings):
    """The focus went to the nameless scroll area around the groups."""
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=1000)
    assert QApplication.focusWidget() is settings.budget_slider


def test_settings_fields_have_their_own_names(qtbot, settings):
    """The budget's slider and box were "Smart polling" (their group), the data
    folder "Data"."""
    assert name_of(settings.budget_slider) == "Request budget"
    assert name_of(settings.budget_spin) == "Request budget"
    assert name_of(settings.data_folder) == "Data folder"
    # (a combo box's name is its current text on Linux; its label is a relation)
    assert settings.keep_read.accessibleName() == "Keep read articles"
    assert settings.keep_unread.accessibleName() == "Keep unread articles"
    assert name_of(settings.curve) == "Mean delay against the request budget"
    assert description_of(settings.curve)  # what it shows (here: that it has no data)


def test_settings_labels_have_alt_letters_and_none_twice(qtbot, settings):
    texts = [
        w.text()
        for w in settings.findChildren(QWidget)
        if isinstance(w, (QLabel, QAbstractButton)) and w.isVisibleTo(settings)
    ]
    letters = [m for m in map(mnemonic, texts) if m]
    assert len(letters) == len(set(letters)), texts
    controls = [
        settings.budget_slider,
        settings.min_interval,
        settings.content_aware,
        settings.notifications,
        settings.tray,
        settings.close_to_tray,
        settings.theme,
        settings.data_folder,
        settings.keep_read,
        settings.keep_unread,
    ]
    reach = {}
    for lab in settings.findChildren(QLabel):
        if lab.buddy() is not None and mnemonic(lab.text()):
            reach[lab.buddy()] = mnemonic(lab.text())
    for b in settings.findChildren(QAbstractButton):
        if mnemonic(b.text()):
            reach[b] = mnemonic(b.text())
    assert [c for c in controls if c not in reach] == []
    # Alt+letter takes the focus there, as a sighted user's click would
    for w in (settings.data_folder, settings.theme, settings.budget_slider, settings.keep_unread):
        qtbot.keyClick(QApplication.focusWidget(), reach[w], Qt.KeyboardModifier.AltModifier)
        assert QApplication.focusWidget() is w


def _answer_the_question(qtbot, key: Qt.Key, seen: list) -> None:
    """When the question box shows: note its default button, then press ``key``.
    Looks for it for 5 s at most (it must not answer another test's box)."""
    deadline = time.monotonic() + 5

    def look() -> None:
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
        box = next((b for b in boxes if b.isVisible()), None)
        if box is None:
            if time.monotonic() < deadline:
                QTimer.singleShot(10, look)
            return
        seen.append(box.standardButton(box.defaultButton()))
        qtbot.keyClick(box.focusWidget() or box, key)

    QTimer.singleShot(0, look)


def test_enter_at_delete_old_articles_deletes_nothing(qtbot, settings, store, aged):
    """Yes was the default: one Enter deleted articles for good."""
    settings.keep_read.setCurrentIndex(settings.keep_read.findText("1 month"))
    seen: list = []
    _answer_the_question(qtbot, Qt.Key.Key_Return, seen)
    settings.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert seen == [QMessageBox.StandardButton.No]
    assert store.entry_count() == 6 and store.get_setting(KEEP_READ_DAYS) is None
    assert settings.isVisible()  # to choose again


def test_enter_at_the_feeds_delete_question_deletes_nothing(qtbot, store, aged):
    creds = type(
        "Creds", (), {"keyring_available": lambda: True, "kept_for_session": lambda *_: False}
    )
    dlg = FeedPropertiesDialog(store, aged, overlaps=[], credentials=creds)
    _shown(qtbot, dlg, (600, 500))
    dlg.keep.setCurrentIndex(dlg.keep.findText("1 week"))
    seen: list = []
    _answer_the_question(qtbot, Qt.Key.Key_Return, seen)
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert seen == [QMessageBox.StandardButton.No]
    assert store.feed(aged).keep_days is None and dlg.isVisible()


@pytest.mark.parametrize("too_big", [True, False])
def test_enter_at_a_final_unsubscribe_deletes_nothing(env, qtbot, monkeypatch, too_big):
    """A feed too big to keep for an undo is deleted for good: No is the default
    then. One that Ctrl+Z brings back keeps Yes (a quick Del, Enter)."""
    fid = stored_feed(env, "Big", 3)
    win = env.window()
    win.select_feed(fid)
    if too_big:
        monkeypatch.setattr(subscriptions, "UNDO_MAX_BYTES", 0)
    seen: list = []
    _answer_the_question(qtbot, Qt.Key.Key_Return, seen)
    win.delete_node()
    if too_big:
        assert seen == [QMessageBox.StandardButton.No]
        assert env.store.feed(fid).id == fid  # still subscribed
    else:
        assert seen == [QMessageBox.StandardButton.Yes]
        assert fid not in [f.id for f in env.store.feeds()]


# -- errors in forms ----------------------------------------------------------


@pytest.fixture
def alerts_sent(monkeypatch):
    """The accessibility events sent: (type, the widget they are about)."""
    sent: list[tuple[QAccessible.Event, object]] = []
    real = QAccessible.updateAccessibility

    def record(event):
        sent.append((event.type(), event.object()))
        real(event)

    monkeypatch.setattr(QAccessible, "updateAccessibility", record)
    return sent


def test_an_add_feed_error_is_the_address_fields_description_while_shown(qtbot, alerts_sent):
    dlg = AddFeedDialog([])
    _shown(qtbot, dlg, (520, 260))
    placeholder = description_of(dlg.url)
    _focus(qtbot, dlg.url)
    qtbot.keyClicks(dlg.url, "not a url at all")
    qtbot.keyClick(dlg.url, Qt.Key.Key_Return)
    assert dlg.error.isVisible() and dlg.error.text()
    assert description_of(dlg.url) == dlg.error.text() != placeholder
    assert (QAccessible.Event.Alert, dlg.error) in alerts_sent
    # a good address: the error goes, and with it the description
    dlg.url.clear()
    qtbot.keyClicks(dlg.url, "https://example.org/feed.xml")
    qtbot.keyClick(dlg.url, Qt.Key.Key_Return)
    assert not dlg.error.isVisible()
    assert description_of(dlg.url) == placeholder
    dlg.set_busy(False)


def test_a_feed_properties_error_is_the_address_fields_description(qtbot, store, alerts_sent):
    fid = store.add_feed("https://news.invalid/feed.xml", title="News")
    creds = type(
        "Creds", (), {"keyring_available": lambda: True, "kept_for_session": lambda *_: False}
    )
    dlg = FeedPropertiesDialog(store, fid, overlaps=[], credentials=creds)
    _shown(qtbot, dlg, (600, 500))
    dlg.url.setText("not a url at all")
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dlg.error.isVisible()
    assert description_of(dlg.url) == dlg.error.text()
    assert (QAccessible.Event.Alert, dlg.error) in alerts_sent


# -- the article list -------------------------------------------------------------


def test_an_untitled_article_is_read_as_untitled(qtbot, store):
    """It was read as ", unread"; a title of spaces as blanks."""
    fid = store.add_feed("https://untitled.invalid/feed.xml", title="Untitled")
    now = time.time()
    store.record_fetch(
        FetchRecord(
            fid,
            now,
            "ok",
            entries=[
                ParsedEntry("u1", "", None, "", now, None, "<p>x</p>", ""),
                ParsedEntry("u2", "   ", None, "", now - 5, None, "<p>x</p>", ""),
                ParsedEntry("u3", "Named", None, "", now - 9, None, "<p>x</p>", ""),
            ],
        )
    )
    m = ArticleListModel(store)
    m.set_query()
    m.finish_loading()
    said = [m.index(r, COL_TITLE).data(Qt.ItemDataRole.AccessibleTextRole) for r in range(3)]
    assert said == ["(untitled), unread", "(untitled), unread", "Named, unread"]
