"""ferroconv: scipy.ndimage's linear filters on Rust GPU kernels.

The thirteen linear filters of ``scipy.ndimage`` with scipy's signatures and results:
``correlate``, ``convolve``, ``correlate1d``, ``convolve1d``, ``gaussian_filter``,
``gaussian_filter1d``, ``uniform_filter``, ``uniform_filter1d``, ``sobel``, ``prewitt``,
``laplace``, ``gaussian_laplace``, ``gaussian_gradient_magnitude``; and ``Filter2D``, a 2D
correlation planned once and called many times.

Arrays: numpy arrays run through the library's host path (the GPU when there is one, else every
CPU core); CUDA arrays (PyTorch tensors, CuPy arrays; DLPack-only arrays such as JAX's, viewed
through torch or CuPy) run where they are, queued on the framework's current stream (or
``stream=``, a raw handle), without synchronizing. ``device=`` says where numpy arrays run: a GPU
index, ``"all"`` (every GPU: a batch's images dealt out, one image cut into strips, the result
the same bit for bit) or ``"cpu"``; float64 numpy arrays always run on the CPU plan, in float64. Any number of axes, filtered as scipy filters
them: every axis, or ``axes``; ``channel_axis=`` names an axis of channels to leave out.

Dtypes: the result has the output's dtype (the input's, or ``output=`` an array or a dtype).
float32, float16, bfloat16 and (u)int8/16 results are computed in float32 on the kernels (half
floats read and written as they are where the filter runs in one pass);
float64 and (u)int32/64 results in float64 (CUDA arrays on the float64 kernel, numpy arrays on
the library's float64 CPU plan, other filters element-wise in the array's framework); complex
arrays as their real and imaginary parts. Integer results are truncated as scipy casts them,
each pass of a multi-axis filter stored in the output's dtype as scipy stores it.

Modes (scipy's names; what lies beyond the edges; ``grid-mirror``, ``grid-wrap`` and
``grid-constant`` are scipy's aliases of ``reflect``, ``wrap`` and ``constant`` for filters):
  ``reflect``   d c b a | a b c d | d c b a   (edge repeated; OpenCV BORDER_REFLECT)
  ``mirror``    d c b | a b c d | c b a       (edge not repeated; OpenCV BORDER_REFLECT_101)
  ``nearest``   a a a | a b c d | d d d       (OpenCV BORDER_REPLICATE)
  ``wrap``      b c d | a b c d | a b c       (OpenCV BORDER_WRAP)
  ``constant``  k k k | a b c d | k k k       (k = cval; OpenCV BORDER_CONSTANT)

A filter longer than the array costs what the array costs: its taps are folded, per axis, by the
mode's period (or into the edge taps), exactly, to at most ``2n + 1`` taps for ``n`` samples.
Every parameter is checked before any work. Where the package differs from scipy it raises:
boolean input, NaN parameters, an infinite ``cval``. OpenCV's ``filter2D`` and its constants
are in :mod:`ferroconv.cv`.
"""

from __future__ import annotations

import warnings

from . import _native, _numpy, _params, cv
from ._derivatives import gaussian_gradient_magnitude, gaussian_laplace, laplace, prewitt, sobel
from ._filter2d import Filter2D
from ._ndimage import (
    convolve,
    convolve1d,
    correlate,
    correlate1d,
    gaussian_filter,
    gaussian_filter1d,
    uniform_filter,
    uniform_filter1d,
)
from ._params import MODES

__version__ = "0.2.0"

__all__ = [
    *_params.FUNCTIONS,
    "Filter2D",
    "gpu_available",
    "device_count",
    "set_result_pool",
    "cv",
    "MODES",
]

# Names that moved to ferroconv.cv in 0.2.0: kept here for one version, with a warning.
_MOVED = ("filter2d", "BORDER_CONSTANT", "BORDER_REPLICATE", "BORDER_REFLECT", "BORDER_WRAP", "BORDER_REFLECT_101",
          "BORDER_DEFAULT", "CV_8U", "CV_16U", "CV_16S", "CV_32F", "CV_64F")


def __getattr__(name):
    if name in _MOVED:
        warnings.warn(f"ferroconv.{name} moved to ferroconv.cv.{name}", DeprecationWarning, stacklevel=2)
        return getattr(cv, name)
    raise AttributeError(f"module 'ferroconv' has no attribute {name!r}")


def set_result_pool(max_bytes: int) -> int:
    """Sets the most bytes of dead numpy results kept for new results of their size (1 GiB by
    default; 0 turns the pool off and empties it); returns the previous limit."""
    return _numpy.set_pool_max(_params.integer(max_bytes, "max_bytes", bools=False))


def gpu_available() -> bool:
    """Whether a GPU can be used (CUDA device 0 opens)."""
    return _native.gpu_available()



def device_count() -> int:
    """The GPUs this process can use (0 without a driver or a GPU, and in a child forked after
    its parent started CUDA): the indices ``device=`` takes."""
    return _native.device_count()
