"""A feed's missed-item alerts are announced at most once a day while they stay
open, and that holds across a restart: when each feed was last announced is kept
in the store (a real SQLite file, closed and opened again), and forgotten for
feeds that are gone, feeds whose alerts were dismissed, and a new feed that got a
deleted one's id."""

from __future__ import annotations

import time

import pytest

import smartreader.gui.tray as tray_mod
from smartreader.gui.tray import ALERT_QUIET_S, TrayIcon
from smartreader.storage.store import Store
from tests.gui.test_alert_summary import overflow, two_feeds  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

T0 = 1_700_000_000.0


@pytest.fixture
def shown(monkeypatch):
    out: list[str] = []
    monkeypatch.setattr(tray_mod, "notify", lambda _i, title, _m, **_kw: out.append(title) or True)
    return out


class App:
    """One run of the app: the store opened, a tray on it; ``restart`` quits and
    starts again on the same database file."""

    def __init__(self, path) -> None:
        self.path = path
        self.store = Store(path)
        self.tray = self._tray()

    def _tray(self) -> TrayIcon:
        return TrayIcon(title_for=lambda fid: f"feed {fid}", store=self.store)

    def alert(self, fid: int, t: float) -> bool:
        """A check of ``fid`` at ``t`` that missed items: recorded, then announced
        (or not) as the window's alertRaised slot does."""
        return self.tray.on_alert(overflow(self.store, fid, t, 4.0))

    def restart(self) -> None:
        self.tray.dispose()
        self.store.close()
        self.store = Store(self.path)
        self.tray = self._tray()

    def close(self) -> None:
        self.tray.dispose()
        self.store.close()


@pytest.fixture
def app(tmp_path, qapp):
    a = App(tmp_path / "db.sqlite3")
    yield a
    a.close()


def _feed(store: Store, name: str, added: float = T0 - 86400) -> int:
    return store.add_feed(f"https://{name}.example/feed", title=name, now=added)


def test_a_restart_keeps_a_feeds_quiet_period(app, shown):
    a, b = _feed(app.store, "a"), _feed(app.store, "b")
    assert app.alert(a, T0)
    app.restart()
    assert not app.alert(a, T0 + 6 * 3600), "announced again after a restart"
    assert app.alert(b, T0 + 6 * 3600)  # another feed's first alert is news
    app.restart()
    assert not app.alert(b, T0 + 7 * 3600)
    assert not app.alert(a, T0 + ALERT_QUIET_S - 1)
    assert app.alert(a, T0 + ALERT_QUIET_S + 1)  # a day on: reminded once more
    app.restart()
    assert not app.alert(a, T0 + ALERT_QUIET_S + 3600)
    assert shown == [f"Items missed in feed {x}" for x in (a, b, a)]


def test_alerts_dismissed_while_the_app_was_closed_end_the_quiet_period(app, shown):
    a = _feed(app.store, "a")
    assert app.alert(a, T0)
    app.store.dismiss_alerts(feed_id=a)  # e.g. from the command line, app closed
    app.restart()
    assert app.alert(a, T0 + 3600)
    # ... and dismissed in the window (which tells the tray what is still open)
    app.store.dismiss_alerts(feed_id=a)
    app.tray.set_open_alert_feeds({x.feed_id for x in app.store.alerts()})
    app.restart()
    assert app.alert(a, T0 + 7200)
    assert len(shown) == 3


def test_feeds_that_no_longer_exist_are_forgotten(app, shown):
    a, b = _feed(app.store, "a"), _feed(app.store, "b")
    assert app.alert(a, T0) and app.alert(b, T0)
    assert set(app.store.get_setting(tray_mod.ALERT_MEMORY_KEY)) == {str(a), str(b)}
    # The newest feed deleted, a new one gets its id (as SQLite numbered them
    # before schema v10): its first alert is news, also within the same run (the
    # tray was not told about the deletion).
    app.store.delete_feed(b)
    with app.store._tx() as db:
        db.execute(
            "INSERT INTO feeds (id, url, title, added_at) VALUES (?, ?, 'c', ?)",
            (b, "https://c.example/feed", T0 + 60),
        )
    c = b
    assert app.alert(c, T0 + 120)
    app.store.delete_feed(a)
    app.restart()
    assert set(app.store.get_setting(tray_mod.ALERT_MEMORY_KEY)) == {str(c)}
    assert not app.alert(c, T0 + 180)
    assert len(shown) == 3


def test_a_damaged_record_costs_only_a_repeated_notification(app, shown):
    a = _feed(app.store, "a")
    assert app.alert(a, T0)
    app.store.set_setting(tray_mod.ALERT_MEMORY_KEY, {str(a): "soon", "x": [1, 2]})
    app.restart()
    assert app.alert(a, T0 + 60)
    app.restart()
    assert not app.alert(a, T0 + 120)


def test_a_restarted_window_does_not_announce_open_alerts_again(
    env,
    qtbot,
    two_feeds,  # noqa: F811
    monkeypatch,
):
    shown: list[str] = []
    monkeypatch.setattr(tray_mod, "notify", lambda _i, t, _m, **_kw: shown.append(t) or True)
    a, b = two_feeds
    now = time.time()
    win = env.window(start_scheduler=False)
    win.sched.alertRaised.emit(overflow(env.store, a, now - 7200, 4.0))
    assert shown == ["Items missed in Alpha feed"]
    win.close()
    win = env.window(start_scheduler=False)  # the next run, on the same database
    win.sched.alertRaised.emit(overflow(env.store, a, now - 60, 4.0))
    win.sched.alertRaised.emit(overflow(env.store, b, now - 60, 4.0))
    assert shown == ["Items missed in Alpha feed", "Items missed in Beta feed"]
