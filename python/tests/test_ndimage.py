"""ferroconv as a drop-in for scipy.ndimage's 13 linear filters: same signatures, same results
(within the verify bound for floats, or scipy's integer levels), same refusals, on numpy arrays (on
torch / CuPy CUDA arrays: test_ndimage_gpu.py, with these helpers).

FERROCONV_TEST_AGAINST_SCIPY=1 runs this file with scipy.ndimage in ferroconv's place: a
self-check of its expectations (ferroconv-only behaviour and the GPU tests skip then)."""

import inspect
import math
import os
import zlib

import numpy as np
import pytest
import scipy.ndimage as ndi

SELF = os.environ.get("FERROCONV_TEST_AGAINST_SCIPY") == "1"
if SELF:
    F = ndi
else:
    import ferroconv as F

ours_only = pytest.mark.skipif(SELF, reason="ferroconv-only behaviour (self-check mode)")
RAISES = (TypeError, ValueError, RuntimeError)  # numpy's AxisError is a ValueError
NAMES = ["correlate", "convolve", "correlate1d", "convolve1d", "gaussian_filter", "gaussian_filter1d", "uniform_filter",
         "uniform_filter1d", "sobel", "prewitt", "laplace", "gaussian_laplace", "gaussian_gradient_magnitude"]
ONE_AXIS = {"correlate1d", "convolve1d", "gaussian_filter1d", "uniform_filter1d", "sobel", "prewitt"}
MODES = ["reflect", "mirror", "nearest", "wrap", "constant", "grid-mirror", "grid-wrap", "grid-constant"]
SHAPES = [(), (0, 5), (37,), (23, 31), (5, 12, 17), (9, 11, 3), (2, 3, 7, 6), (3, 2, 4, 5, 3)]
INTS = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]
# Integer intermediates truncated per pass: a rounding boundary in one pass moves its neighbours
# in the next. A float32 kernel summing w=1/size products differs from scipy on up to ~4% of
# int16/int64 samples that way; a wrong pass order (scipy: ascending axes) on ~14%.
MULTIPASS = {"uniform_filter", "gaussian_filter"}
INT_EXACT = {"sobel", "prewitt", "laplace"}  # integer taps: exact on integer data


