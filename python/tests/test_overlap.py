"""An ``output=`` that overlaps the input (the input itself, a view shifted by a row, or the same
memory as another dtype) gets the result computed apart and copied in: the same as with an output
of its own, which is scipy's; in every front door (the 13 functions, Filter2D, cv.filter2d), for
float32, float64 and integers, on arrays of 2 to 4 axes."""

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv
from ferroconv import cv

DTYPES = [np.float32, np.float64, np.uint8, np.uint16, np.int16]
# Shapes, and the axes their 2D weights filter.
LAYOUTS = [((256, 256), {}), ((40, 52, 3), dict(axes=(0, 1))), ((3, 30, 41), dict(axes=(-2, -1))),
           ((2, 33, 29, 4), dict(axes=(1, 2))), ((21, 26, 2), dict(channel_axis=-1))]
# The first arguments of each function.
ARGS = {"correlate": "w", "convolve": "w", "correlate1d": ([1.0, -2.0, 0.5, 0.25],), "convolve1d": ([1.0, -2.0, 0.5, 0.25],),
        "gaussian_filter": (1.5,), "gaussian_filter1d": (2.0,), "uniform_filter": (3,), "uniform_filter1d": (4,),
        "sobel": (0,), "prewitt": (1,), "laplace": (), "gaussian_laplace": (1.2,), "gaussian_gradient_magnitude": (1.2,)}


def random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        top = min(np.iinfo(dtype).max, 1000)
        return rng.integers(0, top, shape, endpoint=True).astype(dtype)
    return rng.random(shape).astype(dtype)


def weights(k, dtype, seed, ndim=2):
    """k x k weights, positive and summing to at most 1 for integers (no wrap-around)."""
    w = np.random.default_rng(seed).random((k,) * ndim)
    return w / w.sum() if np.dtype(dtype).kind in "iu" else w - 0.4


