"""The ``smartreader`` command line.

With no subcommand it starts the GUI. Every subcommand but ``replay`` (which
reads only the trace files it is given) takes ``--data-dir``.
Errors the user can act on print one clear line and exit 1; nothing stored is
touched by a failing command.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import errno
import io
import json
import logging
import math
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smartreader import __version__
from smartreader.errors import FetchError, ParseError, SmartReaderError, UsageError
from smartreader.text import (
    count_of,
    duration_text,
    format_utc_offset,
    local_time_text,
    local_utc_offset,
    with_kind,
)

if TYPE_CHECKING:
    from smartreader.storage.store import Store
    from smartreader.updater import UpdateResult


# SQLite's integers: a number past them is no id or count of ours (it escaped
# as an OverflowError from the database driver)
_SQL_INT_MAX = 2**63 - 1


def _positive_int(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    if n > _SQL_INT_MAX:
        raise argparse.ArgumentTypeError(f"must be at most {_SQL_INT_MAX}, not {n}")
    return n


def _id_arg(kind: str, listed_by: str) -> Callable[[str], int]:
    """An argparse type for a feed's or a rule's id."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"not a {kind} id: {text!r} (see `smartreader {listed_by}`)"
            ) from None
        if not 1 <= n <= _SQL_INT_MAX:
            raise argparse.ArgumentTypeError(
                f"no {kind} has the id {n} (see `smartreader {listed_by}`)"
            )
        return n

    return parse


_feed_id = _id_arg("feed", "feeds")
_rule_id = _id_arg("rule", "rules")


