"""Every real-world corpus file goes fetch → parse → sanitise → store over real HTTP."""

from __future__ import annotations

import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from smartreader.storage import Store
from smartreader.updater import Updater
from tests.net.inert import assert_inert
from tests.shared import CORPUS


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _corpus_files() -> list[Path]:
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file()
        and not p.name.startswith(("LICENSE", "PROVENANCE"))
        and p.suffix.lower() != ".md"
    )


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"feeds corpus not found at {CORPUS} (set SMARTREADER_SHARED)"
)
def test_corpus_through_the_whole_pipeline(tmp_path):
    files = _corpus_files()
    assert len(files) > 300
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(CORPUS)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with Store(tmp_path / "db.sqlite3") as store:
            ids = {store.add_feed(base + p.relative_to(CORPUS).as_posix()): p for p in files}
            up = Updater(store, max_workers=4)
            results = up.update()  # no exception may escape
            up.close()
            assert len(results) == len(files)
            by_status: dict[str, int] = {}
            for r in results:
                by_status[r.status] = by_status.get(r.status, 0) + 1
                if r.status == "error":
                    assert r.error, f"{ids[r.feed_id]}: error without a message"
            counts = store.unread_counts()
            with_entries = sum(1 for fid in ids if counts.get(fid, 0) > 0)
            total = store.entry_count()
            print(
                f"\ncorpus: {len(files)} files, statuses {by_status}, "
                f"{with_entries} files yielded {total} entries"
            )
            assert store.integrity_check() == "ok"
            # Measured: see the printed line; bounds sit a little below it.
            assert with_entries >= 230
            assert total >= 2400
            # Stored content is sanitised: nothing executable survived.
            for row in store._q("SELECT content, summary, link, enclosures FROM entries"):
                for html in (row["content"], row["summary"]):
                    assert_inert(html)
                assert row["link"] is None or row["link"].startswith(("http://", "https://"))
    finally:
        server.shutdown()
        server.server_close()
