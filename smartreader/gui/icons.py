"""The UI's own icons: monochrome SVGs (``resources/icons/ui``) tinted with the
palette's text colour, so one set serves the light and the dark theme."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

from smartreader import resources

NAMES = ("add", "refresh", "mark-read", "unread-only", "full-article", "settings", "star", "search")
_SIZES = (16, 24, 32, 48)
_cache: dict[tuple[str, str], QIcon] = {}


def ui_icon(name: str, color: QColor | None = None) -> QIcon:
    """``name`` tinted ``color`` (default: the application palette's button text)."""
    if color is None:
        color = QPalette().color(QPalette.ColorRole.ButtonText)
    key = (name, color.name(QColor.NameFormat.HexArgb))
    icon = _cache.get(key)
    if icon is not None:
        return icon
    svg = resources.read_bytes("icons", "ui", f"{name}.svg").replace(
        b"currentColor", color.name().encode("ascii")
    )
    renderer = QSvgRenderer(QByteArray(svg))
    icon = QIcon()
    for size in _SIZES:
        pm = QPixmap(size, size)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(p, QRectF(0, 0, size, size))
        p.end()
        icon.addPixmap(pm)
    _cache[key] = icon
    return icon
