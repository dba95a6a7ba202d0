"""Fuzzing the pipeline (§7 row 33): a short, bounded pass for CI.

Long runs: ``.venv/bin/python scripts/fuzz.py --minutes 30``. Both use the
property in ``tests/reliability/fuzzing.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from smartreader.storage.store import Store
from tests.reliability import fuzzing

CI = settings(
    max_examples=300,
    deadline=None,  # the property checks its own generous time bound
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # the CI pass is reproducible; scripts/fuzz.py explores
)


def _store(tmp: str) -> tuple[Store, int]:
    store = Store(Path(tmp) / "fuzz.sqlite3")
    return store, store.add_feed(fuzzing.URL, now=fuzzing.NOW)


def test_fuzz_parse_sanitise_store() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store, fid = _store(tmp)

        @CI
        @given(body=fuzzing.any_input, content_type=fuzzing.content_types)
        def run(body: bytes, content_type: str | None) -> None:
            fuzzing.check_pipeline(body, content_type, store, fid)

        try:
            run()
            assert store.integrity_check() == "ok"
        finally:
            store.close()


@pytest.mark.qt_log_level_fail("CRITICAL")
def test_fuzz_through_the_qt_models_and_reading_pane(qapp: object) -> None:
    from PySide6.QtCore import Qt

    from smartreader.gui.article_view import ArticleView
    from smartreader.gui.models import ArticleListModel

    opened: list[str] = []
    view = ArticleView(open_url=lambda url: opened.append(url.toString()))
    view.resize(600, 400)

    with tempfile.TemporaryDirectory() as tmp:
        store, fid = _store(tmp)
        model = ArticleListModel(store)

        def render(store: Store, ids: list[int]) -> None:
            model.reload_feed_titles()
            model.set_query(feed_ids=[fid])
            for row in range(min(model.rowCount(), 8)):
                for col in range(model.columnCount()):
                    idx = model.index(row, col)
                    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                        value = model.data(idx, role)
                        assert value is None or isinstance(value, str | int)
            for entry_id in ids[:4]:
                view.show_entry(store.entry(entry_id), "feed")
                view.browser.document().size()  # forces layout
            # Nothing but http(s) was ever asked for, and nothing was loaded remotely.
            assert all(u.startswith(("http://", "https://")) for u in _loaded(view))
            assert not opened

        @settings(CI, max_examples=80)
        @given(body=fuzzing.structured)
        def run(body: bytes) -> None:
            fuzzing.check_pipeline(body, None, store, fid, render=render)

        try:
            run()
        finally:
            store.close()
            view.deleteLater()


def _loaded(view: object) -> list[str]:
    browser = view.browser  # type: ignore[attr-defined]
    return [k for k in browser._images]
