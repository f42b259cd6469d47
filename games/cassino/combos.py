"""Subset arithmetic for captures, builds and reserves over the (small) table.

Loose cards are indexed 0..k-1 and sets of them are bit masks. Sums are bounded by 10, so the
sets that sum to a value have at most four cards; unions of disjoint such sets are grown one set
at a time and deduplicated, so the work follows the number of distinct results, not the number
of ways to reach them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def subsets_with_sum(values: Sequence[int], target: int) -> list[int]:
    """Masks of the non-empty subsets of `values` adding up to `target` (all values positive)."""
    out: list[int] = []

    def walk(i: int, mask: int, total: int) -> None:
        if total == target and mask:
            out.append(mask)
            return
        for j in range(i, len(values)):
            if total + values[j] <= target:
                walk(j + 1, mask | (1 << j), total + values[j])

    walk(0, 0, 0)
    return out


def subsets_up_to(values: Sequence[int], limit: int) -> Iterator[tuple[int, int]]:
    """Every non-empty subset of `values` whose sum is at most `limit`, as (mask, sum)."""

    def walk(i: int, mask: int, total: int) -> Iterator[tuple[int, int]]:
        if mask:
            yield mask, total
        for j in range(i, len(values)):
            if total + values[j] <= limit:
                yield from walk(j + 1, mask | (1 << j), total + values[j])

    yield from walk(0, 0, 0)


def disjoint_unions(groups: Sequence[int]) -> list[int]:
    """Every union of pairwise disjoint groups (the empty union included), without repeats."""
    reachable = {0}
    for group in groups:
        for mask in list(reachable):
            if mask & group == 0:
                reachable.add(mask | group)
    return sorted(reachable, key=lambda m: (bin(m).count("1"), m))


def partitions_into(values: Sequence[int], target: int) -> bool:
    """True when `values` split into groups that each add up to `target` (empty: trivially)."""
    if sum(values) % target:
        return False
    ordered = sorted(values, reverse=True)
    if ordered and ordered[0] > target:
        return False

    def fill(remaining: list[int]) -> bool:
        if not remaining:
            return True
        first, rest = remaining[0], remaining[1:]
        for mask in subsets_with_sum(rest, target - first) if first < target else [0]:
            left = [v for j, v in enumerate(rest) if not mask >> j & 1]
            if fill(left):
                return True
        return False

    return fill(ordered)


def bits(mask: int) -> Iterator[int]:
    """The indexes set in a mask, lowest first."""
    i = 0
    while mask:
        if mask & 1:
            yield i
        mask >>= 1
        i += 1
