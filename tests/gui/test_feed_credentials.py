"""Feed properties keep the keyring entry in step with the feed's address and user."""

from __future__ import annotations

import keyring
import pytest

from smartreader.gui.dialogs import FeedPropertiesDialog
from smartreader.net import credentials
from smartreader.storage.store import Store
from tests.keyrings import MemoryKeyring

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

OLD, NEW = "https://old.example/feed", "https://new.example/feed"


@pytest.fixture
def kr():
    previous = keyring.get_keyring()
    mem = MemoryKeyring()
    keyring.set_keyring(mem)
    yield mem
    keyring.set_keyring(previous)


@pytest.fixture
def feed(tmp_path, kr):
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed(OLD, title="Private")
        store.update_feed(fid, auth_username="ann")
        credentials.store_password(OLD, "ann", "s3cret")
        yield store, fid


def _save(qtbot, store, fid, **fields):
    dlg = FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(dlg)
    for name, value in fields.items():
        getattr(dlg, name).setText(value)
    dlg.save()
    assert dlg.result() == dlg.DialogCode.Accepted, dlg.error.text()


def test_changing_the_url_moves_the_saved_password(qtbot, feed, kr):
    store, fid = feed
    _save(qtbot, store, fid, url=NEW)
    assert store.feed(fid).url == NEW
    assert credentials.get_password(NEW, "ann") == "s3cret"
    assert credentials.get_password(OLD, "ann") is None  # nothing left behind
    assert len(kr.data) == 1


def test_changing_the_user_name_moves_it_too(qtbot, feed, kr):
    store, fid = feed
    _save(qtbot, store, fid, username="bob")
    assert credentials.get_password(OLD, "bob") == "s3cret"
    assert credentials.get_password(OLD, "ann") is None


def test_a_new_password_replaces_the_old_entry(qtbot, feed, kr):
    store, fid = feed
    _save(qtbot, store, fid, url=NEW, password="n3w")
    assert credentials.get_password(NEW, "ann") == "n3w"
    assert len(kr.data) == 1


def test_clearing_the_user_name_forgets_the_password(qtbot, feed, kr):
    store, fid = feed
    _save(qtbot, store, fid, username="")
    assert store.feed(fid).auth_username is None
    assert kr.data == {}


def test_unchanged_properties_leave_the_password_alone(qtbot, feed, kr):
    store, fid = feed
    _save(qtbot, store, fid)
    assert credentials.get_password(OLD, "ann") == "s3cret"
