"""Filters longer than the array cost what the array costs: folded per axis by the mode (at most
2n + 1 taps an axis), with scipy's result, for every mode, every filter, arrays of any number of
axes whose sides differ, and origins. The folds themselves (``_fold``) against their definition."""

import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest
import scipy.ndimage as ndi
from scipy.ndimage._filters import _gaussian_kernel1d

import ferroconv
from ferroconv import _fold

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
# numpy.pad's name for each mode's extension.
PAD = {"reflect": "symmetric", "mirror": "reflect", "nearest": "edge", "wrap": "wrap", "constant": "constant"}


def image(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def rel_error(got, want):
    return np.abs(got.astype(np.float64) - want).max() / max(1e-30, float(np.abs(want).max()))


def padded_correlate(x, w, mode, cval, origin):
    """The definition: the array extended by numpy.pad (periodically, however far) and correlated
    where the filter reads no border, on every axis. scipy's N-D ``correlate`` in ``reflect`` mode
    leaves it for weights far longer than an axis (its 1D passes and numpy.pad keep to it)."""
    c = [k // 2 + o for k, o in zip(w.shape, origin)]
    extra = {"constant_values": cval} if mode == "constant" else {}
    p = np.pad(x.astype(np.float64), [(ci, k - 1 - ci) for k, ci in zip(w.shape, c)], mode=PAD[mode], **extra)
    windows = np.lib.stride_tricks.sliding_window_view(p, w.shape)
    return np.tensordot(windows, w, axes=w.ndim)


def folded_1d(x, taps, centre, mode, cval=0.0):
    """1D correlation of ``x`` with ``taps`` (centred on tap ``centre``) by the definition."""
    return padded_correlate(x, np.asarray(taps, dtype=np.float64), mode, cval, (centre - len(taps) // 2,))


@pytest.mark.parametrize("mode", MODES)
def test_fold_api_against_the_definition(mode):
    """fold_taps, uniform (any centre tap), gaussian and fold_weights: their taps, centred on the
    centre they give, correlate as the taps they fold do; at most 2n + 1 of them."""
    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 5, 8):
        x, cval = rng.random(n), 0.3
        lo, hi, period = _fold.window(n, mode)
        assert hi - lo + 1 <= 2 * n + 1 and (period is None) == (mode in ("nearest", "constant"))
        for k, c in ((1, 0), (3, 1), (7, 0), (7, 6), (20, 9), (41, 3), (200, 150)):
            taps = rng.random(k) - 0.3
            got, centre = _fold.fold_taps(taps, c, n, mode)
            assert (len(got), centre) == _fold.folded_shape(k, c, n, mode) and len(got) <= max(k, 2 * n + 1)
            assert _fold.folds(k, c, n, mode) or (len(got), centre) == (k, c)
            np.testing.assert_allclose(folded_1d(x, got, centre, mode, cval), folded_1d(x, taps, c, mode, cval), atol=1e-12)
            box, bc = _fold.uniform(k, n, mode, c)
            np.testing.assert_allclose(folded_1d(x, box, bc, mode, cval), folded_1d(x, np.full(k, 1 / k), c, mode, cval), atol=1e-12)
        for s, r in ((0.5, 2), (2.0, 8), (3.0, 60), (40.0, 160)):
            g, gc = _fold.gaussian(s, r, n, mode)
            want = folded_1d(x, _gaussian_kernel1d(s, 0, r)[::-1], r, mode, cval)
            np.testing.assert_allclose(folded_1d(x, g, gc, mode, cval), want, atol=1e-12)
        b, bc = _fold.uniform(9, n, mode)
        assert bc == _fold.uniform(9, n, mode, 4)[1] and np.array_equal(b, _fold.uniform(9, n, mode, 4)[0])
    w = rng.random((15, 4)) - 0.5
    x = rng.random((3, 5))
    got, centre = _fold.fold_weights(w, (9, 1), x.shape, mode)
    assert got.shape[0] <= 7 and got.shape[1] == 4
    origin = tuple(ci - k // 2 for ci, k in zip(centre, got.shape))
    np.testing.assert_allclose(padded_correlate(x, got, mode, 0.3, origin), padded_correlate(x, w, mode, 0.3, (9 - 7, 1 - 2)), atol=1e-12)


def test_gaussian_reach():
    """Past the reach every tap of scipy's Gaussian is exactly 0 in float64."""
    for s, r in ((1.0, 100), (10.0, 5000), (0.3, 50), (5.0, 10)):
        reach = _fold.gaussian_reach(s, r)
        assert reach <= r and (reach == r or np.exp(-0.5 / (s * s) * (reach + 1) ** 2) == 0.0)


@pytest.mark.parametrize("mode", MODES)
def test_gaussian_sigma_1000_equals_scipy(mode):
    # A 8001-tap Gaussian on 64 x 64: folded to at most 129 taps a side.
    x = image((64, 64))
    start = time.perf_counter()
    got = ferroconv.gaussian_filter(x, 1000, mode=mode, cval=0.5)
    assert time.perf_counter() - start < 2.0
    want = ndi.gaussian_filter(x.astype(np.float64), 1000, mode=mode, cval=0.5)
    assert got.dtype == np.float32 and rel_error(got, want) < 1e-5


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(5, 40), (37, 9), (1, 6), (2, 1), (3, 2, 17)])
def test_long_filters_fold_per_axis(mode, shape):
    x = image(shape, np.float64, 1)
    seqs = {2: ((30.0, 2.0), (0.7, 50.0), 300.0, (0, 45.5)), 3: ((30.0, 0, 2.0), 60.0, (1.0, 25.0, 9.0))}[len(shape)]
    for sigma in seqs:
        for order in (0, 1):
            want = ndi.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.25)
            got = ferroconv.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.25)
            assert np.abs(got - want).max() <= 1e-9 * max(1.0, float(np.abs(want).max())), (sigma, order)
    sizes = {2: ((100, 3), (4, 251), 1000, (2, 2)), 3: ((9, 1, 40), 77)}[len(shape)]
    for size in sizes:
        want = ndi.uniform_filter(x, size, mode=mode, cval=0.25)
        assert rel_error(ferroconv.uniform_filter(x, size, mode=mode, cval=0.25), want) < 1e-9, size
    for axis in range(len(shape)):
        assert rel_error(ferroconv.uniform_filter1d(x, 301, axis, mode=mode, cval=0.25, origin=-150),
                         ndi.uniform_filter1d(x, 301, axis, mode=mode, cval=0.25, origin=-150)) < 1e-9
        for name in ("sobel", "prewitt"):
            want = getattr(ndi, name)(x, axis, mode=mode, cval=0.25)
            assert np.abs(getattr(ferroconv, name)(x, axis, mode=mode, cval=0.25) - want).max() < 1e-9, (name, axis)
        w = np.random.default_rng(axis).random(57) - 0.5
        want = ndi.correlate1d(x, w, axis, mode=mode, cval=0.25, origin=-20)
        assert np.abs(ferroconv.correlate1d(x, w, axis, mode=mode, cval=0.25, origin=-20) - want).max() < 1e-9
    for name in ("laplace", "gaussian_laplace", "gaussian_gradient_magnitude"):
        args = () if name == "laplace" else (20.0,)
        want = getattr(ndi, name)(x, *args, mode=mode, cval=0.25)
        assert np.abs(getattr(ferroconv, name)(x, *args, mode=mode, cval=0.25) - want).max() < 1e-9, name


