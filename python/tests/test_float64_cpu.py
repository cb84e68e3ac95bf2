"""float64 numpy arrays (and 32- and 64-bit integers, computed in float64) on the library's float64
CPU plan: each result within float64's rounding bound of scipy's (a float32 computation would be
millions of times past it), in every mode and alias, on tiny, odd and large sizes, N-D and
channels, written into a poisoned ``output=`` where one is given."""

import numpy as np
import pytest
from scipy import ndimage as ndi

import ferroconv
from ferroconv import _engine

MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap", "grid-constant"]


def assert_close(got, want, w, x, what, cval=0.0):
    """Within 2n·2⁻⁵³·Σ|w|·max|x| per pass (4x slack), n the taps of a pass."""
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape, what
    w = np.asarray(w, dtype=np.float64)
    m = max(float(np.abs(x).max(initial=0.0)), abs(cval), 1.0)
    tol = 8 * w.size * 2.0**-53 * np.abs(w).sum() * m + 1e-300
    err = float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max(initial=0.0))
    assert np.isfinite(got).all() and err <= tol, f"{what}: {err:.3g} > {tol:.3g}"


def sizes():
    rng = np.random.default_rng(5)
    # Tiny, odd, one line, and large enough to run on every thread.
    return [(rng.random(s) * 4 - 2) for s in ((1, 1), (2, 3), (1, 17), (13, 1), (37, 29), (301, 263))]


def test_the_float64_cpu_plan_runs_numpy_arrays(monkeypatch):
    """float64 numpy arrays run on the CPU plan (never element-wise): the element-wise fallback
    raises here."""
    monkeypatch.setattr(_engine, "_dense", lambda *a: pytest.fail("element-wise float64"))
    x = np.random.default_rng(1).random((41, 53))
    w = np.random.default_rng(2).random((5, 3))
    ferroconv.correlate(x, w)
    ferroconv.gaussian_filter(x, 3.0)
    ferroconv.uniform_filter1d(x, 4, axis=0)


@pytest.mark.parametrize("mode", MODES)
def test_correlate_and_line_passes_in_every_mode(mode):
    """Dense 2D weights (off-centre), 1D lines along either axis (longer than the axis too:
    folded), as correlations and convolutions, with a constant of its own."""
    rng = np.random.default_rng(11)
    w = rng.random((5, 4)) - 0.5
    line = rng.random(9) - 0.5
    for x in sizes():
        kw = dict(mode=mode, cval=0.6)
        for name, args, extra in (
            ("correlate", (w,), dict(origin=(1, -1))),
            ("convolve", (w,), {}),
            ("correlate1d", (line,), dict(axis=0, origin=2)),
            ("convolve1d", (line,), dict(axis=1)),
        ):
            got = getattr(ferroconv, name)(x, *args, **kw, **extra)
            want = getattr(ndi, name)(x, *args, **kw, **extra)
            assert_close(got, want, args[0], x, f"{name} {mode} {x.shape}", 0.6)


@pytest.mark.parametrize("mode", MODES)
def test_smoothing_and_derivatives_in_every_mode(mode):
    """The Gaussian (small and long), the box, and the derivative filters, each pass's taps in
    the bound."""
    for x in sizes():
        for name, args, taps in (
            ("gaussian_filter", (1.5,), 13),
            ("gaussian_filter", (40.0,), 321),
            ("gaussian_filter1d", (2.0,), 17),
            ("uniform_filter", (5,), 5),
            ("uniform_filter1d", (4,), 4),
            ("sobel", (), 3),
            ("prewitt", (), 3),
            ("laplace", (), 6),
            ("gaussian_laplace", (1.5,), 26),
            ("gaussian_gradient_magnitude", (1.5,), 26),
        ):
            got = getattr(ferroconv, name)(x, *args, mode=mode, cval=-0.4)
            want = getattr(ndi, name)(x, *args, mode=mode, cval=-0.4)
            scale = 4.0 if name in ("sobel", "prewitt", "laplace") else 1.0
            assert_close(got, want, np.full(taps, scale), x, f"{name} {mode} {x.shape}", 0.4)


