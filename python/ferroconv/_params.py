"""Every parameter checked before any work: a one-line ``TypeError`` (a value of the wrong type) or
``ValueError`` (a value out of range) naming the argument, where scipy.ndimage raises; scipy's
result where it accepts the value. Deliberate differences: NaN raises for every parameter (scipy
takes a NaN sigma or size as 0), and so does a ``cval`` that is infinite or past float32's range
(the kernels compute in float32), or weights that are not finite."""

from __future__ import annotations

import math
import numbers
import operator

from typing import Any, Optional, Sequence, Union

import numpy as np

# scipy.ndimage's thirteen linear filters, each a function of the package (and of its dask module).
FUNCTIONS = (
    "correlate",
    "convolve",
    "correlate1d",
    "convolve1d",
    "gaussian_filter",
    "gaussian_filter1d",
    "uniform_filter",
    "uniform_filter1d",
    "sobel",
    "prewitt",
    "laplace",
    "gaussian_laplace",
    "gaussian_gradient_magnitude",
)

# Annotations of the public functions: an array (numpy, torch, CuPy, or anything numpy takes),
# weights, an output (an array or a dtype), a mode or one per axis, axes, a value or one per axis.
Array = Any
ArrayLike = Any
Output = Any
Mode = Union[str, Sequence[str]]
Axes = Optional[Union[int, Sequence[int]]]
PerAxis = Union[float, Sequence[float]]
# Where numpy inputs are filtered: a GPU index, "all" (every GPU) or "cpu"; None: the first GPU,
# else the CPU.
Device = Optional[Union[int, str]]

MODES = ("reflect", "mirror", "nearest", "wrap", "constant")
# scipy's other names of the modes, for filters.
_ALIASES = {"grid-mirror": "reflect", "grid-wrap": "wrap", "grid-constant": "constant"}
# The largest finite float32.
F32_MAX = float(np.finfo(np.float32).max)
# scipy takes a sigma at most this as 0: the axis is left as it is.
SIGMA_MIN = 1e-15
# The largest filter size scipy takes (a C ssize_t).
SIZE_MAX = 2**63 - 1


def type_name(value) -> str:
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__.split('.')[0]}.{t.__name__}"


def real(value, name: str) -> float:
    """A real number (bool, int, float, numpy scalar or 0-d array) as a float; NaN raises."""
    if type(value) is float and value == value:  # the common case: a float, not NaN
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.bool_):
        value = bool(value)
    if isinstance(value, (str, bytes, complex, np.complexfloating)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type_name(value)}")
    try:
        v = float(value)
    except OverflowError:  # an int past float's range
        v = math.inf if value > 0 else -math.inf
    if math.isnan(v):
        raise ValueError(f"{name} must not be NaN")
    return v


def integer(value, name: str, *, bools: bool = True) -> int:
    """An integer (int, numpy integer; bool where ``bools``) as an int: floats raise."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        if not bools:
            raise TypeError(f"{name} must be an integer, got {type_name(value)} {value!r}")
        return int(value)
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"{name} must be an integer, got {type_name(value)} {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type_name(value)}") from None


def per_axis(value, name: str, convert):
    """(y, x): one value for both image axes, or a pair; each converted by ``convert(v, name)``."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            v = convert(value, name)
            return v, v
        if value.ndim != 1:
            raise ValueError(f"{name} takes one value or two (y, x), got an array of shape {value.shape}")
        value = list(value)
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"{name} takes one value or two (y, x), got {len(value)}")
        return convert(value[0], name), convert(value[1], name)
    v = convert(value, name)
    return v, v


def mode(value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"mode must be a str, one of {', '.join(MODES)}; got {type_name(value)}")
    m = _ALIASES.get(value, value)
    if m not in MODES:
        raise ValueError(f"unknown mode '{value}': one of {', '.join(MODES)}")
    return m


def cval(value) -> float:
    v = real(value, "cval")
    if not abs(v) <= F32_MAX:
        raise ValueError(f"cval must be finite and within float32's range, got {value!r}")
    return v


def host_array(value):
    """``value`` as a numpy array: a CuPy array or a torch tensor (cupyx.scipy.ndimage takes its
    weights as CuPy arrays) copied to host memory, anything else through ``np.asarray``."""
    module = type(value).__module__.split(".")[0]
    if module == "cupy":
        return value.get()
    if module == "torch":
        return value.detach().cpu().numpy()
    return np.asarray(value)


