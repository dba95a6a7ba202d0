"""Layering rules that keep the domain testable without a display."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "smartreader"
QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _files(*parts: str) -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if p.relative_to(PKG).parts[0] in parts)


def test_qt_only_under_gui():
    offenders = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "gui" or rel.as_posix() == "app.py":
            continue
        bad = {m for m in _imports(path) if m.split(".")[0] in QT_MODULES}
        if bad:
            offenders.append(f"{rel}: {sorted(bad)}")
    assert not offenders, "Qt imported outside gui/: " + "; ".join(offenders)


def test_core_does_no_io():
    forbidden = {"sqlite3", "httpx", "socket", "smartreader.storage", "smartreader.net"}
    offenders = []
    for path in _files("core"):
        bad = {m for m in _imports(path) if any(m == f or m.startswith(f + ".") for f in forbidden)}
        if bad:
            offenders.append(f"{path.name}: {sorted(bad)}")
    assert not offenders, "core/ must stay pure: " + "; ".join(offenders)


def test_storage_and_net_do_not_import_gui():
    for path in _files("storage", "net", "core", "sim"):
        assert not any(m.startswith("smartreader.gui") for m in _imports(path)), path


def test_the_store_loads_without_numpy():
    """CLI commands that only read the store (`feeds`, `entries`, `export`) must
    not pay for importing numpy, which the scheduler's modules bring."""
    import subprocess
    import sys

    code = "import sys, smartreader.storage.store; print('numpy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PKG.parent
    )
    assert out.stdout.strip() == "False"
