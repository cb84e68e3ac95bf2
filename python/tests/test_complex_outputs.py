"""Complex data or weights with a real output: scipy's rules, which differ between its filters
(a real dtype promoted to complex by some, a real result refused or taken by others)."""

import warnings

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv
from test_params import ARGS, NAMES, close, image, raises_one_line


@pytest.mark.parametrize("name", ["correlate", "convolve1d"])
@pytest.mark.parametrize("output", [np.float64, "float32", "array"])
def test_complex_weights_into_a_real_output(name, output):
    x = image((6, 7), np.float64)
    w = (np.ones((2, 3)) if name == "correlate" else np.ones(3)) * (1 + 2j)
    out = np.zeros(x.shape) if output == "array" else output
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy's "promoting specified output dtype to complex"
            want = getattr(ndi, name)(x, w, output=out)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(ferroconv, name)(x, w, output=out)
    else:
        close(getattr(ferroconv, name)(x, w, output=out), want)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("output", [np.float32, np.dtype("int16")])
@pytest.mark.parametrize("filtering", [True, False])
def test_complex_input_into_a_real_dtype(name, output, filtering):
    """A real dtype asked of complex input: promoted to complex by scipy's correlate, convolve, 1D
    and uniform filters; a real result elsewhere, refused where a pass runs, the real part where
    none does (a zero sigma, no axes)."""
    x = (image((6, 7), np.float64) * 50 + 1j * image((6, 7), np.float64)).astype(np.complex64)
    args, kw = ARGS.get(name, ()), {}
    if not filtering:
        if name in ("sobel", "prewitt", "correlate", "convolve", "correlate1d", "convolve1d", "gaussian_filter1d"):
            pytest.skip("every call filters")
        if name == "gaussian_filter":
            args = (0,)
        elif name in ("uniform_filter", "uniform_filter1d"):
            args = (1,)
        else:
            kw = dict(axes=())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's promotion and numpy's discarded imaginary parts
        try:
            want = getattr(ndi, name)(x, *args, output=output, **kw)
        except RuntimeError:
            want = None
        if want is None:
            raises_one_line(RuntimeError, "output", getattr(ferroconv, name), x, *args, output=output, **kw)
            return
        got = getattr(ferroconv, name)(x, *args, output=output, **kw)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert np.abs(got.astype(np.complex128) - want).max() <= (1 if want.dtype.kind in "iu" else 1e-3), name


@pytest.mark.parametrize("name", ["correlate", "convolve", "correlate1d", "convolve1d"])
@pytest.mark.parametrize("output", [np.complex128, "array"])
def test_complex64_input_and_weights_into_complex128_as_scipy_rounds(name, output):
    """scipy filters complex64 input's imaginary part with complex weights into a float32 result
    of its own, which it adds to a complex128 output's parts: that rounding, not float64's."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((9, 13)) + 1j * rng.standard_normal((9, 13))).astype(np.complex64)
    w = rng.standard_normal((3, 4) if name in ("correlate", "convolve") else 5) * (0.3 - 1.1j) + 0.2
    out = np.zeros(x.shape, np.complex128) if output == "array" else output
    want = getattr(ndi, name)(x, w, output=out)
    want = out if output == "array" else want
    got = getattr(ferroconv, name)(x, w, output=np.zeros(x.shape, np.complex128) if output == "array" else output)
    assert got.dtype == np.complex128
    assert np.abs(got - want).max() <= 1e-13 * np.abs(want).max()
