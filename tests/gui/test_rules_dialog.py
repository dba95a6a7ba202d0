"""Feed ▸ Rules…: the list of rules, the rule dialog's live preview, applying a
new rule to the articles stored already as one undo step, and a rule at work on
a fetch through the real worker (real widgets, Store, Updater and local HTTP)."""

from __future__ import annotations

import time

import pytest
from PySide6.QtWidgets import QDialogButtonBox

from smartreader.gui import rules as rules_module
from smartreader.gui.rules import RuleDialog, RulesDialog
from tests.gui.test_mainwindow import rss, serve, stored_feed, unread_of

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

QUIET = {"autostart_polling": False}  # the stored feeds' addresses are not fetched


def _titles(i: int) -> str:
    return ["Sponsored: buy now", "Football results", "Weather", "Football transfer news"][i % 4]


@pytest.fixture
def feeds(env):
    a = stored_feed(env, "Alpha", 8, title=_titles)  # two of each title
    b = stored_feed(env, "Beta", 4, title=_titles)
    return a, b


def _feeds(env):
    return [(f.id, f.display_title) for f in env.store.feeds()]


def _ok(dlg: RuleDialog):
    return dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)


def _preview(qtbot, dlg: RuleDialog) -> str:
    """The preview for what the dialog holds now (counted in a thread)."""
    dlg.update_preview()  # (the typing timer, run now)
    qtbot.waitUntil(dlg.settled, timeout=5000)
    return dlg.preview.text()


def test_the_rule_dialog_previews_what_the_words_match(env, qtbot, feeds):
    a, _b = feeds
    dlg = RuleDialog(env.store, _feeds(env), feed_id=a)
    qtbot.addWidget(dlg)
    assert dlg.scope.currentData() == a
    assert not _ok(dlg).isEnabled() and "Type the words" in dlg.preview.text()
    dlg.words.setText("football")
    assert _preview(qtbot, dlg) == "4 stored articles match, 4 of them unread."
    assert _ok(dlg).isEnabled()
    assert not dlg.apply_now.isHidden() and dlg.apply_now.text() == "Also mark those 4 as read now"
    assert dlg.ids_to_apply() == []  # not ticked
    dlg.apply_now.setChecked(True)
    assert len(dlg.ids_to_apply()) == 4
    dlg.scope.setCurrentIndex(dlg.scope.findData(None))  # all feeds
    dlg.words.setText("football   results")
    assert _preview(qtbot, dlg).startswith("3 stored articles match")
    dlg.action.setCurrentIndex(dlg.action.findData("star"))
    _preview(qtbot, dlg)
    assert dlg.apply_now.text() == "Also star those 3 now"
    dlg.title_only.setChecked(True)
    dlg.words.setText("foot")  # whole words: no match
    assert _preview(qtbot, dlg) == "No stored article matches these words yet."
    assert dlg.apply_now.isHidden() and dlg.ids_to_apply() == []
    dlg.words.setText("🎉 !")
    assert "No word to look for" in _preview(qtbot, dlg)
    assert not _ok(dlg).isEnabled()
    dlg.words.setText("  football  ")
    assert dlg.values() == {
        "query": "football",
        "feed_id": None,
        "title_only": True,
        "action": "star",
    }


def _answer(qtbot, **fields):
    """An ``edit`` for RulesDialog: fills the rule dialog as a user would, then OK."""
    seen: list[RuleDialog] = []

    def edit(dlg: RuleDialog) -> bool:
        seen.append(dlg)
        if "words" in fields:
            dlg.words.setText(fields["words"])
        if "feed" in fields:
            dlg.scope.setCurrentIndex(dlg.scope.findData(fields["feed"]))
        if "action" in fields:
            dlg.action.setCurrentIndex(dlg.action.findData(fields["action"]))
        if "title_only" in fields:
            dlg.title_only.setChecked(fields["title_only"])
        _preview(qtbot, dlg)
        if fields.get("apply"):
            dlg.apply_now.setChecked(True)
        return len(seen) == 1  # a second showing (after an error) is cancelled

    edit.seen = seen  # type: ignore[attr-defined]
    return edit


