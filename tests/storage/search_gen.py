"""Material and an independent oracle for the random search sessions
(``tests/storage/test_random_search.py``).

Generation: article titles and HTML in many scripts, punctuation-heavy tokens,
markup, entities, attributes that hold words, script/style, very long text, and
real titles and text of the shared feeds corpus (read at run time, re-served);
RSS 2.0 and Atom documents carrying them; queries of every kind a user can type.

The oracle (no code of ``smartreader.storage`` used): what a user SEES of an
article is its title plus its text (``content``, else ``summary``) as rendered:
tags gone, entities decoded, block elements separating words, inline ones
(``<b>``, ``<a>``, ``<sub>``…) not. A query is held to what ``fts_query`` and
``search_filter`` promise:

* the words typed are runs of letters, digits and marks; punctuation and
  symbols (emoji) separate them, so "3.14" is the words 3 and 14 and
  ``title:x`` the words "title" and "x"; operator words (AND, NOT, NEAR) are
  words like any other; input with no word finds nothing;
* every word must be found in the same article; a word of a spaced script as a
  whole word, the LAST word typed as a prefix (search as you type) unless signs
  complete it;
* case never matters (``str.lower``); Latin and Greek diacritics do not either
  ("cafe" finds "café" and "café" finds "cafe", "αθηνα" finds "Αθήνα"); nor do
  the letters search engines spell out: ß is ss, æ ae, œ oe, þ th, ø o, ł l,
  đ and ð d, ħ h, ŧ t, dotless ı i, ﬁ fi, final ς σ, Cyrillic ё е; nor do
  full-width Latin letters and digits ("ＰＹＴＨＯＮ" is "python");
* a word of an unspaced script (CJK, kana, Hangul, Thai: a run holding one of
  their characters) is found as a substring, in any case ("python入門" finds
  "Python入門");
* a word completed by signs ("C++", "C#") is found with its signs, at the start
  of a word.

``must``: the articles that contain every word by that rule in their visible text.
``may``: what a search may find beyond that without being wrong: the same with
looser folding (full case folding, any diacritic, compatibility forms), also in
the ``summary`` (indexed though the reader shows the content), and in ``alt`` and
``title`` attributes (text a reader may show). URLs, tag and attribute names and
entity names are never text. A search must find every article of ``must``, and
nothing outside ``may``.

``KNOWN`` bugs (see the test file) widen ``may`` or narrow ``must`` in the named
ways while they are listed, so the sessions pass and keep checking the rest.
"""

from __future__ import annotations

import bisect
import functools
import html
import json
import random
import re
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from xml.sax.saxutils import escape

# ---------------------------------------------------------------------------
# the oracle's own notion of characters and words


def _unspaced_char(c: str) -> bool:
    o = ord(c)
    return (
        0x0E00 <= o <= 0x0E7F  # Thai
        or 0x3040 <= o <= 0x30FF  # kana
        or 0x3400 <= o <= 0x4DBF  # CJK ext A
        or 0x4E00 <= o <= 0x9FFF  # CJK
        or 0xAC00 <= o <= 0xD7AF  # Hangul syllables
        or 0xF900 <= o <= 0xFAFF  # CJK compatibility
    )


_cat = functools.lru_cache(maxsize=None)(unicodedata.category)


def _ranges(pred: Callable[[str], bool]) -> str:
    """A regex character class body of the code points that ``pred`` holds for."""
    out: list[str] = []
    start = None
    for cp in range(sys.maxunicode + 2):
        ok = cp <= sys.maxunicode and not 0xD800 <= cp <= 0xDFFF and pred(chr(cp))
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            a, b = re.escape(chr(start)), re.escape(chr(cp - 1))
            out.append(a if start == cp - 1 else f"{a}-{b}")
            start = None
    return "".join(out)


