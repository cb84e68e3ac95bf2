//! The `constant` kernel: filter in the constant bank, input from global memory.

use crate::device::{correlate_global, global_xy};
use crate::launch::Taps;

/// Zero-border 2D correlation with the filter in constant memory, one thread per output pixel.
///
/// The taps arrive by value as a kernel parameter, which the GPU keeps in its constant bank: all
/// threads of a warp read the same tap at the same time, so each read is one cached broadcast and
/// global memory only serves the image.
///
/// # Thread mapping
/// Thread `(x, y)` of the grid (block [`PIXEL_BLOCK`](crate::launch::PIXEL_BLOCK)) computes output
/// pixel `(x, y)`; threads past the right or bottom edge do nothing.
///
/// # Safety
/// `input` and `output` point to `width * height` `f32` on the device, not overlapping;
/// `radius <= MAX_RADIUS` and `taps` holds the `(2 * radius + 1)²` taps row-major.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn conv_constant(
    input: *const f32,
    output: *mut f32,
    width: u32,
    height: u32,
    radius: u32,
    _taps: Taps,
) {
    let taps = param_taps!(conv_constant, 5);
    let (x, y) = global_xy();
    if x >= width || y >= height {
        return;
    }
    // SAFETY: (x, y) is inside the image and the caller guarantees the buffer sizes.
    unsafe {
        let sum = correlate_global(input, width, height, x, y, radius, |t| taps.get(t));
        *output.add(y as usize * width as usize + x as usize) = sum;
    }
}
