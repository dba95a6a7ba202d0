"""Build a golden database with the smartreader on ``PYTHONPATH`` (an old release).

    git worktree add /tmp/v1 cc53d44^      # the last commit at schema v1
    PYTHONPATH=/tmp/v1 python tests/storage/golden/make.py tests/storage/golden/v1.sqlite3

The files were made this way from the last commit at each schema version:
v1 ``cc53d44^``, v2 ``3b71175^``, v3 ``bc2ccd3^``, v4 ``53fcf34``, v5 ``8f32116``,
v6 ``6f4c4e9``, v7 ``752ae24``, v8 ``7aea661``, v9 ``910cbca``, v10 ``2ee0d44``,
v11 ``0fa3da7``, v12 ``787e2c5``, v13 ``5b708c5``, v14 ``5a30411``, v15 ``7429dcd``.
``tests/storage/test_golden_upgrades.py`` opens copies with today's code. The
data is deterministic; what a user would lose in a bad migration is here:
folders, renamed feeds, priorities, a user name, an error, entries with
read/starred flags and odd titles, settings, an alert, the fetch log and
learned scheduler state. Only the constants below are
imported by the test, so keep them free of smartreader imports.
"""

from __future__ import annotations

import sys

T0 = 1_780_000_000.0
FEEDS = [  # url, folder, user_title, weight, auth_username
    ("https://news.example/feed.xml", "News", "Morning News", 2.0, None),
    ("https://dev.example/atom", "Dev » tools", None, 1.0, "ann"),
    ("https://quiet.example/rss", None, None, 0.5, None),
]
TITLES = ["Straße gesperrt", "ärger im Rat", "Zoo öffnet", "apple pie", "", "Ω-Meter", "zebra"]
N_ENTRIES = (21, 14, 0)  # per feed
SETTINGS = {"budget_per_day": 250.0, "min_interval": 1800.0, "prefer_new_content": True}
ERROR = "HTTP 503: the server is busy"


def title(feed: int, k: int) -> str:
    return f"{TITLES[k % len(TITLES)]} {feed}.{k}".strip()


def is_read(feed: int, k: int) -> bool:
    return k % 3 == 0


def is_starred(feed: int, k: int) -> bool:
    return k % 5 == 1


def main(out: str) -> None:
    from smartreader.core.models import ParsedEntry
    from smartreader.core.scheduler import Scheduler, SchedulerConfig
    from smartreader.storage.store import FetchRecord, Store

    store = Store(out)
    for key, value in SETTINGS.items():
        store.set_setting(key, value)
    sched = Scheduler(SchedulerConfig(), T0)
    ids = []
    for i, (url, folder, user_title, weight, user) in enumerate(FEEDS):
        fid = store.add_feed(url, folder=folder, now=T0)
        store.update_feed(fid, user_title=user_title, weight=weight, auth_username=user)
        sched.add_feed(fid, host=url.split("/")[2])
        ids.append(fid)
        entries = [
            ParsedEntry(f"u{i}-{k}", title(i, k), f"{url}#{k}", "Ann", T0 - 3600.0 * k, None,
                        f"<p>body {i}.{k}</p>", "", ())
            for k in range(N_ENTRIES[i])
        ]  # fmt: skip
        store.record_fetch(
            FetchRecord(fid, T0, "ok", http_status=200, entries=entries, feed_title=f"Feed {i}",
                        etag=f'"e{i}"', update_validators=True,
                        scheduler_state=sched.export_state(fid))
        )  # fmt: skip
    store.record_fetch(FetchRecord(ids[0], T0 + 600, "not_modified", http_status=304))
    store.record_fetch(
        FetchRecord(ids[1], T0 + 900, "ok", http_status=200, missed_estimate=2.0,
                    missed_from=T0 + 100, missed_to=T0 + 800)
    )  # fmt: skip
    store.record_fetch(FetchRecord(ids[2], T0 + 1200, "error", http_status=503, error=ERROR))
    for i, fid in enumerate(ids):
        rows = store.entry_ids(feed_ids=[fid], oldest_first=True)
        store.set_read([e for k, e in enumerate(reversed(rows)) if is_read(i, k)], True)
        store.set_starred([e for k, e in enumerate(reversed(rows)) if is_starred(i, k)], True)
    store.close()


if __name__ == "__main__":
    main(sys.argv[1])
