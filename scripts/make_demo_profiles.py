"""Regenerate smartreader/resources/demo/feeds.json from the real posting-time traces.

Only *timing* is taken from the traces: each demo feed's weekly posting-rate profile
(168 hourly slots, items/hour, slot 0 = Monday 00:00 UTC, averaged over the 12 weeks
of ``dev-portfolio.csv``). Names, titles and text of the demo feeds are invented and
generated at run time by ``smartreader.demo``; nothing else from the traces is used.

    python scripts/make_demo_profiles.py [/work/shared/traces/dev-portfolio.csv]
"""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

WEEKS = 12
MONDAY_EPOCH = 4 * 86400
OUT = Path(__file__).resolve().parents[1] / "smartreader" / "resources" / "demo" / "feeds.json"

# (source trace, demo key, title, folder, topic, window capacity, rate scale)
FEEDS = [
    ("spiegel:tops", "ledger", "The Morning Ledger", "News", "news", 20, 1.0),
    ("spiegel:tops", "wire", "Harbour Wire", "News", "wire", 4, 1.6),
    ("gh:Homebrew__brew", "brewhouse", "Brewhouse commits", "Development", "dev", 20, 1.0),
    ("gh:denoland__deno", "dune", "Dune runtime changes", "Development", "dev", 20, 1.0),
    ("gh:git__git", "patchwork", "Patchwork (version control)", "Development", "dev", 20, 1.0),
    ("gh:metabrainz__picard", "tagger", "Tagger dev log", "Development", "dev", 20, 1.0),
    ("gh:numpy__numpy", "arraylab", "Array Lab", "Development", "dev", 20, 1.0),
    ("blog:simon-willison-s-weblog-2b081550", "workbench", "Notes from the Workbench",
     "Blogs", "blog", 30, 1.0),
    ("blog:chaos-computer-club-updates-16fbf14c", "bulletin", "Hackerspace Bulletin",
     "Blogs", "blog", 20, 1.0),
    ("blog:blog-on-tailscale-019cfa8d", "mesh", "Mesh Networking Journal", "Blogs", "blog", 15,
     1.0),
    ("gh:prometheus__prometheus", "gauges", "Gauges & Counters", None, "dev", 20, 1.0),
    ("gh:biomejs__biome", "linthouse", "Lint House", None, "dev", 20, 1.0),
]  # fmt: skip


def main(path: str) -> None:
    slots: dict[str, list[float]] = defaultdict(lambda: [0.0] * 168)
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            t = int(row["published"])
            slots[row["feed_id"]][((t - MONDAY_EPOCH) // 3600) % 168] += 1.0 / WEEKS
    out = [
        {
            "key": key,
            "title": title,
            "folder": folder,
            "topic": topic,
            "capacity": cap,
            "lambda_week": [round(v * scale, 4) for v in slots[src]],
        }
        for src, key, title, folder, topic, cap, scale in FEEDS
    ]
    OUT.write_text(json.dumps({"feeds": out}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(out)} feeds")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/traces/dev-portfolio.csv")
