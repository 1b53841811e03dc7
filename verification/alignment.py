"""Maximum bipartite matching, so expected items pair with actual items whatever their order."""

from __future__ import annotations

from collections.abc import Callable


def max_matching(n_left: int, n_right: int, edge: Callable[[int, int], bool]) -> dict[int, int]:
    """A maximum matching as {left index: right index} (Kuhn's augmenting paths; inputs are small).

    ``edge(i, j)`` says whether left item ``i`` may pair with right item ``j``; it is evaluated once
    per pair. Greedy pairing is not enough: a loose expectation could take the only row a tighter one fits.
    """
    adjacent = [[j for j in range(n_right) if edge(i, j)] for i in range(n_left)]
    owner: dict[int, int] = {}  # right index -> left index

    def augment(i: int, seen: set[int]) -> bool:
        for j in adjacent[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(n_left):
        augment(i, set())
    return {i: j for j, i in owner.items()}
