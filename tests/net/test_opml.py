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


# -- nothing dropped without a word (audit s32 B5) ---------------------------------------

FEED_WITH_CHILDREN = b"""<?xml version="1.0"?>
<opml version="1.0"><body>
  <outline text="News">
    <outline text="Parent feed" xmlUrl="https://p.example/feed">
      <outline type="rss" text="Child" xmlUrl="https://c.example/feed"/>
      <outline text="Grandchildren"><outline text="G" xmlUrl="https://g.example/feed"/></outline>
    </outline>
  </outline>
  <outline text="Empty Folder"/>
  <outline text="Tech"><outline text="Empty inside"></outline></outline>
  <outline text="Empty Folder"/>
  <outline/>
  <outline text="Another list" type="include" url="https://x.example/more.opml"/>
</body></opml>"""


def test_a_feed_nested_under_a_feed_comes_in_a_folder_named_after_it() -> None:
    r = parse_opml(FEED_WITH_CHILDREN)
    assert [(s.url, s.folder) for s in r.subscriptions] == [
        ("https://p.example/feed", "News"),
        ("https://c.example/feed", "News / Parent feed"),
        ("https://g.example/feed", "News / Parent feed / Grandchildren"),
    ]
    assert len(r.notes) == 1 and "News / Parent feed" in r.notes[0]


def test_empty_folders_are_kept_and_what_cannot_come_in_is_a_problem() -> None:
    r = parse_opml(FEED_WITH_CHILDREN)
    assert r.folders == ["Empty Folder", "Tech / Empty inside"]
    text = "\n".join(r.problems)
    assert "no name, no address" in text  # <outline/>
    assert "includes another OPML file" in text and "more.opml" in text
    assert len(r.problems) == 2
    # ... and written back, so a round trip keeps them
    again = parse_opml(write_opml(r.subscriptions, folders=r.folders))
    assert again.folders == r.folders
    assert again.subscriptions == sorted(r.subscriptions, key=lambda s: s.folder or "")


def test_nested_fixture_keeps_its_empty_folder() -> None:
    assert parse_opml(NESTED).folders == ["Empty folder"]


# -- clear errors, and leniency that says so (audit s32 R4) -------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"<!DOCTYPE html><html><head><title>404</title></head><body><p>a & b</body></html>",
        b'<?xml version="1.0"?>\n<!-- saved -->\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 '
        b'Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html/>',
        b"\n<HTML><HEAD><META charset=utf-8><TITLE>x</TITLE></HEAD></HTML>",
        b"<html><body/></html>",
        "<!doctype html><html/>".encode("utf-16"),
    ],
)
def test_an_html_page_is_named_as_such(data: bytes) -> None:
    with pytest.raises(ParseError, match=r"not an OPML file \(it is an HTML page\)"):
        parse_opml(data)


@pytest.mark.parametrize("data", [b"", b"  \n\t", b"\xef\xbb\xbf", "\n".encode("utf-16")])
def test_an_empty_file_says_so(data: bytes) -> None:
    with pytest.raises(ParseError, match=r"^the file is empty$"):
        parse_opml(data)


def test_a_feed_is_not_a_list_of_feeds() -> None:
    with pytest.raises(ParseError, match="it is a feed"):
        parse_opml(b'<?xml version="1.0"?><rss version="2.0"><channel/></rss>')


@pytest.mark.parametrize(
    "data",
    [
        b'<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "aaaa">]><opml><body/></opml>',
        b'<!DOCTYPE opml SYSTEM "x.dtd" [ <!ATTLIST outline type CDATA "rss"> ]><opml/>',
        b"<!-- <!DOCTYPE html> --><!DOCTYPE opml [ ]><opml><body/></opml>",
        # UTF-16 hid the DTD from a check of the raw bytes
        '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE opml [<!ENTITY a "x">]>'
        '<opml><body><outline text="&a;" xmlUrl="https://a.example/"/></body></opml>'.encode(
            "utf-16"
        ),
    ],
)
def test_a_dtd_that_declares_anything_is_still_refused(data: bytes) -> None:
    with pytest.raises(ParseError, match="DTD; refused as unsafe"):
        parse_opml(data)


