"""float32 numpy arrays' 1D passes on the library's CPU plan (where there is no GPU), computed in
float32: each result within float32's rounding bound of scipy's float64 result on the same data,
in every mode and alias, on tiny, odd and large sizes, along every axis, written into a poisoned
``output=`` where one is given."""

import numpy as np
import pytest
from scipy import ndimage as ndi

import ferroconv
from ferroconv import _engine, _native

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap", "grid-constant"]


def assert_close(got, want, w, x, what, cval=0.0):
    """Within 2n·2⁻²⁴·Σ|w|·max|x| (4x slack), n the taps of the pass."""
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == want.shape, what
    w = np.asarray(w, dtype=np.float64)
    m = max(float(np.abs(x).max(initial=0.0)), abs(cval), 1.0)
    tol = 8 * w.size * 2.0**-24 * np.abs(w).sum() * m
    err = float(np.abs(got.astype(np.float64) - want).max(initial=0.0))
    assert np.isfinite(got).all() and err <= tol, f"{what}: {err:.3g} > {tol:.3g}"


def arrays():
    rng = np.random.default_rng(7)
    # Tiny, odd, one line, large enough to run on every thread, and a volume with RGB.
    shapes = ((1, 1), (2, 3), (1, 17), (13, 1), (37, 29), (301, 263), (5, 19, 23, 3))
    return [(rng.random(s) * 4 - 2).astype(np.float32) for s in shapes]


@pytest.mark.skipif(_native.gpu_available(), reason="float32 numpy arrays run on the GPU here")
def test_1d_passes_run_on_the_cpu_plan(monkeypatch):
    """Without a GPU, a 1D pass of a float32 numpy array never reaches the 2D plans."""
    monkeypatch.setattr(_engine.Kernel2D, "__call__", lambda *a, **k: pytest.fail("a 2D plan ran a 1D pass"))
    _engine._plans.clear()
    ferroconv._front._programs.clear()
    x = arrays()[4]
    ferroconv.correlate1d(x, np.arange(5.0), axis=0)
    ferroconv.uniform_filter1d(x, 4)
    ferroconv.gaussian_filter1d(x, 2.0, axis=0)


@pytest.mark.parametrize("mode", MODES)
def test_1d_passes_in_every_mode(mode):
    """Lines along each axis (longer than the axis too: folded), correlations and convolutions
    with an origin, the box and the Gaussian, against scipy's float64 results."""
    rng = np.random.default_rng(8)
    line = rng.random(9) - 0.5
    for x in arrays():
        x64 = x.astype(np.float64)
        for axis in range(x.ndim):
            for name, args, kw, taps in (
                ("correlate1d", (line,), dict(origin=2), line),
                ("convolve1d", (line,), {}, line),
                ("uniform_filter1d", (4,), dict(origin=-1), np.full(4, 0.25)),
                ("gaussian_filter1d", (1.5,), {}, np.full(13, 1 / 13)),
                ("gaussian_filter1d", (30.0,), dict(order=1), np.full(241, 1 / 30)),
            ):
                got = getattr(ferroconv, name)(x, *args, axis=axis, mode=mode, cval=0.6, **kw)
                want = getattr(ndi, name)(x64, *args, axis=axis, mode=mode, cval=0.6, **kw)
                assert_close(got, want, taps, x, f"{name} axis {axis} {mode} {x.shape}", 0.6)


@pytest.mark.parametrize("mode", ["reflect", "constant", "wrap"])
def test_output_poisoned_and_overlapping(mode):
    """``output=`` a float32 array poisoned with NaN holds the whole result; the input itself,
    a strided array and a big-endian one as the output give scipy's result too."""
    rng = np.random.default_rng(9)
    x = (rng.random((67, 45)) * 4 - 2).astype(np.float32)
    line = rng.random(7) - 0.5
    want = ndi.correlate1d(x.astype(np.float64), line, axis=0, mode=mode, cval=0.3)

    def call(out, a=x):
        return ferroconv.correlate1d(a, line, axis=0, mode=mode, cval=0.3, output=out)

    out = np.full(x.shape, np.nan, np.float32)
    assert call(out) is out
    assert_close(out, want, line, x, f"poisoned {mode}", 0.3)
    same = x.copy()
    assert call(same, same) is same
    assert_close(same, want, line, x, f"in place {mode}", 0.3)
    wide = np.full((x.shape[0], 2 * x.shape[1]), np.nan, np.float32)
    call(wide[:, ::2])
    assert_close(wide[:, ::2], want, line, x, f"strided {mode}", 0.3)
    big = np.full(x.shape, np.nan, ">f4")
    assert call(big) is big
    assert_close(big.astype(np.float32), want, line, x, f"big-endian output {mode}", 0.3)
