"""The command line end to end: real SQLite file, real HTTP on 127.0.0.1."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from smartreader.cli import main
from smartreader.storage import db_path
from smartreader.storage.store import Store
from tests.httpserver import Reply


def rss(n: int, start: int = 0, title: str = "Example feed") -> bytes:
    items = "".join(
        f"<item><guid>item-{i}</guid><title>Post number {i} about rust</title>"
        f"<link>/posts/{i}</link><pubDate>Mon, 01 Jun 2026 {i % 24:02d}:00:00 GMT</pubDate>"
        f"<description>&lt;p&gt;Body {i}&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
        "</description></item>"
        for i in range(start, start + n)
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>{title}</title>'
        f"<link>https://example.org/</link><ttl>60</ttl>{items}</channel></rss>"
    ).encode()


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_subscribe_fetch_list_search(feed_server, data, capsys):
    feed_server.route("/feed.xml", Reply(body=rss(5), headers={"ETag": '"v1"'}))
    code, out, err = run(
        capsys, "add", feed_server.url("/feed.xml"), "--folder", "News", "--data-dir", data
    )
    assert code == 0, err
    assert "subscribed [1] Example feed" in out and "5 entries" in out

    code, out, _ = run(capsys, "feeds", "--json", "--data-dir", data)
    [feed] = json.loads(out)
    assert (feed["title"], feed["folder"], feed["unread"]) == ("Example feed", "News", 5)

    code, out, _ = run(capsys, "entries", "--json", "--data-dir", data)
    entries = json.loads(out)
    assert len(entries) == 5
    # Relative links resolved against the feed URL; nothing executable stored.
    assert entries[0]["link"].startswith(feed_server.url("/posts/"))
    db = sqlite3.connect(f"{data}/smartreader.sqlite3")
    for (content,) in db.execute("SELECT content || summary FROM entries"):
        assert "<script" not in content
    db.close()

    code, out, _ = run(capsys, "entries", "--search", "number 3", "--json", "--data-dir", data)
    assert [e["title"] for e in json.loads(out)] == ["Post number 3 about rust"]


def test_update_uses_conditional_get_and_304(feed_server, data, capsys):
    feed_server.route(
        "/feed.xml",
        lambda req: (
            Reply(status=304)
            if req.header("if-none-match") == 'W/"v1"'
            else Reply(body=rss(3), headers={"ETag": 'W/"v1"', "Last-Modified": "whenever"})
        ),
    )
    assert run(capsys, "add", feed_server.url("/feed.xml"), "--data-dir", data)[0] == 0
    code, out, _ = run(capsys, "update", "--data-dir", data)
    assert code == 0 and "0 new entries, 0 failed" in out
    last = feed_server.requests[-1]
    assert last.header("if-none-match") == 'W/"v1"'
    assert last.header("if-modified-since") == "whenever"
    db = sqlite3.connect(f"{data}/smartreader.sqlite3")
    rows = db.execute("SELECT status, http_status FROM fetch_log ORDER BY id").fetchall()
    assert rows == [("ok", 200), ("not_modified", 304)]
    assert db.execute("SELECT etag, last_modified FROM feeds").fetchone() == ('W/"v1"', "whenever")
    db.close()


def test_new_items_arrive_and_errors_are_per_feed(feed_server, data, capsys):
    feed_server.route("/a.xml", [Reply(body=rss(3)), Reply(body=rss(3, start=2))])
    feed_server.route("/b.xml", [Reply(body=rss(2, title="B")), Reply(status=500)])
    assert run(capsys, "add", feed_server.url("/a.xml"), "--data-dir", data)[0] == 0
    assert run(capsys, "add", feed_server.url("/b.xml"), "--data-dir", data)[0] == 0
    code, out, err = run(capsys, "update", "--data-dir", data)
    assert code == 0
    assert "2 new entries, 1 failed" in out
    assert "500" in err
    code, out, _ = run(capsys, "feeds", "--json", "--data-dir", data)
    feeds = {f["title"]: f for f in json.loads(out)}
    assert feeds["B"]["error"] and feeds["B"]["unread"] == 2  # nothing lost
    assert feeds["Example feed"]["unread"] == 5


def test_update_exits_1_when_every_feed_failed(feed_server, data, capsys):
    """It said "1 failed" and exited 0: a cron job or script could not tell an
    offline machine from a good run. One failure among several still exits 0."""
    feed_server.route("/a.xml", [Reply(body=rss(2)), Reply(status=500)])
    # not a 503: it blocks the host, and "/a.xml" on the same host, if fetched
    # after it, would then say it was asked to wait instead of its 500
    feed_server.route("/b.xml", [Reply(body=rss(2, title="B")), Reply(status=404)])
    assert run(capsys, "add", feed_server.url("/a.xml"), "--data-dir", data)[0] == 0
    assert run(capsys, "add", feed_server.url("/b.xml"), "--data-dir", data)[0] == 0
    code, out, err = run(capsys, "update", "--data-dir", data)
    assert code == 1
    assert "0 new entries, 2 failed" in out and "500" in err
    code, _out, _err = run(capsys, "update", "1", "--data-dir", data)
    assert code == 1  # a feed asked for by id that fails


def test_add_by_site_url_discovers_the_feed(feed_server, data, capsys):
    feed_server.route(
        "/",
        Reply(
            body=b'<html><head><link rel="alternate" type="application/rss+xml" '
            b'href="/feeds/main.xml" title="Main"></head><body>hi</body></html>',
            headers={"Content-Type": "text/html; charset=utf-8"},
        ),
    )
    feed_server.route("/feeds/main.xml", Reply(body=rss(2)))
    code, out, err = run(capsys, "add", feed_server.url("/"), "--data-dir", data)
    assert code == 0, err
    assert feed_server.url("/feeds/main.xml") in out


def test_add_on_a_site_with_several_feeds_takes_the_first_working_one_and_names_the_rest(
    feed_server, data, capsys
):
    links = "".join(
        f'<link rel="alternate" type="application/rss+xml" href="{h}" title="{t}">'
        for h, t in (("/c.xml", "Comments"), ("/broken.xml", "Posts"), ("/n.xml", "News"),
                     ("/s.xml", "Sport"))
    )  # fmt: skip
    feed_server.route(
        "/", Reply(body=f"<html><head>{links}</head></html>".encode(),
                   headers={"Content-Type": "text/html"}),
    )  # fmt: skip
    feed_server.route("/broken.xml", Reply(status=500))
    for path in ("/c.xml", "/n.xml", "/s.xml"):
        feed_server.route(path, Reply(body=rss(1)))
    code, out, err = run(capsys, "add", feed_server.url("/"), "--data-dir", data)
    assert code == 0, err
    # Posts failed, so News is taken; Sport and Comments are named, not fetched.
    assert f"<{feed_server.url('/n.xml')}>: 1 entry" in out
    assert "the site links 2 more" in out
    assert "skipped Posts: " in err and "500" in err
    assert f"Sport (RSS) <{feed_server.url('/s.xml')}>" in out
    assert f"Comments (RSS) <{feed_server.url('/c.xml')}>" in out
    assert not feed_server.requests_for("/s.xml") and not feed_server.requests_for("/c.xml")


def test_add_not_a_feed_is_a_clear_error(feed_server, data, capsys):
    feed_server.route(
        "/", Reply(body=b"<html><body>nothing</body></html>", headers={"Content-Type": "text/html"})
    )
    code, _, err = run(capsys, "add", feed_server.url("/"), "--data-dir", data)
    assert code == 1 and "no feed found" in err
    code, out, _ = run(capsys, "feeds", "--json", "--data-dir", data)
    assert json.loads(out) == []


def test_gone_stops_polling(feed_server, data, capsys):
    feed_server.route("/f.xml", [Reply(body=rss(1)), Reply(status=410)])
    run(capsys, "add", feed_server.url("/f.xml"), "--data-dir", data)
    run(capsys, "update", "--data-dir", data)
    n = len(feed_server.requests)
    run(capsys, "update", "--data-dir", data)
    assert len(feed_server.requests) == n  # no request to a feed that is gone
    _, out, _ = run(capsys, "feeds", "--json", "--data-dir", data)
    [feed] = json.loads(out)
    assert feed["status"] == "gone" and "410" in feed["error"]


def test_credentials_without_keyring_are_refused_and_not_stored(feed_server, data, capsys):
    # conftest selects keyring's "fail" backend: there is no keyring here.
    feed_server.route("/f.xml", Reply(body=rss(1)))
    url = feed_server.url("/f.xml").replace("http://", "http://alice:s3cret@")
    code, out, err = run(capsys, "add", url, "--data-dir", data)
    assert code == 1 and "keyring" in err.lower()
    assert "s3cret" not in out + err
    db_file = f"{data}/smartreader.sqlite3"
    with open(db_file, "rb") as f:
        assert b"s3cret" not in f.read()


def test_opml_roundtrip_and_backup(feed_server, data, capsys, tmp_path):
    feed_server.route("/a.xml", Reply(body=rss(2, title="Alpha")))
    feed_server.route("/b.xml", Reply(body=rss(2, title="Beta")))
    opml = tmp_path / "in.opml"
    opml.write_text(
        f"""<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
        <outline text="Tech"><outline text="Alpha" type="rss" xmlUrl="{feed_server.url("/a.xml")}"/>
          <outline text="Deep"><outline text="Beta" xmlUrl="{feed_server.url("/b.xml")}"/>
          </outline></outline>
        <outline text="Dup" type="rss" xmlUrl="{feed_server.url("/a.xml")}"/>
        <outline text="broken"/>
        </body></opml>""",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "import", str(opml), "--data-dir", data)
    assert code == 0, err
    assert "imported 2 feeds" in out
    code, out, _ = run(capsys, "feeds", "--json", "--data-dir", data)
    feeds = json.loads(out)
    assert sorted(f["title"] for f in feeds) == ["Alpha", "Beta"]
    assert all(f["unread"] == 2 for f in feeds)
    assert {(f["priority"], f["min_interval_minutes"], f["keep_days"]) for f in feeds} == {
        (1.0, None, None)
    }

    with Store(Path(data) / "smartreader.sqlite3") as store:
        store.update_feed(feeds[0]["id"], weight=2.5, keep_days=0)
    code, out, _ = run(capsys, "feeds", "--json", "--data-dir", data)
    changed = next(f for f in json.loads(out) if f["id"] == feeds[0]["id"])
    assert (changed["priority"], changed["keep_days"]) == (2.5, 0)

    out_opml = tmp_path / "out.opml"
    assert run(capsys, "export", str(out_opml), "--data-dir", data)[0] == 0
    text = out_opml.read_text(encoding="utf-8")
    assert feed_server.url("/a.xml") in text and feed_server.url("/b.xml") in text
    assert 'smartreader:priority="2.5" smartreader:keepDays="0"' in text

    backup = tmp_path / "bk" / "copy.sqlite3"
    assert run(capsys, "backup", str(backup), "--data-dir", data)[0] == 0
    db = sqlite3.connect(backup)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT count(*) FROM entries").fetchone()[0] == 4
    db.close()


def test_explain_prints_the_plan(feed_server, data, capsys):
    feed_server.route("/f.xml", Reply(body=rss(10)))
    run(capsys, "add", feed_server.url("/f.xml"), "--data-dir", data)
    code, out, err = run(capsys, "explain", "1", "--data-dir", data)
    assert code == 0, err
    assert "items/day" in out and "next planned fetches" in out
    rhythm = [line for line in out.splitlines() if line.startswith("  rhythm: ")]
    assert len(rhythm) == 1
    said = rhythm[0].split(": ", 1)[1]  # with too little history, only the reason
    assert said == "not enough history" or said.split()[0] in ("Strong", "Clear", "Weak")
    code, out, _ = run(capsys, "explain", "1", "--json", "--data-dir", data)
    ex = json.loads(out)
    assert len(ex["lambda_week"]) == 168 and ex["planned"]


def test_remove_unsubscribes_and_checks_every_id_first(feed_server, data, capsys):
    feed_server.route("/a.xml", Reply(body=rss(3, title="Alpha")))
    feed_server.route("/b.xml", Reply(body=rss(2, title="Beta")))
    for path in ("/a.xml", "/b.xml"):
        assert run(capsys, "add", feed_server.url(path), "--data-dir", data)[0] == 0
    code, _, err = run(capsys, "remove", "1", "42", "--data-dir", data)
    assert code == 1 and "no feed with id 42" in err
    assert len(json.loads(run(capsys, "feeds", "--json", "--data-dir", data)[1])) == 2
    code, out, err = run(capsys, "remove", "1", "1", "--data-dir", data)
    assert code == 0, err
    assert out.strip() == "unsubscribed from “Alpha”: 3 articles deleted"
    feeds = json.loads(run(capsys, "feeds", "--json", "--data-dir", data)[1])
    assert [f["title"] for f in feeds] == ["Beta"]
    assert len(json.loads(run(capsys, "entries", "--json", "--data-dir", data)[1])) == 2


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("answer", ["", "n", "y"])
def test_remove_at_a_terminal_says_what_goes_and_asks_first(
    feed_server, data, capsys, monkeypatch, answer
):
    feed_server.route("/a.xml", Reply(body=rss(3, title="Alpha")))
    assert run(capsys, "add", feed_server.url("/a.xml"), "--data-dir", data)[0] == 0
    monkeypatch.setattr(sys, "stdin", _Terminal(answer + "\n"))
    code, out, _ = run(capsys, "remove", "1", "--data-dir", data)
    assert "[1] Alpha (3 articles)" in out and "cannot be undone" in out
    left = json.loads(run(capsys, "feeds", "--json", "--data-dir", data)[1])
    if answer == "y":
        assert code == 0 and "unsubscribed from “Alpha”" in out and left == []
    else:  # Enter alone is No
        assert code == 1 and "nothing removed" in out and len(left) == 1


def test_remove_yes_does_not_ask(feed_server, data, capsys, monkeypatch):
    feed_server.route("/a.xml", Reply(body=rss(3, title="Alpha")))
    assert run(capsys, "add", feed_server.url("/a.xml"), "--data-dir", data)[0] == 0
    monkeypatch.setattr(sys, "stdin", _Terminal(""))  # a prompt would read EOF: No
    code, out, _ = run(capsys, "remove", "--yes", "1", "--data-dir", data)
    assert code == 0 and "cannot be undone" not in out
    assert json.loads(run(capsys, "feeds", "--json", "--data-dir", data)[1]) == []


def test_unknown_feed_and_bad_file_are_clear_errors(data, capsys, tmp_path):
    Store(db_path(data)).close()  # an empty database (none there: "no smartreader data")
    code, _, err = run(capsys, "update", "42", "--data-dir", data)
    assert code == 1 and "no feed with id 42" in err
    code, _, err = run(capsys, "import", str(tmp_path / "missing.opml"), "--data-dir", data)
    assert code == 1 and "cannot read" in err


def test_version_and_help_need_no_display():
    env_run = [sys.executable, "-m", "smartreader"]
    out = subprocess.run([*env_run, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("smartreader ")
    out = subprocess.run([*env_run, "--help"], capture_output=True, text=True, check=True)
    assert "update" in out.stdout and "replay" in out.stdout


def test_opml_with_credentials_and_no_keyring_stores_nothing(feed_server, data, capsys, tmp_path):
    feed_server.route("/private.xml", Reply(body=rss(1)))
    feed_server.route("/public.xml", Reply(body=rss(1)))
    secret_url = feed_server.url("/private.xml").replace("://", "://alice:s3cr3t-pw@")
    opml = tmp_path / "creds.opml"
    opml.write_text(
        f"""<opml version="2.0"><body>
        <outline text="Private" xmlUrl="{secret_url}"/>
        <outline text="Public" xmlUrl="{feed_server.url("/public.xml")}"/>
        </body></opml>""",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "import", str(opml), "--data-dir", data)
    assert code == 0
    assert "imported 1 feed," in out
    assert "keyring" in err and "s3cr3t-pw" not in err  # clear, and redacted
    raw = b"".join(p.read_bytes() for p in (tmp_path / "data").iterdir() if p.is_file())
    assert b"s3cr3t-pw" not in raw


def test_the_budget_holds_across_runs_of_update_due(feed_server, data, capsys, tmp_path):
    """`update --due` run from cron is a new scheduler each time: the 24 h cap must
    count what the earlier runs spent, or every run would start with a full day's."""
    outlines = ""
    for k in range(4):
        feed_server.route(f"/{k}.xml", Reply(body=rss(3, title=f"Feed {k}")))
        outlines += f'<outline text="Feed {k}" xmlUrl="{feed_server.url(f"/{k}.xml")}"/>'
    opml = tmp_path / "subs.opml"
    opml.write_text(
        f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>',
        encoding="utf-8",
    )
    assert run(capsys, "import", str(opml), "--no-fetch", "--data-dir", data)[0] == 0
    assert run(capsys, "budget", "2", "--data-dir", data)[0] == 0
    # each run finds a never-fetched feed due at once
    for _ in range(5):
        code, _out, err = run(capsys, "update", "--due", "--data-dir", data)
        assert code == 0, err

    assert len(feed_server.requests) == 2
    db = sqlite3.connect(f"{data}/smartreader.sqlite3")
    assert db.execute("SELECT count(*) FROM fetch_log WHERE manual = 0").fetchone()[0] == 2
    db.close()
    code, out, _ = run(capsys, "budget", "--data-dir", data)
    assert code == 0 and "budget 2 requests/day, 2 used in the last 24 h" in out


