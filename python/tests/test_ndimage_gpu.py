"""test_ndimage.py's comparisons with scipy.ndimage on torch CUDA tensors and CuPy arrays, moved
back to numpy: each function in every dtype and mode, a volume and channel_axis. Skipped without
a GPU, torch or CuPy (and in test_ndimage.py's self-check mode)."""

import numpy as np
import pytest
import scipy.ndimage as ndi

from test_ndimage import MODES, SELF, F, assert_half, data, judge, params, rng_for


def to_device(framework, x, dtype):
    """(x on the GPU in `dtype`, the samples it holds and a function bringing a result back,
    both as numpy: float32 for the half types)."""
    if SELF:
        pytest.skip("GPU arrays: ferroconv only")
    half = dtype in ("float16", "bfloat16")
    mod = pytest.importorskip(framework)
    if not mod.cuda.is_available():
        pytest.skip(f"no CUDA device for {framework}")
    if framework == "torch":
        a = mod.from_numpy(x).cuda().to(getattr(mod, dtype))
        back = lambda r: (r.float() if half else r).cpu().numpy()  # noqa: E731
    else:
        a = mod.asarray(x.astype(dtype))
        back = lambda r: r.get().astype(np.float32) if half else r.get()  # noqa: E731
    return a, back(a), back


def gpu_check(framework, name, x, dtype, **kw):
    """F.name on the framework's CUDA array of `x` in `dtype`: its type, dtype and shape, and
    scipy's result on the samples it holds (half types: on a float32 copy)."""
    a, xin, back = to_device(framework, x, dtype)
    got = getattr(F, name)(a, **kw)
    assert type(got) is type(a) and got.dtype == a.dtype and tuple(got.shape) == x.shape
    assert getattr(got, "is_cuda", True)
    want = getattr(ndi, name)(xin, **kw)
    if dtype in ("float16", "bfloat16"):
        return assert_half(back(got), want, name, xin, kw, 2.0**-8 if dtype == "bfloat16" else 2.0**-11)
    judge(name, back(got), want, xin, kw, lambda **k: getattr(ndi, name)(xin, **k))


@pytest.mark.parametrize("dtype", ["float32", "float64", "uint8", "int16", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["correlate", "gaussian_filter", "uniform_filter", "sobel", "laplace", "gaussian_gradient_magnitude"])
@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_gpu_arrays(framework, name, dtype):
    """torch / CuPy CUDA arrays give scipy's result in their own dtype, every mode."""
    if framework == "cupy" and dtype == "bfloat16":
        pytest.skip("CuPy has no bfloat16")
    if dtype in ("uint8", "int16") and name == "gaussian_gradient_magnitude" or dtype == "uint8" and name in ("sobel", "laplace"):
        pytest.skip("scipy's derivatives of unsigned data wrap around; no integer gradient magnitude")
    x = data((23, 31), {"uint8": np.uint8, "int16": np.int16}.get(dtype, np.float32), 16, 0 if dtype == "uint8" else -40, 40)
    kw = params(name, 2, rng_for(name))
    if "weights" in kw and dtype in ("uint8", "int16"):
        kw["weights"] = np.abs(kw["weights"]) / np.abs(kw["weights"]).sum() * 0.95
    for mode in MODES[:5]:
        gpu_check(framework, name, x, dtype, mode=mode, cval=3.0, **kw)


@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_gpu_volume_and_channels(framework):
    """A 3-D gaussian_filter volume, and channel_axis=-1 on (H, W, 3), on CUDA arrays."""
    gpu_check(framework, "gaussian_filter", data((5, 12, 17), np.float32, 17), "float32", sigma=(1.0, 1.5, 2.0))
    # The gradient magnitude of 2 and 3 float32 terms on the magnitude kernel, of 4 element-wise.
    for shape in ((37, 45), (5, 12, 17), (3, 4, 6, 7)):
        gpu_check(framework, "gaussian_gradient_magnitude", data(shape, np.float32, 19), "float32", sigma=1.2)
    x = data((23, 31, 3), np.float32, 18)
    a, _, back = to_device(framework, x, "float32")
    got = back(F.gaussian_filter(a, 1.5, channel_axis=-1))
    judge("gaussian_filter", got, ndi.gaussian_filter(x, 1.5, axes=(0, 1)), x, {"sigma": 1.5, "axes": (0, 1)}, None)


@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_gpu_gradient_magnitude_of_two_terms_in_the_second_ones_store(framework, monkeypatch):
    """2-D float32 gradient magnitudes whose second term's filter stores the root of both
    squares (where its variant can) equal those combined by the magnitude kernel, bit for bit,
    and scipy's within the bound: gray and RGB (channel_axis), every mode, sizes of whole and
    partial vectors, second calls (the fused store needs a shape run once)."""
    from ferroconv import _kernel2d

    fused = []
    way = _kernel2d.Kernel2D._hypot_way

    def counted(self, *args):
        r = way(self, *args)
        fused.append(r is not None)
        return r

    monkeypatch.setattr(_kernel2d.Kernel2D, "_hypot_way", counted)
    for shape, kw in (((37, 45), {}), ((64, 256), {}), ((130, 1024), {}), ((23, 31, 3), {"channel_axis": -1})):
        x = data(shape, np.float32, 21)
        a, xin, back = to_device(framework, x, "float32")
        for mode in MODES[:5]:
            args = dict(sigma=1.5, mode=mode, cval=2.0, **kw)
            for _ in range(2):
                got = back(F.gaussian_gradient_magnitude(a, **args))
            with monkeypatch.context() as m:
                m.setattr(_kernel2d.Kernel2D, "_hypot_way", lambda *a: None)
                apart = back(F.gaussian_gradient_magnitude(a, **args))
            np.testing.assert_array_equal(got.view(np.uint32), apart.view(np.uint32), err_msg=f"{shape} {mode}")
            # channel_axis: each channel's own gradient magnitude (scipy's `axes` would smooth
            # across the channels too).
            ref = {k: v for k, v in args.items() if k != "channel_axis"}
            for c in [(..., i) for i in range(3)] if kw else [...]:
                judge("gaussian_gradient_magnitude", got[c], ndi.gaussian_gradient_magnitude(xin[c], **ref), xin[c], ref, None)
    assert fused, "the fused store was never tried"
