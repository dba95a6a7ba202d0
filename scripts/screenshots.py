"""Render the README screenshots from ``--demo`` data, offscreen, in light and dark.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [docs/screenshots]

Writes main-{light,dark}.png (the reader), activity-{light,dark}.png (a feed's
learned λ(t), observed counts and planned fetches), overview-*.png, settings-*.png,
alert-*.png (the missed-item banner and the Alerts view), rules-*.png and rule-*.png
(Feed ▸ Rules…).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from smartreader.gui.app import AppController, apply_theme, create_app
from smartreader.gui.rules import RuleDialog


def settle(app: QApplication, rounds: int = 5) -> None:
    for _ in range(rounds):
        app.processEvents()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    app = create_app()
    ctl = AppController(app)
    win = ctl.open(None, demo=True)
    demo = ctl._demo
    try:
        win.resize(1360, 820)
        for theme in ("light", "dark"):
            apply_theme(theme)
            settle(app)
            # The reader: a busy feed, one article open.
            win.select_feed(demo.feed_ids["ledger"])
            win.move(1, open_=True)
            win.move(1, open_=True)
            settle(app)
            win.grab().save(str(out / f"main-{theme}.png"))
            # The same article's page from the demo's site (Article > Load full article).
            win.toggle_full_article()
            while win.full_loads_pending():  # it loads in a thread
                app.processEvents()
                time.sleep(0.01)
            settle(app)
            win.grab().save(str(out / f"full-{theme}.png"))
            win.toggle_full_article()  # back to the feed's text
            # The activity panel for that feed, and the overview.
            win.tabs.setCurrentWidget(win.activity)
            settle(app)
            win.grab().save(str(out / f"activity-{theme}.png"))
            win.activity.feed_view.grab().save(str(out / f"activity-panel-{theme}.png"))
            win.select_key("smart:all")
            settle(app)
            win.activity.grab().save(str(out / f"overview-{theme}.png"))
            # A feed with a missed-item alert: banner over its list, and the Alerts view.
            alerts = win.store.alerts()
            if alerts:
                win.select_feed(alerts[0].feed_id)
                win.tabs.setCurrentWidget(win.alerts_view)
                settle(app)
                win.grab().save(str(out / f"alert-{theme}.png"))
            win.tabs.setCurrentWidget(win.article_view)
            # Settings with the budget feedback.
            dlg = win.open_settings()
            dlg.resize(620, dlg.sizeHint().height())
            settle(app)
            dlg.grab().save(str(out / f"settings-{theme}.png"))
            dlg.reject()
            # Rules: two of them, and a new one previewing what its words match.
            if not win.store.rules():
                win.store.add_rule("water board", now=time.time())
                win.store.add_rule(
                    "ferry", feed_id=demo.feed_ids["ledger"], action="star", now=time.time()
                )
            win.select_feed(demo.feed_ids["ledger"])
            rules = win.open_rules()
            rules.resize(640, 300)
            settle(app)
            rules.grab().save(str(out / f"rules-{theme}.png"))
            feeds = [(f.id, f.display_title) for f in win.store.feeds()]
            edit = RuleDialog(win.store, feeds, rules, words="harbour bridge",
                              feed_id=demo.feed_ids["ledger"])  # fmt: skip
            edit.show()
            while not edit.settled():  # its count runs in a thread
                app.processEvents()
                time.sleep(0.01)
            settle(app)
            edit.grab().save(str(out / f"rule-{theme}.png"))
            edit.reject()
            rules.close()
    finally:
        ctl.close()
    print(f"screenshots written to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
         / "docs" / "screenshots")  # fmt: skip
