"""Every parameter checked before any work: a one-line TypeError or ValueError naming the argument
where scipy.ndimage raises, scipy's result where it accepts the value (NaN raises: a deliberate
difference). Big-endian arrays accepted; outputs of another kind named; Filter2D read-only."""

import math

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv

NAN, INF = float("nan"), float("inf")


def image(shape=(24, 31), dtype=np.float32, seed=0):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def close(got, want, tol=2e-5):
    assert got.shape == want.shape
    assert np.abs(got.astype(np.float64) - want).max() <= tol * max(1.0, float(np.abs(want).max()))


def raises_one_line(error, word, call, *args, **kwargs):
    with pytest.raises(error, match=word) as e:
        call(*args, **kwargs)
    assert type(e.value) is error or issubclass(type(e.value), error)
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
        (dict(sigma=[1.0]), ValueError, "sigma"),
        (dict(sigma=[1.0, 2.0, 3.0]), ValueError, "sigma"),
        (dict(sigma=1.0, radius=-2), ValueError, "radius"),
        (dict(sigma=1.0, radius=-1), ValueError, "radius"),
        (dict(sigma=1.0, radius=3.7), ValueError, "radius"),
        (dict(sigma=1.0, radius=3.0), ValueError, "radius"),
        (dict(sigma=1.0, radius="3"), ValueError, "radius"),
        (dict(sigma=1.0, truncate=NAN), ValueError, "truncate"),
        (dict(sigma=1.0, truncate=INF), ValueError, "truncate"),
        (dict(sigma=1.0, truncate="4"), TypeError, "truncate"),
        # int(-1.5 + 0.5) = -1: scipy raises for a negative radius.
        (dict(sigma=1.5, truncate=-1.0), ValueError, "truncate"),
        (dict(sigma=1.0, mode="symmetric"), ValueError, "mode"),
        (dict(sigma=1.0, mode=None), TypeError, "mode"),
        (dict(sigma=1.0, cval=NAN), ValueError, "cval"),
        (dict(sigma=1.0, mode="constant", cval=INF), ValueError, "cval"),
        (dict(sigma=1.0, cval="0"), TypeError, "cval"),
        (dict(sigma=1.0, axes=(0, 0.5)), TypeError, "axes"),
        (dict(sigma=1.0, axes=(0, 0)), ValueError, "axes"),
    ],
)
def test_gaussian_parameters_raise_one_line_errors_naming_them(kwargs, error, word):
    raises_one_line(error, word, ferroconv.gaussian_filter, image(), **kwargs)


@pytest.mark.parametrize(
    "sigma, extra",
    [
        (0, {}),
        (-1, {}),
        (-0.5, {}),
        (1e-16, {}),
        (-INF, {}),
        ((0, 2.0), {}),
        ((-3, 1.5), {}),
        (True, {}),
        (np.float32(1.5), {}),
        (np.array([1.0, 0.5]), {}),
        (1.0, dict(truncate=-1.0)),
        (1.0, dict(truncate=0.0)),
        (2.0, dict(radius=0)),
        (2.0, dict(radius=np.int64(3))),
        (2.0, dict(radius=(1, 5))),
        (0, dict(radius=-2)),  # scipy leaves the axis, and its radius, alone
        (1.0, dict(truncate=1e-9)),
    ],
)
def test_sigmas_scipy_accepts_give_scipys_result(sigma, extra):
    x = image(dtype=np.float64)
    close(ferroconv.gaussian_filter(x, sigma, **extra), ndi.gaussian_filter(x, sigma, **extra))


@pytest.mark.parametrize("size", [0, 1, -1, 1.5, 2.5, 2, (1, 4), (0, 3), True, np.float32(3.0), -INF, (2, 3.9)])
def test_uniform_sizes_scipy_accepts_give_scipys_result(size):
    x = image(dtype=np.float64)
    for mode in ("reflect", "constant"):
        close(ferroconv.uniform_filter(x, size, mode=mode, cval=0.5), ndi.uniform_filter(x, size, mode=mode, cval=0.5))


@pytest.mark.parametrize(
    "size, error", [(NAN, ValueError), (INF, ValueError), ("3", TypeError), (None, TypeError), ([3], ValueError), (1e20, ValueError), (10**30, ValueError)]
)
def test_uniform_sizes_scipy_rejects_raise(size, error):
    raises_one_line(error, "size", ferroconv.uniform_filter, image(), size)


