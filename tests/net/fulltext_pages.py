"""Hand-written web pages for the full-article tests (tests/net/test_fulltext.py).

Each is a made-up page with the parts a real one has around its article: a
navigation bar, a sidebar, comments, a footer. The article's paragraphs carry
marker words (``ARTICLE-ONE``...) and the boilerplate its own (``NAV-ITEM``,
``SIDEBAR-ITEM``, ``COMMENT-TEXT``, ``FOOTER-TEXT``) so the tests can tell which
parts were kept.
"""

from __future__ import annotations

_FILLER = (
    "The committee met on Tuesday to weigh the proposal, and after a long debate, "
    "which ran well past the usual hour, its members agreed to publish the figures, "
    "the minutes and the letters they had received from residents."
)

ARTICLE_PARAGRAPHS = (
    f"ARTICLE-ONE The town's library will open on Sundays from next month. {_FILLER}",
    f"ARTICLE-TWO Volunteers, librarians and the council shared the cost. {_FILLER}",
    f"ARTICLE-THREE Readers asked for longer hours in a survey last spring. {_FILLER}",
    f"ARTICLE-FOUR The first Sunday opening is planned for the 4th. {_FILLER}",
)

_NAV = """
<header class="site-header">
  <div class="logo"><a href="/">The Town Paper</a></div>
  <nav class="menu">
    <ul>
      <li><a href="/news/">NAV-ITEM News</a></li>
      <li><a href="/sport/">NAV-ITEM Sport</a></li>
      <li><a href="/culture/">NAV-ITEM Culture</a></li>
      <li><a href="/about/">NAV-ITEM About us</a></li>
    </ul>
  </nav>
</header>
"""

_SIDEBAR = """
<aside class="sidebar">
  <h3>Most read</h3>
  <ul>
    <li><a href="/a/1">SIDEBAR-ITEM Bridge closed for repairs</a></li>
    <li><a href="/a/2">SIDEBAR-ITEM Market moves to the square</a></li>
    <li><a href="/a/3">SIDEBAR-ITEM New bus timetable</a></li>
  </ul>
  <div class="widget promo">SIDEBAR-ITEM Subscribe to our newsletter, only 2 a week!</div>
</aside>
"""

_COMMENTS = """
<section id="comments" class="comments">
  <h3>3 comments</h3>
  <div class="comment"><p>COMMENT-TEXT Great news, about time, I will be there.</p></div>
  <div class="comment"><p>COMMENT-TEXT Why not Saturdays too, asks my daughter.</p></div>
  <div class="comment"><p>COMMENT-TEXT Who pays for this, again, and how much?</p></div>
</section>
"""

_FOOTER = """
<footer class="site-footer">
  <p>FOOTER-TEXT © 2026 The Town Paper. All rights reserved.</p>
  <p><a href="/privacy">FOOTER-TEXT Privacy</a> · <a href="/contact">FOOTER-TEXT Contact</a></p>
</footer>
"""


def article_page(
    body: str = "",
    *,
    title: str = "Library to open on Sundays | The Town Paper",
    head: str = "",
) -> str:
    """A whole page: header and menu, the article (its paragraphs, then ``body``),
    a sidebar, comments and a footer."""
    paragraphs = "\n".join(f"    <p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title}</title>
  {head}
</head>
<body>
{_NAV}
<main>
  <article class="post">
    <h1>Library to open on Sundays</h1>
    <p class="byline">By A. Reporter</p>
{paragraphs}
    {body}
  </article>
  {_COMMENTS}
</main>
{_SIDEBAR}
{_FOOTER}
</body>
</html>
"""


ARTICLE = article_page()

# Everything a hostile page could try, inside the article itself.
HOSTILE = article_page(
    """
    <p>HOSTILE-PARA <a href="javascript:alert(1)" onclick="steal()">click me</a>
       and <span style="color:red;background:url(https://evil.example/x)">styled</span>
       and <a href="https://ok.example/page" onmouseover="alert(2)">a fine link</a>.</p>
    <script>document.write('SCRIPT-TEXT')</script>
    <iframe src="https://video.example/embed/42" width="560">IFRAME-FALLBACK</iframe>
    <img src="/img/a.png" onerror="alert(3)" style="border:1px">
    <form action="https://evil.example/post"><input name="q" value="FORM-VALUE"></form>
    """,
    head="<script>var SCRIPT_IN_HEAD = 1;</script><style>p { color: red }</style>",
)

# Relative addresses of every kind, resolved against the page's own address.
RELATIVE = article_page(
    """
    <p>RELATIVE-PARA See <a href="../archive/2026.html">the archive</a>,
       <a href="/contact">the desk</a> and <a href="#ARTICLE-ONE">the top</a>.</p>
    <p><img src="images/library.jpg" alt="The library"></p>
    """
)

# A page with a menu and nothing else: no article to find.
NAV_ONLY = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Sections</title></head>
<body>
{_NAV}
<div class="links">
  {"".join(f'<a href="/section/{i}">Section number {i} of the site</a> ' for i in range(40))}
</div>
{_FOOTER}
</body></html>
"""

# A script-only shell: what sites that render in the browser send.
JS_SHELL = """<!DOCTYPE html>
<html><head><title>App</title><script src="/app.js"></script></head>
<body><div id="root"></div><noscript>Please enable JavaScript to read this.</noscript>
</body></html>
"""


def legacy_page(meta: str) -> bytes:
    """The article in windows-1252 (curly quotes, a euro sign) with ``meta`` in its
    head: "café", "Straße", “quoted”, €5."""
    text = (
        "<p>LEGACY-PARA Le café du coin ferme à 22 h; in der Straße nebenan kostet "
        "ein “Kaffee” nur 5 €, sagt man. " + _FILLER + "</p>"
    )
    page = f"""<!DOCTYPE html>
<html><head>{meta}<title>Café, Straße</title></head>
<body><article>{text * 3}</article></body></html>
"""
    return page.encode("windows-1252")


def nested_page(depth: int) -> str:
    """The article's text under ``depth`` nested divs."""
    text = "".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS)
    return (
        "<!DOCTYPE html><html><head><title>Deep</title></head><body>"
        + "<div>" * depth
        + text
        + "</div>" * depth
        + "</body></html>"
    )


def big_page(target_bytes: int = 1_000_000) -> str:
    """A page of about ``target_bytes``: the article with many sections, each in
    its own markup, plus a long comment thread and a big menu."""
    section = (
        '<section class="chunk"><h2>Part {n}</h2>'
        + "".join(f"<p>{p} ({{n}})</p>" for p in ARTICLE_PARAGRAPHS)
        + '<figure><img src="/img/{n}.jpg" alt="figure {n}"><figcaption>Figure {n}</figcaption>'
        "</figure></section>\n"
    )
    comment = '<div class="comment"><p>COMMENT-TEXT number {n}, I agree with part {n}.</p></div>\n'
    parts: list[str] = []
    size = 0
    n = 0
    while size < target_bytes * 0.8:
        chunk = section.format(n=n)
        parts.append(chunk)
        size += len(chunk)
        n += 1
    comments = "".join(comment.format(n=i) for i in range(int(target_bytes * 0.2) // 60))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Big</title></head><body>"
        + _NAV
        + '<article class="post">'
        + "".join(parts)
        + "</article>"
        + f'<section class="comments">{comments}</section>'
        + _FOOTER
        + "</body></html>"
    )
