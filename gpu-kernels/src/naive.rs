//! The `naive` kernel: input and filter both read from global memory.

use crate::device::{correlate_global, global_xy};

/// Zero-border 2D correlation with the filter in global memory, one thread per output pixel.
///
/// Every tap costs two global loads (pixel and filter weight), which is the starting point of
/// the textbook: about 0.5 floating-point operations per byte loaded.
///
/// # Thread mapping
/// Thread `(x, y)` of the grid (block [`PIXEL_BLOCK`](crate::launch::PIXEL_BLOCK)) computes output
/// pixel `(x, y)`; threads past the right or bottom edge do nothing.
///
/// # Safety
/// `input` and `output` point to `width * height` `f32` on the device, not overlapping; `filter`
/// points to `(2 * radius + 1)²` `f32` on the device; `radius <= MAX_RADIUS`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn conv_naive(
    input: *const f32,
    output: *mut f32,
    width: u32,
    height: u32,
    filter: *const f32,
    radius: u32,
) {
    let (x, y) = global_xy();
    if x >= width || y >= height {
        return;
    }
    // SAFETY: (x, y) is inside the image and the caller guarantees the buffer sizes.
    unsafe {
        let sum = correlate_global(input, width, height, x, y, radius, |t| *filter.add(t as usize));
        *output.add(y as usize * width as usize + x as usize) = sum;
    }
}
