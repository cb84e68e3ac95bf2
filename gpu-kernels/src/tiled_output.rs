//! The `tiled-output` kernel: blocks the size of the output tile, haloed tile loaded in batches.
//!
//! # Tiling
//! A block of `bw × bh` threads (the launch's block shape; see
//! [`TILED_OUTPUT_BLOCKS`](crate::launch::TILED_OUTPUT_BLOCKS)) produces a `bw × bh` output tile of
//! one channel. Its input tile is `(bw + 2r) × (bh + 2r)`, more pixels than threads, so the block
//! loads it in batches: thread `t` loads tile elements `t, t + bw·bh, t + 2·bw·bh, …` (the
//! reports' "2-batch loading" for small radii). After a barrier every thread computes its output
//! from shared memory. Unlike `tiled`, no thread idles during the computation.
//!
//! # Thread mapping
//! Block `(bx, by, c)`, thread `(tx, ty)` writes output pixel `(bx·bw + tx, by·bh + ty)` of
//! channel `c` when it lies inside the output.
//!
//! # Safety
//! Launch with `tiled_output_shared_bytes(block, radius)` bytes of dynamic shared memory and grid
//! z = `channels`; buffers and taps as for `constant`.

use crate::device::{
    Global, ParamTaps, Sample, block_dim_x, block_dim_y, block_x, block_y, block_z, correlate_tile,
    fetch_or_zero, is_alpha, shared_tile, store_sample, sync_threads, thread_x, thread_y,
};
use crate::launch::{Geometry, Taps};

#[inline(always)]
unsafe fn tiled_output<T: Sample>(input: *const T, output: *mut T, g: &Geometry, taps: ParamTaps) {
    let tile = shared_tile();
    let r = g.radius;
    let (bw, bh) = (block_dim_x(), block_dim_y());
    let (tw, th) = (bw + 2 * r, bh + 2 * r);
    let (tx, ty, c) = (thread_x(), thread_y(), block_z());
    let src = Global::new(input, g);
    let x0 = (block_x() * bw + g.offset) as i32 - r as i32;
    let y0 = (block_y() * bh + g.offset) as i32 - r as i32;
    let mut e = ty * bw + tx;
    while e < tw * th {
        let (lx, ly) = (e % tw, e / tw);
        // SAFETY: e < tw·th, the tile size the host allocates.
        unsafe { *tile.add(e as usize) = fetch_or_zero(g, &src, x0 + lx as i32, y0 + ly as i32) };
        e += bw * bh;
    }
    sync_threads();

    let (x, y) = (block_x() * bw + tx, block_y() * bh + ty);
    if x >= g.out_width || y >= g.out_height {
        return;
    }
    // SAFETY: (tx + r, ty + r) and the window at (tx, ty), which ends below (tw, th), are inside
    // the tile; (x, y, c) is inside the output.
    unsafe {
        let v = if is_alpha(g, c) {
            *tile.add(((ty + r) * tw + tx + r) as usize)
        } else {
            correlate_tile(tile.add((ty * tw + tx) as usize), tw, 2 * r + 1, taps)
        };
        store_sample(output, g, x, y, c, v);
    }
}

macro_rules! tiled_output_entry {
    ($name:ident, $t:ty) => {
        /// The `tiled-output` kernel for this sample type (see the module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const $t, output: *mut $t, g: Geometry, _taps: Taps) {
            let taps = param_taps!($name, 3);
            // SAFETY: the caller follows the module documentation's launch contract.
            unsafe { tiled_output(input, output, &g, taps) }
        }
    };
}

tiled_output_entry!(conv_tiled_output_u8, u8);
tiled_output_entry!(conv_tiled_output_u16, u16);
tiled_output_entry!(conv_tiled_output_f32, f32);
