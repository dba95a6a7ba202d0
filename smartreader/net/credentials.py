"""Feed credentials: kept in the OS keyring, kept out of URLs, logs and messages.

* ``split_userinfo`` turns ``https://user:pass@host/feed`` into the clean URL
  plus the credentials, so the stored URL never carries a password.
* ``redact`` makes any URL or message safe to log or show: userinfo becomes
  ``***`` and query parameters that look secret (``token=``, ``key=``...) are
  masked.
* ``store_password`` / ``get_password`` / ``delete_password`` use ``keyring``
  under the service name ``smartreader``. When there is no usable backend
  (keyring's ``fail`` backend, the ``null`` backend that silently drops
  secrets, or any ``KeyringError``) they raise ``CredentialsError`` with a
  message fit for the user. There is deliberately no plain-text fallback.

Without a usable keyring, the user may choose to keep a password for this
session only (``keep_for_session``): in this process's memory, never written
anywhere, gone when it exits. Reads look there first.

The keyring "user name" is ``<username>@<key>``, where ``key`` is the feed's
URL (userinfo removed) or any other stable id such as ``feed:<uuid>``. So when
a feed's URL or user name changes, ``move_password`` re-keys its entry.
"""

from __future__ import annotations

import logging
import re
import threading
from urllib.parse import unquote, urlsplit, urlunsplit

import keyring
import keyring.backends.fail
import keyring.backends.null
import keyring.errors

from smartreader.errors import CredentialsError

SERVICE = "smartreader"

log = logging.getLogger(__name__)

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*)@")
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;][^=&#\s]*(?:pass|pwd|token|key|secret|auth|sig|session)[^=&#\s]*=)"
    r"(?P<value>[^&#\s]*)",
    re.IGNORECASE,
)

_NO_BACKEND = (
    "No secure password storage (system keyring) is available, so the password "
    "cannot be saved or read. Start or unlock your desktop's keyring service "
    "(Secret Service, KWallet, macOS Keychain, Windows Credential Manager) and "
    "try again. smartreader never stores passwords in plain text."
)


def split_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """``(clean_url, username, password)``; names and passwords are percent-decoded.

    URLs without userinfo come back unchanged with ``(None, None)``. The host
    part keeps its original spelling (no lower-casing, no normalisation).
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # no address at all ("http://[::1"): nothing to split, and
        return url, None, None  # what checks the address says so
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, hostport = parts.netloc.rpartition("@")
    raw_user, sep, raw_password = userinfo.partition(":")
    username = unquote(raw_user)
    password = unquote(raw_password) if sep else None
    clean = urlunsplit((parts.scheme, hostport, parts.path, parts.query, parts.fragment))
    if not username and password is None:
        return clean, None, None
    return clean, username, password


def without_userinfo(text: str) -> str:
    """``text`` with every URL's ``user:password@`` taken out."""
    return _USERINFO.sub(lambda m: m.group("scheme"), text)


def redact(text: str) -> str:
    """``text`` with URL userinfo replaced by ``***`` and secret-looking query values masked."""
    text = _USERINFO.sub(lambda m: f"{m.group('scheme')}***@", text)
    return _SECRET_PARAM.sub(lambda m: f"{m.group('name')}***", text)


def _account(key: str, username: str) -> str:
    clean_key, _, _ = split_userinfo(key)  # never put a password into the account name
    return f"{username}@{clean_key}"


def _backend() -> object:
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a configured backend that cannot even start
        raise _translate(exc) from None
    if isinstance(backend, keyring.backends.fail.Keyring | keyring.backends.null.Keyring):
        raise CredentialsError(_NO_BACKEND)
    return backend


