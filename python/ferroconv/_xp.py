"""The array kinds a call takes (numpy, torch CUDA tensors, CuPy arrays), behind one small set of
operations: dtypes by name, new arrays, casts (scipy's truncating cast to integers), padding by a
mode, and writing into an output. Everything the scipy-named functions do outside the kernels
goes through here, so it runs where the data is, on the framework's current stream."""

from __future__ import annotations

import numpy as np

from ._params import type_name

# Dtype names the package computes: in float32 (the kernels) or in float64 (the float64 kernel
# and CPU plan, else element-wise).
F32_NAMES = frozenset({"float32", "float16", "bfloat16", "uint8", "uint16", "int8", "int16"})
F64_NAMES = frozenset({"float64", "uint32", "uint64", "int32", "int64"})
COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
REAL_NAMES = F32_NAMES | F64_NAMES


def compute_name(out_name: str, in_name: str = "float64") -> str:
    """The dtype a result of dtype ``out_name`` is computed in: float32 (the kernels) for float32,
    float16 and bfloat16 results, and for integer results of at most 16 bits from samples of at
    most 16 bits; else float64. An integer result computed in float32 is scipy's except where
    scipy's own float64 sum lies within float32's rounding of a whole number (one level apart)."""
    if out_name in F32_NAMES and (not is_int(out_name) or in_name in F32_NAMES):
        return "float32"
    return "float64"


def widening(comp: str, out_name: str, taps) -> float:
    """The factor a float32 result of ``taps`` is widened by before it is truncated to an
    integer: its rounding error's bound (relative, for taps of one sign), so that a result whose
    exact value is a whole number (a flat region, a box's mean) truncates to that number, as in
    exact arithmetic; never more than 2**-8 of a level at the type's largest value, so it moves
    no other result past a whole number but those within that of it. 1 where nothing is
    truncated, float64 computes it, or the taps are whole numbers (their sums are exact)."""
    taps = np.asarray(taps)
    if comp != "float32" or not is_int(out_name) or np.array_equal(taps, np.rint(taps)):
        return 1.0
    top = float(np.iinfo(np.dtype(out_name)).max)
    return 1.0 + min(4.0 * taps.size * 2.0**-24, 2.0**-8 / top)


def is_int(name: str) -> bool:
    return name[0] in "ui"


# Dtypes (numpy's, torch's) -> their names ("float32"): ``dtype.name`` takes microseconds.
_NAMES = {}


class Kind:
    """The operations on one kind of array; ``xp`` is its module."""

    name = "numpy"

    def __init__(self, xp):
        self.xp = xp

    def dtype(self, name):
        return np.dtype(name)

    def name_of(self, a) -> str:
        dt = a.dtype
        name = _NAMES.get(dt)
        if name is None:
            name = _NAMES.setdefault(dt, dt.name)
        return name

    def empty(self, shape, name, like):
        return self.xp.empty(tuple(shape), dtype=self.dtype(name))

    def astype(self, a, name):
        """``a`` as a C-contiguous array of dtype ``name`` (itself where it already is one)."""
        if self.name_of(a) == name and self.is_contiguous(a):
            return a
        return self.xp.asarray(a, dtype=self.dtype(name), order="C")

    def contiguous(self, a):
        if type(a) is self.xp.ndarray and a.flags.c_contiguous:
            return a
        return self.xp.asarray(a, order="C")

    def copy(self, a):
        return a.copy()

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def truncate(self, a, name):
        """Float ``a`` cast to the integer dtype ``name`` as C casts it in scipy: toward zero,
        and (for values of int64's range) modulo the type's range."""
        wide = name in ("uint32", "int32")
        if name in ("uint64", "int64") or self.xp is np and not wide:
            # numpy's casts to 8 and 16 bits wrap as scipy's C casts do (on x86).
            return a.astype(self.dtype(name))
        # Through a wider integer, so out-of-range values wrap as they do in scipy's C casts.
        return a.astype(np.int64 if wide else np.int32).astype(self.dtype(name))

    def cast(self, a, name):
        """``a`` as dtype ``name``: scipy's truncating cast for integers, else rounded."""
        if self.name_of(a) == name:
            return a
        if is_int(name) and not is_int(self.name_of(a)):
            return self.truncate(a, name)
        return self.astype(a, name)

    def take(self, a, index, axis):
        return self.xp.take(a, self.xp.asarray(index), axis=axis)

    def full(self, shape, value, like):
        return self.xp.full(tuple(shape), value, dtype=like.dtype)

    def concat(self, parts, axis):
        return self.xp.concatenate(parts, axis=axis)

    def copy_into(self, out, a):
        """``a`` written into the caller's ``out`` (cast to its dtype as scipy casts)."""
        a = self.cast(a, self.name_of(out))
        out[...] = a
        return out

    def complex(self, re, im, name):
        out = self.empty(re.shape, name, re)
        out.real[...] = re
        out.imag[...] = im
        return out

    def parts(self, a):
        return a.real, a.imag


class Cupy(Kind):
    name = "cupy"


