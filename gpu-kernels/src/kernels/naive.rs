//! The `naive` kernel: input and filter both read from global memory.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::taps;

/// The entry-point base name: `conv_naive_<type>`.
pub const ENTRY: &str = "conv_naive";

/// Global loads per output sample: each tap's pixel and the tap itself.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    2.0 * taps(r)
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::{Global, Sample, per_sample},
    crate::launch::Geometry,
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// Every tap costs two global loads (pixel and filter weight), the starting point of the textbook:
/// about 0.5 floating-point operations per byte loaded.
///
/// # Thread mapping
/// One thread per output sample: thread `(x, y)` of the grid (block
/// [`PIXEL_BLOCK`](crate::launch::PIXEL_BLOCK)) in block plane `z` writes channel `z` of output
/// pixel `(x, y)`; threads past the right or bottom edge do nothing.
///
/// # Safety
/// `input` holds `in_width · in_height · channels` samples and `output`
/// `out_width · out_height · channels`, on the device, not overlapping; `filter` points to
/// `(2 · radius + 1)²` `f32` on the device; `radius <= MAX_RADIUS`; the grid's z is `channels`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_naive<T: Sample>(input: *const T, output: *mut T, g: Geometry, filter: *const f32) {
    // SAFETY: the caller guarantees the buffer sizes (see above); taps stay below k².
    unsafe { per_sample(&g, &Global::new(input, &g), output, |t| *filter.add(t as usize)) }
}
