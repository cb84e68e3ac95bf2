//! The fused separable kernel: row pass into shared memory, then the column pass, in one launch,
//! so the image is read once and the result written once (no intermediate image in global memory).

use super::blocked::PER_THREAD;
#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::{Geometry, LaunchConfig};

/// The entry-point base name: `conv_separable_fused_<type>_r<radius>`.
pub const ENTRY: &str = "conv_separable_fused";

/// Block shape: 32 × 8 threads.
pub const BLOCK: (u32, u32) = (32, 8);
/// Output tile of one block: 128 × 32 pixels (4 × 4 per thread).
pub const TILE: (u32, u32) = (BLOCK.0 * PER_THREAD.0, BLOCK.1 * PER_THREAD.1);

/// Shared memory: the row-filtered `128 × (32 + 2r)` tile.
pub const fn shared_bytes(radius: u32) -> u32 {
    TILE.0 * (TILE.1 + 2 * radius) * 4
}

/// The launch: one block per output tile of [`TILE`].
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(g, TILE, BLOCK, shared_bytes(g.radius))
}

/// Global loads per output pixel: every row-pass item reads its 4 + 2r pixels, once per row of
/// the haloed tile.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    let (h, r) = (f64::from(TILE.1), r as f64);
    (4.0 + 2.0 * r) / 4.0 * (h + 2.0 * r) / h
}

