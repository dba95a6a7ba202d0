from __future__ import annotations

from smartreader.net.discover import discover_feeds, guess_feed_urls, looks_like_feed

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
    assert urls[0] == "https://example.org/feed"
    assert all(u.startswith("https://example.org/") for u in urls)
    assert guess_feed_urls("ftp://example.org/") == []
