"""ferroconv on numpy arrays against scipy.ndimage: every mode, dtype, axes layout and size, with
weights that are not symmetric; the filters past the kernels' limits, the OpenCV names in
``ferroconv.cv``, and the host path's pool of results. Runs on the GPU when there is one, else
on the CPU. (test_ndimage.py checks every function's signature, refusals and dtypes.)"""

import platform
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv
from ferroconv import cv

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
DTYPES = [np.uint8, np.uint16, np.int16, np.float32, np.float64]
SIZES = [1, 3, 7, 31]
# (shape, keywords): gray, RGB and 2 channels kept apart, RGBA through axes=, a batch of RGB,
# PyTorch's (N, C, H, W) and axes that are not neighbours. There is no guessing of channels: an
# axis left out is named.
LAYOUTS = [
    ((23, 37), {}),
    ((19, 26, 3), {"channel_axis": -1}),
    ((17, 21, 4), {"axes": (0, 1)}),
    ((3, 18, 20, 3), {"axes": (1, 2)}),
    ((2, 3, 18, 21), {"axes": (-2, -1)}),
    ((15, 22, 2), {"channel_axis": 2}),
    ((16, 3, 19), {"axes": (0, 2)}),
]


def random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "u":
        return rng.integers(0, np.iinfo(dt).max, shape, endpoint=True, dtype=dt)
    if dt.kind == "i":
        return rng.integers(-1000, 1000, shape).astype(dt)
    return rng.random(shape).astype(dt)


def weights(k, dtype, seed, shape=None):
    """Non-symmetric weights; for integer images, taps whose absolute values sum to 1 (positive
    for unsigned ones), so that the results stay in range and the truncation is exercised."""
    rng = np.random.default_rng(seed)
    w = rng.random(shape or (k, k)) + 0.05
    if np.dtype(dtype).kind in "ui":
        w = w if np.dtype(dtype).kind == "u" else w * rng.choice([-1.0, 1.0], w.shape)
        return w / np.abs(w).sum()
    return w * 2 - 1


def bound(w, x, cval, dtype):
    """The documented bound 2·n·eps·Σ|w|·max|x| (cval counting as a sample): eps is float32's
    for float32 results, float64's (4x slack) for float64 results. Integer results (computed in
    float32 at most) get 3x float32's: the package widens a float32 sum by 4·n·2^-24 of itself
    before truncating it, so that a whole exact value truncates to itself."""
    M = max(float(np.abs(x).max(initial=0)), abs(cval), 1.0)
    dt = np.dtype(dtype)
    eps = 4 * 2.0**-53 if dt == np.float64 else 3 * 2.0**-24 if dt.kind in "ui" else 2.0**-24
    return 2 * np.size(w) * eps * float(np.abs(w).sum()) * M


def check(got, exact, tol, dtype):
    """``got`` is scipy's result of float64 value ``exact`` in ``dtype``: floats within ``tol``
    (and their own rounding) of it; integers the truncation (toward zero, modulo the type's
    range: out-of-range values wrap as scipy's C cast wraps them) of a value within ``tol`` of it,
    so that ``got`` equals scipy's but where the bound straddles a whole number."""
    dtype = np.dtype(dtype)
    assert isinstance(got, np.ndarray) and got.shape == exact.shape and got.dtype == dtype, (got.dtype, dtype)
    if dtype.kind == "f":
        err = np.abs(got.astype(np.float64) - exact)
        assert (err <= tol + np.abs(exact) * np.finfo(dtype).eps).all(), f"error {err.max()} over {tol}"
        return
    lo, hi = (np.trunc(exact + s * tol).astype(np.int64) for s in (-1, 1))
    d = (got.astype(np.int64) - lo) % 2 ** (8 * dtype.itemsize)
    bad = d > hi - lo
    assert not bad.any(), f"{np.count_nonzero(bad)} samples off, e.g. {got[bad][:3]} for {exact[bad][:3]} (tol {tol})"