def test_cleanup_deletes_old_read_articles_and_they_do_not_come_back(feed_server, data, capsys):
    feed_server.route("/feed.xml", Reply(body=rss(5)))
    assert run(capsys, "add", feed_server.url("/feed.xml"), "--data-dir", data)[0] == 0
    db = sqlite3.connect(f"{data}/smartreader.sqlite3")
    # four months have passed since they arrived; three were read, one of them starred
    with db:
        db.execute("UPDATE entries SET first_seen = first_seen - 120 * 86400")
        db.execute("UPDATE entries SET read = 1 WHERE uid IN ('item-0', 'item-1', 'item-2')")
        db.execute("UPDATE entries SET starred = 1 WHERE uid = 'item-2'")

    code, out, err = run(capsys, "cleanup", "--data-dir", data)
    assert code == 0, err
    assert "deleted 2 read and 0 unread articles; 3 kept" in out
    assert "read ones are kept 90 days, unread ones always" in out

    # the feed still carries them: the next update does not bring them back
    code, out, err = run(capsys, "update", "--data-dir", data)
    assert code == 0 and "0 new entries" in out, err
    code, out, _ = run(capsys, "entries", "--json", "--data-dir", data)
    assert sorted(e["title"] for e in json.loads(out)) == [
        f"Post number {i} about rust" for i in (2, 3, 4)
    ]

    code, out, _ = run(capsys, "cleanup", "--unread-days", "30", "--compact", "--data-dir", data)
    assert code == 0 and "deleted 0 read and 2 unread articles; 1 kept" in out
    assert re.search(r"compacted the database: [\d.]+ MB → [\d.]+ MB", out), out
    assert db.execute("SELECT value FROM settings WHERE key = 'keep_unread_days'").fetchone() == (
        "30.0",
    )
    db.close()
    code, _out, err = run(capsys, "cleanup", "--read-days", "-1", "--data-dir", data)
    assert code != 0 and "--read-days must be between 0" in err


