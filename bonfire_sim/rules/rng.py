"""The game's own PRNG, stored inside the state vector.

xorshift32 in int64 arithmetic: every intermediate value stays below 2**63, so jitted and
un-jitted runs (NUMBA_DISABLE_JIT=1) produce the same stream bit for bit.  A game owns two
streams (``G_RNG`` for dealing, reshuffles and Tom; ``G_RNG_STRAT`` for strategies) so a
strategy's coin flips never shift the deal.
"""

from __future__ import annotations

from numba import njit

MASK32 = 0xFFFFFFFF


@njit(cache=True)
def next_u32(s, slot):
    """Advance the xorshift32 stream at ``s[slot]`` and return the new 32-bit value."""
    x = s[slot]
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    s[slot] = x
    return x


@njit(cache=True)
def randint(s, slot, n):
    """Uniform integer in [0, n) by multiply-shift (n < 2**30)."""
    return (next_u32(s, slot) * n) >> 32


@njit(cache=True)
def shuffle(s, slot, a, lo, n):
    """Fisher-Yates shuffle of ``a[lo:lo+n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint(s, slot, i + 1)
        t = a[lo + i]
        a[lo + i] = a[lo + j]
        a[lo + j] = t


def seed_words(seed: int, stream: int) -> int:
    """A nonzero 32-bit xorshift state from (seed, stream) via splitmix64 (plain Python)."""
    z = (int(seed) * 0x9E3779B97F4A7C15 + (stream + 1) * 0xD1B54A32D192ED03) & (2**64 - 1)
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    z ^= z >> 31
    w = z & MASK32
    return w if w else 0x6D2B79F5


def game_seed(base_seed: int, index: int) -> int:
    """Seed of game ``index`` in a run seeded ``base_seed``: independent of chunking/workers."""
    return seed_words(base_seed, 1_000_003 + index) | (seed_words(base_seed, index) << 32)


__all__ = ["next_u32", "randint", "shuffle", "seed_words", "game_seed"]
