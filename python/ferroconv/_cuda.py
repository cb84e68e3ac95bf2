"""CUDA arrays (PyTorch tensors, CuPy arrays, DLPack-only arrays viewed through either): filtered
where they are, without copies, queued on the framework's current stream."""

from __future__ import annotations

import numpy as np

from ._numpy import BF16, _compute, _layout
from ._params import type_name


def _is_cuda(a):
    return hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray)


# DLPack's device type of CUDA memory.
_KDLCUDA = 2


def _is_dlpack_cuda(a):
    """Whether ``a`` is an array on a CUDA device that only DLPack describes (JAX, ...)."""
    device = getattr(a, "__dlpack_device__", None)
    return device is not None and hasattr(a, "__dlpack__") and device()[0] == _KDLCUDA


def dlpack_view():
    """The ``from_dlpack`` of torch (else CuPy), which views a DLPack array without a copy."""
    try:
        import torch

        return torch.from_dlpack
    except ImportError:
        try:
            import cupy

            return cupy.from_dlpack
        except ImportError:
            raise TypeError("a DLPack-only CUDA array needs torch or CuPy installed to be viewed") from None


def _run_dlpack(f, input, output, axes, stream):
    """A DLPack array: viewed without a copy as a torch tensor (or a CuPy array), which takes
    the producer's work in order on its stream; the result goes back to the caller's kind through
    its array namespace's ``from_dlpack`` (the array API standard's), or into ``output=``."""
    if output is not None and not (_is_dlpack_cuda(output) or _is_cuda(output)):
        raise TypeError(f"output must be a CUDA array on the same device as input, got {type_name(output)}")
    view = dlpack_view()
    out = None if output is None else view(output)
    result = _run_cuda(f, view(input), out, axes, stream)
    if output is not None:
        return output
    namespace = getattr(input, "__array_namespace__", None)
    if namespace is None:
        return result
    return namespace().from_dlpack(result)


def _framework(a):
    mod = type(a).__module__.split(".")[0]
    if mod == "torch":
        import torch

        return "torch", torch
    if mod == "cupy":
        import cupy

        return "cupy", cupy
    raise TypeError(f"unsupported CUDA array type {type(a).__name__}: PyTorch tensors or CuPy arrays")


def _cuda_info(a):
    """(pointer, shape, numpy dtype, contiguous) of a CUDA array, read from its own attributes
    (faster than building ``__cuda_array_interface__``'s dict)."""
    if type(a).__module__.startswith("torch"):
        dt = _TORCH_DTYPES().get(a.dtype)
        if dt is None:
            raise TypeError(f"unsupported dtype {a.dtype}: uint8, uint16, float16, bfloat16, float32 or float64")
        return a.data_ptr(), tuple(a.shape), dt, a.is_contiguous()
    return a.data.ptr, a.shape, a.dtype, a.flags.c_contiguous


def _device_of(kind, a):
    return a.device.index if kind == "torch" else a.device.id


def _extent(kind, a):
    """[first, last) bytes of device memory a torch tensor or CuPy array spans."""
    if kind == "torch":
        ptr, item = a.data_ptr(), a.element_size()
        strides = [s * item for s in a.stride()]
    else:
        ptr, item, strides = a.data.ptr, a.itemsize, list(a.strides)
    lo = hi = ptr
    for n, s in zip(a.shape, strides):
        if n == 0:
            return ptr, ptr
        lo += min(0, (n - 1) * s)
        hi += max(0, (n - 1) * s)
    return lo, hi + item


def _overlaps(kind, a, b):
    """Whether two arrays' memory ranges overlap (as ``np.may_share_memory``: by bounds)."""
    a0, a1 = _extent(kind, a)
    b0, b1 = _extent(kind, b)
    return a0 < b1 and b0 < a1


def _check_output(kind, input, output, name="output"):
    """The caller's ``output`` of a CUDA input: an array of the same framework and device."""
    device = _device_of(kind, input)
    if not _is_cuda(output) or type(output).__module__.split(".")[0] != kind or _device_of(kind, output) != device:
        raise TypeError(
            f"{name} must be a CUDA array on the same device as input (a {type_name(input)} on device "
            f"{device}), got {type_name(output)}"
        )
    if tuple(output.shape) != tuple(input.shape):
        raise ValueError(f"{name} must have shape {tuple(input.shape)}, got {tuple(output.shape)}")


_torch_dtypes = None


def _TORCH_DTYPES():
    global _torch_dtypes
    if _torch_dtypes is None:
        import torch

        _torch_dtypes = {
            torch.uint8: np.dtype(np.uint8),
            torch.float32: np.dtype(np.float32),
            torch.float64: np.dtype(np.float64),
            torch.float16: np.dtype(np.float16),
            torch.bfloat16: BF16,
        }
        if hasattr(torch, "uint16"):
            _torch_dtypes[torch.uint16] = np.dtype(np.uint16)
    return _torch_dtypes