@pytest.mark.parametrize("mode", MODES)
def test_general_weights_longer_than_the_array_fold_on_every_axis(mode):
    rng = np.random.default_rng(2)
    cases = (((6, 9), (41, 30), (3, -4)), ((3, 20), (200, 5), (-100, 2)), ((11, 4), (12, 300), (0, 149)),
             ((3, 4, 5), (7, 19, 2), (1, -9, -1)))
    for shape, kshape, origin in cases:
        x = image(shape, np.float64, 3)
        w = rng.random(kshape) - 0.5
        got = ferroconv.correlate(x, w, mode=mode, cval=0.25, origin=origin)
        want = padded_correlate(x, w, mode, 0.25, origin)
        assert np.abs(got - want).max() < 1e-9 * np.abs(w).sum(), (shape, kshape)
        if mode != "reflect":
            assert np.abs(got - ndi.correlate(x, w, mode=mode, cval=0.25, origin=origin)).max() < 1e-9 * np.abs(w).sum()
        flipped = tuple(-o - (1 - k % 2) for k, o in zip(kshape, origin))
        conv = ferroconv.convolve(x, w[(slice(None, None, -1),) * w.ndim], mode=mode, cval=0.25, origin=flipped)
        assert np.abs(conv - got).max() < 1e-9 * np.abs(w).sum()
        f32 = ferroconv.correlate(x.astype(np.float32), w, mode=mode, cval=0.25, origin=origin)
        bound = 2 * w.size * 2.0**-24 * np.abs(w).sum() * max(1.0, np.abs(x).max())
        assert f32.dtype == np.float32 and np.abs(f32 - want).max() <= bound