def check_correlate(got, x, w, **kw):
    """``got`` against scipy's ``correlate(x, w, **kw)`` (its float64 value)."""
    exact = ndi.correlate(x, w, output=np.float64, **kw)
    check(got, exact, bound(w, x, kw.get("cval", 0.0), x.dtype), x.dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda v: str(v[0]))
def test_correlate_matches_scipy(mode, dtype, layout):
    shape, kw = layout
    x = random(shape, dtype, 1)
    cval = 200.0 if np.dtype(dtype).kind in "ui" else 0.25
    # scipy's correlate has no channel_axis: the other axes named.
    ref = {"axes": tuple(a for a in range(x.ndim) if a != kw["channel_axis"] % x.ndim)} if "channel_axis" in kw else kw
    for k in SIZES:
        w = weights(k, dtype, k)
        got = ferroconv.correlate(x, w, mode=mode, cval=cval, **kw)
        check_correlate(got, x, w, mode=mode, cval=cval, **ref)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16])
@pytest.mark.parametrize("cval", [0.0, 100.5, -3.0, 70000.0])
def test_integer_results_truncate_and_wrap_as_scipy(dtype, cval):
    # A cval between levels or outside the type's range is used as it is, as scipy uses it; the
    # result is truncated (toward zero), and a value past the type's range wraps as C's cast
    # wraps it (scipy's, on x86), never clamped.
    x = random((3, 21, 26, 3), dtype, 8)
    for w in (weights(3, dtype, 3), weights(7, dtype, 7), np.ones((3, 3)), np.array([[-1.0, 0.0, 2.0]]) * 1.7):
        kw = dict(mode="constant", cval=cval, axes=(1, 2))
        got = ferroconv.correlate(x, w, **kw)
        exact = ndi.correlate(x, w, output=np.float64, **kw)
        check(got, exact, bound(w, x, cval, dtype), dtype)
        if platform.machine() in ("x86_64", "AMD64"):
            # scipy's own cast, where C's double-to-integer conversion wraps.
            check(ndi.correlate(x, w, **kw), exact, 1e-9 * np.abs(exact).max(), dtype)


def test_integer_results_of_large_filters_stay_within_a_level_of_scipy():
    flat = np.full((40, 40), 40000, np.uint16)
    box = np.full((31, 31), 1 / 961)
    assert np.array_equal(ferroconv.correlate(flat, box), ndi.correlate(flat, box))
    x = random((23, 37), np.uint16, 1)
    w = weights(31, np.uint16, 31)
    assert np.abs(ferroconv.correlate(x, w).astype(np.int64) - ndi.correlate(x, w)).max() <= 1


def test_float64_is_computed_in_float64():
    # Samples of 1e8 and up: float32 would be off by whole units; float64 is scipy's to ~1e-15.
    x = 1e8 + random((40, 50), np.float64, 9) * 1000
    for w in (weights(5, np.float64, 10), np.ones((3, 3)) / 9):
        for mode in MODES:
            want = ndi.correlate(x, w, mode=mode, cval=0.5)
            assert np.abs(ferroconv.correlate(x, w, mode=mode, cval=0.5) - want).max() <= 1e-14 * 1e8 * np.abs(w).sum()
    big = random((30, 41), np.uint32, 11)
    check_correlate(ferroconv.correlate(big, np.ones((3, 3)) / 9), big, np.ones((3, 3)) / 9)
    got = ferroconv.gaussian_filter(x, 2.0)
    assert np.abs(got - ndi.gaussian_filter(x, 2.0)).max() <= 1e-14 * 1e8


@pytest.mark.parametrize("mode", MODES)
def test_convolve_flips_the_weights(mode):
    for dtype in (np.float32, np.float64):
        x = random((29, 33), dtype, 2)
        w = weights(5, dtype, 3)
        got = ferroconv.convolve(x, w, mode=mode)
        want = ndi.convolve(x.astype(np.float64), w, mode=mode)
        assert got.dtype == dtype and np.abs(got - want).max() <= bound(w, x, 0.0, dtype) + 1e-7


