"""Lines longer than an image's side (2**18): a pass along a short axis whose later axes hold more
than that (a column pass over a 2D view that wide) and rows that long give scipy's results
instead of the library's "too large" error."""

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv as F

CALLS = [("sobel", (), {"mode": "constant", "cval": 3.0}), ("gaussian_filter", (1.0,), {}),
         ("uniform_filter1d", (5,), {}), ("laplace", (), {"mode": "wrap"})]


@pytest.mark.parametrize("shape", [(1, 1200, 333), (3, 1, 300001), (2, 262147)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
@pytest.mark.parametrize("name, args, kwargs", CALLS)
def test_long_lines_give_scipys_results(shape, dtype, name, args, kwargs):
    x = (np.random.default_rng(1).random(shape) * 200).astype(dtype)
    got = getattr(F, name)(x, *args, **kwargs)
    want = getattr(ndi, name)(x, *args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64)).max()
    # Integers: scipy's levels, or one off where its float64 sum sits on a rounding boundary.
    assert diff <= (1.0 if dtype == np.uint8 else 200 * 16 * 40 * np.finfo(dtype).eps), diff
