"""Small wording of the CLI's output (audit s33 B: item 13). Before: ``explain``
of a feed with no history printed "rhythm: — — not enough history", and
``feeds`` on an empty folder named ``add`` but not ``import``. A real store, no
network (``import --no-fetch``)."""

from __future__ import annotations

from pathlib import Path

from smartreader.cli import main
from smartreader.storage import Store, db_path


def test_feeds_on_an_empty_folder_names_add_and_import(tmp_path: Path, capsys) -> None:
    Store(db_path(str(tmp_path / "data"))).close()  # an empty database
    assert main(["feeds", "--data-dir", str(tmp_path / "data")]) == 0
    out, err = capsys.readouterr()
    assert out == ""  # stdout stays empty for scripts
    assert "`smartreader add ADDRESS`" in err and "`smartreader import FILE.opml`" in err


def test_explain_without_history_gives_the_reason_once(tmp_path: Path, capsys) -> None:
    data = str(tmp_path / "data")
    src = tmp_path / "one.opml"
    src.write_text(
        '<?xml version="1.0"?><opml version="2.0"><body>'
        '<outline type="rss" text="Only" xmlUrl="https://e.example/feed"/></body></opml>'
    )
    assert main(["import", "--no-fetch", str(src), "--data-dir", data]) == 0
    capsys.readouterr()
    assert main(["explain", "1", "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "  rhythm: not enough history\n" in out
    assert "— —" not in out


def test_remove_without_a_keyring_says_nothing_of_a_password(tmp_path: Path, capsys, caplog):
    """It printed "its password stays in the keyring: No secure password storage
    … is available" twice (a log line and the CLI's own), about a keyring that
    does not exist and so holds nothing."""
    from smartreader.storage import Store, db_path

    data = str(tmp_path / "data")
    with Store(db_path(data)) as store:
        fid = store.add_feed("https://p.example/feed", title="Private")
        store.update_feed(fid, auth_username="ann")
    assert main(["remove", str(fid), "--data-dir", data]) == 0
    out, err = capsys.readouterr()
    assert out == "unsubscribed from “Private”: 0 articles deleted\n"
    assert err == ""
    assert "keyring" not in caplog.text
