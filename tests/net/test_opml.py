from __future__ import annotations

import pytest

from smartreader.errors import ParseError
from smartreader.net.opml import OpmlSubscription, parse_opml, write_opml
from tests.shared import CORPUS

NESTED = b"""<?xml version="1.0"?>
<opml version="2.0"><head><title>My feeds</title></head><body>
  <outline text="Top" xmlUrl="https://a.example/feed" htmlUrl="https://a.example/"/>
  <outline text="Tech">
    <outline text="B" type="rss" xmlUrl="https://b.example/rss"/>
    <outline text="Python">
      <outline title="C" xmlUrl="https://c.example/atom"/>
      <outline text="B again" xmlUrl="https://b.example/rss"/>
    </outline>
  </outline>
  <outline text="bad scheme" xmlUrl="javascript:alert(1)"/>
  <outline text="local" xmlUrl="file:///etc/passwd"/>
  <outline text="no url" type="rss"/>
  <outline text="Empty folder"></outline>
</body></opml>"""


def test_nested_folders_duplicates_and_bad_outlines() -> None:
    r = parse_opml(NESTED)
    assert r.title == "My feeds"
    assert [(s.url, s.title, s.folder) for s in r.subscriptions] == [
        ("https://a.example/feed", "Top", None),
        ("https://b.example/rss", "B", "Tech"),
        ("https://c.example/atom", "C", "Tech / Python"),
    ]
    assert r.subscriptions[0].site_url == "https://a.example/"
    text = "\n".join(r.problems)
    assert "duplicate" in text and "javascript" in text and "file:///" in text
    assert "no url" in text
    assert len(r.problems) == 4


def test_round_trip_keeps_the_tree() -> None:
    subs = parse_opml(NESTED).subscriptions
    again = parse_opml(write_opml(subs, title="x & y"))
    assert again.subscriptions == sorted(subs, key=lambda s: (s.folder or "", s.title))
    assert again.title == "x & y"
    assert again.problems == []


def test_export_escapes_hostile_titles() -> None:
    data = write_opml([OpmlSubscription("https://x.example/f?a=1&b=2", 'a"<b>&', "F<1>")])
    r = parse_opml(data)
    assert r.subscriptions == [OpmlSubscription("https://x.example/f?a=1&b=2", 'a"<b>&', "F<1>")]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not xml",
        b"<html><body/></html>",
        b"<opml version='2.0'><head/></opml>",
        b'<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "aaaa">]><opml><body/></opml>',
    ],
)
def test_unreadable_files_are_clear_errors(data: bytes) -> None:
    with pytest.raises(ParseError):
        parse_opml(data)


@pytest.mark.skipif(not (CORPUS / "rsparser/files/Subs.opml").exists(), reason="corpus absent")
def test_real_world_opml_files() -> None:
    for name in ("Subs.opml", "SubsNoTitleAttributes.opml"):
        r = parse_opml((CORPUS / "rsparser/files" / name).read_bytes())
        assert r.subscriptions, name
        assert all(s.url.startswith(("http://", "https://")) for s in r.subscriptions)


def test_our_settings_travel_in_our_namespace_and_others_see_plain_outlines() -> None:
    from smartreader.net.opml import NS

    subs = [
        OpmlSubscription("https://a.example/f", "A", settings=(("priority", "3"), ("x", "<&>"))),
        OpmlSubscription("https://b.example/f", "B"),
    ]
    data = write_opml(subs)
    assert f'xmlns:smartreader="{NS}"'.encode() in data
    assert parse_opml(data).subscriptions == subs
    # Without settings the file carries no namespace at all.
    assert b"xmlns" not in write_opml(subs[1:])
    # Another reader's namespace (or an unprefixed attribute of the same name) is not ours.
    r = parse_opml(
        b'<opml version="2.0" xmlns:o="https://other.example/"><body>'
        b'<outline text="A" xmlUrl="https://a.example/f" o:priority="9" priority="8"/>'
        b"</body></opml>"
    )
    assert r.subscriptions[0].settings == ()