#[cfg(target_arch = "nvptx64")]
use {
    super::blocked,
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{block_idx_x, block_idx_y, sync_threads, thread_idx_x, thread_idx_y},
    crate::device::{
        F32x4, Global, ParamTaps, Sample, batch_image, bf16, combine_image, combine_patch, fetch_or_cval,
        fma, is_alpha, param_taps, split_store, store_patch, unroll,
    },
    crate::launch::{Geometry, MAX_FILTER_SIZE, MAX_RADIUS, Taps},
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block of [`BLOCK`] = 32 × 8 threads produces a 128 × 32
/// output tile of one channel. The row pass computes the row-filtered values of the
/// tile's 128 columns on `32 + 2R` rows (the tile plus the column filter's halo) straight from
/// global memory, 4 columns per work item: one warp covers one row, and where the block lies
/// inside a single-channel image each item reads its `4 + 2RA` input pixels with 16-byte vector
/// loads (neighbouring items' overlap hits L1). The results go to a `128 × (32 + 2R)` `f32` shared
/// tile ([`shared_bytes`]). After a barrier, each thread
/// computes a 4 × 4 patch of outputs from the `4 + 2R` shared rows above and below it, one 16-byte
/// shared load per row, with the column taps in registers.
///
/// Work per output: `2k` FMAs plus a `2R / 32` share of extra row-pass work, instead of `k²`.
/// Measured on an H100, 8 columns per row-pass item (fewer overlapping loads, 96 registers) and
/// 128 × 64 tiles (fewer halo rows, fewer blocks per SM) were both slower at k = 17.
///
/// # Thread mapping
/// Row pass: work item `e` (stride 256) is shared row `e / 32`, columns `4·(e % 32) .. + 4`.
/// Column pass: block `(bx, by, c)`, thread `(tx, ty)` writes output pixels
/// `(bx·128 + 4·tx + ox, by·32 + 4·ty + oy)`, `ox, oy < 4`, of channel `c`, where inside the output.
///
/// # Safety
/// Launch with block `BLOCK`, `shared_bytes(R)` bytes of dynamic shared memory and grid
/// z = `channels` times the images of a batch (`input` and `output` then hold that many packed
/// images); `g.radius == R`; `taps` holds the `k` row taps then the `k` column taps; `g.combine`
/// as [`Geometry::combine`](crate::launch::Geometry::combine) says.
#[kernel(types(f32, u8, u16, f16, bf16), radius(0..=15))]
pub unsafe fn conv_separable_fused<T: Sample, const R: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: Taps,
) {
    let taps = param_taps!(taps);
    // Rounding and truncating integer stores compiled apart (`split_store!`).
    // SAFETY: the caller follows the launch contract above.
    split_store!(T, g => unsafe { separable_fused::<T, R>(input, output, &g, taps) })
}

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_separable_fused`.
///
/// # Safety
/// As for `conv_separable_fused`.
// The unrolled column pass tests `M >= OY` with both constants; for OY = 0 clippy calls it absurd.
#[cfg(target_arch = "nvptx64")]
#[allow(clippy::absurd_extreme_comparisons)]
#[inline(always)]
unsafe fn separable_fused<T: Sample, const R: usize>(
    input: *const T,
    output: *mut T,
    g: &Geometry,
    taps: ParamTaps,
) {
    /// Longest input run a row-pass item reads (its 4 outputs plus the largest aligned halo), in `f32`.
    const SEGMENT: usize = 4 + 2 * blocked::halo(MAX_FILTER_SIZE / 2) as usize;

    let k = 2 * R + 1;
    let ra = blocked::halo(R as u32) as usize;
    let base = output;
    // SAFETY: the launch contract: grid z holds `channels` planes of each image of the batch.
    let (input, output, c) = unsafe { batch_image(input, output, g, g.channels) };
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let alpha = is_alpha(g, c);
    let src = Global {
        channel: c,
        ..Global::new(input, g)
    };
    // 16-byte vectors per shared row: the tile's 128 columns.
    let per_row = TILE.0 as usize / 4;
    let tile_h = TILE.1 as usize + 2 * R;
    // Input column of output column bx·128, and input row of shared row 0.
    let xc = (block_idx_x() * TILE.0 + g.offset) as i32;
    let y0 = (block_idx_y() * TILE.1 + g.offset) as i32 - R as i32;
    let interior = xc >= ra as i32
        && y0 >= 0
        && (xc + (TILE.0 as usize + ra) as i32) as u32 <= g.in_width
        && y0 as u32 + tile_h as u32 <= g.in_height
        && g.channels == 1
        && g.in_width.is_multiple_of(4)
        && xc % 4 == 0;
    let shared = dynamic_shared_mem::<F32x4>();

    let mut row_taps = [0.0f32; MAX_FILTER_SIZE as usize];
    unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
        row_taps[J] = taps.get(J as u32);
    });
    let mut e = (ty * BLOCK.0 + tx) as usize;
    // One work item per 16-byte vector of the shared tile: 4 columns.
    while e < tile_h * per_row {
        let (row, q) = (e / per_row, e % per_row);
        let (x, y) = (xc + 4 * q as i32, y0 + row as i32);
        // seg[m] holds input column x - RA + m.
        let mut seg = [0.0f32; SEGMENT];
        if interior {
            let at = y as usize * g.in_width as usize + (x as usize - ra);
            unroll!(Q < (4 + 2 * ra) / 4; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
                // SAFETY: inside the image (interior) and 4-aligned (x, RA and the row width are
                // multiples of 4).
                seg[4 * Q..4 * Q + 4].copy_from_slice(&unsafe { T::load4(input.add(at + 4 * Q)) });
            });
        } else {
            unroll!(M < 4 + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33] {
                seg[M + ra - R] = fetch_or_cval(g, &src, x - R as i32 + M as i32, y);
            });
        }
        let mut out = [0.0f32; 4];
        if alpha {
            unroll!(OX < 4; [0, 1, 2, 3] { out[OX] = seg[OX + ra]; });
        } else {
            unroll!(OX < 4; [0, 1, 2, 3] {
                unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
                    out[OX] = fma(seg[OX + J + ra - R], row_taps[J], out[OX]);
                });
            });
        }
        // SAFETY: vector (row, q) of the tile: row < tile_h and q < 32 vectors per row, inside
        // the shared size the host allocates for this radius.
        unsafe { *shared.add(row * per_row + q) = F32x4(out) };
        e += (BLOCK.0 * BLOCK.1) as usize;
    }
    sync_threads();

    let (px, py) = (PER_THREAD.0 * tx, PER_THREAD.1 * ty);
    let (x, y) = (block_idx_x() * TILE.0 + px, block_idx_y() * TILE.1 + py);
    if x >= g.out_width || y >= g.out_height {
        return;
    }
    // Sized for every shared row a thread reads (4 + 2R), so the unrolled index below is in range
    // even in the copies that `M - OY < k` discards.
    let mut col_taps = [0.0f32; 4 + 2 * MAX_RADIUS as usize];
    unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
        col_taps[J] = taps.get((k + J) as u32);
    });
    let mut acc = [[0.0f32; 4]; 4];
    if alpha {
        // The row pass kept the centre samples: take the centre row's.
        unroll!(OY < 4; [0, 1, 2, 3] {
            // SAFETY: shared row py + OY + R < 32 + 2R, vector column tx < per_row: inside the tile.
            acc[OY] = unsafe { *shared.add((py as usize + OY + R) * per_row + tx as usize) }.0;
        });
    } else {
        unroll!(M < 4 + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33] {
            // SAFETY: shared row py + M < 32 + 2R, vector column tx < per_row: inside the tile.
            let v = unsafe { *shared.add((py as usize + M) * per_row + tx as usize) }.0;
            unroll!(OY < 4; [0, 1, 2, 3] {
                // Shared row py + M is tap M - OY of output row py + OY.
                if M >= OY && M - OY < k {
                    unroll!(OX < 4; [0, 1, 2, 3] {
                        acc[OY][OX] = fma(v[OX], col_taps[M - OY], acc[OY][OX]);
                    });
                }
            });
        });
    }
    if let Some(image) = combine_image(g, base, output) {
        // SAFETY: the launch contract (`Geometry::combine`): the image of this block's output.
        unsafe { combine_patch(image, g, (x, y, c), &mut acc) };
    }
    // SAFETY: the launch contract; (x, y) is inside the output (checked above).
    unsafe { store_patch(output, g, x, y, c, &acc) };
}
