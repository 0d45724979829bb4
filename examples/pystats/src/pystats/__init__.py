"""Small statistics over lists of numbers.

THEORY: every function accepts an empty list and answers 0 for it, so callers never guard
against empty input; each answer is a float.
"""

from pystats.stats import mean, total

__all__ = ["mean", "total"]
