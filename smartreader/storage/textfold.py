"""Search folding: the text the full-text index holds, and what a search looks
for, with the differences a reader does not type taken out (schema v12).

SQLite's tokenizer (unicode61, remove_diacritics 2) folds case and the accents
of Latin letters that Unicode decomposes, and nothing else: "strasse" did not
find "Straße", "kobenhavn" not "København", "lodz" not "Łódź", "αθηνα" not
"Αθήνα", "ёлка" typed as "елка" nothing, and full-width "ＰＹＴＨＯＮ" not
"Python". Both sides go through :func:`fold` (the index text as it is stored,
every query as it is typed), so the tokenizer sees the same letters on both.

What folds, as search engines fold it: the accents of Latin and Greek letters;
letters that are an accented form without a Unicode decomposition (ø, ł, đ, ħ,
ŧ, ı), ß and the ligatures æ, œ, þ, ﬁ spelled out; full-width Latin letters
and digits; Greek final sigma; Cyrillic ё as е. Not folded: the marks of
Cyrillic й, ї (distinct letters); every mark of other scripts (a Thai or
Devanagari vowel sign, a Japanese voicing mark is part of the letter); and the
other compatibility forms (NFKC would make "½" the words 1 and 2, and "x²" x2).

Symbols (emoji, ★, ™) become spaces: the tokenizer knows Unicode 6.1 only, and
takes what came later (a skin tone, 🤔, 🥳) for letters of the word it touches,
so "banana" did not find "👍🏽Banana".
"""

from __future__ import annotations

import functools
import re
import unicodedata

_SPELLED = {
    "ß": "ss",
    "ẞ": "SS",
    "æ": "ae",
    "Æ": "AE",
    "ǣ": "ae",
    "Ǣ": "AE",
    "ǽ": "ae",
    "Ǽ": "AE",
    "œ": "oe",
    "Œ": "OE",
    "ø": "o",
    "Ø": "O",
    "ǿ": "o",
    "Ǿ": "O",
    "ł": "l",
    "Ł": "L",
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "Ð": "D",
    "þ": "th",
    "Þ": "TH",
    "ı": "i",
    "ħ": "h",
    "Ħ": "H",
    "ŧ": "t",
    "Ŧ": "T",
    "ŀ": "l",
    "Ŀ": "L",
    "ſ": "s",
    "ẛ": "s",
    "ﬀ": "ff",
    "ﬁ": "fi",
    "ﬂ": "fl",
    "ﬃ": "ffi",
    "ﬄ": "ffl",
    "ﬅ": "st",
    "ﬆ": "st",
    "ς": "σ",
    "ё": "е",
    "Ё": "Е",
}
# full-width ASCII (East Asian input methods type Latin letters and digits so)
_SPELLED |= {chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}

# Combining accents (U+0300–U+036F): removed after a Latin or Greek letter
# (these ranges hold what those letters decompose to, NFD, and their extensions)
_MARKS = re.compile("[\u0300-\u036f]+")
_ANY_MARK = re.compile("[\u0300-\u036f]")  # (searching for the run took twice as long)
_LATIN_GREEK = re.compile(
    "[A-Za-z\u00c0-\u024f\u1d00-\u1dbf\u1e00-\u1eff\u0370-\u03ff\u1f00-\u1fff]"
)


def char_class(lo: int, hi: int, categories: tuple[str, ...]) -> str:
    """The characters of ``lo`` to ``hi`` (exclusive) whose Unicode category starts
    with one of ``categories`` ("S": every symbol; "Mn": one kind of mark), as the
    ranges of a regex class (without its brackets)."""
    out: list[str] = []
    start = prev = -2
    for c in range(lo, hi):
        if unicodedata.category(chr(c)).startswith(categories):
            if c != prev + 1:
                if start >= 0:
                    out.append(f"\\U{start:08x}-\\U{prev:08x}")
                start = c
            prev = c
    if start >= 0:
        out.append(f"\\U{start:08x}-\\U{prev:08x}")
    return "".join(out)


@functools.cache
def _patterns() -> tuple[dict[str, str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """What folds, character by character: the spelled-out letters and every
    composed Latin or Greek letter with accents (its letter without them); and
    regexes for those, for the symbols (Sm, Sc, Sk, So) past ASCII and for any
    character that needs folding (one fast scan passes over a text that needs
    none). One lookup per letter, instead of decomposing and recomposing the
    whole text (NFD, NFC: 4× as long). Made at the first fold of non-ASCII
    text, not at import: the scans take ~60 ms."""
    table = dict(_SPELLED)
    for c in range(0xC0, 0x2000):
        ch = chr(c)
        d = unicodedata.normalize("NFD", ch)
        if len(d) > 1 and _LATIN_GREEK.match(d) and _MARKS.fullmatch(d, 1):
            table.setdefault(ch, _SPELLED.get(d[0], d[0]))
    letters = "".join(re.escape(c) for c in table)
    bmp = char_class(0x80, 0x10000, ("S",))
    return (
        table,
        re.compile(f"[{letters}]"),
        re.compile(f"[{bmp}]"),
        re.compile(f"[{letters}\\u0300-\\u036f{bmp}\\U00010000-\\U0010ffff]"),
    )


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@functools.cache
def _astral_symbols() -> frozenset[str]:
    """The symbols past the BMP (emoji): all in plane 1 (plane 2 is ideographs)."""
    return frozenset(
        chr(c) for c in range(0x10000, 0x20000) if unicodedata.category(chr(c))[0] == "S"
    )


def _strip_accents(text: str) -> str:
    """``text`` (NFD) without the accents of its Latin and Greek letters. (A regex
    with a look-behind tried at every character took 4× as long.)"""
    parts: list[str] = []
    at = 0
    for m in _MARKS.finditer(text):
        i = m.start()
        if i > 0 and _LATIN_GREEK.match(text, i - 1):
            parts.append(text[at:i])
            at = m.end()
    if not parts:
        return text
    parts.append(text[at:])
    return "".join(parts)


def fold(text: str | None) -> str:
    """``text`` as the index holds it (and a query is matched): see the module."""
    if not text:
        return ""
    if text.isascii():
        return text  # nothing to fold: the common case stays as cheap as a copy
    # composed first, so that a letter typed decomposed (Е + ¨) is the one spelled out
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    table, letters, symbols, anything = _patterns()
    if anything.search(text) is None:
        return text  # an English text with curly quotes and dashes
    text = letters.sub(lambda m: table[m.group()], text)
    if _ANY_MARK.search(text):  # a mark no letter composes with (e + ̣ + ̂ = ệ is one)
        text = unicodedata.normalize("NFC", _strip_accents(unicodedata.normalize("NFD", text)))
        text = letters.sub(lambda m: table[m.group()], text)
    text = symbols.sub(" ", text)
    if _ASTRAL.search(text):  # emoji, and CJK ideographs of plane 2 (kept)
        astral = _astral_symbols()
        text = _ASTRAL.sub(lambda m: " " if m[0] in astral else m[0], text)
    return text
