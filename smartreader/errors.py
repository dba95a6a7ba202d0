"""The exception tree, translated at layer boundaries.

    SmartReaderError
    ├── StorageError            the database cannot be opened/used
    │   ├── DatabaseTooNewError written by a newer smartreader
    │   ├── DatabaseCorruptError integrity check failed / not a database
    │   └── ReadOnlyDataError   the data folder (or the database) cannot be written
    ├── FetchError              network/HTTP trouble for one feed (data, not a crash)
    ├── ParseError              the bytes are not a usable feed
    ├── CredentialsError        no keyring backend, or it refused us
    └── UsageError              bad user input (unknown feed id, bad OPML path...)

Environment faults (disk full, permissions) surface as StorageError with the
OS message; programming errors are left as ordinary exceptions.
"""


class SmartReaderError(Exception):
    """Base for every error smartreader raises on purpose."""


class StorageError(SmartReaderError):
    pass


class DatabaseTooNewError(StorageError):
    pass


class DatabaseCorruptError(StorageError):
    pass


class ReadOnlyDataError(StorageError):
    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where  # what cannot be written: "the data folder …"


class FetchError(SmartReaderError):
    pass


class ParseError(SmartReaderError):
    pass


class CredentialsError(SmartReaderError):
    pass


class UsageError(SmartReaderError):
    pass
