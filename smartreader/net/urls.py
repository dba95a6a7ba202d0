"""Web addresses as users type them and files list them (see
:mod:`smartreader.core.address` for their one spelling)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from smartreader.core.address import canonical_url
from smartreader.errors import UsageError
from smartreader.net.discover import without_feed_scheme

# "javascript:…", "mailto:…": a scheme without "//" (but "host:8080/feed" is a port)
_BARE_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?!\d)")
_USERINFO = re.compile(r"//[^/?#]*@")  # a password typed into the address


def typed_address(text: str) -> str:
    """A web address as a user types or a file lists it: ``feed:`` forms as the
    addresses they name, ``https://`` when it names no scheme, then
    :func:`canonical_url`. Raises :class:`UsageError` for any scheme but http(s)
    ("mailto:a@b.c" is not the host b.c with a user name "mailto")."""
    url = without_feed_scheme(text)
    if "://" not in url:
        if _BARE_SCHEME.match(url):
            raise UsageError(f"only http and https feeds are supported, not {url!r}")
        url = "https://" + url
    try:
        parts = urlsplit(url)
    except ValueError:  # "http://[::1" (a bracket not closed): a traceback in the CLI
        shown = _USERINFO.sub("//***@", text.strip())
        raise UsageError(f"not a web address: {shown!r}") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise UsageError(f"only http and https feeds are supported, not {url!r}")
    if not parts.hostname:
        raise UsageError(f"not a web address: {text.strip()!r} names no server")
    try:
        parts.port  # noqa: B018  (raises on a port that is not a number, or past 65535)
    except ValueError:  # (port 99999 was fetched, to fail as "connection refused")
        raise UsageError(
            f"not a web address: {text.strip()!r} (a port is a number up to 65535)"
        ) from None
    return canonical_url(url)
