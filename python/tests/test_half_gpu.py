"""float16 and bfloat16 CUDA arrays on the kernels as they are. Skipped without a GPU, torch or
CuPy."""

import numpy as np
import pytest

import ferroconv

if not ferroconv.gpu_available():
    pytest.skip("SKIPPED: no usable CUDA GPU", allow_module_level=True)

torch = pytest.importorskip("torch", reason="SKIPPED: torch is not installed")
cupy = pytest.importorskip("cupy", reason="SKIPPED: CuPy is not installed")

FRAMEWORKS = ["torch", "cupy"]


def random(shape, seed):
    return np.random.default_rng(seed).random(shape).astype(np.float32)


def weights(k, seed):
    w = np.random.default_rng(seed).random((k, k)) + 0.05
    w = w * np.where(np.arange(k * k).reshape(k, k) % 3 == 0, -1.0, 1.0)
    return w / np.abs(w).sum()


def to_numpy(a):
    return a.cpu().numpy() if isinstance(a, torch.Tensor) else cupy.asnumpy(a)


def sync():
    torch.cuda.synchronize()
    cupy.cuda.Device().synchronize()


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_floats_run_on_the_kernels_as_they_are(name):
    # float16 and bfloat16 tensors (float16 CuPy arrays) are read and written by the kernels
    # in their own dtype (the kept launch's sample type is theirs, not float32), and give the
    # float32 result rounded once to their dtype; filters the kernels do not take as they are
    # (past 31 x 31, not 1D) compute in float32 through a copy.
    rel = 2.0**-8 if name == "bfloat16" else 2.0**-11
    for k, native in ((5, True), (31, True), (1, True), (33, False)):
        w = weights(k, 9) if k > 1 else np.array([[0.5]])
        plan = ferroconv.Filter2D(w, mode="mirror")
        x = random((3, 67, 129), 10)
        frameworks = FRAMEWORKS if name == "float16" else ["torch"]
        for framework in frameworks:
            a = torch.from_numpy(x).cuda().to(getattr(torch, name)) if framework == "torch" else cupy.asarray(x, dtype=name)
            exact = plan(a.float() if framework == "torch" else a.astype(cupy.float32))
            for _ in range(2):
                got = plan(a)
                assert got.dtype == a.dtype and tuple(got.shape) == x.shape
            sync()
            got64 = (got.double() if framework == "torch" else got.astype(cupy.float64))
            err = to_numpy(abs(got64 - (exact.double() if framework == "torch" else exact.astype(cupy.float64))))
            # Half a unit in the last place (and float32's own rounding, which may differ between
            # the variants the two dtypes run on).
            assert (err <= 1.001 * rel * to_numpy(abs(exact)).astype(np.float64) + 2.0**-24).all(), f"{framework} {name} {k}"
            kept = [run[5] for key, run in plan._plan._direct.items() if key[1] == a.dtype]
            assert kept == ([{"float16": "f16", "bfloat16": "bf16"}[name]] if native else []), (framework, k, kept)