def test_import_names_the_feeds_that_failed_and_why(feed_server, data, capsys, tmp_path):
    """The import itself worked (exit 0), but each feed whose first fetch failed is
    named with its error, as `update` does, a 429 counting as failed too."""
    feed_server.route("/ok.xml", Reply(body=rss(2, title="Works")))
    feed_server.route("/broken.xml", Reply(status=500, body=b"oops"))
    feed_server.route("/busy.xml", Reply(status=429, headers={"Retry-After": "3600"}))
    outlines = "".join(
        f'<outline text="{name}" type="rss" xmlUrl="{feed_server.url(path)}"/>'
        for name, path in (("Works", "/ok.xml"), ("Broken", "/broken.xml"), ("Busy", "/busy.xml"))
    )
    opml = tmp_path / "in.opml"
    opml.write_text(
        f'<?xml version="1.0"?><opml version="2.0"><body>{outlines}</body></opml>', "utf-8"
    )
    code, out, err = run(capsys, "import", str(opml), "--data-dir", data)
    assert code == 0, err
    assert "fetched 1 feed, 2 failed" in out
    lines = err.splitlines()
    assert any("Broken" in line and "500" in line for line in lines), err
    assert any("Busy" in line and ("429" in line or "slow down" in line) for line in lines), err
    assert not any("Works" in line for line in lines), err
    assert "tried again" in err
