"""`smartreader import` / `export` with files that are not what they should be, and
places that cannot be written (audit s32: B3, B5, R4): a clear message, exit 1
for what cannot be done, nothing lost and nothing left behind. Real files, a real
store, no network (--no-fetch)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from smartreader.storage.store import Store
from tests.e2e.test_cli import run


def opml(n: int, folder: str = "News") -> bytes:
    outlines = "".join(
        f'<outline type="rss" text="Feed {i}" xmlUrl="https://e{i}.example/feed"/>'
        for i in range(n)
    )
    return (
        f'<?xml version="1.0"?><opml version="2.0"><body><outline text="{folder}">'
        f"{outlines}</outline></body></opml>"
    ).encode()


def _import(capsys, tmp_path: Path, data: str, content: bytes) -> tuple[int, str, str]:
    src = tmp_path / "in.opml"
    src.write_bytes(content)
    return run(capsys, "import", "--no-fetch", str(src), "--data-dir", data)


def _partials(root: Path) -> list[Path]:
    return list(root.rglob("*.partial"))


@pytest.fixture
def subscribed(capsys, tmp_path, data):
    code, _, err = _import(capsys, tmp_path, data, opml(3))
    assert code == 0, err
    return data


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        # a missing folder is created: tests/e2e/test_cli_target_folders.py
        ("a-file/deeper/subs.opml", "Not a directory"),
        ("a-folder", "it is a folder"),
        ("a-file/subs.opml", "Not a directory"),
    ],
)
def test_export_where_it_cannot_be_written_is_a_clear_error(
    capsys, tmp_path, subscribed, target, reason
):
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("mine")
    dest = tmp_path / target
    code, out, err = run(capsys, "export", str(dest), "--data-dir", subscribed)
    assert code == 1
    assert err == f"smartreader: cannot write {dest}: {reason}\n"
    assert out == ""
    assert _partials(tmp_path) == []
    assert (tmp_path / "a-file").read_text() == "mine"
    assert list((tmp_path / "a-folder").iterdir()) == []


def test_export_that_fails_while_writing_leaves_the_old_file_and_no_partial(
    capsys, tmp_path, subscribed, monkeypatch
):
    dest = tmp_path / "subs.opml"
    dest.write_text("the previous export")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    code, _, err = run(capsys, "export", str(dest), "--data-dir", subscribed)
    assert code == 1
    assert err == f"smartreader: cannot write {dest}: No space left on device\n"
    assert dest.read_text() == "the previous export"
    assert _partials(tmp_path) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_export_into_a_read_only_folder_is_a_clear_error(capsys, tmp_path, subscribed):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, _, err = run(capsys, "export", str(ro / "subs.opml"), "--data-dir", subscribed)
    finally:
        ro.chmod(0o700)
    assert code == 1 and "cannot write" in err and "Permission denied" in err
    assert _partials(tmp_path) == []


def test_export_counts_as_import_does(capsys, tmp_path, data):
    code, out, err = _import(capsys, tmp_path, data, opml(1_200))
    assert code == 0, err
    assert out == "imported 1,200 feeds\n"
    code, out, _ = run(capsys, "export", str(tmp_path / "all.opml"), "--data-dir", data)
    assert code == 0 and out == f"exported 1,200 feeds to {tmp_path / 'all.opml'}\n"
    with Store(Path(data) / "smartreader.sqlite3") as store:
        for f in store.feeds()[1:]:
            store.delete_feed(f.id)
    code, out, _ = run(capsys, "export", str(tmp_path / "one.opml"), "--data-dir", data)
    assert out == f"exported 1 feed to {tmp_path / 'one.opml'}\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"<!DOCTYPE html><html><body><p>Not Found & gone</p></body></html>",
         "not an OPML file (it is an HTML page)"),
        (b"<html><head><title>404</title></head></html>", "not an OPML file (it is an HTML page)"),
        (b'<!DOCTYPE opml [<!ENTITY a "aaaa">]><opml><body/></opml>',
         "the OPML file declares entities in a DTD; refused as unsafe"),
    ],
)  # fmt: skip
def test_a_file_that_is_no_opml_says_what_it_is(capsys, tmp_path, data, content, message):
    code, out, err = _import(capsys, tmp_path, data, content)
    assert (code, out, err) == (1, "", f"smartreader: {message}\n")


def test_sloppy_files_come_in_with_a_note(capsys, tmp_path, data):
    latin1 = '<opml version="1.0"><body><outline text="Café" xmlUrl="https://a.example/"/>'
    code, out, err = _import(capsys, tmp_path, data, (latin1 + "</body></opml>").encode("latin-1"))
    assert code == 0 and out == "imported 1 feed, 1 note\n"
    assert err.startswith("note: read leniently: the file is not UTF-8")
    amp = b'<opml><body><outline text="A & B" xmlUrl="https://b.example/?x=1&y=2"/></body></opml>'
    code, out, err = _import(capsys, tmp_path, data, amp)
    assert code == 0 and out == "imported 1 feed, 1 note\n"
    assert err == "note: read leniently: 2 bare '&' (not written '&amp;') taken as '&'\n"
    with Store(Path(data) / "smartreader.sqlite3") as store:
        got = sorted((f.title, f.url) for f in store.feeds())
    assert got == [("A & B", "https://b.example/?x=1&y=2"), ("Café", "https://a.example/")]


def test_nested_feeds_and_empty_folders_come_in(capsys, tmp_path, data):
    content = b"""<opml version="1.0"><body>
      <outline text="Parent" xmlUrl="https://p.example/feed">
        <outline text="Child" xmlUrl="https://c.example/feed"/>
      </outline>
      <outline text="Empty Folder"/>
      <outline text="Dup" xmlUrl="https://c.example/feed"/>
    </body></opml>"""
    code, out, err = _import(capsys, tmp_path, data, content)
    assert code == 0
    assert out == "imported 2 feeds, 1 empty folder, 1 problem, 1 note\n"
    assert err.splitlines() == [
        "skipped: outline 'Dup': duplicate of https://c.example/feed",
        "note: the feed 'Parent' holds outlines of its own: they went into the folder 'Parent'",
    ]
    code, _, _ = run(capsys, "export", str(tmp_path / "out.opml"), "--data-dir", data)
    written = (tmp_path / "out.opml").read_text()
    assert code == 0 and "Empty Folder" in written and "https://c.example/feed" in written


@pytest.mark.parametrize("address", ["http://127.0.0.1:9/list.opml", "HTTPS://x.example/a.opml"])
def test_import_of_a_web_address_says_to_save_the_list_first(capsys, data, address):
    """It said "cannot read http:/127.0.0.1:9/list.opml: No such file…" (a path
    made of the address, one slash lost)."""
    code, _out, err = run(capsys, "import", address, "--data-dir", data)
    assert code == 1
    assert "import reads a file: save the list first" in err and "http:/1" not in err
