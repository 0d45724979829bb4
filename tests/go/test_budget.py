"""The budget formula and the allocation of levels, as properties."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tai_core.models import estimate_tokens
from tai_staging import (
    ALL,
    CODE,
    DOC,
    INVISIBLE,
    SHORT_DOC,
    Candidate,
    allocate,
    context_budget,
)  # fmt: skip


@given(st.integers(min_value=0, max_value=10**9))
def test_budget_is_a_quarter_of_the_focus_rounded_to_32k(focus: int) -> None:
    budget = context_budget(focus)
    assert budget >= 32768 and budget % 32768 == 0
    assert budget == max(32768, ((focus // 4 + 16384) // 32768) * 32768)
    if budget > 32768:
        assert abs(budget - focus // 4) <= 16384


def test_budget_examples() -> None:
    assert [context_budget(t) for t in (0, 4 * 49151, 4 * 49152, 4 * 100_000)] == [
        32768, 32768, 65536, 98304,
    ]  # fmt: skip
    assert estimate_tokens("") == 0 and estimate_tokens("abcde") == 2


def costs(table: dict[int, int]):
    return lambda level: table.get(level, 0) if level else 0


def test_an_unaffordable_package_does_not_block_the_next() -> None:
    big = Candidate("big", DOC, False, costs({SHORT_DOC: 95, DOC: 500, CODE: 900, ALL: 999}))
    small = Candidate("small", DOC, False, costs({SHORT_DOC: 5, DOC: 10, CODE: 20, ALL: 30}))
    levels = allocate([big, small], 100)
    assert levels["big"] == INVISIBLE and levels["small"] == ALL


def test_context_is_guaranteed_even_over_the_budget() -> None:
    context = Candidate("ctx", CODE, True, costs({CODE: 10_000, ALL: 20_000}))
    other = Candidate("other", DOC, False, costs({DOC: 1}))
    assert allocate([context, other], 100) == {"ctx": CODE, "other": INVISIBLE}


def test_documentation_waits_for_the_package_before() -> None:
    first = Candidate("first", INVISIBLE, False, costs({SHORT_DOC: 80, DOC: 200}))
    second = Candidate("second", INVISIBLE, False, costs({SHORT_DOC: 1, DOC: 2}))
    assert allocate([first, second], 50) == {"first": INVISIBLE, "second": INVISIBLE}
    assert allocate([first, second], 81) == {"first": SHORT_DOC, "second": SHORT_DOC}


level_costs = st.lists(st.integers(min_value=0, max_value=500), min_size=4, max_size=4).map(
    lambda steps: {level: sum(steps[:level]) for level in range(1, 5)}
)


@given(
    st.lists(st.tuples(st.sampled_from([INVISIBLE, DOC, CODE]), st.booleans(), level_costs),
             max_size=8),
    st.integers(min_value=0, max_value=3000),
)  # fmt: skip
def test_allocation_keeps_the_budget(spec, budget: int) -> None:
    candidates = [
        Candidate(f"p{i}", minimum, guaranteed and minimum == CODE, costs(table))
        for i, (minimum, guaranteed, table) in enumerate(spec)
    ]
    levels = allocate(candidates, budget)
    forced = sum(c.cost(c.minimum) for c in candidates if c.guaranteed)
    spent = sum(c.cost(levels[c.key]) for c in candidates)
    assert spent <= max(budget, forced + budget)
    for c in candidates:
        if c.guaranteed:
            assert levels[c.key] >= c.minimum
        assert levels[c.key] in (INVISIBLE, SHORT_DOC, DOC, CODE, ALL)
