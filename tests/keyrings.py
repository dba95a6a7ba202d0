"""An in-memory stand-in for the OS keyring (the real one cannot be used in tests)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import keyring
import keyring.backend
import keyring.errors


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A test double of the OS keyring: ``data`` maps (service, account) → password."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.data.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class LockedKeyring(MemoryKeyring):
    """A keyring that is there but refuses everything (locked, or by policy)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("refused by policy")


class BrokenKeyring(MemoryKeyring):
    """A desktop keyring whose service is gone: its library raises its own errors
    (as a D-Bus one does), not keyring's."""

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError(
            "org.freedesktop.DBus.Error.ServiceUnknown: "
            "The name org.freedesktop.secrets was not provided by any .service files"
        )

    def set_password(self, service: str, username: str, password: str) -> None:
        raise OSError(5, "Input/output error")


K = TypeVar("K", bound=keyring.backend.KeyringBackend)


@contextmanager
def installed(kr: K) -> Iterator[K]:
    """Use ``kr`` as the keyring inside the block; the previous one after."""
    previous = keyring.get_keyring()
    keyring.set_keyring(kr)
    try:
        yield kr
    finally:
        keyring.set_keyring(previous)
