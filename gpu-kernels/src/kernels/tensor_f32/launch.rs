//! The `tensor-f32` kernel's launch: entry name, block, tile, shared memory and register limit,
//! read by the host and by the kernel.

use crate::launch::Geometry;
#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::LaunchConfig;

/// The entry-point base name: `conv_tensor_f32_r<radius>`, and
/// `conv_tensor_f32_c<channels>_r<radius>` for RGB and RGBA.
pub const ENTRY: &str = "conv_tensor_f32";
/// The entry-point base name of FP16 images (`tensor-f16`): `conv_tensor_f16_r<radius>`, one
/// channel a block for every channel count.
pub const ENTRY_F16: &str = "conv_tensor_f16";

/// Largest radius at which an RGB or RGBA block filters every colour channel of its tile (RGBA's
/// alpha is copied), so each line of the interleaved tile crosses from L2 to the SM once: up to it
/// two such blocks' planes fit an SM's shared memory. Beyond it each block filters one channel,
/// the channels of a tile in neighbouring blocks, as gray blocks do their one.
pub const COLOUR_MAX_RADIUS: u32 = 12;
/// Channels a block filters for an image of `channels` channels and a filter of radius `radius`:
/// 3 for RGB and RGBA up to [`COLOUR_MAX_RADIUS`], else 1.
pub const fn planes(channels: u32, radius: u32) -> u32 {
    if channels == 1 || radius > COLOUR_MAX_RADIUS {
        1
    } else {
        3
    }
}
/// Block shape of the blocks that filter `planes` channels: 8 warps for one, 12 (4 a channel) for
/// three.
pub const fn block(planes: u32) -> (u32, u32) {
    if planes == 1 { (32, 8) } else { (32, 12) }
}
/// Output tile of one block that filters `planes` channels: 128 × 64 pixels for one, 128 × 32 for
/// three (each channel's planes take shared memory). Warp `w` computes the 64 × 16 part at
/// `(64 · (s % 2), 16 · (s / 2))`, `s = w % 4` for three (its channel is `w / 4`), else `w`, as 8
/// windows of 8 columns.
pub const fn tile(planes: u32) -> (u32, u32) {
    if planes == 1 { (128, 64) } else { (128, 32) }
}
/// Row stride, in words, of the area where a block of three channels stages its outputs (128
/// pixels of three samples, interleaved; plus 4, so the 8 rows of a warp's stores spread over the
/// banks, and a multiple of 4, so rows stay 16-byte aligned). The area is the block's planes,
/// which are larger at every radius.
pub const STAGING_STRIDE: u32 = 3 * tile(3).0 + 4;
const _: () = assert!(4 * tile(3).1 * STAGING_STRIDE <= shared_bytes(0, 3) - 4 * 3 * block(3).1);
/// Largest radius (as the other kernels': 31 × 31 filters).
pub const MAX_RADIUS: u32 = 15;
/// Smallest radius the variant offers: a 1 × 1 filter's tolerance (one `f32` rounding) is tighter
/// than the error of the FP16 splits.
pub const MIN_RADIUS: u32 = 1;

/// Columns of the tile left of the output tile: the radius rounded up to a multiple of 4, so the
/// tile's rows start 16-byte aligned.
pub const fn lead(radius: u32) -> u32 {
    radius.div_ceil(4) * 4
}

/// 8-column chunks of input a window of 8 outputs spans: its `8 + 2r` columns start
/// `lead(r) - r` columns into the window's first chunk.
pub const fn chunks(radius: u32) -> u32 {
    (8 + 2 * radius + lead(radius) - radius).div_ceil(8)
}

/// Columns of the input tile: the 16 windows' chunks, `128 + 8 · (chunks - 1)`.
pub const fn columns(radius: u32) -> u32 {
    tile(1).0 + 8 * (chunks(radius) - 1)
}

/// Row stride of each plane of the tile (the samples' FP16 high parts, then their low parts), in
/// words of two halves: the columns' words, plus 4 where that makes it 4 mod 8, so the A-fragment
/// loads of 8 rows × 4 lanes fall in 32 different banks; even, so rows stay 8-byte aligned.
pub const fn stride(radius: u32) -> u32 {
    let words = columns(radius) / 2;
    if words.is_multiple_of(8) { words + 4 } else { words }
}