def test_volumes_channels_and_integers():
    """3-D volumes (every axis, and ``axes``), RGB with ``channel_axis``, and int32 / int64 /
    uint32 input computed in float64 (scipy's results, truncated as it casts)."""
    rng = np.random.default_rng(12)
    vol = rng.random((7, 33, 19))
    assert_close(ferroconv.gaussian_filter(vol, (1.0, 2.0, 0.5)), ndi.gaussian_filter(vol, (1.0, 2.0, 0.5)), np.ones(17), vol, "volume")
    w = rng.random((3, 5)) - 0.5
    got = ferroconv.correlate(vol, w, axes=(0, 2), mode="wrap")
    assert_close(got, ndi.correlate(vol, w, axes=(0, 2), mode="wrap"), w, vol, "axes (0, 2)")
    rgb = rng.random((45, 38, 3))
    got = ferroconv.uniform_filter(rgb, 7, channel_axis=-1)
    assert_close(got, ndi.uniform_filter(rgb, (7, 7, 1)), np.ones(7), rgb, "rgb")
    for dtype in (np.int32, np.int64, np.uint32):
        xi = rng.integers(0, 1000, (40, 57)).astype(dtype)
        for name in ("sobel", "laplace"):
            assert np.array_equal(getattr(ferroconv, name)(xi), getattr(ndi, name)(xi)), (name, dtype)
        got, want = ferroconv.gaussian_filter(xi, 2.0), ndi.gaussian_filter(xi, 2.0)
        assert got.dtype == want.dtype and np.abs(got.astype(np.int64) - want.astype(np.int64)).max() <= 1


@pytest.mark.parametrize("mode", ["reflect", "constant", "wrap"])
def test_output_poisoned_overlapping_and_byte_orders(mode):
    """``output=`` a float64 array poisoned with NaN holds the result, whole; an output that is
    the input, a strided one, and big-endian input and output give scipy's results too."""
    rng = np.random.default_rng(13)
    x = rng.random((67, 45)) * 4 - 2
    w = rng.random((3, 7)) - 0.5
    for call in (
        lambda m, a, **k: m.correlate(a, w, mode=mode, cval=0.3, **k),
        lambda m, a, **k: m.gaussian_filter(a, 2.5, mode=mode, cval=0.3, **k),
        lambda m, a, **k: m.correlate1d(a, w[0], axis=0, mode=mode, cval=0.3, **k),
    ):
        want = call(ndi, x)
        out = np.full(x.shape, np.nan)
        assert call(ferroconv, x, output=out) is out
        assert_close(out, want, np.ones(21), x, f"poisoned {mode}", 0.3)
        same = x.copy()
        assert call(ferroconv, same, output=same) is same
        assert_close(same, want, np.ones(21), x, f"in place {mode}", 0.3)
        wide = np.full((x.shape[0], 2 * x.shape[1]), np.nan)
        call(ferroconv, x, output=wide[:, ::2])
        assert_close(wide[:, ::2], want, np.ones(21), x, f"strided {mode}", 0.3)
        big = x.astype(">f8")
        got = call(ferroconv, big)
        assert got.dtype == np.float64
        assert_close(got.astype(np.float64), want, np.ones(21), x, f"big-endian {mode}", 0.3)
        out = np.full(x.shape, np.nan, ">f8")
        assert call(ferroconv, x, output=out) is out
        assert_close(out.astype(np.float64), want, np.ones(21), x, f"big-endian output {mode}", 0.3)


@pytest.mark.parametrize("name", ["gaussian_filter", "gaussian_filter1d", "gaussian_laplace", "gaussian_gradient_magnitude"])
@pytest.mark.parametrize("sigma", [np.float32(2.5), np.float16(1.7), np.array(np.float32(3.3)), np.float16(300.0)])
@pytest.mark.parametrize("order", [0, 2])
def test_sigmas_of_numpy_float_types_square_in_their_type(name, sigma, order):
    """scipy squares a numpy float16 or float32 sigma in its own type (-0.5 / sigma² rounded to it):
    float64 data gets those taps, millions of float64 roundings away from a float64 sigma's."""
    x = np.random.default_rng(7).random((37, 41)) * 4 - 2
    kw = dict(order=order) if name.startswith("gaussian_filter") else {}
    if order and not kw:
        pytest.skip("no order")
    with np.errstate(over="ignore"):  # scipy's float16 square of 300
        want = getattr(ndi, name)(x, sigma, **kw)
    got = getattr(ferroconv, name)(x, sigma, **kw)
    err = float(np.abs(got - want).max())
    assert err <= 1e-13 * max(1.0, float(np.abs(want).max())), f"{name} {sigma!r}: {err:.3g}"