def scipys(got, x, call, **kw):
    """``got`` is scipy's ``call(x, **kw)`` (within float32's bound, or a level for integers)."""
    want = call(x, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1 if want.dtype.kind in "iu" else 1e-5 * max(1.0, float(np.abs(want).max())) * (10 if want.dtype == np.float32 else 1)
    assert np.abs(got.astype(np.float64) - want).max() <= tol


def shifted(shape, dtype, seed, axis, sign):
    """(input, output): views of one buffer, the output one row along ``axis`` after (or before)
    the input: each row written is read again as the next row's input."""
    full = list(shape)
    full[axis] += 1
    buf = random(tuple(full), dtype, seed)
    a, b = [slice(None)] * len(shape), [slice(None)] * len(shape)
    a[axis], b[axis] = slice(0, -1), slice(1, None)
    x, out = (buf[tuple(a)], buf[tuple(b)]) if sign > 0 else (buf[tuple(b)], buf[tuple(a)])
    assert np.may_share_memory(x, out)
    return x, out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_correlate_into_its_own_input(dtype, layout):
    shape, axes = layout
    x, w = random(shape, dtype, 1), weights(5, dtype, 2)
    original = x.copy()
    apart = ferroconv.correlate(original, w, mode="nearest", **axes)
    assert ferroconv.correlate(x, w, mode="nearest", output=x, **axes) is x
    assert np.array_equal(x, apart)
    scipys(x, original, ndi.correlate, weights=w, mode="nearest", axes=axes.get("axes", (0, 1)) if axes else None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_output_a_view_shifted_by_one_row(dtype, layout):
    shape, axes = layout
    w = weights(7, dtype, 4)
    scipy_axes = axes.get("axes", (0, 1)) if axes else None
    for seed, sign, mode in ((3, 1, "mirror"), (5, -1, "wrap")):
        row = (axes.get("axes") or (0, 1))[0] if axes else 0
        x, out = shifted(shape, dtype, seed, row, sign)
        original = x.copy()
        apart = ferroconv.correlate(original, w, mode=mode, **axes)
        assert ferroconv.correlate(x, w, mode=mode, output=out, **axes) is out
        assert np.array_equal(out, apart)
        scipys(out, original, ndi.correlate, weights=w, mode=mode, axes=scipy_axes)


def front_door(name, w):
    """(call(x, output=None), the first arguments scipy takes) of a function, Filter2D or cv.filter2d."""
    if name == "Filter2D":
        f = ferroconv.Filter2D(w, mode="mirror")
        return (lambda x, output=None: f(x, output)), None
    if name == "cv.filter2d":
        return (lambda x, output=None: cv.filter2d(x, -1, w, dst=output)), None
    first = (w,) if ARGS[name] == "w" else ARGS[name]
    return (lambda x, output=None: getattr(ferroconv, name)(x, *first, output=output)), first


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
@pytest.mark.parametrize("name", list(ARGS) + ["Filter2D", "cv.filter2d"])
def test_every_front_door_in_place_and_shifted(name, dtype):
    """Each function's result into its own input, and into a view one row along (either way): the
    same as into an output of its own, which is scipy's."""
    if name == "cv.filter2d" and dtype == np.int16:
        pytest.skip("OpenCV's filter2D here takes uint8, uint16, float32 and float64")
    for shape in ((31, 37), (6, 17, 19)):
        if name == "cv.filter2d" and len(shape) == 3:
            continue  # OpenCV's images: 2D, or channels last
        call, first = front_door(name, weights(3, dtype, 7, 2 if name in ("Filter2D", "cv.filter2d") else len(shape)))
        x = random(shape, dtype, 8)
        original = x.copy()
        apart = call(original)
        assert call(x, output=x) is x and np.array_equal(x, apart), name
        for sign in (1, -1):
            y, out = shifted(shape, dtype, 9, 0, sign)
            original = y.copy()
            assert call(y, output=out) is out and np.array_equal(out, call(original)), (name, sign)
        if first is not None and dtype == np.float64:
            want = getattr(ndi, name)(original, *first)
            assert np.abs(call(original) - want).max() <= 1e-9 * max(1.0, np.abs(want).max())


@pytest.mark.parametrize("name", ["correlate", "gaussian_filter", "uniform_filter", "sobel"])
def test_an_output_of_another_dtype_over_the_same_memory(name):
    """A float32 input, and an int32 (or uint8) output in its very bytes: scipy's result of the
    input as it was, in the output's dtype."""
    x = random((24, 32), np.float32, 10) * 100
    first = {"correlate": dict(weights=weights(3, np.uint8, 11)), "gaussian_filter": dict(sigma=1.5),
             "uniform_filter": dict(size=3), "sobel": dict(axis=0)}[name]
    for out_dtype in (np.int32,) if name == "sobel" else (np.int32, np.uint8):
        y = x.copy()
        out = y.view(np.int32) if out_dtype == np.int32 else y.view(np.uint8)[:, ::4]
        assert np.may_share_memory(y, out)
        apart = getattr(ferroconv, name)(x, output=np.dtype(out_dtype), **first)
        assert getattr(ferroconv, name)(y, output=out, **first) is out
        assert np.array_equal(out, apart)
        scipys(out, x, getattr(ndi, name), output=np.dtype(out_dtype), **first)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_gaussian_in_place_and_a_plan_into_its_input(dtype):
    img = random((64, 80, 3), dtype, 6)
    want = ferroconv.gaussian_filter(img, 3, channel_axis=-1)
    exact = ndi.gaussian_filter(img, 3, axes=(0, 1))
    assert ferroconv.gaussian_filter(img, 3, output=img, channel_axis=-1) is img
    assert np.array_equal(img, want)
    assert np.abs(img.astype(np.float64) - exact).max() <= (1 if np.dtype(dtype).kind == "u" else 1e-5)
    f = ferroconv.Filter2D(weights(3, dtype, 7))
    y = random((50, 60), dtype, 8)
    want = f(y)
    assert f(y, output=y) is y and np.array_equal(y, want)


def test_the_repeated_call_without_output_is_unchanged():
    # The short way (no output) keeps returning fresh results, never the input's memory.
    f = ferroconv.Filter2D(weights(3, np.float32, 9))
    x = random((128, 128), np.float32, 10)
    first = f(x)
    second = f(x)
    assert not np.may_share_memory(first, x) and not np.may_share_memory(second, first)
    assert np.array_equal(first, second)
    for name, args in (("gaussian_filter", (0,)), ("uniform_filter", (1,)), ("correlate", (np.ones((1, 1)),))):
        same = getattr(ferroconv, name)(x, *args)  # a filter that changes nothing: still a new array
        assert np.array_equal(same, x) and not np.may_share_memory(same, x)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_a_kept_plan_into_outputs_once_its_short_way_is_known(dtype):
    # After calls without output= (the short way known for the shape), outputs of every kind: a
    # packed one apart, the input itself, a view a row off, a strided one, one of another dtype.
    f = ferroconv.Filter2D(weights(5, dtype, 11), mode="nearest")
    x = random((61, 47, 3), dtype, 12)
    want = f(x, channel_axis=-1)
    assert np.array_equal(f(x, channel_axis=-1), want)
    apart = np.full_like(x, 7)
    assert f(x, apart, channel_axis=-1) is apart and np.array_equal(apart, want)
    y = x.copy()
    assert f(y, y, channel_axis=-1) is y and np.array_equal(y, want)
    for axis, sign in ((0, 1), (0, -1), (1, 1)):
        a, out = shifted(x.shape, dtype, 13, axis, sign)
        expect = f(a.copy(), channel_axis=-1)
        assert f(a, out, channel_axis=-1) is out and np.array_equal(out, expect)
    strided = np.zeros((61, 94, 3), dtype)[:, ::2]
    f(x, strided, channel_axis=-1)
    assert np.array_equal(strided, want)
    wide = np.zeros(x.shape, np.float64)
    with pytest.raises(RuntimeError, match="output shape"):  # scipy's error
        f(x, wide[..., :2], channel_axis=-1)
    scipys(f(x, wide, channel_axis=-1), x.astype(np.float64), ndi.correlate, weights=f.weights[..., None], mode="nearest")
