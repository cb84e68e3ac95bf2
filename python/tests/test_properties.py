"""Property tests: scipy.ndimage's 13 linear filters (and Filter2D, cv.filter2d) on small N-D arrays of
every numeric dtype, fed parameter values of every kind (NaN, infinities, negatives, huge, non-integers,
strings, None, sequences of the wrong length, bad axes, output dtypes and arrays). Where scipy accepts a
value the result is scipy's (floats within 2·n·eps·Σ|w|·max|x|; integers, truncated pass after pass as
scipy stores them, within the levels a pass's rounding can move them); where scipy raises, a one-line
TypeError, ValueError or RuntimeError. Never another exception (a PanicException, MemoryError,
OverflowError, ZeroDivisionError), nor a hang. Deliberate differences: NaN anywhere, an infinite sigma
or size, an infinite or past-float32 cval, weights that are not finite, and parameters of axes scipy
leaves alone (checked all the same) raise. Where scipy runs out of memory or takes too long, the result
only has to be sane: its shape and dtype, finite and within the input's range for averaging filters."""

import functools
import math
import os
import tempfile

import numpy as np
import pytest
import scipy.ndimage as ndi
from scipy.ndimage._filters import _gaussian_kernel1d

import ferroconv
from ferroconv import cv

hypothesis = pytest.importorskip("hypothesis", reason="SKIPPED: hypothesis is not installed")
from hypothesis import HealthCheck, configuration, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Hypothesis's caches outside the checkout (no example database: the runs are derandomized).
configuration.set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "ferroconv-hypothesis"))

SETTINGS = settings(derandomize=True, max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
# Casts of NaN or of values past an integer's range, complex parts dropped: scipy warns as well.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::numpy.exceptions.ComplexWarning", "ignore::UserWarning")
NAN, INF = float("nan"), float("inf")
WEIRD = [NAN, INF, -INF, 0, 0.0, -1, -0.5, 1e-16, 1e300, -1e300, 1e6, 2**63, 10**30, True, False, None, "1", "",
         [1], [1, 2], [1, 2, 3], (0.5, 1), (NAN, 1), np.float32(2.5), np.int64(3), 1 + 2j, b"x", object()]
MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-wrap", "grid-mirror", "grid-constant"]
CANONICAL = {"grid-wrap": "wrap", "grid-mirror": "reflect", "grid-constant": "constant"}
PAD = {"reflect": "symmetric", "mirror": "reflect", "nearest": "edge", "wrap": "wrap", "constant": "constant"}
DTYPES = [np.float64, np.float64, np.float32, np.float32]
INTS = [np.uint8, np.uint16, np.int8, np.int16, np.int32, np.int64, np.uint32, np.uint64]
OUTPUTS = ["float64", "float32", "int16", "uint8", "int32", "complex128"]
DTYPE_OUTPUTS = [np.dtype("float32"), np.dtype("int16")]  # dtypes (not names): promoted to complex for complex input by some of scipy's filters
# scipy's work past which it is not asked (its taps on an axis, a box's size).
SCIPY_TAPS = 30000


# Strategies made once (hypothesis validates each new one it draws from).
kept = functools.lru_cache(maxsize=None)(lambda make, *args: make(*args))


@st.composite
def _mostly(draw, sane, other, odds):
    return draw(other) if draw(kept(st.integers, 1, odds)) == odds else draw(sane)


def mostly(sane, other, odds=6):
    """``sane`` but one time in ``odds`` (about), else ``other``."""
    return kept(_mostly, sane, other, odds)


ANYTHING = st.one_of(st.sampled_from(WEIRD), st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 40))
odd = functools.partial(mostly, other=ANYTHING)  # a sane value mostly, else anything
modes = mostly(st.sampled_from(MODES), st.sampled_from(["REFLECT", "", None, 1, ["wrap"], ("wrap", "constant")]))
cvals = mostly(st.one_of(st.floats(-1e3, 1e3), st.floats(-1e30, 1e30)),
               st.sampled_from([0.0, 0.5, 200.0, 70000.0, True, NAN, INF, 1e300, 3.5e38, "1", None, 1j]), odds=4)
outputs = mostly(st.none(), st.one_of(st.sampled_from(OUTPUTS + DTYPE_OUTPUTS), st.tuples(st.just("array"), st.sampled_from(OUTPUTS)),
                                      st.just(("array", "wrong shape"))), odds=5)