/// Rows of the input tile: the output tile's and the filter's.
pub const fn rows(radius: u32, planes: u32) -> u32 {
    tile(planes).1 + 2 * radius
}

/// Shared memory of the blocks that filter `planes` channels: one word per warp and channel
/// (their largest magnitudes), then each channel's two planes of the input tile.
pub const fn shared_bytes(radius: u32, planes: u32) -> u32 {
    let plane = stride(radius) * rows(radius, planes);
    4 * planes * (block(planes).1 + 2 * plane)
}

/// Words of the taps argument for one block of taps: for each of the `r + 1` pairs of filter
/// rows (the last has one row) and each chunk, 4 words per lane (`[b0, b1]` of the high parts,
/// then of the low parts; index `((pair · chunks + chunk) · 32 + lane) · 4`), then the `f32` bits
/// of the factor that undoes the taps' scale (the same in every block), the block's shift across
/// and down (`i32`: where its centre lies from the output pixel's; 0 for a plain filter) and a
/// word of padding, so the next block's words stay 16-byte aligned.
pub const fn block_words(radius: u32) -> u32 {
    (radius + 1) * chunks(radius) * 32 * 4 + 4
}

/// Whether `g` runs on an interleaved entry: RGB or RGBA (any width).
pub const fn interleaved(g: &Geometry) -> bool {
    g.channels == 3 || g.channels == 4
}

/// The register limit of the entry of radius `radius` for `channels` channels (PTX `.maxnreg`;
/// 0: none). The gray entries up to radius 12 fit in 64 registers, 4 blocks per SM instead of 3
/// (radius 1 without a limit: it takes 58, and spilled with one; radius 2-4 took 55-57 without,
/// and were 4% slower at k = 7 and 9 so). The RGB and RGBA entries up to [`COLOUR_MAX_RADIUS`]
/// (blocks of 384 threads) are limited to 80, which keeps 2 blocks on an SM: ptxas takes 64-80
/// or, after small changes to the code, 96. Past it every entry (blocks of 256 threads, whose
/// shared memory allows 3 on an SM) is limited to 80, which keeps the 3: the loop over blocks of
/// taps took the RGB entries to 86 registers without a limit.
pub const fn max_registers(radius: usize, channels: usize) -> u32 {
    match (channels, radius) {
        (1, 1) => 0,
        (1, r) if r <= COLOUR_MAX_RADIUS as usize => 64,
        _ => 80,
    }
}

/// The smallest radius whose entries loop over [`Geometry::blocks`] blocks of taps; below it they
/// run one block. Those from it have the code twice, with the loop and without: a plain filter's
/// sums then start after its tile is loaded (with them live through the loads, 8192² k = 3 to 17
/// took 2-11% longer).
pub const BLOCKS_MIN_RADIUS: u32 = 8;

/// The launch: an RGB or RGBA block covers every colour channel of its tile up to
/// [`COLOUR_MAX_RADIUS`]; beyond, as `blocked-4x4`, the channels of a tile are neighbouring
/// blocks along x.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    let planes = planes(g.channels, g.radius);
    let shared = shared_bytes(g.radius, planes);
    let tiles = LaunchConfig::tiles(g, tile(planes), block(planes), shared);
    let blocks_per_tile = if planes == 1 { g.channels } else { 1 };
    LaunchConfig {
        grid: (tiles.grid.0 * blocks_per_tile, tiles.grid.1, 1),
        ..tiles
    }
}

/// The launch of the FP16 entries: gray blocks, the channels of a tile in neighbouring blocks, and
/// one plane of shared memory (FP16 samples have no low parts).
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config_f16(g: &Geometry) -> LaunchConfig {
    let shared = 4 * (block(1).1 + stride(g.radius) * rows(g.radius, 1));
    let tiles = LaunchConfig::tiles(g, tile(1), block(1), shared);
    LaunchConfig {
        grid: (tiles.grid.0 * g.channels, tiles.grid.1, 1),
        ..tiles
    }
}

/// Global loads per output pixel of a gray block: the shared tile (its columns and rows, halo
/// included) over the outputs it serves.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    let (w, h) = tile(1);
    f64::from(columns(r as u32) * rows(r as u32, 1)) / f64::from(w * h)
}