def test_add_edit_and_remove(env, qtbot, feeds):
    a, _b = feeds
    answers = iter([False, True])
    dlg = RulesDialog(
        env.store, _feeds(env), feed_id=a, confirm=lambda *_: next(answers),
        edit=_answer(qtbot, words="sponsored", feed=None),
    )  # fmt: skip
    qtbot.addWidget(dlg)
    assert dlg.table.topLevelItemCount() == 0 and not dlg.empty.isHidden()
    assert not dlg.edit_button.isEnabled() and not dlg.remove_button.isEnabled()
    with qtbot.assert_not_emitted(dlg.applyRequested):  # the box was not ticked
        dlg.add_rule()
    (rule,) = env.store.rules()
    assert (rule.query, rule.feed_id, rule.action, rule.title_only) == (
        "sponsored", None, "read", False,
    )  # fmt: skip
    item = dlg.table.topLevelItem(0)
    assert [item.text(c) for c in range(4)] == [
        "sponsored",
        "All feeds",
        "Mark as read",
        "0 articles",
    ]
    assert dlg.empty.isHidden() and dlg.remove_button.isEnabled()
    qtbot.waitUntil(lambda: not dlg.findChildren(RuleDialog), timeout=3000)  # not kept

    dlg._edit = _answer(qtbot, words="football", feed=a, action="star", title_only=True)
    dlg.edit_rule()
    (rule,) = env.store.rules()
    assert (rule.query, rule.feed_id, rule.action, rule.title_only) == ("football", a, "star", True)
    item = dlg.table.topLevelItem(0)
    assert [item.text(c) for c in range(3)] == ["football (title)", "Alpha", "Star"]

    dlg.remove_rule()  # "No"
    assert len(env.store.rules()) == 1
    dlg.remove_rule()  # "Yes"
    assert env.store.rules() == [] and dlg.table.topLevelItemCount() == 0
    assert not dlg.empty.isHidden()


def test_a_rule_that_cannot_be_saved_says_why_and_shows_the_dialog_again(
    env, qtbot, feeds, monkeypatch
):
    a, _b = feeds
    warned: list[str] = []
    monkeypatch.setattr(rules_module, "warn", lambda _p, _t, text: warned.append(text))
    answer = _answer(qtbot, words="weather", feed=a)
    dlg = RulesDialog(env.store, _feeds(env), feed_id=a, edit=answer)
    qtbot.addWidget(dlg)
    env.store.delete_feed(a)  # unsubscribed meanwhile (another window, the CLI)
    dlg.add_rule()
    assert warned == [f"no feed with id {a}"]
    assert len(answer.seen) == 2 and answer.seen[1].words.text() == "weather"  # as typed
    assert env.store.rules() == []


def test_applying_a_new_rule_to_stored_articles_is_one_undo_step(env, qtbot, feeds):
    a, b = feeds
    win = env.window(scheduler_options=QUIET)
    win.select_feed(a)
    win.search.setText("football")
    dlg = win.open_rules()
    answer = _answer(qtbot, apply=True)
    dlg._edit = answer
    with qtbot.wait_signal(dlg.applyRequested) as sig:
        dlg.add_rule()
    new = answer.seen[0]
    assert new.words.text() == "football" and new.scope.currentData() == a  # from the window
    assert len(sig.args[0]) == 4 and sig.args[1] == "read"
    assert unread_of(win, f"feed:{a}") == 4 and unread_of(win, f"feed:{b}") == 4
    assert "Marked 4 articles as read by the rule “football”" in win.statusBar().currentMessage()
    win.undo_stack.undo()
    assert unread_of(win, f"feed:{a}") == 8
    win.undo_stack.redo()
    assert unread_of(win, f"feed:{a}") == 4
    dlg.close()