_UNITS = {"s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def _duration_arg(text: str) -> float:
    """ "15m", "6h", "2d", "1w" (seconds returned): a bare number would leave the
    unit to guess."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)\s*", text.lower())
    if m is None:
        raise argparse.ArgumentTypeError(
            f"not a duration: {text!r} (a number and a unit: 30m, 6h, 2d, 1w)"
        )
    return float(m.group(1)) * _UNITS[m.group(2)]


def _folder_arg(text: str) -> str:
    # "" is no folder: taken for "none given", it ran on the user's own data
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name; leave the option out for the default")
    return text


def _data_dir_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        type=_folder_arg,
        default=argparse.SUPPRESS,
        help="the data folder, where the database lives (default: $SMARTREADER_DATA_DIR "
        "if set, else the platform's user data folder)",
    )


class _TopParser(argparse.ArgumentParser):
    """The top-level parser: its help ends with the data folder in effect, worked
    out only when help is shown (it imports the storage layer)."""

    def format_help(self) -> str:
        from smartreader.storage.paths import data_dir

        # Raw text (RawDescriptionHelpFormatter): a wrapped path could break at a
        # hyphen or a space.
        self.epilog = (
            "The data folder (where the database lives) is --data-dir DIR if given,\n"
            "else the SMARTREADER_DATA_DIR environment variable if set, else the\n"
            "platform's user data folder. Without --data-dir, that is now:\n"
            f"  {data_dir()}\n"
            "\n"
            'Run "smartreader COMMAND --help" for what a command takes.'
        )
        return super().format_help()


# What `replay` says to --data-dir: it reads trace files, never a database.
REPLAY_NO_DATA_DIR = (
    "replay reads only the trace files it is given and uses no data folder: leave out --data-dir"
)


def build_parser() -> argparse.ArgumentParser:
    parser = _TopParser(
        prog="smartreader",
        description="A desktop feed reader that learns when feeds publish.\n"
        "Run without a command to open the app.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"smartreader {__version__}")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="open the app on a temporary data folder with a local demo feed server",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check this install: open the demo offscreen, fetch from its local server, "
        "render the window, exit 0 (1 with a message on failure)",
    )
    _data_dir_arg(parser)
    # The commands' own help is wrapped as usual (the parser class is not inherited).
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=argparse.ArgumentParser
    )

    p = sub.add_parser("add", help="subscribe to a feed or a site URL")
    p.add_argument(
        "url",
        help="the feed's or the site's address (https:// is assumed when none is given; "
        "user:password@ in it goes to the keyring)",
    )
    p.add_argument("--folder", help="put the feed in this folder")
    p.add_argument("--title", help="your own title for the feed")
    _data_dir_arg(p)

    p = sub.add_parser(
        "remove", help="unsubscribe: delete feeds with their articles and saved passwords"
    )
    p.add_argument("feeds", type=_feed_id, nargs="+", metavar="FEED", help="feed id (see feeds)")
    p.add_argument(
        "-y",
        "--yes",
        action="store_true",
        help="do not ask (at a terminal it asks first: this cannot be undone)",
    )
    _data_dir_arg(p)

    p = sub.add_parser("import", help="import subscriptions from an OPML file")
    p.add_argument("file", type=Path, help="the OPML file another reader exported")
    p.add_argument("--no-fetch", action="store_true", help="subscribe without fetching now")
    _data_dir_arg(p)

    p = sub.add_parser("export", help="export subscriptions to an OPML file")
    p.add_argument(
        "file",
        type=Path,
        help="the OPML file to write (replaced whole; missing folders above it are created)",
    )
    _data_dir_arg(p)

    p = sub.add_parser(
        "update",
        help="fetch feeds now (all by default)",
        description="Fetch feeds now (all by default). Exit status 1 when every feed "
        "tried failed (offline?), 0 when at least one was fetched.",
    )
    p.add_argument(
        "feeds",
        nargs="*",
        type=_feed_id,
        metavar="FEED",
        help="feed id (see feeds); none: all feeds",
    )
    p.add_argument("--due", action="store_true", help="only the feeds the scheduler says are due")
    _data_dir_arg(p)

    p = sub.add_parser("feeds", help="list subscriptions")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    _data_dir_arg(p)

    p = sub.add_parser("entries", help="list entries, newest first")
    p.add_argument(
        "--feed", type=_feed_id, action="append", metavar="FEED", help="only this feed (repeatable)"
    )
    p.add_argument("--unread", action="store_true", help="only unread entries")
    p.add_argument("--starred", action="store_true", help="only starred entries")
    p.add_argument("--search", metavar="Q", help="full-text search of titles and text")
    p.add_argument(
        "--limit", type=_positive_int, default=50, metavar="N", help="at most N (default 50)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    _data_dir_arg(p)

    p = sub.add_parser("backup", help="write a consistent copy of the database")
    p.add_argument(
        "path",
        type=Path,
        help="the copy to write (replaced whole; missing folders above it are created)",
    )
    _data_dir_arg(p)

    p = sub.add_parser("explain", help="what the scheduler learned about a feed and plans")
    p.add_argument("feed", type=_feed_id, metavar="FEED", help="feed id (see feeds)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    _data_dir_arg(p)

    p = sub.add_parser("budget", help="show or set the request budget (requests per day)")
    p.add_argument(
        "per_day",
        nargs="?",
        type=float,
        metavar="N",
        help="requests per day across all feeds (a whole number); without it, show the plan",
    )
    p.add_argument(
        "--min-interval",
        type=_duration_arg,
        metavar="T",
        help="no feed is checked more often than this (1m to 1d, e.g. 15m; default 15m)",
    )
    p.add_argument(
        "--max-interval",
        type=_duration_arg,
        metavar="T",
        help="every feed is checked at least this often (1h to 1w, e.g. 2d; default 1d)",
    )
    _data_dir_arg(p)

    p = sub.add_parser(
        "cleanup",
        help="delete old articles now (starred ones are kept); set how long articles are kept",
    )
    p.add_argument(
        "--read-days", type=float, metavar="N", help="keep read articles N days (0: always)"
    )
    p.add_argument(
        "--unread-days", type=float, metavar="N", help="keep unread articles N days (0: always)"
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="then give the freed space back to the disk (rewrites the database)",
    )
    _data_dir_arg(p)

    p = sub.add_parser("rules", help="list the rules that mark new articles read or star them")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    _data_dir_arg(p)

    p = sub.add_parser(
        "rule", help="add or remove a rule: new articles with some words are marked read or starred"
    )
    _data_dir_arg(p)  # before the action too, as every command takes it
    actions = p.add_subparsers(
        dest="rule_command", metavar="ACTION", required=True, help="add or remove"
    )
    a = actions.add_parser(
        "add",
        help="add a rule for the articles fetched from now on",
        description="Add a rule: new articles with all these words (whole words, in any "
        "case and order) are marked read, or starred with --star.",
    )
    a.add_argument("words", nargs="+", metavar="WORD", help="the words an article must have")
    a.add_argument("--feed", type=_feed_id, metavar="FEED", help="only in this feed (see feeds)")
    a.add_argument("--title-only", action="store_true", help="look for the words in titles only")
    a.add_argument("--star", action="store_true", help="star the articles (default: mark read)")
    a.add_argument(
        "--apply",
        action="store_true",
        help="also apply it now to the stored articles that match",
    )
    _data_dir_arg(a)
    a = actions.add_parser("remove", help="remove a rule")
    a.add_argument("rule", type=_rule_id, metavar="RULE", help="rule id (see rules)")
    _data_dir_arg(a)

    try:
        from smartreader.sim.cli import add_replay_parser
    except ImportError:  # pragma: no cover - sim is part of the package
        pass
    else:
        add_replay_parser(sub)
    return parser


def _open_store(
    args: argparse.Namespace, *, reads_only: bool = False, creates: bool = False
) -> Store:
    """The data folder's store. ``reads_only``: the command changes nothing, so a
    data folder that cannot be written (a read-only mount, a copy on a disc) is read
    as it is, when that is safe (``open_unwritable``).

    ``creates``: the command starts a collection (``add``, ``import``, a setting
    given a value), so a data folder with no database yet gets one. Any other
    command finds none to work on: where the user named the folder (``--data-dir``
    or ``SMARTREADER_DATA_DIR``) that is one line, as a typo there made an empty
    database before; in the platform's folder (nothing run yet) it reads an empty
    database kept in memory, so it answers as a new one would and makes no files."""
    from smartreader.errors import ReadOnlyDataError
    from smartreader.storage import Store, db_path
    from smartreader.storage.store import open_unwritable, upgrade_due

    path = db_path(getattr(args, "data_dir", None))
    if not creates and _no_database(path):
        named = _named_by(args)
        if named is not None:
            raise UsageError(f"no smartreader data in {path.parent} (check {named})")
        return Store(":memory:")
    _refuse_damaged(path)
    if upgrade_due(path) is not None and os.access(path.parent, os.W_OK):
        # a large database takes a minute (every article re-indexed): not a hang
        print(
            "note: updating the database for this version of smartreader (a copy as it "
            f"was goes to {path.parent / 'backups'}); with many articles this takes a minute",
            file=sys.stderr,
        )
    try:
        store = Store(path)
    except ReadOnlyDataError as e:
        ro = open_unwritable(path) if reads_only else None
        if ro is None:
            raise
        print(
            f"note: {e.where} is read-only: reading the database, changing nothing", file=sys.stderr
        )
        return ro
    if store.stray_wal is not None:
        print(
            f"note: a write-ahead log that did not belong to the database was set aside, "
            f"not applied: {store.stray_wal}",
            file=sys.stderr,
        )
    return store


def _named_by(args: argparse.Namespace) -> str | None:
    """How the user named the data folder in effect; None for the platform's own
    (the order ``storage.paths.data_dir`` follows)."""
    if getattr(args, "data_dir", None):
        return "--data-dir"
    if os.environ.get("SMARTREADER_DATA_DIR"):
        return "SMARTREADER_DATA_DIR"
    return None


def _no_database(path: Path) -> bool:
    """Nothing at the database's path. A file where its folder should be, or a
    folder that cannot be looked into, is not that: the store says what is wrong."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:  # not a folder above it, no permission: Store's one line
        return False
    return False


def _refuse_damaged(path: Path) -> None:
    """Every command checks the whole file first, as the app does at start: writing
    into damaged pages can spread the damage, and a listing, an export or a backup
    read from them would be quietly short, or damaged too (the file is never
    changed)."""
    from smartreader.storage import recovery

    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        # none there yet; or read-only, read as it lies (its check would leave a
        # -shm beside it that stops that): a damaged page read is one line then
        return
    problem = recovery.diagnose(path)
    # the rest (busy, read-only, too new) the store itself says better
    if problem is not None and problem.kind == "corrupt":  # worded as the store's own
        raise UsageError(f"{path} is damaged ({problem.detail}); it has not been modified")


def _fmt_time(t: float | None) -> str:
    if t is None:
        return "-"
    return dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")


def _fmt_duration(s: float) -> str:
    if not math.isfinite(s):  # nothing planned: no delay to speak of, not "inf d"
        return "none planned"
    s = max(0.0, s)
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} d"


