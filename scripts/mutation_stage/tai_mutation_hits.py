"""A pytest plugin of the hits pass (scripts/mutation.py): names the running test in the
environment, which the processes it starts inherit (see ``sitecustomize``)."""

from __future__ import annotations

import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    os.environ["MUTATION_TEST"] = item.nodeid
