from __future__ import annotations

import json

import pytest

from smartreader.net.discover import discover_feeds, guess_feed_urls, looks_like_feed
from tests.shared import CORPUS

MAX_PROLOG = 64 * 1024  # discover.MAX_PROLOG: how far a root or a JSON version is looked for

PAGE = b"""<!doctype html><html><head>
<base href="https://example.org/blog/">
<link rel="alternate" type="application/rss+xml" title="Comments" href="/comments.xml">
<link rel="stylesheet" href="style.css">
<link rel="alternate" type="application/atom+xml; charset=utf-8" title="Posts" href="atom.xml">
<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
<link rel="alternate" type="application/feed+json" title="JSON" href="feed.json">
<link rel="alternate" type="text/html" hreflang="de" href="/de/">
</head><body><a href="/rss">rss</a></body></html>"""


def test_links_found_resolved_filtered_and_ranked() -> None:
    found = discover_feeds(PAGE, "https://example.org/")
    assert [(f.url, f.kind) for f in found] == [
        ("https://example.org/blog/atom.xml", "Atom"),
        ("https://example.org/blog/feed.json", "JSON Feed"),
        ("https://example.org/comments.xml", "RSS"),  # comment feeds last
    ]
    assert found[0].title == "Posts"


def test_garbage_and_empty_pages() -> None:
    assert discover_feeds(b"", "https://e.org/") == []
    assert (
        discover_feeds(b"<link rel=alternate type=application/rss+xml href=", "https://e.org/")
        == []
    )
    assert discover_feeds(bytes(range(256)) * 100, "https://e.org/") == []


def test_looks_like_feed() -> None:
    assert looks_like_feed(b'<?xml version="1.0"?>\n<rss version="2.0">', "text/xml")
    assert looks_like_feed(b'\xef\xbb\xbf<feed xmlns="http://www.w3.org/2005/Atom">', None)
    assert looks_like_feed(b'{"version": "https://jsonfeed.org/version/1.1"}', "application/json")
    assert not looks_like_feed(PAGE, "text/html")
    assert not looks_like_feed(b'{"version": 1}', "application/json")


def test_guesses_stay_on_the_origin() -> None:
    urls = guess_feed_urls("https://example.org/some/page?x=1")
    assert urls[0] == "https://example.org/some/page/feed"
    assert "https://example.org/feed" in urls
    assert all(u.startswith("https://example.org/") for u in urls)
    assert guess_feed_urls("ftp://example.org/") == []
    # a path that reads as a network path elsewhere ("//host/") stays a path here
    assert all(u.startswith("https://example.org/") for u in guess_feed_urls(
        "https://example.org//evil.example/"))  # fmt: skip


# -- JSON Feed written the PHP way: every "/" escaped as "\/" -------------------

PHP_JSON_FEED = (
    b'{"title":"Curt","home_page_url":"http:\\/\\/e.org\\/",'
    b'"version":"https:\\/\\/jsonfeed.org\\/version\\/1","items":[]}'
)


def test_a_json_feed_with_escaped_slashes_is_a_feed() -> None:
    assert b"jsonfeed.org/version" not in PHP_JSON_FEED  # what the old check looked for
    assert looks_like_feed(PHP_JSON_FEED, "application/json")
    assert looks_like_feed(b"\xef\xbb\xbf\n" + PHP_JSON_FEED, None)
    # "\u002e" is as good a "." as any, once the string is decoded
    assert looks_like_feed(b'{"version": "https://jsonfeed\\u002eorg/version/1.1"}', None)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"feeds corpus not found at {CORPUS}")
@pytest.mark.parametrize("name", ["curt.json", "rose.json"])
def test_corpus_json_feeds_with_escaped_slashes_are_feeds(name: str) -> None:
    body = (CORPUS / "rsparser/files" / name).read_bytes()
    assert looks_like_feed(body, "application/json")


def test_only_the_top_level_version_of_a_json_object_counts() -> None:
    nested = {"data": {"version": "https://jsonfeed.org/version/1"}, "version": 2}
    assert not looks_like_feed(json.dumps(nested).encode(), "application/json")
    listed = [{"version": "https://jsonfeed.org/version/1"}]
    assert not looks_like_feed(json.dumps(listed).encode(), "application/json")
    assert not looks_like_feed(b'{"about": "https://jsonfeed.org/version/1"}', None)