@st.composite
def arrays(draw, ints=True, complex_=False, ndim=(1, 3)):
    """A small array: floats mostly, integers of every width (8 and 16 bits: all their range), or complex."""
    rng = np.random.default_rng(draw(kept(st.integers, 0, 2**32 - 1)))
    nd = int(rng.integers(ndim[0], ndim[1], endpoint=True))
    shape = tuple(int(n) for n in rng.integers(1, (12, 9, 5)[nd - 1], nd, endpoint=True))
    kinds = DTYPES + (INTS if ints else []) + ([np.complex128, np.complex64] if complex_ else [])
    dtype = np.dtype(kinds[rng.integers(len(kinds))])
    if dtype.kind in "iu":
        lo, hi = (np.iinfo(dtype).min, np.iinfo(dtype).max) if dtype.itemsize <= 2 else (0 if dtype.kind == "u" else -1000, 1000)
        return rng.integers(lo, hi, shape, endpoint=True).astype(dtype)
    x = rng.standard_normal(shape) * (1.0, 100.0)[rng.integers(2)]
    return (x + 1j * rng.standard_normal(shape) if dtype.kind == "c" else x).astype(dtype)


@functools.lru_cache(maxsize=None)
def per_axis(sane, k):
    """One value for every axis, or one an axis (now and then of the wrong length)."""
    each = st.lists(sane, min_size=k, max_size=k)
    return st.one_of(sane, each, mostly(each, st.lists(sane, max_size=4)))


def axes_for(draw, x, channel=True):
    """(axes, channel_axis): mostly None, else some axes (any order; one integer), a channel axis, or bad ones."""
    nd, pick = x.ndim, draw(kept(st.integers, 0, 9))
    if pick < 6:
        return None, None
    if pick < 8:
        axes = draw(st.permutations(range(-nd, 0) if draw(st.booleans()) else range(nd)))[: draw(kept(st.integers, 0, nd))]
        return (axes[0] if len(axes) == 1 and draw(st.booleans()) else tuple(axes)), None
    if pick == 8 and channel:
        return None, draw(kept(st.integers, -nd, nd - 1))
    return draw(st.sampled_from([(0, 0), (nd,), 0.5, (0, 1.0), "0", -nd - 1])), None


def seq(v, k):
    """scipy's ``_normalize_sequence``."""
    return list(v) if np.iterable(v) and not isinstance(v, str) else [v] * k


def valid_axes(x, axes, isint=lambda a: isinstance(a, (int, np.integer)) and not isinstance(a, bool)):
    items = seq(axes, 1)
    return all(isint(a) and -x.ndim <= a < x.ndim for a in items) and len({a % x.ndim for a in items}) == len(items)


def filtered_axes(x, axes, channel_axis):
    """The axes filtered (every one, where ``axes`` are not valid)."""
    if channel_axis is not None:
        return [a for a in range(x.ndim) if a != channel_axis % x.ndim]
    return [a % x.ndim for a in seq(axes, 1)] if axes is not None and valid_axes(x, axes) else list(range(x.ndim))


def refused(cval=0.0, nan=(), inf=(), floats=()):
    """Whether ferroconv refuses what scipy may take: NaN (among ``nan``), an infinity (``inf``), a cval past
    float32's range (on purpose); a float or a bool for an order (``floats``: 0.0 or False, which scipy takes
    as 0; ferroconv raises TypeError for either, a package bug)."""
    entries = lambda values: [f for v in values for f in seq(v, 1)]  # noqa: E731
    isfloat = lambda f: isinstance(f, (float, np.floating))  # noqa: E731
    try:
        bad = isinstance(cval, (int, float, np.number)) and not abs(float(cval)) <= 3.4028234663852886e38
    except (TypeError, OverflowError):
        bad = True
    return (bad or any(isfloat(f) and math.isnan(f) for f in entries(nan)) or any(isfloat(f) and math.isinf(f) for f in entries(inf))
            or any(isfloat(f) or isinstance(f, (bool, np.bool_)) for f in entries(floats)))


def unfiltered(values, at_most):
    """Whether an axis is left as it is (sigma <= 1e-15, size <= 1): scipy never reads its mode, order or radius."""
    try:
        return any(float(v) <= at_most for v in seq(values, 1))
    except (TypeError, ValueError, OverflowError):
        return False


