"""Item models for the main window: the feed tree and the (lazy) article list.

``FeedTreeModel`` shows the smart folders ("All unread", "Starred", "All articles"),
then folders with their feeds, then top-level feeds, with unread counts and
error/missed-item state. It is rebuilt from the store by ``reload()``; when only
counts changed it emits ``dataChanged`` so the selection and expansion survive.

``ArticleListModel`` holds only the ids of the current list and loads
``EntryRow``s a page at a time, on demand, into a bounded row cache, so a list of
100,000 articles costs a list of ints plus the rows the view actually paints.
The ids themselves arrive in keyset pages (``Store.entry_keys`` by date,
``Store.entry_title_keys`` by title): the first page at once, the rest from a
zero-delay timer in slices of a few milliseconds, so switching to (or re-sorting)
a 100,000-article list never blocks the GUI thread for long.
Flag changes invalidate single rows (``refresh_ids``), never the whole list.
A re-query after an update reads only the entries stored since the list was read
and inserts them (on top newest-first, else each at its place in the sort order,
found by a binary search that reads the keys of a few rows), never a reset.
An entry whose title changes while a title-sorted list loads (an edit a fetch
stored) is read once and put at its place when the load ends; a feed renamed while
a feed-sorted list loads makes the re-query read the whole list, ending the load.

Neither model writes to the store; the main window does, then tells the model.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QByteArray,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QIcon,
    QImage,
    QImageReader,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPixmap,
    QPolygonF,
)
from PySide6.QtWidgets import QApplication, QStyle

from smartreader.gui.safetext import tip
from smartreader.net import favicon
from smartreader.text import clock_text, day_clock, day_month, long_date_time

Index = QModelIndex | QPersistentModelIndex

# Custom roles.
UnreadRole = int(Qt.ItemDataRole.UserRole) + 1  # int: unread count (tree)
KeyRole = int(Qt.ItemDataRole.UserRole) + 2  # str: stable node key (tree)
StatusRole = int(Qt.ItemDataRole.UserRole) + 3  # str: "", "error", "missed" (tree)
EntryIdRole = int(Qt.ItemDataRole.UserRole) + 4  # int: entry id (list)
RowRole = int(Qt.ItemDataRole.UserRole) + 5  # EntryRow | None (list)

FEED_MIME = "application/x-smartreader-feed-id"

ICON_PX = 16


# -- icons --------------------------------------------------------------


def _hue_for(text: str) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:4], 16) % 360


def _icon_files(folder: Path) -> dict[int, str]:
    """Cached favicons by feed id, as "path@mtime" so a new icon repaints (one scandir)."""
    found: dict[int, str] = {}
    try:
        with os.scandir(folder) as it:
            for e in it:
                stem, _, ext = e.name.partition(".")
                if stem.isdigit() and ext in ("png", "ico", "gif", "jpg", "webp"):
                    found[int(stem)] = f"{e.path}@{e.stat().st_mtime_ns}"
    except OSError:
        pass
    return found


def tree_icon_side(fm: QFontMetrics) -> int:
    """The feed tree's icon side for a font: its line height, so a 16 pt tree's icons
    (and their badges) are not 16 px specks beside the text; never below ``ICON_PX``."""
    return max(ICON_PX, fm.height())


def screen_scales() -> tuple[float, ...]:
    """1x, 2x and every attached screen's own scale (125 %, 150 %...): the sizes a
    feed icon is drawn at, so each screen gets a pixmap of its pixel size, neither
    blown up nor shrunk, without drawing all of ``ICON_SCALES`` for every feed."""
    scales = {1.0, 2.0}
    scales.update(s.devicePixelRatio() for s in QGuiApplication.screens())
    return tuple(sorted(scales))


def favicon_frames(path: str) -> list[QImage]:
    """Every image in the file, for ``letter_icon``: a .ico often holds 16, 32 and
    48 px ones, and QImage reads only the first (16 px), which a 24 px icon on a
    2x screen would blow up threefold."""
    reader = QImageReader(path)
    frames = [reader.read()]
    if bytes(reader.format().data()) == b"ico":  # (a GIF's frames are an animation)
        for i in range(1, reader.imageCount()):
            if reader.jumpToImage(i):
                frames.append(reader.read())
    return [f for f in frames if not f.isNull()]


def _frame_for(frames: Sequence[QImage], px: int) -> QImage:
    """The smallest frame at least ``px`` wide (scaled down: sharp; a 16 px one made
    for 16 px stays as drawn), else the largest."""
    wide = [f for f in frames if min(f.width(), f.height()) >= px]
    if wide:
        return min(wide, key=lambda f: f.width() * f.height())
    return max(frames, key=lambda f: f.width() * f.height())


def letter_icon(
    text: str,
    size: int = ICON_PX,
    *,
    badge: QColor | None = None,
    image: QImage | Sequence[QImage] | None = None,
    badge_shape: str = "error",
    scales: Iterable[float] = (1.0, 2.0),
) -> QIcon:
    """The feed's favicon (``image``: one, or a file's frames to pick from per pixel
    size) or, without one, a rounded square with the first letter of ``text``.
    ``badge`` paints a mark in the corner: ``badge_shape`` "error" a disc, "missed"
    a triangle, so the two differ by more than colour (red and orange look alike
    with deuteranopia). Each of ``scales`` gets a pixmap of ``size * scale`` px,
    drawn at that size (QIcon picks it by its pixel size for a screen's scale)."""
    frames = [image] if isinstance(image, QImage) else list(image or ())
    frames = [f for f in frames if not f.isNull()]
    icon = QIcon()
    for scale in scales:
        px = round(size * scale)
        pm = QPixmap(px, px)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        if frames:
            p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            # from the file's image at this size, never from a smaller pixmap
            scaled = _frame_for(frames, px).scaled(
                px,
                px,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
            p.drawImage(QPointF((px - scaled.width()) / 2, (px - scaled.height()) / 2), scaled)
        else:
            p.setBrush(QColor.fromHsl(_hue_for(text), 150, 120))
            p.drawRoundedRect(QRectF(0, 0, px, px), px * 0.22, px * 0.22)
            letter = next((c for c in text if c.isalnum()), "?").upper()
            f = QFont()
            f.setPixelSize(int(px * 0.62))
            f.setBold(True)
            p.setFont(f)
            p.setPen(QColor("white"))
            p.drawText(QRectF(0, 0, px, px), Qt.AlignmentFlag.AlignCenter, letter)
        if badge is not None:
            p.setPen(QPen(QColor("white"), max(1.0, px * 0.06)))
            p.setBrush(badge)
            if badge_shape == "missed":
                r = px * 0.26
                top, right = 0.5, px - 0.5
                p.drawPolygon(
                    QPolygonF(
                        [
                            QPointF(right - r, top),
                            QPointF(right, top + 1.7 * r),
                            QPointF(right - 2 * r, top + 1.7 * r),
                        ]
                    )
                )
            else:
                r = px * 0.2
                p.drawEllipse(QPointF(px - r - 0.5, r + 0.5), r, r)
        p.end()
        icon.addPixmap(pm)
        # as it is on a selected row too: the style's selected tint washed the
        # letter's colour and the badge out into the highlight
        icon.addPixmap(pm, QIcon.Mode.Selected)
    return icon


# Screen scales an icon is painted for: each one drawn at its own pixel size, with its
# devicePixelRatio set, so a 125-400 % screen never gets a smaller pixmap blown up
# (the list's dot and star were 10/20 px ones stretched to 16 logical px: jagged at 200 %).
ICON_SCALES = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)


def _drawn_icon(size: int, draw: Callable[[QPainter, float], None] | None) -> QIcon:
    """An icon of ``size`` logical px; ``draw(painter, px)`` paints it in a px-wide square."""
    icon = QIcon()
    for scale in ICON_SCALES:
        px = round(size * scale)
        pm = QPixmap(px, px)
        pm.fill(Qt.GlobalColor.transparent)
        if draw is not None:
            p = QPainter(pm)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            draw(p, px)
            p.end()
        pm.setDevicePixelRatio(px / size)
        icon.addPixmap(pm)
    return icon


def _dot_icon(color: QColor | None, size: int = ICON_PX) -> QIcon:
    def draw(p: QPainter, px: float) -> None:
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color)
        d = px * 0.64
        p.drawEllipse(QRectF((px - d) / 2, (px - d) / 2, d, d))

    return _drawn_icon(size, draw if color is not None else None)