@pytest.mark.parametrize(
    "origin, error",
    [(0.5, TypeError), (1.0, TypeError), ((0, 0.5), TypeError), (True, TypeError), ([1], ValueError), (2, ValueError), (-2, ValueError), (NAN, TypeError), ("1", TypeError), (10**30, ValueError)],
)
def test_origins_scipy_rejects_raise_instead_of_being_truncated(origin, error):
    w = np.arange(9.0).reshape(3, 3)
    raises_one_line(error, "origin", ferroconv.correlate, image(), w, origin=origin)
    raises_one_line(error, "origin", ferroconv.convolve, image(), w, origin=origin)


def test_origins_scipy_accepts():
    x, w = image(dtype=np.float64), np.arange(12.0).reshape(3, 4) - 5
    for origin in (np.int64(1), (0, -2), [1, 1], np.array([-1, 0])):
        close(ferroconv.correlate(x, w, origin=origin), ndi.correlate(x, w, origin=origin))


@pytest.mark.parametrize(
    "w, error, word",
    [
        (np.ones((3, 3), complex), TypeError, "weights"),
        ("abc", TypeError, "weights"),
        (None, TypeError, "weights"),
        ([[1, 2], [3]], TypeError, "weights"),
        (np.array([[1.0, NAN]]), ValueError, "weights"),
        (np.array([[1.0, INF]]), ValueError, "weights"),
        (np.array([[1e300]]), ValueError, "weights"),
        (np.ones(3), ValueError, "2D"),
        (np.ones((0, 3)), ValueError, "2D"),
        (np.ones((1, 1, 1)), ValueError, "2D"),
    ],
)
def test_bad_weights_raise_one_line_errors(w, error, word):
    raises_one_line(error, word, ferroconv.correlate, image(), w)
    raises_one_line(error, word, ferroconv.Filter2D, w)


def test_weights_of_other_real_dtypes_and_mode_aliases():
    x = image(dtype=np.float64)
    for w in (np.ones((3, 3), bool), np.arange(9).reshape(3, 3), np.arange(9.0).reshape(3, 3).astype(object)):
        close(ferroconv.correlate(x, w), ndi.correlate(x, w.astype(np.float64)))
    w = np.arange(9.0).reshape(3, 3) - 4
    for alias in ("grid-mirror", "grid-wrap", "grid-constant"):
        close(ferroconv.correlate(x, w, mode=alias, cval=0.5), ndi.correlate(x, w, mode=alias, cval=0.5))
        close(ferroconv.gaussian_filter(x, 2.0, mode=alias, cval=0.5), ndi.gaussian_filter(x, 2.0, mode=alias, cval=0.5))


def test_sobel_axis_and_filter2d_arguments():
    x = image(dtype=np.float64)
    close(ferroconv.sobel(x, True), ndi.sobel(x, True))
    close(ferroconv.sobel(x, np.int64(0)), ndi.sobel(x, np.int64(0)))
    raises_one_line(TypeError, "axis", ferroconv.sobel, x, 1.0)
    raises_one_line(TypeError, "axis", ferroconv.sobel, x, "0")
    raises_one_line(ValueError, "axis", ferroconv.sobel, x, 2)
    k = np.arange(9.0).reshape(3, 3)
    raises_one_line(TypeError, "anchor", ferroconv.filter2d, x, -1, k, anchor=(0.5, 1))
    raises_one_line(ValueError, "anchor", ferroconv.filter2d, x, -1, k, anchor=(3, 0))
    raises_one_line(ValueError, "anchor", ferroconv.filter2d, x, -1, k, anchor=(0, -2))
    raises_one_line(TypeError, "ddepth", ferroconv.filter2d, x, 5.0, k)
    raises_one_line(ValueError, "ddepth", ferroconv.filter2d, x, 4, k)
    raises_one_line(ValueError, "delta", ferroconv.filter2d, x, -1, k, delta=NAN)
    raises_one_line(TypeError, "delta", ferroconv.filter2d, x, -1, k, delta="1")
    raises_one_line(ValueError, "borderType", ferroconv.filter2d, x, -1, k, borderType=7)
    raises_one_line(TypeError, "borderType", ferroconv.filter2d, x, -1, k, borderType=4.0)


class FakeCudaArray:
    """A CUDA array as far as its attributes go (no GPU is touched before the type check)."""

    shape = (24, 31)
    dtype = np.dtype(np.float32)
    __cuda_array_interface__ = {"shape": (24, 31), "typestr": "<f4", "data": (0, False), "version": 3}


