"""Executable cache: compiled vmfb bytes by key, in memory and on disk.

On disk, entry ``<key>`` is two files in the cache directory:

- ``<key>.vmfb``: the raw vmfb, usable as-is by iree-run-module & co.
- ``<key>.json``: metadata, including the payload's sha256 and size. It is
  written *after* the payload, so its presence marks a complete entry, and the
  checksum catches a truncated, corrupted or mismatched payload. A bad entry is
  logged, deleted and rebuilt.

Both files are written to a temporary file in the same directory and moved
into place with os.replace, so readers never see a partial file.

Processes sharing the directory serialize compiles of one key with an
exclusive fcntl.flock on ``<key>.lock``: the second process waits, re-checks
the disk and hits. Lock files are left in place (tiny); unlinking them would
race with a process that has just opened one.

The process-wide default cache (`default_cache`, `cache_info`) is the one
piece of global mutable state in nova.runtime.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Optional

_log = logging.getLogger(__name__)

__all__ = [
    "CacheInfo",
    "ExecutableCache",
    "cache_info",
    "default_cache",
    "default_cache_dir",
    "reset_default_cache",
]

_FORMAT = "nova-vmfb-cache-v1"
_KEY_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")


@dataclass(frozen=True)
class CacheInfo:
    """A snapshot of one cache's counters."""

    directory: str
    memory_hits: int
    disk_hits: int
    misses: int
    corrupt_entries: int
    compile_seconds: float
    lock_wait_seconds: float
    entries_in_memory: int

    @property
    def hits(self) -> int:
        return self.memory_hits + self.disk_hits