_LN = _ranges(lambda c: unicodedata.category(c)[0] in "LN")
_M = _ranges(lambda c: unicodedata.category(c)[0] == "M")
_WORD = re.compile(f"[{_LN}][{_LN}{_M}]*")


def _letter(c: str) -> bool:
    return _cat(c)[0] in "LN"


def _wordchar(c: str) -> bool:
    return _cat(c)[0] in "LNM"


def words_of(text: str) -> list[str]:
    """Runs of letters/digits (with marks inside them); everything else separates."""
    return _WORD.findall(text)


# what the module docstring says is spelled out (lower case); written here, not
# taken from the app
_SPELLED = {"ß": "ss", "æ": "ae", "œ": "oe", "þ": "th", "ø": "o", "ł": "l", "đ": "d",
            "ð": "d", "ħ": "h", "ŧ": "t", "ı": "i", "ς": "σ", "ё": "е", "ſ": "s",
            "ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st",
            "ﬆ": "st"}  # fmt: skip


def _latin_or_greek(c: str) -> bool:
    name = unicodedata.name(c, "")
    return name.startswith(("LATIN ", "GREEK ")) and _cat(c)[0] == "L"


def _strict_text(text: str) -> str:
    out = []
    for c in unicodedata.normalize("NFC", text):
        if 0xFF01 <= ord(c) <= 0xFF5E:
            c = chr(ord(c) - 0xFEE0)
        c = c.lower()
        c = _SPELLED.get(c, c)
        d = unicodedata.normalize("NFD", c)
        if len(d) > 1 and _latin_or_greek(d[0]) and all(0x300 <= ord(m) <= 0x36F for m in d[1:]):
            c = _SPELLED.get(d[0], d[0])
        out.append(c)
    return "".join(out)


@functools.lru_cache(maxsize=200_000)
def strict_fold(word: str) -> str:
    """Lower case; a Latin or Greek letter with diacritics as its base letter; the
    letters the module docstring lists spelled out."""
    return _strict_text(word)


@functools.lru_cache(maxsize=200_000)
def loose_fold(word: str) -> str:
    """Full case folding, compatibility forms, marks dropped (not Thai ones: its
    vowels are letters of the word, not diacritics)."""
    out: list[str] = []
    base = ""
    for c in unicodedata.normalize("NFKD", word.casefold().translate(_SPELLED_TABLE)):
        if _cat(c)[0] == "M" and not _unspaced_char(base or " "):
            continue
        if _cat(c)[0] != "M":
            base = c
        out.append(c)
    return unicodedata.normalize("NFC", "".join(out)).casefold().translate(_SPELLED_TABLE)


_SPELLED_TABLE = str.maketrans(_SPELLED)


# ---------------------------------------------------------------------------
# HTML as a reader shows it

INLINE = frozenset(
    [
        "a",
        "abbr",
        "acronym",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "ins",
        "kbd",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
    ]
)
HIDDEN = frozenset({"script", "style", "template", "noscript", "iframe", "title", "head"})


