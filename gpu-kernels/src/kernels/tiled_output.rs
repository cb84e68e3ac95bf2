//! The `tiled-output` kernel: blocks the size of the output tile, haloed tile loaded in batches.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::{Geometry, LaunchConfig};

/// The entry-point base name: `conv_tiled_output_<type>`.
pub const ENTRY: &str = "conv_tiled_output";

/// The block shape (threads = output pixels) of `tiled-output-16x16`.
pub const BLOCK_16X16: (u32, u32) = (16, 16);
/// The block shape of `tiled-output-32x16`.
pub const BLOCK_32X16: (u32, u32) = (32, 16);
/// The block shape of `tiled-output-32x32`.
pub const BLOCK_32X32: (u32, u32) = (32, 32);

/// Shared memory: the output tile plus an `r`-pixel halo.
pub const fn shared_bytes(block: (u32, u32), radius: u32) -> u32 {
    (block.0 + 2 * radius) * (block.1 + 2 * radius) * 4
}

/// The launch with block shape `block` (one of [`BLOCK_16X16`], [`BLOCK_32X16`],
/// [`BLOCK_32X32`]): one block per output tile of its size.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry, block: (u32, u32)) -> LaunchConfig {
    LaunchConfig::tiles(g, block, block, shared_bytes(block, g.radius))
}

/// Global loads per output pixel with block shape `block`: the haloed tile over its outputs.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(block: (u32, u32), r: usize) -> f64 {
    crate::launch::halo(block.0, block.1, r)
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_dim_x, block_dim_y, block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x,
        thread_idx_y,
    },
    crate::device::{Global, Sample, correlate_tile, fetch_or_cval, is_alpha, param_taps, store_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of `bw × bh` threads (the launch's block shape, one of the `BLOCK_*`
/// shapes) produces a `bw × bh` output tile of
/// one channel. Its input tile is `(bw + 2r) × (bh + 2r)`, more pixels than threads, so the block
/// loads it in batches: thread `t` loads tile elements `t, t + bw·bh, t + 2·bw·bh, …` (the
/// reports' "2-batch loading" for small radii). After a barrier every thread computes its output
/// from shared memory. Unlike `tiled`, no thread idles during the computation.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` writes output pixel `(bx·bw + tx, by·bh + ty)` of
/// channel `c` when it lies inside the output.
///
/// # Safety
/// Launch with `shared_bytes(block, radius)` bytes of dynamic shared memory and grid
/// z = `channels`; buffers and taps as for `constant`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_tiled_output<T: Sample>(input: *const T, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    let tile = dynamic_shared_mem::<f32>();
    let r = g.radius;
    let (bw, bh) = (block_dim_x(), block_dim_y());
    let (tw, th) = (bw + 2 * r, bh + 2 * r);
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let src = Global::new(input, &g);
    let x0 = (block_idx_x() * bw + g.offset) as i32 - r as i32;
    let y0 = (block_idx_y() * bh + g.offset) as i32 - r as i32;
    let mut e = ty * bw + tx;
    while e < tw * th {
        let (lx, ly) = (e % tw, e / tw);
        // SAFETY: e < tw·th, the tile size the host allocates.
        unsafe { *tile.add(e as usize) = fetch_or_cval(&g, &src, x0 + lx as i32, y0 + ly as i32) };
        e += bw * bh;
    }
    sync_threads();

    let (x, y) = (block_idx_x() * bw + tx, block_idx_y() * bh + ty);
    if x >= g.out_width || y >= g.out_height {
        return;
    }
    // SAFETY: (tx + r, ty + r) and the window at (tx, ty), which ends below (tw, th), are inside
    // the tile; (x, y, c) is inside the output.
    unsafe {
        let v = if is_alpha(&g, c) {
            *tile.add(((ty + r) * tw + tx + r) as usize)
        } else {
            correlate_tile(tile.add((ty * tw + tx) as usize), tw, 2 * r + 1, taps)
        };
        store_sample(output, &g, x, y, c, v);
    }
}
