"""Objects as files in a local folder: the default store, for one machine or a shared mount."""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fashion_assets.libc import c_function
from fashion_assets.storage.base import (
    READ_CHUNK,
    Digest,
    StoredObject,
    StoreStats,
    check_content,
    check_key,
    digest_chunks,
    is_object_path,
    object_path,
    verified,
)

# Opening flags that refuse a symbolic link as the last component (ELOOP).
_NO_LINK = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC

_FILE_MODE = 0o600
"""Objects are readable by the store's owner alone: the processes of the deployment run as
one user, and nobody else on the machine has to read (or could change) a photo."""
_FOLDER_MODE = 0o700

TEMP_PREFIX = ".tmp-"
"""Names of half-written files. Only a crash between write and link can leave one behind, and
since the name can never be an object key, stats and lookups ignore it."""


class FileStore:
    """A folder holding ``<root>/<key[:2]>/<key>`` files, written atomically and create-only."""


    def __init__(self, root: Path) -> None:
        self.root = Path(root).absolute()
        self.url = self.root.as_uri()

    def put(self, key: str, data: bytes, content_type: str) -> bool:
        """Write ``data`` under ``key`` unless it exists; ``content_type`` is the catalog's job.

        The bytes go to a temp file that is then moved into place by a rename that refuses
        to replace an existing name (``_place``), so concurrent writers of one key (threads
        or processes) get exactly one winner, and readers never see a partial file.
        Durability comes from ``sync`` (one flush per show, not one per photo: per-photo
        fsyncs cost more than the download). An object whose size is wrong can only be what
        a power cut left of an unsynced write, and it is replaced instead of being trusted
        forever; so is anything under the key's name that is not a regular file of the
        store's own (a symbolic link, a hard link: see ``get``). Files are written readable
        by their owner alone.

        A key found stored has its time refreshed: media cleanup only removes orphans older
        than its grace period, so a photo an ingest has just found again is never one.
        """
        final = self.root / object_path(check_content(key, data))
        try:
            info = os.lstat(final)
            if _own_file(info) and info.st_size == len(data):
                os.utime(final)  # no temp write for a known photo, only a fresh time
                return False
            damaged = True  # short, or planted: a link, a second name of some file
        except FileNotFoundError:
            damaged = False
        try:
            temp = _write_temp(final.parent, data)
        except FileNotFoundError:  # the object's folder's first photo
            self.root.mkdir(mode=_FOLDER_MODE, parents=True, exist_ok=True)
            final.parent.mkdir(mode=_FOLDER_MODE, exist_ok=True)
            temp = _write_temp(final.parent, data)
        try:
            if damaged:
                os.replace(temp, final)
                return True
            _place(temp, final)
        except FileExistsError:
            os.utime(final)
            return False
        finally:
            temp.unlink(missing_ok=True)
        return True

    async def put_async(self, key: str, data: bytes, content_type: str) -> bool:
        """``put`` on the event loop: a local write costs less than a thread hop."""
        return self.put(key, data, content_type)

    def sync(self) -> None:
        """Flush every object written so far to disk (``syncfs`` on the store's filesystem)."""
        if not self.root.is_dir():
            return
        fd = os.open(self.root, os.O_RDONLY)
        try:
            syncfs = c_function("syncfs", ctypes.c_int)
            if syncfs is None or syncfs(fd) != 0:
                os.sync()  # no syncfs here, or it failed: every filesystem then
        finally:
            os.close(fd)

    def exists(self, key: str) -> bool:
        """Whether ``key`` is stored: a regular file of the store's own (``get``)."""
        return self._size(key) is not None

    def sizes(self, keys: Iterable[str]) -> dict[str, int]:
        """The size of each of ``keys`` stored as ``get`` would read it; all validated first."""
        wanted = {check_key(key) for key in keys}
        found = {key: self._size(key) for key in wanted}
        return {key: size for key, size in found.items() if size is not None}

    def _size(self, key: str) -> int | None:
        try:
            fd = self._open(key)
        except KeyError:
            return None
        try:
            return os.fstat(fd).st_size
        finally:
            os.close(fd)

    def get(self, key: str) -> bytes:
        """The bytes stored under ``key``, checked against it (``verified``); ``KeyError``
        if absent, or if what is there is not a regular file of the store's own."""
        fd = self._open(key)
        try:
            with os.fdopen(fd, "rb", closefd=False) as file:
                return verified(key, file.read())
        finally:
            os.close(fd)

    def digest(self, key: str) -> Digest:
        """Size and sha1 of the object, read ``READ_CHUNK`` bytes at a time."""
        fd = self._open(key)
        try:
            return digest_chunks(iter(lambda: os.read(fd, READ_CHUNK), b""))
        finally:
            os.close(fd)

    def _open(self, key: str) -> int:
        """A descriptor open on ``key``'s object; ``KeyError`` if there is none.

        The store writes regular files in real folders only, each under one name, so
        anything else under a key's name (a symbolic link to /etc/passwd or the catalog, a
        FIFO, a folder linked elsewhere, a hard link to a file that also lives under another
        name and may be changed through it) was planted: it is refused, never followed or
        read, and the heal writes the object again over it. Opened without following links,
        the folder first and the file inside it, then checked on the open descriptor, so
        nothing can be swapped in between the check and the read.
        """
        folder, name = object_path(key).split("/")
        try:
            folder_fd = os.open(self.root / folder, _NO_LINK | os.O_DIRECTORY)
            try:
                fd = os.open(name, _NO_LINK | os.O_NONBLOCK, dir_fd=folder_fd)
            finally:
                os.close(folder_fd)
        except (FileNotFoundError, NotADirectoryError):
            raise KeyError(key) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a symbolic link where the object should be
                raise KeyError(key) from None
            raise
        try:
            owned = _own_file(os.fstat(fd))
        except BaseException:
            os.close(fd)
            raise
        if not owned:
            os.close(fd)
            raise KeyError(key)
        return fd

    def stats(self) -> StoreStats:
        """Count objects and bytes, skipping temp files and anything not laid out as an object."""
        objects = size = 0
        for entry in self._entries():
            if is_object_path(entry.relative):
                objects += 1
                size += entry.stat.st_size
        return StoreStats(objects, size)

    def iter_objects(self) -> Iterator[StoredObject]:
        """Every object with its size and mtime (UTC), shard by shard; temp files skipped."""
        for entry in self._entries():
            if is_object_path(entry.relative):
                yield StoredObject(entry.relative.partition("/")[2], entry.stat.st_size,
                                   datetime.fromtimestamp(entry.stat.st_mtime, UTC))

    def delete(self, key: str) -> bool:
        """Unlink the object's file; True if it existed.

        Shard folders stay: removing one could race a put that just created it for its temp
        file, and 256 empty folders cost nothing.
        """
        try:
            (self.root / object_path(key)).unlink()
        except FileNotFoundError:
            return False
        return True

    def remove_stale_temp_files(self, older_than: datetime) -> int:
        """Unlink ``.tmp-*`` files last modified before ``older_than``; how many went.

        A live put holds its temp file for the length of one write, so anything older than
        the cleanup's grace period can only be what a killed put left behind.
        """
        cutoff = older_than.timestamp()
        removed = 0
        for entry in self._entries():
            name = entry.relative.partition("/")[2]
            if name.startswith(TEMP_PREFIX) and entry.stat.st_mtime < cutoff:
                try:
                    os.unlink(self.root / entry.relative)
                except FileNotFoundError:
                    continue  # its put finished (or another cleanup got it) meanwhile
                removed += 1
        return removed

    def _entries(self) -> Iterator[_Entry]:
        """Regular files one level below each shard folder, with their ``stat``.

        Files vanishing mid-walk (a concurrent delete, a temp file linked and unlinked) are
        skipped rather than failing the walk.
        """
        if not self.root.is_dir():
            return
        with os.scandir(self.root) as shards:
            for shard in shards:
                if not shard.is_dir(follow_symlinks=False):
                    continue
                with os.scandir(shard.path) as entries:
                    for entry in entries:
                        try:
                            if not entry.is_file(follow_symlinks=False):
                                continue
                            info = entry.stat(follow_symlinks=False)
                        except FileNotFoundError:
                            continue
                        yield _Entry(f"{shard.name}/{entry.name}", info)

    def missing(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are absent (or not the store's own file); all validated first."""
        wanted = {check_key(key) for key in keys}
        return wanted - self.sizes(wanted).keys()


def _own_file(info: os.stat_result) -> bool:
    """A regular file under one name: what ``put`` leaves (its temp name unlinked)."""
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1


_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_NO_RENAME_FLAGS = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP})
"""What a filesystem (or kernel) without ``RENAME_NOREPLACE`` answers."""


