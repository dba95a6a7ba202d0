"""Benchmark: what rules add to storing a fetch, on a large database.

    python benchmarks/rules.py [--entries 50000] [--fetches 60]

Builds (once, cached under the temp dir) a database of ``--entries`` articles with
realistic text (``gui_100k.build_db``, then indexed as the app indexes them), and
stores fetches of 10 new articles each with no rule, 10 rules, and 50 rules
(words common in the corpus and rare ones, every feed and one feed's), the
configurations taking turns so that the machine's load falls on all alike. Prints
the median time per fetch and its ratio to no rules.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gui_100k import WORDS, _sentence, build_db
from smartreader.core.models import ParsedEntry
from smartreader.storage.store import FetchRecord, Store


def indexed_db(n_entries: int) -> Path:
    folder = Path(tempfile.gettempdir()) / "smartreader-bench"
    folder.mkdir(exist_ok=True)
    path = folder / f"rules-{n_entries}.sqlite3"
    if not path.exists():
        print(f"building {path}…", flush=True)
        raw = path.with_suffix(".raw")
        build_db(raw, n_entries, 200)
        with Store(raw) as store, store._tx() as db:
            db.execute(
                "UPDATE entries SET search_title = fold_text(title), "
                "search_text = fold_text(html_text(content) || ' ' || html_text(summary))"
            )
        raw.replace(path)
    return path


def rules_for(n: int, feed_ids: list[int], rng: random.Random) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for k in range(n):
        common = k % 2 == 0  # a corpus word: its posting list is long
        words = rng.choice(WORDS) if common else f"{rng.choice(WORDS)}x{k}"
        if k % 5 == 0:
            words += " " + rng.choice(WORDS)
        out.append(
            {
                "query": words,
                "feed_id": rng.choice(feed_ids) if k % 3 == 0 else None,
                "title_only": k % 4 == 0,
                "action": "star" if k % 7 == 0 else "read",
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=50_000)
    ap.add_argument("--fetches", type=int, default=60, help="per configuration")
    args = ap.parse_args()
    src = indexed_db(args.entries)
    work = Path(tempfile.mkdtemp()) / "db.sqlite3"
    shutil.copyfile(src, work)
    rng = random.Random(3)
    configs = (0, 10, 50)
    times: dict[int, list[float]] = {n: [] for n in configs}
    with Store(work) as store:
        feed_ids = [f.id for f in store.feeds(with_state=False)]
        sets = {n: rules_for(n, feed_ids, rng) for n in configs}
        serial = 0
        for _ in range(args.fetches):
            for n in configs:
                with store._tx() as db:
                    db.execute("DELETE FROM rules")
                for r in sets[n]:
                    store.add_rule(now=time.time(), **r)  # type: ignore[arg-type]
                fid = rng.choice(feed_ids)
                entries = []
                for _k in range(10):
                    serial += 1
                    text = "".join(f"<p>{_sentence(rng, 40)}.</p>" for _ in range(3))
                    title = _sentence(rng, 8).capitalize()
                    link = f"https://example.org/b/{serial}"
                    entries.append(
                        ParsedEntry(f"bench-{serial}", title, link, "", time.time(), None, text, "")
                    )
                rec = FetchRecord(fid, time.time(), "ok", entries=tuple(entries))
                t = time.perf_counter()
                store.record_fetch(rec)
                times[n].append(time.perf_counter() - t)
    base = statistics.median(times[0])
    print(f"{args.entries} articles, {args.fetches} fetches of 10 new articles each")
    print(f"{'rules':>6} {'median ms/fetch':>16} {'÷ no rules':>11}")
    for n in configs:
        m = statistics.median(times[n])
        print(f"{n:>6} {m * 1000:>16.2f} {m / base:>11.2f}")


if __name__ == "__main__":
    main()
