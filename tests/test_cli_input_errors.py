"""Wrong input on the command line gets the same kind of answer everywhere: one
line saying what is wrong, exit status 1 (2 for a malformed option), nothing
changed. Before: ``entries --feed 99`` printed nothing and exited 0,
``--limit -1`` listed everything, ``add http://`` called http unsupported, an
unknown host was "[Errno -2] Name or service not known", and ``feeds`` on an
empty folder printed nothing at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from smartreader.cli import main
from smartreader.storage import Store, db_path


@pytest.fixture
def data(tmp_path: Path) -> str:
    """A data folder holding an empty database (a folder holding none is refused:
    ``tests/test_cli_data_dir_and_words.py``)."""
    Store(db_path(str(tmp_path / "data"))).close()
    return str(tmp_path / "data")


def test_entries_of_an_unknown_feed_is_an_error(data: str, capsys) -> None:
    assert main(["entries", "--feed", "99", "--data-dir", data]) == 1
    assert capsys.readouterr().err.strip() == "smartreader: no feed with id 99"


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_entries_limit_must_be_positive(data: str, capsys, limit: str) -> None:
    with pytest.raises(SystemExit) as e:
        main(["entries", "--limit", limit, "--data-dir", data])
    assert e.value.code == 2
    assert f"argument --limit: must be at least 1, not {limit}" in capsys.readouterr().err


def test_feeds_on_an_empty_folder_says_how_to_add_one(data: str, capsys) -> None:
    assert main(["feeds", "--data-dir", data]) == 0
    out = capsys.readouterr()
    assert out.out == ""  # stdout stays empty for scripts
    assert "no subscriptions yet: add one with `smartreader add ADDRESS`" in out.err


def test_an_address_without_a_server_is_named_as_such(data: str, capsys) -> None:
    assert main(["add", "http://", "--data-dir", data]) == 1
    assert "not a web address: 'http://' names no server" in capsys.readouterr().err
    assert main(["feeds", "--json", "--data-dir", data]) == 0
    assert capsys.readouterr().out.strip() == "[]"


def test_an_unknown_host_is_said_in_words(data: str, capsys) -> None:
    # .invalid never resolves (RFC 2606): no network is needed to get the answer
    assert main(["add", "feed.invalid", "--data-dir", data]) == 1
    err = capsys.readouterr().err
    assert "feed.invalid" in err and "Errno" not in err
    assert "no server called feed.invalid was found" in err or "could not look up" in err


@pytest.mark.parametrize("address", ["http://[::1", "http://[zz]/feed", "http://bob:pw@[::1/f"])
def test_an_address_python_cannot_split_is_an_error_not_a_traceback(
    data: str, capsys, address: str
) -> None:
    # urlsplit's ValueError ("Invalid IPv6 URL") escaped as a traceback; the
    # password typed into the address is not repeated
    assert main(["add", address, "--data-dir", data]) == 1
    err = capsys.readouterr().err
    assert "not a web address" in err and "Traceback" not in err and "pw" not in err
    assert main(["feeds", "--json", "--data-dir", data]) == 0
    assert capsys.readouterr().out.strip() == "[]"
