"""UI state and preferences in an INI ``QSettings`` file, behind a typed registry.

Only things about the *window* live here (geometry, splitter sizes, last selection,
theme, notification toggles); per-feed and scheduling settings live in SQLite.
Every key is declared once in ``PREFS`` with its type and default, so a typo is a
``KeyError`` instead of a silently new setting, and values read back from the INI
file (where everything is a string) come back with the declared type.

``Prefs`` also offers the duck-typed ``get(key, default)`` / ``set(key, value)``
pair that ``SettingsDialog`` accepts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

INI_NAME = "ui.ini"


@dataclass(frozen=True)
class Pref:
    key: str
    type: type
    default: Any
    doc: str = ""


PREFS: dict[str, Pref] = {
    p.key: p
    for p in (
        Pref("window/geometry", bytes, b"", "main window saveGeometry()"),
        Pref("window/state", bytes, b"", "main window saveState() (toolbars)"),
        Pref("window/splitter", bytes, b"", "feeds | articles | reader splitter"),
        Pref("window/feed_list", bool, True, "the feed list is shown (View ▸ Feed list, F9)"),
        Pref("window/selection", str, "smart:unread", "last selected tree node key"),
        Pref("window/article", int, 0, "last opened article id"),
        Pref("tree/collapsed", str, "[]", "folders the user collapsed (JSON list of names)"),
        Pref("window/tab", int, 0, "the reading pane's tab: 0 article, 1 activity, 2 alerts"),
        Pref("list/feed_width", int, 130, "article list: the Feed column's width"),
        Pref("list/date_width", int, 104, "article list: the Date column's width"),
        Pref("list/sort_column", int, 2, "article list sort column"),
        Pref("list/sort_order", int, 1, "0 ascending, 1 descending"),
        Pref("list/unread_only", bool, False, "hide read articles in feeds"),
        Pref("updates/paused", bool, False, "scheduled fetches paused (Feed ▸ Pause updates)"),
        Pref("theme", str, "system", "system | light | dark"),
        Pref("article/zoom", float, 1.0, "article text size, a factor of the normal one"),
        Pref("notifications", bool, True, "desktop notifications for new items"),
        Pref("tray_icon", bool, True, "show the tray icon"),
        Pref("close_to_tray", bool, True, "closing the window leaves it polling in the tray"),
        Pref("tray/told_running", bool, False, "said once that a closed window keeps polling"),
    )
}


def _coerce(value: Any, typ: type, default: Any) -> Any:
    if value is None:
        return default
    try:
        if typ is bool:
            if isinstance(value, str):
                return value.strip().lower() in ("1", "true", "yes", "on")
            return bool(value)
        if typ is bytes:
            if isinstance(value, QByteArray):
                return bytes(value.data())
            if isinstance(value, (bytes, bytearray)):
                return bytes(value)
            return default
        return typ(value)
    except (TypeError, ValueError):
        return default


class Prefs:
    """Typed access to the UI settings file (``<data dir>/ui.ini``)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            self.settings = QSettings(
                QSettings.Format.IniFormat, QSettings.Scope.UserScope, "smartreader", "smartreader"
            )
        else:
            self.settings = QSettings(os.fspath(path), QSettings.Format.IniFormat)

    @classmethod
    def in_dir(cls, data_dir: str | os.PathLike[str]) -> Prefs:
        return cls(os.path.join(os.fspath(data_dir), INI_NAME))

    def get(self, key: str, default: Any = None) -> Any:
        pref = PREFS.get(key)
        if pref is None:
            # Unknown keys (from a caller we don't know) pass through untyped.
            return self.settings.value(key, default)
        value = self.settings.value(key)
        return _coerce(value, pref.type, pref.default if default is None else default)

    def set(self, key: str, value: Any) -> None:
        pref = PREFS.get(key)
        if pref is not None and pref.type is bytes:
            value = QByteArray(bytes(value))
        self.settings.setValue(key, value)

    def sync(self) -> None:
        self.settings.sync()
