"""Under a German locale the English UI stays English: day and month names in
every view (article list and its tooltip, article header, Feed properties,
missed-item alerts, activity, the restore-backup button), one date shape across
them ("3 Oct", never "03 Oct"), and numbers as the spin boxes beside them show them.

LC_TIME is German by ``german`` (simulated: see ``tests.fake_locale``); the spin
boxes' locale comes from LC_ALL in a child process, which Qt reads itself and
needs no installed locale."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from smartreader import text
from smartreader.core.models import ParsedEntry
from smartreader.gui import activity, alerts, app, article_view, dialogs, models
from smartreader.gui.models import COL_DATE, COL_TITLE, ArticleListModel
from smartreader.gui.settings import SettingsDialog
from smartreader.storage.store import Alert, FetchRecord
from smartreader.updater import Updater
from tests.fake_locale import german_datetime_module

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

ROOT = Path(__file__).resolve().parents[2]


def at(*args: int) -> float:
    return dt.datetime(*args).timestamp()


NOW = at(2026, 12, 1, 12, 0)  # a Tuesday
OCT_3 = at(2026, 10, 3, 9, 5)  # a Saturday, this year, older than a week
THU = at(2026, 11, 26, 14, 1)  # this week
LAST_YEAR = at(2025, 5, 1, 8, 0)


@pytest.fixture
def german(monkeypatch):
    """strftime names German in every module that writes dates for the UI."""
    fake = german_datetime_module()
    for module in (text, models, activity, alerts, dialogs, article_view, app):
        monkeypatch.setattr(module, "dt", fake)


def pe(uid: str, published: float) -> ParsedEntry:
    return ParsedEntry(uid, uid, None, "", published, None, "<p>x</p>", "")


def list_dates(qtbot, store) -> dict[str, tuple[str, str]]:
    """The article list's date cell and its tooltip, by title."""
    fid = store.add_feed("https://a.example/feed", title="A", now=NOW - 400 * 86400)
    entries = [
        pe("yesterday", at(2026, 11, 30, 23, 59)),
        pe("thu", THU),
        pe("oct", OCT_3),
        pe("last year", LAST_YEAR),
    ]
    store.record_fetch(FetchRecord(fid, NOW, "ok", entries=entries))
    m = ArticleListModel(store, now=lambda: NOW)
    m.set_query()
    m.finish_loading()
    qtbot.wait_until(lambda: m.rowCount() == 4, timeout=3000)
    out = {}
    for r in range(m.rowCount()):
        date = m.index(r, COL_DATE)
        out[m.index(r, COL_TITLE).data()] = (
            date.data(),
            date.data(Qt.ItemDataRole.ToolTipRole),
        )
    return out


def test_article_list_and_its_tooltip_are_english(qtbot, store, german):
    dates = list_dates(qtbot, store)
    assert dates["yesterday"][0] == "Yesterday 23:59"
    assert dates["thu"][0] == "Thu 14:01"
    assert dates["oct"] == ("3 Oct", "Saturday 3 October 2026, 09:05")
    assert dates["last year"] == ("1 May 2025", "Thursday 1 May 2025, 08:00")
    # the article header spells the date as the tooltip does
    assert article_view._fmt_date(OCT_3) == "Saturday 3 October 2026, 09:05"


def test_feed_properties_dates_are_english(qtbot, store, german):
    fid = store.add_feed("https://a.example/feed", title="A", now=NOW - 86400)
    store.record_fetch(FetchRecord(fid, OCT_3, "ok"))
    dlg = dialogs.FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(dlg)
    info = dlg.info.text()
    assert "Last checked: Sat 3 Oct 2026 09:05" in info
    assert "Last successful: Sat 3 Oct 2026 09:05" in info


def test_missed_item_alerts_are_english(qtbot, german):
    alert = Alert(
        id=7,
        feed_id=1,
        created=THU,
        missed_estimate=4.2,
        window_from=at(2026, 11, 26, 10, 0),
        window_to=at(2026, 11, 26, 14, 0),
        capacity=20,
        dismissed=False,
    )
    banner = alerts.MissedBanner()
    qtbot.addWidget(banner)
    banner.set_alert(alert, now=NOW)
    assert "on Thu between 10:00 and 14:00" in banner.text()
    assert banner.toolTip() == "Detected at the check of Thu 26 Nov 14:01"
    night = SimpleNamespace(window_from=at(2026, 11, 28, 22, 0), window_to=at(2026, 11, 29, 6, 0))
    assert alerts.describe_window(night, NOW) == "between Sat 22:00 and Sun 06:00"
    assert alerts.describe_since(THU, NOW) == "Thu 14:01"
    assert alerts.describe_since(OCT_3, NOW) == "3 Oct"
    assert alerts._when(THU, NOW) == "Thu 14:01"
    assert alerts._when(OCT_3, NOW) == "3 Oct 09:05"
    # another year's date says which year, as the article list does
    assert alerts._when(LAST_YEAR, NOW) == "1 May 2025 08:00"
    assert alerts.describe_since(LAST_YEAR, NOW) == "1 May 2025"


