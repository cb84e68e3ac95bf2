"""OpenCV's names: ``filter2d`` (``cv2.filter2D``'s call) and cv2's border and depth constants."""

from __future__ import annotations

import numpy as np

from . import _params
from ._cuda import _check_output as _check_cuda_output
from ._cuda import _cuda_info, _framework, _is_cuda, _narrow_cuda, _write_into
from ._kernel2d import Kernel2D
from ._numpy import _check_output, _dtype_name, _narrow, _native_order

# OpenCV's border constants (same values as cv2's).
BORDER_CONSTANT = 0
BORDER_REPLICATE = 1
BORDER_REFLECT = 2
BORDER_WRAP = 3
BORDER_REFLECT_101 = 4
BORDER_DEFAULT = BORDER_REFLECT_101
_CV_MODES = {
    BORDER_CONSTANT: "constant",
    BORDER_REPLICATE: "nearest",
    BORDER_REFLECT: "reflect",
    BORDER_WRAP: "wrap",
    BORDER_REFLECT_101: "mirror",
}

# OpenCV's depth constants (same values as cv2's) and their dtypes.
CV_8U, CV_16U, CV_16S, CV_32F, CV_64F = 0, 2, 3, 5, 6
_CV_DEPTHS = {CV_8U: np.uint8, CV_16U: np.uint16, CV_16S: np.int16, CV_32F: np.float32, CV_64F: np.float64}


def _anchor(anchor, shape):
    """scipy's origin ``(oy, ox)`` of cv2's ``anchor`` ``(x, y)``: a tap of the kernel, or -1
    (on an axis) for its centre."""
    if anchor is None:
        return 0, 0
    if not isinstance(anchor, (tuple, list)) or len(anchor) != 2:
        raise TypeError(f"anchor must be a pair of integers (x, y), got {anchor!r}")
    ax, ay = (_params.integer(a, "anchor", bools=False) for a in anchor)
    rows, cols = shape
    if not (ax == -1 or 0 <= ax < cols) or not (ay == -1 or 0 <= ay < rows):
        raise ValueError(f"anchor {(ax, ay)} is not a tap of the {rows}x{cols} kernel (x, y), nor -1")
    return (0 if ay == -1 else ay - rows // 2, 0 if ax == -1 else ax - cols // 2)


def filter2d(src, ddepth, kernel, dst=None, anchor=None, delta=0, borderType=BORDER_DEFAULT):
    """``cv2.filter2D``'s call: correlates ``src`` (H x W or H x W x C) with ``kernel`` (any
    shape up to 127x127) placed on ``anchor`` ``(x, y)``, a tap of the kernel (default
    ``(-1, -1)``: its centre, ``(cols // 2, rows // 2)``), and adds ``delta``.

    ddepth: ``-1`` (the input's dtype), or ``CV_8U``, ``CV_16U``, ``CV_16S``, ``CV_32F``,
        ``CV_64F`` (cv2's values). Another depth, or a ``delta``, computes in sample counts as
        OpenCV does: the samples as float32 (0-255 for uint8), correlated, ``delta`` added,
        then converted (integers rounded and saturated). So ``CV_16S`` and ``CV_32F`` keep a
        derivative's sign where ``-1`` on uint8 clamps it at 0.
    """
    k = _params.weights(kernel, "kernel")
    origin = _anchor(anchor, k.shape)
    border = _params.integer(borderType, "borderType", bools=False)
    mode = _CV_MODES.get(border)
    if mode is None:
        raise ValueError(f"unsupported borderType {borderType}")
    depth = _params.integer(ddepth, "ddepth", bools=False)
    if depth != -1 and depth not in _CV_DEPTHS:
        raise ValueError(f"unsupported ddepth {ddepth}: -1, CV_8U, CV_16U, CV_16S, CV_32F or CV_64F")
    delta = _params.real(delta, "delta")
    if not abs(delta) <= _params.F32_MAX:
        raise ValueError(f"delta must be finite and within float32's range, got {delta}")
    kind, xp = _framework(src) if _is_cuda(src) else ("numpy", np)
    if kind == "numpy":
        src = _native_order(np.asarray(src))
        dt = src.dtype
    else:
        dt = _cuda_info(src)[2]
    if _dtype_name(dt)[0] in ("f16", "bf16"):
        raise TypeError(f"unsupported dtype {dt.name}: filter2d takes uint8, uint16, float32 or float64")
    target = dt if depth == -1 else np.dtype(_CV_DEPTHS[depth])
    if target == dt and delta == 0:
        return Kernel2D(k, mode, 0.0, origin)(src, output=dst)
    if dst is not None:
        if kind == "numpy":
            _check_output(dst, src.shape, target, "dst")
        else:
            _check_cuda_output(kind, src, dst, "dst")
    if kind == "numpy":
        counts = Kernel2D(k, mode, 0.0, origin)(src.astype(np.float32)) + np.float32(delta)
        result = _narrow(counts, target)
    else:
        work = src.float() if kind == "torch" else src.astype(xp.float32)
        counts = Kernel2D(k, mode, 0.0, origin)(work) + delta
        framework_dtype = getattr(xp, target.name) if kind == "torch" else target
        result = _narrow_cuda(kind, xp, counts, framework_dtype, target)
    return result if dst is None else _write_into(kind, result, dst, "dst")
