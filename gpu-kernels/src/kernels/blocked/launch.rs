//! The `blocked` kernels' launch: entry names, block, tiles, shared memory and register limits,
//! read by the host and by the kernel.

use crate::launch::Geometry;
#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::LaunchConfig;

/// The entry-point base name of `blocked-4x4`: `conv_blocked_4x4_<type>_r<radius>`, and
/// `conv_blocked_4x4_c<channels>_<type>_r<radius>` for the interleaved entries.
pub const ENTRY_4X4: &str = "conv_blocked_4x4";
/// The entry-point base name of `blocked-4x2`, named as [`ENTRY_4X4`]'s.
pub const ENTRY_4X2: &str = "conv_blocked_4x2";
/// The entry-point base name of `blocked-rect`: `conv_blocked_rect_<type>_r<radius>`, the radius
/// the filter's along a row; its radius down a column is [`Geometry::radius_y`].
pub const ENTRY_RECT: &str = "conv_blocked_rect";

/// Block shape: 32 × 8 threads.
pub const BLOCK: (u32, u32) = (32, 8);
/// Outputs per thread of `blocked-4x4`: a 4 × 4 patch held in registers.
pub const PER_THREAD: (u32, u32) = (4, 4);
/// Output rows per thread of `blocked-4x4`.
pub const ROWS_4X4: u32 = PER_THREAD.1;
/// Output rows per thread of `blocked-4x2`: half the tile, more blocks, fewer registers.
pub const ROWS_4X2: u32 = 2;
/// Output tile of one block with `rows` output rows per thread: 128 × (8 · rows) pixels.
pub const fn tile(rows: u32) -> (u32, u32) {
    (BLOCK.0 * PER_THREAD.0, BLOCK.1 * rows)
}
/// Output tile of one `blocked-4x4` block: 128 × 32 pixels.
pub const TILE: (u32, u32) = tile(PER_THREAD.1);

/// The horizontal halo: the radius rounded up to a multiple of 4, so the tile's first column,
/// every row of it, and every thread's run of pixels are 16-byte aligned.
pub const fn halo(radius: u32) -> u32 {
    radius.div_ceil(4) * 4
}

/// Row stride (in `f32`) of the shared tile: the tile plus its aligned halo.
pub const fn stride(radius: u32) -> u32 {
    TILE.0 + 2 * halo(radius)
}

/// Shared memory with `rows` output rows per thread, for the entries that filter rows of
/// `channels` interleaved channels as rows of samples (1: one channel per block).
pub const fn shared_bytes(radius: u32, rows: u32, channels: u32) -> u32 {
    stride(radius * channels) * (tile(rows).1 + 2 * radius) * 4
}

/// Output rows per thread of `blocked-rect` for a filter of radius `radius` along a row: 8 for
/// the narrowest filters (radius 0 and 1, which tall filters are: the tile is as tall as wide
/// in samples read, and each input row a thread reads feeds twice the outputs), else 4.
pub const fn rect_rows(radius: u32) -> u32 {
    if radius <= 1 { 8 } else { 4 }
}

/// The register limit of the `blocked-rect` entry for radius `radius` along a row (0: none): 64
/// for the 8-row entries, which ptxas otherwise gives up to 80 (3 blocks an SM instead of 4; with
/// the limit 15 × 3 on 8192² runs 3% faster in `f32`, 9% in `u8`).
pub const fn rect_max_registers(radius: u32) -> u32 {
    if rect_rows(radius) == 8 { 64 } else { 0 }
}

/// Shared memory of a `blocked-rect` block for a filter of radius `radius` along a row and
/// `radius_y` down a column.
pub const fn rect_shared_bytes(radius: u32, radius_y: u32) -> u32 {
    stride(radius) * (tile(rect_rows(radius)).1 + 2 * radius_y) * 4
}

/// Largest radius of the interleaved (RGB, RGBA) entries, `<base>_c<channels>_<type>_r<r>`: a
/// block filters a run of 128 interleaved samples of every channel, each tap `channels` samples
/// from the next, so RGB and RGBA rows load and store whole 16-byte vectors as gray rows do
/// (RGBA's alpha is copied).
pub const INTERLEAVED_MAX_RADIUS: u32 = 4;

