"""A bootstrap's group draws and resampled sums of sparse per-group events, by the compiled
kernel (``native/src/resample.rs``): what ``weights @ events`` gives for the weights
`polars_rankk.stats.resampling.weight_blocks` draws, without an array of draws or of weights.

The draws are NumPy's: the kernel runs the generator's PCG64 from its state and draws as
``Generator.integers(0, groups)`` does, resample after resample, and the generator is left in
the state NumPy's draws would leave it in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rankk.core.kernel import loader as native

if TYPE_CHECKING:  # NumPy is imported where the sums are drawn (not at start-up)
    import numpy as np

#: The generator's state after the draws: six numbers after the sums (`resample.rs`).
_STATE_WORDS = 6


def resampled_event_sums(
    rng: np.random.Generator,
    groups: int,
    group: np.ndarray,
    column: np.ndarray,
    delta: np.ndarray,
    width: int,
    n_resamples: int,
) -> np.ndarray | None:
    """Each resample's sums (``n_resamples × width``) of the events ``(group, column,
    delta)`` over `groups` groups drawn with replacement by `rng`; None where the kernel is not
    loaded or `rng` is not a PCG64 generator (`weight_blocks` then draws them)."""
    import numpy as np

    bit_generator = rng.bit_generator
    if not native.status().loaded or type(bit_generator) is not np.random.PCG64:
        return None
    if not 0 < groups < 2**32 - 1:
        return None
    state = bit_generator.state
    values = np.concatenate(
        [
            np.asarray(group, dtype=np.float64),
            np.asarray(column, dtype=np.float64),
            np.asarray(delta, dtype=np.float64),
        ]
    )
    kwargs = {
        "groups": int(groups),
        "width": int(width),
        "resamples": int(n_resamples),
        "state": str(state["state"]["state"]),
        "inc": str(state["state"]["inc"]),
        "has_uint32": bool(state["has_uint32"]),
        "uinteger": int(state["uinteger"]),
    }
    out = native.on_values("resampled_sums", values, kwargs)["sums"].to_numpy()
    words = [int(word) for word in out[-_STATE_WORDS:]]
    after = 0
    for word in words[:4]:
        after = (after << 32) | word
    state["state"]["state"] = after
    state["has_uint32"], state["uinteger"] = words[4], words[5]
    bit_generator.state = state
    return out[: n_resamples * width].reshape(n_resamples, width)


def resampled_column_sums(
    rng: np.random.Generator, columns: np.ndarray, n_resamples: int
) -> np.ndarray | None:
    """Each resample's sums (``n_resamples × columns``) of the rows of `columns` (columns ×
    groups) over groups drawn with replacement by `rng`: ``W @ columns.T`` for the weights
    `weight_blocks` draws, with no array of weights; None where the kernel is not loaded
    (`rng` then untouched)."""
    import numpy as np

    # The events group by group (the columns in order within one), as the kernel adds them:
    # the transpose's non-zero cells in its row order.
    group, column = np.nonzero(columns.T)
    return resampled_event_sums(
        rng, columns.shape[1], group, column, columns[column, group], columns.shape[0], n_resamples
    )