def ours(call):
    """ferroconv's outcome: a result, or a one-line TypeError, ValueError or RuntimeError. Its kept programs
    are kept from call to call: one kept for an equal parameter (1 for 1.0 or True) must not skip checks."""
    try:
        return "ok", call()
    except (TypeError, ValueError, RuntimeError) as e:
        assert "\n" not in str(e), repr(e)
        return "raise", e


def theirs(call, skip=False):
    """scipy's outcome: a result, a refusal, or a resource limit (memory, sizes past C's)."""
    if skip:
        return "skip", None
    try:
        return "ok", call()
    except Exception as e:  # noqa: BLE001 - scipy's refusals come in many types
        limit = isinstance(e, (MemoryError, OverflowError)) or any(s in str(e) for s in ("Maximum allowed size", "too big"))
        return "resource" if limit else "raise", e


def output_of(token, x):
    """The ``output=`` argument of a token: None, a dtype name, or a fresh array (poisoned)."""
    if isinstance(token, tuple):
        shape, dt = (x.shape[:-1] + (x.shape[-1] + 1,), x.dtype) if token[1] == "wrong shape" else (x.shape, np.dtype(token[1]))
        return np.full(shape, np.nan if dt.kind in "fc" else 77, dt)
    return token


def same(got, want, terms, x, cval, squares=False):
    """``got`` is scipy's ``want`` within the bound of ``terms``, a list of terms (summed), each a
    list of 1D passes ``(Σ|w|, taps)`` run one after another (``squares``: a root of a sum of
    squares). Floats: 2·n·eps·S·M (eps of float32 for float32 results). Integers: as many levels
    as the passes' truncations can move them, modulo the dtype's range (both wrap as C casts)."""
    assert type(got) is np.ndarray and got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.dtype)
    m = max(float(np.abs(x.real).max()), float(np.abs(x.imag).max()) if x.dtype.kind == "c" else 0.0)
    if isinstance(cval, (int, float, complex, np.number)):
        m = max(m, abs(complex(cval).real), abs(complex(cval).imag))
    s, n = sum(math.prod(p[0] for p in t) for t in terms), max(1, sum(p[1] for t in terms for p in t))
    eps = 2.0**-24 if want.dtype in (np.float32, np.complex64) or want.dtype.kind in "iu" else 4 * 2.0**-53
    tol = 2 * n * eps * s * m + 4 * eps * m
    if want.dtype.kind in "fc":
        err = np.where(got == want, 0.0, np.abs(got.astype(np.complex128) - want))
        tol += 4 * eps * float(np.abs(want[np.isfinite(want)]).max(initial=0))
        if squares:  # a term within the bound may square past the dtype's largest value
            limit = math.sqrt(float(np.finfo(want.dtype).max))
            err = np.where(np.isinf(got) & (np.abs(want) + tol >= limit), 0.0, err)
        assert err.max(initial=0) <= tol, f"max error {err.max():.3g}, bound {tol:.3g}"
        return
    # C's cast of a float past an integer's range is undefined: compared only where it is not;
    # nor are squares that overflow (of unsigned terms below 0, wrapped around, or too large).
    bits = 8 * want.dtype.itemsize
    if m * max(s, 1.0) >= 2**30 or (squares and (want.dtype.kind == "u" or (m * max(s, 1.0)) ** 2 >= 2.0 ** (bits - 2))):
        return
    # Nor uint64 wrapped below 0 by a derivative's pass ``(Σ|w|, taps, True)``: a later pass may round it to 2**64 or not.
    if bits == 64 and want.dtype.kind == "u" and any(p[2:] == (True,) for t in terms for p in t[:-1]):
        return
    levels = sum(sum(math.prod(max(1.0, q[0]) for q in t[i + 1 :]) for i in range(len(t))) for t in terms)
    levels += math.ceil(tol) + squares
    if bits == 64 and want.dtype.kind == "u" and (want >= 2**63).any():  # wrapped below 0, read in float64
        levels += 2**12 * sum(len(t) for t in terms)
    mask = np.uint64(2**bits - 1 if bits < 64 else 2**64 - 1)
    d = (got.astype(np.uint64) - want.astype(np.uint64)) & mask
    d = np.minimum(d, (np.uint64(0) - d) & mask)
    assert d.max(initial=0) <= levels, f"{d.max()} levels apart, at most {levels}"


