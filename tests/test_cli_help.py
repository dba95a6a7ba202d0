"""``--help`` is plain text with a line for every argument, names where the data
lives, and agrees with the README (audit s33 B: item 10). Before: ``replay --help``
showed reST (two backticks), FEED read "feed id (see `feeds`)", the README said
every command takes ``--data-dir`` while ``replay --data-dir`` was "unrecognized
arguments", and SMARTREADER_DATA_DIR was in neither."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from smartreader.cli import build_parser, main

README = Path(__file__).resolve().parents[1] / "README.md"


def _commands() -> dict[str, argparse.ArgumentParser]:
    [sub] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


COMMANDS = sorted(_commands())


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_is_plain_text(capsys, command: str) -> None:
    text = _help(capsys, *filter(None, [command]))
    assert "`" not in text  # reST ``literal`` or Markdown `code`
    assert not re.search(r":(class|func|meth|mod):", text)


@pytest.mark.parametrize(
    "command",
    [c for c in COMMANDS],
)
def test_every_argument_has_a_help_line(command: str) -> None:
    parser = _commands()[command]
    bare = [
        a.option_strings[0] if a.option_strings else a.dest
        for a in parser._actions
        if not a.help or a.help == argparse.SUPPRESS
    ]
    assert bare == []


def test_feed_ids_and_defaults_are_described(capsys) -> None:
    for command in ("remove", "explain", "update"):
        assert re.search(r"\n  FEED +feed id \(see feeds\)", _help(capsys, command)), command
    entries = _help(capsys, "entries")
    assert re.search(r"--limit N +at most N \(default 50\)", entries)


def test_help_names_the_data_folder_variable_and_the_folder_in_effect(
    capsys, monkeypatch, tmp_path
) -> None:
    folder = tmp_path / "my data folder-with a hyphen"
    monkeypatch.setenv("SMARTREADER_DATA_DIR", str(folder))
    text = _help(capsys)
    assert "SMARTREADER_DATA_DIR environment variable" in text
    assert f"\n  {folder}\n" in text  # whole, on a line of its own
    for command in ("feeds", "backup"):
        assert "$SMARTREADER_DATA_DIR" in _help(capsys, command)


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "trace.csv", "--interval-hours", "6", "--data-dir", "/tmp"],
        ["replay", "trace.csv", "--interval-hours", "6", "--data-dir=/tmp"],
        ["replay", "--data-dir", "/tmp", "trace.csv", "--interval-hours", "6"],
        ["--data-dir", "/tmp", "replay", "trace.csv", "--interval-hours", "6"],
    ],
)
def test_replay_says_why_it_takes_no_data_folder(capsys, argv: list[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(
        "error: replay reads only the trace files it is given and uses no data folder: "
        "leave out --data-dir"
    )
    assert "unrecognized" not in err


def test_other_unknown_options_are_still_unrecognized(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["feeds", "--bogus", "--data-dir", "/nonexistent"])
    assert e.value.code == 2
    assert "error: unrecognized arguments: --bogus" in capsys.readouterr().err


def test_the_readme_says_what_the_cli_does(capsys) -> None:
    readme = " ".join(README.read_text(encoding="utf-8").split())
    takes = {c: "--data-dir DIR" in _help(capsys, c) for c in COMMANDS}
    assert [c for c, yes in takes.items() if not yes] == ["replay"]
    assert "Every command takes" not in readme
    assert "except `replay`" in readme
    assert "`SMARTREADER_DATA_DIR`" in readme
    # in the order paths.data_dir reads them
    said = ["`--data-dir DIR` if given", "`SMARTREADER_DATA_DIR`", "user data folder (from"]
    order = [readme.index(s) for s in said]
    assert order == sorted(order)
