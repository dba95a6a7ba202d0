"""Feed icons: where to look, what to accept, where to keep them.

Icons are cached as files next to the database (``icons/<feed id>.<ext>``), not in
it: they are disposable and the GUI loads them straight from disk. Only raster
formats whose magic bytes we recognise are kept (no SVG: it can reference other
resources), at most ``MAX_ICON_BYTES``; a failed lookup leaves a ``.none`` marker
so a feed without an icon costs one request a week, not one per fetch.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import urlsplit

from smartreader.net.sanitize import safe_url

MAX_ICON_BYTES = 256 * 1024
RETRY_AFTER = 7 * 86_400.0  # look again for a missing or stale icon after a week
_EXTS = ("png", "ico", "gif", "jpg", "webp")


def sniff_image(data: bytes) -> str | None:
    """The file extension for a recognised raster image, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data[:4] in (b"\x00\x00\x01\x00", b"\x00\x00\x02\x00"):
        return "ico"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:3] == b"\xff\xd8\xff":
        return "jpg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def icon_candidates(feed_url: str, site_link: str | None, icon_url: str | None) -> list[str]:
    """``/favicon.ico`` of the site (small, square, made for this), then the feed's
    own image (often a large logo), then ``/favicon.ico`` of the feed's host."""
    out: list[str] = []
    for base in (site_link, feed_url):
        if base:
            parts = urlsplit(base)
            if parts.scheme in ("http", "https") and parts.netloc:
                out.append(f"{parts.scheme}://{parts.netloc}/favicon.ico")
        if base is site_link and icon_url:
            safe = safe_url(icon_url)
            if safe and safe.startswith(("http://", "https://")):
                out.append(safe)
    return list(dict.fromkeys(out))  # in order, without repeats


def icons_dir(db_path: str | os.PathLike[str]) -> Path:
    return Path(db_path).parent / "icons"


def icon_path(folder: Path, feed_id: int) -> Path | None:
    """The cached icon of a feed, if there is one."""
    for ext in _EXTS:
        p = folder / f"{feed_id}.{ext}"
        if p.is_file():
            return p
    return None


def icon_due(folder: Path, feed_id: int, now: float | None = None) -> bool:
    """Whether to look for this feed's icon now (none yet, or the last look is old)."""
    now = time.time() if now is None else now
    found = icon_path(folder, feed_id)
    marker = found or folder / f"{feed_id}.none"
    try:
        return now - marker.stat().st_mtime >= RETRY_AFTER
    except OSError:
        return True


def save_icon(folder: Path, feed_id: int, data: bytes | None) -> Path | None:
    """Keep a valid icon (atomically, replacing any older one) or mark it missing."""
    folder.mkdir(parents=True, exist_ok=True)
    ext = sniff_image(data) if data and len(data) <= MAX_ICON_BYTES else None
    for old in folder.glob(f"{feed_id}.*"):
        if ext is None or old.suffix != f".{ext}":
            old.unlink(missing_ok=True)
    if ext is None:
        (folder / f"{feed_id}.none").touch()
        return None
    assert data is not None
    dest = folder / f"{feed_id}.{ext}"
    tmp = folder / f".{feed_id}.{ext}.partial"
    tmp.write_bytes(data)
    os.replace(tmp, dest)
    return dest


def forget_icon(folder: Path, feed_id: int) -> None:
    for old in folder.glob(f"{feed_id}.*"):
        old.unlink(missing_ok=True)
