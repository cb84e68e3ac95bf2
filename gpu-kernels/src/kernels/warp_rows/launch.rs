//! The `warp-rows` kernel's launch: entry name, block, tile, register limits, which geometries
//! stream by words, the launch shape and loads per pixel; read by the host and by the kernel.

#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::LaunchConfig;
use crate::launch::{Geometry, border};

/// The entry-point base name: `conv_warp_rows_r<radius>` (8-bit samples only), and
/// `conv_warp_rows_c<channels>_r<radius>` for RGB and RGBA.
pub const ENTRY: &str = "conv_warp_rows";

/// Block shape: 4 warps side by side, each streaming down its own strip of 256 bytes (8 per
/// lane).
pub const BLOCK: (u32, u32) = (32, 4);
/// Bytes per lane: one 8-byte load per input row.
pub const PER_LANE: u32 = 8;
/// Output rows of one warp (each input row it loads feeds up to `k` of them).
pub const ROWS: u32 = 8;
/// Bytes across one warp's strip: 256.
pub const STRIP: u32 = BLOCK.0 * PER_LANE;
/// Output tile of one block: 1024 bytes × 8 rows (1024 gray pixels; an RGB or RGBA block's bytes
/// hold every channel of its pixels).
pub const TILE: (u32, u32) = (STRIP * BLOCK.1, ROWS);
/// Largest radius: the accumulators for `k` output rows of 8 pixels stay in registers up to 5 × 5
/// filters, where it is the fastest 8-bit kernel at k = 3 (larger filters are `tensor-u8`'s).
pub const MAX_RADIUS: u32 = 2;
/// Largest radius of the RGB and RGBA entries: a window reaches `channels · r` bytes past a
/// lane's 8 on each side, at most the 4 bytes of a neighbour's word.
pub const INTERLEAVED_MAX_RADIUS: u32 = 1;

/// Whether the rows of `g` are whole 8-byte words a lane loads at a time: rows of a multiple of
/// 8 bytes, not the valid border, not a constant border other than zero (the words beyond the
/// image are zeros), and (but for the zero border) no warp whose first lane ends the row, which
/// would need a word beyond each end of its bytes.
pub const fn words(g: &Geometry) -> bool {
    let row = g.in_width * g.channels;
    let zero = g.border == border::CONSTANT && g.cval == 0.0;
    row.is_multiple_of(PER_LANE)
        && g.offset == 0
        && (zero || g.border != border::CONSTANT)
        && (zero || row % STRIP != PER_LANE)
}

/// Whether the kernel streams `g` by words (gray, or RGB and RGBA on their entries); elsewhere
/// its gray entry computes output by output, correct but never the fastest variant.
pub const fn by_words(g: &Geometry) -> bool {
    words(g) && (g.channels == 1 || interleaved(g))
}

/// Whether `g` runs on an interleaved entry: RGB or RGBA up to [`INTERLEAVED_MAX_RADIUS`] whose
/// rows are words ([`words`]); other colour images run the gray entry, which computes them pixel
/// by pixel.
pub const fn interleaved(g: &Geometry) -> bool {
    (g.channels == 3 || g.channels == 4) && g.radius <= INTERLEAVED_MAX_RADIUS && words(g)
}

/// The register limit of the entry of radius `radius` for `channels` channels (PTX `.maxnreg`;
/// 0: none): the gray entry of radius 1 fits in 56 (128 threads a block: 9 blocks per SM where
/// ptxas's 62-64 fit 8).
pub const fn max_registers(radius: usize, channels: usize) -> u32 {
    if radius == 1 && channels == 1 { 56 } else { 0 }
}

/// The launch: one block per tile; on the RGB and RGBA entries a tile of bytes holding every
/// channel of its pixels, else of pixels, one grid plane per channel.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    let tiled = if interleaved(g) {
        Geometry {
            out_width: g.out_width * g.channels,
            channels: 1,
            ..*g
        }
    } else {
        *g
    };
    LaunchConfig::tiles(&tiled, TILE, BLOCK, 0)
}

/// Global loads per output pixel: each warp loads the rows of its strip, halo rows included,
/// once: its 256 pixels and a word beyond each end.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    let (rows, r) = (f64::from(ROWS), r as f64);
    let strip = f64::from(STRIP);
    (strip + 8.0) / strip * (rows + 2.0 * r) / rows
}