def test_a_plain_doctype_is_harmless_and_an_undefined_entity_is_not_dropped() -> None:
    ok = b'<!DOCTYPE opml SYSTEM "opml.dtd"><opml><body><outline xmlUrl="https://a.example/"/>'
    assert [s.url for s in parse_opml(ok + b"</body></opml>").subscriptions] == [
        "https://a.example/"
    ]
    # With an external DTD the XML parser would take "&nosuch;" as "" without a word.
    bad = ok.replace(b"<outline", b'<outline text="A &nosuch; B"') + b"</body></opml>"
    with pytest.raises(ParseError, match="undefined entity"):
        parse_opml(bad)


def test_latin1_without_an_encoding_is_read_as_windows_1252_with_a_note() -> None:
    data = (
        '<opml version="1.0"><body><outline text="Café “quoted”" '
        'xmlUrl="https://a.example/café"/></body></opml>'
    ).encode("cp1252")
    r = parse_opml(data)
    assert [(s.title, s.url) for s in r.subscriptions] == [
        ("Café “quoted”", "https://a.example/café")
    ]
    assert len(r.notes) == 1 and "Windows-1252" in r.notes[0]
    assert r.problems == []
    # UTF-8, and a declared encoding, are read as they are, without a note
    assert parse_opml(data.decode("cp1252").encode()).notes == []
    declared = b'<?xml version="1.0" encoding="windows-1252"?>' + data
    assert parse_opml(declared).subscriptions == r.subscriptions
    assert parse_opml(declared).notes == []


def test_a_file_that_misnames_its_encoding_is_a_clear_error() -> None:
    data = '<?xml version="1.0" encoding="UTF-8"?>\n<opml><body text="Café"/></opml>'
    with pytest.raises(ParseError, match=r"says it is UTF-8 but .* line 2"):
        parse_opml(data.encode("latin-1"))
    with pytest.raises(ParseError, match="does not know"):
        parse_opml(b'<?xml version="1.0" encoding="x-no-such"?><opml/>')


def test_bare_ampersands_and_html_entity_names_are_read_with_a_note() -> None:
    data = (
        b'<?xml version="1.0"?><opml version="1.0"><head><title>R&D &amp; more</title></head>'
        b'<body><!-- a & b --><outline text="A & B &eacute;t&eacute; &#233; &lt;" '
        b'xmlUrl="https://a.example/f?x=1&y=2&amp;z=3"/></body></opml>'
    )
    r = parse_opml(data)
    assert r.title == "R&D & more"
    assert [(s.title, s.url) for s in r.subscriptions] == [
        ("A & B été é <", "https://a.example/f?x=1&y=2&z=3")
    ]
    assert len(r.notes) == 2
    assert "3 bare '&'" in r.notes[0] and "2 HTML entity names" in r.notes[1]
    # an entity nobody knows stays an error
    with pytest.raises(ParseError, match="not a valid OPML file"):
        parse_opml(data.replace(b"&eacute;t", b"&nosuchname;t"))


def test_control_characters_xml_forbids_are_read_as_blanks_with_a_note() -> None:
    # a vertical tab pasted into a title (raw or as a reference) refused the whole file
    data = (
        b'<?xml version="1.0"?><opml version="1.0"><head><title>My\x0bfeeds</title></head>'
        b'<body><outline text="Tech\x1b[0m"><outline text="A&#11;B &#x1F; C" '
        b'xmlUrl="https://a.example/f"/></outline>'
        b'<outline text="Plain &#9;tab &#233;" xmlUrl="https://b.example/f"/></body></opml>'
    )
    r = parse_opml(data)
    assert r.title == "My feeds"
    assert [(s.title, s.url, s.folder) for s in r.subscriptions] == [
        ("A B C", "https://a.example/f", "Tech [0m"),
        ("Plain tab é", "https://b.example/f", None),
    ]
    assert r.notes == ["read leniently: 4 control characters (not allowed in XML) taken as blanks"]
    # with a bare "&" too, both are said
    both = parse_opml(data.replace(b"Plain", b"R & D"))
    assert len(both.notes) == 2 and "1 bare '&'" in both.notes[0]
    # a reference to a character past Unicode stays an error
    with pytest.raises(ParseError, match="not a valid OPML file"):
        parse_opml(data.replace(b"&#11;", b"&#x110000;"))