def default_cache_dir() -> Path:
    env = os.environ.get("NOVA_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path("~/.cache/nova").expanduser()


class ExecutableCache:
    """In-memory dict in front of an on-disk directory of vmfb entries."""

    def __init__(self, directory: Optional[os.PathLike | str] = None):
        self.directory = Path(directory).expanduser() if directory else default_cache_dir()
        self._memory: dict[str, bytes] = {}
        self._metadata: dict[str, dict] = {}
        # Guards _memory, _metadata and the counters; never held while compiling.
        self._lock = threading.Lock()
        self._memory_hits = 0
        self._disk_hits = 0
        self._misses = 0
        self._corrupt = 0
        self._compile_seconds = 0.0
        self._lock_wait_seconds = 0.0

    # -- public API ---------------------------------------------------------

    def get_or_compile(
        self,
        key: str,
        compile_fn: Callable[[], bytes],
        metadata: Optional[dict] = None,
    ) -> bytes:
        """vmfb bytes for `key`, calling `compile_fn()` only on a miss.

        `metadata` (JSON-serializable) is stored next to a new entry (read
        once `compile_fn` has returned, which may add to it) and returned by
        `metadata(key)`; it does not take part in lookups.
        """
        payload = self.lookup(key)
        if payload is not None:
            return payload

        self.directory.mkdir(parents=True, exist_ok=True)
        with self._file_lock(key):
            # Another process may have compiled while we waited.
            payload = self._disk_lookup(key, repair=True)
            if payload is not None:
                return payload
            with self._lock:
                self._misses += 1
            _log.info("nova cache miss %s: compiling", key[:16])
            start = time.perf_counter()
            payload = compile_fn()
            elapsed = time.perf_counter() - start
            if not isinstance(payload, (bytes, bytearray)) or not payload:
                raise TypeError("compile_fn must return non-empty bytes")
            payload = bytes(payload)
            with self._lock:
                self._compile_seconds += elapsed
            self._write_entry(key, payload, elapsed, metadata or {})
        with self._lock:
            self._memory[key] = payload
            self._metadata[key] = dict(metadata or {})
        return payload

    def lookup(self, key: str) -> Optional[bytes]:
        """vmfb bytes for `key` if its entry is in memory or complete on
        disk, else None (counted as a hit only when found)."""
        _check_key(key)
        hit = self._memory_lookup(key)
        if hit is not None:
            return hit
        # Without the file lock: a complete entry is immutable. A bad entry is
        # only repaired under the lock (get_or_compile), so that we never
        # delete an entry another process has just rebuilt.
        return self._disk_lookup(key, repair=False)

    def metadata(self, key: str) -> dict:
        """The metadata stored with `key`'s entry ({} for none or an
        unreadable one); read from disk only for an entry this cache has not
        looked up."""
        _check_key(key)
        with self._lock:
            if key in self._metadata:
                return self._metadata[key]
        try:
            meta = json.loads(self._meta_path(key).read_text()).get("metadata", {})
        except (OSError, ValueError, AttributeError):
            return {}
        if not isinstance(meta, dict):
            return {}
        with self._lock:
            self._metadata[key] = meta
        return meta

    def contains(self, key: str) -> bool:
        """Whether `key` is in memory or (unverified) on disk."""
        _check_key(key)
        with self._lock:
            if key in self._memory:
                return True
        return self._meta_path(key).exists() and self._payload_path(key).exists()

    def record_alias(self, alias: str, key: str, info: dict) -> None:
        """Files entry `key` also under `alias`, with `info` (JSON): what a
        caller needs to use the entry without what `key` was computed from
        (nova.jit: a capture key, and the step's layout)."""
        _check_key(alias)
        _check_key(key)
        record = {"format": _FORMAT, "alias": alias, "key": key, "info": info}
        path = self._alias_path(alias)
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, json.dumps(record, indent=1).encode())

    def resolve_alias(self, alias: str) -> Optional[tuple[str, dict]]:
        """(key, info) recorded under `alias` while its entry exists, else
        None (an unreadable record is ignored)."""
        _check_key(alias)
        try:
            record = json.loads(self._alias_path(alias).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("format") != _FORMAT or record.get("alias") != alias:
            return None
        key, info = record.get("key"), record.get("info")
        if not isinstance(key, str) or not _KEY_RE.fullmatch(key) or not isinstance(info, dict):
            return None
        return (key, info) if self.contains(key) else None

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(
                directory=str(self.directory),
                memory_hits=self._memory_hits,
                disk_hits=self._disk_hits,
                misses=self._misses,
                corrupt_entries=self._corrupt,
                compile_seconds=self._compile_seconds,
                lock_wait_seconds=self._lock_wait_seconds,
                entries_in_memory=len(self._memory),
            )

    def record_reuse(self) -> None:
        """Counts a memory hit for an executable a caller kept loaded (nova.jit
        keeps one loaded program per batch signature instead of asking again)."""
        with self._lock:
            self._memory_hits += 1

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()
            self._metadata.clear()

    # -- lookups ------------------------------------------------------------

    def _memory_lookup(self, key: str) -> Optional[bytes]:
        with self._lock:
            payload = self._memory.get(key)
            if payload is not None:
                self._memory_hits += 1
            return payload

    def _disk_lookup(self, key: str, repair: bool) -> Optional[bytes]:
        """The verified payload, or None; `repair` deletes a bad entry."""
        meta_path, payload_path = self._meta_path(key), self._payload_path(key)
        try:
            meta = json.loads(meta_path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            return self._bad_entry(key, f"unreadable metadata ({e})", repair)
        try:
            payload = payload_path.read_bytes()
        except FileNotFoundError:
            return self._bad_entry(key, "metadata without payload", repair)
        problem = _validate(meta, key, payload)
        if problem:
            return self._bad_entry(key, problem, repair)
        with self._lock:
            self._disk_hits += 1
            self._memory[key] = payload
            stored = meta.get("metadata")
            self._metadata[key] = stored if isinstance(stored, dict) else {}
        _log.debug("nova cache disk hit %s", key[:16])
        return payload

    # -- writes -------------------------------------------------------------

    def _write_entry(self, key: str, payload: bytes, seconds: float, extra: dict) -> None:
        meta = {
            "format": _FORMAT,
            "key": key,
            "sha256": hashlib.sha256(payload).hexdigest(),
            "size": len(payload),
            "created": time.time(),
            "compile_seconds": round(seconds, 4),
            "metadata": extra,
        }
        # Payload first, metadata last: the metadata file commits the entry.
        _atomic_write(self._payload_path(key), payload)
        _atomic_write(self._meta_path(key), json.dumps(meta, indent=1, default=str).encode())

    def _bad_entry(self, key: str, why: str, repair: bool) -> None:
        if not repair:
            _log.debug("nova cache entry %s looks bad (%s): re-checking under lock", key[:16], why)
            return None
        _log.warning("nova cache entry %s is bad (%s): deleting and rebuilding", key[:16], why)
        with self._lock:
            self._corrupt += 1
        for path in (self._meta_path(key), self._payload_path(key)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return None

    @contextlib.contextmanager
    def _file_lock(self, key: str) -> Iterator[None]:
        start = time.perf_counter()
        fd = os.open(self.directory / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with self._lock:
                self._lock_wait_seconds += time.perf_counter() - start
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def _alias_path(self, alias: str) -> Path:
        return self.directory / "aliases" / f"{alias}.json"

    def _payload_path(self, key: str) -> Path:
        return self.directory / f"{key}.vmfb"

    def _meta_path(self, key: str) -> Path:
        return self.directory / f"{key}.json"


def _check_key(key: str) -> None:
    # Keys become file names: refuse anything that could escape the directory.
    if not isinstance(key, str) or not _KEY_RE.fullmatch(key):
        raise ValueError(f"invalid cache key {key!r}: use [A-Za-z0-9_.-], e.g. a hex digest")


def _validate(meta: object, key: str, payload: bytes) -> Optional[str]:
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        return "unknown metadata format"
    if meta.get("key") != key:
        return "metadata belongs to another key"
    if meta.get("size") != len(payload):
        return f"size {len(payload)} != recorded {meta.get('size')}"
    if meta.get("sha256") != hashlib.sha256(payload).hexdigest():
        return "checksum mismatch"
    return None


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # No fsync: a file torn by a crash fails the checksum and is rebuilt.
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# -- the process-wide default cache (the only global mutable state) ---------

_default: Optional[ExecutableCache] = None
# The settings _default was made for: ($NOVA_CACHE_DIR, $HOME) as set then.
_default_settings: Optional[tuple[Optional[str], Optional[str]]] = None
_default_lock = threading.Lock()


def default_cache() -> ExecutableCache:
    """The process-wide cache for the current NOVA_CACHE_DIR.

    Re-created when NOVA_CACHE_DIR (or HOME) changes, so a changed setting
    is never silently ignored (tests rely on this too). nova.jit asks once a
    step: unchanged settings cost two dict lookups, not a path expansion.
    """
    global _default, _default_settings
    settings = (os.environ.get("NOVA_CACHE_DIR"), os.environ.get("HOME"))
    with _default_lock:
        if _default is None or _default_settings != settings:
            wanted = default_cache_dir()
            if _default is None or _default.directory != wanted:
                _default = ExecutableCache(wanted)
            _default_settings = settings
        return _default


def reset_default_cache() -> None:
    """Drops the default cache (memory entries and counters)."""
    global _default, _default_settings
    with _default_lock:
        _default = None
        _default_settings = None


def cache_info() -> CacheInfo:
    """Counters of the process-wide default cache."""
    return default_cache().info()