def test_a_filter2d_larger_than_the_library_runs_on_images_it_folds_to():
    # 300 x 250 taps that are not rank 1: past the library's 127 x 127, folded to 41 x 61 (and to
    # 130 x 20: still past it on one side).
    w = np.random.default_rng(5).random((300, 250)) - 0.5
    f = ferroconv.Filter2D(w, mode="wrap")
    for shape in ((41, 61), (130, 20), (2, 41, 61)):
        x64 = image(shape, np.float64, 6)
        # The definition of wrap: the taps summed modulo the sides, correlated circularly (by FFT;
        # scipy takes seconds over these 75,000 taps).
        (h, wd), folded = shape[-2:], np.zeros(shape[-2:])
        np.add.at(folded, ((np.arange(300) - 150)[:, None] % h, (np.arange(250) - 125)[None, :] % wd), w)
        want = np.fft.ifft2(np.fft.fft2(x64) * np.conj(np.fft.fft2(folded))).real
        for dtype in (np.float64, np.float32):
            x = x64.astype(dtype)
            # The verify bound of float32 arithmetic over the folded taps (2n 2^-24 sum|w| max|x|).
            eps = 2.0**-24 if dtype == np.float32 else 2.0**-50
            bound = 2 * shape[-2] * shape[-1] * eps * np.abs(w).sum() * np.abs(x).max()
            got = f(x)
            assert got.dtype == dtype and np.abs(got - want).max() <= bound, (shape, dtype)


def test_filters_past_the_librarys_taps_equal_scipy():
    # Taps past the library's 1023 a side, folded or not, where the 2D filter of two neighbouring
    # axes is not formed: element-wise passes, scipy's result.
    x = image((600, 700))
    want = ndi.gaussian_filter(x.astype(np.float64), (0, 150.0))
    assert rel_error(ferroconv.gaussian_filter(x, (0, 150.0)), want) < 1e-5
    want = ndi.uniform_filter(x.astype(np.float64), (3, 1500))
    assert rel_error(ferroconv.uniform_filter(x, (3, 1500)), want) < 1e-5
    # Sigma up to 127 at truncate 4 still runs unfolded on a large image.
    small = image((600, 40))
    want = ndi.gaussian_filter(small.astype(np.float64), (127.0, 5.0), mode="mirror")
    assert rel_error(ferroconv.gaussian_filter(small, (127.0, 5.0), mode="mirror"), want) < 1e-5


def test_taps_past_the_library_on_two_axes_cost_no_more_in_float32():
    x = image((40, 1100))
    fast = min(_timed(lambda: ferroconv.uniform_filter(x.astype(np.float64), (41, 1100))) for _ in range(3))
    start = time.perf_counter()
    got = ferroconv.uniform_filter(x, (41, 1100))
    took = time.perf_counter() - start
    assert rel_error(got, ndi.uniform_filter(x.astype(np.float64), (41, 1100))) < 1e-5
    assert took < 4 * fast + 0.1, f"float32 {took:.2f} s, float64 {fast:.2f} s"


