//! The `tiled-cache` kernel: the textbook's second tiled strategy, halo through the caches.
//!
//! # Tiling
//! A block of `bw × bh` threads (launched as
//! [`TILED_CACHE_BLOCK`](crate::launch::TILED_CACHE_BLOCK)) loads only the input pixels its own
//! outputs are centred on, one per thread, into shared memory. Taps that fall inside that tile read
//! shared memory; taps in the halo read global memory, where neighbouring blocks' loads have most
//! likely left them in L1/L2. Simpler loads than `tiled-output`, at the cost of a branch per tap.
//!
//! # Thread mapping
//! Block `(bx, by, c)`, thread `(tx, ty)` loads input pixel `(x + offset, y + offset)` and writes
//! output pixel `(x, y) = (bx·bw + tx, by·bh + ty)` of channel `c` when inside the output.
//!
//! # Safety
//! Launch with `bw · bh · 4` bytes of dynamic shared memory and grid z = `channels`; buffers and
//! taps as for `constant`.

use crate::device::{
    Global, ParamTaps, Sample, block_dim_x, block_dim_y, block_x, block_y, block_z, fetch_or_zero, fma,
    is_alpha, shared_tile, store_sample, sync_threads, thread_x, thread_y,
};
use crate::launch::{Geometry, Taps};

#[inline(always)]
unsafe fn tiled_cache<T: Sample>(input: *const T, output: *mut T, g: &Geometry, taps: ParamTaps) {
    let tile = shared_tile();
    let r = g.radius as i32;
    let (bw, bh) = (block_dim_x(), block_dim_y());
    let (tx, ty, c) = (thread_x(), thread_y(), block_z());
    let src = Global::new(input, g);
    let (x, y) = (block_x() * bw + tx, block_y() * bh + ty);
    let (cx, cy) = ((x + g.offset) as i32, (y + g.offset) as i32);
    // SAFETY: one element per thread of the bw·bh tile.
    unsafe { *tile.add((ty * bw + tx) as usize) = fetch_or_zero(g, &src, cx, cy) };
    sync_threads();

    if x >= g.out_width || y >= g.out_height {
        return;
    }
    let v = if is_alpha(g, c) {
        // SAFETY: (tx, ty) is inside the tile.
        unsafe { *tile.add((ty * bw + tx) as usize) }
    } else {
        let k = 2 * g.radius + 1;
        let mut acc = 0.0f32;
        for i in 0..k {
            let ly = ty as i32 + i as i32 - r;
            for j in 0..k {
                let lx = tx as i32 + j as i32 - r;
                let value = if (lx as u32) < bw && (ly as u32) < bh {
                    // SAFETY: (lx, ly) is inside the tile.
                    unsafe { *tile.add((ly as u32 * bw + lx as u32) as usize) }
                } else {
                    fetch_or_zero(g, &src, cx + j as i32 - r, cy + i as i32 - r)
                };
                acc = fma(value, taps.get(i * k + j), acc);
            }
        }
        acc
    };
    // SAFETY: (x, y, c) is inside the output.
    unsafe { store_sample(output, g, x, y, c, v) };
}

macro_rules! tiled_cache_entry {
    ($name:ident, $t:ty) => {
        /// The `tiled-cache` kernel for this sample type (see the module documentation).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const $t, output: *mut $t, g: Geometry, _taps: Taps) {
            let taps = param_taps!($name, 3);
            // SAFETY: the caller follows the module documentation's launch contract.
            unsafe { tiled_cache(input, output, &g, taps) }
        }
    };
}

tiled_cache_entry!(conv_tiled_cache_u8, u8);
tiled_cache_entry!(conv_tiled_cache_u16, u16);
tiled_cache_entry!(conv_tiled_cache_f32, f32);