# (rows, cols, origin): thin, tall, even, off-centre and widest rectangles.
RECTANGLES = [(1, 15, (0, 0)), (15, 1, (3, 0)), (3, 7, (1, -2)), (7, 3, (0, 0)), (4, 6, (0, 0)),
              (2, 31, (-1, 0)), (6, 5, (2, -1)), (1, 2, (0, 0))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_rectangles_and_origins_match_scipy(mode, dtype):
    for i, (rows, cols, origin) in enumerate(RECTANGLES):
        for shape, kw in (((23, 37), {}), ((2, 19, 26, 3), {"axes": (1, 2)})):
            x = random(shape, dtype, 20 + i)
            w = weights(None, dtype, i, (rows, cols))
            cval = 200.0 if np.dtype(dtype).kind in "ui" else 0.25
            got = ferroconv.correlate(x, w, mode=mode, cval=cval, origin=origin, **kw)
            check_correlate(got, x, w, mode=mode, cval=cval, origin=origin, **kw)


@pytest.mark.parametrize("mode", MODES)
def test_convolve_moves_an_even_sides_centre_as_scipy(mode):
    x = random((29, 33), np.float32, 30)
    for rows, cols, origin in RECTANGLES:
        w = np.random.default_rng(rows * 100 + cols).random((rows, cols)) * 2 - 1
        got = ferroconv.convolve(x, w, mode=mode, origin=origin)
        want = ndi.convolve(x.astype(np.float64), w, mode=mode, origin=origin)
        assert np.abs(got - want).max() < 1e-5, (rows, cols, origin)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weights_of_three_axes_and_axes_apart(dtype):
    # A volume with 3-D weights (a sum of 2D filters of shifted slabs), weights on two axes apart
    # (moved next to each other and back), and 3-D weights on three of four axes.
    vol = random((9, 14, 17), dtype, 33)
    w3 = weights(None, dtype, 34, (3, 4, 5))
    for mode in MODES:
        check_correlate(ferroconv.correlate(vol, w3, mode=mode, cval=0.5, origin=(1, -1, 2)), vol, w3, mode=mode,
                        cval=0.5, origin=(1, -1, 2))
        w2 = weights(5, dtype, 35)
        check_correlate(ferroconv.correlate(vol, w2, mode=mode, axes=(0, 2)), vol, w2, mode=mode, axes=(0, 2))
    x4 = random((2, 9, 10, 11), dtype, 36)
    check_correlate(ferroconv.correlate(x4, w3, axes=(1, 2, 3)), x4, w3, axes=(1, 2, 3))


def test_cv_filter2d_anchor_is_an_origin():
    x = random((31, 40), np.float32, 31)
    w = np.random.default_rng(32).random((3, 6)) * 2 - 1
    # cv2's anchor (x, y) is a tap of the kernel: the one over the output pixel.
    got = cv.filter2d(x, -1, w, anchor=(1, 2), borderType=cv.BORDER_REFLECT_101)
    check_correlate(got, x, w, mode="mirror", origin=(2 - 1, 1 - 3))
    assert np.array_equal(cv.filter2d(x, -1, w), ferroconv.correlate(x, w, mode="mirror"))


@pytest.mark.parametrize("ddepth", [cv.CV_16S, cv.CV_32F, cv.CV_64F, cv.CV_8U, -1])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_cv_filter2d_depths_keep_counts_and_sign(ddepth, dtype):
    # cv2.filter2D's ddepth and delta: computed in sample counts (0-255 for uint8), delta added,
    # converted with rounding and saturation (OpenCV's arithmetic, not scipy's); H x W x C images
    # with interleaved channels; a derivative keeps its sign in CV_16S and CV_32F.
    x = random((3, 29, 33, 3), dtype, 40)[0]
    sobel = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])
    delta = 7.0 if ddepth != -1 else 0.0
    got = cv.filter2d(x, ddepth, sobel, delta=delta, borderType=cv.BORDER_REPLICATE)
    target = np.dtype(x.dtype if ddepth == -1 else {0: np.uint8, 3: np.int16, 5: np.float32, 6: np.float64}[ddepth])
    assert got.dtype == target and got.shape == x.shape
    exact = ndi.correlate(x.astype(np.float64), sobel.reshape(3, 3, 1), mode="nearest") + delta
    if target.kind in "ui":
        info = np.iinfo(target)
        want = np.clip(np.rint(exact), info.min, info.max)
        diff = np.abs(got.astype(np.float64) - want)
        near_half = np.abs(exact - np.floor(exact) - 0.5) < 1e-3 * max(1.0, float(np.abs(exact).max()) * 1e-4)
        assert np.all((diff == 0) | ((diff == 1) & near_half)), f"max diff {diff.max()}"
    else:
        assert np.abs(got - exact).max() <= 1e-5 * max(1.0, float(np.abs(exact).max()))
    if ddepth in (cv.CV_16S, cv.CV_32F) and dtype != np.float32:
        assert got.min() < -100 and got.max() > 100
    try:
        import cv2
    except ImportError:
        return
    # The (source, ddepth) pairs cv2.filter2D takes.
    supported = {np.uint8: (-1, 0, 3, 5, 6), np.uint16: (-1, 5, 6), np.float32: (-1, 5)}
    if ddepth in supported[dtype]:
        ref = cv2.filter2D(x, ddepth, sobel, delta=delta, borderType=cv2.BORDER_REPLICATE)
        assert np.abs(got.astype(np.float64) - ref).max() <= (1 if target.kind in "ui" else 1e-3)


