"""Every parameter checked before any work: a one-line TypeError, ValueError or RuntimeError (where
scipy.ndimage raises RuntimeError) naming the argument where scipy raises; scipy's result where it
accepts the value. Deliberate differences: NaN for any parameter, an infinite sigma or size, an
infinite cval (or one past float32's range) and weights that are not finite raise ValueError.
Big-endian arrays accepted; outputs of another kind named; Filter2D checked when made and
read-only; the OpenCV names in ferroconv.cv (the old top-level ones warn)."""

import math
import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv
from ferroconv import _front, cv

NAN, INF = float("nan"), float("inf")
RAISES = (TypeError, ValueError, RuntimeError)
NAMES = ["correlate", "convolve", "correlate1d", "convolve1d", "gaussian_filter", "gaussian_filter1d", "uniform_filter",
         "uniform_filter1d", "sobel", "prewitt", "laplace", "gaussian_laplace", "gaussian_gradient_magnitude"]
W33 = np.arange(9.0).reshape(3, 3) - 4
# The first arguments of a plain call of each function on a 2D array.
ARGS = {"correlate": (W33,), "convolve": (W33,), "correlate1d": ([1.0, -2.0, 0.5],), "convolve1d": ([1.0, -2.0, 0.5],),
        "gaussian_filter": (1.5,), "gaussian_filter1d": (1.5,), "uniform_filter": (3,), "uniform_filter1d": (3,),
        "gaussian_laplace": (1.2,), "gaussian_gradient_magnitude": (1.2,)}


def image(shape=(24, 31), dtype=np.float32, seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def close(got, want, tol=2e-5):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    assert np.abs(got.astype(want.dtype) - want).max() <= tol * max(1.0, float(np.abs(want).max()))


@pytest.fixture(autouse=True)
def no_kept_programs():
    """Each test from no kept program: one kept for a parameter equal to a call's (0 for 0.0) skips
    that call's checks (test_checks_do_not_depend_on_earlier_calls, an xfail)."""
    getattr(_front, "_programs", {}).clear()


def raises_one_line(error, word, call, *args, **kwargs):
    with pytest.raises(error, match=word) as e:
        call(*args, **kwargs)
    assert "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "kwargs, error, word",
    [
        (dict(sigma=NAN), ValueError, "sigma"),
        (dict(sigma=(1.0, NAN)), ValueError, "sigma"),
        (dict(sigma=INF), ValueError, "sigma"),
        (dict(sigma="1"), TypeError, "sigma"),
        (dict(sigma=None), TypeError, "sigma"),
        (dict(sigma=1 + 2j), TypeError, "sigma"),
        (dict(sigma=[1.0]), RuntimeError, "sigma"),  # scipy: a sequence not of the input's rank
        (dict(sigma=[1.0, 2.0, 3.0]), RuntimeError, "sigma"),
        (dict(sigma=1.0, radius=-2), ValueError, "radius"),
        (dict(sigma=1.0, radius=3.7), ValueError, "radius"),
        (dict(sigma=1.0, radius=3.0), ValueError, "radius"),
        (dict(sigma=1.0, radius="3"), ValueError, "radius"),
        (dict(sigma=1.0, radius=(1, 2, 3)), RuntimeError, "radius"),
        (dict(sigma=1.0, order=-1), ValueError, "order"),
        (dict(sigma=1.0, order=1.0), TypeError, "order"),
        (dict(sigma=1.0, order=1.5), TypeError, "order"),
        (dict(sigma=1.0, order="1"), TypeError, "order"),
        (dict(sigma=1.0, order=(0, 0.5)), TypeError, "order"),
        (dict(sigma=1.0, truncate=NAN), ValueError, "truncate"),
        (dict(sigma=1.0, truncate=INF), ValueError, "truncate"),
        (dict(sigma=1.0, truncate="4"), TypeError, "truncate"),
        # int(-1.5 + 0.5) = -1: scipy raises for a negative radius.
        (dict(sigma=1.5, truncate=-1.0), ValueError, "truncate"),
        (dict(sigma=1.0, mode="symmetric"), (ValueError, RuntimeError), "mode"),
        (dict(sigma=1.0, mode=None), (TypeError, RuntimeError), "mode"),
        (dict(sigma=1.0, mode=("wrap",)), RuntimeError, "mode"),
        (dict(sigma=1.0, cval=NAN), ValueError, "cval"),
        (dict(sigma=1.0, mode="constant", cval=INF), ValueError, "cval"),
        (dict(sigma=1.0, mode="constant", cval=1e39), ValueError, "cval"),
        (dict(sigma=1.0, cval="0"), TypeError, "cval"),
        (dict(sigma=1.0, axes=(0, 0.5)), TypeError, "axes"),
        (dict(sigma=1.0, axes=(0, 0)), ValueError, "axes"),
        (dict(sigma=1.0, axes=(0, 2)), np.exceptions.AxisError, "axes"),
        (dict(sigma=1.0, channel_axis=2), np.exceptions.AxisError, "channel_axis"),
        (dict(sigma=1.0, channel_axis=0, axes=(0,)), ValueError, "channel_axis"),
        (dict(sigma=1.0, stream=1.5), TypeError, "stream"),
    ],
)
def test_gaussian_parameters_raise_one_line_errors_naming_them(kwargs, error, word):
    raises_one_line(error, word, ferroconv.gaussian_filter, image(), **kwargs)