def check(name, args, kw, x, terms, deliberate=False, skip=False, averaging=False, squares=False, exact=None, ref=None):
    """ferroconv's ``name(x, *args, **kw)`` (``name`` or a callable) against scipy's (or ``ref(output)``):
    scipy's result (or, where it differs, ``exact(want)``, the definition scipy leaves), or a refusal where
    scipy refuses (or where ``deliberate``)."""
    token, chan = kw.pop("output", None), kw.get("channel_axis")
    fn = getattr(ferroconv, name) if isinstance(name, str) else name
    out = output_of(token, x)
    mkind, got = ours(lambda: fn(x, *args, output=out, **kw))
    # scipy's correlate keeps a negative scalar axis as it is (its weights get an axis too many): given non-negative.
    fix = lambda a: a + x.ndim if isinstance(a, (int, np.integer)) and not isinstance(a, bool) and -x.ndim <= a < 0 else a  # noqa: E731
    plain = {k: fix(v) if k == "axes" else v for k, v in kw.items() if k != "channel_axis"}
    if chan is not None:  # scipy's equivalent: axes= every other axis
        plain["axes"] = tuple(filtered_axes(x, None, chan))
    ref = ref or (lambda o: getattr(ndi, name)(x, *args, output=o, **plain))
    their_out = output_of(token, x)
    kind, want = theirs(lambda: ref(their_out), skip)
    want = their_out if kind == "ok" and isinstance(their_out, np.ndarray) else want
    if kind == "raise" and x.dtype.kind != "c" and "complex" in str(token):
        # A complex output of real input, which scipy's 1D filters refuse: the real result.
        kind, want = theirs(lambda: ref(output_of(("array", "float64") if isinstance(token, tuple) else "float64", x)), skip)
        want = want.astype(np.complex128) if kind == "ok" else want
    cval = kw.get("cval", 0.0)
    if mkind == "raise":
        assert kind != "ok" or deliberate, f"scipy accepts it, ferroconv raised {got!r}"
    elif kind == "ok":
        assert not isinstance(out, np.ndarray) or got is out
        try:
            same(got, want, terms(), x, cval, squares)
        except AssertionError:
            if exact is None or exact(want) is None:
                raise
            same(got, exact(want), terms(), x, cval, squares)
    elif kind == "raise":
        raise AssertionError(f"scipy raises {want!r}, ferroconv returned a result")
    else:
        dtype = np.dtype(x.dtype if out is None else getattr(out, "dtype", out))
        if x.dtype.kind == "c" and isinstance(token, np.dtype) and name not in ("gaussian_filter", "sobel", "prewitt", "laplace", "gaussian_laplace", "gaussian_gradient_magnitude"):
            dtype = np.promote_types(dtype, np.complex64)  # a real dtype promoted; the others keep the real part
        assert got.shape == x.shape and got.dtype == dtype
        if averaging and x.dtype.kind == "f" and dtype.kind == "f":
            c = float(cval) if CANONICAL.get(kw.get("mode"), kw.get("mode")) == "constant" else float(x.min())
            low, high, slack = min(float(x.min()), c), max(float(x.max()), c), 1e-4 * max(1.0, abs(c), float(np.abs(x).max()))
            assert np.all(np.isfinite(got)) and got.min() >= low - slack and got.max() <= high + slack


def gauss(s, order, truncate, radius):
    """(Σ|taps|, taps, a derivative) of scipy's 1D Gaussian (or its derivative) of sigma ``s``."""
    r = int(radius) if radius is not None else int(float(truncate) * float(s) + 0.5)
    return float(np.abs(_gaussian_kernel1d(float(s), int(order), r)).sum()), 2 * r + 1, int(order) > 0


def gaussian_taps(sigma, truncate, radius, k):
    """The most taps scipy would form on an axis (0 where it would raise first)."""
    try:
        return max([2 * (int(r) if r is not None else int(abs(float(truncate) * float(s)) + 0.5)) + 1
                    for s, r in zip(seq(sigma, k), seq(radius, k))] + [0])
    except (TypeError, ValueError, OverflowError):
        return 0


