"""The solver's pruning bounds must never be too low (a low bound would lose answers)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.deckdash.solver import _best_two_windows, _best_window, _greedy_fill

counts12 = st.lists(st.integers(0, 3), min_size=12, max_size=12)


@settings(max_examples=200, deadline=None)
@given(counts12, st.integers(3, 6))
def test_two_windows_bound_matches_brute_force(counts, size):
    best = 0
    for a in range(1, 14 - size):
        for b in range(1, 14 - size):
            cover = [(a <= v < a + size) + (b <= v < b + size) for v in range(1, 13)]
            best = max(best, sum(min(c, k) for c, k in zip(counts, cover, strict=True)))
    assert _best_two_windows(counts, size) == best


@settings(max_examples=200, deadline=None)
@given(counts12, st.integers(3, 11))
def test_one_window_bound_matches_brute_force(counts, size):
    have = [1 if c else 0 for c in counts]
    best = max(sum(have[a : a + size]) for a in range(13 - size))
    assert _best_window(have, size) == best


def _fill_brute(counts, size, groups):
    """Every way to put ``groups`` groups on keys; a key with m groups gives min(c, m*size)."""

    def go(k, left):
        if k == len(counts):
            return 0 if left == 0 else -1
        return max(
            (min(counts[k], m * size) + rest)
            for m in range(left + 1)
            if (rest := go(k + 1, left - m)) >= 0
        )

    return go(0, groups)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=5), st.integers(2, 5), st.integers(1, 4))
def test_greedy_fill_is_exact(counts, size, groups):
    assert _greedy_fill(counts, size, groups) == _fill_brute(counts, size, groups)