@pytest.mark.parametrize(
    "sigma, extra",
    [
        (0, {}), (-1, {}), (-0.5, {}), (1e-16, {}), ((0, 2.0), {}), ((-3, 1.5), {}), (True, {}),
        (np.float32(1.5), {}), (np.array([1.0, 0.5]), {}), (1.0, dict(truncate=-1.0)), (1.0, dict(truncate=0.0)),
        (2.0, dict(radius=0)), (2.0, dict(radius=np.int64(3))), (2.0, dict(radius=(1, 5))), (1.0, dict(truncate=1e-9)),
        (0, dict(radius=-2)),  # scipy leaves the axis, and its radius, alone
        (1.5, dict(order=np.int64(1))), (1.5, dict(order=(0, 2))), (1.5, dict(order=[3, 1])), (1.5, dict(truncate=True)),
        (2.0, dict(axes=(1,), order=1)), (2.0, dict(axes=np.int64(0))), ((1.0, 3.0), dict(axes=(1, 0), radius=(2, 4))),
    ],
)
def test_sigmas_scipy_accepts_give_scipys_result(sigma, extra):
    x = image(dtype=np.float64)
    close(ferroconv.gaussian_filter(x, sigma, **extra), ndi.gaussian_filter(x, sigma, **extra))


def test_gaussians_on_n_d_arrays_filter_every_axis_or_axes():
    x = image((5, 7, 6), np.float64)
    for sigma, extra in ((1.2, {}), ((1.0, 0.0, 2.0), dict(order=(1, 0, 0))), ((1.0, 2.0), dict(axes=(2, 0), mode=("wrap", "constant")))):
        close(ferroconv.gaussian_filter(x, sigma, **extra), ndi.gaussian_filter(x, sigma, **extra))
    raises_one_line(RuntimeError, "sigma", ferroconv.gaussian_filter, x, (1.0, 2.0))
    close(ferroconv.gaussian_filter(x, 1.5, channel_axis=1), ndi.gaussian_filter(x, 1.5, axes=(0, 2)))


@pytest.mark.parametrize("size", [0, 1, -1, 1.5, 2.5, 2, (1, 4), (0, 3), True, np.float32(3.0), (2, 3.9), np.int64(5)])
def test_uniform_sizes_scipy_accepts_give_scipys_result(size):
    x = image(dtype=np.float64)
    for mode in ("reflect", "constant"):
        close(ferroconv.uniform_filter(x, size, mode=mode, cval=0.5), ndi.uniform_filter(x, size, mode=mode, cval=0.5))


@pytest.mark.parametrize(
    "size, error",
    [(NAN, ValueError), (INF, ValueError), (-INF, ValueError), ((3, NAN), ValueError), ("3", TypeError), (None, TypeError),
     ([3], RuntimeError), ((3, 3, 3), RuntimeError), (1e20, ValueError), (10**30, ValueError)],
)
def test_uniform_sizes_refused_raise(size, error):  # -inf: a deliberate difference (scipy: size 1)
    raises_one_line(error, "size", ferroconv.uniform_filter, image(), size)


@pytest.mark.parametrize("size, error", [(NAN, ValueError), (2.5, TypeError), (3.0, TypeError), ("3", TypeError), (0, RuntimeError), (-1, RuntimeError)])
def test_uniform_filter1d_sizes_scipy_rejects_raise(size, error):
    with pytest.raises(error):
        ferroconv.uniform_filter1d(image(), size)


