"""``laplace`` and ``gaussian_laplace`` of a 2D float image run as one 2D filter (the terms'
outer products summed) instead of a pass per term and a sum: scipy's results within the float
bound in every mode, and the one filter taken wherever it gives them."""

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv as F
from ferroconv import _derivatives

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap", "grid-constant"]
CASES = [("laplace", (), 8.0), ("gaussian_laplace", (1.5,), 2.0), ("gaussian_laplace", ((0.8, 2.0),), 4.0)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, args, weight", CASES)
def test_a_2d_sum_of_terms_is_one_filter(monkeypatch, mode, dtype, name, args, weight):
    fused = []

    def recorded(*a):
        program = _plane_sum(*a)
        fused.append(program is not None)
        return program

    _plane_sum = _derivatives._plane_sum
    monkeypatch.setattr(_derivatives, "_plane_sum", recorded)
    # A shape of its own, so that no program of an earlier test is reused.
    x = np.random.default_rng(1).uniform(-1, 1, (61, 47 + MODES.index(mode))).astype(dtype)
    cval = 0.5 if "constant" in mode else 0.0
    got = getattr(F, name)(x, *args, mode=mode, cval=cval)
    want = getattr(ndi, name)(x.astype(np.float64), *args, mode=mode, cval=cval)
    assert got.dtype == dtype and got.shape == x.shape
    # A pass of a term reading cval past the edges of another's result is not one 2D filter.
    assert fused == [name == "laplace" or "constant" not in mode], fused
    eps = 2.0**-24 if dtype == np.float32 else 2.0**-53
    taps = 5 if name == "laplace" else 33 * 33
    assert np.abs(got - want).max() <= 2 * taps * eps * weight * max(1.0, cval)
