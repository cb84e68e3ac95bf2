"""An ``output=`` that overlaps the input (the input itself, or a view shifted by a row) gets the
exact result, computed apart and copied in: float32, float64, uint8, uint16; gray, RGB, stacks."""

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv
from test_numpy import check, random, weights

DTYPES = [np.float32, np.float64, np.uint8, np.uint16]
SHAPES = [(256, 256), (40, 52, 3), (3, 30, 41), (2, 33, 29, 4), (21, 26, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_correlate_into_its_own_input(dtype, shape):
    x = random(shape, dtype, 1)
    w = weights(5, dtype, 2)
    original = x.copy()
    back = ferroconv.correlate(x, w, mode="nearest", output=x)
    assert back is x
    check(x, original, w, "nearest", 0.0, None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_output_a_view_shifted_by_one_row(dtype, shape):
    # The output starts one row after the input in the same memory: each row written would be
    # read again as the next row's input.
    full = list(shape)
    full[-2 if len(shape) == 2 or shape[-1] > 4 else -3] += 1
    buf = random(tuple(full), dtype, 3)
    if len(shape) == 2 or shape[-1] > 4:
        x, out = buf[..., :-1, :], buf[..., 1:, :]
    else:
        x, out = buf[..., :-1, :, :], buf[..., 1:, :, :]
    w = weights(7, dtype, 4)
    original = x.copy()
    assert np.may_share_memory(x, out)
    assert ferroconv.correlate(x, w, mode="mirror", output=out) is out
    check(out, original, w, "mirror", 0.0, None)
    # Shifted the other way.
    buf = random(tuple(full), dtype, 5)
    x, out = (buf[..., 1:, :], buf[..., :-1, :]) if len(shape) == 2 or shape[-1] > 4 else (buf[..., 1:, :, :], buf[..., :-1, :, :])
    original = x.copy()
    ferroconv.correlate(x, w, mode="wrap", output=out)
    check(out, original, w, "wrap", 0.0, None)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_gaussian_in_place_and_a_plan_into_its_input(dtype):
    img = random((64, 80, 3), dtype, 6)
    want = ferroconv.gaussian_filter(img, 3)
    exact = ndi.gaussian_filter(img.astype(np.float64), (3, 3, 0))
    assert ferroconv.gaussian_filter(img, 3, output=img) is img
    assert np.array_equal(img, want)
    assert np.abs(img.astype(np.float64) - exact).max() <= (1 if np.dtype(dtype).kind == "u" else 1e-5)
    w = weights(3, dtype, 7)
    f = ferroconv.Filter2D(w)
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