class _Text(HTMLParser):
    def __init__(self, split_inline: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.split_inline = split_inline
        self.parts: list[str] = []
        self.attrs_text: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden += 1
        if tag not in INLINE or self.split_inline:
            self.parts.append("\n")
        for k, v in attrs:
            if k in ("alt", "title") and v:
                self.attrs_text.append(v)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for k, v in attrs:
            if k in ("alt", "title") and v:
                self.attrs_text.append(v)
        if tag not in INLINE or self.split_inline:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        if tag not in INLINE or self.split_inline:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(markup: str, *, split_inline: bool = False) -> tuple[str, str]:
    """(visible text, text of alt/title attributes) of an HTML fragment."""
    p = _Text(split_inline)
    p.feed(markup)
    p.close()
    return "".join(p.parts), "\n".join(p.attrs_text)


# ---------------------------------------------------------------------------
# queries parsed the oracle's way


@dataclass(frozen=True)
class Term:
    text: str  # as typed
    kind: str  # "spaced" | "unspaced" | "signed"
    prefix: bool = False
    signed: str = ""  # the word with its signs (kind "signed")


def terms_of(query: str) -> list[Term]:
    """The words of a query (see the module docstring), composed (NFC) as the app
    composes what is typed: Hangul typed as jamo is the syllables, unspaced."""
    query = unicodedata.normalize("NFC", query)
    raw: list[tuple[str, str]] = []  # (word, signs after it)
    i, n = 0, len(query)
    while i < n:
        if _letter(query[i]):
            j = i + 1
            while j < n and (_wordchar(query[j])):
                j += 1
            k = j
            while k < n and query[k] in "+#":
                k += 1
            raw.append((query[i:j], query[j:k]))
            i = j
        else:
            i += 1
    out: list[Term] = []
    for idx, (w, signs) in enumerate(raw):
        if any(_unspaced_char(c) for c in w):
            out.append(Term(w, "unspaced"))
        elif signs:
            out.append(Term(w, "signed", signed=(w + signs)))
        else:
            out.append(Term(w, "spaced", prefix=idx == len(raw) - 1))
    return out


# ---------------------------------------------------------------------------
# one article's texts, prepared for matching


@dataclass
class _Text2:
    """One text: its folded words (sorted, for prefixes) and its lower-case form."""

    words: list[str]
    wordset: frozenset[str]
    low: str
    raw: str
    fold: Callable[[str], str]


def _prep(text: str, fold: Callable[[str], str], *, pieces: bool = False) -> _Text2:
    """``pieces``: the parts of words between their marks count as words too (a
    Thai vowel sign between two words of different scripts: "สวัสดีPython")."""
    found = words_of(text)
    if pieces:
        found += [p for w in found for p in _split_on_marks(w) if p]
    ws = sorted({fold(w) for w in found})
    low = _strict_text(text) if fold is strict_fold else loose_fold(text)
    return _Text2(ws, frozenset(ws), low, text, fold)


def _word_start(low: str, needle: str) -> bool:
    i = low.find(needle)
    while i >= 0:
        if i == 0 or not (_wordchar(low[i - 1]) or low[i - 1] == "_"):
            return True
        i = low.find(needle, i + 1)
    return False


def _term_in(t: Term, x: _Text2, *, case_sensitive_unspaced: bool, split_marks: bool) -> bool:
    fold = x.fold
    if t.kind == "unspaced":
        if split_marks:
            pieces = [p for p in _split_on_marks(t.text) if p]
            return (
                all(p in x.raw for p in pieces)
                if case_sensitive_unspaced
                else all(fold(p) in x.low for p in pieces)
            )
        if case_sensitive_unspaced:
            return t.text in x.raw
        return fold(t.text) in x.low
    if t.kind == "signed":
        needle = fold(t.signed)
        return _word_start(x.low, needle)
    w = fold(t.text)
    if w in x.wordset:
        return True
    if t.prefix:
        i = bisect.bisect_left(x.words, w)
        return i < len(x.words) and x.words[i].startswith(w)
    return False


def _split_on_marks(word: str) -> list[str]:
    out, cur = [], []
    for c in word:
        if _cat(c)[0] == "M":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


@dataclass
class Article:
    """What the oracle knows of one stored article."""

    id: int
    feed_id: int
    title: str
    content: str
    summary: str
    known: frozenset[str] = frozenset()
    must_texts: list[_Text2] = field(default_factory=list)
    _may: list[_Text2] | None = None

    @classmethod
    def of(cls, row: dict, known: frozenset[str]) -> Article:
        a = cls(int(row["id"]), int(row["feed_id"]), row["title"], row["content"], row["summary"])
        a.known = known
        body = a.content or a.summary
        joined, _ = html_text(body)
        split, _ = html_text(body, split_inline=True)
        visible = a.title + "\n" + (split if "markup-splits-words" in known else joined)
        a.must_texts = [_prep(visible, strict_fold)]
        return a

    @property
    def may_texts(self) -> list[_Text2]:
        if self._may is None:
            loose = [self.title]
            for part in dict.fromkeys((self.content, self.summary)):
                j, at = html_text(part)
                s, _ = html_text(part, split_inline=True)
                loose += [j, s, at]
            if "markup-indexed" in self.known:
                loose += [self.content, self.summary]  # raw HTML: tag names, URLs, entities
            self._may = [_prep(t, strict_fold, pieces=True) for t in loose]
            self._may += [_prep(t, loose_fold, pieces=True) for t in loose]
        return self._may

    def visible_words(self) -> list[str]:
        return self.must_texts[0].words

    def visible_text(self) -> str:
        return self.must_texts[0].raw


def must_match(a: Article, terms: list[Term], known: frozenset[str]) -> bool:
    if not terms:
        return False
    x = a.must_texts[0]
    cs = "unspaced-case" in known
    if "query-not-nfc" in known and any(
        unicodedata.normalize("NFC", t.text) != t.text
        or (t.kind != "unspaced" and any(_cat(c)[0] == "M" for c in t.text))
        for t in terms
    ):
        return False  # the app cuts such a word at its marks, or misses it
    return all(_term_in(t, x, case_sensitive_unspaced=cs, split_marks=False) for t in terms)


def may_match(a: Article, terms: list[Term], known: frozenset[str]) -> bool:
    if not terms:
        return False
    if "thai-marks" in known:  # each piece between marks is its own word there
        terms = [
            Term(p, "unspaced") if t.kind == "unspaced" else t
            for t in terms
            for p in ([q for q in _split_on_marks(t.text) if q] if t.kind == "unspaced" else [""])
        ]
    if "query-not-nfc" in known:  # a typed word cut at its marks: its pieces, the last a prefix
        cut: list[Term] = []
        for t in terms:
            parts = [q for q in _split_on_marks(t.text) if q]
            if t.kind != "spaced" or len(parts) < 2:
                cut.append(t)
                continue
            cut += [
                Term(q, "spaced", prefix=t.prefix and i == len(parts) - 1)
                for i, q in enumerate(parts)
            ]
        terms = cut
    return all(
        any(_term_in(t, x, case_sensitive_unspaced=False, split_marks=False) for x in a.may_texts)
        for t in terms
    )


# ---------------------------------------------------------------------------
# material

LATIN = [
    "apple",
    "river",
    "garden",
    "window",
    "morning",
    "station",
    "library",
    "journey",
    "winter",
    "harvest",
    "Zürich",
    "café",
    "naïve",
    "résumé",
    "Ångström",
    "façade",
    "Crème",
    "brûlée",
    "São",
    "Paulo",
    "Kraków",
    "Łódź",
    "déjà",
    "señor",
    "jalapeño",
    "über",
    "Müller",
    "Straße",
    "Maß",
    "Fußball",
    "Größe",
    "İstanbul",
    "ılık",
    "Işık",
    "Ağaç",
    "Ærøskøbing",
    "smørrebrød",
    "Dvořák",
    "Đorđe",
]
GREEK = ["Αθήνα", "οδός", "ΟΔΟΣ", "λόγος", "Σωκράτης", "θάλασσα", "ψυχή", "ΚΑΛΗΜΕΡΑ"]
CYRILLIC = ["Москва", "ёжик", "йогурт", "Ёлка", "Пётр", "Київ", "Україна", "ПРИВЕТ", "съешь"]
ARABIC = ["مرحبا", "كتاب", "العربية", "مدرسة", "قهوة"]
HEBREW = ["שלום", "ספר", "ירושלים", "מחשב"]
CJK = [
    "東京",
    "天気",
    "晴れ",
    "日本語",
    "中文",
    "北京",
    "漢字",
    "ひらがな",
    "カタカナ",
    "検索",
    "人工知能",
    "台風",
]
THAI = ["ภาษาไทย", "สวัสดี", "กิน", "ข้าว", "กรุงเทพ", "น้ำ", "ความรู้"]
KOREAN = ["한국어", "서울", "학교"]
MIXED = ["Python入門", "iPhone版", "GitHub上", "AI技術"]
EMOJI = ["🎉", "👍🏽", "❤️", "🇫🇷", "👨\u200d👩\u200d👧"]
PUNCT = [
    "C++",
    "C#",
    "F#",
    ".NET",
    "g++",
    "e-mail",
    "user@example.org",
    "https://example.net/path?q=1&x=2",
    "state-of-the-art",
    "don't",
    "l'été",
    "rock'n'roll",
    "3.14",
    "1,000",
    "2024-05-01",
    "v2.0.1",
    "50%",
    "$100",
    "AT&T",
    "Q&A",
    "snake_case",
    "x86-64",
    "O'Reilly",
    "½",
    "H₂O",
]
ALL_WORDS = LATIN + GREEK + CYRILLIC + ARABIC + HEBREW + CJK + THAI + KOREAN + MIXED + PUNCT
OPS = [
    "AND",
    "OR",
    "NOT",
    "NEAR",
    '"',
    "*",
    "^",
    "-",
    ":",
    "(",
    ")",
    "title:",
    "content:",
    "NEAR(",
    "{",
    "}",
    "+",
    "'",
    "\\",
    "%",
    "_",
]
HIDDEN_WORDS = ["zzscriptword", "zzstyleword", "zzhrefword", "zzaltword", "zzcommentword"]


def rand_word(rng: random.Random) -> str:
    pool = rng.choice(
        [
            LATIN,
            LATIN,
            GREEK,
            CYRILLIC,
            ARABIC,
            HEBREW,
            CJK,
            THAI,
            KOREAN,
            MIXED,
            PUNCT,
            PUNCT,
            EMOJI,
        ]
    )
    return rng.choice(pool)


def _run(rng: random.Random, n: int) -> str:
    """Words; those of unspaced scripts sometimes run together without spaces."""
    out: list[str] = []
    for _ in range(n):
        w = rand_word(rng)
        if out and any(_unspaced_char(c) for c in w) and rng.random() < 0.5:
            out[-1] += w
        else:
            out.append(w)
    return " ".join(out)


def html_escape(s: str) -> str:
    return html.escape(s, quote=True)


def rand_html(rng: random.Random, words: int, marker: str = "") -> str:
    """An article's HTML: paragraphs of mixed words with inline markup, entities,
    links and images whose attributes hold words, script/style, comments."""
    parts: list[str] = []
    if marker:
        parts.append(f"<p>{marker}</p>")
    left = words
    while left > 0:
        k = min(left, rng.randint(1, 12))
        left -= k
        text = html_escape(_run(rng, k))
        r = rng.random()
        if r < 0.15:
            w = rng.choice(LATIN + CYRILLIC)
            cut = rng.randint(1, max(1, len(w) - 1))
            tag = rng.choice(["b", "em", "span", "a", "sub", "strong"])
            text += f" {html_escape(w[:cut])}<{tag}>{html_escape(w[cut:])}</{tag}>"
        elif r < 0.25:
            text += ' <a href="https://zzhrefword.example.com/c++/%E6%9D%B1/page?id=7">link</a>'
        elif r < 0.32:
            text += (
                ' <img src="https://example.com/i.png" alt="zzaltword 東京 photo" title="picture">'
            )
        elif r < 0.37:
            text += " <script>zzscriptword()</script><style>.zzstyleword{}</style>"
        elif r < 0.42:
            text += " <!-- zzcommentword -->"
        elif r < 0.52:
            text += rng.choice(
                [
                    " &amp; ",
                    " &eacute;t&eacute; ",
                    " &#x6771;&#x4EAC; ",
                    " &nbsp;",
                    " &lt;tag&gt; ",
                    " caf&#233; ",
                    " &quot;quoted&quot; ",
                ]
            )
        elif r < 0.57:
            text += " H<sub>2</sub>O "
        elif r < 0.6:
            text += " 東<b>京</b> "
        tag = rng.choice(["p", "div", "li", "h2", "blockquote", "td"])
        parts.append(f"<{tag}>{text}</{tag}>")
    return "\n".join(parts)


def rand_title(rng: random.Random, marker: str = "") -> str:
    r = rng.random()
    if r < 0.08:
        return marker  # only the marker (or empty)
    t = _run(rng, rng.randint(1, 8))
    return f"{t} {marker}".strip() if rng.random() < 0.5 else f"{marker} {t}".strip()


# ---------------------------------------------------------------------------
# the shared corpus: real titles and text


def corpus_items(corpus: Path, rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(title, HTML) of real items, from a few corpus files parsed as the app does."""
    from smartreader.net.parse import parse_feed

    if not corpus.is_dir():
        return []
    files = sorted(
        p
        for p in corpus.rglob("*")
        if p.is_file()
        and not p.name.startswith(("LICENSE", "PROVENANCE"))
        and p.suffix.lower() != ".md"
        and p.stat().st_size < 400_000
    )
    out: list[tuple[str, str]] = []
    for p in rng.sample(files, min(len(files), 12)):
        try:
            doc = parse_feed(p.read_bytes(), url="https://corpus.example/feed")
        except Exception:
            continue
        for e in doc.entries[:4]:
            if e.title or e.content:
                out.append((e.title, e.content or e.summary))
        if len(out) >= count:
            break
    return out[:count]


# ---------------------------------------------------------------------------
# documents


@dataclass
class Item:
    guid: str
    title: str
    html: str
    summary: str = ""  # RSS description beside content:encoded (when not empty)
    published: float = 0.0


def rss(items: list[Item], title: str) -> bytes:
    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>'
        f"<title>{escape(title)}</title><link>https://example.org/</link>"
        "<description>d</description>"
    ]
    for it in items:
        out.append("<item>")
        out.append(f'<guid isPermaLink="false">{escape(it.guid)}</guid>')
        if it.title:
            out.append(f"<title>{escape(it.title)}</title>")
        out.append(f"<link>https://example.org/{escape(it.guid)}</link>")
        out.append(f"<pubDate>{_rfc822(it.published)}</pubDate>")
        if it.summary:
            out.append(f"<description>{escape(it.summary)}</description>")
            out.append(f"<content:encoded>{escape(it.html)}</content:encoded>")
        elif it.html:
            out.append(f"<description>{escape(it.html)}</description>")
        out.append("</item>")
    out.append("</channel></rss>")
    return "".join(out).encode("utf-8")


def atom(items: list[Item], title: str) -> bytes:
    out = [
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<title>{escape(title)}</title><id>urn:x-feed:{escape(title)}</id>"
        "<updated>2026-01-01T00:00:00Z</updated>"
    ]
    for it in items:
        out.append("<entry>")
        out.append(f"<id>urn:x:{escape(it.guid)}</id>")
        out.append(f'<title type="text">{escape(it.title)}</title>')
        out.append(f'<link href="https://example.org/{escape(it.guid)}"/>')
        out.append(f"<updated>{_iso(it.published)}</updated>")
        if it.summary:
            out.append(f'<summary type="html">{escape(it.summary)}</summary>')
        if it.html:
            out.append(f'<content type="html">{escape(it.html)}</content>')
        out.append("</entry>")
    out.append("</feed>")
    return "".join(out).encode("utf-8")


def _rfc822(t: float) -> str:
    import email.utils

    return email.utils.formatdate(t, usegmt=True)


def _iso(t: float) -> str:
    import time as _t

    return _t.strftime("%Y-%m-%dT%H:%M:%SZ", _t.gmtime(t))


def dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=True)[:300]
