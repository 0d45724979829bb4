"""What every test of the memory needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.store import _key


@pytest.fixture(autouse=True)
def own_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A data directory and key of the test's own, made on first use (the key is cached per
    process, so a test that signs without this would use whatever an earlier test left —
    and processes it starts would read another key from the shared data directory)."""
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(_key, "_cached", {})