def rng_for(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def data(shape, dtype, seed, lo=None, hi=None):
    """Random samples: normal for floats (complex: both parts), integers in [lo, hi]."""
    rng = rng_for(shape, np.dtype(dtype).str, seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        lo = (0 if dt.kind == "u" else -100) if lo is None else lo
        return rng.integers(lo, (100 if hi is None else hi) + 1, shape).astype(dt)
    x = rng.standard_normal(shape) * 3
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape) * 3
    return x.astype(dt)


def params(name, ndim, rng):
    """The arguments of a plain call of `name` on an array of `ndim` dimensions."""
    if name in ("correlate", "convolve"):
        return {"weights": rng.standard_normal((3, 4, 5, 2, 3)[:ndim])}
    if name in ("correlate1d", "convolve1d"):
        return {"weights": rng.standard_normal(5)}
    return {
        "gaussian_filter": {"sigma": 1.3}, "gaussian_filter1d": {"sigma": 1.7},
        "uniform_filter": {"size": 3}, "uniform_filter1d": {"size": 4},
        "gaussian_laplace": {"sigma": 1.1}, "gaussian_gradient_magnitude": {"sigma": 1.1},
    }.get(name, {})


def gauss(sigma, order, truncate, radius):
    """(sum of |taps|, taps) of scipy's 1-D Gaussian kernel."""
    r = int(radius) if radius is not None else int(truncate * float(sigma) + 0.5)
    impulse = np.zeros(2 * r + 1)
    impulse[r] = 1
    k = ndi.gaussian_filter1d(impulse, sigma, order=order, mode="constant", truncate=truncate, radius=radius)
    return float(np.abs(k).sum()), 2 * r + 1


def cost(name, ndim, kw):
    """(S, n) of the bound: the product of the passes' sums of |w|, and their taps summed."""
    def seq(v, k):
        return list(v) if np.ndim(v) else [v] * k

    if "weights" in kw:
        w = np.asarray(kw["weights"])
        return float(np.abs(w.real).sum() + np.abs(w.imag).sum()), max(w.size, 1) * (2 if w.dtype.kind == "c" else 1)
    axes, chan = kw.get("axes"), kw.get("channel_axis")
    k = ndim if axes is None else 1 if np.ndim(axes) == 0 else len(axes)
    k -= chan is not None
    t, rad = kw.get("truncate", 4.0), kw.get("radius")
    if name == "uniform_filter1d":
        return 1.0, kw["size"]
    if name == "uniform_filter":
        return 1.0, sum(seq(kw.get("size", 3), k))
    if name in ("sobel", "prewitt"):
        return 2.0 * (4 if name == "sobel" else 3) ** (k - 1), 3 * k
    if name == "laplace":
        return 4.0 * k, 4 * k
    if name == "gaussian_filter1d":
        return gauss(kw["sigma"], kw.get("order", 0), t, rad)
    sig, r = seq(kw["sigma"], k), seq(rad, k)
    if name == "gaussian_filter":
        p = [gauss(s, o, t, rr) for s, o, rr in zip(sig, seq(kw.get("order", 0), k), r)]
        return math.prod(s for s, _ in p), sum(n for _, n in p)
    base = [gauss(s, 0, t, rr) for s, rr in zip(sig, r)]
    der = [gauss(s, 2 if name == "gaussian_laplace" else 1, t, rr) for s, rr in zip(sig, r)]
    S = sum(der[i][0] * math.prod(b[0] for j, b in enumerate(base) if j != i) for i in range(k))
    # k terms, each through up to every axis (scipy's gradient magnitude smooths all of them).
    return S, k * max(k, ndim) * max((n for _, n in base), default=1) + k + 2


def eps_of(dtype):
    return 2.0**-24 if np.dtype(dtype) in (np.float16, np.float32, np.complex64) else 2.0**-53


def bound(S, n, M, eps):
    """The verify bound: 2·n·eps·S·max|x| (4x slack in float64), plus a tiny floor."""
    slack = 4 if eps < 2.0**-30 else 1
    return slack * 2 * n * eps * S * M + 4 * eps * M + 1e-300


def magnitude(x, kw):
    """max|x| over real and imaginary parts, and |cval|."""
    x = np.asarray(x)
    m = max(np.abs(x.real).max(initial=0), np.abs(x.imag).max(initial=0)) if x.size else 0.0
    return float(max(m, abs(kw.get("cval", 0.0))))


def compare(got, want, tol, ref64=None, rule="single"):
    """`got` is scipy's `want`: floats (each part) within `tol`; integers equal, but one level
    where scipy's float64 value `ref64` is within `tol` of an integer ("single"), on at most 5%
    of the samples ("multipass"), or nowhere ("exact")."""
    assert isinstance(got, np.ndarray), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind in "fc":
        for part in ("real", "imag") if want.dtype.kind == "c" else ("real",):
            g, w = getattr(got, part).astype(np.float64), getattr(want, part).astype(np.float64)
            err = np.abs(g - w).max(initial=0)
            assert np.isfinite(g).all() and err <= tol, f"{part}: max error {err:.3g} > bound {tol:.3g}"
        return
    d = np.abs(got.astype(np.int64) - want.astype(np.int64))
    if rule == "multipass":
        frac = np.mean(d != 0) if d.size else 0.0
        assert d.max(initial=0) <= 1 and frac <= 0.05, f"max {d.max()} levels off, on {frac:.1%}"
    elif rule == "exact":
        assert (d == 0).all(), f"{np.count_nonzero(d)} samples differ"
    else:
        near = np.abs(ref64 - np.round(ref64)) <= tol
        bad = (d > 1) | ((d == 1) & ~near)
        assert not bad.any(), f"{np.count_nonzero(bad)} samples differ off a rounding boundary"


def judge(name, got, want, x, kw, ref):
    """compare() with the bound of `name`'s call on `x`; `ref(**kw)` is scipy's result (its
    float64 one decides the rounding boundaries of a single-pass integer result)."""
    S, n = cost(name, np.ndim(x), kw)
    M = magnitude(x, kw)
    if want.dtype.kind in "fc":
        return compare(got, want, bound(S, n, M, eps_of(want.dtype)))
    rule = "exact" if name in INT_EXACT else "multipass" if name in MULTIPASS else "single"
    ref64 = ref(**{**kw, "output": np.float64}) if rule == "single" else None
    compare(got, want, bound(S, n, M, 2.0**-24), ref64, rule)


def check(name, x, ref=None, **kw):
    """F.name(x, **kw) against scipy's result (or `ref(**kw)`, a stand-in); where scipy raises,
    ours raises too."""
    if ref is None:  # scipy itself: where it refuses, so do we
        ref = lambda **k: getattr(ndi, name)(x, **k)  # noqa: E731
        try:
            ref(**kw)
        except RAISES:
            with pytest.raises(RAISES):
                getattr(F, name)(x, **kw)
            return
    want = ref(**kw)
    judge(name, getattr(F, name)(x, **kw), want, x, kw, ref)


# 1. Every function, every mode, 0-D to 5-D and empty, float32 and float64.
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_matches_scipy(name, shape, dtype):
    """Each filter equals scipy's within the bound in every mode and grid-* alias, on every rank;
    0-D and empty arrays as scipy takes them (or refuses them: then ours raises)."""
    x = data(shape, dtype, 0)
    kw = params(name, len(shape), rng_for(name, shape))
    axes = [{}] if name not in ONE_AXIS else [{"axis": -1}, {"axis": 0}] if len(shape) > 1 else [{"axis": -1}]
    for axis in axes:
        for mode in MODES:
            check(name, x, mode=mode, cval=0.37, **axis, **kw)


# 2. axes=, per-axis sequences, origins, channel_axis.
W = lambda *s: rng_for("W", s).standard_normal(s)  # noqa: E731
AXES_CASES = [
    ("correlate", (7, 9, 4), dict(weights=W(3, 5), axes=(1, 0), origin=(2, -1))),
    ("correlate", (7, 9, 4), dict(weights=W(3, 5), axes=(0, 1), origin=(-1, 2))),
    ("correlate", (7, 9, 4), dict(weights=W(4), axes=1, origin=-2)),
    ("correlate", (2, 3, 7, 6), dict(weights=W(3, 3), axes=(-2, -1), mode="wrap")),
    ("convolve", (7, 9, 4), dict(weights=W(3, 4), axes=(2, 0), origin=(1, -1))),
    ("correlate", (23, 31), dict(weights=W(3, 4), origin=1, mode="constant", cval=2.0)),
    ("convolve", (23, 31), dict(weights=W(5, 3), origin=(-2, 1), mode="mirror")),
    ("correlate1d", (23, 31), dict(weights=W(6), axis=0, origin=-3)),
    ("convolve1d", (5, 12, 17), dict(weights=W(4), axis=1, origin=1, mode="nearest")),
    ("gaussian_filter", (5, 12, 17), dict(sigma=(1.0, 2.5, 0.7), order=(0, 1, 2), mode=("wrap", "nearest", "constant"), cval=0.5)),
    ("gaussian_filter", (5, 12, 17), dict(sigma=(2.0, 0.8), order=(1, 0), axes=(2, 0), mode=("mirror", "constant"))),
    ("gaussian_filter", (5, 12, 17), dict(sigma=1.5, axes=1, order=3)),
    ("gaussian_filter", (23, 31), dict(sigma=(1.2, 3.0), radius=(2, 7))),
    ("gaussian_filter", (23, 31), dict(sigma=2.0, truncate=1.5, mode="mirror")),
    ("gaussian_filter1d", (23, 31), dict(sigma=2.2, axis=0, order=2, radius=4)),
    ("gaussian_filter1d", (5, 12, 17), dict(sigma=0.9, axis=1, order=1, truncate=2.0, mode="wrap")),
    ("uniform_filter", (5, 12, 17), dict(size=(3, 4, 2), origin=(1, -2, 0), mode=("reflect", "wrap", "nearest"))),
    ("uniform_filter", (5, 12, 17), dict(size=(5, 3), axes=(2, 1), origin=(-1, 1))),
    ("uniform_filter", (5, 12, 17), dict(size=4, axes=-1)),
    ("uniform_filter1d", (23, 31), dict(size=6, axis=0, origin=2, mode="constant", cval=1.5)),
    ("sobel", (5, 12, 17), dict(axis=1, mode=("wrap", "constant", "mirror"), cval=0.3)),
    ("prewitt", (5, 12, 17), dict(axis=0, mode=("nearest", "reflect", "wrap"))),
    ("laplace", (5, 12, 17), dict(axes=(2, 0), mode=("wrap", "constant"), cval=-1.0)),
    ("laplace", (5, 12, 17), dict(axes=1)),
    ("gaussian_laplace", (5, 12, 17), dict(sigma=(1.0, 2.0), axes=(0, 2), mode=("mirror", "wrap"))),
    ("gaussian_laplace", (23, 31), dict(sigma=1.5, truncate=2.5)),
    ("gaussian_gradient_magnitude", (5, 12, 17), dict(sigma=(0.8, 1.6, 1.1), mode=("nearest", "wrap", "constant"))),
    # scipy's gradient magnitude smooths every axis, even with axes= (its gaussian_laplace doesn't).
    ("gaussian_gradient_magnitude", (5, 12, 17), dict(sigma=1.2, axes=1, radius=3)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(AXES_CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(AXES_CASES)])
def test_axes_sequences_and_origins(case, dtype):
    """axes= (reversed, negative, a single int), per-axis sigma/order/size/mode/origin/radius
    sequences and non-zero origins: scipy's result."""
    name, shape, kw = AXES_CASES[case]
    check(name, data(shape, dtype, case), **kw)


def per_channel(name, x, chan, **kw):
    """scipy's `name` on each channel of `x` (along axis `chan`) alone, restacked."""
    nd = x.ndim
    if "axis" in kw:
        kw["axis"] -= kw["axis"] > chan % nd
    out = [getattr(ndi, name)(c, **kw) for c in np.moveaxis(x, chan, 0)]
    return np.moveaxis(np.stack(out), 0, chan)


CHANNEL_CASES = [((9, 11, 3), -1), ((2, 12, 17, 3), -1), ((3, 12, 17), 0)]


@ours_only
@pytest.mark.parametrize("layout", CHANNEL_CASES, ids=str)
@pytest.mark.parametrize("name", [n for n in NAMES if not n.endswith("1d")])
def test_channel_axis(name, layout):
    """channel_axis=k filters each channel alone: scipy on each channel (which is scipy with axes=
    every other axis, but for gaussian_gradient_magnitude: scipy's smooths every axis)."""
    shape, chan = layout
    x = data(shape, np.float32, 4)
    nd = len(shape)
    ref = lambda channel_axis, **k: per_channel(name, x, channel_axis, **k)  # noqa: E731
    kw = params(name, nd - 1, rng_for(name, shape))
    if name in ("sobel", "prewitt"):
        kw["axis"] = max(a for a in range(nd) if a != chan % nd)
    check(name, x, ref, channel_axis=chan, mode="mirror", **kw)
    if name == "gaussian_filter":
        check(name, x, ref, channel_axis=chan, sigma=(0.8, 2.0, 1.2)[: nd - 1], order=(1, 0, 2)[: nd - 1])


# 3. Integer dtypes and output dtypes.
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", ["correlate", "correlate1d", "uniform_filter", "uniform_filter1d", "gaussian_filter", "gaussian_filter1d"])
def test_integer_dtypes(name, dtype):
    """Integer data keeps its dtype with scipy's truncating cast: equal to scipy, but one level
    on a rounding boundary (single pass) or on at most 5% of samples (multi-pass)."""
    x = data((23, 31), dtype, 5)
    kw = params(name, 2, rng_for(name))
    if "weights" in kw:  # positive taps for unsigned data, signed ones for signed; sum|w| < 1
        w = np.abs(kw["weights"]) if np.dtype(dtype).kind == "u" else kw["weights"]
        kw["weights"] = w * (0.95 / np.abs(w).sum())
    for mode in MODES[:5]:
        for cval in (7.0, 2.5) if mode == "constant" else (0.0,):
            check(name, x, mode=mode, cval=cval, **kw)
    if name == "uniform_filter":
        check(name, x, size=(3, 4), origin=(0, 1))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
@pytest.mark.parametrize("name", ["sobel", "prewitt", "laplace"])
def test_integer_derivatives(name, dtype):
    """Derivatives of signed integers (results in range) equal scipy's exactly: integer taps."""
    small = dtype == np.int8  # int8: 2-D only, |x| <= 3 keeps |sobel| <= 24
    for x in [data((23, 31), dtype, 6, -3, 3)] if small else [data(s, dtype, 6, -40, 40) for s in ((23, 31), (5, 12, 17))]:
        for mode in MODES[:5]:
            check(name, x, mode=mode, cval=2.0, **({} if name == "laplace" else {"axis": 0}))


@pytest.mark.parametrize("out", [np.float32, np.float64, np.dtype("f8"), "float64", "float32"], ids=str)
@pytest.mark.parametrize("name", ["correlate", "gaussian_filter", "uniform_filter", "sobel", "gaussian_laplace"])
def test_output_dtype_on_uint8(name, out):
    """output= a dtype (any spelling) on uint8 data: scipy's result in that dtype."""
    x = data((23, 31), np.uint8, 7, 0, 255)
    check(name, x, output=out, mode="nearest", **params(name, 2, rng_for(name)))


OUT_CASES = [
    ("gaussian_filter", np.float64, np.float32, dict(sigma=1.4)),
    ("uniform_filter", np.float32, np.float64, dict(size=(3, 5))),
    ("correlate", np.int16, np.float64, dict(weights=W(3, 4))),
    ("sobel", np.uint8, np.int16, dict(axis=0)),
    ("uniform_filter1d", np.uint8, np.uint16, dict(size=5)),
    ("gaussian_laplace", np.float32, np.float64, dict(sigma=1.2)),
    ("correlate1d", np.float64, np.complex128, dict(weights=W(5) + 1j * W(5))),
]


@pytest.mark.parametrize("case", range(len(OUT_CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(OUT_CASES)])
def test_output_array(case):
    """output= an array of another dtype, poisoned first: it is returned, and holds scipy's
    result in its dtype (no stale sample survives)."""
    name, din, dout, kw = OUT_CASES[case]
    x = data((23, 31), din, 8, 0, 255)
    poison = np.nan if np.dtype(dout).kind in "fc" else 12345
    ref = lambda output, **k: getattr(ndi, name)(x, output=np.full(x.shape, poison, output), **k)  # noqa: E731
    out = np.full(x.shape, poison, dout)
    assert getattr(F, name)(x, output=out, **kw) is out
    judge(name, out, ref(dout, **kw), x, kw, ref)


# 4. Complex data and complex weights.
@pytest.mark.parametrize("dtype, wkind", [(c, w) for c in (np.complex64, np.complex128) for w in ("real", "complex")] + [(np.float32, "complex"), (np.float64, "complex")])
@pytest.mark.parametrize("name", ["correlate", "convolve", "correlate1d", "convolve1d"])
def test_complex(name, dtype, wkind):
    """Complex data and/or complex weights (real and imaginary parts as scipy, including its
    conjugated weights in correlate) in every mode."""
    shape = (5, 12, 17) if name.endswith("1d") else (23, 31)
    w = W(*((5,) if name.endswith("1d") else (3, 4)))
    if wkind == "complex":
        w = w + 1j * W(*w.shape[::-1]).T
    for mode in MODES[:5]:
        check(name, data(shape, dtype, 9), weights=w, mode=mode, cval=0.6)


# 5. Signatures.
@pytest.mark.parametrize("name", NAMES)
def test_signature(name):
    """Every scipy parameter is there with scipy's kind and default; the positional ones in
    scipy's order; any extra one keyword-only."""
    ours, theirs = inspect.signature(getattr(F, name)).parameters, inspect.signature(getattr(ndi, name)).parameters
    for p in theirs.values():
        assert p.name in ours, p.name
        assert (ours[p.name].kind, ours[p.name].default) == (p.kind, p.default), p.name
    positional = lambda ps: [p.name for p in ps.values() if p.kind == p.POSITIONAL_OR_KEYWORD]  # noqa: E731
    assert positional(ours) == positional(theirs)
    for p in ours.values():
        assert p.name in theirs or p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD), p.name
    if not SELF:
        assert ours["stream"].kind == inspect.Parameter.KEYWORD_ONLY and ours["stream"].default is None
        has_channel = not name.endswith("1d")
        assert ("channel_axis" in ours) == has_channel and (not has_channel or ours["channel_axis"].default is None)


def test_positional_calls():
    """Positional arguments land where scipy's do: correlate(x, w, out) writes and returns out,
    gaussian_filter(x, 2, 0) is order 0, and so on."""
    x = data((23, 31), np.float64, 10)
    out = np.full(x.shape, np.nan)
    calls = [
        ("correlate", (W(3, 4), out)), ("gaussian_filter", (2, 0)), ("gaussian_filter", (1.5, 1, None, "wrap")),
        ("gaussian_filter1d", (1.5, 0, 1)), ("correlate1d", (W(5), 0, None, "mirror", 0.0, 1)),
        ("convolve", (W(3, 4), None, "constant", 2.0, (1, -1))), ("uniform_filter", (5, None, "wrap")),
        ("uniform_filter1d", (4, 0, None, "nearest", 0.0, -1)), ("sobel", (0, None, "wrap")),
        ("prewitt", (0,)), ("laplace", (None, "constant", 1.0)), ("gaussian_laplace", (1.2, None, "mirror")),
        ("gaussian_gradient_magnitude", (1.2, None, "nearest")),
    ]
    for name, args in calls:
        kw = dict(inspect.signature(getattr(ndi, name)).bind(x, *args).arguments)
        del kw["input"]
        want = getattr(ndi, name)(x, **{**kw, "output": None})
        got = getattr(F, name)(x, *args)
        assert name != "correlate" or got is out
        judge(name, got, want, x, kw, None)


# 6. Refusals: scipy's, and the deliberate differences.
ERROR_CASES = [
    ("sobel", dict(axis=2)), ("correlate1d", dict(weights=[1.0, 2.0, 3.0], axis=-3)),
    ("correlate", dict(weights=np.ones((3, 3)), origin=2)), ("correlate", dict(weights=np.ones((3, 3)), mode="foo")),
    ("correlate", dict(weights=np.ones((3, 3)), mode=("reflect", "wrap"))), ("correlate", dict(weights=np.ones(3))),
    ("correlate", dict(weights=np.ones((3, 3)), output=np.zeros((4, 4)))), ("correlate1d", dict(weights=[])),
    ("correlate1d", dict(weights=np.ones((3, 3)))), ("gaussian_filter", dict(sigma=1, order=-1)),
    ("gaussian_filter", dict(sigma=1, axes=(0, 0))), ("gaussian_filter", dict(sigma=1, axes=(0, 2))),
    ("gaussian_filter", dict(sigma=(1, 2, 3))), ("uniform_filter", dict(size=(3, 3, 3))),
    ("uniform_filter1d", dict(size=0)), ("uniform_filter1d", dict(size=3, origin=2)),
    ("gaussian_filter1d", dict(sigma=1.0, truncate=np.nan)), ("laplace", dict(mode=("wrap",))),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_raises_where_scipy_raises(case):
    """Where scipy refuses a call, ferroconv refuses it too."""
    name, kw = ERROR_CASES[case]
    x = data((5, 6), np.float64, 11)
    with pytest.raises(RAISES):
        getattr(ndi, name)(x, **kw)
    with pytest.raises(RAISES):
        getattr(F, name)(x, **kw)


def test_2d_weights_on_4d_names_axes():
    """2-D weights on a 4-D array without axes= is refused, and ours says to pass axes=(-2, -1)."""
    x = data((2, 3, 7, 6), np.float32, 12)
    with pytest.raises(RAISES) as e:
        F.correlate(x, np.ones((3, 3)))
    assert SELF or "axes=(-2, -1)" in str(e.value)


@ours_only
@pytest.mark.parametrize("name", NAMES)
def test_bool_raises_type_error(name):
    """bool data is refused with TypeError (scipy computes it as 0/1 and truncates)."""
    kw = params(name, 2, rng_for(name))
    with pytest.raises(TypeError):
        getattr(F, name)(data((9, 8), np.float32, 13) > 0, **kw)


NAN_CASES = [
    ("gaussian_filter", dict(sigma=np.nan)), ("gaussian_filter", dict(sigma=(1.0, np.nan))),
    ("gaussian_filter1d", dict(sigma=np.nan)), ("gaussian_laplace", dict(sigma=np.nan)),
    ("gaussian_gradient_magnitude", dict(sigma=np.nan)), ("uniform_filter", dict(size=np.nan)),
    ("uniform_filter", dict(size=(3, np.nan))), ("uniform_filter1d", dict(size=np.nan)),
    ("gaussian_filter", dict(sigma=1.0, truncate=np.nan)),
] + [(n, {**params(n, 2, rng_for(n)), "mode": "constant", "cval": np.nan}) for n in NAMES]


@ours_only
@pytest.mark.parametrize("case", range(len(NAN_CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(NAN_CASES)])
def test_nan_raises_value_error(case):
    """A NaN sigma, size, truncate or cval is refused with ValueError (scipy takes some as 0)."""
    name, kw = NAN_CASES[case]
    with pytest.raises(ValueError):
        getattr(F, name)(data((9, 8), np.float32, 14), **kw)


def assert_half(got, want, name, x32, kw, rel):
    """`got` (float16 / bfloat16 samples) is scipy's float32 `want` rounded to `rel` (half an
    ulp, relative), within the float32 bound."""
    tol = bound(*cost(name, x32.ndim, kw), magnitude(x32, kw), 2.0**-24) + rel * np.abs(want) + 2.0**-25
    err = np.abs(np.asarray(got, np.float64) - want)
    assert (err <= tol).all(), f"{np.count_nonzero(err > tol)} samples off by up to {(err / np.maximum(tol, 1e-300)).max():.3g}x the bound"


@ours_only
@pytest.mark.parametrize("name", NAMES)
def test_float16_accepted(name):
    """float16 data (scipy refuses it) gives float16: scipy's result on a float32 copy, rounded
    once (so within the float32 bound and half a float16 ulp)."""
    x16 = data((23, 31), np.float16, 15)
    x32 = x16.astype(np.float32)
    kw = params(name, 2, rng_for(name))
    for mode in ("reflect", "constant"):
        got = getattr(F, name)(x16, mode=mode, cval=0.5, **kw)
        assert isinstance(got, np.ndarray) and got.dtype == np.float16 and got.shape == x16.shape
        assert_half(got, getattr(ndi, name)(x32, mode=mode, cval=0.5, **kw), name, x32, {**kw, "cval": 0.5}, 2.0**-11)
