//! The launch shapes and hand-counted global loads per pixel of the registered kernels, one
//! function per kernel family, named in [`REGISTRY`](super::variant::REGISTRY).

use super::variant::LaunchConfig;
use gpu_kernels::kernels::{
    blocked, lines_u8, separable_cols, separable_fused, separable_rows, tensor_f32, tensor_u8, tiled,
    tiled_cache, tiled_output, warp_rows,
};
use gpu_kernels::launch::{self, Geometry};

pub(super) fn pixel(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(g, launch::PIXEL_BLOCK, launch::PIXEL_BLOCK, 0)
}

pub(super) fn tiled(g: &Geometry) -> LaunchConfig {
    let out = tiled::output_side(g.radius);
    let block = (tiled::SIDE, tiled::SIDE);
    LaunchConfig::tiles(g, (out, out), block, tiled::SHARED_BYTES)
}

pub(super) fn tiled_output<const I: usize>(g: &Geometry) -> LaunchConfig {
    let block = tiled_output::BLOCKS[I];
    LaunchConfig::tiles(g, block, block, tiled_output::shared_bytes(block, g.radius))
}

pub(super) fn tiled_cache(g: &Geometry) -> LaunchConfig {
    let block = tiled_cache::BLOCK;
    LaunchConfig::tiles(g, block, block, tiled_cache::SHARED_BYTES)
}

/// The interleaved entries cover a row of `out_width · channels` samples; the others put the
/// channels of a tile in neighbouring blocks along x (grid z = 1), so they run together.
pub(super) fn blocked<const I: usize>(g: &Geometry) -> LaunchConfig {
    let rows = blocked::ROWS[I];
    let tile = blocked::tile(rows);
    let (samples, planes) = if blocked::interleaved(g) {
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
        block: blocked::BLOCK,
        shared_bytes: blocked::shared_bytes(g.radius, rows, samples),
    }
}

/// As `blocked-4x4`'s gray entries, the tile `2 · radius_y` rows taller than its output.
pub(super) fn blocked_rect(g: &Geometry) -> LaunchConfig {
    let tile = blocked::tile(blocked::rect_rows(g.radius));
    LaunchConfig {
        grid: (
            g.out_width.div_ceil(tile.0) * g.channels,
            g.out_height.div_ceil(tile.1),
            1,
        ),
        block: blocked::BLOCK,
        shared_bytes: blocked::rect_shared_bytes(g.radius, g.radius_y),
    }
}

/// A block covers every channel of its tile.
pub(super) fn tensor_u8(g: &Geometry) -> LaunchConfig {
    let shared_bytes = tensor_u8::shared_bytes(g.radius, g.channels);
    let tiles = LaunchConfig::tiles(g, tensor_u8::TILE, tensor_u8::BLOCK, shared_bytes);
    LaunchConfig {
        grid: (tiles.grid.0, tiles.grid.1, 1),
        ..tiles
    }
}

/// One block per tile: on the RGB and RGBA entries a tile of bytes holding every channel of its
/// pixels, else of pixels, one grid plane per channel.
pub(super) fn warp_rows(g: &Geometry) -> LaunchConfig {
    let tiled = if warp_rows::interleaved(g) {
        Geometry {
            out_width: g.out_width * g.channels,
            channels: 1,
            ..*g
        }
    } else {
        *g
    };
    LaunchConfig::tiles(&tiled, warp_rows::TILE, warp_rows::BLOCK, 0)
}

/// One block per 512 bytes of 8 rows, every channel's bytes together.
pub(super) fn lines_u8(g: &Geometry) -> LaunchConfig {
    let bytes = Geometry {
        out_width: g.out_width * g.channels,
        channels: 1,
        ..*g
    };
    LaunchConfig {
        grid: (
            bytes.out_width.div_ceil(lines_u8::TILE.0),
            bytes.out_height.div_ceil(lines_u8::TILE.1),
            1,
        ),
        block: lines_u8::BLOCK,
        shared_bytes: 0,
    }
}

/// An RGB or RGBA block covers every colour channel of its tile up to
/// [`COLOUR_MAX_RADIUS`](tensor_f32::COLOUR_MAX_RADIUS); beyond, as `blocked-4x4`, the channels
/// of a tile are neighbouring blocks along x.
pub(super) fn tensor_f32(g: &Geometry) -> LaunchConfig {
    let planes = tensor_f32::planes(g.channels, g.radius);
    let shared_bytes = tensor_f32::shared_bytes(g.radius, planes);
    let tiles = LaunchConfig::tiles(
        g,
        tensor_f32::tile(planes),
        tensor_f32::block(planes),
        shared_bytes,
    );
    let blocks_per_tile = if planes == 1 { g.channels } else { 1 };
    LaunchConfig {
        grid: (tiles.grid.0 * blocks_per_tile, tiles.grid.1, 1),
        ..tiles
    }
}

pub(super) fn separable_fused(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(
        g,
        separable_fused::TILE,
        separable_fused::BLOCK,
        separable_fused::shared_bytes(g.radius),
    )
}