@pytest.mark.parametrize(
    "origin, error",
    [(0.5, TypeError), (1.0, TypeError), ((0, 0.5), TypeError), (True, TypeError), ([1], RuntimeError), (2, ValueError),
     (-2, ValueError), (NAN, (TypeError, ValueError)), ("1", TypeError), (10**30, ValueError)],
)
def test_origins_scipy_rejects_raise_instead_of_being_truncated(origin, error):
    w = np.arange(9.0).reshape(3, 3)
    raises_one_line(error, "origin", ferroconv.correlate, image(), w, origin=origin)
    if origin is True:
        return  # scipy's convolve, correlate1d and uniform_filter take True as 1 (the bool test below)
    raises_one_line(error, "origin", ferroconv.convolve, image(), w, origin=origin)
    if not isinstance(origin, (tuple, list)):
        raises_one_line(error, "origin", ferroconv.correlate1d, image(), [1.0, 2.0, 3.0], origin=origin)
    raises_one_line(error, "origin", ferroconv.uniform_filter, image(), 3, origin=origin)


def test_origins_scipy_accepts():
    x, w = image(dtype=np.float64), np.arange(12.0).reshape(3, 4) - 5
    for origin in (np.int64(1), (0, -2), [1, 1], np.array([-1, 0])):
        close(ferroconv.correlate(x, w, origin=origin), ndi.correlate(x, w, origin=origin))
        close(ferroconv.convolve(x, w, origin=origin), ndi.convolve(x, w, origin=origin))
        close(ferroconv.uniform_filter(x, (3, 4), origin=origin), ndi.uniform_filter(x, (3, 4), origin=origin))


@pytest.mark.parametrize(
    "w, error, word",
    [
        ("abc", (TypeError, ValueError), "weights"),
        (None, (TypeError, RuntimeError), "weights"),
        ([[1, 2], [3]], (TypeError, ValueError), None),
        (np.array([[1.0, NAN]]), ValueError, "weights"),
        (np.array([[1.0, INF]]), ValueError, "weights"),
        (np.ones(3), RuntimeError, "weights"),
        (np.ones((0, 3)), RuntimeError, "weights"),
        (np.ones((1, 1, 1)), RuntimeError, "weights"),
    ],
)
def test_bad_weights_raise_one_line_errors(w, error, word):
    raises_one_line(error, word, ferroconv.correlate, image(), w)
    raises_one_line(error, word, ferroconv.convolve, image(), w)


@pytest.mark.parametrize(
    "w, error, word",
    [
        (np.ones((3, 3), complex), TypeError, "weights"),
        ("abc", TypeError, "weights"),
        (None, TypeError, "weights"),
        ([[1, 2], [3]], TypeError, "weights"),
        (np.array([[1.0, NAN]]), ValueError, "weights"),
        (np.array([[1.0, INF]]), ValueError, "weights"),
        (np.array([[1e300]]), ValueError, "weights"),  # past float32's range: the plan's taps
        (np.ones(3), ValueError, "2D"),
        (np.ones((0, 3)), ValueError, "2D"),
        (np.ones((1, 1, 1)), ValueError, "2D"),
    ],
)
def test_filter2d_checks_its_weights_when_made(w, error, word):
    raises_one_line(error, word, ferroconv.Filter2D, w)


def test_weights_scipy_accepts_give_scipys_result():
    x = image(dtype=np.float64)
    for w in (np.ones((3, 3), bool), np.arange(9).reshape(3, 3), np.array([[1e300]]), [[0.5, 1.0], [2.0, -1.0]], np.arange(6.0).reshape(2, 3) * (1 - 2j)):
        close(ferroconv.correlate(x, w), ndi.correlate(x, w))
        close(ferroconv.convolve(x, w), ndi.convolve(x, w))
    w = np.arange(9.0).reshape(3, 3) - 4
    for alias in ("grid-mirror", "grid-wrap", "grid-constant"):
        close(ferroconv.correlate(x, w, mode=alias, cval=0.5), ndi.correlate(x, w, mode=alias, cval=0.5))
        close(ferroconv.gaussian_filter(x, 2.0, mode=alias, cval=0.5), ndi.gaussian_filter(x, 2.0, mode=alias, cval=0.5))
        close(ferroconv.Filter2D(w, mode=alias, cval=0.5)(x), ndi.correlate(x, w, mode=alias, cval=0.5))
    # 2D weights on a 3D array: scipy's refusal, naming the axes to pass.
    raises_one_line(RuntimeError, r"axes=\(-2, -1\)", ferroconv.correlate, image((2, 9, 8)), w)
    close(ferroconv.correlate(image((2, 9, 8), np.float64), w, axes=(-2, -1)), ndi.correlate(image((2, 9, 8), np.float64), w, axes=(-2, -1)))