class _Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.errors = 0
        self.results: list[UpdateResult] = []  # every feed's, in the order they finished

    def __call__(self, done: int, total: int, res: UpdateResult) -> None:
        self.results.append(res)
        if res.status in ("error", "gone"):
            self.errors += 1
        if not self.tty:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        self.stream.write(
            f"\r[{'#' * filled}{' ' * (width - filled)}] {done}/{total} feeds"
            f"{f', {self.errors} failed' if self.errors else ''}"
        )
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def cmd_add(args: argparse.Namespace) -> int:
    from smartreader.updater import FeedOption, SeveralFeeds, Updater

    with _open_store(args, creates=True) as store:
        up = Updater(store)
        others: list[FeedOption] = []
        try:
            try:
                fid = up.subscribe(args.url, folder=args.folder, title=args.title, choose=True)
            except SeveralFeeds as several:
                fid, others = _subscribe_first(up, several, args)
        finally:
            up.close()
        feed = store.feed(fid)
        n = len(store.entry_ids(feed_ids=[fid]))
        entries = count_of(n, "entry", "entries")
        print(f"subscribed [{fid}] {feed.display_title} <{feed.url}>: {entries}")
        if others:
            print(f"the site links {len(others)} more: add one with `smartreader add ADDRESS`")
            for o in others:
                print(f"  {with_kind(o.title or '(untitled)', o.kind)} <{o.url}>")
    return 0


