"""`text.keep_units`: a number keeps its unit on its line in wrapped labels."""

from __future__ import annotations

import pytest

from smartreader.text import NBSP, keep_units, size_text, with_kind


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("785 used in the last 24 h", "785 used in the last 24_h"),
        ("47 % shorter than a fixed interval", "47_% shorter than a fixed interval"),
        ("fetches/day · 14.0 % of 800", "fetches/day · 14.0_% of 800"),
        ("every 1 h 18 min", "every 1_h_18_min"),
        ("2 d 3 h, then 5 min 20 s", "2_d_3_h, then 5_min_20_s"),
        ("5.3 MB on disk", "5.3_MB on disk"),
        # words that merely start like a unit, and plain counts, may still break
        (
            "in 24 hours, 3 items at 10 hosts, 24 horses",
            "in 24 hours, 3 items at 10 hosts, 24 horses",
        ),
        ("version 2 minimum", "version 2 minimum"),
    ],
)
def test_numbers_keep_their_units(text: str, kept: str) -> None:
    assert keep_units(text) == kept.replace("_", NBSP)


@pytest.mark.parametrize(
    ("n", "text"),
    [(0, "0 B"), (1023, "1023 B"), (14746, "14.4 KiB"), (15 * 1024 * 1024, "15 MiB"),
     (1536 * 1024 * 1024, "1536 MiB")],
)  # fmt: skip
def test_sizes_read_as_people_write_them(n, text):
    """An oversized feed was refused as "more than 15728640 bytes"."""
    assert size_text(n) == text


@pytest.mark.parametrize(
    ("title", "kind", "shown"),
    [
        ("Posts", "Atom", "Posts (Atom)"),
        ("Posts (Atom)", "Atom", "Posts (Atom)"),  # was "Posts (Atom) (Atom)"
        ("Example RSS Feed", "RSS", "Example RSS Feed"),
        ("Comments Feed", "RSS", "Comments Feed (RSS)"),
        ("Atomic habits", "Atom", "Atomic habits (Atom)"),  # a word, not a prefix
        ("site » JSON Feed", "JSON Feed", "site » JSON Feed"),
    ],
)
def test_a_linked_feeds_kind_is_said_once(title, kind, shown):
    assert with_kind(title, kind) == shown