/// The row pass covers every input row (the column pass needs the halo rows).
pub(super) fn separable_rows(g: &Geometry) -> LaunchConfig {
    LaunchConfig {
        grid: (
            g.out_width.div_ceil(separable_rows::SPAN),
            g.in_height.div_ceil(separable_rows::BLOCK.1),
            g.channels,
        ),
        block: separable_rows::BLOCK,
        shared_bytes: separable_rows::shared_bytes(g.radius),
    }
}

pub(super) fn separable_cols(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(
        g,
        (separable_cols::BLOCK.0, separable_cols::SPAN),
        separable_cols::BLOCK,
        separable_cols::shared_bytes(g.radius),
    )
}

/// Loads per pixel of a tile of `w × h` outputs with an `r`-pixel halo all round.
fn halo(w: u32, h: u32, r: usize) -> f64 {
    let (w, h, r) = (f64::from(w), f64::from(h), r as f64);
    (w + 2.0 * r) * (h + 2.0 * r) / (w * h)
}

pub(super) fn taps(r: usize) -> f64 {
    let k = 2.0 * r as f64 + 1.0;
    k * k
}

pub(super) fn loads_tiled(r: usize) -> f64 {
    let out = f64::from(tiled::output_side(r as u32));
    (f64::from(tiled::SIDE) / out).powi(2)
}

pub(super) fn loads_tiled_output<const I: usize>(r: usize) -> f64 {
    let (w, h) = tiled_output::BLOCKS[I];
    halo(w, h, r)
}

/// One load per thread for the tile, plus every tap that falls outside the tile.
pub(super) fn loads_tiled_cache(r: usize) -> f64 {
    let (w, h) = tiled_cache::BLOCK;
    let inside = |n: u32| -> f64 {
        (0..n as i64)
            .map(|t| {
                (0..2 * r as i64 + 1)
                    .filter(|j| (0..n as i64).contains(&(t + j - r as i64)))
                    .count() as f64
            })
            .sum()
    };
    let total = f64::from(w * h) * taps(r);
    1.0 + (total - inside(w) * inside(h)) / f64::from(w * h)
}

pub(super) fn loads_separable(r: usize) -> f64 {
    let (rows, cols, r) = (
        f64::from(separable_rows::SPAN),
        f64::from(separable_cols::SPAN),
        r as f64,
    );
    (rows + 2.0 * r) / rows + (cols + 2.0 * r) / cols
}

/// Every row-pass item reads its 4 + 2r pixels, once per row of the haloed tile.
pub(super) fn loads_separable_fused(r: usize) -> f64 {
    let (h, r) = (f64::from(separable_fused::TILE.1), r as f64);
    (4.0 + 2.0 * r) / 4.0 * (h + 2.0 * r) / h
}

/// The shared tile's rows, halo included, over the outputs it serves.
pub(super) fn loads_blocked<const I: usize>(r: usize) -> f64 {
    let (w, h) = blocked::tile(blocked::ROWS[I]);
    f64::from(blocked::stride(r as u32)) * (f64::from(h) + 2.0 * r as f64) / f64::from(w * h)
}

/// The shared tile (rows of 160 bytes, halo and the zero-tap row included) over the outputs it
/// serves.
pub(super) fn loads_tensor_u8(r: usize) -> f64 {
    let (w, h) = tensor_u8::TILE;
    f64::from(tensor_u8::COLUMNS * tensor_u8::rows(r as u32)) / f64::from(w * h)
}

/// Each warp loads the rows of its strip, halo rows included, once: its 256 pixels and a word
/// beyond each end.
pub(super) fn loads_warp_rows(r: usize) -> f64 {
    let (rows, r) = (f64::from(warp_rows::ROWS), r as f64);
    let strip = f64::from(warp_rows::BLOCK.0 * warp_rows::PER_LANE);
    (strip + 8.0) / strip * (rows + 2.0 * r) / rows
}

/// A column filter's thread loads its word of `8 + 2r` rows for 8 outputs (a row filter's, three
/// vectors for one: 3).
pub(super) fn loads_lines_u8(r: usize) -> f64 {
    let rows = f64::from(lines_u8::COLUMN_ROWS);
    (rows + 2.0 * r as f64) / rows
}

/// The shared tile (its columns and rows, halo included) over the outputs it serves.
pub(super) fn loads_tensor_f32(r: usize) -> f64 {
    let (w, h) = tensor_f32::tile(1);
    f64::from(tensor_f32::columns(r as u32) * tensor_f32::rows(r as u32, 1)) / f64::from(w * h)
}

/// Each block's tile, for a dense gray filter of radius `r`.
pub(super) fn loads_tensor_f32_blocks(r: usize) -> f64 {
    let k = 2 * r + 1;
    let gray = Geometry {
        channels: 1,
        ..Geometry::default()
    };
    let (radius, count) = super::tensor_f32::block_count(&vec![1.0; k * k], k, &gray);
    count as f64 * loads_tensor_f32(radius)
}