@pytest.mark.parametrize("mode", MODES)
def test_a_huge_sigma_is_exact_on_tiny_images(mode):
    # sigma 1e6 (8,000,001 taps): the folded sums by Euler-Maclaurin, against scipy's own taps.
    x = image((3, 4), np.float64, 7)
    want = ndi.gaussian_filter(x, (1e6, 3e5), mode=mode, cval=0.5)
    assert rel_error(ferroconv.gaussian_filter(x, (1e6, 3e5), mode=mode, cval=0.5), want) < 1e-6
    want = ndi.uniform_filter(x, (10**6 + 1, 333333), mode=mode, cval=0.5)
    assert rel_error(ferroconv.uniform_filter(x, (10**6 + 1, 333333), mode=mode, cval=0.5), want) < 1e-6


def folded_reference(x, mode):
    """scipy's sigma-1e6 Gaussian on 64 x 64 by its semantics: its own 8,000,001 taps, summed by
    residue modulo the mode's period (numpy's bincount), correlated with the extension of one
    period (too slow for scipy itself: 32G products an axis)."""
    r, n = 4_000_000, x.shape[0]
    taps = _gaussian_kernel1d(1e6, 0, r)
    period = {"reflect": 2 * n, "mirror": 2 * n - 2, "wrap": n}[mode]
    per = np.bincount(np.arange(-r, r + 1) % period, weights=taps, minlength=period)
    out = x
    for _ in range(2):
        ext = np.pad(out, ((0, period - n), (0, 0)), mode={"reflect": "symmetric", "mirror": "reflect", "wrap": "wrap"}[mode])
        out = sum(per[m] * np.roll(ext, -m, axis=0)[:n] for m in range(period)).T
    return out


@pytest.mark.parametrize("mode", ["reflect", "mirror", "wrap"])
def test_sigma_1e6_on_64x64_equals_scipys_semantics(mode):
    x = image((64, 64), np.float64, 8)
    want = folded_reference(x, mode)
    got = ferroconv.gaussian_filter(x, 1e6, mode=mode)
    # So far off the image the Gaussian is almost flat: what is compared is its little slope.
    assert np.abs(got - want).max() <= 1e-13 and np.abs(want - x.mean()).max() > 1e-12
    got32 = ferroconv.gaussian_filter(x.astype(np.float32), 1e6, mode=mode)
    assert np.abs(got32 - want).max() <= 2 * 2 * 129 * 2.0**-24


def test_sigma_1e6_costs_what_the_image_costs():
    x = image((64, 64))
    ferroconv.gaussian_filter(x, 1e6)
    best = min(_timed(lambda: ferroconv.gaussian_filter(x, 1e6)) for _ in range(5))
    # Under 10 ms (3 ms on 2 CPU cores), or where planning alone takes longer (a GPU's first
    # plan of a filter), what an 81-tap Gaussian that is not folded takes.
    unfolded = min(_timed(lambda: ferroconv.gaussian_filter(x, 10.0)) for _ in range(5))
    assert best < 0.010 or best < 2 * unfolded, f"{best * 1e3:.1f} ms, sigma 10: {unfolded * 1e3:.1f} ms"
    tracemalloc.start()
    got = ferroconv.gaussian_filter(x, 1e6)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10 << 20, f"{peak / 2**20:.1f} MiB"
    assert np.abs(got - x.mean()).max() < 1e-3
    for s in (1e9, 1e100, 1e300):
        assert np.abs(ferroconv.gaussian_filter(x, s) - x.mean()).max() < 1e-3


RSS = """
import resource, numpy as np, ferroconv
x = np.random.default_rng(0).random((64, 64)).astype(np.float32)
for warm in (1.0, 32.0):  # kernels of both sizes loaded (32 folds to 129 taps too)
    ferroconv.gaussian_filter(x, warm, mode="constant")
    ferroconv.gaussian_filter(x, warm)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ferroconv.gaussian_filter(x, 1e6, mode="constant")
ferroconv.gaussian_filter(x, 1e6)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def test_sigma_1e6_stays_under_10_mb_of_resident_memory():
    run = subprocess.run([sys.executable, "-c", RSS], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.split()[-1]) < 10 * 1024, f"{run.stdout.strip()} KiB more"


def _timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start
