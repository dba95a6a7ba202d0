"""Pure parsing of Retry-After, Cache-Control, Expires."""

from __future__ import annotations

from email.utils import formatdate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartreader.net.hints import (
    hints_from_headers,
    parse_cache_control,
    parse_cache_until,
    parse_http_date,
    parse_retry_after,
)

NOW = 1_800_000_000.0
EPOCH_1994 = 784111777.0  # Sun, 06 Nov 1994 08:49:37 GMT


@pytest.mark.parametrize(
    "text",
    [
        "Sun, 06 Nov 1994 08:49:37 GMT",  # IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  # RFC 850
        "Sun Nov  6 08:49:37 1994",  # asctime, no zone = UTC
    ],
)
def test_http_date_formats(text: str) -> None:
    assert parse_http_date(text) == EPOCH_1994


@pytest.mark.parametrize("text", [None, "", "  ", "0", "-1", "yesterday", "Sun, 99 Foo 1994"])
def test_bad_http_dates(text: str | None) -> None:
    assert parse_http_date(text) is None


def test_retry_after_seconds() -> None:
    assert parse_retry_after("120", NOW) == NOW + 120
    assert parse_retry_after(" 0 ", NOW) == NOW
    assert parse_retry_after("1.5", NOW) == NOW + 1.5


def test_retry_after_date() -> None:
    assert parse_retry_after(formatdate(NOW + 3600, usegmt=True), NOW) == NOW + 3600
    # A date in the past means "now", not "in the past".
    assert parse_retry_after(formatdate(NOW - 3600, usegmt=True), NOW) == NOW


@pytest.mark.parametrize("text", [None, "", "-5", "soon", "nan", "inf", "12abc"])
def test_retry_after_garbage(text: str | None) -> None:
    assert parse_retry_after(text, NOW) is None


def test_cache_control_directives() -> None:
    assert parse_cache_control('Max-Age="60", no-transform, private="x, y", public') == {
        "max-age": "60",
        "no-transform": None,
        "private": "x, y",
        "public": None,
    }
    assert parse_cache_control("max-age=60, max-age=999") == {"max-age": "60"}
    assert parse_cache_control(None) == {}
    assert parse_cache_control(",,, max-age=5 ,") == {"max-age": "5"}


def until(**kw: str | None) -> float | None:
    args: dict[str, str | None] = {"cache_control": None, "expires": None, "date": None}
    args["age"] = None
    args.update(kw)
    return parse_cache_until(now=NOW, **args)  # type: ignore[arg-type]


def test_cache_until_max_age() -> None:
    assert until(cache_control="public, max-age=600") == NOW + 600
    assert until(cache_control="max-age=600", age="100") == NOW + 500
    assert until(cache_control="max-age=0") is None
    assert until(cache_control="max-age=60", age="120") is None


def test_cache_until_no_store_and_no_cache_win() -> None:
    assert until(cache_control="no-store, max-age=600") is None
    assert until(cache_control="max-age=600, no-cache") is None
    assert until(cache_control="no-cache", expires=formatdate(NOW + 60, usegmt=True)) is None


def test_cache_until_expires() -> None:
    # Relative to the server's Date: a server clock one hour fast does not matter.
    server_now = NOW + 3600
    assert (
        until(
            expires=formatdate(server_now + 300, usegmt=True),
            date=formatdate(server_now, usegmt=True),
        )
        == NOW + 300
    )
    assert until(expires=formatdate(NOW + 300, usegmt=True)) == NOW + 300  # no Date
    assert until(expires="0") is None
    assert until(expires="-1") is None
    assert until(expires=formatdate(NOW - 10, usegmt=True)) is None


def test_max_age_beats_expires() -> None:
    assert until(cache_control="max-age=60", expires=formatdate(NOW + 9999, usegmt=True)) == (
        NOW + 60
    )
    # An unusable max-age falls back to Expires.
    assert until(cache_control="max-age=soon", expires=formatdate(NOW + 30, usegmt=True)) == (
        NOW + 30
    )


def test_hints_from_headers_by_status() -> None:
    headers = {"Retry-After": "30", "Cache-Control": "max-age=90"}
    h = hints_from_headers(headers, status=200, now=NOW)
    assert (h.retry_after, h.cache_until) == (None, NOW + 90)
    h = hints_from_headers(headers, status=304, now=NOW)
    assert h.cache_until == NOW + 90
    for status in (429, 503):
        h = hints_from_headers(headers, status=status, now=NOW)
        assert (h.retry_after, h.cache_until) == (NOW + 30, None)
    h = hints_from_headers(headers, status=301, now=NOW)  # Retry-After means nothing here
    assert (h.retry_after, h.cache_until) == (None, None)
    # Names are case-insensitive.
    assert hints_from_headers({"retry-after": "5"}, status=429, now=NOW).retry_after == NOW + 5


@given(st.text(max_size=80))
def test_arbitrary_header_text_never_raises(text: str) -> None:
    """Header values come from any server on the internet."""
    r = parse_retry_after(text, NOW)
    assert r is None or r >= NOW
    parse_cache_control(text)
    c = until(cache_control=text, expires=text, date=text, age=text)
    assert c is None or c > NOW
    hints_from_headers({"Retry-After": text, "Cache-Control": text}, status=429, now=NOW)