def _translate(exc: Exception) -> CredentialsError:
    """A backend's failure in words. Not only ``KeyringError``: a desktop's
    keyring service that is missing or dies (D-Bus) raises its library's own
    errors, which ended in a traceback and "internal error"."""
    if isinstance(exc, keyring.errors.NoKeyringError):
        return CredentialsError(_NO_BACKEND)
    if isinstance(exc, keyring.errors.KeyringLocked):
        return CredentialsError("The system keyring is locked; unlock it and try again.")
    detail = (str(exc) or type(exc).__name__).splitlines()[0][:200]
    if not isinstance(exc, keyring.errors.KeyringError):
        return CredentialsError(f"The system keyring is not working: {detail}")
    return CredentialsError(f"The system keyring refused the request: {detail}")


def keyring_available() -> bool:
    """Whether a real (not ``fail``/``null``) keyring backend is configured.

    This does not prove the backend works (it may be locked); callers that
    need certainty do a round trip.
    """
    try:
        _backend()
    except CredentialsError:
        return False
    return True


# Passwords kept for this session only, by account (see the module's doc).
_session: dict[str, str] = {}
_session_lock = threading.Lock()


def keep_for_session(key: str, username: str, password: str) -> None:
    """Use ``password`` until this process exits, without saving it anywhere."""
    with _session_lock:
        _session[_account(key, username)] = password


def kept_for_session(key: str, username: str) -> bool:
    with _session_lock:
        return _account(key, username) in _session


def store_password(key: str, username: str, password: str) -> None:
    """Save ``password`` for ``username`` on feed ``key``, replacing any previous one."""
    _backend()
    try:
        keyring.set_password(SERVICE, _account(key, username), password)
    except Exception as exc:  # any backend's own errors too (see _translate)
        raise _translate(exc) from None


def get_password(key: str, username: str) -> str | None:
    """The saved password, or None when none is saved."""
    with _session_lock:
        kept = _session.get(_account(key, username))
    if kept is not None:
        return kept
    _backend()
    try:
        value = keyring.get_password(SERVICE, _account(key, username))
    except Exception as exc:  # any backend's own errors too (see _translate)
        raise _translate(exc) from None
    return value if value is None else str(value)


def delete_password(key: str, username: str) -> bool:
    """Forget the saved password. Returns False when there was none to delete.
    With no keyring at all nothing can be saved in one: only a session-only
    password is forgotten (clearing a feed's user name failed, and was undone,
    after a restart without a keyring)."""
    account = _account(key, username)
    with _session_lock:
        kept = _session.pop(account, None) is not None
    if not keyring_available():
        return kept
    try:
        if keyring.get_password(SERVICE, account) is None:
            return kept
        keyring.delete_password(SERVICE, account)
    except Exception as exc:  # any backend's own errors too (see _translate)
        raise _translate(exc) from None
    return True


def move_password(old_key: str, old_username: str, new_key: str, new_username: str) -> bool:
    """Re-key a saved password (the feed's URL or user name changed).

    The password is written under the new key and read back; only then is the
    old entry deleted, so the only copy of a password is never lost. Returns
    False when nothing is saved under the old key (nothing moved). Raises
    ``CredentialsError`` when the keyring cannot read or keep the new entry;
    the old one is then untouched (a backend that raises something other than
    a ``KeyringError`` propagates it, also before anything is deleted). Failing
    to delete the old entry afterwards is only logged: the move itself worked.
    """
    with _session_lock:
        kept = _session.pop(_account(old_key, old_username), None)
        if kept is not None:  # a session-only password moves in memory
            _session[_account(new_key, new_username)] = kept
            return True
    if not keyring_available():
        # nothing can be saved in a keyring there is not (as for delete_password):
        # asking it refused every change of such a feed's address or user name
        return False
    password = get_password(old_key, old_username)
    if password is None:
        return False
    if _account(old_key, old_username) == _account(new_key, new_username):
        return True
    store_password(new_key, new_username, password)
    if get_password(new_key, new_username) != password:
        raise CredentialsError(
            "The system keyring did not keep the password under the feed's new address; "
            "it is still saved under the old one."
        )
    try:
        delete_password(old_key, old_username)
    except CredentialsError as exc:
        log.warning(
            "the password was moved to %s but its old keyring entry (%s) could not be deleted: %s",
            redact(new_key),
            redact(old_key),
            exc,
        )
    return True