def _subscribe_first(up: Any, several: Any, args: argparse.Namespace) -> tuple[int, list[Any]]:
    """The first of the page's feeds that subscribes (posts before comments);
    the ones not tried, for the user to know of."""
    fresh = [o for o in several.options if not o.subscribed]
    if not fresh:
        raise UsageError(f"already subscribed to every feed {several.page} links")
    first_error: Exception | None = None
    for i, o in enumerate(fresh):
        try:
            fid = up.subscribe(
                o.address, folder=args.folder, title=args.title, public_only=o.public_only
            )
        except (FetchError, ParseError) as e:
            print(f"skipped {o.title or o.url}: {e}", file=sys.stderr)
            first_error = first_error or e
            continue
        return fid, fresh[i + 1 :]
    assert first_error is not None
    raise first_error


def cmd_import(args: argparse.Namespace) -> int:
    from smartreader.subscriptions import import_opml
    from smartreader.updater import Updater

    if re.match(r"(?i)(https?|feed):/", str(args.file)):  # a Path made "http://" "http:/"
        raise UsageError(
            "import reads a file: save the list first (e.g. `curl -o list.opml ADDRESS`), "
            "then `smartreader import list.opml`"
        )
    try:
        data = args.file.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror}") from e
    with _open_store(args, creates=True) as store:
        report = import_opml(store, data)
        for problem in report.problems:
            print(f"skipped: {problem}", file=sys.stderr)
        for note in report.notes:
            print(f"note: {note}", file=sys.stderr)
        print(report.summary())
        if report.added and not args.no_fetch:
            up = Updater(store)
            try:
                results = up.update(report.added, manual=True, progress=_Progress())
            finally:
                up.close()
            failed = [r for r in results if r.status in FAILED]
            print(f"fetched {count_of(len(results) - len(failed), 'feed')}, {len(failed)} failed")
            for r in failed:  # which ones and why, as `update` says
                print(f"  [{r.feed_id}] {_feed_name(store, r.feed_id)}: {r.error}", file=sys.stderr)
            if failed:
                # The import worked (exit 0); the failures are the feeds' own.
                print(
                    "the subscriptions are saved; failed feeds are tried again by the app "
                    "or `smartreader update`",
                    file=sys.stderr,
                )
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from smartreader.subscriptions import unsubscribe

    with _open_store(args) as store:
        for fid in args.feeds:
            store.feed(fid)  # every id is checked before anything is deleted
        if not args.yes and sys.stdin.isatty() and not _removal_confirmed(store, args.feeds):
            print("nothing removed")
            return 1
        for fid in dict.fromkeys(args.feeds):
            done = unsubscribe(store, fid)
            print(done.summary())
            if done.password_problem:
                print(f"  its password stays in the keyring: {done.password_problem}",
                      file=sys.stderr)  # fmt: skip
    return 0


