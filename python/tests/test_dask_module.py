"""ferroconv.dask: the thirteen filters on dask arrays equal scipy.ndimage (and the package's one
call) on the whole array, for every mode, origins, chunks smaller than the filter, chunks that do
not divide the shape, channels, N-D stacks and integer dtypes; on a local distributed cluster;
and on CuPy chunks (and a dask_cuda cluster) where a GPU is present."""

import functools
import pickle

import numpy as np
import pytest
import scipy.ndimage as ndi

import ferroconv

da = pytest.importorskip("dask.array", reason="dask is not installed")
fd = pytest.importorskip("ferroconv.dask", reason="ferroconv.dask needs dask")

MODES = ["reflect", "nearest", "mirror", "wrap", "constant", "grid-wrap", "grid-mirror", "grid-constant"]
W54 = np.arange(20.0).reshape(5, 4) - 7.5


def data(shape, dtype=np.float64, seed=0):
    x = np.random.default_rng(seed).random(shape) * 100
    return x.astype(dtype)


def close(got, want, dtype):
    """Floats within 1e-5 (float32) or 1e-12 (float64) of max|want|; integers: scipy's, but one
    level apart on at most 5% of the samples (a pass stored in float32 rounding near a level)."""
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind in "fc":
        tol = (1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12) * max(np.abs(want).max(), 1.0)
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)
    else:
        d = np.abs(got.astype(np.int64) - want.astype(np.int64))
        assert d.max(initial=0) <= 1 and np.mean(d != 0) <= 0.05, f"max {d.max()} levels off, on {np.mean(d != 0):.1%}"


def check(name, x, chunks, *args, ref=None, **kw):
    """fd.<name> of ``x`` in ``chunks`` equals scipy's ``name`` (or ``ref(x)``) on the whole array."""
    got = getattr(fd, name)(da.from_array(x, chunks=chunks), *args, **kw)
    assert isinstance(got, da.Array) and got.shape == x.shape
    want = ref(x) if ref is not None else getattr(ndi, name)(x, *args, **kw)
    close(got.compute(scheduler="threads"), want, x.dtype)
    return got


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_mode_on_chunks_that_do_not_divide(mode, dtype):
    x = data((67, 53), dtype)
    check("gaussian_filter", x, 16, 2.0, mode=mode, cval=3.5)
    check("correlate", x, 16, W54, mode=mode, cval=-2.0, origin=(1, -2))
    check("uniform_filter1d", x, (16, 16), 6, axis=0, mode=mode, cval=4.0, origin=-3)


@pytest.mark.parametrize("mode", ["reflect", "mirror", "wrap", "constant"])
def test_chunks_smaller_than_the_radius(mode):
    x = data((67, 53), np.float32, 1)
    # radius 24 in chunks of 8: merged to at least 24; an axis shorter than 48: one chunk.
    got = check("gaussian_filter", x, 8, 6.0, mode=mode, cval=1.0)
    assert all(min(c) >= 24 and len(c) > 1 for c in got.chunks), got.chunks
    got = check("gaussian_filter", x[:, :47], (8, 8), 6.0, mode=mode, cval=1.0)
    assert got.chunks[1] == (47,)
    # A filter longer than the axis, folded: the axis one chunk.
    check("uniform_filter", x, (5, 7), (151, 3), mode=mode, cval=1.0)


@pytest.mark.parametrize("mode", ["mirror", "reflect", "nearest", "constant", "wrap"])
def test_one_sided_filters_on_chunks_of_their_reach(mode):
    # All taps on one side: the array's edge chunk in mirror reads one sample past the reach.
    x = data((29, 23), np.float64, 12)
    check("uniform_filter1d", x, (1, 23), 2, axis=0, mode=mode, cval=1.0)
    check("correlate1d", x, (3, 5), [1.0, -2.0, 0.5, 3.0], axis=0, origin=1, mode=mode, cval=1.0)
    check("convolve", x, 3, np.ones((4, 4)) - 0.2, origin=(-2, 1), mode=mode, cval=1.0)


