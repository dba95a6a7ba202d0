"""A German LC_TIME for tests, real when the system has one, simulated otherwise.

Qt calls ``setlocale(LC_ALL, "")``, so in the app ``strftime``'s %a/%A/%b/%B
follow the user's locale. CI machines rarely have a non-English locale installed
(and generating one needs root), so ``german_datetime_module()`` stands in: a
``datetime`` module whose ``datetime.strftime`` (and so f"{d:%a}") writes the
names glibc's de_DE writes. Patched in as a module's ``dt``, it makes any
strftime name in that module's output German, exactly as the real locale would.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import locale
import re
import subprocess
import types
from collections.abc import Iterator

# glibc de_DE's LC_TIME names (Monday first, as datetime.weekday() counts)
DE_DAYS = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")
DE_DAYS_ABBR = ("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So")
DE_MONTHS = (
    "Januar", "Februar", "März", "April", "Mai", "Juni",
    "Juli", "August", "September", "Oktober", "November", "Dezember",
)  # fmt: skip
DE_MONTHS_ABBR = (
    "Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez",
)  # fmt: skip


def _german(fmt: str, d: dt.date) -> str:
    def name(m: re.Match[str]) -> str:
        code = m.group()
        if code == "%%":
            return code
        return {
            "%a": DE_DAYS_ABBR[d.weekday()],
            "%A": DE_DAYS[d.weekday()],
            "%b": DE_MONTHS_ABBR[d.month - 1],
            "%B": DE_MONTHS[d.month - 1],
        }[code]

    return re.sub(r"%%|%[aAbB]", name, fmt)


class GermanDateTime(dt.datetime):
    """A datetime whose strftime names days and months as de_DE does."""

    def strftime(self, fmt: str) -> str:
        return super().strftime(_german(fmt, self))

    def __format__(self, spec: str) -> str:
        return self.strftime(spec) if spec else str(self)


def german_datetime_module() -> types.ModuleType:
    """``datetime`` with ``datetime`` replaced by :class:`GermanDateTime`."""
    fake = types.ModuleType("datetime")
    fake.__dict__.update(vars(dt))
    fake.datetime = GermanDateTime  # type: ignore[attr-defined]
    return fake


def _installed_locales() -> list[str]:
    try:
        out = subprocess.run(["locale", "-a"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return out.split()


@contextlib.contextmanager
def real_foreign_lc_time() -> Iterator[str | None]:
    """Set LC_TIME to an installed locale whose weekday names are not English
    (yields its name), or yield None when there is none; restored afterwards.
    ``LOCPATH`` from the environment is honoured (glibc reads it at setlocale)."""
    saved = locale.setlocale(locale.LC_TIME)
    tuesday = dt.date(2026, 11, 24)
    names = ["de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "es_ES.UTF-8"]
    names += [n for n in _installed_locales() if not n.startswith(("C", "POSIX", "en_"))]
    found = None
    for name in names:
        try:
            locale.setlocale(locale.LC_TIME, name)
        except locale.Error:
            continue
        if tuesday.strftime("%A") != "Tuesday":
            found = name
            break
    try:
        yield found
    finally:
        locale.setlocale(locale.LC_TIME, saved)
