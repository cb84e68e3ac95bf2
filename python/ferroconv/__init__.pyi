"""Type stubs of ferroconv: 2D image correlation and convolution with Rust GPU kernels."""

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

_Array = Any  # numpy.ndarray, torch.Tensor (CUDA), cupy.ndarray
_Axes = Optional[Tuple[int, int]]
_PerAxis = Union[float, Sequence[float]]
_Radius = Union[int, Sequence[Optional[int]]]
_Origin = Union[int, Sequence[int]]

MODES: Tuple[str, ...]
BORDER_CONSTANT: int
BORDER_REPLICATE: int
BORDER_REFLECT: int
BORDER_WRAP: int
BORDER_REFLECT_101: int
BORDER_DEFAULT: int
CV_8U: int
CV_16U: int
CV_16S: int
CV_32F: int
CV_64F: int

def gpu_available() -> bool: ...

class Filter2D:
    def __init__(self, weights: Any, mode: str = "reflect", cval: float = 0.0, origin: _Origin = 0) -> None: ...
    @property
    def weights(self) -> np.ndarray: ...
    @property
    def mode(self) -> str: ...
    @property
    def cval(self) -> float: ...
    @property
    def origin(self) -> Tuple[int, int]: ...
    @property
    def radius(self) -> int: ...
    @property
    def variant(self) -> Optional[str]: ...
    def __call__(
        self, input: _Array, output: Optional[_Array] = None, axes: _Axes = None, stream: Optional[int] = None
    ) -> _Array: ...

def correlate(
    input: _Array,
    weights: Any,
    mode: str = "reflect",
    cval: float = 0.0,
    output: Optional[_Array] = None,
    axes: _Axes = None,
    stream: Optional[int] = None,
    origin: _Origin = 0,
) -> _Array: ...
def convolve(
    input: _Array,
    weights: Any,
    mode: str = "reflect",
    cval: float = 0.0,
    output: Optional[_Array] = None,
    axes: _Axes = None,
    stream: Optional[int] = None,
    origin: _Origin = 0,
) -> _Array: ...
def filter2d(
    src: _Array,
    ddepth: int,
    kernel: Any,
    dst: Optional[_Array] = None,
    anchor: Optional[Tuple[int, int]] = None,
    delta: float = 0,
    borderType: int = ...,
) -> _Array: ...
def gaussian_filter(
    input: _Array,
    sigma: _PerAxis,
    output: Optional[_Array] = None,
    mode: str = "reflect",
    cval: float = 0.0,
    truncate: float = 4.0,
    *,
    radius: Optional[_Radius] = None,
    axes: _Axes = None,
    stream: Optional[int] = None,
) -> _Array: ...
def uniform_filter(
    input: _Array,
    size: _PerAxis = 3,
    output: Optional[_Array] = None,
    mode: str = "reflect",
    cval: float = 0.0,
    *,
    axes: _Axes = None,
    stream: Optional[int] = None,
) -> _Array: ...
def sobel(
    input: _Array,
    axis: int = -1,
    output: Optional[_Array] = None,
    mode: str = "reflect",
    cval: float = 0.0,
    *,
    axes: _Axes = None,
    stream: Optional[int] = None,
) -> _Array: ...