def test_object_weights_holding_numbers():
    x, w = image(dtype=np.float64), np.arange(9.0).reshape(3, 3).astype(object)
    close(ferroconv.correlate(x, w), ndi.correlate(x, w))


def test_axis_arguments():
    x = image(dtype=np.float64)
    close(ferroconv.sobel(x, np.int64(0)), ndi.sobel(x, np.int64(0)))
    close(ferroconv.prewitt(x, -2), ndi.prewitt(x, -2))
    close(ferroconv.correlate1d(x, [1.0, 2.0], np.int64(0)), ndi.correlate1d(x, [1.0, 2.0], np.int64(0)))
    for name in ("sobel", "prewitt"):
        raises_one_line(TypeError, "axis", getattr(ferroconv, name), x, 1.0)
        raises_one_line(TypeError, "axis", getattr(ferroconv, name), x, "0")
        raises_one_line(np.exceptions.AxisError, "axis", getattr(ferroconv, name), x, 2)
        raises_one_line(np.exceptions.AxisError, "axis", getattr(ferroconv, name), x, -3)
    raises_one_line(np.exceptions.AxisError, "axis", ferroconv.gaussian_filter1d, x, 1.0, axis=5)
    raises_one_line(TypeError, "axis", ferroconv.uniform_filter1d, x, 3, axis=0.0)


@pytest.mark.parametrize(
    "name, args, kwargs",
    [("sobel", (True,), {}), ("correlate1d", ([1.0, 2.0, 3.0],), dict(axis=True)), ("gaussian_filter", (1.0,), dict(axes=True)),
     ("uniform_filter1d", (True,), {}), ("uniform_filter", (3,), dict(origin=True))],
)
def test_bools_scipy_takes_as_integers(name, args, kwargs):
    x = image(dtype=np.float64)
    close(getattr(ferroconv, name)(x, *args, **kwargs), getattr(ndi, name)(x, *args, **kwargs))


# Package bugs, each a strict xfail (the tests say what scipy does).


@pytest.mark.parametrize(
    "call, good, bad",
    [(lambda x, v: ferroconv.sobel(x, v), 1, 1.0), (lambda x, v: ferroconv.prewitt(x, v), 0, 0.5),
     (lambda x, v: ferroconv.gaussian_filter(x, 1.0, order=v), 1, 1.0), (lambda x, v: ferroconv.gaussian_filter1d(x, 1.0, axis=v), 0, 0.0),
     (lambda x, v: ferroconv.uniform_filter(x, 3, origin=v), 0, 0.0), (lambda x, v: ferroconv.laplace(x, mode="constant", cval=v), 1.0, 1 + 0j)],
)
def test_checks_do_not_depend_on_earlier_calls(call, good, bad):
    x = image((13, 17), seed=9)
    with pytest.raises(RAISES):
        call(x, bad)
    call(x, good)
    with pytest.raises(RAISES):
        call(x, bad)


@pytest.mark.parametrize("name, kwargs", [("gaussian_filter", dict(order=1)), ("gaussian_filter1d", dict(order=2)), ("gaussian_laplace", {}), ("gaussian_gradient_magnitude", {})])
def test_huge_sigmas_of_derivatives_fold(name, kwargs):
    """A derivative's taps are formed and folded a chunk at a time (sigma 1e6: 8e6 taps in small
    memory); past 2**32 taps (scipy's own would take more memory than a machine has) the call
    raises a one-line ValueError, never a MemoryError."""
    x = image((6, 7), np.float64)
    got = getattr(ferroconv, name)(x, 1e6, **kwargs)
    assert got.shape == x.shape and np.abs(got).max() < 1e-9  # so flat a Gaussian has no slope
    with pytest.raises(ValueError, match="taps"):
        getattr(ferroconv, name)(x, 1e15, **kwargs)


