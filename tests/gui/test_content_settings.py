"""Content-aware polling in the GUI: the "prefer new content" setting and the
overlap hint in the feed properties."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from smartreader.content_aware import SETTING, feed_overlaps
from smartreader.core.models import ParsedEntry
from smartreader.gui.dialogs import FeedPropertiesDialog
from smartreader.gui.settings import SettingsDialog
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

TECH = [
    "New phones with faster chips",
    "Laptops get longer battery life",
    "Cloud prices fall again",
    "Startups bet on AI chips",
    "Chip makers report record quarter",
    "Phones and laptops share one chip design",
    "AI startups raise funds",
    "Cloud outage hits startups",
]
CIRCUITS = [TECH[0], TECH[1], TECH[5], "Faster chips for phones"]
SPORT = ["Football final tonight", "Tennis star retires", "Cycling tour starts Sunday"]


@pytest.fixture
def updater(store):
    up = Updater(store)  # the real one: no feeds, so it never touches the network
    yield up
    up.close()


@pytest.fixture
def prefs(tmp_path):
    return QSettings(str(tmp_path / "prefs.ini"), QSettings.Format.IniFormat)


def _feed(store: Store, url: str, title: str, headlines: list[str], t0: float = 1e9) -> int:
    fid = store.add_feed(url, title=title)
    entries = tuple(
        ParsedEntry(f"{url}#{i}", h, None, "", t0 + i, None, "", "")
        for i, h in enumerate(headlines)
    )
    store.record_fetch(FetchRecord(fid, t0 + 100, "ok", entries=entries))
    return fid


def test_prefer_new_content_checkbox_persists_and_signals(qtbot, store, prefs, updater):
    dlg = SettingsDialog(store, updater, prefs)
    qtbot.addWidget(dlg)
    assert not dlg.content_aware.isChecked()
    dlg.content_aware.setChecked(True)
    with qtbot.wait_signal(dlg.contentAwareChanged) as sig:
        dlg.accept()
    assert sig.args == [True]
    assert store.get_setting(SETTING) is True
    again = SettingsDialog(store, updater, prefs)
    qtbot.addWidget(again)
    assert again.content_aware.isChecked()
    with qtbot.assert_not_emitted(again.contentAwareChanged):
        again.accept()
    third = SettingsDialog(store, updater, prefs)
    qtbot.addWidget(third)
    third._restore_defaults()
    assert not third.content_aware.isChecked()


def test_feed_overlaps_names_the_containing_feed(store):
    tech = _feed(store, "https://example.org/tech.xml", "Technology", TECH)
    circuits = _feed(store, "https://example.org/circuits.xml", "Circuits", CIRCUITS)
    sport = _feed(store, "https://example.org/sport.xml", "Sport", SPORT)
    hints = feed_overlaps(store, circuits)
    assert len(hints) == 1 and "contained in Technology" in hints[0]
    assert feed_overlaps(store, sport) == []
    assert all("Circuits" in h for h in feed_overlaps(store, tech))


def test_properties_show_overlap_hint(qtbot, store):
    _feed(store, "https://example.org/tech.xml", "Technology", TECH)
    circuits = _feed(store, "https://example.org/circuits.xml", "Circuits", CIRCUITS)
    dlg = FeedPropertiesDialog(store, circuits)
    qtbot.addWidget(dlg)
    assert dlg.overlaps and "Technology" in dlg.overlaps[0]
    text = " ".join(lbl.text() for lbl in dlg.findChildren(type(dlg.error)))
    assert "Content: mostly contained in Technology" in text
    plain = FeedPropertiesDialog(store, circuits, overlaps=[])
    qtbot.addWidget(plain)
    assert "Content:" not in " ".join(lbl.text() for lbl in plain.findChildren(type(dlg.error)))
