//! The `constant` kernel: filter in the constant bank, input from global memory.

/// The entry-point base name: `conv_constant_<type>`.
pub const ENTRY: &str = "conv_constant";

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::{Global, Sample, param_taps, per_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// The taps arrive by value as a kernel parameter, which the GPU keeps in its constant bank: all
/// threads of a warp read the same tap at the same time, so each read is one cached broadcast and
/// global memory only serves the image.
///
/// # Thread mapping
/// One thread per output sample, as for `naive`.
///
/// # Safety
/// As for `naive`, with the `(2 · radius + 1)²` taps row-major in `taps` instead of a pointer.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_constant<T: Sample>(input: *const T, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    // SAFETY: the caller guarantees the buffer sizes (see above).
    unsafe { per_sample(&g, &Global::new(input, &g), output, |t| taps.get(t)) }
}