def _random_case(rng, ndim):
    """(name, args, kwargs) of a random call along every axis, one-sided origins included."""
    mode = lambda: str(rng.choice(MODES))  # noqa: E731
    name = str(rng.choice(["correlate", "convolve1d", "gaussian_filter", "uniform_filter", "sobel", "gaussian_laplace"]))
    per_axis = [mode() for _ in range(ndim)] if rng.random() < 0.5 else mode()
    if name == "correlate":
        shape = tuple(int(k) for k in rng.integers(1, 8, ndim))
        origin = [int(rng.integers(-(k // 2), (k - 1) // 2 + 1)) for k in shape]
        return name, (rng.random(shape) - 0.3,), dict(mode=mode(), origin=origin, cval=2.5)
    if name == "convolve1d":
        k = int(rng.integers(1, 8))
        origin = int(rng.integers(-(k // 2), (k - 1) // 2 + 1))
        return name, (rng.random(k),), dict(axis=int(rng.integers(ndim)), mode=mode(), origin=origin, cval=2.5)
    if name == "gaussian_filter":
        sigma = [float(rng.choice([0.0, 0.7, 2.0])) for _ in range(ndim)]
        return name, (sigma,), dict(order=[int(o) for o in rng.integers(0, 3, ndim)], mode=per_axis, cval=2.5)
    if name == "uniform_filter":
        size = [int(k) for k in rng.integers(1, 9, ndim)]
        origin = [int(rng.integers(-(k // 2), (k - 1) // 2 + 1)) for k in size]
        return name, (size,), dict(origin=origin, mode=per_axis, cval=2.5)
    if name == "sobel":
        return name, (), dict(axis=int(rng.integers(ndim)), mode=per_axis, cval=2.5)
    return name, (float(rng.choice([0.5, 1.5])),), dict(mode=per_axis, cval=2.5)


def test_random_calls_equal_one_call():
    rng = np.random.default_rng(13)
    for _ in range(40):
        ndim = int(rng.integers(1, 4))
        x = rng.random(tuple(int(n) for n in rng.integers(1, 30, ndim)))
        chunks = tuple(int(c) for c in rng.integers(1, 10, ndim))
        name, args, kw = _random_case(rng, ndim)
        got = getattr(fd, name)(da.from_array(x, chunks=chunks), *args, **kw).compute(scheduler="sync")
        want = getattr(ferroconv, name)(x, *args, **kw)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * max(1.0, np.abs(want).max()), err_msg=f"{name} {x.shape} {chunks} {kw}")


# Each of the thirteen functions, per-axis parameters and origins, on (67, 53) in chunks of 16.
CASES = [
    ("correlate", (W54,), dict(mode="mirror", origin=(-2, 1))),
    ("convolve", (W54,), dict(mode="constant", cval=2.0, origin=(2, -1))),
    ("correlate1d", ([1.0, -2.0, 0.5, 3.0],), dict(axis=0, mode="wrap", origin=-2)),
    ("convolve1d", ([1.0, -2.0, 0.5, 3.0, 1.0, 1.0],), dict(axis=1, mode="nearest", origin=2)),
    ("gaussian_filter", ((1.5, 3.0),), dict(order=(1, 2), mode=["wrap", "mirror"], truncate=3.0)),
    ("gaussian_filter", (2.0,), dict(mode="constant", cval=-1.0, radius=(3, 9))),
    ("gaussian_filter1d", (2.5,), dict(axis=0, order=1, mode="grid-constant", cval=5.0)),
    ("uniform_filter", ((4, 7),), dict(mode=["constant", "wrap"], cval=3.0, origin=(1, -3))),
    ("uniform_filter1d", (5,), dict(axis=-1, mode="mirror", origin=2)),
    ("sobel", (), dict(axis=0, mode=["wrap", "constant"], cval=2.0)),
    ("prewitt", (), dict(axis=1, mode="mirror")),
    ("laplace", (), dict(mode=["nearest", "wrap"])),
    ("gaussian_laplace", ((1.0, 2.0),), dict(mode="wrap", truncate=3.0)),
    ("gaussian_gradient_magnitude", (1.5,), dict(mode="constant", cval=1.0, radius=5)),
    # wrap along one axis and mirror along the other: every term uses each: one chunk an axis.
    ("gaussian_gradient_magnitude", (1.5,), dict(mode=["wrap", "mirror"])),
]


@pytest.mark.parametrize("name,args,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_function(name, args, kw):
    x = data((67, 53), np.float64, 2)
    check(name, x, 16, *args, **kw)
    check(name, x.astype(np.float32), (16, 20), *args, **kw)


def test_rgb_channel_axis():
    x = data((67, 53, 3), np.float32, 3)

    def per_channel(f, *args, **kw):
        return lambda a: np.stack([f(a[..., c], *args, **kw) for c in range(a.shape[-1])], -1)

    check("gaussian_filter", x, (16, 16, 3), 2.0, mode="mirror", channel_axis=-1,
          ref=per_channel(ndi.gaussian_filter, 2.0, mode="mirror"))
    check("correlate", x, (16, 16, 3), W54, mode="wrap", origin=(1, 1), channel_axis=-1,
          ref=per_channel(ndi.correlate, W54, mode="wrap", origin=(1, 1)))
    check("sobel", x, (16, 16, 3), axis=0, mode="constant", cval=1.0, channel_axis=2,
          ref=per_channel(ndi.sobel, axis=0, mode="constant", cval=1.0))
    check("gaussian_gradient_magnitude", x, (16, 16, 3), 1.5, channel_axis=-1,
          ref=per_channel(ndi.gaussian_gradient_magnitude, 1.5))


def test_3d_stack_axes_and_per_axis_parameters():
    x = data((11, 40, 33), np.float32, 4)
    ch = (4, 16, 16)
    check("gaussian_filter", x, ch, (1.0, 2.0, 1.5), mode=["wrap", "reflect", "grid-constant"], cval=2.0)
    check("gaussian_filter", x, ch, 2.0, axes=(2, 1), mode=["mirror", "nearest"])
    check("uniform_filter", x, ch, (3, 5, 4), origin=(-1, 2, 1), mode="wrap")
    check("correlate", x, ch, W54, axes=(2, 0), origin=(1, -1), mode="nearest")
    check("gaussian_laplace", x, ch, (1.5, 1.0), axes=(1, 2), mode=["constant", "wrap"], cval=1.0)
    check("laplace", x, ch, axes=(0, 2), mode="mirror")


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32])
def test_integer_dtypes(dtype):
    x = (data((67, 53), np.float64, 5) * 2).astype(dtype)
    check("uniform_filter", x, 16, 5, mode="mirror")
    check("gaussian_filter", x, 16, 2.0, mode="constant", cval=7.0)
    if np.dtype(dtype).kind == "i":
        got = check("sobel", x, 16, axis=0, mode="wrap")
        np.testing.assert_array_equal(got.compute(), ndi.sobel(x, axis=0, mode="wrap"))


def test_output_dtype_complex_and_equal_to_one_call():
    x = data((67, 53), np.float32, 6)
    got = check("gaussian_filter", x, 16, 2.0, output=np.float64)
    assert got.dtype == np.float64
    z = (x + 1j * data((67, 53), np.float32, 7)).astype(np.complex64)
    check("uniform_filter", z, 16, 4, mode="wrap")
    got = fd.correlate(da.from_array(x, chunks=16), W54, mode="mirror").compute()
    np.testing.assert_allclose(got, ferroconv.correlate(x, W54, mode="mirror"), rtol=0, atol=1e-5 * np.abs(got).max())


def test_parameters_checked_at_call_time():
    d = da.from_array(data((20, 20)), chunks=8)
    with pytest.raises(ValueError):
        fd.gaussian_filter(d, float("nan"))
    with pytest.raises(ValueError):
        fd.uniform_filter(d, 3, mode="bogus")
    with pytest.raises(RuntimeError):
        fd.correlate(d, np.ones((3, 3, 3)))
    with pytest.raises(ValueError):
        fd.correlate(d, np.ones((3, 3)), origin=2)
    with pytest.raises(TypeError):
        fd.gaussian_laplace(d, 1.0, nonsense=1)
    with pytest.raises(TypeError, match="dtype or None"):
        fd.sobel(d, output=np.empty((20, 20)))
    with pytest.raises(TypeError, match="dask array"):
        fd.sobel(np.zeros((4, 4)))
    unknown = da.from_array(np.arange(10.0), chunks=3)
    with pytest.raises(ValueError, match="chunk sizes"):
        fd.uniform_filter(unknown[unknown > 2], 3)


def test_edge_cases_and_pickling():
    # 1-D, an empty array, a 0-D array, one chunk per axis.
    x = data((100,), np.float64, 8)
    check("gaussian_filter1d", x, 7, 3.0, mode="wrap")
    e = fd.uniform_filter(da.zeros((0, 5), chunks=2), 3).compute()
    assert e.shape == (0, 5)
    assert float(fd.gaussian_filter(da.from_array(np.array(2.0)), 1.0).compute()) == 2.0
    check("laplace", data((9, 9)), 9)
    # What distributed ships: the graph's tasks pickle.
    g = fd.correlate(da.from_array(data((20, 20)), chunks=8), W54, mode="mirror")
    assert pickle.loads(pickle.dumps(dict(g.__dask_graph__())))


# A local distributed cluster of two worker processes.


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed", reason="distributed is not installed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.mark.parametrize(
    "name,args,kw",
    [
        ("gaussian_filter", (2.0,), dict(mode="wrap")),
        ("correlate", (W54,), dict(mode="mirror", origin=(1, -1))),
        ("gaussian_gradient_magnitude", (1.5,), dict(mode="constant", cval=1.0)),
        ("uniform_filter", (5,), dict(mode="grid-mirror", channel_axis=-1)),
    ],
)
def test_distributed_equals_one_call(client, name, args, kw):
    x = data((67, 53, 3), np.float32, 9)
    kw = dict(kw, axes=(0, 1)) if "channel_axis" not in kw and name != "gaussian_gradient_magnitude" else kw
    d = da.from_array(x, chunks=(16, 20, 3))
    got = client.compute(getattr(fd, name)(d, *args, **kw)).result()
    want = getattr(ferroconv, name)(x, *args, **kw)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())


# CuPy chunks on a GPU; a dask_cuda cluster where there are two GPUs.


@functools.lru_cache(maxsize=None)
def _gpus():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:
        return 0


def _cupy():
    try:
        import cupy
    except ImportError:
        pytest.skip("CuPy is not installed")
    if _gpus() < 1:
        pytest.skip("no CUDA GPU")
    return cupy


@pytest.mark.parametrize("mode", ["reflect", "wrap", "constant"])
def test_cupy_chunks(mode):
    cp = _cupy()
    x = cp.asarray(data((300, 257), np.float32, 10))
    got = fd.gaussian_filter(da.from_array(x, chunks=(64, 100), asarray=False), 3.0, mode=mode, cval=2.0)
    assert isinstance(got._meta, cp.ndarray)
    out = got.compute(scheduler="threads")
    assert isinstance(out, cp.ndarray)
    want = ferroconv.gaussian_filter(x, 3.0, mode=mode, cval=2.0)
    cp.testing.assert_allclose(out, want, rtol=0, atol=1e-5 * float(cp.abs(want).max()))


def test_dask_cuda_cluster():
    cp = _cupy()
    if _gpus() < 2:
        pytest.skip("fewer than 2 GPUs")
    dask_cuda = pytest.importorskip("dask_cuda", reason="dask_cuda is not installed")
    distributed = pytest.importorskip("distributed", reason="distributed is not installed")
    x = data((512, 384, 3), np.float32, 11)
    with dask_cuda.LocalCUDACluster(n_workers=2, dashboard_address=":0") as cluster, distributed.Client(cluster) as c:
        # The chunks made CuPy arrays on the workers (each its own GPU), filtered there, back as numpy.
        d = da.from_array(x, chunks=(128, 128, 3)).map_blocks(cp.asarray, meta=cp.empty((0, 0, 0), np.float32))
        got = fd.correlate(d, W54, mode="mirror", origin=(1, 0), channel_axis=-1)
        assert isinstance(got._meta, cp.ndarray)
        out = c.compute(got.map_blocks(cp.asnumpy, meta=np.empty((0, 0, 0), np.float32))).result()
    want = cp.asnumpy(ferroconv.correlate(cp.asarray(x), W54, mode="mirror", origin=(1, 0), channel_axis=-1))
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-5 * np.abs(want).max())