@pytest.mark.parametrize("kwargs", [dict(radius=3), dict(truncate=-4.0), dict(radius=2, order=1)])
def test_gaussian_filter1d_takes_a_negative_sigma_as_scipy_does(kwargs):
    x = image(dtype=np.float64)
    close(ferroconv.gaussian_filter1d(x, -1.5, **kwargs), ndi.gaussian_filter1d(x, -1.5, **kwargs))


def test_gaussian_laplace_checks_sigma_with_no_axes():
    with pytest.raises(RuntimeError, match="sigma"):
        ferroconv.gaussian_laplace(image(dtype=np.float64), [1.0, 2.0, 3.0], axes=())


def test_gaussian_laplace_sigmas_of_every_axis_permuted():
    x = image((9, 11), np.float64)
    close(ferroconv.gaussian_laplace(x, [2.0, 0.5], axes=(1, 0)), ndi.gaussian_laplace(x, [2.0, 0.5], axes=(1, 0)))


@pytest.mark.parametrize("sigma, order", [(1e-16, 1), (1e-16, 2), (1e-15, 2)])
def test_gaussian_filter1d_of_a_tiny_sigma(sigma, order):
    x = image(dtype=np.float64)
    close(ferroconv.gaussian_filter1d(x, sigma, order=order), ndi.gaussian_filter1d(x, sigma, order=order))


def test_uniform_filter_checks_the_origin_of_a_size_below_2():
    with pytest.raises(ValueError, match="origin"):
        ferroconv.uniform_filter(image(dtype=np.float64), 1.5, origin=-1)


def test_opencv_names_moved_to_cv_and_warn_at_the_top_level():
    for name in ("filter2d", "BORDER_CONSTANT", "BORDER_REPLICATE", "BORDER_REFLECT", "BORDER_WRAP", "BORDER_REFLECT_101",
                 "BORDER_DEFAULT", "CV_8U", "CV_16U", "CV_16S", "CV_32F", "CV_64F"):
        with pytest.warns(DeprecationWarning, match=f"cv.{name}"):
            assert getattr(ferroconv, name) is getattr(cv, name)
    with pytest.raises(AttributeError):
        ferroconv.not_a_name  # noqa: B018
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ferroconv.correlate is not None and ferroconv.Filter2D is not None and ferroconv.cv.filter2d is not None


def test_cv_filter2d_arguments():
    x, k = image(dtype=np.float64), np.arange(9.0).reshape(3, 3)
    raises_one_line(TypeError, "anchor", cv.filter2d, x, -1, k, anchor=(0.5, 1))
    raises_one_line(ValueError, "anchor", cv.filter2d, x, -1, k, anchor=(3, 0))
    raises_one_line(ValueError, "anchor", cv.filter2d, x, -1, k, anchor=(0, -2))
    raises_one_line(TypeError, "ddepth", cv.filter2d, x, 5.0, k)
    raises_one_line(ValueError, "ddepth", cv.filter2d, x, 4, k)
    raises_one_line(ValueError, "delta", cv.filter2d, x, -1, k, delta=NAN)
    raises_one_line(TypeError, "delta", cv.filter2d, x, -1, k, delta="1")
    raises_one_line(ValueError, "borderType", cv.filter2d, x, -1, k, borderType=7)
    raises_one_line(TypeError, "borderType", cv.filter2d, x, -1, k, borderType=4.0)
    raises_one_line(ValueError, "kernel", cv.filter2d, x, -1, np.array([[1.0, NAN]]))


class FakeCudaArray:
    """A CUDA array as far as its attributes go (no GPU is touched before the type check)."""

    shape = (24, 31)
    dtype = np.dtype(np.float32)
    __cuda_array_interface__ = {"shape": (24, 31), "typestr": "<f4", "data": (0, False), "version": 3}


