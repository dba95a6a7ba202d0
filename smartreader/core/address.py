"""One spelling per feed address: the same feed typed as
``HTTP://Example.org:80/a/./feed#top`` and as ``http://example.org/a/feed`` is one
subscription, not two (and an exported OPML file that kept the first spelling
must import again). Pure: the store, the importer and the updater share it."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

_DEFAULT_PORT = {"http": 80, "https": 443}


def canonical_url(url: str) -> str:
    """``url`` with its scheme and host in lower case, no default port, no
    fragment (never sent to the server) and no ``.``/``..`` segments (RFC 3986
    §6.2.2). The path's case, its percent-escapes and the query stay as they are:
    servers may tell those apart. Not an http(s) address with a host: unchanged."""
    try:
        parts = urlsplit(url.strip())
        scheme = parts.scheme.lower()
        host = parts.hostname  # lower case, without user info and port
        port = parts.port
    except ValueError:  # a port that is not a number
        return url
    if scheme not in _DEFAULT_PORT or not host:
        return url
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORT[scheme]) else f"{host}:{port}"
    userinfo = parts.netloc.rpartition("@")[0]  # "" without one
    if userinfo:
        netloc = f"{userinfo}@{netloc}"
    return urlunsplit((scheme, netloc, _remove_dots(parts.path) or "/", parts.query, ""))


def address_key(url: str) -> str:
    """What tells two addresses of one feed apart: :func:`canonical_url`, with an
    internationalised host in the ASCII form the request sends (IDNA 2008 with
    UTS 46, as httpx encodes it): "https://bücher.example/feed" and
    "https://xn--bcher-kva.example/feed" are one feed, not two subscriptions. The
    stored address keeps the spelling the user gave (readable); only comparisons
    use this."""
    url = canonical_url(url)
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return url
    if not host or host.isascii():
        return url  # canonical_url lower-cased it; "xn--" labels are compared as they are
    import idna  # here: ~5 ms that every command and start would pay at import

    try:
        ascii_host = idna.encode(host, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return url  # not a name httpx could send either: compared as written
    netloc = parts.netloc
    at = netloc.rfind("@") + 1
    rest = netloc[at:]
    port = rest[len(host) :] if rest.startswith(host) else ""
    return urlunsplit((parts.scheme, netloc[:at] + ascii_host + port, parts.path, parts.query, ""))


def _remove_dots(path: str) -> str:
    """RFC 3986 §5.2.4 for an absolute path; other slashes (``a//b``) stay."""
    segments = path.split("/")
    if "." not in segments and ".." not in segments:
        return path
    out: list[str] = []
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if seg in (".", ".."):
            if seg == ".." and len(out) > 1:  # out[0] is the "" before the first "/"
                out.pop()
            if i == last:
                out.append("")  # "/a/b/.." is the folder "/a/"
            continue
        out.append(seg)
    return "/".join(out)