def _removal_confirmed(store: Any, feed_ids: list[int]) -> bool:
    """At a terminal, what ``remove`` deletes is said and asked first: unlike
    in the app there is no undo (scripts, with no terminal, are not asked)."""
    for fid in dict.fromkeys(feed_ids):
        feed = store.feed(fid)
        what = count_of(store.entry_count(fid), "article")
        starred = store.starred_count(fid)
        if starred:
            what += f", {starred} starred"
        print(f"  [{fid}] {feed.display_title} ({what})")
    try:
        answer = input("Unsubscribe and delete these articles? This cannot be undone. [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


@contextlib.contextmanager
def _target_file(path: Path) -> Iterator[list[Path]]:
    """Where ``export`` and ``backup`` write: the path was typed on purpose, so
    the folders missing above it are created (as ``mkdir -p`` would), and taken
    away again when the write then fails. Yields the folders created, topmost
    first. A folder named as the target, or a file where a folder should be, is
    one line: ``cannot write PATH: reason``."""
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a folder")
    missing: list[Path] = []
    for folder in path.parents:  # nearest first
        if os.path.lexists(folder):
            if not folder.is_dir():
                raise UsageError(f"cannot write {path}: {os.strerror(errno.ENOTDIR)}")
            break
        missing.insert(0, folder)
    made: list[Path] = []
    try:
        for folder in missing:
            try:
                folder.mkdir()
            except OSError as e:
                raise UsageError(f"cannot write {path}: {e.strerror or e}") from e
            made.append(folder)
        yield made
    except BaseException:
        for folder in reversed(made):
            with contextlib.suppress(OSError):  # not empty: something else wrote there
                folder.rmdir()
        raise


def _say_created(folders: list[Path]) -> None:
    if folders:
        noun = "folder" if len(folders) == 1 else "folders"
        print(f"created {noun} {', '.join(map(str, folders))}")


def cmd_export(args: argparse.Namespace) -> int:
    from smartreader.subscriptions import save_opml

    with _open_store(args, reads_only=True) as store:
        _not_the_database(args.file, store.path)  # renamed over it, every article was lost
        with _target_file(args.file) as made:
            n = save_opml(store, args.file)
    _say_created(made)
    print(f"exported {count_of(n, 'feed')} to {args.file}")
    return 0


FAILED = ("error", "gone", "rate_limited")  # an update's outcomes that fetched nothing


def cmd_update(args: argparse.Namespace) -> int:
    from smartreader.updater import Updater

    with _open_store(args) as store:
        for fid in args.feeds:
            store.feed(fid)  # a clear error for an unknown id
        up = Updater(store)
        progress = _Progress()
        start = time.monotonic()
        try:
            if args.due:
                up.run_due(progress=progress)
            else:
                up.update(args.feeds or None, manual=True, progress=progress)
            up.cleanup()  # once a day: `update --due` from cron keeps the database small too
        finally:
            up.close()
            # also when the database failed part of the run: what did happen is
            # reported before the error (which main prints, exiting non-zero)
            _report_update(store, progress.results, time.monotonic() - start)
    # Every feed failing is something to act on (offline, a proxy, a dead host);
    # one dead feed among many is not, or cron would mail after every run.
    failed = [r for r in progress.results if r.status in FAILED]
    return 1 if progress.results and len(failed) == len(progress.results) else 0


def _feed_name(store: Store, feed_id: int) -> str:
    try:
        return store.feed(feed_id).display_title
    except SmartReaderError:  # deleted meanwhile, or the database unreadable
        return f"feed {feed_id}"


def _report_update(store: Store, results: list[UpdateResult], elapsed: float) -> None:
    from smartreader.net.parse import is_cap_note

    new = sum(r.new_entries for r in results)
    ruled = sum(r.ruled_read for r in results)
    failed = [r for r in results if r.status in FAILED]
    print(
        f"updated {count_of(len(results), 'feed')} in {elapsed:.1f} s: "
        f"{count_of(new, 'new entry', 'new entries')}"
        + (f" ({ruled} marked read by rules)" if ruled else "")
        + f", {len(failed)} failed"
    )

    for r in failed:
        print(f"  [{r.feed_id}] {_feed_name(store, r.feed_id)}: {r.error}", file=sys.stderr)
    for r in results:
        problems = [w for w in r.warnings if not is_cap_note(w)]
        if problems:  # it read, but not all of it as published
            print(
                f"  [{r.feed_id}] {_feed_name(store, r.feed_id)}: read with problems: "
                f"{'; '.join(problems)}"
            )
        if r.missed_estimate > 0:
            print(
                f"  [{r.feed_id}] probably missed about "
                f"{count_of(round(r.missed_estimate), 'item')} "
                "(more were published than the feed shows); checks will be more frequent"
            )


def cmd_feeds(args: argparse.Namespace) -> int:
    with _open_store(args, reads_only=True) as store:
        feeds = store.feeds()
        unread = store.unread_counts()
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "id": f.id,
                            "url": f.url,
                            "title": f.display_title,
                            "folder": f.folder,
                            "site": f.site_link,
                            "unread": unread.get(f.id, 0),
                            "status": f.status,
                            "error": f.last_error,
                            "last_fetched": f.last_fetched,
                            "priority": f.weight,
                            "min_interval_minutes": (
                                None if f.min_interval is None else f.min_interval / 60
                            ),
                            "max_interval_minutes": (
                                None if f.max_interval is None else f.max_interval / 60
                            ),
                            "keep_days": f.keep_days,
                            "load_images": f.load_images,
                            "full_text": f.full_text,
                        }
                        for f in feeds
                    ],
                    indent=2,
                )
            )
            return 0
        if not feeds:
            print(
                "no subscriptions yet: add one with `smartreader add ADDRESS`, "
                "or import a list with `smartreader import FILE.opml`",
                file=sys.stderr,
            )
        for f in feeds:
            flag = " !" if f.last_error else ""
            folder = f"{f.folder}/" if f.folder else ""
            print(f"[{f.id:>4}] {folder}{f.display_title} ({unread.get(f.id, 0)} unread){flag}")
            if f.last_error:
                print(f"       error: {f.last_error}")
    return 0


def cmd_entries(args: argparse.Namespace) -> int:
    with _open_store(args, reads_only=True) as store:
        for fid in args.feed or ():
            store.feed(fid)  # a clear error for an unknown id, as `update` gives
        ids = store.entry_ids(
            feed_ids=args.feed,
            unread=args.unread,
            starred=args.starred,
            search=args.search,
            limit=args.limit,
        )
        entries = store.entries(ids)
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "id": e.id,
                            "feed_id": e.feed_id,
                            "title": e.title,
                            "link": e.link,
                            "author": e.author,
                            "published": e.published,
                            "first_seen": e.first_seen,
                            "read": e.read,
                            "starred": e.starred,
                        }
                        for e in entries
                    ],
                    indent=2,
                )
            )
            return 0
        for e in entries:
            mark = ("*" if e.starred else " ") + (" " if e.read else "•")
            print(f"{mark} [{e.id:>6}] {_fmt_time(e.sort_time)}  {e.title}")
    return 0