def test_a_json_feed_whose_version_comes_after_long_items_is_a_feed() -> None:
    """Keys written in sorted order put "version" after "items", past the first
    MAX_PROLOG bytes: the document is then parsed whole (up to MAX_JSON_PARSE)."""
    doc = {"items": [{"id": str(i), "content_html": "x" * 1000} for i in range(100)],
           "title": "Sorted", "version": "https:\\/\\/jsonfeed.org\\/version\\/1.1"}  # fmt: skip
    body = json.dumps(doc, sort_keys=True).encode().replace(b"\\\\/", b"\\/")
    assert body.index(b'"version"') > MAX_PROLOG
    assert looks_like_feed(body, "application/json")


# -- XML: the root element, past a long prolog or with a prefix ------------------

ATOM_NS = "http://www.w3.org/2005/Atom"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
DECL = b'<?xml version="1.0" encoding="utf-8"?>\n'


@pytest.mark.parametrize(
    "root",
    [f'<a:feed xmlns:a="{ATOM_NS}">', f"<atom:feed xmlns:atom='{ATOM_NS}' xml:lang='en'>",
     '<a:feed xmlns:a="http://purl.org/atom/ns#" version="0.3">',
     f'<r:RDF xmlns:r="{RDF_NS}" xmlns="http://purl.org/rss/1.0/">',
     f'<rdf:RDF\n  xmlns:rdf="{RDF_NS}"\n  xmlns="http://purl.org/rss/1.0/">'],
)  # fmt: skip
def test_a_namespace_prefixed_root_is_a_feed(root: str) -> None:
    assert looks_like_feed(DECL + root.encode(), "application/xml")


def test_a_prefixed_root_in_another_namespace_is_not_a_feed() -> None:
    assert not looks_like_feed(DECL + b'<a:feed xmlns:a="urn:x:not-atom">', "application/xml")
    assert not looks_like_feed(DECL + b'<a:feed xmlns:b="' + ATOM_NS.encode() + b'">', "text/xml")


@pytest.mark.parametrize(
    "prolog",
    [b"<!-- " + b"a licence, at length. " * 300 + b"-->\n",
     b'<?xml-stylesheet type="text/xsl" href="/feed.xsl"?>\n' * 100,
     b'<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "rss-0.91.dtd" [\n'
     + b'<!ENTITY e "a > ] b"> <!-- ] > --> <?pi ]> ?>\n' * 100 + b"]>\n"],
)  # fmt: skip
def test_a_root_after_more_than_4_kb_of_prolog_is_found(prolog: bytes) -> None:
    assert len(prolog) > 4096
    assert looks_like_feed(DECL + prolog + b'<rss version="2.0"><channel/></rss>', "text/xml")
    atom = DECL + prolog + f'<feed xmlns="{ATOM_NS}"/>'.encode()
    assert looks_like_feed(b"\xef\xbb\xbf" + atom, "application/xml")


def test_a_utf16_feed_is_found_by_its_root() -> None:
    doc = '\ufeff<?xml version="1.0" encoding="utf-16"?><!-- x --><rss version="2.0"/>'
    assert looks_like_feed(doc.encode("utf-16-le"), "text/xml")
    assert looks_like_feed(doc.encode("utf-16-be"), "text/xml")


def test_what_is_not_a_feed_root_stays_so() -> None:
    far = b"<!--" + b"x" * MAX_PROLOG + b"-->"
    assert not looks_like_feed(DECL + far + b"<rss>", "application/xml")  # past the bound
    assert not looks_like_feed(DECL + b"<catalog><rss/></catalog>", "application/xml")
    assert not looks_like_feed(b"<!doctype html>\n<html><body><rss version=2>", "text/html")
    # junk before the prolog (a PHP warning): judged by the first bytes, as before
    assert looks_like_feed(b"<br />\n<b>Warning</b>: x<br />\n" + DECL + b"<rss>", "text/xml")


# -- guessed locations: the page's folder, then the root -------------------------


def test_a_page_in_a_folder_has_its_folder_guessed_first() -> None:
    root = [f"https://example.org{p}" for p in ("/feed", "/rss", "/feed.xml", "/atom.xml",
                                                  "/rss.xml", "/index.xml")]  # fmt: skip
    blog = [u.replace(".org/", ".org/blog/") for u in root]
    assert guess_feed_urls("https://example.org/blog/") == blog + root
    assert guess_feed_urls("https://example.org/blog") == blog + root  # typed without "/"
    assert guess_feed_urls("https://example.org/blog/index.php?p=1") == blog + root
    assert guess_feed_urls("https://example.org/") == root  # as before: 6 at most
    assert guess_feed_urls("https://example.org") == root
    assert guess_feed_urls("https://example.org/index.html") == root
    deep = guess_feed_urls("https://example.org/a/b/c/")
    assert deep[0] == "https://example.org/a/b/c/feed" and deep[6:] == root
    assert len(deep) == 12
