"""``smartreader budget --min-interval T --max-interval T``: the two intervals
Settings sets, from the command line, with units (a bare number would leave the
unit to guess); both checked before anything is written."""

from __future__ import annotations

import pytest

from smartreader.cli import main
from smartreader.storage.store import Store


@pytest.fixture
def folder(tmp_path):
    Store(tmp_path / "smartreader.sqlite3").close()  # an empty collection
    return tmp_path


def _settings(folder):
    with Store(folder / "smartreader.sqlite3") as st:
        return tuple(st.get_setting(k) for k in ("budget_per_day", "min_interval", "max_interval"))


def test_both_intervals_are_set_and_shown(folder, capsys):
    assert (
        main(
            ["budget", "--max-interval", "2d", "--min-interval", "1.5h", "--data-dir", str(folder)]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "checked at most every 1 h 30 min" in out and "at least every 2 d" in out
    assert _settings(folder) == (None, 5400.0, 172_800.0)
    # shown again, nothing written
    assert main(["budget", "--data-dir", str(folder)]) == 0
    assert "at least every 2 d" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1w", 604_800.0),
        ("6h", 21_600.0),
        ("90min", 5_400.0),
        ("3600s", 3_600.0),
        (" 12 H ", 43_200.0),
    ],
)
def test_units(folder, capsys, text, seconds):
    assert main(["budget", "--max-interval", text, "--data-dir", str(folder)]) == 0
    assert _settings(folder)[2] == seconds


@pytest.mark.parametrize("text", ["6", "six hours", "1.h", "1y", ""])
def test_a_duration_without_a_unit_is_refused_by_name(folder, capsys, text):
    with pytest.raises(SystemExit) as e:
        main(["budget", "--max-interval", text, "--data-dir", str(folder)])
    assert e.value.code == 2
    assert "not a duration" in capsys.readouterr().err
    assert _settings(folder) == (None, None, None)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-interval", "30m"], "between 1 hour and 1 week"),
        (["--max-interval", "8d"], "between 1 hour and 1 week"),
        (["--min-interval", "2d"], "between 1 minute and 1 day"),
        (
            ["--min-interval", "2h", "--max-interval", "1h"],
            "minimum interval (2 h) would be longer",
        ),
        # against the maximum in force (a day)
        (["500", "--min-interval", "1d", "--max-interval", "12h"], "would be longer"),
    ],
)
def test_a_bad_interval_changes_nothing(folder, capsys, argv, message):
    assert main(["budget", *argv, "--data-dir", str(folder)]) == 1
    assert message in capsys.readouterr().err
    assert _settings(folder) == (None, None, None)  # not the budget either


def test_a_minimum_above_the_maximum_in_force_is_refused(folder, capsys):
    assert main(["budget", "--max-interval", "3h", "--data-dir", str(folder)]) == 0
    assert main(["budget", "--min-interval", "4h", "--data-dir", str(folder)]) == 1
    assert (
        "the minimum interval (4 h) would be longer than the maximum (3 h)"
        in capsys.readouterr().err
    )
    assert _settings(folder) == (None, None, 10_800.0)


@pytest.mark.parametrize("argv", [["--max-interval", "9d"], ["0"], ["--min-interval", "2d"]])
def test_a_value_out_of_range_starts_no_data_folder(tmp_path, capsys, argv):
    new = tmp_path / "new" / "data"
    assert main(["budget", *argv, "--data-dir", str(new)]) == 1
    assert "must be between" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
