"""`smartreader replay` on trace files it has never seen: what other tools write
is read, and what cannot be used gets one line naming the file and line."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from smartreader.sim.cli import main
from smartreader.sim.content import load_content
from smartreader.sim.world import TraceError, load_capacities, load_trace

T0 = 1779667200  # 2026-05-25 00:00 UTC


def _write(path, text: str, *, bom: bool = False, crlf: bool = False):
    if crlf:
        text = text.replace("\n", "\r\n")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def test_what_spreadsheets_write_reads_as_the_plain_file(tmp_path) -> None:
    plain = _write(tmp_path / "a.csv", f"feed_id,published\nx,{T0}\nx,{T0 + 3600}\ny,{T0 + 60}\n")
    messy = _write(
        tmp_path / "b.csv",
        f"\n Feed_ID , Published \nx, {T0 + 3600}\n\n y ,2026-05-25T00:01:00Z\n"
        f"x,2026-05-25T02:00:00+02:00\n",
        bom=True,
        crlf=True,
    )
    a, b = load_trace(plain), load_trace(messy)
    assert a.keys() == b.keys() == {"x", "y"}
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    naive = _write(tmp_path / "c.csv", "feed_id,published\nx,2026-05-25T00:00:00\n")
    assert load_trace(naive)["x"].tolist() == [T0]  # no offset: UTC, as the traces are
    caps = _write(tmp_path / "f.csv", "FEED_ID,Capacity\nx,20\ny,21.0\n", bom=True, crlf=True)
    assert load_capacities(caps) == {"x": 20, "y": 21}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "feed,time\nx,1\n",
            "t.csv: no 'feed_id' or 'published' column (the first line has: feed, time)",
        ),
        (
            f"feed_id,published\nx,{T0}\nx,yesterday\n",
            "t.csv line 3: published 'yesterday' is not a time",
        ),
        (f"feed_id,published\nx,{T0}\nx,nan\n", "t.csv line 3: published 'nan' is not a time"),
        (f"feed_id,published\n,{T0}\n", "t.csv line 2: no feed_id"),
        ('feed_id,published\n"x,1\n', "t.csv line 2: published '' is not a time"),
    ],
)
def test_a_trace_it_cannot_use_is_named_with_its_line(tmp_path, capsys, text, message) -> None:
    tr = _write(tmp_path / "t.csv", text)
    with pytest.raises(TraceError, match="^" + message.split(" (")[0]):
        load_trace(tr)
    assert main([str(tr), "--budget", "10"]) == 2
    out = capsys.readouterr()
    assert out.out.strip().startswith(f"smartreader replay: {message}")
    assert "Traceback" not in out.out + out.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "-3"], "--budget must be a positive number"),
        (["--budget", "nan"], "--budget must be a positive number"),
        (["--interval-hours", "0"], "--interval-hours must be a positive number"),
        (["--budget", "5", "--warmup-days", "-1"], "--warmup-days must be 0 or more"),
        (["--budget", "5", "--warmup-days", "30"], "the trace spans 21 days and the warm-up 30"),
        (["--budget", "5", "--feeds", "{dir}/caps.csv"], "caps.csv line 3: capacity '0' is not"),
        (["--budget", "5", "--feeds", "{dir}/inf.csv"], "inf.csv line 2: capacity 'inf' is not"),
        (["--budget", "5", "--feeds", "{dir}/none.csv"], "{dir}/none.csv: No such file"),
        (["--budget", "5", "--fetch-log", "{dir}/no/log.csv"], "--fetch-log: there is no folder"),
    ],
)
def test_arguments_and_files_it_cannot_use_stop_it_before_the_replay(
    tmp_path, capsys, args, message
) -> None:
    rows = "".join(f"x,{T0 + k * 3600}\n" for k in range(0, 21 * 24, 5))
    tr = _write(tmp_path / "t.csv", "feed_id,published\n" + rows)
    _write(tmp_path / "caps.csv", "feed_id,capacity\nx,20\ny,0\n")
    _write(tmp_path / "inf.csv", "feed_id,capacity\nx,inf\n")
    args = [a.replace("{dir}", str(tmp_path)) for a in args]
    t = time.perf_counter()
    assert main([str(tr), *args]) == 2
    assert time.perf_counter() - t < 2.0  # refused up front, no replay ran
    out = capsys.readouterr().out
    assert out.startswith("smartreader replay: " + message.replace("{dir}", str(tmp_path)))
    assert not (tmp_path / "no").exists()


def test_files_that_are_not_traces(tmp_path, capsys) -> None:
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"feed_id,published\n\xff\xfe\x00garbage")
    empty = _write(tmp_path / "e.csv", "")
    header_only = _write(tmp_path / "h.csv", "feed_id,published\n")
    for path, message in (
        (binary, "b.csv: not a UTF-8 text file"),
        (empty, "e.csv has no items"),
        (header_only, "h.csv has no items"),
        (tmp_path, f"{tmp_path}: Is a directory"),
    ):
        assert main([str(path), "--budget", "5"]) == 2
        assert capsys.readouterr().out.startswith(f"smartreader replay: {message}")


def test_the_content_trace_names_its_bad_line(tmp_path, capsys) -> None:
    good = json.dumps({"feed_id": "x", "arrival": T0, "title": "a", "summary": ""})
    for bad, message in (
        ("{not json", "c.jsonl line 2: not JSON"),
        (json.dumps({"feed_id": "x"}), "c.jsonl line 2: not an item with feed_id and arrival"),
        (json.dumps([1, 2]), "c.jsonl line 2: not an item with feed_id and arrival"),
        (json.dumps({"feed_id": "x", "arrival": "soon"}), "c.jsonl line 2: arrival 'soon'"),
    ):
        path = _write(tmp_path / "c.jsonl", f"{good}\n{bad}\n")
        with pytest.raises(TraceError, match="^" + message):
            load_content(path)
        assert main([str(path), "--content", str(path), "--budget", "5"]) == 2
        assert capsys.readouterr().out.startswith(f"smartreader replay: {message}")
    path = _write(tmp_path / "c.jsonl", f"{good}\n\n", bom=True)
    assert load_content(path).feeds == ["x"]  # a byte-order mark and a blank line are fine


def test_an_unknown_policy_lists_each_policy_once(tmp_path, capsys) -> None:
    tr = _write(tmp_path / "t.csv", f"feed_id,published\nx,{T0}\n")
    with pytest.raises(SystemExit):
        main([str(tr), "--budget", "5", "--policy", "nope"])
    err = capsys.readouterr().err
    names = err.split("choose from ")[1].split(" or all")[0].split(", ")
    assert "smart" in names and len(names) == len(set(names))