class Torch(Kind):
    name = "torch"

    def dtype(self, name):
        return getattr(self.xp, name)

    def name_of(self, a) -> str:
        dt = a.dtype
        name = _NAMES.get(dt)
        if name is None:
            name = _NAMES.setdefault(dt, str(dt).rpartition(".")[2])
        return name

    def empty(self, shape, name, like):
        return self.xp.empty(tuple(shape), dtype=self.dtype(name), device=like.device)

    def astype(self, a, name):
        if self.name_of(a) == name and a.is_contiguous():
            return a
        return a.to(self.dtype(name)).contiguous()

    def contiguous(self, a):
        return a.contiguous()

    def copy(self, a):
        return a.clone()

    def is_contiguous(self, a):
        return a.is_contiguous()

    def truncate(self, a, name):
        if name in ("uint64", "int64"):
            return a.to(self.dtype(name))
        xp = self.xp
        return a.to(xp.int64 if name in ("uint32", "int32") else xp.int32).to(self.dtype(name))

    def take(self, a, index, axis):
        return self.xp.index_select(a, axis, self.xp.as_tensor(index, device=a.device))

    def full(self, shape, value, like):
        return self.xp.full(tuple(shape), value, dtype=like.dtype, device=like.device)

    def concat(self, parts, axis):
        return self.xp.cat(parts, dim=axis)

    def copy_into(self, out, a):
        out.copy_(self.cast(a, self.name_of(out)))
        return out

    def complex(self, re, im, name):
        return self.xp.complex(re, im).to(self.dtype(name))

    def parts(self, a):
        return a.real, a.imag


_KINDS = {}
# DLPack's device type of CUDA memory.
_KDLCUDA = 2


def kind_of(a):
    """(Kind, array): the kind of ``a`` and ``a`` as that kind takes it (numpy: native byte order)."""
    if type(a) is np.ndarray and a.dtype.isnative:
        return NUMPY, a
    mod = type(a).__module__.split(".")[0]
    if mod == "torch" and getattr(a, "is_cuda", False):
        if "torch" not in _KINDS:
            import torch

            _KINDS["torch"] = Torch(torch)
        return _KINDS["torch"], a
    if mod == "cupy":
        if "cupy" not in _KINDS:
            import cupy

            _KINDS["cupy"] = Cupy(cupy)
        return _KINDS["cupy"], a
    device = getattr(a, "__dlpack_device__", None)
    if device is not None and hasattr(a, "__dlpack__") and device()[0] == _KDLCUDA:
        return None, a  # a CUDA array only DLPack describes: viewed through torch or CuPy
    x = np.asarray(a)
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return NUMPY, x


NUMPY = Kind(np)


def check_dtype(name: str, what: str = "input"):
    """Raises for a dtype the package does not take (bool: scipy's result there is a boolean
    threshold of the sum, which the package does not imitate)."""
    if name in REAL_NAMES or name in COMPLEX_PARTS:
        return
    raise TypeError(
        f"{what} has dtype {name}: the package takes (u)int8/16/32/64, float16, bfloat16, float32, "
        "float64, complex64 and complex128"
    )


def output_name(kind, output, in_name, complex_weights=False):
    """The dtype name of the result, as scipy's ``_get_output`` resolves it: the input's (complex
    where the weights are), a dtype given as ``output``, or the given array's."""
    if output is None:
        if complex_weights and in_name not in COMPLEX_PARTS:
            return "complex128" if in_name in F64_NAMES else "complex64"
        return in_name
    if isinstance(output, (str, type, np.dtype)) or type(output).__module__ == "torch" and not hasattr(output, "shape"):
        try:
            name = np.dtype(output).name
        except TypeError:
            name = str(output).rpartition(".")[2]
        check_dtype(name, "output")
        return name
    if kind.name == "numpy":
        if not isinstance(output, np.ndarray):
            raise TypeError(f"output must be a numpy.ndarray for a numpy input, got {type_name(output)}")
    elif type(output).__module__.split(".")[0] != kind.name:
        raise TypeError(f"output must be a CUDA array of the input's kind ({kind.name}), got {type_name(output)}")
    name = kind.name_of(output)
    check_dtype(name, "output")
    return name


def check_output(kind, output, input):
    """The caller's output array: the input's shape, writable, on the input's device."""
    if tuple(output.shape) != tuple(input.shape):
        raise RuntimeError(f"output shape not correct: {tuple(output.shape)}, the input's is {tuple(input.shape)}")
    if kind.name == "numpy":
        if not output.flags.writeable:
            raise ValueError("output is read-only")
    elif output.device != input.device:
        raise TypeError(f"output is on {output.device}, the input on {input.device}")


def reach_index(n: int, before: int, after: int, mode: str):
    """The source index of each of the ``before + n + after`` places of an axis of ``n`` samples
    extended by ``mode`` (-1 where ``constant`` reads ``cval``)."""
    p = np.arange(-before, n + after, dtype=np.int64)
    if mode == "nearest":
        return np.clip(p, 0, n - 1)
    if mode == "wrap":
        return p % n
    if mode == "constant":
        return np.where((p >= 0) & (p < n), p, -1)
    if mode == "reflect":
        q = p % (2 * n)
        return np.where(q < n, q, 2 * n - 1 - q)
    if n == 1:  # mirror
        return np.zeros_like(p)
    q = p % (2 * n - 2)
    return np.where(q < n, q, 2 * n - 2 - q)


def pad(kind, a, axis: int, before: int, after: int, mode: str, cval: float):
    """``a`` extended along ``axis`` by ``before`` and ``after`` places as ``mode`` reads them."""
    if before == 0 and after == 0:
        return a
    n = a.shape[axis]
    if mode == "constant":
        parts = []
        for count in (before, after):
            shape = list(a.shape)
            shape[axis] = count
            parts.append(kind.full(shape, cval, a))
        return kind.concat([parts[0], a, parts[1]], axis)
    return kind.take(a, reach_index(n, before, after, mode), axis)
