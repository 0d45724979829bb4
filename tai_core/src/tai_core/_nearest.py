"""The names nearest to one tai does not know: the "did you mean" of every message.

One rule wherever a user's word is checked against the names tai knows — commands and
options, configuration keys, provider types, models, plugins, hooks, slash commands — so
that a typo is answered the same way everywhere: the known names at least :data:`CUTOFF`
similar to the word (difflib's ratio, the measure ``git`` and ``click`` suggest by too),
the nearest first. difflib is imported only when a name is unknown: a start that goes well
never pays for it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

#: How similar (difflib's ratio, 0 to 1) a known name must be to be offered: a letter
#: left out, doubled or swapped in a word of five or more letters passes, another word
#: does not.
CUTOFF = 0.7


def nearest(
    word: str,
    choices: Iterable[str],
    n: int = 3,
    cutoff: float = CUTOFF,
    same: Callable[[str], Hashable] | None = None,
) -> list[str]:
    """At most ``n`` of ``choices`` nearest to ``word``, the nearest first (one that
    differs only in case before all others: ``modify`` is ``MODIFY``); ``same`` maps
    a name to what it stands for, and of names that stand for the same thing (a provider's
    spellings ``openai``, ``open_ai``) only the nearest is offered."""
    import difflib

    names = sorted(set(choices))
    cased = [name for name in names if name.casefold() == word.casefold() and name != word]
    close = difflib.get_close_matches(word, names, n=len(names) if same else n, cutoff=cutoff)
    close = cased + [name for name in close if name not in cased]
    if same is not None:
        first: dict[Hashable, str] = {}
        for name in close:
            first.setdefault(same(name), name)
        close = list(first.values())
    return close[:n]


def did_you_mean(
    word: str,
    choices: Iterable[str],
    shown: Callable[[str], str] = repr,
    n: int = 2,
    same: Callable[[str], Hashable] | None = None,
) -> str:
    """``did you mean 'x' or 'y'?`` for the names of ``choices`` nearest to ``word`` — at
    most ``n``, the nearest first, each as ``shown`` gives it, and of names that ``same``
    maps to one thing only the nearest — or ``""`` when none is near (at least
    :data:`CUTOFF` similar): the rule of every message of tai, for plugins' names too."""
    return offer(nearest(word, choices, n, same=same), shown)


def offer(names: Sequence[str], shown: Callable[[str], str] = repr) -> str:
    """``did you mean 'x' or 'y'?`` for ``names`` (each as ``shown`` gives it), or ``""``
    when there are none."""
    return f"did you mean {' or '.join(shown(name) for name in names)}?" if names else ""


def aside(text: str) -> str:
    """``text`` as an aside to follow a name: `` (did you mean 'x'?)``, or ``""`` for none."""
    return f" ({text})" if text else ""
