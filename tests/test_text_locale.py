"""Dates in the (English-only) UI name days and months in English whatever LC_TIME
says: Qt sets the C library's locale from the environment, and strftime's
%a/%A/%b/%B would then put "Do" or "Dezember" between English words.

Each behaviour is checked under a simulated German LC_TIME (always) and under a
real installed non-English one (when the machine has any)."""

from __future__ import annotations

import datetime as dt
import io
import re
import tokenize
from pathlib import Path

import pytest

import smartreader
from smartreader import text
from tests.fake_locale import german_datetime_module, real_foreign_lc_time

SOURCE = Path(smartreader.__file__).parent


@pytest.fixture(params=["simulated", "real"])
def german_time(request, monkeypatch):
    """LC_TIME is German: simulated in ``smartreader.text``, or a real locale."""
    if request.param == "simulated":
        fake = german_datetime_module()
        assert fake.datetime(2026, 3, 5).strftime("%a %B") == "Do März"  # the stand-in works
        monkeypatch.setattr(text, "dt", fake)
        yield
        return
    with real_foreign_lc_time() as name:
        if name is None:
            pytest.skip(
                "no non-English locale installed (`locale -a`); the simulated run covers it"
            )
        yield


def at(*args: int) -> float:
    return dt.datetime(*args).timestamp()


def test_local_day_time_names_days_and_months_in_english(german_time):
    now = at(2026, 3, 2, 12, 0)  # a Monday
    assert text.local_day_time(at(2026, 3, 5, 9, 0), now) == "Thu 09:00"
    assert text.local_day_time(at(2026, 10, 3, 9, 0), now) == "3 Oct 09:00"
    assert text.local_day_time(at(2027, 5, 1, 9, 0), now) == "1 May 2027 09:00"
    assert text.local_day_time(at(2026, 3, 3, 1, 38), now) == "tomorrow 01:38"
    assert text.local_time_text(at(2026, 12, 1, 9, 0), now).startswith("1 Dec 09:00 (in ")


def test_helpers_write_english_names_for_every_day_and_month(german_time):
    monday = dt.datetime(2026, 3, 2, 9, 5, 7)
    week = [monday + dt.timedelta(days=i) for i in range(7)]
    assert [text.day_name(d) for d in week] == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert [text.day_name(d, short=False) for d in week][-1] == "Sunday"
    months = [dt.date(2026, m, 1) for m in range(1, 13)]
    assert [text.month_name(d) for d in months] == [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]  # fmt: skip
    assert text.month_name(months[2], short=False) == "March"


def test_helpers_agree_on_one_shape():
    d = dt.datetime(2026, 3, 3, 9, 5, 7)  # a Tuesday
    assert text.clock_text(d) == "09:05"
    assert text.clock_text(d, seconds=True) == "09:05:07"
    assert text.day_month(d) == "3 Mar"  # the day is not zero-padded anywhere
    assert text.day_month(d, weekday=True, year=True) == "Tue 3 Mar 2026"
    assert text.date_time_text(d) == "3 Mar 2026 09:05"
    assert text.date_time_text(d, weekday=True, year=False) == "Tue 3 Mar 09:05"
    assert text.long_date_time(d) == "Tuesday 3 March 2026, 09:05"


def test_count_of_can_write_a_number_as_a_spin_box_does():
    assert text.count_of(1500, "request") == "1,500 requests"
    assert text.count_of(1500, "request", grouped=False) == "1500 requests"
    assert text.count_of(1, "request", grouped=False) == "1 request"


# strftime directives whose output depends on LC_TIME: names (a A b B), AM/PM (p),
# and the locale's own date/time layouts (c x X).
LOCALE_DIRECTIVE = re.compile(r"(?<!%)%[aAbBpcxX]")


def test_no_source_formats_a_date_with_locale_dependent_strftime_codes():
    """All of smartreader (GUI, CLI, reports): day and month names come from
    ``smartreader.text``, never from strftime/f"{d:%a}" (comments may mention them)."""
    hits = []
    for path in sorted(SOURCE.rglob("*.py")):
        src = path.read_text(encoding="utf-8")
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.STRING and LOCALE_DIRECTIVE.search(tok.string):
                hits.append(f"{path.relative_to(SOURCE)}:{tok.start[0]}: {tok.string[:60]}")
    assert hits == []
