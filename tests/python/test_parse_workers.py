"""Cold misses parsed by the calling process and worker processes together give what one
process gives; workers are started only for the cores the load average leaves idle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_python import _cache
from tests.python.conftest import collect, text_of


@pytest.mark.slow
def test_the_calling_process_and_a_worker_share_the_chunks_alike(
    basic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "serial"))
    serial = text_of(collect(basic))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "shared"))
    monkeypatch.setattr(_cache, "PARALLEL_FROM", 2)
    monkeypatch.setattr(_cache, "_CHUNK", 1)  # a module a chunk: both take some
    monkeypatch.setattr(_cache, "_workers", lambda: 1)
    assert text_of(collect(basic)) == serial


def _no_load_average() -> tuple[float, float, float]:
    raise OSError("no load average")


@pytest.mark.parametrize(
    ("cores", "load", "workers"),
    [
        (8, (0.0, 9.0, 9.0), 3),  # three at most; the last minute's load counts
        (8, (6.6, 0.0, 0.0), 1),  # 1.4 cores idle: one
        (2, (1.4, 0.0, 0.0), 1),  # more than half a core idle counts as one
        (2, (1.6, 0.0, 0.0), 0),
        (1, (0.0, 0.0, 0.0), 0),  # never one where the calling process has the only core
        (None, (0.0, 0.0, 0.0), 0),  # an unknown count is one core
        (4, None, 3),  # no load average: every other core
    ],
)
def test_workers_are_started_for_idle_cores_only(
    cores: int | None,
    load: tuple[float, float, float] | None,
    workers: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_cache.os, "cpu_count", lambda: cores)
    monkeypatch.setattr(_cache.os, "getloadavg", (lambda: load) if load else _no_load_average)
    assert _cache._workers() == workers
