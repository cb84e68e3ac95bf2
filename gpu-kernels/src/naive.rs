//! The `naive` kernel: input and filter both read from global memory.
//!
//! Every tap costs two global loads (pixel and filter weight), the starting point of the textbook:
//! about 0.5 floating-point operations per byte loaded.
//!
//! # Thread mapping
//! One thread per output sample: thread `(x, y)` of the grid (block
//! [`PIXEL_BLOCK`](crate::launch::PIXEL_BLOCK)) in block plane `z` writes channel `z` of output
//! pixel `(x, y)`; threads past the right or bottom edge do nothing.
//!
//! # Safety
//! `input` holds `in_width · in_height · channels` samples and `output`
//! `out_width · out_height · channels`, on the device, not overlapping; `filter` points to
//! `(2 · radius + 1)²` `f32` on the device; `radius <= MAX_RADIUS`; the grid's z is `channels`.

use crate::device::{Global, per_sample};
use crate::launch::Geometry;

macro_rules! naive_entry {
    ($name:ident, $t:ty) => {
        /// The `naive` kernel for this sample type (see the module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            input: *const $t,
            output: *mut $t,
            g: Geometry,
            filter: *const f32,
        ) {
            // SAFETY: the caller guarantees the buffer sizes (module documentation); taps stay below k².
            unsafe {
                per_sample(&g, &Global::new(input, &g), output, |t| {
                    *filter.add(t as usize)
                })
            }
        }
    };
}

naive_entry!(conv_naive_u8, u8);
naive_entry!(conv_naive_u16, u16);
naive_entry!(conv_naive_f32, f32);