def _not_the_database(path: Path, db: Path) -> None:
    """A backup renamed over the live database (or its journal) would cut off a
    running app's writes from the file: refused."""
    for live in (db, *(db.with_name(db.name + s) for s in ("-wal", "-shm", "-journal"))):
        try:
            same = path.resolve() == live.resolve() or os.path.samefile(path, live)
        except OSError:  # one of them does not exist
            same = False
        if same:
            what = "the database itself" if live == db else "one of the database's own files"
            raise UsageError(f"cannot write {path}: it is {what}; pick another file")


def _can_write(path: Path) -> None:
    """SQLite says only "unable to open database file" where it cannot write:
    the first file the backup writes is tried first, for the system's reason."""
    probe = path.with_name(path.name + ".partial")
    try:
        probe.open("wb").close()
        probe.unlink()
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from e


def cmd_backup(args: argparse.Namespace) -> int:
    with _open_store(args, reads_only=True) as store:
        _not_the_database(args.path, store.path)
        with _target_file(args.path) as made:
            _can_write(args.path)
            dest = store.backup(args.path)
    _say_created(made)
    print(f"backup written to {dest}")
    return 0


def cmd_budget(args: argparse.Namespace) -> int:
    from smartreader.core.scheduler import requests_per_24h
    from smartreader.updater import Updater, check_ranges

    per_day = args.per_day
    if per_day is not None and math.isfinite(per_day) and not per_day.is_integer():
        # the budget counts whole requests: 1.5 would be enforced as 1
        raise UsageError(
            f"the request budget is a whole number of requests per day: "
            f"{per_day:g} is not (use {math.floor(per_day):g} or {math.ceil(per_day):g})"
        )
    # before a folder with no database gets one for a value that is refused
    check_ranges(per_day=per_day, shortest=args.min_interval, longest=args.max_interval)
    # shown, nothing is written (a read-only folder is read); a new value starts a
    # collection in a folder with none, as `add` does
    setting = per_day is not None or args.min_interval is not None or args.max_interval is not None
    with _open_store(args, reads_only=not setting, creates=setting) as store:
        up = Updater(store)
        try:
            # every value checked before any is written: one bad one changes nothing
            up.check_intervals(args.min_interval, args.max_interval)
            if per_day is not None:
                up.set_budget(per_day)
            if args.min_interval is not None:
                up.set_min_interval(args.min_interval)
            if args.max_interval is not None:
                up.set_max_interval(args.max_interval)
            s = up.summary()
            used = up.requests_today()
            shortest, longest = up.min_interval(), up.max_interval()
        finally:
            up.close()
    enforced = requests_per_24h(s.budget_per_day)
    print(
        f"budget {count_of(enforced, 'request')}/day, {used} used in the last 24 h; "
        f"planned {s.planned_per_day:.0f}/day; "
        + (
            f"expected mean delay {_fmt_duration(s.expected_mean_delay_s)} "
            f"(a fixed interval would give {_fmt_duration(s.fixed_interval_mean_delay_s)})"
            if math.isfinite(s.fixed_interval_mean_delay_s)
            else "no delay to expect: no feeds to fetch"  # not "inf d"
        )
    )
    print(
        f"  each feed checked at most every {duration_text(shortest)} (unless it has "
        f"its own minimum) and at least every {duration_text(longest)}"
    )
    for note in s.notes:
        print(f"  note: {note}")
    return 0


def _keep_text(days: float) -> str:
    if days <= 0:
        return "always"
    number = f"{days:g}"
    return f"{number} {'day' if number == '1' else 'days'}"  # not "1 days"


def cmd_cleanup(args: argparse.Namespace) -> int:
    from smartreader.updater import KEEP_DAYS_RANGE, KEEP_READ_DAYS, KEEP_UNREAD_DAYS, Updater

    lo, hi = KEEP_DAYS_RANGE
    for name, value in (("--read-days", args.read_days), ("--unread-days", args.unread_days)):
        if value is not None and not lo <= value <= hi:
            raise UsageError(f"{name} must be between {lo:g} (keep always) and {hi:g}")
    # keep periods given are settings, kept as `budget N` keeps its value
    setting = args.read_days is not None or args.unread_days is not None
    with _open_store(args, creates=setting) as store:
        if args.read_days is not None:
            store.set_setting(KEEP_READ_DAYS, args.read_days)
        if args.unread_days is not None:
            store.set_setting(KEEP_UNREAD_DAYS, args.unread_days)
        up = Updater(store)
        try:
            read_days, unread_days = up.keep_days()
            res = up.cleanup(force=True)
        finally:
            up.close()
        left = store.entry_count()
        assert res is not None  # forced
        print(
            f"deleted {res.read} read and {res.unread} unread articles; {left} kept "
            f"(read ones are kept {_keep_text(read_days)}, unread ones "
            f"{_keep_text(unread_days)}, starred ones always)"
        )
        if args.compact:
            before, after = store.compact()
            print(f"compacted the database: {before / 1e6:,.1f} MB → {after / 1e6:,.1f} MB")
    return 0


