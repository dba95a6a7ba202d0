"""Charts for the scheduler views: a feed's week, delay vs budget, and a posting heatmap.

Drawn with ``QPainter`` so every colour comes from the widget's palette and the
charts read well in light and dark themes alike (pyqtgraph's defaults assume a
black background). They only draw what they are given: no store, no updater.

- ``WeekRateChart``: the estimated posting rate λ(t) over the 168 hours of a week
  as a line, the observed item counts per hour slot as bars behind it, the next
  planned fetches as triangles on the time axis and a "now" line. Hours are shown
  in local time; the scheduler's slot 0 is Monday 00:00 UTC.
- ``DelayBudgetChart``: expected mean delay against the daily request budget for
  smart polling and for a fixed interval, with the chosen budget marked.
- ``WeekHeatmap``: weekday × hour-of-day intensity grid (local time).

Also the small formatting helpers the scheduler views share (durations, offsets).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from smartreader.core.rhythm import HOURS_PER_WEEK, to_local_slots
from smartreader.gui._compat import guard_pyside_refcounts
from smartreader.text import duration_text, format_utc_offset, local_utc_offset

guard_pyside_refcounts()  # re-exported for callers that imported it from here

DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# 1970-01-05 00:00 UTC was a Monday: week slots are counted from there.
_MONDAY_EPOCH = 4 * 86400


# -- formatting -----------------------------------------------------------


def elide(text: str, limit: int) -> str:
    """At most ``limit`` characters, with an ellipsis where it was cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def humanize_duration(seconds: float | None) -> str:
    """``"45 s"``, ``"12 min"``, ``"2 h 10 min"``, ``"3 d 4 h"``."""
    if seconds is None or not math.isfinite(seconds):
        return "—"
    return duration_text(float(seconds))


def humanize_in(when: float, now: float) -> str:
    """``"in 2 h 10 min"`` / ``"5 min ago"`` / ``"now"``."""
    delta = when - now
    if abs(delta) < 30:
        return "now"
    if delta > 0:
        return "in " + humanize_duration(delta)
    return humanize_duration(-delta) + " ago"


def week_position_h(t: float, utc_offset_s: float = 0.0) -> float:
    """Hours since local Monday 00:00 of the week containing epoch time ``t``."""
    return ((t + utc_offset_s - _MONDAY_EPOCH) / 3600.0) % HOURS_PER_WEEK


def nice_ticks(vmax: float, target: int = 4) -> list[float]:
    """0 and a few round values up to at least ``vmax``."""
    if not math.isfinite(vmax) or vmax <= 0:
        return [0.0, 1.0]
    raw = vmax / target
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(vmax / step - 1e-9)
    return [i * step for i in range(n + 1)]


def _fmt_tick(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 10 or float(v).is_integer():
        return f"{v:.0f}"
    return f"{v:.2g}" if abs(v) < 1 else f"{v:.1f}"


# -- colours --------------------------------------------------------------


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def luminance(c: QColor) -> float:
    """WCAG 2 relative luminance."""

    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio: 1 (the same) to 21; text wants 4.5, marks 3."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


_accents: dict[tuple[int, int, int], QColor] = {}


def accent(palette: QPalette, hue: int) -> QColor:
    """A saturated colour of ``hue`` that reads as text on the palette's base and
    window (4.5:1), on any palette: its usual lightness where that reads, else
    the nearest that does (amber on white was 4.4:1; a system palette's mid grey
    would take neither of ours), else the one that contrasts most."""
    base = palette.color(QPalette.ColorRole.Base)
    window = palette.color(QPalette.ColorRole.Window)
    key = (hue, base.rgba(), window.rgba())
    if key not in _accents:
        sat, light = (200, 165) if is_dark(palette) else (190, 95)
        shades = [QColor.fromHsl(hue, sat, v) for v in range(256)]
        worst = [min(contrast(c, base), contrast(c, window)) for c in shades]
        ok = [v for v in range(256) if worst[v] >= 4.5]
        v = min(ok, key=lambda v: abs(v - light)) if ok else max(range(256), key=worst.__getitem__)
        _accents[key] = shades[v]
    return QColor(_accents[key])


def series_color(palette: QPalette) -> QColor:
    """The main data colour: the theme's highlight, lifted in dark themes if needed."""
    c = QColor(palette.color(QPalette.ColorRole.Highlight))
    base = palette.color(QPalette.ColorRole.Base)
    if abs(c.lightness() - base.lightness()) < 70:
        c = accent(palette, 210)
    return c


def blend(a: QColor, b: QColor, t: float) -> QColor:
    t = min(1.0, max(0.0, t))
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
        1.0,
    )


