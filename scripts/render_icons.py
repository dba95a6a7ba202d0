"""Render the application icon's PNGs (and the Windows/macOS icon files) from the SVG.

    python scripts/render_icons.py

Reads ``smartreader/resources/icons/smartreader.svg`` and writes, with Qt's
``QSvgRenderer`` (offscreen, no display needed):

* ``smartreader/resources/icons/smartreader-{16,32,48,64,128,256}.png``
* ``packaging/icons/smartreader.ico`` (Windows: every size, PNG-compressed entries)
* ``packaging/icons/smartreader.icns`` (macOS: 16–256 as PNG entries)

The PNGs are committed, so nobody needs to run this unless the SVG changes.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "smartreader" / "resources" / "icons" / "smartreader.svg"
PNG_DIR = SVG.parent
PACKAGING_ICONS = ROOT / "packaging" / "icons"
SIZES = (16, 32, 48, 64, 128, 256)
# macOS icns types that hold PNG data, by pixel size.
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08"}


def render_png(renderer: QSvgRenderer, size: int) -> bytes:
    img = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(p, QRectF(0, 0, size, size))
    p.end()
    ba = QByteArray()
    buf = QBuffer(ba)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG"):  # type: ignore[call-overload]  # stubs say bytes; str works
        raise RuntimeError(f"cannot encode the {size}px PNG")
    buf.close()
    return bytes(ba.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico whose entries are PNGs (supported since Windows Vista)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    entries, data = b"", b""
    for s in sizes:
        png = pngs[s]
        dim = 0 if s >= 256 else s  # 0 means 256
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset + len(data))
        data += png
    return header + entries + data


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    body = b"".join(
        ICNS_TYPES[s] + struct.pack(">I", 8 + len(pngs[s])) + pngs[s]
        for s in sorted(pngs)
        if s in ICNS_TYPES
    )
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"cannot read {SVG}", file=sys.stderr)
        return 1
    pngs = {s: render_png(renderer, s) for s in SIZES}
    for s, png in pngs.items():
        (PNG_DIR / f"smartreader-{s}.png").write_bytes(png)
    PACKAGING_ICONS.mkdir(parents=True, exist_ok=True)
    (PACKAGING_ICONS / "smartreader.ico").write_bytes(ico_bytes(pngs))
    (PACKAGING_ICONS / "smartreader.icns").write_bytes(icns_bytes(pngs))
    print(
        f"wrote {len(pngs)} PNGs to {PNG_DIR.relative_to(ROOT)}, .ico and .icns to "
        f"{PACKAGING_ICONS.relative_to(ROOT)}"
    )
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
