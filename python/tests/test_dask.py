"""Larger than one call: dask's map_overlap over a chunked array gives the result of one call,
chunk edges overlapping by the filter's radius (0 on an axis that is not filtered), the array's
own edges left to ferroconv's mode."""

import numpy as np
import pytest

import ferroconv

da = pytest.importorskip("dask.array", reason="SKIPPED: dask is not installed")


@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "constant"])
def test_map_overlap_equals_one_call(mode):
    rng = np.random.default_rng(1)
    x = rng.random((301, 397, 3)).astype(np.float32)
    w = rng.random((7, 7)) - 0.3
    r = ferroconv.Filter2D(w).radius
    chunked = da.from_array(x, chunks=(100, 130, 3))
    # An RGB image: the channels kept apart (channel_axis), the 2D weights on the other two axes.
    got = chunked.map_overlap(
        ferroconv.correlate,
        depth={0: r, 1: r, 2: 0},
        boundary="none",
        dtype=x.dtype,
        weights=w,
        mode=mode,
        channel_axis=-1,
    ).compute(scheduler="threads")
    # Chunks and the whole image may get different GPU variants (the choice is per shape):
    # equal within f32 rounding.
    np.testing.assert_allclose(got, ferroconv.correlate(x, w, mode=mode, channel_axis=-1), rtol=0, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_map_overlap_of_a_volume_equals_one_call(dtype):
    # A 3-D volume filtered along every axis (scipy's N-D Gaussian), chunked on all three; the
    # depth is scipy's radius, int(truncate * sigma + 0.5).
    x = np.random.default_rng(2).random((60, 70, 50)).astype(dtype)
    sigma = (1.0, 2.0, 1.5)
    depth = {a: int(4.0 * s + 0.5) for a, s in enumerate(sigma)}
    chunked = da.from_array(x, chunks=(30, 35, 25))
    got = chunked.map_overlap(
        ferroconv.gaussian_filter, depth=depth, boundary="none", dtype=x.dtype, sigma=sigma, mode="nearest"
    ).compute(scheduler="threads")
    atol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, ferroconv.gaussian_filter(x, sigma, mode="nearest"), rtol=0, atol=atol)