/// Whether `g` runs on an interleaved entry: RGB or RGBA, radius up to
/// [`INTERLEAVED_MAX_RADIUS`], and rows of whole 4-sample vectors from the tile's first column on
/// (else each channel is its own block, as for other channel counts).
pub const fn interleaved(g: &Geometry) -> bool {
    (g.channels == 3 || g.channels == 4)
        && g.radius <= INTERLEAVED_MAX_RADIUS
        && (g.in_width * g.channels).is_multiple_of(4)
        && (g.offset * g.channels).is_multiple_of(4)
}

/// The register limit of the entry for samples of `sample_bytes` bytes, radius `radius`, `rows`
/// output rows per thread and `channels` interleaved channels (PTX `.maxnreg`; 0: none). Up to
/// radius 4 (for `u16` 4 × 4 from radius 2) the gray entries fit in 32 registers without
/// spilling, which lets 8 blocks share an SM (full occupancy) where ptxas would otherwise take up
/// to 40 and fit 6 (larger radii measured slower with the limit; 4 × 4 `u16` below radius 2
/// spills). The interleaved entries are limited to 32 (5-11% faster than without a limit, where
/// ptxas takes 36-64) except the few ptxas would spill there: RGBA 4 × 2 `f32` at radius 1 takes
/// 36 (40-44 without a limit; 6 blocks share an SM instead of 5, 2-10% faster); RGBA 4 × 4 at
/// radius 4, 4 × 4 `f32` at radius 3 and 4 × 2 `f32` at radius 2 take 40 since the batch offsets
/// (33 to 40 registers give 6 blocks an SM: a warp's registers come in 256s); RGB 4 × 4
/// `u8`/`u16` at radius 1 and RGBA 4 × 2 `u16` at radius 4 none (they spill up to 40).
pub const fn max_registers(sample_bytes: usize, radius: usize, rows: usize, channels: usize) -> u32 {
    if channels == 1 {
        let smallest = if rows == 4 && sample_bytes == 2 { 2 } else { 0 };
        return if radius >= smallest && radius <= 4 { 32 } else { 0 };
    }
    match (rows, channels, sample_bytes, radius) {
        (4, 4, _, 4) | (4, 4, 4, 3) | (2, 4, 4, 2) => 40,
        (2, 4, 2, 4) => 0,
        (2, 4, 4, 1) => 36,
        (4, 3, 1 | 2, 1) => 0,
        _ => 32,
    }
}

/// The launch of `blocked-4x4` (`rows` = [`ROWS_4X4`]) or `blocked-4x2` ([`ROWS_4X2`]): the
/// interleaved entries cover a row of `out_width · channels` samples; the others put the channels
/// of a tile in neighbouring blocks along x (grid z = 1), so they run together.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry, rows: u32) -> LaunchConfig {
    let tile = tile(rows);
    let (samples, planes) = if interleaved(g) {
        (g.channels, 1)
    } else {
        (1, g.channels)
    };
    LaunchConfig {
        grid: (
            (g.out_width * samples).div_ceil(tile.0) * planes,
            g.out_height.div_ceil(tile.1),
            1,
        ),
        block: BLOCK,
        shared_bytes: shared_bytes(g.radius, rows, samples),
    }
}

/// The launch of `blocked-rect`: as `blocked-4x4`'s gray entries, the tile `2 · radius_y` rows
/// taller than its output.
#[cfg(not(target_arch = "nvptx64"))]
pub fn rect_launch_config(g: &Geometry) -> LaunchConfig {
    let tile = tile(rect_rows(g.radius));
    LaunchConfig {
        grid: (
            g.out_width.div_ceil(tile.0) * g.channels,
            g.out_height.div_ceil(tile.1),
            1,
        ),
        block: BLOCK,
        shared_bytes: rect_shared_bytes(g.radius, g.radius_y),
    }
}

/// Global loads per output pixel with `rows` output rows per thread: the shared tile's rows, halo
/// included, over the outputs it serves.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(rows: u32, r: usize) -> f64 {
    let (w, h) = tile(rows);
    f64::from(stride(r as u32)) * (f64::from(h) + 2.0 * r as f64) / f64::from(w * h)
}
