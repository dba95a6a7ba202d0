"""Assert that stored HTML holds nothing executable, styled or local."""

from __future__ import annotations

from html.parser import HTMLParser

FORBIDDEN_TAGS = {
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form",
    "input", "button", "base", "meta", "link", "svg", "math", "template", "textarea",
}  # fmt: skip
URL_ATTRS = {"href", "src", "poster", "cite", "action", "formaction", "xlink:href",
             "background", "data", "srcset", "dynsrc", "lowsrc", "longdesc", "ping"}  # fmt: skip
SAFE = ("http://", "https://", "mailto:")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.problems.append(f"{tag}[{name}]")
            if name in URL_ATTRS and not (value or "").strip().lower().startswith(SAFE):
                self.problems.append(f"{tag}[{name}={value!r}]")


def assert_inert(html: str) -> None:
    c = _Checker()
    c.feed(html or "")
    c.close()
    assert not c.problems, f"unsafe HTML survived: {c.problems[:5]} in {html[:300]!r}"
