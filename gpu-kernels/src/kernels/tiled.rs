//! The `tiled` kernel: the textbook's first tiled strategy, blocks the size of the input tile.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::{Geometry, LaunchConfig};

/// The entry-point base name: `conv_tiled_<type>`.
pub const ENTRY: &str = "conv_tiled";

/// Side of the square input tile (and thread block): 32 × 32 = 1024 threads. Each block produces
/// an output tile of `SIDE - 2r` squared pixels.
pub const SIDE: u32 = 32;

/// Side of the output tile for a given radius.
pub const fn output_side(radius: u32) -> u32 {
    SIDE - 2 * radius
}

/// Dynamic shared memory, in bytes: one `f32` per thread of the block.
pub const SHARED_BYTES: u32 = SIDE * SIDE * 4;

/// The launch: a block of `SIDE × SIDE` threads per output tile of
/// [`output_side`] squared.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    let out = output_side(g.radius);
    LaunchConfig::tiles(g, (out, out), (SIDE, SIDE), SHARED_BYTES)
}

/// Global loads per output pixel: the input tile over its output tile.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    let ratio = f64::from(SIDE) / f64::from(output_side(r as u32));
    ratio * ratio
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_x, thread_idx_y,
    },
    crate::device::{Global, Sample, correlate_tile, fetch_or_cval, is_alpha, param_taps, store_sample},
    crate::launch::{Geometry, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block covers an input tile of `SIDE × SIDE` pixels of one channel: an output tile of
/// `SIDE - 2r` squared pixels plus an `r`-pixel halo on each side. Each thread loads exactly
/// one input sample (border-resolved; 0 for ghost cells) into shared memory; after a barrier, the
/// threads of the inner `(SIDE - 2r)²` square each compute one output sample from shared memory
/// alone. Global loads per output pixel drop from `k²` to `(SIDE / (SIDE - 2r))²`.
///
/// # Thread mapping
/// Block `(bx, by, c)`, thread `(tx, ty)` loads input pixel
/// `(bx·out + offset + tx - r, by·out + offset + ty - r)` of channel `c`, where
/// `out = SIDE - 2r`, and, if it is an inner thread, writes output pixel
/// `(bx·out + tx - r, by·out + ty - r)` when that lies inside the output.
///
/// # Safety
/// Launch with block `SIDE × SIDE`, `SHARED_BYTES` of dynamic shared memory and grid
/// z = `channels`; buffers and taps as for `constant`.
#[kernel(types(u8, u16, f32))]
pub unsafe fn conv_tiled<T: Sample>(input: *const T, output: *mut T, g: Geometry, taps: Taps) {
    let taps = param_taps!(taps);
    let tile = dynamic_shared_mem::<f32>();
    let r = g.radius;
    let out_side = output_side(r);
    let (tx, ty, c) = (thread_idx_x(), thread_idx_y(), block_idx_z());
    let src = Global::new(input, &g);
    let ix = (block_idx_x() * out_side + g.offset + tx) as i32 - r as i32;
    let iy = (block_idx_y() * out_side + g.offset + ty) as i32 - r as i32;
    // SAFETY: the block has SIDE² threads and SIDE² f32 of shared memory.
    unsafe { *tile.add((ty * SIDE + tx) as usize) = fetch_or_cval(&g, &src, ix, iy) };
    sync_threads();

    let (ox, oy) = (tx.wrapping_sub(r), ty.wrapping_sub(r));
    let (x, y) = (block_idx_x() * out_side + ox, block_idx_y() * out_side + oy);
    if ox >= out_side || oy >= out_side || x >= g.out_width || y >= g.out_height {
        return;
    }
    // SAFETY: (tx, ty) and the window at (ox, oy), which ends below out_side + 2r = SIDE, are
    // inside the tile; (x, y, c) is inside the output.
    unsafe {
        let v = if is_alpha(&g, c) {
            *tile.add((ty * SIDE + tx) as usize)
        } else {
            correlate_tile(tile.add((oy * SIDE + ox) as usize), SIDE, 2 * r + 1, taps)
        };
        store_sample(output, &g, x, y, c, v);
    }
}