_RULE_ACTION_TEXT = {"read": "mark read", "star": "star"}


def _rule_text(store: Store, query: str, feed_id: int | None, title_only: bool, action: str) -> str:
    """'"sponsored" (title only) in [3] Tech: mark read', as listed and as added."""
    where = "all feeds" if feed_id is None else f"[{feed_id}] {_feed_name(store, feed_id)}"
    only = " (title only)" if title_only else ""
    return f'"{query}"{only} in {where}: {_RULE_ACTION_TEXT.get(action, action)}'


def cmd_rules(args: argparse.Namespace) -> int:
    with _open_store(args, reads_only=True) as store:
        rules = store.rules()
        if args.json:
            print(
                json.dumps(
                    [
                        {
                            "id": r.id,
                            "words": r.query,
                            "title_only": r.title_only,
                            "feed_id": r.feed_id,
                            "feed": None if r.feed_id is None else _feed_name(store, r.feed_id),
                            "action": r.action,
                            "hits": r.hits,
                            "created": r.created,
                        }
                        for r in rules
                    ],
                    indent=2,
                )
            )
            return 0
        if not rules:  # stdout stays empty for scripts, as `feeds` does
            print("no rules yet: add one with `smartreader rule add WORDS`", file=sys.stderr)
        for r in rules:
            text = _rule_text(store, r.query, r.feed_id, r.title_only, r.action)
            print(f"[{r.id:>4}] {text}; acted on {count_of(r.hits, 'article')}")
    return 0


def cmd_rule(args: argparse.Namespace) -> int:
    return cmd_rule_add(args) if args.rule_command == "add" else cmd_rule_remove(args)


def cmd_rule_add(args: argparse.Namespace) -> int:
    from smartreader.storage.store import Store

    query = " ".join(" ".join(args.words).split())  # as the store keeps it
    action = "star" if args.star else "read"
    Store.rule_values(query, args.feed, args.title_only, action)  # no word: nothing made
    with _open_store(args, creates=True) as store:
        terms = {"feed_id": args.feed, "title_only": args.title_only, "action": action}
        same = store.find_rule(query, **terms)
        text = _rule_text(store, query, args.feed, args.title_only, action)
        if same is not None:
            # the same command again with --apply (as told below) adds no twin
            print(f"rule [{same}] already does this: {text}")
        else:
            rid = store.add_rule(
                query,
                feed_id=args.feed,
                title_only=args.title_only,
                action=action,
                now=time.time(),
            )
            print(f"added rule [{rid}]: {text}")
        match, change = store.rule_preview(query, **terms)
        stored = count_of(match, "stored article")
        verb = "matches" if match == 1 else "match"
        ones = count_of(len(change), "unread one" if action == "read" else "unstarred one")
        done = "read" if action == "read" else "starred"
        if not match:
            print("no stored articles match now")
        elif not change:
            print(f"{stored} {verb} now, all already {done}")
        elif not args.apply:
            would = f"mark the {ones} read" if action == "read" else f"star the {ones}"
            print(f"{stored} {verb} now; `--apply` would {would}")
        else:
            (store.set_read if action == "read" else store.set_starred)(change)
            did = f"marked the {ones} read" if action == "read" else f"starred the {ones}"
            print(f"{stored} {verb}: {did}")
    return 0


