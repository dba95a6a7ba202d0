"""Property test of the permanent-redirect policy (reliability row 13, research §3.2)
over random sequences of fetch outcomes, against a real SQLite file.

Whatever the sequence of statuses, redirect targets and gaps between fetches:

* the stored URL changes only on a fetch that reached the new address (ok or
  not_modified with that target);
* a move needs ≥ REDIRECT_CONFIRMATIONS consecutive sightings of the target spanning
  ≥ REDIRECT_MIN_AGE, unless it is an http → https upgrade of the same address or
  the old address was gone (``redirect_adopt``);
* no two feeds ever share a URL, and a feed's history holds each old address once
  and never its current one.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from smartreader.storage.store import (
    REDIRECT_CONFIRMATIONS,
    REDIRECT_MIN_AGE,
    FetchRecord,
    Store,
    is_https_upgrade,
)

START = "http://site.example/feed"
OTHER = "https://other.example/feed"  # another subscribed feed's address
NEW = "https://new.example/feed"
# the main target most often, so that runs of sightings happen
TARGETS = [NEW, NEW, NEW, None, "https://new.example/feed2", OTHER, "upgrade"]
MOVED = ("ok", "not_modified")

step = st.tuples(
    # time since the previous fetch: minutes to days
    st.one_of(st.floats(0.0, 3 * 3600.0), st.floats(0.0, 4 * 86400.0)),
    st.sampled_from(["ok", "ok", "not_modified", "error", "rate_limited"]),
    st.sampled_from(TARGETS),
    # the old address was gone (404/410) and the target answered
    st.sampled_from([False] * 5 + [True]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(step, min_size=1, max_size=30))
def test_redirect_moves_follow_the_policy_for_any_sequence(steps: list) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "db.sqlite3")
        try:
            fid = store.add_feed(START)
            other = store.add_feed(OTHER)
            t = 0.0
            seen: list[tuple[float, str, str | None]] = []  # (time, status, target)
            for dt, status, target, adopt in steps:
                t += dt
                url = store.feed(fid).url
                if target == "upgrade":
                    target = url.replace("http://", "https://", 1)
                adopt = adopt and status in MOVED and target is not None
                out = store.record_fetch(
                    FetchRecord(fid, t, status, redirect_url=target, redirect_adopt=adopt)
                )
                seen.append((t, status, target))
                f = store.feed(fid)
                assert store.feed(other).url == OTHER
                assert f.url != OTHER
                assert f.url not in f.previous_urls
                assert len(set(f.previous_urls)) == len(f.previous_urls)
                if f.url == url:
                    assert out.moved_from is None
                    continue
                # it moved: to this fetch's target, on a fetch that reached it
                assert out.moved_from == url
                assert status in MOVED and f.url == target
                assert f.previous_urls[-1] == url
                if adopt or is_https_upgrade(url, target):
                    continue
                # consecutive sightings (errors do not interrupt them) over a week
                run = [s for s in seen if s[1] in MOVED]
                n = 0
                first = t
                for when, _st, tgt in reversed(run):
                    if tgt != target:
                        break
                    n += 1
                    first = when
                assert n >= REDIRECT_CONFIRMATIONS
                assert t - first >= REDIRECT_MIN_AGE
        finally:
            store.close()
