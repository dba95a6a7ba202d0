"""Fuzz the feed pipeline for N minutes: bytes → parse → sanitise → store (→ render).

    .venv/bin/python scripts/fuzz.py --minutes 10            # parse/sanitise/store
    .venv/bin/python scripts/fuzz.py --minutes 10 --render   # also the Qt models/pane

Runs the property in ``tests/reliability/fuzzing.py`` in rounds of random
examples (each round a fresh random seed) until the time is up. A failure is
shrunk by hypothesis, printed, saved to ``.hypothesis/`` (so the CI pass, which
shares that database, replays it) and ends the run with exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0, help="how long to run (default 5)")
    ap.add_argument("--round", type=int, default=2000, help="examples per round")
    ap.add_argument("--render", action="store_true", help="also render through Qt (slower)")
    args = ap.parse_args(argv)

    from hypothesis import HealthCheck, given, settings

    from smartreader.storage.store import Store
    from tests.reliability import fuzzing

    render = None
    if args.render:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6.QtWidgets import QApplication

        from smartreader.gui.article_view import ArticleView

        app = QApplication.instance() or QApplication([])
        view = ArticleView(open_url=lambda url: None)

        def render(store: Store, ids: list[int]) -> None:
            for i in ids[:4]:
                view.show_entry(store.entry(i), "feed")
                view.browser.document().size()
            app.processEvents()

    end = time.monotonic() + args.minutes * 60
    examples = rounds = 0
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "fuzz.sqlite3")
        fid = store.add_feed(fuzzing.URL, now=fuzzing.NOW)
        while time.monotonic() < end:
            rounds += 1

            @settings(
                max_examples=args.round,
                deadline=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(body=fuzzing.any_input, content_type=fuzzing.content_types)
            def run(body: bytes, content_type: str | None) -> None:
                if time.monotonic() > end:
                    return
                fuzzing.check_pipeline(body, content_type, store, fid, render=render)

            try:
                run()
            except Exception as e:  # hypothesis has printed the shrunk example
                print(f"FAILED in round {rounds}: {type(e).__name__}: {e}", file=sys.stderr)
                return 1
            examples += args.round
            print(f"round {rounds}: ok (~{examples} examples, "
                  f"{store.entry_count()} entries stored)", flush=True)  # fmt: skip
        check = store.integrity_check()
        store.close()
    print(f"done: {rounds} rounds, ~{examples} examples, integrity_check={check}")
    return 0 if check == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