def star_icon(color: QColor, size: int = ICON_PX, *, filled: bool = True) -> QIcon:
    def draw(p: QPainter, px: float) -> None:
        path = QPainterPath()
        cx = cy = px / 2
        ro, ri = px * 0.5, px * 0.21
        for i in range(10):
            r = ro if i % 2 == 0 else ri
            a = -math.pi / 2 + i * math.pi / 5
            pt = QPointF(cx + r * math.cos(a), cy + r * math.sin(a) + px * 0.04)
            if i == 0:
                path.moveTo(pt)
            else:
                path.lineTo(pt)
        path.closeSubpath()
        p.setPen(QPen(color, max(1.0, px * 0.08)))
        p.setBrush(color if filled else Qt.BrushStyle.NoBrush)
        p.drawPath(path)

    return _drawn_icon(size, draw)


# a feed's state as a screen reader says it (the tree shows it as a badge)
STATUS_SPOKEN = {"error": "last update failed", "missed": "items probably missed"}
ERROR_COLOR = QColor("#d93025")
MISSED_COLOR = QColor("#f29900")
STAR_COLOR = QColor("#f2b600")
UNREAD_COLOR = QColor("#1a73e8")


# -- the feed tree --------------------------------------------------------


@dataclass(eq=False)
class Node:
    kind: str  # "root" | "smart" | "folder" | "feed"
    id: int | str
    title: str
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    unread: int = 0
    status: str = ""  # "" | "error" | "missed"
    tooltip: str = ""
    icon: str = ""  # cached favicon file, "path@mtime" ("" = letter icon)

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.id}"

    def row(self) -> int:
        return 0 if self.parent is None else self.parent.children.index(self)


def _shape(root: Node) -> frozenset[tuple[str, str]]:
    """Every node's key with its parent's key: what a layout change can keep."""
    out: set[tuple[str, str]] = set()

    def walk(n: Node) -> None:
        for c in n.children:
            out.add((c.key, n.key))
            walk(c)

    walk(root)
    return frozenset(out)


SMART = (("unread", "All unread"), ("starred", "Starred"), ("all", "All articles"))