def test_a_rule_mutes_what_the_worker_fetches(env, qtbot, feed_server):
    """Posts 1-4 "about cats", post 2 "about zebras" (tests.gui.test_mainwindow.rss)."""
    url = serve(feed_server, "/a.xml", rss(2))
    win = env.window()
    fid = env.updater.subscribe(url)
    env.store.add_rule("zebras", now=time.time())
    # posts 2-4: 3 and 4 are new, 3 now about zebras; 2 was stored before the rule
    body = rss(3, start=2).replace(b"Post 3 about cats", b"Post 3 about zebras")
    serve(feed_server, "/a.xml", body)
    results = []
    win.sched.feedUpdated.connect(results.append)
    win.tree_model.reload()
    win.select_feed(fid)
    win.refresh_current()
    qtbot.waitUntil(lambda: bool(results), timeout=10_000)
    (r,) = results
    assert (r.status, r.new_entries, r.ruled_read) == ("ok", 2, 1)
    titles = {env.store.entry(e).title: env.store.entry(e).read for e in env.store.entry_ids()}
    assert titles == {
        "Post 1 about cats": False,
        "Post 2 about zebras": False,  # stored before the rule
        "Post 3 about zebras": True,
        "Post 4 about cats": False,
    }
    qtbot.waitUntil(lambda: unread_of(win, f"feed:{fid}") == 3, timeout=5000)


def test_the_preview_follows_typing_once_it_pauses(env, qtbot, feeds):
    dlg = RuleDialog(env.store, _feeds(env))
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    qtbot.keyClicks(dlg.words, "weather")
    assert "Type the words" in dlg.preview.text()  # not one count per key
    qtbot.waitUntil(lambda: dlg.preview.text().startswith("3 stored articles"), timeout=3000)
    # the words changed while a count was under way: only the newer one is shown
    dlg.words.setText("football")
    dlg.update_preview()
    dlg.words.setText("weather")
    dlg.update_preview()
    qtbot.waitUntil(dlg.settled, timeout=3000)
    qtbot.wait(100)  # the older count's answer, if it came late, is passed over
    assert dlg.preview.text().startswith("3 stored articles")
    dlg.close()
    dlg.words.setText("football")  # closed: no count (its store may be closed too)
    qtbot.wait(2 * rules_module.PREVIEW_DELAY_MS)
    assert dlg.preview.text().startswith("3 stored articles")


def test_feed_properties_name_the_rules_that_apply_to_the_feed(env, qtbot, feeds):
    from smartreader.gui.dialogs import FeedPropertiesDialog

    a, b = feeds
    env.store.add_rule("football", feed_id=a, title_only=True, action="star", now=0.0)
    env.store.add_rule("<sponsored>", now=0.0)
    dlg = FeedPropertiesDialog(env.store, a, overlaps=[])
    qtbot.addWidget(dlg)
    assert (
        "Rules (Feed ▸ Rules…): “football” in titles stars; “&lt;sponsored&gt;” marks read "
        "(every feed)" in dlg.info.text()
    )
    other = FeedPropertiesDialog(env.store, b, overlaps=[])
    qtbot.addWidget(other)
    assert "“&lt;sponsored&gt;” marks read (every feed)" in other.info.text()
    assert "football" not in other.info.text()


def test_the_same_rule_again_is_not_a_twin_but_still_applies(env, qtbot, feeds):
    dlg = RulesDialog(env.store, _feeds(env), edit=_answer(qtbot, words="weather"))
    qtbot.addWidget(dlg)
    dlg.add_rule()
    (rule,) = env.store.rules()
    dlg._edit = _answer(qtbot, words="  weather ", apply=True)
    with qtbot.wait_signal(dlg.applyRequested) as sig:
        dlg.add_rule()
    assert [r.id for r in env.store.rules()] == [rule.id]
    assert len(sig.args[0]) == 3 and dlg.table.topLevelItemCount() == 1
    dlg._edit = _answer(qtbot, words="weather", action="star")  # another action: a rule
    dlg.add_rule()
    assert len(env.store.rules()) == 2
