//! The `tiled-cache` kernel: the textbook's second tiled strategy, halo through the caches.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::{Geometry, LaunchConfig};

/// The entry-point base name: `conv_tiled_cache_<type>`.
pub const ENTRY: &str = "conv_tiled_cache";

/// Block shape; the shared tile is exactly the block.
pub const BLOCK: (u32, u32) = (32, 16);

/// Shared memory: one `f32` per thread.
pub const SHARED_BYTES: u32 = BLOCK.0 * BLOCK.1 * 4;

/// The launch: one block per output tile of [`BLOCK`].
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(g, BLOCK, BLOCK, SHARED_BYTES)
}

/// Global loads per output pixel: one per thread for the tile, plus every tap that falls outside
/// the tile.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    let (w, h) = BLOCK;
    let inside = |n: u32| -> f64 {
        (0..n as i64)
            .map(|t| {
                (0..2 * r as i64 + 1)
                    .filter(|j| (0..n as i64).contains(&(t + j - r as i64)))
                    .count() as f64
            })
            .sum()
    };
    let total = f64::from(w * h) * crate::launch::taps(r);
    1.0 + (total - inside(w) * inside(h)) / f64::from(w * h)
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_dim_x, block_dim_y, block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x,
        thread_idx_y,
    },
    crate::device::{Global, Sample, fetch_or_cval, fma, is_alpha, param_taps, store_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of `bw × bh` threads (launched as
/// [`BLOCK`]) loads only the input pixels its own
/// outputs are centred on, one per thread, into shared memory. Taps that fall inside that tile read
/// shared memory; taps in the halo read global memory, where neighbouring blocks' loads have most
/// likely left them in L1/L2. Simpler loads than `tiled-output`, at the cost of a branch per tap.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` loads input pixel `(x + offset, y + offset)` and writes
/// output pixel `(x, y) = (bx·bw + tx, by·bh + ty)` of channel `c` when inside the output.
///
/// # Safety
/// Launch with `bw · bh · 4` bytes of dynamic shared memory and grid z = `channels`; buffers and
/// taps as for `constant`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_tiled_cache<T: Sample>(input: *const T, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    let tile = dynamic_shared_mem::<f32>();
    let r = g.radius as i32;
    let (bw, bh) = (block_dim_x(), block_dim_y());
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let src = Global::new(input, &g);
    let (x, y) = (block_idx_x() * bw + tx, block_idx_y() * bh + ty);
    let (cx, cy) = ((x + g.offset) as i32, (y + g.offset) as i32);
    // SAFETY: one element per thread of the bw·bh tile.
    unsafe { *tile.add((ty * bw + tx) as usize) = fetch_or_cval(&g, &src, cx, cy) };
    sync_threads();

    if x >= g.out_width || y >= g.out_height {
        return;
    }
    let v = if is_alpha(&g, c) {
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
                    fetch_or_cval(&g, &src, cx + j as i32 - r, cy + i as i32 - r)
                };
                acc = fma(value, taps.get(i * k + j), acc);
            }
        }
        acc
    };
    // SAFETY: (x, y, c) is inside the output.
    unsafe { store_sample(output, &g, x, y, c, v) };
}