def _torch_stream(torch, device):
    """The raw handle of torch's current stream on CUDA device ``device`` (an index)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        return torch.cuda.current_stream(device).cuda_stream
    return raw(device)


def _current_stream(kind, xp, input):
    if kind == "torch":
        return _torch_stream(xp, input.device.index)
    return xp.cuda.get_current_stream().ptr


def _shape_info(f, shape, dt, axes):
    """What a call on arrays of this shape, dtype and axes needs, worked out once per plan:
    the sample type's name and computed dtype, the axes' order, (images, height, width,
    channels), the library's constant, and whether the array runs as it is (batch axes first,
    then the image and 1, 3 or 4 interleaved channels, computed in its own dtype)."""
    key = (shape, dt, axes)
    info = f._shapes.get(key)
    if info is None:
        name, compute, cval = _compute(f, dt)
        order, dims = _layout(shape, axes)
        direct = compute == dt and dims[3] in (1, 3, 4) and order == list(range(len(shape)))
        info = (name, compute, cval, order, dims, direct)
        f._shapes[key] = info
    return info


def _run_cuda(f, input, output, axes, stream):
    kind, xp = _framework(input)
    ptr, shape, dt, contiguous = _cuda_info(input)
    name, compute, cval, order, (n, h, w, c), direct = _shape_info(f, shape, dt, axes)
    if h == 0 or w == 0 or n == 0:
        raise ValueError(f"an empty image: shape {tuple(shape)}")
    device = _device_of(kind, input)
    if output is not None:
        _check_output(kind, input, output)
        # An output that overlaps the input is written from a result of its own.
        direct = direct and not _overlaps(kind, input, output)
    plan = f._plan(device, cval, h, w)
    if stream is None:
        stream = _current_stream(kind, xp, input)
    size = compute.itemsize
    # The common case runs on the caller's memory as it is, packed.
    if direct and contiguous and (output is None or _cuda_info(output)[1:] == (shape, dt, True)):
        result = xp.empty_like(input) if output is None else output
        plan.run_device(ptr, w * c * size, _cuda_info(result)[0], w * c * size, w, h, c, name, n, int(stream))
        # The next call of this shape takes the short way in ``Filter2D.__call__``.
        f._direct[(input.shape, input.dtype, device, axes)] = (plan, w * c * size, w, h, c, name, n)
        return result
    if kind == "torch":
        work = input.permute(*order).reshape(n, h, w, c)
        if compute != dt:
            work = work.float()
        if c not in (1, 3, 4):
            work = work.permute(0, 3, 1, 2).reshape(n * c, h, w, 1)
        work = work.contiguous()
    else:
        work = xp.transpose(input, order).reshape(n, h, w, c)
        if compute != dt:
            work = work.astype(xp.float32)
        if c not in (1, 3, 4):
            work = xp.moveaxis(work, 3, 1).reshape(n * c, h, w, 1)
        work = xp.ascontiguousarray(work)
    ni, ci = int(work.shape[0]), int(work.shape[3])
    if kind == "torch":
        result = xp.empty((ni, h, w, ci), dtype=work.dtype, device=work.device)
    else:
        result = xp.empty((ni, h, w, ci), dtype=work.dtype)
    plan.run_device(_cuda_info(work)[0], w * ci * size, _cuda_info(result)[0], w * ci * size, w, h, ci, name, ni, int(stream))
    if c not in (1, 3, 4):
        result = result.reshape(n, c, h, w)
        result = result.permute(0, 2, 3, 1) if kind == "torch" else xp.moveaxis(result, 1, 3)
    inverse = [int(i) for i in np.argsort(order)]
    shaped = result.reshape([shape[a] for a in order])
    shaped = shaped.permute(*inverse) if kind == "torch" else xp.transpose(shaped, inverse)
    if compute != dt:
        shaped = _narrow_cuda(kind, xp, shaped, input.dtype, dt)
    if output is None:
        return shaped.contiguous() if kind == "torch" else xp.ascontiguousarray(shaped)
    return _write_into(kind, shaped, output, "output")


def _narrow_cuda(kind, xp, a, dtype, np_dtype):
    """:func:`_narrow` for torch and CuPy arrays (``dtype`` the framework's, ``np_dtype`` numpy's)."""
    if np_dtype.kind in "ui":
        info = np.iinfo(np_dtype)
        a = a.round().clamp(info.min, info.max) if kind == "torch" else xp.clip(xp.rint(a), info.min, info.max)
    return a.to(dtype) if kind == "torch" else a.astype(dtype)


def _write_into(kind, result, output, name):
    """``result`` copied into the caller's array ``output`` (of its shape), which is returned."""
    if tuple(output.shape) != tuple(result.shape):
        raise ValueError(f"{name} must have shape {tuple(result.shape)}, got {tuple(output.shape)}")
    if kind == "torch":
        output.copy_(result)
    else:
        output[...] = result
    return output