def _place(temp: Path, final: Path, *, renameat2: bool = True) -> None:
    """Give ``temp``'s file the name ``final``; ``FileExistsError`` if that name is taken.

    Linux's ``renameat2(RENAME_NOREPLACE)`` does it in one step. The older way, a hard link
    then the temp name's unlink, leaves the object under two names for a moment, and a
    file under two names is what ``_own_file`` refuses as planted: a concurrent ``put`` of
    the same key took the half-placed object for damage and replaced it (two winners), a
    read got "not found". The link stays as the fallback for filesystems without the flag
    (some network and FUSE mounts), where that window is back.
    """
    function = c_function("renameat2", ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                          ctypes.c_char_p, ctypes.c_uint) if renameat2 else None
    if function is not None:
        if function(_AT_FDCWD, os.fsencode(temp), _AT_FDCWD, os.fsencode(final),
                    _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise FileExistsError(code, os.strerror(code), str(final))
        if code not in _NO_RENAME_FLAGS:
            raise OSError(code, os.strerror(code), str(final))
    os.link(temp, final)


@dataclass(frozen=True)
class _Entry:
    relative: str
    stat: os.stat_result


def _write_temp(directory: Path, data: bytes) -> Path:
    """Write ``data`` to a fresh temp file in ``directory``; remove it if anything fails.

    Same directory as the final name, so the later hard link never crosses a filesystem.
    """
    temp = directory / f"{TEMP_PREFIX}{secrets.token_hex(8)}"
    # O_EXCL: never adopt (and later delete) a file this call did not create.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
    try:
        view = memoryview(data)
        while view:  # no buffered file object: one write call for a photo
            view = view[os.write(fd, view):]
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)
    return temp