class FeedTreeModel(QAbstractItemModel):
    """Smart folders, folders and feeds with unread counts.

    Keys identify nodes across reloads: ``smart:unread``, ``smart:starred``,
    ``smart:all``, ``folder:<id>``, ``feed:<id>``.

    Signals:
        feedDropped(int, object): a feed was dragged onto a folder (folder name)
            or onto the top level (None). The model does not write; the window does.
        reloaded(): the counts (and perhaps the tree) were read again.
    """

    feedDropped = Signal(int, object)
    reloaded = Signal()

    def __init__(self, store: Any, parent: Any = None) -> None:
        super().__init__(parent)
        self.store = store
        self.root = Node("root", 0, "")
        # by what is drawn and at what size (a font change or a new screen's scale
        # must not get the icons drawn for the old one)
        self._icons: dict[tuple[Any, ...], QIcon] = {}
        self.icon_side = ICON_PX  # the view's icon size; see set_icon_side()
        self._structure: tuple[Any, ...] = ()
        self.reload()

    # -- building -------------------------------------------------------

    def _build(self, feeds: Sequence[Any] | None = None) -> tuple[Node, tuple[Any, ...]]:
        store = self.store
        feeds = store.feeds(with_state=False) if feeds is None else feeds
        folders = store.folders()
        counts = store.unread_counts()
        starred = store.starred_count()
        try:
            alerted = {a.feed_id for a in store.alerts()}
        except Exception:  # an older store without alerts must not break the tree
            alerted = set()
        icon_files = _icon_files(favicon.icons_dir(store.path)) if hasattr(store, "path") else {}
        root = Node("root", 0, "")
        total_unread = sum(counts.values())
        for sid, title in SMART:
            n = Node("smart", sid, title, root)
            n.unread = total_unread if sid == "unread" else starred if sid == "starred" else 0
            root.children.append(n)
        by_folder: dict[int, Node] = {}
        for f in folders:
            n = Node("folder", f.id, f.name, root)
            by_folder[f.id] = n
            root.children.append(n)
        top: list[Node] = []
        for feed in sorted(feeds, key=lambda f: f.display_title.casefold()):
            parent = by_folder.get(feed.folder_id) if feed.folder_id is not None else None
            n = Node("feed", feed.id, feed.display_title, parent or root)
            n.unread = counts.get(feed.id, 0)
            n.icon = icon_files.get(feed.id, "")
            tip = [feed.display_title, feed.url]
            if feed.status in ("error", "gone") or (feed.error_count and feed.last_error):
                n.status = "error"
                tip.append(f"Last update failed: {feed.last_error or feed.status}")
            elif feed.id in alerted:
                n.status = "missed"
                tip.append("Some items were probably missed; see View ▸ Alerts")
            n.tooltip = "\n".join(tip)
            (parent.children if parent else top).append(n)
        for fn in by_folder.values():
            fn.unread = sum(c.unread for c in fn.children)
            if any(c.status == "error" for c in fn.children):
                fn.status = "error"
        root.children.extend(top)
        structure = tuple(
            (n.key, n.title, tuple((c.key, c.title) for c in n.children)) for n in root.children
        )
        return root, structure

    def reload(self, feeds: Sequence[Any] | None = None) -> None:
        """Re-read the store (``feeds``: ``Store.feeds()`` if the caller has it).
        Keeps indexes valid when only counts/status changed."""
        root, structure = self._build(feeds)
        if structure == self._structure:
            self._copy_state(root)
        elif _shape(root) == _shape(self.root):
            # The same nodes, renamed or re-sorted (a feed's title arrived with an
            # update): move them, keeping selection and expansion, without a reset.
            self._relayout(root, structure)
        else:
            self.beginResetModel()
            self.root = root
            self._structure = structure
            self.endResetModel()
        self.reloaded.emit()

    def _relayout(self, root: Node, structure: tuple[Any, ...]) -> None:
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        keys = [self.node(i).key for i in old]
        self.root = root
        self._structure = structure
        where: dict[str, tuple[int, Node]] = {}

        def walk(n: Node) -> None:
            for i, c in enumerate(n.children):
                where[c.key] = (i, c)
                if c.children:
                    walk(c)

        walk(root)
        new = []
        for k in keys:
            found = where.get(k)
            new.append(self.createIndex(found[0], 0, found[1]) if found else QModelIndex())
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def total_unread(self) -> int:
        """Unread entries in all feeds, as of the last ``reload()``."""
        return sum(c.unread for c in self.root.children if c.key == "smart:unread")

    refresh_counts = reload

    def _copy_state(self, new_root: Node) -> None:
        def walk(old: Node, new: Node, parent_index: QModelIndex) -> None:
            first = last = -1
            for i, (o, n) in enumerate(zip(old.children, new.children, strict=True)):
                if (o.unread, o.status, o.tooltip, o.icon) != (
                    n.unread,
                    n.status,
                    n.tooltip,
                    n.icon,
                ):
                    o.unread, o.status, o.tooltip, o.icon = n.unread, n.status, n.tooltip, n.icon
                    first = i if first < 0 else first
                    last = i
                if o.children:
                    walk(o, n, self.index(i, 0, parent_index))
            if first >= 0:
                self.dataChanged.emit(
                    self.index(first, 0, parent_index), self.index(last, 0, parent_index)
                )

        walk(self.root, new_root, QModelIndex())

    def set_icon_side(self, side: int) -> None:
        """Draws the icons for a view whose iconSize is ``side`` px square (the
        window sets it from the tree's font): each pixmap at its pixel size, never
        a 16 px one blown up, and a favicon from its file, not from a smaller icon."""
        side = max(1, int(side))
        if side == self.icon_side:
            return
        self.icon_side = side
        self._icons.clear()  # nothing asks for the old size again

        def walk(parent: Node, pidx: QModelIndex) -> None:
            if not parent.children:
                return
            last = len(parent.children) - 1
            self.dataChanged.emit(
                self.index(0, 0, pidx), self.index(last, 0, pidx), [Qt.ItemDataRole.DecorationRole]
            )
            for i, c in enumerate(parent.children):
                walk(c, self.index(i, 0, pidx))

        walk(self.root, QModelIndex())

    # -- lookup ---------------------------------------------------------

    def node(self, index: Index) -> Node:
        if not index.isValid():
            return self.root
        n = index.internalPointer()
        assert isinstance(n, Node)
        return n

    def index_for_key(self, key: str) -> QModelIndex:
        def find(parent: Node, pidx: QModelIndex) -> QModelIndex:
            for i, c in enumerate(parent.children):
                idx = self.index(i, 0, pidx)
                if c.key == key:
                    return idx
                if c.children:
                    found = find(c, idx)
                    if found.isValid():
                        return found
            return QModelIndex()

        return find(self.root, QModelIndex())

    def feed_ids_for(self, index: Index) -> list[int] | None:
        """The feeds whose entries the node shows; None means all feeds."""
        n = self.node(index)
        if n.kind == "feed":
            return [int(n.id)]
        if n.kind == "folder":
            return [int(c.id) for c in n.children]
        return None

    def unread_in_order(self) -> list[tuple[str, int]]:
        """Every node's key and unread count, in the tree's order."""
        out: list[tuple[str, int]] = []

        def walk(n: Node) -> None:
            for c in n.children:
                out.append((c.key, c.unread))
                walk(c)

        walk(self.root)
        return out

    def feed_keys_in_order(self) -> list[str]:
        return [key for key, _unread in self.unread_in_order()]

    # -- Qt model API ----------------------------------------------------

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if column != 0 or row < 0:
            return QModelIndex()
        p = self.node(parent)
        if row >= len(p.children):
            return QModelIndex()
        return self.createIndex(row, 0, p.children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        n = self.node(index)
        p = n.parent
        if p is None or p is self.root:
            return QModelIndex()
        return self.createIndex(p.row(), 0, p)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self.node(parent).children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 1

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return self.rowCount(parent) > 0

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled
        n = self.node(index)
        if n.kind == "feed":
            base |= Qt.ItemFlag.ItemIsDragEnabled
        if n.kind == "folder":
            base |= Qt.ItemFlag.ItemIsDropEnabled
        return base

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        n = self.node(index)
        if role == Qt.ItemDataRole.DisplayRole:
            return n.title
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icon(n)
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip(n.tooltip) or None
        if role == Qt.ItemDataRole.FontRole:
            if n.kind in ("smart", "folder") or n.unread:
                f = QFont()
                f.setBold(n.kind == "folder" or bool(n.unread))
                return f
            return None
        if role == UnreadRole:
            return n.unread
        if role == KeyRole:
            return n.key
        if role == StatusRole:
            return n.status
        if role == Qt.ItemDataRole.AccessibleTextRole:
            # what the badge shows, for those who cannot see it
            parts = [
                n.title,
                f"{n.unread} unread" if n.unread else "",
                STATUS_SPOKEN.get(n.status, ""),
            ]
            return ", ".join(p for p in parts if p)
        return None

    def _icon(self, n: Node) -> QIcon:
        side = self.icon_side
        if n.kind == "feed":
            scales = screen_scales()
            k = (n.title, n.status, n.icon, side, scales)
            icon = self._icons.get(k)
            if icon is None:
                badge = {"error": ERROR_COLOR, "missed": MISSED_COLOR}.get(n.status)
                frames = favicon_frames(n.icon.rsplit("@", 1)[0]) if n.icon else None
                icon = letter_icon(
                    n.title, side, badge=badge, image=frames, badge_shape=n.status, scales=scales
                )
                self._icons[k] = icon
            return icon
        style = QApplication.style()
        if n.kind == "folder":
            return style.standardIcon(QStyle.StandardPixmap.SP_DirIcon)
        if n.id in ("starred", "unread"):
            k = ("smart", n.id, side)
            icon = self._icons.get(k)
            if icon is None:
                icon = (
                    star_icon(STAR_COLOR, side)
                    if n.id == "starred"
                    else _dot_icon(UNREAD_COLOR, side)
                )
                self._icons[k] = icon
            return icon
        return style.standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView)

    # -- drag and drop (feeds onto folders) -----------------------------

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [FEED_MIME]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:  # type: ignore[override]
        md = QMimeData()
        ids = [str(self.node(i).id) for i in indexes if self.node(i).kind == "feed"]
        md.setData(FEED_MIME, QByteArray(",".join(ids).encode()))
        return md

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        if not data.hasFormat(FEED_MIME):
            return False
        n = self.node(parent)
        return n.kind in ("folder", "root")

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        n = self.node(parent)
        folder = n.title if n.kind == "folder" else None
        raw = bytes(data.data(FEED_MIME).data()).decode()
        for part in raw.split(","):
            if part.strip().isdigit():
                self.feedDropped.emit(int(part), folder)
        # The window writes and reloads; returning False stops the view from
        # removing the dragged row itself.
        return False


# -- the article list -------------------------------------------------------


COLUMNS = ("Title", "Feed", "Date")
COL_TITLE, COL_FEED, COL_DATE = range(3)
PAGE = 200
# Rows kept in the row cache; beyond this it is emptied (the view re-reads a page).
CACHE_MAX = 20_000
# Id loading: the first page is read at once, the rest in pages of KEY_PAGE from a
# timer, at most LOAD_SLICE_S of work per event-loop turn.
FIRST_PAGE = 500
KEY_PAGE = 2_000
LOAD_SLICE_S = 0.008
# Above this many places for new rows, a re-query merges them in with one layout
# change (a row insert per place costs a shift of the list and a view update each).
INSERT_RUNS_MAX = 32
# A search collects its matches this many entry ids at a time.
SEARCH_SLICE = 5_000
# The end of a title-sorted load reads the rows of this many of the feeds fetched
# meanwhile per step (up to 20 a query goes by the feeds' own index).
MOVED_FEEDS = 20


