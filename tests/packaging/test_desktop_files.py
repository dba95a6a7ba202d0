"""The Linux desktop integration files: valid under Debian's tools, and consistent.

``desktop-file-validate`` (package desktop-file-utils) and ``appstreamcli``
(package appstream) are installed by .ci/run; without them those two tests skip
and say which package to install. The consistency checks need no tools.
"""

from __future__ import annotations

import configparser
import json
import shutil
import struct
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from smartreader import __version__, resources

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.smartreader.SmartReader"
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
FLATPAK = ROOT / "packaging" / "flatpak" / f"{APP_ID}.json"


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (Debian package {package}; .ci/run installs it)")
    return path


def test_desktop_file_validates():
    tool = _tool("desktop-file-validate", "desktop-file-utils")
    r = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True, timeout=60)
    out = (r.stdout + r.stderr).strip()
    assert r.returncode == 0 and not out, out


def test_metainfo_validates():
    tool = _tool("appstreamcli", "appstream")
    r = subprocess.run(
        [tool, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True, timeout=60
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    # Errors and warnings fail; infos (e.g. an older appstream not knowing a newer tag) may not.
    assert not any(line.startswith(("E:", "W:")) for line in out.splitlines()), out


def _desktop_entry() -> configparser.SectionProxy:
    cp = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    cp.optionxform = str  # type: ignore[assignment,method-assign]
    cp.read(DESKTOP, encoding="utf-8")
    return cp["Desktop Entry"]


def test_ids_icon_and_command_agree():
    assert resources.APP_ID == APP_ID
    entry = _desktop_entry()
    assert entry["Icon"] == APP_ID
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    command = entry["Exec"].split()[0]
    assert command in pyproject["project"]["scripts"], "Exec runs the installed command"
    assert "smartreader-gui" in pyproject["project"]["gui-scripts"]

    meta = ET.parse(METAINFO).getroot()
    assert meta.findtext("id") == APP_ID
    assert meta.findtext("launchable") == DESKTOP.name
    assert meta.findtext("icon") == APP_ID
    assert meta.findtext("project_license") == pyproject["project"]["license"]
    assert meta.find("releases/release").get("version") == __version__  # type: ignore[union-attr]
    assert command in [b.text for b in meta.iterfind("provides/binary")]

    manifest = json.loads(FLATPAK.read_text(encoding="utf-8"))
    assert manifest["id"] == APP_ID
    assert manifest["command"] == command
    installs = " ".join(" ".join(m.get("build-commands", [])) for m in manifest["modules"])
    for f in (DESKTOP, METAINFO):
        assert str(f.relative_to(ROOT)) in installs
    assert f"/app/share/applications/{DESKTOP.name}" in installs
    assert f"/app/share/metainfo/{METAINFO.name}" in installs
    assert f"apps/{APP_ID}.svg" in installs and f"apps/{APP_ID}.png" in installs


def test_the_flatpak_installs_every_dependency_as_pyproject_pins_it():
    # its modules install dependencies by an explicit list (--no-deps for ours):
    # a dependency added to pyproject only was missing from the Flatpak
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    manifest = json.loads(FLATPAK.read_text(encoding="utf-8"))
    installs = " ".join(" ".join(m.get("build-commands", [])) for m in manifest["modules"])
    for dep in pyproject["project"]["dependencies"]:
        if dep.startswith("PySide6"):
            continue  # from the PySide BaseApp
        assert f"'{dep}'" in installs, f"the Flatpak does not install {dep}"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", data[16:24])
    return w, h


def test_icon_files_exist_at_every_size():
    svg = ET.parse(resources.icon_path()).getroot()
    assert svg.tag.endswith("svg") and svg.get("viewBox") == "0 0 256 256"
    for size, path in resources.icon_paths().items():
        assert _png_size(path.read_bytes()) == (size, size), path
    with pytest.raises(ValueError):
        resources.icon_path(17)
    with pytest.raises(FileNotFoundError):
        resources.path("icons", "nope.png")
    assert resources.read_bytes("demo", "feeds.json").lstrip().startswith((b"[", b"{"))
    # Windows and macOS icon files for the PyInstaller spec.
    ico = (ROOT / "packaging" / "icons" / "smartreader.ico").read_bytes()
    assert struct.unpack("<HHH", ico[:6]) == (0, 1, len(resources.ICON_SIZES))
    icns = (ROOT / "packaging" / "icons" / "smartreader.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
