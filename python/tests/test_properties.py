"""Property test: every public function on small 2D numpy arrays, fed parameter values of every
kind (NaN, infinities, negatives, huge, non-integers, strings, None, lists). Where scipy accepts a
value the result is scipy's (float tolerance; integers within one level of scipy's float64
result rounded and clamped, as ferroconv rounds); where scipy rejects it, a one-line TypeError or
ValueError. Never another exception (a PanicException, MemoryError, OverflowError), nor a hang.
Deliberate differences: NaN anywhere, an infinite or past-float32 ``cval`` or ``delta``, and
weights that are not finite raise. Where scipy runs out of memory or would take too long (a
sigma of 1e300), the result only has to be sane: finite, of the right shape, within the image's
range for the averaging filters."""

import math
import os
import tempfile

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv

hypothesis = pytest.importorskip("hypothesis", reason="SKIPPED: hypothesis is not installed")
from hypothesis import HealthCheck, configuration, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Hypothesis's caches outside the checkout (no example database: the runs are derandomized).
configuration.set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "ferroconv-hypothesis"))

SETTINGS = settings(
    derandomize=True, max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
NAN, INF = float("nan"), float("inf")
WEIRD = [NAN, INF, -INF, 0, 0.0, -1, -0.5, 1e-16, 1e300, -1e300, 1e6, 2**63, 10**30, True, False, None, "1", "",
         [1], [1, 2], [1, 2, 3], (0.5, 1), (NAN, 1), np.float32(2.5), np.int64(3), 1 + 2j, b"x", object()]
MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-wrap", "grid-mirror", "grid-constant"]
# The mode each name reads as (scipy's filters' aliases).
CANONICAL = {"grid-wrap": "wrap", "grid-mirror": "reflect", "grid-constant": "constant"}
PAD = {"reflect": "symmetric", "mirror": "reflect", "nearest": "edge", "wrap": "wrap", "constant": "constant"}
# scipy's work past which it is not asked (its taps' count on an axis).
SCIPY_TAPS = 30000


ANYTHING = st.one_of(st.sampled_from(WEIRD), st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 40))


@st.composite
def mostly(draw, sane, other, odds=6):
    """``sane`` but one time in ``odds`` (about), else ``other``."""
    return draw(other) if draw(st.integers(1, odds)) == odds else draw(sane)


def odd(sane):
    """A sane value mostly, else anything."""
    return mostly(sane, ANYTHING)


modes = mostly(st.sampled_from(MODES), st.sampled_from(["REFLECT", "", None, 1, ["wrap"]]))
cvals = mostly(st.one_of(st.floats(-1e3, 1e3), st.floats(-1e30, 1e30)),
               st.sampled_from([0.0, 0.5, 200.0, 70000.0, True, NAN, INF, 1e300, 3.5e38, "1", None, 1j]), odds=4)