def _merged(
    ids: list[int], fresh: list[tuple[Any, int]], placed: list[tuple[int, int, int]]
) -> list[int]:
    """``ids`` with ``fresh[a:b]``'s ids inserted before row ``at`` for each
    ``(a, b, at)`` of ``placed`` (``ArticleListModel._places``)."""
    out: list[int] = []
    prev = 0
    for a, b, at in placed:
        out += ids[prev:at]
        prev = at
        out += [i for _k, i in fresh[a:b]]
    out += ids[prev:]
    return out


def format_when(t: float, now: float | None = None) -> str:
    d = dt.datetime.fromtimestamp(t)
    n = dt.datetime.fromtimestamp(time.time() if now is None else now)
    if d.date() == n.date():
        return clock_text(d)
    if d.date() == (n - dt.timedelta(days=1)).date():
        # with its time, as the days before it have theirs
        return f"Yesterday {clock_text(d)}"
    if (n.date() - d.date()).days < 7 and d <= n:
        return day_clock(d)
    return day_month(d, year=d.year != n.year)


class ArticleListModel(QAbstractTableModel):
    """A lazy, sortable article list over ``Store.entry_keys`` / ``Store.entry_rows``.

    ``set_query(feed_ids=..., unread=..., starred=..., search=...)`` replaces the
    list. Sorting (by date, title or feed) is done by SQLite, and the ids arrive a
    page at a time (``loading()`` is True until the last page is in; ``loaded`` is
    emitted then); by feed, a feed group at a time in folded-title order.

    A sort keeps the selected rows (persistent indexes): one not in the first page
    of the new order waits at the end of the rows read so far ("parked") and moves
    to its place when its page arrives.

    Signals:
        loaded(): the whole id list of the current query is in.
    """

    loaded = Signal()

    def __init__(
        self, store: Any, parent: Any = None, *, now: Callable[[], float] = time.time
    ) -> None:
        super().__init__(parent)
        self.store = store
        self._now = now
        self._ids: list[int] = []
        self._pos_cache: dict[int, int] | None = None
        self._cache: dict[int, Any] = {}
        self._query: dict[str, Any] = {}
        self._sort_col = COL_DATE
        self._sort_order = Qt.SortOrder.DescendingOrder
        self._feed_titles: dict[int, str] = {}
        self._bold = QFont()
        self._bold.setBold(True)
        self._icons: dict[str, QIcon] = {}
        # Paged loading: the steps still to run (see _pages), done or not.
        self._loader: Iterator[list[int]] | None = None
        self._pending = False
        # Rows kept across a sort before their page is in: the tail of _ids.
        self._parked: list[int] = []
        self._max_id = 0
        # The ids in the list above _max_id: entries stored meanwhile that a page
        # (or the query) read; a re-query must not add them again.
        self._above: set[int] = set()
        # The pager's position: the last key it read (``after`` of its next page),
        # and a search's matches (a re-query adds the new ones it leaves to it).
        self._page_after: Any = None
        self._matches: set[int] | None = None
        self._pager_done = False  # the last page is in (the next step ends it)
        # The ids the pager read, and a re-query inserted, while the list loads:
        # each is added once (see _unseen).
        self._seen: set[int] = set()
        # Sorted by title: the id of the newest fetch-log row when the key pages
        # began, and the (id, feed_id, title, sort_time) rows of the feeds fetched
        # since then, read after the last page (their titles may have changed:
        # see _settle).
        self._log_mark = 0
        self._moved_rows: list[tuple[int, int, str, float]] = []
        # The folded feed titles the list was sorted by (sorting by feed).
        self._sorted_feed_titles: dict[int, str] = {}
        self._load_timer = QTimer(self)
        self._load_timer.setSingleShot(True)
        self._load_timer.setInterval(0)
        self._load_timer.timeout.connect(self._load_more)
        self.reload_feed_titles()

    # -- data loading ---------------------------------------------------

    def reload_feed_titles(self, feeds: Sequence[Any] | None = None) -> None:
        feeds = self.store.feeds(with_state=False) if feeds is None else feeds
        self._feed_titles = {f.id: f.display_title for f in feeds}

    def _by_date(self) -> bool:
        return self._sort_col == COL_DATE

    def _descending(self) -> bool:
        return self._sort_order == Qt.SortOrder.DescendingOrder

    def _oldest_first(self) -> bool:
        return self._by_date() and self._sort_order == Qt.SortOrder.AscendingOrder

    def _feed_sorted_ids(self) -> list[int]:
        """The whole list sorted by feed at once (after a feed was renamed): from one
        index scan, sorted here by the case-folded feed title, newest first within
        it (as by date) — the order the feed pager reads; descending its reverse."""
        rows = self.store.entry_sort_rows(**self._query)
        folded = {f: t.casefold() for f, t in self._feed_titles.items()}
        self._sorted_feed_titles = folded
        rows.sort(key=lambda r: (folded.get(r[1], ""), -r[3], r[0]), reverse=self._descending())
        return [r[0] for r in rows]

    def set_query(self, **query: Any) -> None:
        """Replace the list: the arguments go to ``Store.entry_ids``."""
        self.beginResetModel()
        self._query = {k: v for k, v in query.items() if v not in (None, False, "")}
        self._cache.clear()
        self._start_load()
        self.endResetModel()
        if not self._pending:
            self.loaded.emit()

    def query(self) -> dict[str, Any]:
        return dict(self._query)

    def _set_ids(self, ids: list[int]) -> None:
        self._ids = ids
        self._pos_cache = None

    def _start_load(self, keep: Sequence[int] = ()) -> None:
        """Inside a model reset (or layout change): the first page now, the rest
        from the timer. ``keep``: ids to keep in the list (selected rows across a
        sort); those not in the first page are parked at its end."""
        self._load_timer.stop()
        self._max_id = self.store.max_entry_id()
        self._above = set()
        self._loader = None
        self._pending = False
        self._parked = []
        self._page_after = None
        self._matches = None
        self._pager_done = False
        self._moved_rows = []
        self._seen = set()
        self._set_ids([])
        self._loader = self._pages()
        self._pending = True
        deadline = time.perf_counter() + LOAD_SLICE_S
        first = True
        while self._pending and (first or time.perf_counter() < deadline):
            first = False
            self._ids.extend(self._step())
        if keep:
            have = set(self._ids)
            parked = [i for i in dict.fromkeys(keep) if i not in have]
            self._ids.extend(parked)
            self._parked = parked
        if self._pending:
            self._load_timer.start()
        else:  # inside the caller's reset or layout change: no signals of its own
            self._settle(signals=False)
            self._place_parked(signals=False)

    def _pages(self) -> Iterator[list[int]]:
        """The list in small steps: a search first collects its matches in slices
        of the id range, then key pages in list order (each an index range scan);
        sorted by title, then the rows of the feeds fetched meanwhile."""
        matches: set[int] | None = None
        if "search" in self._query:
            text = str(self._query["search"])
            matches = set()
            self._matches = matches
            for lo in range(0, self._max_id, SEARCH_SLICE):
                matches |= self.store.search_ids(text, (lo, lo + SEARCH_SLICE))
                yield []
            if not matches:
                return
        q = {k: v for k, v in self._query.items() if k != "search"}
        if self._sort_col == COL_FEED:
            yield from self._feed_pages(q, matches)
            return
        by_title = self._sort_col == COL_TITLE
        if by_title:
            desc = self._descending()
            # Before the first page: a fetch logged after this can have changed
            # the titles (the keys) of its feed's entries between two pages. The
            # newest row by time: its id is at most the last one's (fetches are
            # stored out of time order), so later a few feeds too many at worst.
            log = self.store.fetch_log(limit=1)
            self._log_mark = log[0].id if log else 0

            def page(after: Any, n: int) -> list[Any]:
                return list(self.store.entry_title_keys(descending=desc, after=after, limit=n, **q))
        else:
            oldest = self._oldest_first()

            def page(after: Any, n: int) -> list[Any]:
                return list(self.store.entry_keys(oldest_first=oldest, after=after, limit=n, **q))

        after: Any = None
        n = FIRST_PAGE
        pages = 0
        while True:
            keys = page(after, n)
            pages += 1
            # A short page is the last: the pager reads nothing after it (a
            # re-query meanwhile must not leave the keys after it to the pager).
            self._pager_done = len(keys) < n
            if keys:
                after = self._page_after = keys[-1]
                if matches is not None:
                    yield [k[0] for k in keys if k[0] in matches]
                else:
                    yield [k[0] for k in keys]
            if len(keys) < n:
                break
            n = KEY_PAGE
        if by_title and pages > 1:  # one page is one query: it cannot race
            yield from self._moved_steps(q)

    def _moved_steps(self, q: dict[str, Any]) -> Iterator[list[int]]:
        """After the last title page: the rows, with their titles now, of the
        list's entries in the feeds that have a fetch logged since the first page
        (only a fetch changes a title, and every fetch is logged), a few feeds a
        step; ``_settle`` puts those whose title moved at their places. A feed's
        newest log row by time is its last fetch (a feed's fetches are serial)."""
        mark = self._log_mark
        fetched = sorted(f for f, row in self.store.last_fetches().items() if row.id > mark)
        wanted = q.get("feed_ids")
        if wanted is not None:
            shown = set(wanted)
            fetched = [f for f in fetched if f in shown]
        rest = {k: v for k, v in q.items() if k != "feed_ids"}
        for k in range(0, len(fetched), MOVED_FEEDS):
            chunk = fetched[k : k + MOVED_FEEDS]
            self._moved_rows += self.store.entry_sort_rows(feed_ids=chunk, **rest)
            yield []

    def _feed_pages(self, q: dict[str, Any], matches: set[int] | None) -> Iterator[list[int]]:
        """Sorted by feed: the feeds in case-folded title order (feeds with the same
        title together), each group's entries in date pages from its own index —
        newest first, or oldest first when descending (the exact reverse).
        ``_page_after`` is the group's title with its last date key."""
        folded = {f: t.casefold() for f, t in self._feed_titles.items()}
        self._sorted_feed_titles = folded
        wanted = q.get("feed_ids")
        if wanted is not None:
            wanted = set(wanted)
        groups: dict[str, list[int]] = {}
        for f, t in folded.items():
            if wanted is None or f in wanted:
                groups.setdefault(t, []).append(f)
        desc = self._descending()
        rest = {k: v for k, v in q.items() if k != "feed_ids"}
        order = sorted(groups, reverse=desc)
        n = FIRST_PAGE
        for gi, title in enumerate(order):
            fids = sorted(groups[title])
            after: Any = None
            while True:
                keys = list(
                    self.store.entry_keys(
                        feed_ids=fids, oldest_first=desc, after=after, limit=n, **rest
                    )
                )
                full = len(keys) == n  # a short page ends the group
                self._pager_done = gi == len(order) - 1 and not full
                n = KEY_PAGE
                if keys:
                    after = keys[-1]
                    self._page_after = (title, after)
                    ids = [k[0] for k in keys]
                    yield [i for i in ids if i in matches] if matches is not None else ids
                else:
                    yield []  # one step per feed group, even an empty one
                if not full:
                    break
        self._pager_done = True

    def _step(self) -> list[int]:
        """One step of the loader; clears ``_pending`` when the list is complete."""
        if self._loader is None:
            self._pending = False
            return []
        try:
            page = self._unseen(next(self._loader))
        except StopIteration:
            self._loader = None
            self._pending = False
            self._seen = set()
            return []
        if page and max(page) > self._max_id:
            self._above.update(i for i in page if i > self._max_id)
        return page

    def _unseen(self, page: list[int]) -> list[int]:
        """A page without the ids already read (one query: none twice within it).
        An id read again is an entry whose title changed after its page (a fetch
        stored an edit) to a key the pager had not reached yet: it keeps its row,
        and the end of the load puts it at its place (``_settle``). Parked ids are
        not in ``_seen``: their page moves them to their places."""
        seen = self._seen
        if seen.isdisjoint(page):  # the common case, at C speed
            seen.update(page)
            return page
        page = [i for i in page if i not in seen]
        seen.update(page)
        return page

    def _load_more(self) -> None:
        if not self._pending:
            return
        deadline = time.perf_counter() + LOAD_SLICE_S
        new: list[int] = self._step()  # at least one step per turn
        while self._pending and time.perf_counter() < deadline:
            new.extend(self._step())
        self._append(new)
        if self._pending:
            self._load_timer.start()
        else:
            self.loaded.emit()

    def _append(self, new: list[int]) -> None:
        if self._parked:
            self._append_before_parked(new)
        elif new:
            n = len(self._ids)
            self.beginInsertRows(QModelIndex(), n, n + len(new) - 1)
            self._ids.extend(new)
            if self._pos_cache is not None:
                self._pos_cache.update((i, n + k) for k, i in enumerate(new))
            self.endInsertRows()
        if not self._pending:
            self._settle()
            self._place_parked(signals=True)

    def _place_parked(self, *, signals: bool) -> None:
        """The list is complete: kept rows no page brought (no longer matching,
        as the article just read in an unread list) move from the end to their
        places in the order (moved, so the selection stays on them)."""
        parked, self._parked = self._parked, []
        rows = {r[0]: r for r in self.store.entry_sort_rows_of(parked)} if parked else {}
        if not rows:
            return
        key, rev = self._list_key()
        fresh = sorted(((key(rows[i]), i) for i in parked if i in rows), reverse=rev)
        ids = self._ids
        n = len(ids) - len(parked)
        places = {i: at for a, b, at in self._places(fresh, key, rev, ids, n)
                  for _k, i in fresh[a:b]}  # fmt: skip
        for k, (_key, i) in enumerate(fresh):
            src, dst = ids.index(i), places[i] + k
            if src == dst:
                continue
            if signals:
                self.beginMoveRows(QModelIndex(), src, src, QModelIndex(), dst)
            ids.insert(dst, ids.pop(src))
            self._pos_cache = None
            if signals:
                self.endMoveRows()

    def _append_before_parked(self, new: list[int]) -> None:
        """Insert a page before the parked rows; a parked id in it moves to its place."""
        parked = set(self._parked)
        chunk: list[int] = []
        for i in new:
            if i not in parked:
                chunk.append(i)
                continue
            self._insert_before_parked(chunk)
            chunk = []
            at = len(self._ids) - len(self._parked)
            src = at + self._parked.index(i)
            if src != at:
                self.beginMoveRows(QModelIndex(), src, src, QModelIndex(), at)
                self._ids.insert(at, self._ids.pop(src))
                self.endMoveRows()
            self._parked.remove(i)
            parked.discard(i)
        self._insert_before_parked(chunk)
        self._pos_cache = None

    def _insert_before_parked(self, ids: list[int]) -> None:
        if not ids:
            return
        at = len(self._ids) - len(self._parked)
        self.beginInsertRows(QModelIndex(), at, at + len(ids) - 1)
        self._ids[at:at] = ids
        self.endInsertRows()

    def finish_loading(self) -> None:
        """Read the rest of the list now (what needs the whole list calls this)."""
        if not self._pending:
            return
        self._load_timer.stop()
        new: list[int] = []
        while self._pending:
            new.extend(self._step())
        self._append(new)
        self.loaded.emit()

    def loading(self) -> bool:
        return self._pending

    @property
    def _pos(self) -> dict[int, int]:
        if self._pos_cache is None:
            self._pos_cache = {i: r for r, i in enumerate(self._ids)}
        return self._pos_cache

    def requery(self) -> list[int]:
        """Re-run the query; new ids are inserted (at the top when newest-first,
        else each at its place in the sort order), ids no longer matching stay (an
        item read a moment ago does not vanish under the cursor). Returns the ids
        that were added (in list order; sorted other than newest-first, those after
        the rows read so far of a list still loading come with its next pages)."""
        newest_first = (
            self._sort_col == COL_DATE and self._sort_order == Qt.SortOrder.DescendingOrder
        )
        if newest_first:
            self.finish_loading()
            # Only entries stored since the list was read can be new to it: read
            # just those (a full re-read of 100,000 ids would stall the GUI).
            max_id = self.store.max_entry_id()
            if max_id <= self._max_id:
                return []
            q = {k: v for k, v in self._query.items() if k != "search"}
            # Ids above the last max can only be in the list if a page read them
            # after that max was taken (stored meanwhile): _above has those.
            known = self._above
            fresh = [k[0] for k in self.store.entry_keys(min_id=self._max_id, **q)]
            fresh = [i for i in fresh if i not in known]
            self._set_max_id(max_id)
            if "search" in self._query and fresh:
                found = self.store.search_ids(str(self._query["search"]), (min(fresh) - 1, max_id))
                fresh = [i for i in fresh if i in found]
            if not fresh:
                return []
            self.beginInsertRows(QModelIndex(), 0, len(fresh) - 1)
            self._set_ids(fresh + self._ids)
            self._above.update(i for i in fresh if i > max_id)
            self.endInsertRows()
            return fresh
        if self._sort_col == COL_FEED:
            folded = {f: t.casefold() for f, t in self._feed_titles.items()}
            old = self._sorted_feed_titles
            if any(old[f] != t for f, t in folded.items() if f in old):
                return self._requery_all()  # a feed was renamed: its rows move
            self._sorted_feed_titles = folded
        return self._requery_new()

    def _requery_new(self) -> list[int]:
        """``requery`` of a list sorted other than newest-first: read the entries
        stored since the list was read, with their sort keys, and insert each at its
        place among the rows read so far (a binary search that reads the keys of the
        few rows it looks at); those after the last key a list still loading has
        read are left to its pager, whose next pages start after that key."""
        max_id = self.store.max_entry_id()
        if max_id <= self._max_id:
            return []
        q = {k: v for k, v in self._query.items() if k != "search"}
        known = self._above  # as newest-first
        rows = [r for r in self.store.entry_sort_rows_since(self._max_id, **q) if r[0] not in known]
        low = self._max_id
        self._set_max_id(max_id)
        if "search" in self._query and rows:
            found = self.store.search_ids(
                str(self._query["search"]), (low, max(r[0] for r in rows))
            )
            rows = [r for r in rows if r[0] in found]
        if not rows:
            return []
        key, rev = self._list_key()
        fresh = sorted(((key(r), r[0]) for r in rows), reverse=rev)
        later: list[int] = []
        if self._pending and not self._pager_done:
            after = self._after_key()
            cut = len(fresh)
            if after is None:  # no key page read yet
                cut = 0
            else:
                while cut and (fresh[cut - 1][0] < after if rev else fresh[cut - 1][0] > after):
                    cut -= 1
            fresh, later = fresh[:cut], [i for _k, i in fresh[cut:]]
            if self._matches is not None:
                self._matches.update(later)
        added = self._insert_in_order(fresh, key, rev)
        self._above.update(i for i in added if i > max_id)
        if self._pending:  # a title changed past the pager: its page reads it again
            self._seen.update(added)
        return added + later

    def take_edited_matches(self, feed_ids: Iterable[int]) -> list[int]:
        """A search list after these feeds were fetched: insert, each at its
        place, their articles an upstream edit made match (``requery`` reads only
        the articles stored since the list was read). Returns the ids inserted."""
        search = self._query.get("search")
        wanted = self._query.get("feed_ids")
        feeds = set(feed_ids) if wanted is None else set(feed_ids) & set(wanted)
        if not search or not feeds:
            return []
        found = self.store.entry_ids(**{**self._query, "feed_ids": sorted(feeds)})
        matches = self._matches if self._pending and self._matches is not None else set()
        if all(i in self._pos or i in matches or i > self._max_id for i in found):
            return []  # listed, or to come with the pages still to read
        self.finish_loading()
        pos = self._pos
        new = [i for i in found if i not in pos and i <= self._max_id]
        key, rev = self._list_key()
        fresh = sorted(((key(r), r[0]) for r in self.store.entry_sort_rows_of(new)), reverse=rev)
        return self._insert_in_order(fresh, key, rev)

    def _set_max_id(self, max_id: int) -> None:
        self._max_id = max_id
        self._above = {i for i in self._above if i > max_id}

    def _list_key(self) -> tuple[Callable[[tuple[int, int, str, float]], Any], bool]:
        """A key of an ``(id, feed_id, title, sort_time)`` row (``Store.entry_sort_rows``)
        whose order is the list's (its reverse when the flag is set): what
        ``entry_keys`` / ``entry_title_keys`` / the feed pager order by."""
        # Equal times in id order newest first (a document's order), so oldest
        # first, the exact reverse, has them in reverse id order.
        desc = self._descending()
        if self._sort_col == COL_TITLE:
            return (lambda r: (r[2].casefold() if r[2] else "", -r[3], r[0])), desc
        if self._sort_col == COL_FEED:
            folded = self._sorted_feed_titles
            return (lambda r: (folded.get(r[1], ""), -r[3], r[0])), desc
        if desc:
            return (lambda r: (-r[3], r[0])), False
        return (lambda r: (r[3], -r[0])), False

    def _after_key(self) -> Any:
        """The pager's last key (``_page_after``) as a ``_list_key``; None before
        its first page."""
        a = self._page_after
        if a is None:
            return None
        if self._sort_col == COL_TITLE:  # (id, title_key, sort_time)
            return (a[1], -a[2], a[0])
        if self._sort_col == COL_FEED:  # (folded feed title, (id, sort_time))
            title, (i, t) = a
            return (title, -t, i)
        return (-a[1], a[0]) if self._descending() else (a[1], -a[0])  # (id, sort_time)

    def _insert_in_order(
        self,
        fresh: list[tuple[Any, int]],
        key: Callable[[tuple[int, int, str, float]], Any],
        rev: bool,
    ) -> list[int]:
        """Insert ``(key, id)``s, in list order, at their places among the rows read
        so far (before any parked rows), one ``beginInsertRows`` per contiguous run.

        A binary search of the rows for all of them at once: a group of new ids that
        share a row range is split by the key of the range's middle row, and each
        round reads the keys of the rows it probes in one query (the row keys are
        never all read: ~17 probes per group at 100,000 rows). Rows whose key changed
        meanwhile (a retitled entry) or that were deleted leave the list only
        locally sorted; the search still lands between two neighbours that fit."""
        if not fresh:
            return []
        ids = self._ids
        placed = self._places(fresh, key, rev, ids, len(ids) - len(self._parked))
        self._pos_cache = None
        runs = len({at for _a, _b, at in placed})
        if runs > INSERT_RUNS_MAX:
            return self._merge_in(fresh, placed)
        added: list[int] = []
        k = 0
        while k < len(placed):
            a, b, at = placed[k]
            k += 1
            while k < len(placed) and placed[k][2] == at:  # the same gap: one run
                b = placed[k][1]
                k += 1
            run = [i for _k, i in fresh[a:b]]
            at += len(added)  # rows inserted above
            self.beginInsertRows(QModelIndex(), at, at + len(run) - 1)
            ids[at:at] = run
            self.endInsertRows()
            added += run
        return added

    def _places(
        self,
        fresh: list[tuple[Any, int]],
        key: Callable[[tuple[int, int, str, float]], Any],
        rev: bool,
        ids: list[int],
        n: int,
    ) -> list[tuple[int, int, int]]:
        """Where ``(key, id)``s in list order go among ``ids[:n]`` (rows in list
        order): ``(a, b, row)``, fresh[a:b] before row ``row``, sorted (see
        ``_insert_in_order``)."""
        fk = [k for k, _i in fresh]
        keys: dict[int, Any] = {}
        # (row range lo..hi, fresh[a:b]) still to place; then (a, b, row) placed.
        groups = [(0, n, 0, len(fresh))] if n else []
        placed = [] if n else [(0, len(fresh), 0)]
        while groups:
            want = {ids[(lo + hi) // 2] for lo, hi, _a, _b in groups} - keys.keys()
            if want:
                got = {r[0]: key(r) for r in self.store.entry_sort_rows_of(want)}
                keys.update((i, got.get(i)) for i in want)
            split = []
            for lo, hi, a, b in groups:
                mid = (lo + hi) // 2
                km = keys[ids[mid]]
                # fresh[a:s] go before the middle row, fresh[s:b] after it.
                s, e = a, b
                if km is not None:
                    while s < e:
                        m = (s + e) // 2
                        if fk[m] > km if rev else fk[m] < km:
                            s = m + 1
                        else:
                            e = m
                split += [(lo, mid, a, s), (mid + 1, hi, s, b)]
            groups = []
            for lo, hi, a, b in split:
                if a < b:
                    if lo < hi:
                        groups.append((lo, hi, a, b))
                    else:
                        placed.append((a, b, lo))
        placed.sort()
        return placed

    def _merge_in(
        self, fresh: list[tuple[Any, int]], placed: list[tuple[int, int, int]]
    ) -> list[int]:
        """``_insert_in_order``'s insertion when the new ids land in many places:
        one layout change and one pass over the list instead of a row insert (and
        a shift of the rest of the list) per place."""
        ids = self._ids
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        merged: list[int] = []
        starts: list[int] = []  # old row -> rows inserted at or before it, by bisect
        shifts: list[int] = []
        added: list[int] = []
        prev = 0
        for a, b, at in placed:  # sorted by (a, ...): fresh order is list order
            merged += ids[prev:at]
            prev = at
            run = [i for _k, i in fresh[a:b]]
            merged += run
            added += run
            starts.append(at)
            shifts.append(len(added))
        merged += ids[prev:]
        self._set_ids(merged)
        new = []
        for p in old_persistent:
            k = bisect.bisect_right(starts, p.row())
            new.append(self.index(p.row() + (shifts[k - 1] if k else 0), p.column()))
        self.changePersistentIndexList(old_persistent, new)
        self.layoutChanged.emit()
        return added

    def _settle(self, *, signals: bool = True) -> None:
        """The end of a title-sorted load: put the entries of the feeds fetched
        while it loaded (``_moved_rows``) at their places by their titles now.

        A title changed between two pages moves its entry across the pager: from
        after it to before it, no page reads the entry (it is added here); from
        before it to after it, a later page reads it again (``_unseen`` dropped
        that) and its row is where its old title was (it moves here). The other
        rows' keys did not change, so they are in order and the binary search of
        ``_insert_in_order`` among them is exact. ``signals``: off inside the
        caller's reset or layout change."""
        rows, self._moved_rows = self._moved_rows, []
        if not rows:
            return
        pos = self._pos
        matches = self._matches
        key, rev = self._list_key()
        # The list's entries, and the ones it should have: those a re-query would
        # not add (stored after the list's max id, they are the next re-query's).
        keys = {
            r[0]: key(r)
            for r in rows
            if r[0] in pos or (r[0] <= self._max_id and (matches is None or r[0] in matches))
        }
        held = [i for i in keys if i in pos]
        missing = sorted(((k, i) for i, k in keys.items() if i not in pos), reverse=rev)
        n = len(self._ids) - len(self._parked)
        if held and not self._in_place(held, keys, n):
            ids = self._ids
            fresh = sorted(((keys[i], i) for i in held), reverse=rev)
            rest = [i for i in ids[:n] if i not in keys]
            order = _merged(rest, fresh, self._places(fresh, key, rev, rest, len(rest)))
            self._parked = [i for i in self._parked if i not in keys]
            self._reorder(order + [i for i in ids[n:] if i not in keys], signals)
        if not missing:
            return
        if signals:
            self._insert_in_order(missing, key, rev)
            return
        ids = self._ids
        n = len(ids) - len(self._parked)
        placed = self._places(missing, key, rev, ids, n)
        self._set_ids(_merged(ids[:n], missing, placed) + ids[n:])

    def _in_place(self, held: list[int], keys: dict[int, Any], n: int) -> bool:
        """Whether these rows (``keys``: their keys now) are in order with their
        neighbours among the first ``n`` rows. The rows not in ``keys`` kept their
        keys, so then the whole list is in order (the common case: a feed fetched,
        no title changed), and nothing needs to move."""
        key, rev = self._list_key()
        ids, pos = self._ids, self._pos
        near: set[int] = set()
        for i in held:
            p = pos[i]
            if p >= n:  # parked: its page never came (its title moved before it)
                return False
            near.update(ids[max(p - 1, 0) : p + 2])
        known = dict(keys)
        known.update((r[0], key(r)) for r in self.store.entry_sort_rows_of(near - keys.keys()))
        for i in held:
            p = pos[i]
            for a in (p - 1, p):
                if a < 0 or a + 1 >= n:
                    continue
                ka, kb = known.get(ids[a]), known.get(ids[a + 1])
                if ka is not None and kb is not None and (ka < kb if rev else ka > kb):
                    return False
        return True

    def _reorder(self, ids: list[int], signals: bool) -> None:
        """Replace the list with a reordering of it; the view's rows follow their ids."""
        if not signals:
            self._set_ids(ids)
            return
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_ids = [self._ids[p.row()] if p.row() < len(self._ids) else -1 for p in old_persistent]
        self._set_ids(ids)
        pos = self._pos
        new = [
            self.index(pos[i], p.column()) if i in pos else QModelIndex()
            for i, p in zip(old_ids, old_persistent, strict=True)
        ]
        self.changePersistentIndexList(old_persistent, new)
        self.layoutChanged.emit()

    def _requery_all(self) -> list[int]:
        """Re-read the whole list (sorted by feed after a feed was renamed) and
        reset the model if anything moved or is new; rows no longer matching stay,
        at the end. A load still going ends: this is the whole list, and its feed
        pager, in the old title order, would read it all again."""
        self._max_id = self.store.max_entry_id()
        fresh = self._feed_sorted_ids()
        self._above = {i for i in fresh if i > self._max_id}
        new = [i for i in fresh if i not in self._pos]
        matching = set(fresh)
        ids = fresh + [i for i in self._ids if i not in matching]
        was_loading = self._pending
        self._load_timer.stop()
        self._loader = None
        self._pending = False
        self._parked = []
        self._seen = set()
        if ids != self._ids:
            self.beginResetModel()
            self._set_ids(ids)
            self.endResetModel()
        if was_loading:
            self.loaded.emit()
        return new  # empty when nothing changed (every fresh id was in the list)

    def _row(self, r: int) -> Any:
        eid = self._ids[r]
        row = self._cache.get(eid)
        if row is None:
            start = max(0, r - PAGE // 4)
            self._cache_rows(self._ids[start : start + PAGE])
            row = self._cache.get(eid)
        return row

    def _cache_rows(self, ids: list[int]) -> None:
        """Read the rows of these ids not cached yet (the cache is bounded)."""
        if len(self._cache) > CACHE_MAX:
            self._cache.clear()
        missing = [i for i in ids if i not in self._cache]
        if missing:
            self._cache.update(self.store.entry_rows(missing))

    def refresh_ids(self, ids: Iterable[int]) -> None:
        """Reload these entries' rows (after read/star changes) and repaint them."""
        ids = list(ids)
        if len(ids) > 8:
            pos = self._pos
            rows = [(i, pos[i]) for i in ids if i in pos]
        else:
            rows = [(i, r) for i in ids if (r := self.row_of(i, load=False)) >= 0]
        if not rows:
            return
        self._cache.update(self.store.entry_rows([i for i, _r in rows]))
        for _i, r in rows:
            self.dataChanged.emit(self.index(r, 0), self.index(r, len(COLUMNS) - 1))

    def forget_feeds(self, feed_ids: set[int]) -> None:
        """Forget the cached rows of these feeds and repaint: a fetch may have
        edited their titles upstream (the list painted the old ones until
        another feed was chosen)."""
        stale = [i for i, row in self._cache.items() if row.feed_id in feed_ids]
        for i in stale:
            del self._cache[i]
        if stale and self._ids:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._ids) - 1, len(COLUMNS) - 1)
            )

    def invalidate(self) -> None:
        """Forget every cached row (e.g. after "mark all read") and repaint."""
        self._cache.clear()
        if self._ids:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._ids) - 1, len(COLUMNS) - 1)
            )

    # -- lookups --------------------------------------------------------

    def ids(self) -> list[int]:
        self.finish_loading()
        return list(self._ids)

    def holds_any(self, entry_ids: set[int]) -> bool:
        """Whether any of these is among the rows read so far (pages still to come
        are read from the store as it is then)."""
        return bool(entry_ids) and any(i in entry_ids for i in self._ids)

    def shown_upto(self) -> tuple[int, set[int]]:
        """What the list was read from: every entry of its query up to this id,
        and these entries stored since that a page picked up. An entry stored
        after both is not in the list yet (the next re-query brings it)."""
        return self._max_id, set(self._above)

    def entry_id(self, row: int) -> int:
        return self._ids[row]

    def row_of(self, entry_id: int, *, load: bool = True) -> int:
        """The row of an entry; -1 when not in the list. ``load=False`` looks only
        at the ids read so far (never waits for the rest of a long list)."""
        try:
            return self._ids.index(entry_id)
        except ValueError:
            pass
        if load and self._pending:
            self.finish_loading()
            return self.row_of(entry_id, load=False)
        return -1

    def next_unread_row(self, after: int) -> int:
        """The first unread row below ``after`` (-1: from the top); -1 when none.
        Reads the flags a page at a time, and the rest of a long list only when
        the part already in has no unread row below ``after``."""
        r = after + 1
        while True:
            while r < len(self._ids):
                chunk = self._ids[r : r + PAGE]
                self._cache_rows(chunk)
                for k, eid in enumerate(chunk):
                    row = self._cache.get(eid)
                    if row is not None and not row.read:
                        return r + k
                r += len(chunk)
            if not self._pending:
                return -1
            self.finish_loading()

    def entry_row(self, row: int) -> Any:
        return self._row(row)

    def cached_rows(self) -> int:
        return len(self._cache)

    # -- Qt model API ----------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._ids)):
            return None
        r = index.row()
        if role == EntryIdRole:
            return self._ids[r]
        row = self._row(r)
        if row is None:  # deleted meanwhile (feed removed)
            return None if role != Qt.ItemDataRole.DisplayRole else ""
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_TITLE:
                return row.title or "(untitled)"
            if col == COL_FEED:
                return self._feed_titles.get(row.feed_id, "")
            return format_when(row.sort_time, self._now())
        if role == Qt.ItemDataRole.FontRole:
            return None if row.read else self._bold
        if role == Qt.ItemDataRole.DecorationRole and col == COL_TITLE:
            return self._state_icon(row)
        if role == Qt.ItemDataRole.ForegroundRole and col != COL_TITLE:
            return QApplication.palette().brush(QPalette.ColorRole.PlaceholderText)
        if role == Qt.ItemDataRole.ToolTipRole and col == COL_DATE:
            return long_date_time(dt.datetime.fromtimestamp(row.sort_time))
        if role == Qt.ItemDataRole.ToolTipRole and col == COL_TITLE:
            return tip(row.title) or None
        if role == Qt.ItemDataRole.ToolTipRole and col == COL_FEED:
            # a narrow column elides "Harbour Traffic Board" and "Harbour Wire" alike
            return tip(self._feed_titles.get(row.feed_id, "")) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and col == COL_DATE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.AccessibleTextRole and col == COL_TITLE:
            state = ", ".join(
                s for s, on in (("unread", not row.read), ("starred", row.starred)) if on
            )
            # what the list shows for no title, not ", unread" (or blanks said aloud)
            title = (row.title or "").strip() or "(untitled)"
            return f"{title}{', ' + state if state else ''}"
        if role == RowRole:
            return row
        return None

    def _state_icon(self, row: Any) -> QIcon:
        k = "star" if row.starred else "unread" if not row.read else "none"
        icon = self._icons.get(k)
        if icon is None:
            if k == "star":
                icon = star_icon(STAR_COLOR)
            elif k == "unread":
                icon = _dot_icon(UNREAD_COLOR)
            else:
                icon = _dot_icon(None)
            self._icons[k] = icon
        return icon

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        if (column, order) == (self._sort_col, self._sort_order) and self._ids:
            return
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_ids = [self._ids[i.row()] if i.row() < len(self._ids) else -1 for i in old_persistent]
        self._sort_col, self._sort_order = column, order
        reload = bool(self._query or self._ids)
        if reload:
            # The first page of the new order now, the rest from the timer; the
            # rows the view holds (the selection) stay, parked until their page.
            held = sorted((p.row(), i) for i, p in zip(old_ids, old_persistent, strict=True))
            self._start_load(keep=[i for _r, i in held if i >= 0])
        new = [
            self.index(self._pos[i], p.column()) if i in self._pos else QModelIndex()
            for i, p in zip(old_ids, old_persistent, strict=True)
        ]
        self.changePersistentIndexList(old_persistent, new)
        self.layoutChanged.emit()
        if reload and not self._pending:
            self.loaded.emit()

    def sort_state(self) -> tuple[int, Qt.SortOrder]:
        return self._sort_col, self._sort_order


def icon_size() -> QSize:
    return QSize(ICON_PX, ICON_PX)