def weights(value, name: str = "weights") -> np.ndarray:
    """A read-only float64 copy of 2D weights: finite, not empty, within float32's range."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a 2D array of real numbers, got {type_name(value)}")
    try:
        a = host_array(value)
        if a.dtype.kind == "c":
            raise TypeError(f"{name} must be real, got dtype {a.dtype}")
        if a.dtype.kind not in "biuf":
            a = a.astype(np.float64)
    except (TypeError, ValueError) as e:
        if isinstance(e, TypeError) and str(e).startswith(name):
            raise
        raise TypeError(f"{name} must be a 2D array of real numbers: {e}") from None
    if a.ndim != 2 or a.size == 0:
        raise ValueError(f"{name} must be a 2D array (1x1 to 127x127, or 1023x1023 rank-1), got shape {a.shape}")
    w = np.array(a, dtype=np.float64)
    bad = ~(np.abs(w) <= F32_MAX)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must be finite (in float32), got {w[at]} at {at}")
    w.flags.writeable = False
    return w


def origin(value, shape, name: str = "origin"):
    """scipy's origin (one integer or one per axis), each within ``-(k // 2) .. (k - 1) // 2``."""
    o = per_axis(value, name, lambda v, n: integer(v, n, bools=False))
    for k, oi, axis in zip(shape, o, ("down", "across")):
        if not -(k // 2) <= oi <= (k - 1) // 2:
            raise ValueError(
                f"{name} {oi} {axis} is outside the filter's {k} taps: from {-(k // 2)} to {(k - 1) // 2}"
            )
    return o


def axes(value, ndim: int):
    """The image axes ``(y, x)`` as non-negative indices, or None."""
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"axes must be a pair of integers (y, x), got {value!r}")
    y, x = (integer(a, "axes", bools=False) for a in value)
    if not (-ndim <= y < ndim and -ndim <= x < ndim) or y % ndim == x % ndim:
        raise ValueError(f"axes {tuple(value)} do not name two distinct axes of a {ndim}-D array")
    return y % ndim, x % ndim


def stream(value):
    if value is None:
        return None
    return integer(value, "stream", bools=False)


def device(value, count):
    """Where a numpy input is filtered: None (the first GPU, else the CPU), a GPU index below
    ``count`` (the GPUs the process can use), ``"all"`` (a tuple of every GPU: batches and
    large images spread over them) or ``"cpu"``."""
    if value is None or isinstance(value, str) and value == "cpu":
        return value
    if isinstance(value, str):
        if value != "all":
            raise ValueError(f"device must be a GPU index, 'all' or 'cpu', got {value!r}")
        if count == 0:
            raise RuntimeError("device='all': no GPU can be used in this process")
        return tuple(range(count))
    d = integer(value, "device", bools=False)
    if d < 0:
        raise ValueError(f"device must be a GPU index of at least 0, 'all' or 'cpu', got {d}")
    if count == 0:
        raise RuntimeError(f"device={d}: no GPU can be used in this process")
    if not 0 <= d < count:
        raise ValueError(f"device={d}: no such GPU (this process can use GPUs 0 to {count - 1})")
    return d


def gaussian_radius(s: float, truncate, radius, axis: str) -> int:
    """scipy's radius of a Gaussian of standard deviation ``s`` (> ``SIGMA_MIN``) on one axis:
    ``radius`` (a non-negative integer) where given, else ``int(truncate * s + 0.5)``."""
    t = real(truncate, "truncate")
    if radius is not None:
        if isinstance(radius, np.ndarray) and radius.ndim == 0:
            radius = radius[()]
        if not isinstance(radius, numbers.Integral) or radius < 0:
            raise ValueError(f"radius must be a non-negative integer, got {radius!r}")
    reach = t * s + 0.5
    if not math.isfinite(reach):
        raise ValueError(f"truncate * sigma is too large on the {axis} axis: {t} * {s}")
    if radius is not None:
        return int(radius)
    r = int(reach)
    if r < 0:
        raise ValueError(f"truncate {t} * sigma {s} gives a negative radius on the {axis} axis")
    return r