def overflows(terms, order):
    """Whether scipy's taps (of orders up to 6) are not finite: 1/sigma**2 or its powers past float64's range."""
    if not all(isinstance(o, (int, np.integer)) and 0 <= o <= 6 for o in seq(order, 1)):
        return False
    try:
        return not all(math.isfinite(p[0]) for t in terms() for p in t)
    except Exception:  # noqa: BLE001 - values scipy refuses
        return False


@pytest.mark.parametrize("name", ["gaussian_filter", "gaussian_filter1d"])
@SETTINGS
@given(data=st.data())
def test_gaussian_filters(name, data):
    one = name == "gaussian_filter1d"
    x = data.draw(arrays(complex_=not one))
    axes, chan = (None, None) if one else axes_for(data.draw, x)
    k = 1 if one else len(filtered_axes(x, axes, chan))
    each = (lambda sane: sane) if one else (lambda sane: per_axis(sane, k))  # noqa: E731
    sigma, axis = data.draw(odd(each(kept(st.floats, -1, 12)))), data.draw(odd(kept(st.integers, -x.ndim, x.ndim - 1)))
    order = data.draw(odd(each(kept(st.integers, 0, 3)), odds=8)) if data.draw(st.booleans()) else 0
    truncate, radius = data.draw(odd(kept(st.floats, -1, 8))), data.draw(st.one_of(st.none(), st.none(), odd(kept(st.integers, 0, 30))))
    kw = dict(order=order, mode=data.draw(modes), cval=data.draw(cvals), truncate=truncate, radius=radius, output=data.draw(outputs))
    taps = gaussian_taps(sigma, truncate, radius, k)
    # gaussian_filter leaves an axis of sigma <= 1e-15 as it is; gaussian_filter1d filters with any sigma.
    terms = lambda: [[gauss(s, o, truncate, r) for s, o, r in zip(seq(sigma, k), seq(order, k), seq(radius, k))  # noqa: E731
                      if one or s > 1e-15]]
    deliberate = refused(kw["cval"], nan=[sigma], inf=[sigma], floats=[order]) or (not one and (unfiltered(sigma, 1e-15) or k == 0))
    # scipy's taps of a derivative past order 6 lose every digit (ferroconv's stay exact); those of a tiny sigma
    # are NaN (ferroconv's result not compared, or a refusal).
    nan_taps = taps <= SCIPY_TAPS and overflows(terms, order)
    big = taps > SCIPY_TAPS or max((o for o in seq(order, 1) if isinstance(o, int)), default=0) > 6 or nan_taps
    args, kw = ((sigma, axis), kw) if one else ((sigma,), dict(kw, axes=axes, channel_axis=chan))
    check(name, args, kw, x, terms, deliberate or nan_taps, big, order == 0 and not nan_taps)