def test_activity_dates_are_english(german):
    assert activity.format_time(THU, NOW) == "Thu 14:01"
    assert activity.format_time(OCT_3, NOW) == "3 Oct 2026 09:05"
    assert activity.format_time(NOW + 7, NOW) == "12:00:07"
    assert activity._day_text(OCT_3, NOW) == "Sat 3 Oct"
    assert activity._day_text(LAST_YEAR, NOW) == "1 May 2025"


def test_restore_backup_button_is_english(monkeypatch, german):
    buttons: list[str] = []

    def exec_(box: QMessageBox) -> int:
        buttons.extend(b.text() for b in box.buttons())
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    problem = SimpleNamespace(
        message="The database is damaged.",
        detail="",
        can_restore=True,
        backup=SimpleNamespace(created=OCT_3),
        kind="corrupt",
        can_retry=False,
    )
    assert app.ask_startup_problem(problem) == "quit"
    assert "Restore backup from 3 Oct 2026 09:05" in buttons


def test_one_date_shape_across_views(qtbot, store):
    """The same moment reads "3 Oct" (the day unpadded) in the list, the header,
    Feed properties, alerts and activity: no "03 Oct" beside "3 Oct"."""
    dates = list_dates(qtbot, store)
    texts = [
        *dates["oct"],
        article_view._fmt_date(OCT_3),
        dialogs._fmt_time(OCT_3),
        alerts._when(OCT_3, NOW),
        alerts.describe_since(OCT_3, NOW),
        activity.format_time(OCT_3, NOW),
        activity._day_text(OCT_3, NOW),
        text.local_day_time(OCT_3, NOW),
    ]
    for t in texts:
        assert re.search(r"(?<!\d)3 Oct", t), t
        assert "03" not in t, t


@pytest.fixture
def feeds(store):
    now = time.time()
    return [
        store.add_feed(f"https://feed{i}.invalid/rss.xml", title=f"Feed {i}", now=now)
        for i in range(3)
    ]


def test_the_budget_reads_as_its_spin_box_shows_it(qtbot, request, store, feeds):
    """ "1,500" beside a box showing "1500" reads as 1.5 to a German."""
    store.set_setting("min_interval", 3600.0)  # 3 feeds can take 72 a day
    up = Updater(store)
    request.addfinalizer(up.close)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    before = dlg.estimate.text()
    dlg.budget_spin.setValue(1500)
    qtbot.wait_until(lambda: dlg.estimate.text() != before, timeout=3000)
    shown = dlg.budget_spin.text()
    assert shown == "1500 requests/day"
    estimate = re.sub(r"<[^>]+>", "", dlg.estimate.text())  # the words, not the markup
    assert "With 1500 requests/day" in estimate
    assert "the 72 usable requests" in estimate
    assert "1,500" not in estimate


CHILD = r"""
import json, sys, tempfile
from pathlib import Path
from PySide6.QtCore import QLocale
from smartreader.gui.app import create_app
from smartreader.gui.dialogs import FeedPropertiesDialog
from smartreader.storage.store import Store

system = QLocale.system()
app = create_app([sys.argv[0]])
with tempfile.TemporaryDirectory() as d, Store(Path(d) / "db.sqlite3") as store:
    fid = store.add_feed("https://a.example/feed", title="A")
    store.update_feed(fid, weight=1.5)
    dlg = FeedPropertiesDialog(store, fid, overlaps=["overlaps with B (similarity 0.73)"])
    print(json.dumps({"system_point": system.decimalPoint(), "weight": dlg.weight.text()}))
    dlg.deleteLater()
"""


def test_spin_boxes_write_numbers_as_the_english_text_does():
    """A German desktop (LC_ALL=de_DE.UTF-8) made the priority read "1,50" above
    "similarity 0.73"; Qt takes its locale from the variable, installed or not."""
    env = {
        **os.environ,
        "LC_ALL": "de_DE.UTF-8",
        "LANG": "de_DE.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONPATH": str(ROOT),
    }
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if got["system_point"] != ",":
        pytest.skip("this Qt does not take a German locale from LC_ALL")
    assert got["weight"] == "1.50"
