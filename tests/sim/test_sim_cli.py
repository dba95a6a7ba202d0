"""`smartreader replay`: argument handling, JSON fields, fetch log, comparison table."""

from __future__ import annotations

import argparse
import csv
import json

import pytest

from smartreader.sim.cli import add_replay_parser, main, run_replay
from smartreader.sim.synthetic import generate

FIELDS = {
    "policy",
    "feeds",
    "items",
    "budget_per_day",
    "fetches_per_day",
    "mean_delay_min",
    "median_delay_min",
    "p95_delay_min",
    "missed",
    "alerts",
    "alerts_correct",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("trace")
    trace, caps = generate(6, weeks=3, seed=5)
    tr, fe = d / "t.csv", d / "f.csv"
    with open(tr, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["feed_id", "published"])
        for fid, arr in trace.items():
            for t in arr:
                w.writerow([fid, int(t)])
    with open(fe, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["feed_id", "capacity"])
        for fid, c in caps.items():
            w.writerow([fid, c])
    return tr, fe


def test_single_policy_json_and_fetch_log(files, tmp_path, capsys):
    tr, fe = files
    out = tmp_path / "log.csv"
    args = [str(tr), "--feeds", str(fe), "--interval-hours", "6", "--policy", "smart"]
    assert main([*args, "--json", "--fetch-log", str(out), "--warmup-days", "7"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res) >= FIELDS
    assert res["policy"] == "smart" and res["feeds"] == 6
    assert res["budget_per_day"] == pytest.approx(6 * 24 / 6)
    with open(out, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["feed_id", "fetched", "new_items", "missed_estimate"]
    assert all(float(r["missed_estimate"]) >= 0 for r in rows)
    assert sum(int(r["new_items"]) for r in rows) > 0


def test_several_policies_print_ratios_against_fixed(files, capsys):
    tr, fe = files
    assert main([str(tr), "--feeds", str(fe), "--budget", "24", "--policy", "smart,fixed"]) == 0
    out = capsys.readouterr().out
    assert "delay/fixed" in out
    fixed_line = next(line for line in out.splitlines() if line.startswith("fixed"))
    assert "1.00" in fixed_line


def test_self_paced_peers_get_equal_fetch_comparisons(files, capsys):
    tr, fe = files
    argv = [str(tr), "--feeds", str(fe), "--budget", "24", "--policy", "commafeed", "--json"]
    assert main(argv) == 0
    peer = json.loads(capsys.readouterr().out)
    assert peer["policy"] == "commafeed" and peer["fetches_per_day"] > 24  # not budgeted
    argv[-2] = "commafeed,fixed"
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["commafeed", "fixed", "smart", "fixed"]
    assert rows[2]["budget_per_day"] == pytest.approx(peer["fetches_per_day"])
    assert rows[2]["fetches_per_day"] <= rows[2]["budget_per_day"]


def test_registered_on_the_top_level_cli(files, capsys):
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    add_replay_parser(sub)
    tr, fe = files
    args = parser.parse_args(
        ["replay", str(tr), "--feeds", str(fe), "--budget", "24", "--policy", "all", "--json"]
    )
    assert run_replay(args) == 0
    rows = json.loads(capsys.readouterr().out)
    names = [r["policy"] for r in rows]
    # every policy, plus smart and fixed at each self-paced peer's realised rate
    assert names[:6] == ["smart", "fixed", "miniflux", "commafeed", "sia-offline", "oracle"]
    assert names[6:] == ["smart", "fixed", "smart", "fixed"]
    assert rows[7]["budget_per_day"] == pytest.approx(rows[2]["fetches_per_day"])


def test_bad_arguments_are_rejected(files):
    tr, _fe = files
    with pytest.raises(SystemExit):
        main([str(tr), "--budget", "5", "--policy", "nope"])
    with pytest.raises(SystemExit):
        main([str(tr), "--budget", "5", "--interval-hours", "3"])