def cmd_rule_remove(args: argparse.Namespace) -> int:
    with _open_store(args) as store:
        rule = next((r for r in store.rules() if r.id == args.rule), None)
        store.delete_rule(args.rule)  # an unknown id: the store's one line
        if rule is not None:  # (None: added by the app just now)
            text = _rule_text(store, rule.query, rule.feed_id, rule.title_only, rule.action)
            print(f"removed rule [{rule.id}]: {text}")
        else:
            print(f"removed rule [{args.rule}]")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from smartreader.core.rhythm import describe_rhythm, to_local_slots
    from smartreader.core.scheduler import SchedulerConfig
    from smartreader.updater import Updater

    with _open_store(args, reads_only=True) as store:
        feed = store.feed(args.feed)
        up = Updater(store)
        try:
            now = up.now()
            ex = up.explain(args.feed)
        finally:
            up.close()
    if args.json:
        from dataclasses import asdict

        print(json.dumps(asdict(ex), indent=2, default=str))
        return 0
    # Local time throughout, as in the GUI (same offset, same rhythm wording).
    offset = local_utc_offset(now)
    print(f"[{feed.id}] {feed.display_title} <{feed.url}>")
    print(f"  times in local time ({format_utc_offset(offset)})")
    print(f"  rate: {ex.rate_per_day:.2f} items/day, periodicity {ex.periodicity:.2f}")
    level, detail = describe_rhythm(ex.lambda_week, ex.periodicity, offset)
    # "—" is the GUI card's empty level: beside the detail it read "— — not enough history"
    print(f"  rhythm: {detail}" if level == "—" else f"  rhythm: {level} — {detail}")
    print(f"  share of budget: {ex.share_per_day:.1f} fetches/day")
    print(f"  expected delay: {_fmt_duration(ex.expected_delay_s)}")
    if ex.capacity:
        print(f"  window: {count_of(ex.capacity, 'item')}")
    days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    blocks = " ▁▂▃▄▅▆▇█"
    lam = to_local_slots(ex.lambda_week, offset)
    seen_week = to_local_slots(ex.observed_week, offset)
    peak = max(lam) or 1.0
    memory_weeks = SchedulerConfig().memory_s / (7 * 86400)
    print("  λ(t) by hour of day, 00–23 (bars: items/hour, relative to the busiest hour):")
    for d, name in enumerate(days):
        row = lam[d * 24 : d * 24 + 24]
        bar = "".join(blocks[min(8, round(8 * v / peak))] for v in row)
        seen = sum(seen_week[d * 24 : d * 24 + 24])
        print(f"    {name} |{bar}| {sum(row):5.1f} items/day expected, {seen:4.0f} seen")
    # the estimator's counts fade (a time constant of memory_s): no fixed span
    print(
        f"    (seen: items found on that weekday in recent weeks; a count fades "
        f"out over about {memory_weeks:.0f} weeks)"
    )
    print("  next planned fetches:")
    for t in ex.planned[:8]:
        print(f"    {local_time_text(t, now)}")
    if not ex.planned:
        print("    none")
    for note in ex.notes:
        print(f"  note: {note}")
    return 0


def run_gui_entry(args: argparse.Namespace) -> int:
    try:
        from smartreader.app import run_gui
    except ImportError as e:
        print(f"smartreader: the GUI is not available ({e})", file=sys.stderr)
        return 1
    return run_gui(getattr(args, "data_dir", None), demo=args.demo)


COMMANDS = {
    "add": cmd_add,
    "remove": cmd_remove,
    "import": cmd_import,
    "export": cmd_export,
    "update": cmd_update,
    "feeds": cmd_feeds,
    "entries": cmd_entries,
    "backup": cmd_backup,
    "explain": cmd_explain,
    "budget": cmd_budget,
    "cleanup": cmd_cleanup,
    "rules": cmd_rules,
    "rule": cmd_rule,
}


# What a shell reports for a command killed by SIGPIPE (128 + 13).
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # A feed's name, “quotes” or λ in a locale that cannot write them (LANG=C,
        # a Latin-1 console): a stand-in character, not a UnicodeEncodeError.
        # (Under the C locale Python writes "surrogateescape", which fails alike.)
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", "surrogateescape"):
            stream.reconfigure(errors="replace")
    try:
        try:
            return _main(argv)
        finally:
            # Output still buffered (argparse's --help too) meets a closed pipe
            # here rather than at interpreter exit, where nothing could catch it.
            if sys.stdout is not None:
                sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`smartreader entries | head`): stop quietly. As the
        # Python docs advise (signal, "Note on SIGPIPE"), stdout is pointed at
        # devnull so the interpreter's last flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    # httpx logs every request URL at INFO; URLs may carry tokens in queries.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    parser = build_parser()
    # parse_args, with a reason for the --data-dir that replay has no use for
    args, extra = parser.parse_known_args(argv)
    if args.command == "replay" and (
        hasattr(args, "data_dir") or any(a.split("=", 1)[0] == "--data-dir" for a in extra)
    ):
        parser.error(REPLAY_NO_DATA_DIR)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if getattr(args, "self_test", False):
            if args.command is not None:
                parser.error("--self-test takes no command")
            from smartreader.selftest import run as run_self_test

            return run_self_test()
        if args.command is None:
            return run_gui_entry(args)
        if args.command == "replay":
            from smartreader.sim.cli import run_replay

            return int(run_replay(args) or 0)
        return COMMANDS[args.command](args)
    except SmartReaderError as e:
        print(f"smartreader: {e}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as e:  # met past the checks at opening (a read, say)
        from smartreader.storage.store import looks_damaged

        if looks_damaged(str(e).lower()):
            what = f"the database is damaged ({e}); it has not been modified"
        else:
            what = f"database error: {e}"
        print(f"smartreader: {what}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("smartreader: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
