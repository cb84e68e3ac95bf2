"""ferroconv on numpy arrays against scipy.ndimage.correlate: every mode, dtype, axes layout and
size, with weights that are not symmetric. Runs on the GPU when there is one, else on the CPU."""

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
DTYPES = [np.uint8, np.uint16, np.float32, np.float64]
SIZES = [1, 3, 7, 31]
# (shape, axes): gray, RGB, RGBA, a batch of RGB, PyTorch's (N, C, H, W), 2 channels, explicit axes.
LAYOUTS = [
    ((23, 37), None),
    ((19, 26, 3), None),
    ((17, 21, 4), None),
    ((3, 18, 20, 3), None),
    ((2, 3, 18, 21), None),
    ((15, 22, 2), None),
    ((16, 3, 19), (0, 2)),
]


def random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)
    return rng.random(shape).astype(dtype)


def weights(k, dtype, seed):
    """Non-symmetric weights; for integer images, a normalized filter of positive taps (so the
    results stay in range and the rounding is exercised)."""
    rng = np.random.default_rng(seed)
    w = rng.random((k, k)) + 0.05
    if np.dtype(dtype).kind == "u":
        return w / w.sum()
    return w * 2 - 1


# numpy.pad's name for each mode's extension.
PAD = {"reflect": "symmetric", "mirror": "reflect", "nearest": "edge", "wrap": "wrap", "constant": "constant"}


def reference(x, w, mode, cval, axes, padded=False, origin=(0, 0)):
    """scipy on float64, on the image axes only (weights of size 1 on the others), rounded and
    clamped for integers as ferroconv documents. `padded`: the image extended by numpy.pad and
    correlated where no border is read, for filters more than twice the image's size, where
    scipy's 2D `reflect` leaves its own 1D definition (and numpy.pad's)."""
    nd = x.ndim
    if axes is None:
        if nd >= 3 and x.shape[-1] <= 4:
            axes = (nd - 3, nd - 2)
        else:
            axes = (nd - 2, nd - 1)
    shape = [1] * nd
    shape[axes[0]], shape[axes[1]] = w.shape
    if padded:
        r = w.shape[0] // 2
        width = [(0, 0)] * nd
        width[axes[0]] = width[axes[1]] = (r, r)
        extra = {"constant_values": cval} if mode == "constant" else {}
        p = np.pad(x.astype(np.float64), width, mode=PAD[mode], **extra)
        inner = [slice(None)] * nd
        inner[axes[0]] = inner[axes[1]] = slice(r, -r if r else None)
        y = ndi.correlate(p, w.reshape(shape), mode="constant")[tuple(inner)]
    else:
        full = [0] * nd
        full[axes[0]], full[axes[1]] = origin
        y = ndi.correlate(x.astype(np.float64), w.reshape(shape), mode=mode, cval=cval, origin=full)
    if np.dtype(x.dtype).kind == "u":
        info = np.iinfo(x.dtype)
        return np.clip(np.rint(y), info.min, info.max), y
    return y, y


def check(got, x, w, mode, cval, axes, padded=False, origin=(0, 0)):
    want, exact = reference(x, w, mode, cval, axes, padded, origin)
    assert got.shape == x.shape and got.dtype == x.dtype
    # The library's tolerance: f32 accumulation of k² products, in the samples' units.
    scale = np.abs(w).sum() * max(float(np.abs(x).max()), 1.0)
    tol = 2 * w.size * 2.0**-24 * scale + 2.0**-24
    if np.dtype(x.dtype).kind == "u":
        diff = np.abs(got.astype(np.float64) - want)
        # One level off only where the exact value lies within the tolerance of a .5 boundary.
        near_half = np.abs(exact - np.floor(exact) - 0.5) <= tol
        assert diff.max() <= 1 and np.all((diff == 0) | near_half), f"max diff {diff.max()}"
    else:
        err = np.abs(got.astype(np.float64) - want).max()
        assert err <= tol, f"error {err} over tolerance {tol}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_correlate_matches_scipy(mode, dtype, layout):
    shape, axes = layout
    x = random(shape, dtype, 1)
    for k in SIZES:
        w = weights(k, dtype, k)
        cval = 200.0 if np.dtype(dtype).kind == "u" else 0.25
        got = ferroconv.correlate(x, w, mode=mode, cval=cval, axes=axes)
        check(got, x, w, mode, cval, axes)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("cval", [0.0, 100.5, -3.0, 70000.0])
def test_constants_an_integer_type_cannot_hold(dtype, cval):
    # A cval between levels or outside the type's range is used as it is, as scipy uses it
    # (computed in float32, then rounded and clamped), not rounded to a level first.
    x = random((3, 21, 26, 3), dtype, 8)
    for k in (3, 7):
        w = weights(k, dtype, k)
        check(ferroconv.correlate(x, w, mode="constant", cval=cval), x, w, "constant", cval, None)


@pytest.mark.parametrize("mode", MODES)
def test_convolve_flips_the_weights(mode):
    x = random((29, 33), np.float32, 2)
    w = weights(5, np.float32, 3)
    got = ferroconv.convolve(x, w, mode=mode)
    want = ndi.convolve(x.astype(np.float64), w, mode=mode)
    assert np.abs(got - want).max() < 1e-5


