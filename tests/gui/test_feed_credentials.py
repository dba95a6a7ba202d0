"""Feed properties keep the keyring entry in step with the feed's address and user."""

from __future__ import annotations

import keyring
import keyring.errors
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


def test_an_address_another_feed_has_is_refused_and_no_password_moves(qtbot, feed, kr):
    """The feed is checked before the keyring: saving another feed's address under
    the same user used to overwrite that feed's password and strand this one's."""
    store, fid = feed
    other = store.add_feed(NEW, title="Other")
    store.update_feed(other, auth_username="ann")
    credentials.store_password(NEW, "ann", "other-secret")
    dlg = FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(dlg)
    dlg.url.setText(NEW)
    dlg.save()
    assert dlg.result() != dlg.DialogCode.Accepted
    assert "another feed already has this address" in dlg.error.text()
    assert store.feed(fid).url == OLD
    assert credentials.get_password(OLD, "ann") == "s3cret"
    assert credentials.get_password(NEW, "ann") == "other-secret"


class RefusingKeyring(MemoryKeyring):
    """Reads work, writes are refused (a locked or policy-restricted keyring)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("the keyring is locked")


@pytest.mark.parametrize("fields", [{"url": NEW}, {"username": "bob"}, {"password": "n3w"}])
def test_a_keyring_that_refuses_leaves_the_feed_where_its_password_is(qtbot, feed, kr, fields):
    store, fid = feed
    refusing = RefusingKeyring()
    refusing.data = dict(kr.data)
    keyring.set_keyring(refusing)
    dlg = FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(dlg)
    dlg.title.setText("Renamed")
    for name, value in fields.items():
        getattr(dlg, name).setText(value)
    dlg.save()
    assert dlg.result() != dlg.DialogCode.Accepted
    assert "not changed" in dlg.error.text()
    f = store.feed(fid)
    assert (f.url, f.auth_username) == (OLD, "ann")  # still where the password is
    assert f.user_title == "Renamed"  # the rest of the change is kept
    assert credentials.get_password(OLD, "ann") == "s3cret"


def test_the_dialog_shows_where_a_feed_moved_from_and_a_pending_move(qtbot, tmp_path):
    from smartreader.storage.store import FetchRecord

    with Store(tmp_path / "moves.sqlite3") as store:
        fid = store.add_feed("http://site.example/feed")
        store.record_fetch(FetchRecord(fid, 1.0, "ok", redirect_url="https://site.example/feed"))
        store.record_fetch(FetchRecord(fid, 2.0, "ok", redirect_url="https://elsewhere.example/f"))
        dlg = FeedPropertiesDialog(store, fid, overlaps=[])
        qtbot.addWidget(dlg)
        text = dlg.info.text()
        assert "Moved from: http://site.example/feed" in text
        assert "moved to https://elsewhere.example/f" in text and "a week" in text


def test_without_a_keyring_the_password_can_be_kept_for_this_session(qtbot, tmp_path):
    """Row 60: no usable keyring (the tests' "fail" backend): the dialog offers to
    keep the password in memory until quit, and says so when opened again."""
    asked: list[str] = []

    def confirm(_parent, _title, text):
        asked.append(text)
        return len(asked) > 1  # declined the first time, taken the second

    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed(OLD, title="Private")
        dlg = FeedPropertiesDialog(store, fid, overlaps=[], confirm=confirm)
        qtbot.addWidget(dlg)
        dlg.username.setText("ann")
        dlg.password.setText("s3cret")
        dlg.save()
        assert dlg.result() != dlg.DialogCode.Accepted and "keyring" in dlg.error.text()
        assert "for this session only" in asked[0]
        assert store.feed(fid).auth_username is None  # declined: nothing changed
        dlg.save()
        assert dlg.result() == dlg.DialogCode.Accepted
        assert store.feed(fid).auth_username == "ann"
        assert credentials.get_password(OLD, "ann") == "s3cret"
        again = FeedPropertiesDialog(store, fid, overlaps=[], confirm=confirm)
        qtbot.addWidget(again)
        assert again.password.placeholderText() == "kept for this session only"
        # A new address takes the session's password along.
        again.url.setText(NEW)
        again.save()
        assert again.result() == again.DialogCode.Accepted
        assert credentials.get_password(NEW, "ann") == "s3cret"
        assert not credentials.kept_for_session(OLD, "ann")
    assert not any(b"s3cret" in p.read_bytes() for p in tmp_path.iterdir() if p.is_file())


def test_without_a_keyring_a_user_name_can_be_cleared_after_a_restart(qtbot, tmp_path):
    """No keyring and no session password (smartreader restarted): clearing the
    user name failed with the keyring's error and was undone."""
    with Store(tmp_path / "db.sqlite3") as store:
        fid = store.add_feed(OLD, title="Private")
        store.update_feed(fid, auth_username="ann")
        dlg = FeedPropertiesDialog(store, fid, overlaps=[])
        qtbot.addWidget(dlg)
        dlg.username.setText("")
        dlg.save()
        assert dlg.result() == dlg.DialogCode.Accepted, dlg.error.text()
        assert store.feed(fid).auth_username is None


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("not a url", "not a web address"),
        ("javascript:alert(1)", "only http and https"),
        ("ftp://x.example/feed", "only http and https"),
        ("file:///etc/passwd", "only http and https"),
        ("https://eve:pw@x.example/feed", "their own fields"),
    ],
)
def test_a_bad_address_is_refused_when_saved_and_nothing_changes(qtbot, feed, kr, typed, says):
    store, fid = feed
    dlg = FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(dlg)
    dlg.url.setText(typed)
    dlg.title.setText("Renamed")
    dlg.save()
    assert dlg.result() != dlg.DialogCode.Accepted
    assert says in dlg.error.text() and dlg.error.isVisibleTo(dlg)
    assert store.feed(fid).url == OLD and store.feed(fid).user_title is None
    assert credentials.get_password(OLD, "ann") == "s3cret"


def test_an_address_without_a_scheme_gets_https(qtbot, feed, kr):
    store, fid = feed
    _save(qtbot, store, fid, url="new.example/feed.xml")
    assert store.feed(fid).url == "https://new.example/feed.xml"


def test_without_a_keyring_the_empty_password_says_it_is_kept_for_this_session(qtbot, tmp_path):
    """Like the Add feed dialog: with no usable keyring (the tests' "fail"
    backend) the password field said "stored in the system keyring"."""
    assert not credentials.keyring_available()
    with Store(tmp_path / "db.sqlite3") as store:
        public = store.add_feed(OLD, title="Public")
        private = store.add_feed(NEW, title="Private")
        store.update_feed(private, auth_username="ann")  # a restart: no password now
        for fid in (public, private):
            dlg = FeedPropertiesDialog(store, fid, overlaps=[])
            qtbot.addWidget(dlg)
            assert dlg.password.placeholderText() == "kept for this session only"
            assert "No system keyring" in dlg.password.toolTip()


def test_with_a_keyring_the_empty_password_says_where_it_goes(qtbot, feed):
    store, fid = feed
    public = store.add_feed(NEW, title="Public")
    dlg = FeedPropertiesDialog(store, public, overlaps=[])
    qtbot.addWidget(dlg)
    assert dlg.password.placeholderText() == "stored in the system keyring"
    assert dlg.password.toolTip() == ""
    saved = FeedPropertiesDialog(store, fid, overlaps=[])
    qtbot.addWidget(saved)
    assert saved.password.placeholderText() == "unchanged"
