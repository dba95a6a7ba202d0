"""A large application font and a 200 % screen (audit B, items 6, 11, 12, 13):
the feed tree keeps room for its titles and a share of the width, the article
text follows the font, the list's dot and star are drawn for the screen's scale,
dialogs are never narrower than their contents, the status bar's two texts are
apart, and Settings keeps a number on the line of its unit."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QApplication, QFrame, QStyle

from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.gui.article_view import ArticleView
from smartreader.gui.dialogs import FeedPropertiesDialog
from smartreader.gui.models import COL_TITLE
from smartreader.gui.settings import SettingsDialog
from smartreader.gui.worker import SchedulerStatus
from smartreader.storage.store import Entry
from smartreader.updater import Updater
from tests.gui.test_mainwindow import stored_feed
from tests.gui.textlayout import wrapped_lines

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _feed_row_need(win, title: str) -> int:
    """What a feed in a folder needs to show ``title`` (bold: unread) and a
    three-digit unread pill without eliding: indentation, icon, text, pill."""
    tree = win.tree
    bold = QFont(tree.font())
    bold.setBold(True)
    pill = tree.fontMetrics().horizontalAdvance("999") + 12 + 6 + 4
    icon = tree.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize, None, tree)
    return 2 * tree.indentation() + icon + 8 + QFontMetrics(bold).horizontalAdvance(title) + pill


def test_a_16pt_font_keeps_the_tree_readable_and_it_shares_the_width(env, qtbot, app_font):
    """At 16 pt the tree got 230 px (titles "…"), and 70 px once a narrower window
    had squeezed it: a fixed-width pane never grew back. At 1920 px it stayed 230."""
    app_font(16)
    stored_feed(env, "Lint House", 150, folder="News")  # ten characters, 150 unread
    win = env.window(start_scheduler=False)
    need = _feed_row_need(win, "Lint House")
    for width in (1300, 900, 1300):  # as narrow as it goes, then back
        win.resize(width, 820)
        qtbot.waitUntil(lambda w=width: win.width() == max(w, win.minimumWidth()), timeout=2000)
        qtbot.wait(20)
        assert win.tree.viewport().width() >= need, (width, win.splitter.sizes(), need)
        assert not win.tree.horizontalScrollBar().isVisible()
    at_1300 = win.tree.width()
    win.resize(1920, 1040)
    qtbot.waitUntil(lambda: win.width() == 1920, timeout=2000)
    qtbot.wait(20)
    # the tree takes its part of the extra width, not a fixed 230 px
    assert win.tree.width() > at_1300, win.splitter.sizes()
    total = sum(win.splitter.sizes())
    assert 0.15 <= win.tree.width() / total <= 0.3


def test_the_trees_minimum_follows_a_font_changed_while_open(env, qtbot, app_font):
    stored_feed(env, "Harbour Wire", 3, folder="News")
    win = env.window(start_scheduler=False)
    small = win.tree.minimumWidth()
    app_font(16)
    qtbot.waitUntil(lambda: win.tree.minimumWidth() > small, timeout=2000)
    assert win.tree.minimumWidth() >= _feed_row_need(win, "Lint House")


def _entry() -> Entry:
    return Entry(1, 1, "u", "Title", "https://example.org/a", "Ann", 1.7e9, None, 1.7e9,
                 1.7e9, "<p>Body text of the article.</p>", "", (), False, False)  # fmt: skip


def _body_pt(view: ArticleView) -> float:
    return view.browser.document().defaultFont().pointSizeF()


def test_the_article_text_follows_the_application_font_and_zoom_stays_relative(qtbot, app_font):
    """The body was 11 pt whatever the font: smaller than the menus at 16 pt."""
    app_font(16)
    view = ArticleView(open_url=lambda _u: None)
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    qtbot.waitExposed(view)
    view.show_entry(_entry(), "Feed")
    assert _body_pt(view) == pytest.approx(11.0 * 16 / 9)
    assert _body_pt(view) > QApplication.font().pointSizeF()  # not smaller than the menus
    view.zoom_in()
    assert view.zoom == 1.1
    assert _body_pt(view) == pytest.approx(11.0 * 16 / 9 * 1.1)
    view.zoom_reset()
    assert _body_pt(view) == pytest.approx(11.0 * 16 / 9)
    column_16 = view._column_width()
    app_font(9)  # changed while the article is shown: the size the sheet was made at
    qtbot.waitUntil(lambda: _body_pt(view) == pytest.approx(11.0), timeout=2000)
    # the column narrows with the text (about as many characters a line)
    assert view._column_width() < column_16


@pytest.mark.parametrize("state", ["unread", "starred"])
def test_the_lists_dot_and_star_are_drawn_for_every_screen_scale(env, qtbot, state):
    """They were 10 and 20 px pixmaps shown at 16 px: at 200 % the 20 px one was
    blown up to 32 device pixels (jagged)."""
    fid = stored_feed(env, "Alpha", 3)
    if state == "starred":
        env.store.set_starred([env.store.entry_ids(feed_ids=[fid])[0]], True)
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 3, timeout=2000)
    icon = win.list_model.index(0, COL_TITLE).data(Qt.ItemDataRole.DecorationRole)
    side = win.list.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize, None, win.list)
    for scale in (1.0, 1.25, 1.5, 2.0, 3.0):
        pm = icon.pixmap(QSize(side, side), scale)
        assert pm.width() == round(side * scale), (scale, pm.size())
        assert pm.devicePixelRatio() == pytest.approx(scale)
        assert pm.toImage().pixelColor(pm.width() // 2, pm.height() // 2).alpha() == 255


def test_feed_properties_is_never_narrower_than_its_contents_and_fits_the_screen(
    qtbot, store, app_font
):
    """setMinimumWidth(520) replaced the layout's minimum (574 px at 16 pt): on an
    800 px screen the dialog opened 533 px wide and cut "Load remote images…"."""
    fid = store.add_feed("https://a.example/feed", title="A")
    for pt in (16, 9):
        app_font(pt)
        dlg = FeedPropertiesDialog(store, fid, overlaps=[])
        qtbot.addWidget(dlg)
        dlg.show()
        qtbot.waitExposed(dlg)
        screen = dlg.screen().availableGeometry()
        box = dlg.load_images
        assert box.width() >= box.sizeHint().width(), pt
        assert box.mapTo(dlg, box.rect().topRight()).x() < dlg.width()
        assert 520 <= dlg.width() <= screen.width()  # room for a long address, on screen
        dlg.resize(300, dlg.height())  # the user cannot squeeze it below its contents
        qtbot.wait(20)
        assert dlg.width() >= dlg.layout().totalMinimumSize().width()
        assert box.width() >= box.sizeHint().width()
        dlg.close()


def test_settings_cannot_be_squeezed_below_its_contents(qtbot, request, store, app_font):
    """Its setMinimumWidth(560) let a 16 pt dialog shrink to 560 px, cutting off
    the close-to-tray check box (its layout needs more)."""
    app_font(16)
    up = Updater(store)
    request.addfinalizer(up.close)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.resize(560, dlg.height())
    qtbot.wait(20)
    assert dlg.width() >= dlg.layout().totalMinimumSize().width()
    assert dlg.close_to_tray.width() >= dlg.close_to_tray.sizeHint().width()


def test_settings_on_a_screen_too_short_for_it_keeps_ok_and_cancel_on_screen(
    qtbot, request, store, app_font
):
    """At 16 pt its groups need ~840 px; the offscreen screen has 800. The dialog
    opened taller (and wider) than the screen, OK and Cancel beyond its edge. Now it opens
    within the screen and the groups scroll; at 9 pt, where it fits, it opens
    whole, without a scroll bar."""
    up = Updater(store)
    request.addfinalizer(up.close)
    for pt, fits in ((9, True), (16, False)):
        app_font(pt)
        dlg = SettingsDialog(store, up)
        qtbot.addWidget(dlg)
        dlg.show()
        qtbot.waitExposed(dlg)
        screen = dlg.screen().availableGeometry()
        need = dlg.pages.heightForWidth(dlg.pages.width())
        assert (need <= dlg.pages.height()) == fits, (pt, need, dlg.pages.height())
        # within the screen both ways: at 16 pt the close-to-tray check box's long
        # text made it 870 px wide
        assert dlg.height() <= screen.height() and dlg.width() <= screen.width()
        bar = dlg.pages.verticalScrollBar()
        qtbot.wait_until(lambda b=bar, f=fits: b.isVisible() != f)  # once the layout settles
        for which in (dlg.buttons.StandardButton.Ok, dlg.buttons.StandardButton.Cancel):
            b = dlg.buttons.button(which)
            corner = b.mapTo(dlg, b.rect().bottomRight())
            assert corner.y() < dlg.height() and corner.x() < dlg.width()
        bar.setValue(bar.maximum())
        qtbot.wait(10)
        vp = dlg.pages.viewport()
        bottom = dlg.keep_unread.mapTo(vp, dlg.keep_unread.rect().bottomLeft()).y()
        assert 0 < bottom <= vp.height()
        dlg.close()


def test_the_status_bars_two_texts_are_apart(env, qtbot):
    """ "Next fetch now" and "399 / 1500 requests in the last 24 h" ran together."""
    win = env.window(start_scheduler=False)
    win._status_changed(
        SchedulerStatus(next_wakeup=time.time(), updating=False, requests_today=399, budget=1500)
    )
    qtbot.waitUntil(lambda: win.budget_label.isVisible() and bool(win.next_label.text()))
    qtbot.wait(50)  # the status bar lays the texts out
    first, second = win.next_label, win.budget_label
    # the cap counts any 24 h, so the text does not say "today" (since midnight)
    assert (
        second.text().replace("\N{NO-BREAK SPACE}", " ") == "399 / 1500 requests in the last 24 h"
    )
    fm = first.fontMetrics()
    # where each text is drawn: a label draws its text from its contents' left edge
    first_end = first.x() + first.contentsRect().left() + fm.horizontalAdvance(first.text())
    second_start = second.x() + second.contentsRect().left()
    assert second_start - first_end >= 2 * fm.averageCharWidth()
    rules = [
        f for f in win.statusBar().findChildren(QFrame)
        if f.frameShape() == QFrame.Shape.VLine and f.isVisible()
    ]  # fmt: skip
    assert any(first_end <= r.geometry().center().x() <= second_start for r in rules)


def _learned_feeds(store, n: int = 24) -> None:
    """Feeds posting in bursts, as learned: smart polling beats a fixed interval."""
    now = time.time()
    teacher = Scheduler(SchedulerConfig(), now)
    ids = []
    for i in range(n):
        lam = np.full(168, 0.01)
        for day in range(5):
            lam[[day * 24 + h for h in (8, 9, 10)]] = 2.0
        fid = store.add_feed(f"https://feed{i}.invalid/rss.xml", title=f"Feed {i}", now=now)
        teacher.add_feed(fid, host=f"feed{i}.invalid")
        teacher.set_lambda(fid, lam)
        ids.append(fid)
    store.save_scheduler_state({fid: teacher.export_state(fid) for fid in ids})


def test_settings_never_ends_a_line_on_a_number_whose_unit_follows(qtbot, request, store, app_font):
    """At 16 pt "… 6 min — 39" ended a line and "% shorter" began the next."""
    app_font(16)
    _learned_feeds(store)
    up = Updater(store)
    request.addfinalizer(up.close)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    text = dlg.estimate.text()
    assert "shorter" in text and "min" in text
    font = dlg.estimate.font()
    split = re.compile(r"\d\s*$")
    for width in range(400, 900, 3):  # narrower than the label ever is at 16 pt
        lines = wrapped_lines(text, font, width)
        bad = [ln for ln in lines[:-1] if split.search(ln)]
        assert not bad, (width, lines)
    # the plain-text size line: "5.3" never ends a line with "MB" starting the next
    info = dlg.data_info.text()
    assert re.search(r"\d MB", info) is None, info


def test_the_date_column_fits_its_dates_at_16pt(env, qtbot, app_font):
    """At 16 pt the Date column kept its 104 px and unread rows read "Yesterd…"."""
    from smartreader.gui.models import COL_DATE

    app_font(16)
    stored_feed(env, "Harbour Wire", 3, folder="News")
    win = env.window(start_scheduler=False)
    win.resize(1300, 820)
    qtbot.wait(20)
    bold = QFont(win.list.font())
    bold.setBold(True)
    need = QFontMetrics(bold).horizontalAdvance("Yesterday 23:59")
    assert win.list.horizontalHeader().sectionSize(COL_DATE) >= need + 8


def test_the_status_texts_margins_follow_a_font_change(env, qtbot, app_font):
    win = env.window(start_scheduler=False)
    small = win.budget_label.contentsMargins().left()
    app_font(16)
    qtbot.waitUntil(lambda: win.budget_label.contentsMargins().left() > small, timeout=2000)
    assert win.next_label.contentsMargins().left() == win.fontMetrics().averageCharWidth()


def test_at_16pt_with_no_alerts_the_window_fits_a_1024_px_screen(env, qtbot, app_font):
    """Before: 1,317 px at its narrowest, wider than many laptops' screens: the
    Alerts page's "No open alerts: every new item was seen in time." kept to one
    line (546 px), and its title to one (318 px)."""
    app_font(16)
    win = env.window()
    win.show()
    qtbot.wait(20)
    assert win.minimumSizeHint().width() <= 1024


def test_at_16pt_with_an_alert_selected_the_window_still_fits_1024_px(env, qtbot, app_font):
    """Before: 1,278 px (1,157 without "Open site"): the selected feed's three buttons
    in one row set the Alerts page's minimum. The page now scrolls and its
    buttons wrap, and nothing on it is cut off at the side in a 1024 px window."""
    from PySide6.QtWidgets import QPushButton, QScrollArea

    from smartreader.core.models import ParsedEntry
    from smartreader.storage.store import FetchRecord

    app_font(16)
    now = time.time()
    fid = env.store.add_feed("https://wire.example/feed", title="Harbour Wire")
    ents = [
        ParsedEntry(f"e{k}", f"Item {k}", None, "", now - 600 * k, None, "", "") for k in range(4)
    ]
    env.store.record_fetch(
        FetchRecord(
            fid,
            now - 600,
            "ok",
            http_status=200,
            entries=ents,
            site_link="https://wire.example/",
            missed_estimate=6.0,
            missed_from=now - 2500,
            missed_to=now - 1500,
        )
    )
    win = env.window()
    win.show()
    win.tabs.setCurrentWidget(win.alerts_view)
    view = win.alerts_view
    view.table.selectRow(0)
    qtbot.waitUntil(lambda: view.open_site.isVisibleTo(view) and view.feed_box.isVisibleTo(view))
    assert win.minimumSizeHint().width() <= 1024
    win.resize(1024, 768)
    qtbot.waitUntil(lambda: win.width() == 1024, timeout=2000)
    qtbot.wait(50)
    area = view.findChild(QScrollArea)
    assert area.horizontalScrollBar().maximum() == 0
    right = area.viewport().width()
    for b in view.findChildren(QPushButton):
        if b.isVisibleTo(view):
            # each button whole, inside the page's visible width
            assert b.width() >= b.sizeHint().width(), b.text()
            assert b.mapTo(area.widget(), b.rect().topRight()).x() < right, b.text()
    # the buttons went onto more lines rather than off the side
    assert view.dismiss_feed.y() > view.show_feed.y()