# (rows, cols, origin): thin, tall, even, off-centre and widest rectangles.
RECTANGLES = [(1, 15, (0, 0)), (15, 1, (3, 0)), (3, 7, (1, -2)), (7, 3, (0, 0)), (4, 6, (0, 0)),
              (2, 31, (-1, 0)), (6, 5, (2, -1)), (1, 2, (0, 0))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_rectangles_and_origins_match_scipy(mode, dtype):
    for i, (rows, cols, origin) in enumerate(RECTANGLES):
        for shape, axes in (((23, 37), None), ((2, 19, 26, 3), None)):
            x = random(shape, dtype, 20 + i)
            rng = np.random.default_rng(i)
            w = rng.random((rows, cols)) + 0.05
            w = w / w.sum() if np.dtype(dtype).kind == "u" else w * 2 - 1
            cval = 200.0 if np.dtype(dtype).kind == "u" else 0.25
            got = ferroconv.correlate(x, w, mode=mode, cval=cval, origin=origin)
            check(got, x, w, mode, cval, axes, origin=origin)


@pytest.mark.parametrize("mode", MODES)
def test_convolve_moves_an_even_sides_centre_as_scipy(mode):
    x = random((29, 33), np.float32, 30)
    for rows, cols, origin in RECTANGLES:
        w = np.random.default_rng(rows * 100 + cols).random((rows, cols)) * 2 - 1
        got = ferroconv.convolve(x, w, mode=mode, origin=origin)
        want = ndi.convolve(x.astype(np.float64), w, mode=mode, origin=origin)
        assert np.abs(got - want).max() < 1e-5, (rows, cols, origin)


def test_filter2d_anchor_is_an_origin():
    x = random((31, 40), np.float32, 31)
    w = np.random.default_rng(32).random((3, 6)) * 2 - 1
    # cv2's anchor (x, y) is a tap of the kernel: the one over the output pixel.
    got = ferroconv.filter2d(x, -1, w, anchor=(1, 2), borderType=ferroconv.BORDER_REFLECT_101)
    check(got, x, w, "mirror", 0.0, None, origin=(2 - 1, 1 - 3))
    assert np.array_equal(ferroconv.filter2d(x, -1, w), ferroconv.correlate(x, w, mode="mirror"))


@pytest.mark.parametrize("ddepth", [ferroconv.CV_16S, ferroconv.CV_32F, ferroconv.CV_64F, ferroconv.CV_8U, -1])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_filter2d_depths_keep_counts_and_sign(ddepth, dtype):
    # cv2.filter2D's ddepth and delta: computed in sample counts (0-255 for uint8), delta added,
    # converted with rounding and saturation; a derivative keeps its sign in CV_16S and CV_32F.
    x = random((3, 29, 33, 3), dtype, 40)[0]
    sobel = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])
    delta = 7.0 if ddepth != -1 else 0.0
    got = ferroconv.filter2d(x, ddepth, sobel, delta=delta, borderType=ferroconv.BORDER_REPLICATE)
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
    if ddepth in (ferroconv.CV_16S, ferroconv.CV_32F) and dtype != np.float32:
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


def test_tiny_images_with_large_filters():
    for shape in [(1, 1), (1, 7), (7, 1), (2, 3, 3)]:
        x = random(shape, np.float32, 4)
        for mode in MODES:
            w = weights(31, np.float32, 5)
            check(ferroconv.correlate(x, w, mode=mode), x, w, mode, 0.0, None, padded=True)


def test_output_and_strided_inputs():
    x = random((40, 50, 3), np.float32, 6)
    w = weights(5, np.float32, 7)
    view = x[3:30:2, 5:45]
    out = np.empty_like(view)
    back = ferroconv.correlate(view, w, mode="mirror", output=out)
    assert back is out
    check(out, np.ascontiguousarray(view), w, "mirror", 0.0, None)


def test_plan_is_reused_and_cv2_names():
    w = weights(3, np.float32, 8)
    f = ferroconv.Filter2D(w, mode="nearest")
    x = random((64, 64), np.float32, 9)
    first = f(x)
    assert np.array_equal(first, f(x))
    check(first, x, w, "nearest", 0.0, None)
    got = ferroconv.filter2d(x, -1, w, borderType=ferroconv.BORDER_REFLECT_101)
    check(got, x, w, "mirror", 0.0, None)


