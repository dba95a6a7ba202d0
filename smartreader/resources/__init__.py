"""Files shipped with smartreader (icons, demo data), found the same way everywhere.

Works from a source checkout, an installed wheel and a PyInstaller bundle (where
data files live under ``sys._MEIPASS``). No Qt here: the GUI turns these paths into
``QIcon``s (see ``smartreader.gui.app``).

    from smartreader import resources
    resources.icon_path()        # the scalable SVG
    resources.icon_path(48)      # a 48 px PNG
    resources.read_bytes("demo", "feeds.json")
"""

from __future__ import annotations

import atexit
import contextlib
import sys
from importlib import resources as _ir
from pathlib import Path

APP_ID = "io.github.smartreader.SmartReader"
ICON_SIZES = (16, 32, 48, 64, 128, 256)
ICON_SVG = "smartreader.svg"

_dir: Path | None = None


def resource_dir() -> Path:
    """The folder holding the resources, as a real directory on disk."""
    global _dir
    if _dir is not None:
        return _dir
    meipass = getattr(sys, "_MEIPASS", None)
    candidate = Path(meipass) / "smartreader" / "resources" if meipass else None
    if candidate is not None and (candidate / "icons").is_dir():
        _dir = candidate
        return _dir
    root = _ir.files(__name__)
    if isinstance(root, Path):
        _dir = root
    else:  # pragma: no cover - zipped package: extract once for the process
        stack = contextlib.ExitStack()
        atexit.register(stack.close)
        _dir = Path(stack.enter_context(_ir.as_file(root)))
    return _dir


def path(*parts: str) -> Path:
    """The path of one resource, e.g. ``path("icons", "smartreader.svg")``.

    Raises ``FileNotFoundError`` when it is not there (a broken install or bundle).
    """
    p = resource_dir().joinpath(*parts)
    if not p.exists():
        raise FileNotFoundError(f"smartreader resource missing: {'/'.join(parts)} (in {p.parent})")
    return p


def read_bytes(*parts: str) -> bytes:
    return path(*parts).read_bytes()


def icon_path(size: int | None = None) -> Path:
    """The application icon: the SVG, or the PNG of ``size`` pixels (one of ``ICON_SIZES``)."""
    if size is None:
        return path("icons", ICON_SVG)
    if size not in ICON_SIZES:
        raise ValueError(f"no {size}px icon; sizes are {ICON_SIZES}")
    return path("icons", f"smartreader-{size}.png")


def icon_paths() -> dict[int, Path]:
    """Every PNG size of the application icon, smallest first."""
    return {s: icon_path(s) for s in ICON_SIZES}


__all__ = [
    "APP_ID",
    "ICON_SIZES",
    "icon_path",
    "icon_paths",
    "path",
    "read_bytes",
    "resource_dir",
]
