"""How a word-wrapped label breaks its text into lines (for line-break tests)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextDocument


def wrapped_lines(
    text: str, font: QFont, width: int, *, rich: bool = True, margin: float | None = None
) -> list[str]:
    """The lines ``text`` (rich or plain) takes at ``width`` px in ``font``;
    ``margin``: the document margin (Qt's default, 4 px, when None)."""
    doc = QTextDocument()
    doc.setDefaultFont(font)
    if margin is not None:
        doc.setDocumentMargin(margin)
    if rich:
        doc.setHtml(text)
    else:
        doc.setPlainText(text)
    doc.setTextWidth(width)
    doc.size()  # lays it out
    out = []
    block = doc.begin()
    while block.isValid():
        lay = block.layout()
        for i in range(lay.lineCount()):
            line = lay.lineAt(i)
            out.append(block.text()[line.textStart() : line.textStart() + line.textLength()])
        block = block.next()
    return out
