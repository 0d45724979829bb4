"""Timestamps as tai stores them (records, sessions): local time, ISO 8601, milliseconds,
with the UTC offset, so that they sort as text within one zone and say which zone."""

from __future__ import annotations

from datetime import datetime


def now() -> str:
    """The current local time as tai stores it."""
    return datetime.now().astimezone().isoformat(timespec="milliseconds")
