"""Larger than one call: dask's map_overlap over a chunked array gives the result of one call,
chunk edges overlapping by the filter's radius (0 on the channel axis), the array's own edges
left to ferroconv's mode."""

import numpy as np
import pytest

import ferroconv

da = pytest.importorskip("dask.array", reason="SKIPPED: dask is not installed")


@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "constant"])
def test_map_overlap_equals_one_call(mode):
    rng = np.random.default_rng(1)
    x = rng.random((301, 397, 3)).astype(np.float32)
    w = rng.random((7, 7)) - 0.3
    r = w.shape[0] // 2
    chunked = da.from_array(x, chunks=(100, 130, 3))
    got = chunked.map_overlap(
        ferroconv.correlate,
        depth={0: r, 1: r, 2: 0},
        boundary="none",
        dtype=x.dtype,
        weights=w,
        mode=mode,
    ).compute(scheduler="threads")
    # Chunks and the whole image may get different GPU variants (the choice is per shape):
    # equal within f32 rounding.
    np.testing.assert_allclose(got, ferroconv.correlate(x, w, mode=mode), rtol=0, atol=1e-5)