@st.composite
def images(draw):
    h, w = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    dtype = draw(st.sampled_from([np.float64, np.float64, np.float32, np.uint8, np.uint16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, np.iinfo(dtype).max + 1, (h, w)).astype(dtype)
    return rng.random((h, w)).astype(dtype)


@st.composite
def filters(draw):
    """2D weights (folded where longer than the image), now and then not finite or not an array."""
    kind = draw(st.integers(1, 12))
    if kind == 12:
        return draw(st.sampled_from(WEIRD + [np.ones(3), np.ones((0, 2)), [[1, 2], [3]], np.ones((2, 2), complex)]))
    rows, cols = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    w = np.random.default_rng(draw(st.integers(0, 2**16))).random((rows, cols)) - 0.3
    if kind == 11:
        w.flat[draw(st.integers(0, w.size - 1))] = draw(st.sampled_from([NAN, INF, -INF, 1e300]))
    return w


def floats_in(value):
    """The floats a parameter value holds (its entries where it is a sequence)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for v in items:
        if isinstance(v, (float, np.floating)):
            out.append(float(v))
    return out


def has_nan(*values):
    return any(math.isnan(f) for v in values for f in floats_in(v))


def bad_constant(value):
    """A cval or delta ferroconv rejects on purpose: NaN, infinite, past float32's range."""
    try:
        return isinstance(value, (int, float, np.number)) and not abs(float(value)) <= 3.4028234663852886e38
    except (TypeError, OverflowError):
        return True


def outcome(call):
    try:
        return "ok", call()
    except (MemoryError, OverflowError) as e:
        return "resource", e
    except ValueError as e:
        if any(s in str(e) for s in ("Maximum allowed size", "too big", "cannot allocate")):
            return "resource", e
        return "raise", e
    except (TypeError, RuntimeError, IndexError) as e:
        return "raise", e


def ours(call):
    """ferroconv's outcome: a result, or a one-line TypeError or ValueError (anything else fails)."""
    try:
        return "ok", call()
    except (TypeError, ValueError) as e:
        assert type(e).__name__ in ("TypeError", "ValueError", "AxisError"), repr(e)
        assert "\n" not in str(e), repr(e)
        return "raise", e


def reference(x, call):
    """scipy's result on ``x`` in float64 (rounded and clamped for integers), or its outcome."""
    kind, y = outcome(lambda: call(x.astype(np.float64)))
    if kind == "ok" and x.dtype.kind == "u":
        info = np.iinfo(x.dtype)
        y = np.clip(np.rint(y), info.min, info.max)
    return kind, y


def same(got, want, x, scale):
    assert got.shape == x.shape and got.dtype == x.dtype, (got.shape, got.dtype)
    diff = np.abs(got.astype(np.float64) - want)
    if x.dtype.kind == "u":
        assert diff.max() <= 1, f"max diff {diff.max()}"
    else:
        assert diff.max() <= 2e-5 * scale, f"max diff {diff.max()} over {2e-5 * scale}"


def sane(got, x, low=None, high=None):
    assert got.shape == x.shape and got.dtype == x.dtype and np.all(np.isfinite(got))
    if low is not None:
        slack = 1 if x.dtype.kind == "u" else 1e-4 * max(1.0, abs(low), abs(high))
        assert got.min() >= low - slack and got.max() <= high + slack


def judge(mine, theirs, deliberate, compare, sanity):
    (kind, got), (skind, want) = mine, theirs
    if kind == "raise":
        assert skind in ("raise", "resource", "skip") or deliberate, f"scipy accepts it, ferroconv raised {got!r}"
    elif skind == "ok":
        compare(got, want)
    elif skind == "raise":
        raise AssertionError(f"scipy raises {want!r}, ferroconv returned a result")
    else:
        sanity(got)


def averaging_range(x, mode, cval):
    low, high = float(x.min()), float(x.max())
    if CANONICAL.get(mode, mode) == "constant":
        c = float(cval)
        low, high = min(low, c), max(high, c)
    return low, high


def nothing_filtered(values, at_most):
    """Whether every axis is left as it is (sigma at most 1e-15, size at most 1): scipy then
    never reads ``mode`` nor ``cval``, which ferroconv checks all the same."""
    try:
        items = values if isinstance(values, (list, tuple)) else [values]
        return all(float(v) <= at_most for v in items)
    except (TypeError, ValueError, OverflowError):
        return False


def gaussian_taps(sigma, truncate, radius):
    """The most taps scipy would form on an axis (0 where it would raise first)."""
    try:
        sigmas = [float(s) for s in (sigma if isinstance(sigma, (list, tuple)) else [sigma, sigma])]
        radii = radius if isinstance(radius, (list, tuple)) else [radius, radius]
        r = [float(rad) if rad is not None else abs(float(truncate) * s) for s, rad in zip(sigmas, radii)]
        return max(2 * v + 1 for v in r)
    except (TypeError, ValueError, OverflowError):
        return 0


@SETTINGS
@given(images(), odd(st.floats(-2, 30)), odd(st.floats(-2, 8)), st.one_of(st.none(), st.none(), odd(st.integers(0, 40))), modes, cvals)
def test_gaussian_filter(x, sigma, truncate, radius, mode, cval):
    call = lambda a: ferroconv.gaussian_filter(a, sigma, mode=mode, cval=cval, truncate=truncate, radius=radius)  # noqa: E731
    mine = ours(lambda: call(x))
    theirs = ("skip", None)
    if not gaussian_taps(sigma, truncate, radius) > SCIPY_TAPS:
        theirs = reference(x, lambda a: ndi.gaussian_filter(a, sigma, mode=mode, cval=cval, truncate=truncate, radius=radius))
    deliberate = has_nan(sigma) or bad_constant(cval) or nothing_filtered(sigma, 1e-15)
    judge(mine, theirs, deliberate, lambda g, w: same(g, w, x, max(1.0, float(x.max()), abs(float(cval)))),
          lambda g: sane(g, x, *averaging_range(x, mode, cval)))


@SETTINGS
@given(images(), odd(st.one_of(st.integers(-2, 40), st.floats(-2, 40), st.tuples(st.integers(0, 30), st.floats(0, 30)))), modes, cvals)
def test_uniform_filter(x, size, mode, cval):
    mine = ours(lambda: ferroconv.uniform_filter(x, size, mode=mode, cval=cval))
    theirs = ("skip", None)
    try:
        big = max(abs(float(s)) for s in (size if isinstance(size, (list, tuple)) else [size])) > 1e6
    except (TypeError, ValueError, OverflowError):
        big = False
    if not big:
        theirs = reference(x, lambda a: ndi.uniform_filter(a, size, mode=mode, cval=cval))
    deliberate = has_nan(size) or bad_constant(cval) or nothing_filtered(size, 1)
    judge(mine, theirs, deliberate, lambda g, w: same(g, w, x, max(1.0, float(x.max()), abs(float(cval)))),
          lambda g: sane(g, x, *averaging_range(x, mode, cval)))


@SETTINGS
@given(images(), odd(st.sampled_from([0, 1, -1, -2])), modes, cvals)
def test_sobel(x, axis, mode, cval):
    if x.dtype.kind == "u":
        x = x.astype(np.float32)  # scipy's sobel wraps unsigned results around
    mine = ours(lambda: ferroconv.sobel(x, axis, mode=mode, cval=cval))
    theirs = reference(x, lambda a: ndi.sobel(a, axis, mode=mode, cval=cval))
    judge(mine, theirs, bad_constant(cval), lambda g, w: same(g, w, x, 8 * max(1.0, float(np.abs(x).max()), abs(float(cval)))),
          lambda g: sane(g, x))


def padded(x, w, mode, cval, origin):
    """The definition scipy's 2D ``reflect`` leaves for weights over twice the image: the image
    extended by numpy.pad and correlated where no border is read."""
    mode = CANONICAL.get(mode, mode)
    (ky, kx), (oy, ox) = w.shape, origin
    cy, cx = ky // 2 + oy, kx // 2 + ox
    extra = {"constant_values": cval} if mode == "constant" else {}
    p = np.pad(x.astype(np.float64), ((cy, ky - 1 - cy), (cx, kx - 1 - cx)), mode=PAD[mode], **extra)
    return ndi.correlate(p, w, mode="constant")[ky // 2 : ky // 2 + x.shape[0], kx // 2 : kx // 2 + x.shape[1]]


def check_correlation(x, w, mode, cval, origin, got, want, flip=False):
    """``got`` equals scipy's ``want``, or, in scipy's ``reflect`` for weights longer than the
    image, the definition."""
    scale = float(np.abs(w).sum()) * max(1.0, float(np.abs(x).max()), abs(float(cval)))
    try:
        same(got, want, x, scale)
    except AssertionError:
        if CANONICAL.get(mode, mode) != "reflect" or (w.shape[0] <= x.shape[0] and w.shape[1] <= x.shape[1]):
            raise
        if flip:
            origin = tuple(-int(o) - (1 - k % 2) for k, o in zip(w.shape, origin))
            w = w[::-1, ::-1]
        exact = padded(x, w, mode, float(cval), origin)
        if x.dtype.kind == "u":
            exact = np.clip(np.rint(exact), np.iinfo(x.dtype).min, np.iinfo(x.dtype).max)
        same(got, exact, x, scale)


def origins_of(w):
    if isinstance(w, np.ndarray) and w.ndim == 2 and w.size > 0:
        return st.tuples(st.integers(-(w.shape[0] // 2), (w.shape[0] - 1) // 2), st.integers(-(w.shape[1] // 2), (w.shape[1] - 1) // 2))
    return st.just((0, 0))


def origin_pair(origin):
    return origin if isinstance(origin, tuple) and len(origin) == 2 else (origin, origin)


@pytest.mark.parametrize("name", ["correlate", "convolve", "Filter2D"])
@SETTINGS
@given(data=st.data())
def test_correlate_convolve_and_plans(name, data):
    x, w, mode, cval = data.draw(images()), data.draw(filters()), data.draw(modes), data.draw(cvals)
    origin = data.draw(odd(origins_of(w)))
    if name == "Filter2D":
        mine = ours(lambda: ferroconv.Filter2D(w, mode=mode, cval=cval, origin=origin)(x))
        scipy_call = ndi.correlate
    else:
        mine = ours(lambda: getattr(ferroconv, name)(x, w, mode=mode, cval=cval, origin=origin))
        scipy_call = getattr(ndi, name)
    theirs = reference(x, lambda a: scipy_call(a, w, mode=mode, cval=cval, origin=origin))
    deliberate = bad_constant(cval) or np.iscomplexobj(w) or (
        isinstance(w, np.ndarray) and w.dtype.kind == "f" and not np.all(np.abs(w) <= 3.4e38)
    )
    judge(mine, theirs, deliberate,
          lambda g, want: check_correlation(x, w, mode, cval, origin_pair(origin), g, want, flip=name == "convolve"),
          lambda g: sane(g, x))


DEPTHS = {-1: None, 0: np.uint8, 2: np.uint16, 3: np.int16, 5: np.float32, 6: np.float64}
CV_MODES = {0: "constant", 1: "nearest", 2: "reflect", 3: "wrap", 4: "mirror"}


@SETTINGS
@given(data=st.data())
def test_filter2d(data):
    x, k = data.draw(images()), data.draw(filters())
    ddepth = data.draw(st.one_of(st.sampled_from(list(DEPTHS)), st.sampled_from([1, 4, 7, 5.0, None, "5"])))
    border = data.draw(st.one_of(st.sampled_from(list(CV_MODES)), st.sampled_from([5, 16, 4.0, None])))
    delta = data.draw(st.one_of(st.just(0), st.floats(-100, 100), st.sampled_from([NAN, INF, "1", None])))
    shape = k.shape if isinstance(k, np.ndarray) and k.ndim == 2 else (1, 1)
    anchor = data.draw(st.one_of(st.none(), st.tuples(st.integers(-1, shape[1] - 1), st.integers(-1, shape[0] - 1)),
                                 st.sampled_from([(0.5, 0), (shape[1], 0), (0, -2), (1,), "a"])))
    mine = ours(lambda: ferroconv.filter2d(x, ddepth, k, anchor=anchor, delta=delta, borderType=border))
    # cv2.filter2D's definition, in scipy's terms: a correlation with origin (ay - rows // 2,
    # ax - cols // 2), plus delta, converted to the depth (integers rounded and saturated).
    valid = (
        isinstance(k, np.ndarray) and k.ndim == 2 and k.size > 0 and k.dtype.kind == "f" and np.all(np.abs(k) <= 3.4e38)
        and type(ddepth) is int and ddepth in DEPTHS and type(border) is int and border in CV_MODES
        and isinstance(delta, (int, float)) and math.isfinite(delta)
        and (anchor is None or (isinstance(anchor, tuple) and len(anchor) == 2 and all(type(a) is int for a in anchor)
                                and -1 <= anchor[0] < shape[1] and -1 <= anchor[1] < shape[0]))
    )
    kind, got = mine
    if not valid:
        assert kind == "raise", f"filter2d accepted {ddepth!r} {border!r} {delta!r} {anchor!r}"
        return
    assert kind == "ok", got
    ax, ay = anchor or (-1, -1)
    origin = (0 if ay == -1 else ay - shape[0] // 2, 0 if ax == -1 else ax - shape[1] // 2)
    mode = CV_MODES[border]
    want = ndi.correlate(x.astype(np.float64), k, mode=mode, origin=origin) + delta
    if mode == "reflect" and (shape[0] > x.shape[0] or shape[1] > x.shape[1]):
        want = padded(x, k, mode, 0.0, origin) + delta
    target = np.dtype(DEPTHS[ddepth] or x.dtype)
    assert got.dtype == target and got.shape == x.shape
    diff = np.abs(got.astype(np.float64) - want)
    if target.kind in "ui":
        info = np.iinfo(target)
        diff = np.abs(got.astype(np.float64) - np.clip(np.rint(want), info.min, info.max))
        assert diff.max() <= 1
    else:
        assert diff.max() <= 2e-5 * float(np.abs(k).sum()) * max(1.0, float(x.max())) + 1e-5 * abs(delta)
