"""``device=``: where numpy arrays are filtered (a GPU index, "all" GPUs, or "cpu"). On the CPU
here: "cpu" gives the default's result, bad values raise one-line errors naming ``device``, GPU
devices raise where there is no GPU, and the choice lasts one call. Where there is a GPU: each
GPU and "all" (a batch dealt over the GPUs, one image in strips) give device 0's result bit for
bit; a CUDA array runs on its own device and refuses another."""

import numpy as np
import pytest
from scipy import ndimage as ndi

import ferroconv as F
from ferroconv import _numpy

GPUS = F.device_count()
gpu = pytest.mark.skipif(GPUS == 0, reason="SKIPPED: needs a CUDA GPU (none can be used here)")
two_gpus = pytest.mark.skipif(GPUS < 2, reason="SKIPPED: needs two CUDA GPUs")


def data(shape, dtype, seed):
    x = np.random.default_rng(seed).random(shape) * 200
    return x.astype(dtype)


# Calls of the scipy-named functions and of Filter2D with the device as the last keyword.
W = np.random.default_rng(3).standard_normal((5, 7))
CALLS = {
    "correlate": lambda x, **kw: F.correlate(x, W, mode="wrap", axes=(-2, -1), **kw),
    "gaussian_filter": lambda x, **kw: F.gaussian_filter(x, 2.0, axes=(-2, -1), **kw),
    "uniform_filter1d": lambda x, **kw: F.uniform_filter1d(x, 9, axis=-2, **kw),
    "sobel": lambda x, **kw: F.sobel(x, axis=-1, mode="constant", cval=3.0, **kw),
    "Filter2D": lambda x, **kw: F.Filter2D(W, "mirror")(x, **kw),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_cpu_gives_the_default_result_within_the_bound(name, dtype):
    """"cpu" runs the library's CPU plan: scipy's result (float32 within the verify bound,
    uint8 within one level), as the default call's."""
    x = data((3, 70, 61), dtype, 1)
    got, default = CALLS[name](x, device="cpu"), CALLS[name](x)
    assert got.dtype == default.dtype == x.dtype and got.shape == x.shape
    tol = 1e-3 if dtype == np.float32 else 1
    assert np.abs(got.astype(np.float64) - default).max() <= tol * (200 if dtype == np.float32 else 1)
    if GPUS == 0:
        assert np.array_equal(got, default)


@pytest.mark.parametrize(
    "value, error, text",
    [
        (-1, ValueError, "device must be a GPU index of at least 0"),
        ("gpu", ValueError, "device must be a GPU index, 'all' or 'cpu', got 'gpu'"),
        (True, TypeError, "device"),
        (1.5, TypeError, "device"),
        (GPUS, ValueError if GPUS else RuntimeError, f"device={GPUS}"),
    ],
)
def test_bad_devices_raise_one_line_errors(value, error, text):
    x = data((20, 30), np.float32, 2)
    for name, call in CALLS.items():
        with pytest.raises(error, match=text) as e:
            call(x, device=value)
        assert "\n" not in str(e.value), name


@pytest.mark.skipif(GPUS > 0, reason="SKIPPED: this machine has a GPU")
def test_gpu_devices_raise_without_a_gpu():
    x = data((20, 30), np.float32, 2)
    for value in (0, "all"):
        with pytest.raises(RuntimeError, match="no GPU can be used in this process"):
            F.gaussian_filter(x, 1.0, device=value)


def test_the_device_lasts_one_call():
    """The device of a call is this thread's for that call only, also where the call raises."""
    x = data((20, 30), np.float32, 2)
    F.gaussian_filter(x, 1.0, device="cpu")
    assert _numpy.host_device() is None
    with pytest.raises(ValueError, match="mode"):
        F.gaussian_filter(x, 1.0, mode="bogus", device="cpu")
    assert _numpy.host_device() is None


@gpu
@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize(
    "shape, dtype",
    [((1, 1200, 333), np.float32), ((1, 900, 257), np.uint8), ((7, 130, 90), np.float32), ((1, 300, 200), np.float16)],
)
def test_each_gpu_and_all_give_device_0s_result_bit_for_bit(name, shape, dtype):
    """One large image (in strips over "all"), a batch (dealt over the GPUs) and float16: every
    GPU and "all" equal device 0 bit for bit, and device 0 the default call."""
    x = data(shape, dtype, 4)
    one = CALLS[name](x, device=0)
    assert np.array_equal(one, CALLS[name](x), equal_nan=True)
    for device in [*range(GPUS), "all"]:
        got = CALLS[name](x, device=device)
        assert got.dtype == one.dtype and np.array_equal(got, one, equal_nan=True), (name, device)
    if dtype == np.float32 and name == "correlate":
        want = ndi.correlate(x.astype(np.float64), W[None], mode="wrap")
        assert np.abs(one - want).max() <= 2 * 35 * 2.0**-24 * np.abs(W).sum() * 200


@gpu
def test_a_cuda_array_runs_on_its_own_device():
    torch = pytest.importorskip("torch", reason="SKIPPED: torch is not installed")
    x = torch.from_numpy(data((40, 50), np.float32, 5)).cuda()
    want = F.gaussian_filter(x, 1.5)
    assert torch.equal(F.gaussian_filter(x, 1.5, device=0), want)
    for value in ("cpu", "all", GPUS):
        with pytest.raises(ValueError, match="the input is a CUDA array on device 0"):
            F.gaussian_filter(x, 1.5, device=value)


@two_gpus
def test_the_second_gpu_runs_numpy_arrays():
    """device=1 runs on the second GPU (its plan's device), with device 0's result."""
    x = data((2, 512, 384), np.float32, 6)
    f = F.Filter2D(W)
    assert np.array_equal(f(x, device=1), f(x, device=0))
    assert any(key[0] == 1 for key in f._plan._plans)