@pytest.mark.parametrize("name", NAMES)
def test_outputs_checked_in_every_function(name):
    x, call = image(), getattr(ferroconv, name)
    args = ARGS.get(name, ())
    for out in (FakeCudaArray(), [[0.0] * 31] * 24):
        raises_one_line(TypeError, "output", call, x, *args, output=out)
    raises_one_line(ValueError, "read-only", call, x, *args, output=np.broadcast_to(x, x.shape))
    raises_one_line(RuntimeError, "output shape", call, x, *args, output=np.zeros((24, 30), np.float32))
    raises_one_line(RuntimeError, "output", call, x.astype(np.complex64), *args, output=np.zeros(x.shape, np.float32))
    for out in (np.float64, "float64", np.dtype("int16"), np.zeros(x.shape, np.uint16)):
        got, want = call(x * 100, *args, output=out), getattr(ndi, name)(x * 100, *args, output=out)
        assert got.dtype == want.dtype and (not isinstance(out, np.ndarray) or got is out)
        assert np.abs(got.astype(np.float64) - want).max() <= (1 if want.dtype.kind in "iu" else 1e-3), name


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">u2", ">i4", "<f4"])
def test_big_endian_arrays_are_filtered_and_come_back_native_as_scipys(dtype):
    native = (np.random.default_rng(3).random((20, 27)) * 1000).astype(np.dtype(dtype).newbyteorder("="))
    x = native.astype(dtype)
    w = np.arange(15.0).reshape(3, 5) / 100
    want_dtype = ndi.correlate(x, w).dtype
    for got, want in (
        (ferroconv.correlate(x, w, mode="nearest"), ferroconv.correlate(native, w, mode="nearest")),
        (ferroconv.gaussian_filter(x, 1.5), ferroconv.gaussian_filter(native, 1.5)),
        (ferroconv.sobel(x, 0), ferroconv.sobel(native, 0)),
        (ferroconv.Filter2D(w)(x), ferroconv.Filter2D(w)(native)),
    ) + (() if x.dtype.kind == "i" else ((cv.filter2d(x, -1, w), cv.filter2d(native, -1, w)),)):
        assert got.dtype == want_dtype == want.dtype and got.dtype.isnative
        assert np.array_equal(got, want)
    out = np.zeros(x.shape, dtype)
    assert ferroconv.correlate(x, w, output=out) is out
    assert np.array_equal(out, ferroconv.correlate(native, w))


def test_filter2d_is_checked_when_made_and_its_attributes_are_read_only():
    rng = np.random.default_rng(4)
    w = rng.random((5, 5)) - 0.5
    f = ferroconv.Filter2D(w, mode="nearest", cval=0.5)
    for name, value in (("weights", w), ("mode", "wrap"), ("cval", 1.0), ("origin", (1, 1)), ("radius", 3), ("variant", None)):
        with pytest.raises(AttributeError):
            setattr(f, name, value)
    x = image((30, 40), np.float64)
    before = f(x)
    kept = w.copy()
    w[...] = 0
    assert np.array_equal(f(x), before)
    other = image((17, 22), np.float64)
    close(f(other), ndi.correlate(other, kept, mode="nearest"))
    assert np.array_equal(f.weights, kept) and f.weights.dtype == np.float64 and not f.weights.flags.writeable
    with pytest.raises(ValueError):
        f.weights[0, 0] = 1.0
    with pytest.raises(ValueError):
        f.weights.flags.writeable = True
    assert (f.mode, f.cval, f.origin, f.radius) == ("nearest", 0.5, (0, 0), 2)
    assert repr(f) == "Filter2D(weights=<5x5 float64>, mode='nearest', cval=0.5, origin=(0, 0))"
    g = ferroconv.Filter2D(np.ones((3, 4)), mode="grid-wrap", origin=(1, -2))
    assert repr(g) == "Filter2D(weights=<3x4 float64>, mode='wrap', cval=0.0, origin=(1, -2))"
    assert g.radius == 3  # origin -2 on 4 taps: the tap 3 away
    for kwargs, error, word in (
        (dict(mode="symmetric"), ValueError, "mode"), (dict(mode=None), TypeError, "mode"), (dict(cval=NAN), ValueError, "cval"),
        (dict(cval=1e39), ValueError, "cval"), (dict(cval="0"), TypeError, "cval"), (dict(origin=(0, 3)), ValueError, "origin"),
        (dict(origin=0.5), TypeError, "origin"), (dict(origin=(0, 0, 0)), ValueError, "origin"),
    ):
        raises_one_line(error, word, ferroconv.Filter2D, np.ones((3, 5)), **kwargs)


