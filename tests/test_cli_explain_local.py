"""`smartreader explain` in local time throughout, worded as the GUI words it;
`smartreader budget` counts whole requests.

A real SQLite store whose feed has a learned rhythm (posts at 14:00 UTC), in a
fixed time zone five hours west of UTC with no daylight saving time."""

from __future__ import annotations

import datetime as dt
import time

import numpy as np
import pytest

from smartreader.cli import main
from smartreader.core.rhythm import describe_rhythm
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.storage.store import Store
from smartreader.updater import Updater, host_of

OFFSET = -5 * 3600
POST_HOUR_UTC = 14  # 09:00 local


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d


def learned_feed(data, *, rate_limited_for: float | None = None) -> int:
    """A feed whose rhythm is learned; optionally refused by a 429 a moment ago."""
    now = time.time()
    url = "https://feed.invalid/rss.xml"
    with Store(data / "smartreader.sqlite3") as store:
        fid = store.add_feed(url, title="Daily", now=now)
        teacher = Scheduler(SchedulerConfig(), now)
        teacher.add_feed(fid, host=host_of(url))
        lam = np.full(168, 0.01)
        lam[[d * 24 + POST_HOUR_UTC for d in range(7)]] = 3.0
        teacher.set_lambda(fid, lam)
        state = teacher.export_state(fid)
        if rate_limited_for is not None:
            until = now + rate_limited_for
            state.update(err_count=1, not_before=until, host_block=[host_of(url), until])
        store.save_scheduler_state({fid: state})
    return fid


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_is_in_local_time_and_says_so(local_tz, data, capsys):
    fid = learned_feed(data)
    code, out, err = run(capsys, "explain", str(fid), "--data-dir", str(data))
    assert code == 0, err
    lines = out.splitlines()
    assert "  times in local time (UTC−05:00)" in lines
    assert "UTC)" not in out.replace("(UTC−05:00)", "")  # labelled once, nowhere else

    with Store(data / "smartreader.sqlite3") as store:
        up = Updater(store)
        try:
            ex = up.explain(fid)
        finally:
            up.close()
    # the GUI's Posting-rhythm card: describe_rhythm at the local offset
    level, detail = describe_rhythm(ex.lambda_week, ex.periodicity, OFFSET)
    assert f"  rhythm: {level} — {detail}" in lines
    assert detail != describe_rhythm(ex.lambda_week, ex.periodicity)[1]  # not UTC's
    start = int(detail.split("busiest ")[1][:2])
    assert start <= POST_HOUR_UTC + OFFSET // 3600 < start + 4  # the local posting hour

    # the λ rows peak at the local posting hour
    rows = [ln for ln in lines if ln.startswith("    Mon |")]
    assert len(rows) == 1
    bar = rows[0].split("|")[1]
    assert len(bar) == 24 and bar.index("█") == POST_HOUR_UTC + OFFSET // 3600
    # the observed column has a unit, and its span is said
    assert "items/day expected" in rows[0] and rows[0].rstrip().endswith("seen")
    assert any("seen: items found on that weekday" in ln and "weeks" in ln for ln in lines)

    # the planned fetches are local clock times with how far off they are
    first = lines[lines.index("  next planned fetches:") + 1].strip()
    assert first.startswith(dt.datetime.fromtimestamp(ex.planned[0]).strftime("%H:%M"))
    assert first.endswith(")") and ("(in " in first or "(now)" in first)


def test_explains_notes_give_a_rate_limit_in_local_time_once(local_tz, data, capsys):
    fid = learned_feed(data, rate_limited_for=2 * 3600 + 60)
    code, out, err = run(capsys, "explain", str(fid), "--data-dir", str(data))
    assert code == 0, err
    notes = [ln for ln in out.splitlines() if ln.startswith("  note: ")]
    waits = [n for n in notes if "wait" in n]
    assert len(waits) == 1, notes
    assert "UTC" not in out.replace("(UTC−05:00)", "")
    assert "feed.invalid" not in " ".join(notes) and "error" not in " ".join(notes)
    with Store(data / "smartreader.sqlite3") as store:
        until = store.feed(fid).scheduler_state["not_before"]
    local = dt.datetime.fromtimestamp(until).strftime("%H:%M")
    assert waits[0].startswith("  note: The server asked to wait until ")
    assert local in waits[0] and "(in 2 h" in waits[0]


def test_budget_takes_whole_requests_only(data, capsys):
    learned_feed(data)
    assert run(capsys, "budget", "3", "--data-dir", str(data))[0] == 0
    code, out, err = run(capsys, "budget", "--data-dir", str(data), "--", "1.5")
    assert code == 1 and out == ""
    assert "whole number" in err and "1.5" in err and "use 1 or 2" in err
    with Store(data / "smartreader.sqlite3") as store:
        assert store.get_setting("budget_per_day") == 3.0  # untouched
        # an older version could store a fraction: it shows what is enforced
        store.set_setting("budget_per_day", 1.5)
    code, out, _ = run(capsys, "budget", "--data-dir", str(data))
    assert code == 0 and out.startswith("budget 1 request/day,"), out