class _Chart(QWidget):
    """Shared plumbing: palette colours, fonts, an empty-state message."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.empty_text = "No data yet"

    def _colors(self) -> dict[str, QColor]:
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.Text)
        base = pal.color(QPalette.ColorRole.Base)
        return {
            "base": base,
            "text": text,
            "muted": blend(base, text, 0.62),
            "grid": blend(base, text, 0.13),
            "axis": blend(base, text, 0.45),
            "series": series_color(pal),
            "bars": blend(base, text, 0.22),
            "plan": accent(pal, 28),  # amber/orange
            "now": accent(pal, 350),  # red
            "fixed": blend(base, text, 0.55),
        }

    def _small_font(self) -> QFont:
        f = QFont(self.font())
        size = f.pointSizeF()
        if size > 0:
            f.setPointSizeF(max(7.0, size * 0.9))
        return f

    def _paint_background(self, p: QPainter, c: dict[str, QColor]) -> None:
        p.fillRect(self.rect(), c["base"])
        p.setPen(QPen(c["grid"], 1))
        p.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))

    def _paint_empty(self, p: QPainter, c: dict[str, QColor]) -> None:
        p.setPen(c["muted"])
        p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.empty_text)


class WeekRateChart(_Chart):
    """λ(t) over a week with observed counts and planned fetches.

    ``set_data`` takes the scheduler's 168 UTC slots (index 0 = Monday 00:00 UTC);
    they are shown in local time. Read back what is drawn with ``curve_points()``,
    ``bar_values()`` and ``planned_positions()``.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty_text = "No posting history yet — the curve appears after a few fetches"
        self._lam: list[float] = []
        self._obs: list[float] = []
        self._obs_scale = 1.0
        self._planned: list[float] = []
        self._plan_until: float | None = None
        self._now: float | None = None
        self._offset = local_utc_offset()
        self._plot = QRectF()
        # Narrow enough for the reading pane of a 640 px window; the legend wraps.
        self.setMinimumSize(240, 190)

    def sizeHint(self) -> QSize:
        return QSize(720, 240)

    def set_data(
        self,
        lambda_week: Sequence[float],
        observed_week: Sequence[float] = (),
        planned: Sequence[float] = (),
        *,
        now: float | None = None,
        utc_offset_s: float | None = None,
        observed_weeks: float | None = None,
        plan_until: float | None = None,
    ) -> None:
        """Show a feed's week.

        ``plan_until``: the end of the plan ``planned`` covers (the scheduler
        explains the next days only); the rest of the week is marked as not shown,
        so no marks there does not read as no fetches there.

        ``observed_week`` counts are divided by ``observed_weeks`` (how many weeks
        they were collected over) so bars and curve share the items/hour axis;
        without it the bars are scaled so both have the same weekly total, which
        keeps their shape comparable."""
        self._offset = local_utc_offset(now) if utc_offset_s is None else utc_offset_s
        self._lam = to_local_slots([max(0.0, float(v)) for v in lambda_week], self._offset)
        obs = to_local_slots([max(0.0, float(v)) for v in observed_week], self._offset)
        self._obs = obs if any(obs) else []
        if self._obs:
            if observed_weeks and observed_weeks > 0:
                self._obs_scale = 1.0 / observed_weeks
            else:
                total_obs = sum(self._obs)
                total_lam = sum(self._lam)
                self._obs_scale = total_lam / total_obs if total_lam > 0 else 1.0
        self._now = now if now is not None else time.time()
        self._planned = [float(t) for t in planned]
        self._plan_until = plan_until
        self.update()

    def clear(self) -> None:
        self._lam, self._obs, self._planned = [], [], []
        self._plan_until = None
        self.update()

    # What is drawn, for tests and tooltips.
    def curve_points(self) -> list[tuple[float, float]]:
        """(local hour-of-week at slot centre, λ items/hour)."""
        return [(i + 0.5, v) for i, v in enumerate(self._lam)]

    def bar_values(self) -> list[float]:
        """Observed bars in items/hour, per local slot."""
        return [v * self._obs_scale for v in self._obs]

    def planned_positions(self) -> list[float]:
        """Local hours-of-week of the planned fetches within the coming week."""
        now = self._now if self._now is not None else time.time()
        return [
            week_position_h(t, self._offset)
            for t in self._planned
            if now - 60 <= t < now + 7 * 86400
        ]

    def unplanned_span(self) -> tuple[float, float] | None:
        """(local hour-of-week where the shown plan ends, hours to the end of the
        coming week), or None when the plan covers the week."""
        if self._plan_until is None or self._now is None:
            return None
        left = self._now + 7 * 86400 - max(self._plan_until, self._now)
        if left < 3600:
            return None
        return week_position_h(max(self._plan_until, self._now), self._offset), left / 3600

    def plan_label(self) -> str | None:
        """What the shading past the plan says, or None when there is none."""
        if self.unplanned_span() is None or self._plan_until is None or self._now is None:
            return None
        shown = max(0.0, self._plan_until - self._now)
        if shown < 3600:
            return "plan shown for the next hour"
        return f"plan shown for the next {humanize_duration(round(shown / 3600) * 3600)}"

    @property
    def utc_offset_s(self) -> float:
        return self._offset

    def has_data(self) -> bool:
        return len(self._lam) == HOURS_PER_WEEK and any(v > 0 for v in self._lam)

    def paintEvent(self, event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        c = self._colors()
        self._paint_background(p, c)
        if not self.has_data():
            self._paint_empty(p, c)
            p.end()
            return
        small = self._small_font()
        p.setFont(small)
        fm = QFontMetricsF(small)
        bars = self.bar_values()
        vmax = max([*self._lam, *bars, 1e-9])
        ticks = nice_ticks(vmax * 1.05)
        ymax = ticks[-1]
        label_w = max(fm.horizontalAdvance(_fmt_tick(t)) for t in ticks)
        line_h = fm.height()
        left = 10 + label_w + 6
        right = self.width() - 12
        legend = self._legend_rows(fm, bool(bars), right - left)
        top = 10 + line_h * len(legend) + 8
        # Hour labels (06 12 18) get their own row when a day is wide enough.
        hour_w = fm.horizontalAdvance("00") + 6
        hour_labels = (right - left) / 7 >= 4 * hour_w + fm.horizontalAdvance("Mon")
        bottom = self.height() - (line_h * (3 if hour_labels else 2) + 12)
        plot = QRectF(QPointF(left, top), QPointF(right, bottom))
        self._plot = plot
        if plot.width() < 50 or plot.height() < 30:
            p.end()
            return

        def x_of(h: float) -> float:
            return plot.left() + plot.width() * h / HOURS_PER_WEEK

        def y_of(v: float) -> float:
            return plot.bottom() - plot.height() * v / ymax

        # Grid: day boundaries (solid), 12:00 (faint), value ticks.
        for d in range(8):
            p.setPen(QPen(c["grid"] if 0 < d < 7 else c["axis"], 1))
            p.drawLine(QPointF(x_of(d * 24), plot.top()), QPointF(x_of(d * 24), plot.bottom()))
        p.setPen(QPen(c["grid"], 1, Qt.PenStyle.DotLine))
        for d in range(7):
            p.drawLine(
                QPointF(x_of(d * 24 + 12), plot.top()), QPointF(x_of(d * 24 + 12), plot.bottom())
            )
        for t in ticks:
            y = y_of(t)
            p.setPen(QPen(c["grid"], 1))
            if t > 0:
                p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            p.setPen(c["muted"])
            p.drawText(
                QRectF(4, y - line_h / 2, label_w + 6, line_h),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                _fmt_tick(t),
            )

        # Past the shown plan: shaded, so the missing marks there are not read as
        # "no fetches planned".
        span = self.unplanned_span()
        if span is not None:
            start, hours = span
            shade = QColor(c["text"])
            shade.setAlphaF(0.05)
            end = start + hours
            for a, b in ((start, min(end, HOURS_PER_WEEK)), (0.0, end - HOURS_PER_WEEK)):
                if b > a:
                    p.fillRect(QRectF(x_of(a), plot.top(), x_of(b) - x_of(a), plot.height()), shade)
            label = self.plan_label() or ""
            room = plot.width() * min(hours, HOURS_PER_WEEK - start) / HOURS_PER_WEEK
            lx = x_of(start) + 4
            if room < fm.horizontalAdvance(label) + 8 and hours > HOURS_PER_WEEK - start:
                lx = plot.left() + 4  # no room before the week's end: after the wrap
                room = plot.width() * (end - HOURS_PER_WEEK) / HOURS_PER_WEEK
            if room >= fm.horizontalAdvance(label) + 8:
                p.setPen(c["muted"])
                p.drawText(QPointF(lx, plot.top() + fm.ascent() + 2), label)

        # Observed bars.
        if bars:
            bw = plot.width() / HOURS_PER_WEEK
            for i, v in enumerate(bars):
                if v <= 0:
                    continue
                r = QRectF(x_of(i) + bw * 0.12, y_of(v), bw * 0.76, plot.bottom() - y_of(v))
                p.fillRect(r, c["bars"])

        # λ(t): filled area + line through slot centres, wrapping at the week's ends.
        series = c["series"]
        pts = [QPointF(x_of(0), y_of((self._lam[0] + self._lam[-1]) / 2))]
        pts += [QPointF(x_of(h), y_of(v)) for h, v in self.curve_points()]
        pts.append(QPointF(x_of(HOURS_PER_WEEK), pts[0].y()))
        area = QPainterPath(QPointF(plot.left(), plot.bottom()))
        for pt in pts:
            area.lineTo(pt)
        area.lineTo(QPointF(plot.right(), plot.bottom()))
        area.closeSubpath()
        fill = QColor(series)
        fill.setAlphaF(0.16)
        p.fillPath(area, fill)
        p.setPen(QPen(series, 2.0, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        p.drawPolyline(QPolygonF(pts))

        # Now line.
        if self._now is not None:
            xn = x_of(week_position_h(self._now, self._offset))
            p.setPen(QPen(c["now"], 1.5, Qt.PenStyle.DashLine))
            p.drawLine(QPointF(xn, plot.top()), QPointF(xn, plot.bottom()))

        # Planned fetches: a tick up from the axis and a triangle under it.
        plan_color = c["plan"]
        for h in self.planned_positions():
            x = x_of(h)
            p.setPen(QPen(plan_color, 1.2))
            p.drawLine(QPointF(x, plot.bottom() - 7), QPointF(x, plot.bottom()))
            tri = QPolygonF(
                [
                    QPointF(x, plot.bottom() + 1),
                    QPointF(x - 4.5, plot.bottom() + 8),
                    QPointF(x + 4.5, plot.bottom() + 8),
                ]
            )
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(plan_color)
            p.drawPolygon(tri)
        p.setBrush(Qt.BrushStyle.NoBrush)

        # Hour ticks (06, 12, 18) under the axis, labelled when there is room.
        p.setPen(QPen(c["axis"], 1))
        for d in range(7):
            for hh in (6, 12, 18):
                x = x_of(d * 24 + hh)
                p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3))
        row = plot.bottom() + 9
        if hour_labels:
            p.setPen(c["muted"])
            for d in range(7):
                for hh in (6, 12, 18):
                    x = x_of(d * 24 + hh)
                    p.drawText(
                        QRectF(x - hour_w / 2, row, hour_w, line_h),
                        Qt.AlignmentFlag.AlignCenter,
                        f"{hh:02d}",
                    )
            row += line_h

        # Day labels (centred under each day) and a time-zone note.
        p.setPen(c["text"])
        for d, name in enumerate(DAY_NAMES):
            p.drawText(
                QRectF(x_of(d * 24), row, x_of(24) - x_of(0), line_h),
                Qt.AlignmentFlag.AlignCenter,
                name,
            )
        p.setPen(c["muted"])
        p.drawText(
            QRectF(plot.left(), row + line_h, plot.width(), line_h),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            f"local time ({format_utc_offset(self._offset)})",
        )
        p.drawText(
            QRectF(plot.left(), row + line_h, plot.width(), line_h),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            "↑ items / hour",  # the arrow: the vertical axis's unit, not the row's
        )

        # Legend.
        self._paint_legend(p, c, fm, QPointF(plot.left(), 8), line_h, legend)
        p.end()

    # Legend entries: (key, text, width of the key's symbol and its gap).
    _LEGEND = (
        ("series", "expected rate λ(t)", 21),
        ("bars", "observed (avg per week)", 15),
        ("plan", "planned fetch", 15),
        ("now", "now", 11),
    )

    def _legend_rows(
        self, fm: QFontMetricsF, with_bars: bool, width: float
    ) -> list[list[tuple[str, str, float]]]:
        """The legend's entries, wrapped into as many rows as ``width`` needs."""
        rows: list[list[tuple[str, str, float]]] = [[]]
        x = 0.0
        for key, text, symbol in self._LEGEND:
            if (key == "bars" and not with_bars) or (key == "plan" and not self._planned):
                continue
            w = symbol + fm.horizontalAdvance(text)
            if rows[-1] and x + w > width:
                rows.append([])
                x = 0.0
            rows[-1].append((key, text, symbol))
            x += w + 16
        return rows

    def _paint_legend(
        self,
        p: QPainter,
        c: dict[str, QColor],
        fm: QFontMetricsF,
        origin: QPointF,
        line_h: float,
        rows: list[list[tuple[str, str, float]]],
    ) -> None:
        for r, row in enumerate(rows):
            x = origin.x()
            y = origin.y() + r * line_h
            mid = y + line_h / 2
            for key, text, symbol in row:
                if key == "series":
                    p.setPen(QPen(c["series"], 2.0))
                    p.drawLine(QPointF(x, mid), QPointF(x + 16, mid))
                elif key == "bars":
                    p.fillRect(QRectF(x, mid - 5, 10, 10), c["bars"])
                elif key == "plan":
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(c["plan"])
                    tri = [QPointF(x + 5, mid - 5), QPointF(x, mid + 4), QPointF(x + 10, mid + 4)]
                    p.drawPolygon(QPolygonF(tri))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                else:
                    p.setPen(QPen(c["now"], 1.5, Qt.PenStyle.DashLine))
                    p.drawLine(QPointF(x + 4, y + 1), QPointF(x + 4, y + line_h - 1))
                x += symbol
                p.setPen(c["text"])
                p.drawText(QPointF(x, y + fm.ascent()), text)
                x += fm.horizontalAdvance(text) + 16

    def event(self, e: object) -> bool:
        if isinstance(e, QHelpEvent) and e.type() == QHelpEvent.Type.ToolTip:
            text = self._tooltip_at(e.position())
            if text:
                QToolTip.showText(e.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(e)  # type: ignore[arg-type]

    def _tooltip_at(self, pos: QPointF) -> str | None:
        if not self.has_data() or not self._plot.contains(pos):
            return None
        h = int((pos.x() - self._plot.left()) / self._plot.width() * HOURS_PER_WEEK)
        h = min(HOURS_PER_WEEK - 1, max(0, h))
        day, hour = divmod(h, 24)
        text = f"{DAY_NAMES[day]} {hour:02d}:00–{(hour + 1) % 24:02d}:00\nλ = {self._lam[h]:.2f} /h"
        bars = self.bar_values()
        if bars:
            text += f"\nobserved ≈ {bars[h]:.2f} /h"
        span = self.unplanned_span()
        if span is not None and (h + 0.5 - span[0]) % HOURS_PER_WEEK < span[1]:
            text += f"\n({self.plan_label()}; none marked here)"
        return text


class DelayBudgetChart(_Chart):
    """Expected mean delay vs requests per day: smart polling and a fixed interval.

    ``set_points(budgets, smart_s, fixed_s, current)``; the budget axis is
    logarithmic so 20 requests/day and 5000 fit on one small chart."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty_text = "Subscribe to feeds to see the effect of the budget"
        self._b: list[float] = []
        self._smart: list[float] = []
        self._fixed: list[float] = []
        self._current: float | None = None
        self.setMinimumSize(300, 150)

    def sizeHint(self) -> QSize:
        return QSize(440, 190)

    def set_points(
        self,
        budgets: Sequence[float],
        smart_s: Sequence[float],
        fixed_s: Sequence[float],
        current: float | None = None,
    ) -> None:
        rows = [
            (float(b), float(s), float(f))
            for b, s, f in zip(budgets, smart_s, fixed_s, strict=False)
            if b > 0 and math.isfinite(s) and math.isfinite(f)
        ]
        rows.sort()
        self._b = [r[0] for r in rows]
        self._smart = [r[1] for r in rows]
        self._fixed = [r[2] for r in rows]
        self._current = current
        self.update()

    def set_current(self, current: float | None) -> None:
        self._current = current
        self.update()

    def series(self) -> tuple[list[float], list[float], list[float]]:
        return list(self._b), list(self._smart), list(self._fixed)

    def paintEvent(self, event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        c = self._colors()
        self._paint_background(p, c)
        if len(self._b) < 2 or self._b[0] == self._b[-1]:
            self._paint_empty(p, c)
            p.end()
            return
        small = self._small_font()
        p.setFont(small)
        fm = QFontMetricsF(small)
        line_h = fm.height()
        # Both axes logarithmic: delay falls roughly as 1/budget, a straight line here.
        vals = [v for v in (*self._smart, *self._fixed) if v > 0]
        vlo = math.log10(max(1.0, min(vals) / 1.3)) if vals else 0.0
        vhi = math.log10(max(vals) * 1.3) if vals else 1.0
        if vhi - vlo < 0.5:
            vhi = vlo + 0.5
        yt = [d for d in _DURATION_TICKS if vlo <= math.log10(d) <= vhi]
        while len(yt) > 5:
            yt = yt[::2]
        labels = [humanize_duration(d) for d in yt]
        label_w = max([fm.horizontalAdvance(t) for t in labels] or [20.0])
        plot = QRectF(
            QPointF(10 + label_w + 6, 10 + line_h + 6),
            QPointF(self.width() - 14, self.height() - (2 * line_h + 10)),
        )
        if plot.width() < 50 or plot.height() < 30:
            p.end()
            return
        lo, hi = math.log10(self._b[0]), math.log10(self._b[-1])

        def x_of(b: float) -> float:
            return plot.left() + plot.width() * (math.log10(b) - lo) / (hi - lo)

        def y_of(v: float) -> float:
            lv = math.log10(max(v, 1e-3))
            lv = min(vhi, max(vlo, lv))
            return plot.bottom() - plot.height() * (lv - vlo) / (vhi - vlo)

        p.setPen(QPen(c["axis"], 1))
        p.drawLine(plot.bottomLeft(), plot.bottomRight())
        for d, text in zip(yt, labels, strict=True):
            y = y_of(d)
            p.setPen(QPen(c["grid"], 1))
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            p.setPen(c["muted"])
            p.drawText(
                QRectF(4, y - line_h / 2, label_w + 6, line_h),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
        # Round budget ticks within range: 1, 2, 5 × 10^k.
        xt = [
            m * 10**k
            for k in range(math.floor(lo), math.ceil(hi) + 1)
            for m in (1, 2, 5)
            if self._b[0] <= m * 10**k <= self._b[-1]
        ]
        for b in xt:
            x = x_of(b)
            p.setPen(QPen(c["grid"], 1))
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            p.setPen(c["muted"])
            # centred on the tick, kept inside the widget (the last one was cut)
            left = min(max(x - 30, 0.0), self.width() - 66.0)  # off the frame
            p.drawText(
                QRectF(left, plot.bottom() + 3, 60, line_h),
                Qt.AlignmentFlag.AlignCenter if left == x - 30 else Qt.AlignmentFlag.AlignRight,
                f"{b:g}",
            )
        p.setPen(c["muted"])
        p.drawText(
            QRectF(plot.left(), plot.bottom() + 3 + line_h, plot.width(), line_h),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            "requests per day →",
        )
        p.drawText(
            QRectF(plot.left(), plot.bottom() + 3 + line_h, plot.width(), line_h),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            "↑ mean delay (log scale)",  # the vertical axis's, not the row's
        )

        def line(values: list[float], pen: QPen) -> None:
            p.setPen(pen)
            p.drawPolyline(
                QPolygonF([QPointF(x_of(b), y_of(v)) for b, v in zip(self._b, values, strict=True)])
            )

        line(self._fixed, QPen(c["fixed"], 1.6, Qt.PenStyle.DashLine))
        line(self._smart, QPen(c["series"], 2.2))

        if self._current is not None and self._b[0] <= self._current <= self._b[-1]:
            x = x_of(self._current)
            p.setPen(QPen(c["plan"], 1.5))
            p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            for values, color in ((self._fixed, c["fixed"]), (self._smart, c["series"])):
                v = _interp_log(self._b, values, self._current)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(color)
                p.drawEllipse(QPointF(x, y_of(v)), 3.5, 3.5)
            p.setBrush(Qt.BrushStyle.NoBrush)

        # Legend.
        x, y = plot.left(), 6.0
        mid = y + line_h / 2
        for text, pen in (
            ("smart polling", QPen(c["series"], 2.2)),
            ("fixed interval", QPen(c["fixed"], 1.6, Qt.PenStyle.DashLine)),
        ):
            p.setPen(pen)
            p.drawLine(QPointF(x, mid), QPointF(x + 18, mid))
            x += 23
            p.setPen(c["text"])
            p.drawText(QPointF(x, y + fm.ascent()), text)
            x += fm.horizontalAdvance(text) + 16
        p.end()


_DURATION_TICKS = (
    10, 30, 60, 120, 300, 600, 1800, 3600, 2 * 3600, 6 * 3600, 12 * 3600,
    86400, 2 * 86400, 7 * 86400, 30 * 86400,
)  # fmt: skip


def _interp_log(xs: list[float], ys: list[float], x: float) -> float:
    for i in range(1, len(xs)):
        if xs[i] >= x:
            x0, x1 = math.log10(xs[i - 1]), math.log10(xs[i])
            t = 0.0 if x1 == x0 else (math.log10(x) - x0) / (x1 - x0)
            return ys[i - 1] + (ys[i] - ys[i - 1]) * t
    return ys[-1]


class WeekHeatmap(_Chart):
    """Weekday × hour-of-day grid, darker/brighter where more is posted.

    ``set_values`` takes 168 UTC slots (index 0 = Monday 00:00 UTC) and shows
    them in local time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.empty_text = "No posting history yet"
        self._v: list[float] = []
        self._offset = local_utc_offset()
        self._grid = QRectF()
        self.unit = "items"
        self.setMinimumSize(240, 150)

    def sizeHint(self) -> QSize:
        return QSize(640, 200)

    def set_values(
        self, values: Sequence[float], *, utc_offset_s: float | None = None, unit: str = "items"
    ) -> None:
        self._offset = local_utc_offset() if utc_offset_s is None else utc_offset_s
        self._v = to_local_slots([max(0.0, float(v)) for v in values], self._offset)
        self.unit = unit
        self.update()

    def values(self) -> list[float]:
        return list(self._v)

    def paintEvent(self, event: object) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        c = self._colors()
        self._paint_background(p, c)
        if len(self._v) != HOURS_PER_WEEK or not any(self._v):
            self._paint_empty(p, c)
            p.end()
            return
        small = self._small_font()
        p.setFont(small)
        fm = QFontMetricsF(small)
        line_h = fm.height()
        label_w = max(fm.horizontalAdvance(d) for d in DAY_NAMES) + 8
        grid = QRectF(
            QPointF(10 + label_w, 10),
            QPointF(self.width() - 12, self.height() - (2 * line_h + 12)),
        )
        self._grid = grid
        if grid.width() < 48 or grid.height() < 28:
            p.end()
            return
        cw, ch = grid.width() / 24, grid.height() / 7
        vmax = max(self._v)
        hot = c["series"]
        cold = blend(c["base"], c["text"], 0.05)
        for d in range(7):
            p.setPen(c["text"])
            p.drawText(
                QRectF(4, grid.top() + d * ch, label_w, ch),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                DAY_NAMES[d],
            )
            for h in range(24):
                v = self._v[d * 24 + h]
                t = math.sqrt(v / vmax) if vmax > 0 else 0.0  # √ so quiet hours show
                r = QRectF(grid.left() + h * cw, grid.top() + d * ch, cw, ch).adjusted(1, 1, -1, -1)
                p.fillRect(r, blend(cold, hot, t))
        p.setPen(c["muted"])
        for h in range(0, 24, 3):
            p.drawText(
                QRectF(grid.left() + h * cw - 10, grid.bottom() + 3, cw + 20, line_h),
                Qt.AlignmentFlag.AlignCenter,
                f"{h:02d}",
            )
        p.drawText(
            # Right-aligned under the grid, free to run left under the day names
            # when a narrow grid is shorter than the text.
            QRectF(4, grid.bottom() + 5 + line_h, grid.right() - 4, line_h),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            f"hour of day, local time ({format_utc_offset(self._offset)})",
        )
        p.end()

    def event(self, e: object) -> bool:
        if isinstance(e, QHelpEvent) and e.type() == QHelpEvent.Type.ToolTip:
            g = self._grid
            pos = e.position()
            if len(self._v) == HOURS_PER_WEEK and g.contains(pos):
                h = min(23, int((pos.x() - g.left()) / g.width() * 24))
                d = min(6, int((pos.y() - g.top()) / g.height() * 7))
                v = self._v[d * 24 + h]
                QToolTip.showText(
                    e.globalPos(), f"{DAY_NAMES[d]} {h:02d}:00  —  {v:.1f} {self.unit}", self
                )
            else:
                QToolTip.hideText()
            return True
        return super().event(e)  # type: ignore[arg-type]
