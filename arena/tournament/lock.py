"""One writer per tournament database: a lock file beside it that names the process writing.

``DB.lock`` (next to ``DB``) holds one JSON line — pid, host, process start, command, since — and
the run writing ``DB`` holds an exclusive ``flock`` on it for its whole life. The kernel drops that
lock when the process ends, however it ends (``kill -9`` included), so a dead run never blocks the
next one. Where the file system cannot lock (some network mounts), the line itself decides: a
lock whose process is gone from this host (its pid is not alive, or alive with another start
time, i.e. reused) is stale and taken over; one from another host is honoured and named.

A second writer stops with :class:`DatabaseBusy`, one line naming the other process.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.run.transcript import utc_now

try:
    import fcntl
except ImportError:  # no flock on this platform: the pid in the file decides
    fcntl = None  # type: ignore[assignment]

from .db import DatabaseError


class DatabaseBusy(DatabaseError):
    """Another live process is writing the database (one line naming it)."""


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux ``/proc``), None where unknown.

    Together with the pid it names one process: a pid reused by a later process has another start.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Field 22; the command (field 2) is in parentheses and may contain spaces.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def pid_alive(pid: int, start: str | None = None) -> bool:
    """Whether ``pid`` runs on this host (and, when ``start`` is known, is the same process)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    if start is not None:
        now = process_start(pid)
        return now is None or now == start
    return True


@dataclass(slots=True)
class Holder:
    """Who holds a lock, as written in the lock file."""

    pid: int
    host: str
    start: str | None
    command: str
    since: str

    @classmethod
    def me(cls) -> Holder:
        argv = [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv and sys.argv[0] else ["python"]
        pid = os.getpid()
        return cls(pid, socket.gethostname(), process_start(pid), " ".join(argv), utc_now().isoformat(timespec="seconds"))

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        try:
            data: Any = json.loads(text)
            return cls(int(data["pid"]), str(data["host"]), data.get("start"), str(data.get("command", "")), str(data["since"]))
        except (ValueError, KeyError, TypeError):
            return None

    def dumps(self) -> str:
        return json.dumps({"pid": self.pid, "host": self.host, "start": self.start, "command": self.command, "since": self.since})

    def alive(self) -> bool:
        """Alive as far as this host can tell: a process on another host is assumed alive."""
        return self.host != socket.gethostname() or pid_alive(self.pid, self.start)

    def describe(self) -> str:
        what = f" ({self.command})" if self.command else ""
        return f"pid {self.pid} on {self.host}{what}, since {self.since}"


class WriterLock:
    """Held while a run writes ``database``; use as a context manager."""

    def __init__(self, database: str | Path) -> None:
        self.database = Path(database)
        self.path = self.database.with_name(self.database.name + ".lock")
        self._fd: int | None = None

    def _busy(self, holder: Holder | None) -> DatabaseBusy:
        who = holder.describe() if holder is not None else "a process that left no name"
        return DatabaseBusy(f"{self.database}: another run is writing it: {who}; one run per database at a time")

    def _read(self, fd: int) -> Holder | None:
        return Holder.parse(os.pread(fd, 4096, 0).decode("utf-8", "replace"))

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(f"{self.database}: {exc.strerror or exc}") from None
        for _ in range(10):  # a holder may remove the file between our open and our lock: open again
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise DatabaseError(f"{self.path}: {exc.strerror or exc}") from None
            try:
                locked = self._lock(fd)
                if not locked:  # no flock here: the line in the file decides
                    holder = self._read(fd)
                    if holder is not None and holder.alive() and holder.pid != os.getpid():
                        raise self._busy(holder)
                try:
                    same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
                except FileNotFoundError:
                    same = False
                if not same:
                    os.close(fd)
                    continue
                os.ftruncate(fd, 0)
                os.pwrite(fd, (Holder.me().dumps() + "\n").encode(), 0)
                os.fsync(fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.close(fd)
                raise
            self._fd = fd
            return
        raise DatabaseError(f"{self.path}: the lock file keeps changing; is another run starting?")

    def _lock(self, fd: int) -> bool:
        """True once flock holds; False where the file system has no flock; busy when another holds it."""
        if fcntl is None:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise self._busy(self._read(fd)) from None
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                return False
            raise DatabaseError(f"{self.path}: {exc.strerror or exc}") from None
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # while still locked: a newcomer that opened the old file sees it is gone
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