def test_the_old_opencv_names_warn_and_are_cvs():
    for name in ("filter2d", "BORDER_REFLECT_101", "CV_16S"):
        with pytest.warns(DeprecationWarning, match=f"ferroconv.cv.{name}"):
            value = getattr(ferroconv, name)
        assert value is getattr(cv, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cv.BORDER_DEFAULT == cv.BORDER_REFLECT_101 and ferroconv.correlate is not None
    with pytest.raises(AttributeError):
        ferroconv.no_such_name  # noqa: B018


# numpy.pad's name for each mode's extension.
PAD = {"reflect": "symmetric", "mirror": "reflect", "nearest": "edge", "wrap": "wrap", "constant": "constant"}


def test_tiny_images_with_large_filters():
    # Filters more than twice the image's size: the image extended by numpy.pad, correlated
    # where no border is read (scipy's N-D `reflect` leaves its own 1D definition there: it
    # gives NaN on the (2, 3) planes below).
    for shape, axes in [((1, 1), (0, 1)), ((1, 7), (0, 1)), ((7, 1), (0, 1)), ((2, 3, 3), (0, 1)), ((3, 2, 3), (1, 2))]:
        x = random(shape, np.float32, 4)
        w = weights(31, np.float32, 5)
        full = np.expand_dims(w, tuple(a for a in range(x.ndim) if a not in axes))
        width = [(15, 15) if a in axes else (0, 0) for a in range(x.ndim)]
        inner = tuple(slice(15, -15) if a in axes else slice(None) for a in range(x.ndim))
        for mode in MODES:
            p = np.pad(x.astype(np.float64), width, mode=PAD[mode], **({"constant_values": 0.5} if mode == "constant" else {}))
            want = ndi.correlate(p, full, mode="constant")[inner]
            got = ferroconv.correlate(x, w, mode=mode, cval=0.5, axes=axes)
            assert np.abs(got - want).max() <= bound(w, x, 0.5, np.float32), (shape, mode)


def test_output_arrays_dtypes_and_strided_inputs():
    x = random((40, 50, 3), np.float32, 6)
    w = weights(5, np.float32, 7)
    view = x[3:30:2, 5:45]
    out = np.empty_like(view)
    assert ferroconv.correlate(view, w, mode="mirror", output=out, channel_axis=-1) is out
    check_correlate(out, np.ascontiguousarray(view), w, mode="mirror", axes=(0, 1))
    # An output of another dtype, a strided output, and a dtype: scipy's result in that dtype.
    out64 = np.full(view.shape, np.nan)
    assert ferroconv.correlate(view, w, mode="mirror", output=out64, channel_axis=-1) is out64
    assert np.abs(out64 - out).max() <= bound(w, view, 0.0, np.float32)
    base = np.full((30, 80, 3), np.nan, np.float32)
    strided = base[::2, ::2][: view.shape[0], : view.shape[1]]
    assert ferroconv.correlate(view, w, mode="mirror", output=strided, channel_axis=-1) is strided
    assert np.array_equal(strided, out) and np.isnan(base[1::2]).all()
    as_dtype = ferroconv.correlate(view, w, mode="mirror", output=np.float64, channel_axis=-1)
    assert as_dtype.dtype == np.float64 and np.array_equal(as_dtype, out64)
    u8 = random((20, 30), np.uint8, 8)
    into = np.zeros((20, 30), np.int16)
    ferroconv.correlate(u8, np.array([[-1.0, 0.0, 1.0]]), output=into)
    assert np.array_equal(into, ndi.correlate(u8, np.array([[-1.0, 0.0, 1.0]]), output=np.int16)) and into.min() < 0


def test_filter2d_plan_is_reused_and_filters_the_last_two_axes():
    w = weights(3, np.float32, 8)
    f = ferroconv.Filter2D(w, mode="nearest")
    x = random((64, 64), np.float32, 9)
    first = f(x)
    assert np.array_equal(first, f(x))
    check_correlate(first, x, w, mode="nearest")
    batch = random((2, 3, 20, 24), np.float32, 10)
    check_correlate(f(batch), batch, w, mode="nearest", axes=(2, 3))
    rgb = random((20, 24, 3), np.float32, 11)
    check_correlate(f(rgb, channel_axis=-1), rgb, w, mode="nearest", axes=(0, 1))
    check_correlate(f(rgb, axes=(0, 1)), rgb, w, mode="nearest", axes=(0, 1))
    u8 = random((20, 24), np.uint8, 12)
    check_correlate(f(u8), u8, w, mode="nearest")
    got = cv.filter2d(x, -1, w, borderType=cv.BORDER_REFLECT_101)
    check_correlate(got, x, w, mode="mirror")


def test_bad_input_raises_clear_errors():
    x = random((8, 8), np.float32, 10)
    w = np.ones((3, 3))
    with pytest.raises(TypeError):
        ferroconv.correlate(x > 0.5, w)
    with pytest.raises(RuntimeError, match=r"axes=\(-2, -1\)"):
        ferroconv.correlate(random((4, 8, 8), np.float32, 1), w)
    with pytest.raises(RuntimeError, match=r"axes=\(-2, -1\)"):
        ferroconv.correlate(random((2, 3, 8, 8), np.float32, 1), w)
    with pytest.raises(RuntimeError):
        ferroconv.correlate(x, np.ones(3))
    with pytest.raises(RuntimeError):
        ferroconv.correlate(np.ones(5, np.float32), w)
    with pytest.raises(ValueError, match="origin"):
        ferroconv.correlate(x, w, origin=(2, 0))
    with pytest.raises(ValueError, match="unknown mode"):
        ferroconv.correlate(x, w, mode="symmetric")
    with pytest.raises(RuntimeError, match="output"):
        ferroconv.correlate(x, w, output=np.empty((8, 9), np.float32))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        ferroconv.correlate(x, w, output=[[0.0] * 8] * 8)
    read_only = np.empty_like(x)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ferroconv.correlate(x, w, output=read_only)
    with pytest.raises(ValueError, match="channel_axis"):
        ferroconv.correlate(random((8, 8, 3), np.float32, 2), w, axes=(0, 2), channel_axis=2)
    with pytest.raises(ValueError, match="channel_axis"):
        ferroconv.sobel(random((8, 8, 3), np.float32, 2), 2, channel_axis=-1)
    with pytest.raises(RuntimeError):
        ferroconv.Filter2D(w)(np.ones(5, np.float32))


def test_filters_past_the_kernels_limits_equal_scipy():
    # Past the kernels' limits (a side over 127 not rank 1, over 1023 rank 1) on an image they
    # are not longer than: computed element-wise, scipy's result.
    rng = np.random.default_rng(3)
    wide = random((8, 1200), np.float32, 10)
    for w in (rng.random((3, 128)), np.ones((1, 1024)) / 1024):
        check_correlate(ferroconv.correlate(wide, w, mode="wrap"), wide, w, mode="wrap")


def test_weights_reaching_past_63_taps_through_an_origin_equal_scipy():
    w = np.random.default_rng(3).random((3, 126))
    x = random((8, 300), np.float32, 10)
    check_correlate(ferroconv.correlate(x, w, origin=(0, -62)), x, w, origin=(0, -62))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gaussian_uniform_sobel_match_scipy(mode, dtype):
    x = random((37, 45), dtype, 11)
    x64 = x.astype(np.float64)
    tol = 2e-5 if dtype == np.float32 else 1e-13
    cases = [
        (ferroconv.gaussian_filter(x, 1.0, mode=mode), ndi.gaussian_filter(x64, 1.0, mode=mode)),
        (ferroconv.gaussian_filter(x, (2.5, 0.7), mode=mode), ndi.gaussian_filter(x64, (2.5, 0.7), mode=mode)),
        (ferroconv.gaussian_filter(x, 3.0, truncate=2.0, mode=mode), ndi.gaussian_filter(x64, 3.0, truncate=2.0, mode=mode)),
        (ferroconv.gaussian_filter(x, 1.5, order=(1, 0), mode=mode), ndi.gaussian_filter(x64, 1.5, order=(1, 0), mode=mode)),
        (ferroconv.uniform_filter(x, 5, mode=mode), ndi.uniform_filter(x64, 5, mode=mode)),
        (ferroconv.uniform_filter(x, (3, 7), mode=mode), ndi.uniform_filter(x64, (3, 7), mode=mode)),
        (ferroconv.sobel(x, 0, mode=mode), ndi.sobel(x64, 0, mode=mode)),
        (ferroconv.sobel(x, -1, mode=mode), ndi.sobel(x64, -1, mode=mode)),
        (ferroconv.prewitt(x, 0, mode=mode), ndi.prewitt(x64, 0, mode=mode)),
        (ferroconv.laplace(x, mode=mode), ndi.laplace(x64, mode=mode)),
    ]
    for i, (got, want) in enumerate(cases):
        assert got.dtype == x.dtype and got.shape == x.shape
        assert np.abs(got - want).max() < tol, f"case {i}"


@pytest.mark.parametrize("mode", MODES)
def test_filters_past_31_run_when_rank_1(mode):
    # A Gaussian of sigma 10 (81 taps a side), a 1 x 101 box and 61 x 3 given as an outer
    # product: larger than any 2D kernel, rank 1, through the separable passes.
    x = random((70, 90), np.float32, 13)
    want = ndi.gaussian_filter(x.astype(np.float64), 10.0, mode=mode)
    assert np.abs(ferroconv.gaussian_filter(x, 10.0, mode=mode) - want).max() < 2e-5
    want = ndi.uniform_filter(x.astype(np.float64), (1, 101), mode=mode)
    assert np.abs(ferroconv.uniform_filter(x, (1, 101), mode=mode) - want).max() < 2e-5
    w = np.outer(np.linspace(-1, 1, 61), [1.0, 2.0, 1.0])
    check_correlate(ferroconv.correlate(x, w, mode=mode, cval=0.25), x, w, mode=mode, cval=0.25)


@pytest.mark.parametrize("mode", MODES)
def test_general_filters_past_31(mode):
    # Filters that are not rank 1, past 31 x 31 (on the GPU in blocks of taps on the tensor
    # cores; float64 element-wise): a 63 x 63 square, a 45 x 9 rectangle with an origin, on gray
    # and on RGB with its channels kept apart. float32 and float64 (of the same samples: one
    # scipy reference, its slowest part, for both).
    for shape, kw in (((70, 90), {}), ((41, 52, 3), {"axes": (0, 1)})):
        x = random(shape, np.float32, 21)
        for w, origin in ((weights(63, np.float32, 22), (0, 0)), (weights(45, np.float32, 23)[:, :9], (3, -2))):
            exact = ndi.correlate(x, w, output=np.float64, mode=mode, cval=0.25, origin=origin, **kw)
            for dtype in (np.float32, np.float64):
                got = ferroconv.correlate(x.astype(dtype), w, mode=mode, cval=0.25, origin=origin, **kw)
                check(got, exact, bound(w, x, 0.25, dtype), dtype)


def test_general_filters_past_31_on_integers_equal_scipy():
    # Once refused on the GPU (integer images ran there only up to 31 x 31): now scipy's result,
    # truncated, wherever it runs.
    for dtype in (np.uint8, np.int16):
        x = random((40, 50), dtype, 24)
        w = weights(45, dtype, 25)
        check_correlate(ferroconv.correlate(x, w), x, w)


def test_no_channel_guessing():
    # (H, W, 3) is a volume as scipy takes it: every axis filtered, the channels too, unless
    # channel_axis names them (then each channel is filtered alone, as scipy with axes=).
    x = random((30, 40, 3), np.float32, 12)
    x64 = x.astype(np.float64)
    assert np.abs(ferroconv.gaussian_filter(x, 1.5) - ndi.gaussian_filter(x64, 1.5)).max() < 2e-5
    apart = ferroconv.gaussian_filter(x, 1.5, channel_axis=-1)
    assert np.abs(apart - ndi.gaussian_filter(x64, 1.5, axes=(0, 1))).max() < 2e-5
    assert np.abs(apart - ndi.gaussian_filter(x64, 1.5)).max() > 1e-2
    assert np.abs(ferroconv.uniform_filter(x, 3, channel_axis=2) - ndi.uniform_filter(x64, 3, axes=(0, 1))).max() < 2e-5
    assert np.abs(ferroconv.sobel(x, 2) - ndi.sobel(x64, 2)).max() < 2e-5
    # A size of at most 1 leaves the axis as it is, as scipy leaves it (a new array); NaN raises.
    same = ferroconv.uniform_filter(x, 0)
    assert np.array_equal(same, x) and not np.shares_memory(same, x)
    with pytest.raises(ValueError, match="size"):
        ferroconv.uniform_filter(x, float("nan"))


def test_help_lists_the_modes_and_the_axes_rule():
    doc = ferroconv.correlate.__doc__ + ferroconv.__doc__
    for word in MODES + ["axes", "channel_axis", "scipy"]:
        assert word in doc, word
    assert "last two" in ferroconv.Filter2D.__doc__ and "filter2D" in cv.__doc__ + cv.filter2d.__doc__


def test_large_results_reuse_the_memory_of_dead_ones_and_never_of_live_ones():
    # Results of 1 MiB and more come from a pool of results that have died: a live result is
    # never written again, and a dead one's pages are handed out for the next result of its size.
    plan = ferroconv.Filter2D(weights(3, np.float32, 30), mode="mirror")
    x = random((4, 512, 600), np.float32, 31)
    first = plan(x)
    kept = first.copy()
    second = plan(x * 2)
    assert not np.shares_memory(first, second)
    assert np.array_equal(first, kept) and np.allclose(second, kept * 2, rtol=1e-6, atol=1e-6)
    address = first.__array_interface__["data"][0]
    del first
    third = plan(x)
    assert third.__array_interface__["data"][0] == address
    assert np.array_equal(third, kept) and third.flags.writeable and third.flags.c_contiguous
    u8 = random((300, 900), np.uint8, 32)
    check_correlate(plan(u8), u8, weights(3, np.float32, 30), mode="mirror")
    # The pool's allocator itself: a dead array's memory comes back for the next of its size.
    from ferroconv._numpy import _host_empty

    a = _host_empty((1024, 1024), np.float32)
    ptr = a.ctypes.data
    del a
    assert _host_empty((1024, 1024), np.float32).ctypes.data == ptr