def test_filter2d_calls_take_axes_and_channel_axis():
    w = np.random.default_rng(5).random((3, 4)) - 0.5
    f = ferroconv.Filter2D(w, mode="mirror", origin=(1, -1))
    x = image((4, 9, 11), np.float64)
    close(f(x), ndi.correlate(x, w, mode="mirror", origin=(1, -1), axes=(1, 2)))
    close(f(x, axes=(2, 0)), ndi.correlate(x, w, mode="mirror", origin=(1, -1), axes=(2, 0)))
    close(f(x, channel_axis=-1), ndi.correlate(x, w, mode="mirror", origin=(1, -1), axes=(0, 1)))
    close(f(x, output=np.float32), ndi.correlate(x, w, output=np.float32, mode="mirror", origin=(1, -1), axes=(1, 2)))
    raises_one_line(ValueError, "axes", f, x, axes=(0, 0))
    raises_one_line(RuntimeError, "weights", f, x, axes=(0,))
    raises_one_line(RuntimeError, "weights", f, image((7,)))
    raises_one_line(TypeError, "bool", f, x > 0.5)
    raises_one_line(TypeError, "stream", f, x, stream="0")


def test_no_parameter_error_leaks_another_exception_type():
    x = image((9, 11))
    odd = [NAN, INF, -INF, 1e300, 2**70, None, "1", [1, 2, 3], 1 + 1j, object(), b"x", -1, 0.5, True, (1, 2)]
    calls = [
        lambda v: ferroconv.gaussian_filter(x, v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, order=v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, truncate=v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, radius=v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, axes=v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, channel_axis=v),
        lambda v: ferroconv.gaussian_filter1d(x, v),
        lambda v: ferroconv.gaussian_laplace(x, v),
        lambda v: ferroconv.gaussian_gradient_magnitude(x, 1.0, truncate=v),
        lambda v: ferroconv.uniform_filter(x, v),
        lambda v: ferroconv.uniform_filter1d(x, v),
        lambda v: ferroconv.uniform_filter(x, 3, origin=v),
        lambda v: ferroconv.sobel(x, v),
        lambda v: ferroconv.prewitt(x, 0, mode=v),
        lambda v: ferroconv.laplace(x, axes=v),
        lambda v: ferroconv.correlate(x, np.ones((3, 3)), origin=v),
        lambda v: ferroconv.convolve(x, np.ones((3, 3)), mode="constant", cval=v),
        lambda v: ferroconv.correlate(x, np.ones((3, 3)), mode=v),
        lambda v: ferroconv.correlate(x, v),
        lambda v: ferroconv.correlate1d(x, v),
        lambda v: ferroconv.convolve1d(x, [1.0, 2.0], axis=v),
        lambda v: ferroconv.Filter2D(np.ones((3, 3)), cval=v)(x),
        lambda v: ferroconv.Filter2D(np.ones((3, 3)))(x, axes=v),
        lambda v: cv.filter2d(x, -1, np.ones((3, 3)), delta=v),
        lambda v: cv.filter2d(x, v, np.ones((3, 3))),
    ]
    for call in calls:
        for v in odd:
            try:
                r = call(v)
            except RAISES as e:
                assert "\n" not in str(e), str(e)
            else:
                assert r.shape == x.shape and np.all(np.isfinite(r))
    assert math.isfinite(float(ferroconv.gaussian_filter(x, 1e300).mean()))


def test_weights_written_as_text_are_read_as_scipy_reads_them():
    """Weights of numbers as strings or bytes, which scipy converts to float64 as numpy parses
    them; text that is no number raises naming the weights."""
    x = image((9, 11))
    w = np.array([[0.5, -1.0], [2.0, 0.25]])
    for text in (w.astype(str), w.astype(bytes), w.astype(str).tolist()):
        np.testing.assert_array_equal(ferroconv.correlate(x, text), ferroconv.correlate(x, w))
        np.testing.assert_allclose(ferroconv.correlate(x, text), ndi.correlate(x, w), rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(ferroconv.convolve1d(x, ["1", "2.5"]), ferroconv.convolve1d(x, [1.0, 2.5]))
    np.testing.assert_array_equal(ferroconv.correlate(x[0], "3", axes=()), 3 * x[0])
    raises_one_line(TypeError, "weights", ferroconv.correlate, x, [["1", "x"]])


@pytest.mark.parametrize("name", ["gaussian_filter", "gaussian_filter1d"])
def test_an_order_of_true_raises_as_in_scipy_and_false_is_order_0(name):
    x = image((9, 11))
    for order in (True, np.True_, np.array(True), [True, 0] if name == "gaussian_filter" else True):
        with pytest.raises(TypeError):
            getattr(ndi, name)(x, 1.0, order=order)
        raises_one_line(TypeError, "order", getattr(ferroconv, name), x, 1.0, order=order)
    np.testing.assert_array_equal(getattr(ferroconv, name)(x, 1.0, order=False), getattr(ferroconv, name)(x, 1.0))
