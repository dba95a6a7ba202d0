"""Content-aware replay (smartreader.sim.content) on a small synthetic content trace."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from smartreader.sim.content import (
    ContentTrace,
    load_content,
    main,
    make_content_policy,
    profile_quality,
    replay_content,
)

T0 = 1779667200  # Monday 2026-05-25 00:00 UTC
TOPICS = ["parser", "scheduler", "budget", "network", "storage", "gui", "tray", "alerts"]


def _write_trace(path: Path, days: int = 21) -> Path:
    """Feed ``bot`` posts dependency bumps every hour; ``dev`` posts varied news
    every 3 h; ``news`` posts headlines every 2 h."""
    rng = np.random.default_rng(1)
    rows = []
    for h in range(days * 24):
        t = T0 + h * 3600 + int(rng.integers(0, 600))
        rows.append(("bot", t, f"chore(deps): update dependency serde to v1.{h}.0", ""))
        if h % 3 == 0:
            a, b = rng.choice(TOPICS, 2, replace=False)
            rows.append(("dev", t, f"{a}: rework {b} handling", f"touches {a} and {b} code"))
        if h % 2 == 1:
            c = rng.choice(TOPICS)
            rows.append(("news", t, f"Headline about {c} number {h % 7}", "teaser text"))
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(path, "w", encoding="utf-8") as fh:
        for fid, t, title, summary in rows:
            obj = {"feed_id": fid, "arrival": t, "id": f"{fid}{t}", "title": title}
            fh.write(json.dumps({**obj, "summary": summary}) + "\n")
    return path


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> ContentTrace:
    return load_content(_write_trace(tmp_path_factory.mktemp("content") / "c.jsonl"))


def test_load_content(trace: ContentTrace) -> None:
    assert trace.feeds == ["bot", "dev", "news"]
    for f in trace.feeds:
        assert len(trace.terms[f]) == trace.arrivals[f].size
        assert (np.diff(trace.arrivals[f]) >= 0).all()
    novel = trace.novel()
    share = {f: sum(v) / len(v) for f, v in novel.items()}
    assert share["bot"] < share["dev"]  # bumps are mostly redundant


def test_quality_is_one_when_every_item_is_seen_at_once(trace: ContentTrace) -> None:
    seen = {f: trace.arrivals[f].copy() for f in trace.feeds}
    t0 = T0 + 7 * 86400.0
    assert profile_quality(trace, seen, t0, t0 + 7 * 86400.0) == pytest.approx(1.0)
    never = {f: np.full(trace.arrivals[f].size, np.inf) for f in trace.feeds}
    assert profile_quality(trace, never, t0, t0 + 7 * 86400.0) == pytest.approx(0.0)


@pytest.mark.parametrize(
    "name", ["smart", "smart-novelty", "fixed", "roitman-fair", "roitman-greedy-free"]
)
def test_replay_policies(trace: ContentTrace, name: str) -> None:
    r = replay_content(trace, {}, name, budget=24.0, warmup_days=7)
    assert r.fetches_per_day <= 24.0 + 1e-9
    assert 0.0 < r.quality <= 1.0
    assert r.items > r.novel_items > 0
    assert r.mean_delay_min > 0
    assert (r.beta is not None) == (name in ("smart-novelty", "roitman-fair"))


def test_more_budget_more_quality(trace: ContentTrace) -> None:
    lo = replay_content(trace, {}, "smart-novelty", budget=6.0, warmup_days=7)
    hi = replay_content(trace, {}, "smart-novelty", budget=48.0, warmup_days=7)
    assert hi.quality > lo.quality
    assert hi.mean_delay_min < lo.mean_delay_min


def test_an_earlier_cold_start_measures_the_same_span(trace: ContentTrace) -> None:
    """Replicates for a chaotic replay: the policy starts 8 h earlier, the items
    measured are the same ones."""
    a = replay_content(trace, {}, "smart", budget=24.0, warmup_days=7)
    b = replay_content(trace, {}, "smart", budget=24.0, warmup_days=7, phase_s=8 * 3600.0)
    assert (a.items, a.novel_items) == (b.items, b.novel_items)
    assert b.fetches_per_day <= 24.0 + 1e-9
    assert b.mean_delay_min > 0


def test_unknown_policy_and_empty_span(trace: ContentTrace) -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        make_content_policy("roitman-lazy", trace, 10.0, T0)
    with pytest.raises(ValueError, match="warm-up"):
        replay_content(trace, {}, "smart", 10.0, warmup_days=60)


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = _write_trace(tmp_path / "c.jsonl", days=10)
    assert (
        main(
            [
                str(p),
                "--budget",
                "12",
                "--policy",
                "smart,roitman-fair",
                "--warmup-days",
                "3",
                "--json",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["policy"] for r in rows] == ["smart", "roitman-fair"]
    assert all(0 < r["quality"] <= 1 for r in rows)


def test_smartreader_replay_with_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    from smartreader.cli import main as smartreader_main

    p = _write_trace(tmp_path / "c.jsonl", days=10)
    args = ["replay", "unused.csv", "--content", str(p), "--budget", "12", "--warmup-days", "3"]
    assert smartreader_main([*args, "--policy", "smart,smart-novelty", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in rows] == ["smart", "smart-novelty"]
    assert all(0 < r["quality"] <= 1 and r["fetches_per_day"] <= 12 for r in rows)
    # Content policies without content are a clear usage error.
    assert smartreader_main(["replay", str(p), "--budget", "12", "--policy", "roitman-fair"]) == 2
    assert "needs --content" in capsys.readouterr().out