def test_an_output_of_another_kind_is_a_type_error_naming_it():
    x = image()
    for out in (FakeCudaArray(), [[0.0] * 31] * 24, "out"):
        raises_one_line(TypeError, "output must be a numpy.ndarray", ferroconv.correlate, x, np.ones((3, 3)), output=out)
    raises_one_line(ValueError, "output is read-only", ferroconv.correlate, x, np.ones((3, 3)), output=np.broadcast_to(x, x.shape))


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">u2", "<f4"])
def test_big_endian_arrays_are_filtered_and_come_back_native_as_scipys(dtype):
    native = (np.random.default_rng(3).random((20, 27)) * 1000).astype(np.dtype(dtype).newbyteorder("="))
    x = native.astype(dtype)
    w = np.arange(15.0).reshape(3, 5) / 100
    want_dtype = ndi.correlate(x, w).dtype
    for got, want in (
        (ferroconv.correlate(x, w, mode="nearest"), ferroconv.correlate(native, w, mode="nearest")),
        (ferroconv.gaussian_filter(x, 1.5), ferroconv.gaussian_filter(native, 1.5)),
        (ferroconv.filter2d(x, -1, w), ferroconv.filter2d(native, -1, w)),
    ):
        assert got.dtype == want_dtype == want.dtype and got.dtype.isnative
        assert np.array_equal(got, want)
    out = np.zeros(x.shape, dtype)
    assert ferroconv.correlate(x, w, output=out) is out
    assert np.array_equal(out, ferroconv.correlate(native, w))


def test_filter2d_attributes_are_read_only_and_its_weights_a_copy():
    rng = np.random.default_rng(4)
    w = rng.random((5, 5)) - 0.5
    f = ferroconv.Filter2D(w, mode="nearest", cval=0.5)
    for name, value in (("weights", w), ("mode", "wrap"), ("cval", 1.0), ("origin", (1, 1)), ("radius", 3)):
        with pytest.raises(AttributeError):
            setattr(f, name, value)
    x = image((30, 40), np.float64)
    before = f(x)
    kept = w.copy()
    w[...] = 0
    assert np.array_equal(f(x), before)
    # A plan made after the caller's array changed still has the weights given.
    other = image((17, 22), np.float64)
    close(f(other), ndi.correlate(other, kept, mode="nearest"))
    assert np.array_equal(f.weights, kept) and not f.weights.flags.writeable
    with pytest.raises(ValueError):
        f.weights[0, 0] = 1.0
    with pytest.raises(ValueError):
        f.weights.flags.writeable = True
    assert (f.mode, f.cval, f.origin, f.radius) == ("nearest", 0.5, (0, 0), 2)
    assert repr(f) == "Filter2D(weights=<5x5 float64>, mode='nearest', cval=0.5, origin=(0, 0))"
    g = ferroconv.Filter2D(np.ones((3, 4)), mode="grid-wrap", origin=(1, -2))
    assert repr(g) == "Filter2D(weights=<3x4 float64>, mode='wrap', cval=0.0, origin=(1, -2))"


def test_no_parameter_error_leaks_another_exception_type():
    x = image((9, 11))
    odd = [NAN, INF, -INF, 1e300, 2**70, None, "1", [1, 2, 3], 1 + 1j, object(), b"x"]
    calls = [
        lambda v: ferroconv.gaussian_filter(x, v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, truncate=v),
        lambda v: ferroconv.gaussian_filter(x, 1.0, radius=v),
        lambda v: ferroconv.uniform_filter(x, v),
        lambda v: ferroconv.sobel(x, v),
        lambda v: ferroconv.correlate(x, np.ones((3, 3)), origin=v),
        lambda v: ferroconv.correlate(x, np.ones((3, 3)), mode="constant", cval=v),
        lambda v: ferroconv.correlate(x, np.ones((3, 3)), mode=v),
        lambda v: ferroconv.filter2d(x, -1, np.ones((3, 3)), delta=v),
        lambda v: ferroconv.filter2d(x, v, np.ones((3, 3))),
    ]
    for call in calls:
        for v in odd:
            try:
                r = call(v)
            except (TypeError, ValueError) as e:
                assert "\n" not in str(e)
            else:
                assert r.shape == x.shape and np.all(np.isfinite(r))
    assert math.isfinite(float(ferroconv.gaussian_filter(x, 1e300).mean()))
