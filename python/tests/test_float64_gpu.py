"""float64 on PyTorch and CuPy CUDA arrays: computed in float64 on the float64 kernel, within
float64's rounding bound of scipy's result. Skipped, loudly, without a GPU or torch and CuPy."""

import numpy as np
import pytest
from scipy import ndimage as ndi

import ferroconv
from ferroconv import _engine

if not ferroconv.gpu_available():
    print("\nSKIPPED: test_float64_gpu.py needs a CUDA GPU (none can be used here)")
    pytest.skip("SKIPPED: no usable CUDA GPU", allow_module_level=True)

torch = pytest.importorskip("torch", reason="SKIPPED: torch is not installed")
cupy = pytest.importorskip("cupy", reason="SKIPPED: CuPy is not installed")

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]
FRAMEWORKS = ["torch", "cupy"]


def to_device(framework, x):
    return torch.from_numpy(np.ascontiguousarray(x)).cuda() if framework == "torch" else cupy.asarray(x)


def to_numpy(a):
    return a.cpu().numpy() if isinstance(a, torch.Tensor) else cupy.asnumpy(a)


def assert_close(got, want, w, what):
    """Within 2n·2⁻⁵³·Σ|w|·max|x| (twice: both sums' rounding), n the taps."""
    assert got.dtype == np.float64 and got.shape == want.shape, what
    tol = 4 * np.size(w) * 2.0**-53 * np.abs(w).sum() * max(np.abs(want).max(), 1.0) + 1e-300
    err = np.abs(got - want).max()
    assert err <= tol, f"{what}: {err} > {tol}"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_float64_runs_on_its_kernel_in_float64(framework):
    """float64 CUDA arrays run on the float64 kernel (its plans kept), each result within
    float64's rounding bound of scipy's: general and off-centre weights in every mode (odd
    sizes), the passes of a volume's Gaussian, a line along axis 0, RGB, and a batch."""
    _engine._plans64.clear()
    rng = np.random.default_rng(21)
    x = rng.random((67, 130)) * 4 - 2
    w = rng.random((5, 7)) - 0.5
    cases = [(x, w, lambda a, m: ferroconv.correlate(a, w, mode=m, cval=0.3, origin=(1, -2)),
              lambda m: ndi.correlate(x, w, mode=m, cval=0.3, origin=(1, -2)))]
    vol = rng.random((3, 45, 50))
    g = np.exp(-np.arange(-12, 13) ** 2 / 18.0)
    cases.append((vol, g, lambda a, m: ferroconv.gaussian_filter(a, (1.0, 2.0, 3.0), mode=m),
                  lambda m: ndi.gaussian_filter(vol, (1.0, 2.0, 3.0), mode=m)))
    line = rng.random(31) - 0.5
    cases.append((x, line, lambda a, m: ferroconv.correlate1d(a, line, axis=0, mode=m),
                  lambda m: ndi.correlate1d(x, line, axis=0, mode=m)))
    rgb = rng.random((2, 33, 41, 3))
    cases.append((rgb, w, lambda a, m: ferroconv.correlate(a, w, mode=m, axes=(1, 2)),
                  lambda m: ndi.correlate(rgb, w[None, :, :, None], mode=m)))
    for i, (data, taps, call, ref) in enumerate(cases):
        for mode in MODES:
            got = call(to_device(framework, data), mode)
            assert type(got) is type(to_device(framework, data[:1]))
            assert_close(to_numpy(got), ref(mode), taps, f"case {i} {mode}")
    assert _engine._plans64, "no float64 plan was made: the calls ran element-wise"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_kept_filter2d_runs_float64_on_its_kernel(framework):
    """A kept ``Filter2D`` on float64 CUDA arrays launches the float64 kernel straight (the same
    plans as ``correlate``'s), again and again, each result within float64's bound of scipy's:
    gray, a batch, channels last, and weights longer than the image (the general way)."""
    _engine._plans64.clear()
    rng = np.random.default_rng(22)
    w = rng.random((5, 3)) - 0.5
    for mode in MODES:
        f = ferroconv.Filter2D(w, mode=mode, cval=0.7, origin=(1, 0))
        for shape, kw in (((67, 130), {}), ((3, 29, 31), {}), ((2, 17, 19, 3), {"channel_axis": -1}), ((4, 2), {})):
            x = rng.random(shape) * 4 - 2
            full = w.reshape((1,) * (len(shape) - 2 - bool(kw)) + w.shape + (1,) * bool(kw))
            want = ndi.correlate(x, full, mode=mode, cval=0.7, origin=(0,) * (len(shape) - 2 - bool(kw)) + (1, 0) + (0,) * bool(kw))
            a = to_device(framework, x)
            for call in range(3):
                assert_close(to_numpy(f(a, **kw)), want, w, f"{framework} {mode} {shape} call {call}")
        key_shapes = {k[1] for k in f._runs}
        assert tuple(to_device(framework, np.zeros((67, 130))).shape) in key_shapes, "the launch kept"
    assert _engine._plans64, "the float64 kernel ran"
