"""`text.keep_units`: a number keeps its unit on its line in wrapped labels."""

from __future__ import annotations

import pytest

from smartreader.text import NBSP, keep_units


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