def test_bad_input_raises_clear_errors():
    x = random((8, 8), np.float32, 10)
    with pytest.raises(TypeError, match="unsupported dtype"):
        ferroconv.correlate(x.astype(np.int32), np.ones((3, 3)))
    rng = np.random.default_rng(3)
    # Filters past the library's limits on an image they are not longer than (a longer filter
    # is folded to the image's size first: see test_fold.py).
    wide = random((8, 1200), np.float32, 10)
    with pytest.raises(ValueError, match="at most 63 .* for a filter that is not rank-1"):
        ferroconv.correlate(wide, rng.random((3, 128)))
    with pytest.raises(ValueError, match="each side from 1 to 127, or to 1023"):
        ferroconv.correlate(wide, np.ones((1, 1024)))
    with pytest.raises(ValueError, match="at most 63"):
        ferroconv.correlate(wide, rng.random((3, 126)), origin=(0, -62))
    with pytest.raises(ValueError, match="origin 2 down is outside"):
        ferroconv.correlate(x, np.ones((3, 3)), origin=(2, 0))
    with pytest.raises(ValueError, match="2D array"):
        ferroconv.correlate(x, np.ones(3))
    with pytest.raises(ValueError, match="unknown mode"):
        ferroconv.correlate(x, np.ones((3, 3)), mode="symmetric")
    with pytest.raises(ValueError, match="output must be"):
        ferroconv.correlate(x, np.ones((3, 3)), output=np.empty((8, 9), np.float32))
    with pytest.raises(ValueError):
        ferroconv.correlate(wide, rng.random((129, 129)))
    with pytest.raises(ValueError, match="at least 2 axes"):
        ferroconv.correlate(np.ones(5, np.float32), np.ones((3, 3)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gaussian_uniform_sobel_match_scipy(mode, dtype):
    x = random((37, 45), dtype, 11)
    cases = [
        (ferroconv.gaussian_filter(x, 1.0, mode=mode), ndi.gaussian_filter(x.astype(np.float64), 1.0, mode=mode)),
        (ferroconv.gaussian_filter(x, (2.5, 0.7), mode=mode), ndi.gaussian_filter(x.astype(np.float64), (2.5, 0.7), mode=mode)),
        (ferroconv.gaussian_filter(x, 3.0, truncate=2.0, mode=mode), ndi.gaussian_filter(x.astype(np.float64), 3.0, truncate=2.0, mode=mode)),
        (ferroconv.uniform_filter(x, 5, mode=mode), ndi.uniform_filter(x.astype(np.float64), 5, mode=mode)),
        (ferroconv.uniform_filter(x, (3, 7), mode=mode), ndi.uniform_filter(x.astype(np.float64), (3, 7), mode=mode)),
        (ferroconv.sobel(x, 0, mode=mode), ndi.sobel(x.astype(np.float64), 0, mode=mode)),
        (ferroconv.sobel(x, -1, mode=mode), ndi.sobel(x.astype(np.float64), -1, mode=mode)),
    ]
    for i, (got, want) in enumerate(cases):
        assert got.dtype == x.dtype and got.shape == x.shape
        assert np.abs(got - want).max() < 2e-5, f"case {i}"


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
    check(ferroconv.correlate(x, w, mode=mode, cval=0.25), x, w, mode, 0.25, None)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_general_filters_past_31(mode, dtype):
    # Filters that are not rank 1, past 31 x 31 (on the GPU in blocks of taps on the tensor
    # cores): a 63 x 63 square, a 45 x 9 rectangle with an origin, on gray and RGB.
    for shape in ((70, 90), (41, 52, 3)):
        x = random(shape, dtype, 21)
        for w, origin in ((weights(63, dtype, 22), (0, 0)), (weights(45, dtype, 23)[:, :9], (3, -2))):
            got = ferroconv.correlate(x, w, mode=mode, cval=0.25, origin=origin)
            check(got, x, w, mode, 0.25, None, origin=origin)


def test_general_filters_past_31_on_integers_run_on_the_cpu_only():
    x = random((40, 50), np.uint8, 24)
    w = weights(45, np.uint8, 25)
    if ferroconv.gpu_available():
        with pytest.raises(ValueError, match="only f32 images run on the GPU"):
            ferroconv.correlate(x, w)
    else:
        check(ferroconv.correlate(x, w), x, w, "reflect", 0.0, None)


def test_gaussian_on_rgb_filters_only_the_image_axes():
    x = random((30, 40, 3), np.float32, 12)
    got = ferroconv.gaussian_filter(x, 1.5)
    want = ndi.gaussian_filter(x.astype(np.float64), (1.5, 1.5, 0))
    assert np.abs(got - want).max() < 2e-5
    # A size of at most 1 leaves the axis as it is, as scipy leaves it; NaN raises.
    assert np.array_equal(ferroconv.uniform_filter(x, 0), x)
    with pytest.raises(ValueError, match="size"):
        ferroconv.uniform_filter(x, float("nan"))
    with pytest.raises(ValueError, match="image axis"):
        ferroconv.sobel(x, 2)


def test_help_lists_the_modes_and_the_axes_rule():
    doc = ferroconv.correlate.__doc__ + ferroconv.__doc__
    for word in MODES + ["last two axes", "at most 4 entries"]:
        assert word in doc, word


def test_large_results_reuse_the_memory_of_dead_ones_and_never_of_live_ones():
    # Results of 1 MiB and more come from a pool of results that have died: a live result is
    # never written again, and a dead one's pages are handed out for the next result of its size.
    plan = ferroconv.Filter2D(weights(3, np.float32, 30), mode="mirror")
    x = random((512, 600, 4), np.float32, 31)
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
    check(plan(random((300, 900), np.uint8, 32)), random((300, 900), np.uint8, 32), weights(3, np.float32, 30), "mirror", 0.0, None)
