"""CUDA arrays that start a few elements into their allocation (views such as ``base[1:]``), whose
data pointers are not on the kernels' 16-byte vectors: results equal to the numpy path's bit for
bit, in fresh results and in ``output=`` views at an offset too, through the functions and a kept
``Filter2D``. Skipped, loudly, without a GPU or without torch and CuPy."""

import numpy as np
import pytest

import ferroconv

if not ferroconv.gpu_available():
    print("\nSKIPPED: test_cuda_offsets.py needs a CUDA GPU (none can be used here)")
    pytest.skip("SKIPPED: no usable CUDA GPU", allow_module_level=True)

torch = pytest.importorskip("torch", reason="SKIPPED: torch is not installed")
cupy = pytest.importorskip("cupy", reason="SKIPPED: CuPy is not installed")

SHAPE = (64, 96)
FILTERS = [
    ("correlate 5x5", lambda x, **k: ferroconv.correlate(x, np.random.default_rng(1).uniform(-1, 1, (5, 5)), **k)),
    ("correlate 9x1", lambda x, **k: ferroconv.correlate(x, np.full((9, 1), 1 / 9), **k)),
    ("correlate 1x9", lambda x, **k: ferroconv.correlate(x, np.full((1, 9), 1 / 9), **k)),
    ("uniform_filter1d axis 0", lambda x, **k: ferroconv.uniform_filter1d(x, 9, axis=0, **k)),
    ("gaussian_filter", lambda x, **k: ferroconv.gaussian_filter(x, 1.5, **k)),
]


def offset_view(framework, x, offset):
    """``x`` copied into a 1-D allocation ``offset`` elements in, as a view of ``x``'s shape."""
    n = x.size
    if framework == "torch":
        base = torch.zeros(n + 32, dtype=torch.from_numpy(x).dtype, device="cuda")
        view = base[offset : offset + n].view(x.shape)
        view.copy_(torch.from_numpy(x))
        return view, view.data_ptr()
    base = cupy.zeros(n + 32, dtype=x.dtype)
    view = base[offset : offset + n].reshape(x.shape)
    view[...] = cupy.asarray(x)
    return view, view.data.ptr


def to_numpy(a):
    return a.cpu().numpy() if isinstance(a, torch.Tensor) else cupy.asnumpy(a)


@pytest.mark.parametrize("framework", ["torch", "cupy"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("offset", [1, 2, 3])
@pytest.mark.parametrize("name,fn", FILTERS, ids=[f[0] for f in FILTERS])
def test_views_off_the_vectors_equal_the_numpy_path(framework, dtype, offset, name, fn):
    rng = np.random.default_rng(offset)
    x = (rng.integers(0, 256, SHAPE) if dtype == np.uint8 else rng.random(SHAPE)).astype(dtype)
    expected = fn(x)
    view, ptr = offset_view(framework, x, offset)
    assert ptr % 16 != 0
    np.testing.assert_array_equal(to_numpy(fn(view)), expected)
    out, out_ptr = offset_view(framework, np.zeros_like(x), 4 - offset)
    assert out_ptr % 16 != 0
    fn(view, output=out)
    np.testing.assert_array_equal(to_numpy(out), expected)


@pytest.mark.parametrize("framework", ["torch", "cupy"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_a_kept_filter2d_on_views_off_the_vectors(framework, dtype):
    rng = np.random.default_rng(7)
    x = (rng.integers(0, 256, SHAPE) if dtype == np.uint8 else rng.random(SHAPE)).astype(dtype)
    f = ferroconv.Filter2D(np.full((9, 1), 1 / 9))
    expected = f(x)
    aligned, _ = offset_view(framework, x, 0)
    np.testing.assert_array_equal(to_numpy(f(aligned)), expected)
    # Repeated calls take the kept launch of the shape: on views off the vectors too.
    for offset in (1, 3, 1):
        view, _ = offset_view(framework, x, offset)
        np.testing.assert_array_equal(to_numpy(f(view)), expected)
        out, _ = offset_view(framework, np.zeros_like(x), offset + 1)
        f(view, output=out)
        np.testing.assert_array_equal(to_numpy(out), expected)
