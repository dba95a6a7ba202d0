"""Item identity where a feed's own ids do not tell its items apart.

Some feeds give every item the same guid (the site's address, a constant
string). Within one document such items are told apart by their link and title
(stable across fetches); the store does the same across documents when a feed
shows one item at a time under that id. Pure: the parser and the store share it.
"""

from __future__ import annotations

import hashlib


def told_apart(uid: str, link: str | None, title: str) -> str:
    """The id of one of several items that share ``uid``: ``uid`` and a hash of
    the item's link and title as written."""
    h = hashlib.sha256(f"{link or ''}\x1f{title}".encode("utf-8", "replace")).hexdigest()
    return f"{uid}#{h[:16]}"
