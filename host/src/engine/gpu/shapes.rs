//! The launch shapes and hand-counted global loads per pixel of the registered kernels, one
//! function per kernel family, named in [`REGISTRY`](super::variant::REGISTRY).

use super::variant::LaunchConfig;
use gpu_kernels::launch::{self, Geometry};

pub(super) fn pixel(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(g, launch::PIXEL_BLOCK, launch::PIXEL_BLOCK, 0)
}

pub(super) fn tiled(g: &Geometry) -> LaunchConfig {
    let out = launch::tiled_out(g.radius);
    let block = (launch::TILED_IN, launch::TILED_IN);
    LaunchConfig::tiles(g, (out, out), block, launch::TILED_SHARED_BYTES)
}

pub(super) fn tiled_output<const I: usize>(g: &Geometry) -> LaunchConfig {
    let block = launch::TILED_OUTPUT_BLOCKS[I];
    LaunchConfig::tiles(
        g,
        block,
        block,
        launch::tiled_output_shared_bytes(block, g.radius),
    )
}

pub(super) fn tiled_cache(g: &Geometry) -> LaunchConfig {
    let block = launch::TILED_CACHE_BLOCK;
    LaunchConfig::tiles(g, block, block, launch::TILED_CACHE_SHARED_BYTES)
}

/// The interleaved entries cover a row of `out_width · channels` samples; the others put the
/// channels of a tile in neighbouring blocks along x (grid z = 1), so they run together.
pub(super) fn fast<const I: usize>(g: &Geometry) -> LaunchConfig {
    let rows = launch::FAST_ROWS[I];
    let tile = launch::fast_tile(rows);
    let (samples, planes) = if launch::fast_interleaved(g) {
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
        block: launch::FAST_BLOCK,
        shared_bytes: launch::fast_shared_bytes(g.radius, rows, samples),
    }
}

/// A block covers every channel of its tile.
pub(super) fn tensor(g: &Geometry) -> LaunchConfig {
    let shared_bytes = launch::tensor_shared_bytes(g.radius, g.channels);
    let tiles = LaunchConfig::tiles(g, launch::TENSOR_TILE, launch::TENSOR_BLOCK, shared_bytes);
    LaunchConfig {
        grid: (tiles.grid.0, tiles.grid.1, 1),
        ..tiles
    }
}

/// One block per tile: on the RGB and RGBA entries a tile of bytes holding every channel of its
/// pixels, else of pixels, one grid plane per channel.
pub(super) fn stream(g: &Geometry) -> LaunchConfig {
    let tiled = if launch::stream_interleaved(g) {
        Geometry {
            out_width: g.out_width * g.channels,
            channels: 1,
            ..*g
        }
    } else {
        *g
    };
    LaunchConfig::tiles(&tiled, launch::STREAM_TILE, launch::STREAM_BLOCK, 0)
}

/// An RGB or RGBA block covers every colour channel of its tile up to
/// [`SPLIT_COLOUR_MAX_RADIUS`](launch::SPLIT_COLOUR_MAX_RADIUS); beyond, as `fast`, the channels
/// of a tile are neighbouring blocks along x.
pub(super) fn tensor_split(g: &Geometry) -> LaunchConfig {
    let planes = launch::split_planes(g.channels, g.radius);
    let shared_bytes = launch::split_shared_bytes(g.radius, planes);
    let tiles = LaunchConfig::tiles(
        g,
        launch::split_tile(planes),
        launch::split_block(planes),
        shared_bytes,
    );
    let blocks_per_tile = if planes == 1 { g.channels } else { 1 };
    LaunchConfig {
        grid: (tiles.grid.0 * blocks_per_tile, tiles.grid.1, 1),
        ..tiles
    }
}

pub(super) fn fused(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(
        g,
        launch::FUSED_TILE,
        launch::FUSED_BLOCK,
        launch::fused_shared_bytes(g.radius),
    )
}

/// The row pass covers every input row (the column pass needs the halo rows).
pub(super) fn sep_rows(g: &Geometry) -> LaunchConfig {
    LaunchConfig {
        grid: (
            g.out_width.div_ceil(launch::ROW_SPAN),
            g.in_height.div_ceil(launch::ROW_BLOCK.1),
            g.channels,
        ),
        block: launch::ROW_BLOCK,
        shared_bytes: launch::row_shared_bytes(g.radius),
    }
}

pub(super) fn sep_cols(g: &Geometry) -> LaunchConfig {
    LaunchConfig::tiles(
        g,
        (launch::COL_BLOCK.0, launch::COL_SPAN),
        launch::COL_BLOCK,
        launch::col_shared_bytes(g.radius),
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
    let out = f64::from(launch::tiled_out(r as u32));
    (f64::from(launch::TILED_IN) / out).powi(2)
}

pub(super) fn loads_tiled_output<const I: usize>(r: usize) -> f64 {
    let (w, h) = launch::TILED_OUTPUT_BLOCKS[I];
    halo(w, h, r)
}

/// One load per thread for the tile, plus every tap that falls outside the tile.
pub(super) fn loads_tiled_cache(r: usize) -> f64 {
    let (w, h) = launch::TILED_CACHE_BLOCK;
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
    let (rows, cols, r) = (f64::from(launch::ROW_SPAN), f64::from(launch::COL_SPAN), r as f64);
    (rows + 2.0 * r) / rows + (cols + 2.0 * r) / cols
}

/// Every row-pass item reads its 4 + 2r pixels, once per row of the haloed tile.
pub(super) fn loads_fused(r: usize) -> f64 {
    let (h, r) = (f64::from(launch::FUSED_TILE.1), r as f64);
    (4.0 + 2.0 * r) / 4.0 * (h + 2.0 * r) / h
}

/// The shared tile's rows, halo included, over the outputs it serves.
pub(super) fn loads_fast<const I: usize>(r: usize) -> f64 {
    let (w, h) = launch::fast_tile(launch::FAST_ROWS[I]);
    f64::from(launch::fast_stride(r as u32)) * (f64::from(h) + 2.0 * r as f64) / f64::from(w * h)
}

/// The shared tile (rows of 160 bytes, halo and the zero-tap row included) over the outputs it
/// serves.
pub(super) fn loads_tensor(r: usize) -> f64 {
    let (w, h) = launch::TENSOR_TILE;
    f64::from(launch::TENSOR_COLUMNS * launch::tensor_rows(r as u32)) / f64::from(w * h)
}

/// Each warp loads the rows of its strip, halo rows included, once: its 256 pixels and a word
/// beyond each end.
pub(super) fn loads_stream(r: usize) -> f64 {
    let (rows, r) = (f64::from(launch::STREAM_ROWS), r as f64);
    let strip = f64::from(launch::STREAM_BLOCK.0 * launch::STREAM_PER_LANE);
    (strip + 8.0) / strip * (rows + 2.0 * r) / rows
}

/// The shared tile (its columns and rows, halo included) over the outputs it serves.
pub(super) fn loads_tensor_split(r: usize) -> f64 {
    let (w, h) = launch::split_tile(1);
    f64::from(launch::split_columns(r as u32) * launch::split_rows(r as u32, 1)) / f64::from(w * h)
}