@pytest.mark.parametrize("name", ["uniform_filter", "uniform_filter1d"])
@SETTINGS
@given(data=st.data())
def test_uniform_filters(name, data):
    one = name == "uniform_filter1d"
    x = data.draw(arrays(complex_=not one))
    axes, chan = (None, None) if one else axes_for(data.draw, x)
    k = 1 if one else len(filtered_axes(x, axes, chan))
    if one:  # an integer size, an origin within it mostly
        size, axis = data.draw(odd(kept(st.integers, 1, 30))), data.draw(odd(kept(st.integers, -x.ndim, x.ndim - 1)))
        inside = isinstance(size, int) and 1 <= size <= 30
        origin = data.draw(odd(kept(st.integers, -(size // 2), (size - 1) // 2) if inside else kept(st.integers, -3, 3)))
        args, extra = (size, axis), {}
    else:
        size = data.draw(odd(per_axis(st.one_of(kept(st.integers, -1, 30), kept(st.floats, -1, 30)), k)))
        origin = data.draw(odd(per_axis(kept(st.integers, -2, 2), k), odds=4)) if data.draw(st.booleans()) else 0
        args, extra, axis = (size,), dict(axes=axes, channel_axis=chan), None
    kw = dict(origin=origin, mode=data.draw(modes), cval=data.draw(cvals), output=data.draw(outputs), **extra)
    try:
        big = max(abs(float(s)) for s in seq(size, 1)) > 1e5
    except (TypeError, ValueError, OverflowError):
        big = False
    terms = lambda: [[(1.0, int(s)) for s in seq(size, k) if s > 1]]  # noqa: E731
    deliberate = refused(kw["cval"], nan=[size], inf=[size]) or (not one and (unfiltered(size, 1) or k == 0))
    check(name, args, kw, x, terms, deliberate, big, True)


def weights_for(draw, shape, unsigned):
    """Weights of ``shape``, now and then complex, not finite or anything; positive (Σ <= 1) for unsigned data."""
    w = np.random.default_rng(draw(kept(st.integers, 0, 2**16))).standard_normal(shape)
    if unsigned:
        w = np.abs(w) / max(1.0, float(np.abs(w).sum()))
    pick = draw(kept(st.integers, 1, 14))
    if pick == 14 and w.size:
        w.flat[draw(kept(st.integers, 0, w.size - 1))] = draw(st.sampled_from([NAN, INF, -INF]))
    elif pick == 13 and not unsigned:
        w = w + 1j * w[(slice(None, None, -1),) * w.ndim]
    extra = [np.ones((0, 2)), [[1, 2], [3]], np.ones(0)]
    return draw(mostly(st.just(w), st.sampled_from(WEIRD + extra), odds=12))


def about(w):
    """(complex, not finite, its pass (Σ|w| of both parts, taps)) of weights; (False, False, ...) for no numbers."""
    try:
        a = np.asarray(w, dtype=np.complex128 if np.iscomplexobj(w) else np.float64)
    except (TypeError, ValueError):
        return False, False, [[(0.0, 1)]]
    return a.dtype.kind == "c", not np.isfinite(a).all(), [[(float(np.abs(a.real).sum() + np.abs(a.imag).sum()), 2 * a.size)]]


def definition(x, w, mode, cval, origins, flip):
    """Correlation by definition: ``x`` extended by numpy.pad, however far, correlated where no border is read."""
    if flip:
        w = w[(slice(None, None, -1),) * w.ndim]
        origins = [-o - (1 - k % 2) for o, k in zip(origins, w.shape)]
    mode, c = CANONICAL.get(mode, mode), [k // 2 + o for k, o in zip(w.shape, origins)]
    extra = {"constant_values": cval} if mode == "constant" else {}
    p = np.pad(x.astype(np.complex128 if w.dtype.kind == "c" or x.dtype.kind == "c" else np.float64),
               [(ci, k - 1 - ci) for k, ci in zip(w.shape, c)], mode=PAD[mode], **extra)
    return ndi.correlate(p, w, mode="constant")[tuple(slice(k // 2, k // 2 + n) for k, n in zip(w.shape, x.shape))]


@pytest.mark.parametrize("name", ["correlate", "convolve", "Filter2D"])
@SETTINGS
@given(data=st.data())
def test_correlate_convolve_and_plans(name, data):
    x = data.draw(arrays(complex_=name != "Filter2D", ndim=(2, 3) if name == "Filter2D" else (1, 3)))
    axes, _ = axes_for(data.draw, x, channel=False)
    k = 2 if name == "Filter2D" else len(filtered_axes(x, axes, None))
    if name == "Filter2D" and axes is None and x.ndim > 2:
        axes = (-2, -1)  # the plan's default: the last two axes
    shape = tuple(data.draw(kept(st.integers, 1, 16 if k < 3 else 5)) for _ in range(k + data.draw(st.sampled_from([0] * 12 + [-1, 1]))))
    w = weights_for(data.draw, shape, x.dtype.kind == "u")
    try:
        sane_origin = st.tuples(*(st.integers(-(n // 2), (n - 1) // 2) for n in np.shape(w))) if np.size(w) > 1 else st.just(0)
    except ValueError:  # ragged
        sane_origin = st.just(0)
    origin, mode, cval = data.draw(odd(st.one_of(st.just(0), sane_origin), odds=5)), data.draw(modes), data.draw(cvals)
    base, token, (complex_, infinite, terms) = dict(mode=mode, cval=cval, origin=origin), data.draw(outputs), about(w)
    deliberate = refused(cval) or infinite or (axes is not None and not valid_axes(x, axes)) or (isinstance(w, np.ndarray) and w.size == 0)  # scipy: zeros
    fn, args, kw, ref = name, (w,), dict(base, output=token, axes=axes), None
    if name == "Filter2D":  # 2D real weights within float32's range only
        deliberate = deliberate or complex_ or not isinstance(w, np.ndarray) or w.ndim != 2
        plan_axes = None if axes == (-2, -1) else axes
        fn = lambda x, output, **_: ferroconv.Filter2D(w, mode=mode, cval=cval, origin=origin)(x, output, axes=plan_axes)  # noqa: E731
        args, kw, ref = (), dict(output=token, cval=cval, mode=mode), lambda o: ndi.correlate(x, w, output=o, axes=axes, **base)

    def exact(want):
        """The definition, where scipy's N-D reflect leaves it (weights longer than an axis)."""
        ax, origins = filtered_axes(x, axes, None), [0] * x.ndim
        full = np.expand_dims(np.asarray(w), tuple(a for a in range(x.ndim) if a not in ax))  # scipy's weights of every axis
        for o, a in zip(seq(origin, len(ax)), ax if len(ax) < x.ndim else range(x.ndim)):  # (by the array's axes where all are)
            origins[a] = int(o)
        if CANONICAL.get(mode, mode) != "reflect" or all(n >= k for n, k in zip(x.shape, full.shape)):
            return None
        d = definition(x, full, mode, float(cval), origins, name == "convolve")
        return d.astype(want.dtype) if want.dtype.kind in "fc" else d.real.astype(np.int64).astype(want.dtype)

    check(fn, args, kw, x, lambda: terms, deliberate, exact=exact, ref=ref)


@pytest.mark.parametrize("name", ["correlate1d", "convolve1d"])
@SETTINGS
@given(data=st.data())
def test_correlate1d_convolve1d(name, data):
    x, n = data.draw(arrays(complex_=True)), data.draw(kept(st.integers, 1, 24))
    w = weights_for(data.draw, (n,), x.dtype.kind == "u")
    axis, origin = data.draw(odd(kept(st.integers, -x.ndim, x.ndim - 1))), data.draw(odd(st.integers(-(n // 2), (n - 1) // 2)))
    kw = dict(mode=data.draw(modes), cval=data.draw(cvals), origin=origin, output=data.draw(outputs))
    complex_, infinite, terms = about(w)
    check(name, (w, axis), kw, x, lambda: terms, refused(kw["cval"]) or infinite)


@pytest.mark.parametrize("name", ["sobel", "prewitt", "laplace"])
@SETTINGS
@given(data=st.data())
def test_sobel_prewitt_laplace(name, data):
    x = data.draw(arrays())
    if name == "laplace":
        (axes, chan), axis = axes_for(data.draw, x), None
        k = len(filtered_axes(x, axes, chan))
        args, extra, terms = (), dict(axes=axes, channel_axis=chan), lambda: [[(4.0, 3)] for _ in range(k)]
    else:
        axes, chan, axis, k = None, None, data.draw(odd(kept(st.integers, -x.ndim, x.ndim - 1))), x.ndim
        args, extra, terms = (axis,), {}, lambda: [[(2.0, 3)] + [(4.0 if name == "sobel" else 3.0, 3)] * (x.ndim - 1)]
    kw = dict(mode=data.draw(mostly(modes, per_axis(st.sampled_from(MODES), k), odds=4)), cval=data.draw(cvals), output=data.draw(outputs))
    deliberate = refused(kw["cval"]) or k == 0
    check(name, args, dict(kw, **extra), x, terms, deliberate)


@pytest.mark.parametrize("name", ["gaussian_laplace", "gaussian_gradient_magnitude"])
@SETTINGS
@given(data=st.data())
def test_gaussian_laplace_and_gradient_magnitude(name, data):
    x = data.draw(arrays())
    axes, chan = axes_for(data.draw, x, channel=name == "gaussian_laplace")
    k = len(filtered_axes(x, axes, chan))
    ks = x.ndim if name == "gaussian_gradient_magnitude" else k  # scipy's magnitude smooths every axis
    sigma = data.draw(odd(per_axis(kept(st.floats, 0, 8), ks)))
    extra = data.draw(st.sampled_from([{}, {}, {}, {"truncate": 2.5}, {"radius": 3}, {"truncate": NAN}, {"radius": -1}, {"radius": 2.5}]))
    kw = dict(mode=data.draw(modes), cval=data.draw(cvals), output=data.draw(outputs), **extra)
    truncate, radius, order = extra.get("truncate", 4.0), extra.get("radius"), 2 if name == "gaussian_laplace" else 1
    big = gaussian_taps(sigma, truncate, radius, ks) > SCIPY_TAPS

    def terms():
        fa, sig = filtered_axes(x, axes, chan), seq(sigma, ks)
        full = sig if ks == x.ndim else [sig[fa.index(a)] if a in fa else 0 for a in range(x.ndim)]
        return [[gauss(s, order if i == a else 0, truncate, radius) for i, s in enumerate(full) if s > 1e-15] for a in fa]

    deliberate = refused(kw["cval"], nan=[sigma, truncate], inf=[sigma]) or unfiltered(sigma, 1e-15) or k == 0
    check(name, (sigma,), dict(kw, axes=axes, channel_axis=chan), x, terms, deliberate, big, squares=name == "gaussian_gradient_magnitude")


DEPTHS = {-1: None, 0: np.uint8, 2: np.uint16, 3: np.int16, 5: np.float32, 6: np.float64}
CV_MODES = {0: "constant", 1: "nearest", 2: "reflect", 3: "wrap", 4: "mirror"}


@SETTINGS
@given(data=st.data())
def test_cv_filter2d(data):
    """OpenCV's filter2D on 2D images of its dtypes: cv2's definition in scipy's terms, a
    correlation with origin (ay - rows // 2, ax - cols // 2) plus delta, converted to the depth
    (integers rounded and saturated); one-line errors for what cv2 refuses."""
    x = data.draw(arrays(ints=False, ndim=(2, 2)))
    x = np.clip(np.abs(x) * 100, 0, 65535).astype(data.draw(st.sampled_from([np.uint8, np.uint16]))) if data.draw(st.booleans()) else x
    rows, cols = data.draw(kept(st.integers, 1, 20)), data.draw(kept(st.integers, 1, 20))
    k = np.random.default_rng(data.draw(kept(st.integers, 0, 2**16))).random((rows, cols)) - 0.3
    k = data.draw(mostly(st.just(k), st.sampled_from(WEIRD + [np.ones(3)]), odds=10))
    ddepth = data.draw(st.one_of(st.sampled_from(list(DEPTHS)), st.sampled_from([1, 4, 7, 5.0, None, "5"])))
    border = data.draw(st.one_of(st.sampled_from(list(CV_MODES)), st.sampled_from([5, 16, 4.0, None])))
    delta = data.draw(st.one_of(st.just(0), kept(st.floats, -100, 100), st.sampled_from([NAN, INF, "1", None])))
    anchor = data.draw(st.one_of(st.none(), st.tuples(kept(st.integers, -1, cols - 1), kept(st.integers, -1, rows - 1)),
                                 st.sampled_from([(0.5, 0), (cols, 0), (0, -2), (1,), "a"])))
    kind, got = ours(lambda: cv.filter2d(x, ddepth, k, anchor=anchor, delta=delta, borderType=border))
    ints = lambda *v: all(type(a) is int for a in v)  # noqa: E731
    if not (isinstance(k, np.ndarray) and k.ndim == 2 and ints(ddepth, border) and ddepth in DEPTHS and border in CV_MODES
            and isinstance(delta, (int, float)) and math.isfinite(delta) and (anchor is None or (
                isinstance(anchor, tuple) and len(anchor) == 2 and ints(*anchor) and -1 <= anchor[0] < cols and -1 <= anchor[1] < rows))):
        assert kind == "raise", f"filter2d accepted {ddepth!r} {border!r} {delta!r} {anchor!r}"
        return
    assert kind == "ok", got
    ax, ay = anchor or (-1, -1)
    origin, mode = (0 if ay == -1 else ay - rows // 2, 0 if ax == -1 else ax - cols // 2), CV_MODES[border]
    want = ndi.correlate(x.astype(np.float64), k, mode=mode, origin=origin) + delta
    if mode == "reflect" and (rows > x.shape[0] or cols > x.shape[1]):
        want = definition(x, k, mode, 0.0, origin, False).real + delta
    target = np.dtype(DEPTHS[ddepth] or x.dtype)
    assert got.dtype == target and got.shape == x.shape
    if target.kind in "ui":
        want = np.clip(np.rint(want), np.iinfo(target).min, np.iinfo(target).max)
    tol = 1 if target.kind in "ui" else 2e-5 * float(np.abs(k).sum()) * max(1.0, float(np.abs(x).max())) + 1e-5 * abs(delta)
    assert np.abs(got.astype(np.float64) - want).max() <= tol
