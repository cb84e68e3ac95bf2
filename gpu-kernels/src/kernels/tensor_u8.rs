//! The `tensor-u8` kernel (`conv_tensor_u8`): 8-bit images on the tensor cores, with exact integer
//! products of the samples and the taps split into signed 8-bit digits.

use crate::launch::Geometry;
#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::LaunchConfig;

/// The entry-point base name: `conv_tensor_u8_r<radius>`, and `conv_tensor_u8_c<channels>_r<radius>`
/// for RGB and RGBA.
pub const ENTRY: &str = "conv_tensor_u8";

/// Block shape: 8 warps.
pub const BLOCK: (u32, u32) = (32, 8);
/// Output tile of one block: 128 × 64 pixels; warp `w` computes the 64 × 16 part at
/// `(64 · (w % 2), 16 · (w / 2))`.
pub const TILE: (u32, u32) = (128, 64);
/// Largest radius: a window of 8 outputs and its `2r` halo fit the 16 columns one half of an
/// MMA's K = 32 covers.
pub const MAX_RADIUS: u32 = 4;
/// Signed 8-bit digits each fixed-point tap is split into (24 bits: f32's precision).
pub const DIGITS: u32 = 3;
/// Columns an MMA's window of 16 input columns starts before its first output (the largest
/// radius, so every window is 4-byte aligned whatever the radius).
pub const WINDOW_LEAD: u32 = MAX_RADIUS;
/// Columns of the input tile left of the output tile: 16, so the tile's rows are whole 16-byte
/// vectors; the tile is 160 columns wide.
pub const HALO: u32 = 16;
/// Width of the input tile in bytes: the output tile and a 16-byte vector of halo on each side.
pub const COLUMNS: u32 = TILE.0 + 2 * HALO;
/// Row stride of the shared input tile, in bytes: 176 = 44 words, 12 mod 32, so the 8 rows × 4
/// words of an A fragment fall in 32 different banks, and a multiple of 16.
pub const STRIDE: u32 = 176;
/// Row stride of a warp's output staging area (16 rows of 64 bytes), in bytes: 80 = 20 words, so
/// the 8 rows a warp writes at once fall in different banks, and a multiple of 16.
pub const OUT_STRIDE: u32 = 80;

/// Pairs of filter rows of the taps argument for radius `radius`: `k = 2r + 1` rows and one of
/// zero taps. The kernel does one MMA per pair and digit, except for the last pair, whose first
/// row it multiplies alone (an MMA of half the size).
pub const fn pairs(radius: u32) -> u32 {
    radius + 1
}

/// Rows of the shared tile: the output tile, the halo, and one row more (the last pair's second
/// row, which has zero taps: loaded, never multiplied).
pub const fn rows(radius: u32) -> u32 {
    TILE.1 + 2 * radius + 1
}

/// Shared memory for images of `channels` channels: the input tile's plane of each channel, then
/// each warp's output staging area.
pub const fn shared_bytes(radius: u32, channels: u32) -> u32 {
    let warps = BLOCK.0 * BLOCK.1 / 32;
    channels * STRIDE * rows(radius) + warps * 16 * OUT_STRIDE
}

/// Words of the taps argument: per pair of filter rows, digit and half of K, one B-fragment word
/// per lane (index `((pair · DIGITS + digit) · 2 + half) · 32 + lane`), then the `f32` bits of the
/// factor that turns the exact integer sum into a value in [0, 1].
pub const fn words(radius: u32) -> u32 {
    pairs(radius) * DIGITS * 2 * 32 + 1
}

/// Whether `g` runs on an interleaved entry: RGB or RGBA (any width), one block for every channel
/// of its tile, which splits the interleaved rows into a plane per channel in shared memory.
pub const fn interleaved(g: &Geometry) -> bool {
    g.channels == 3 || g.channels == 4
}

/// The register limit of the entry of radius `radius` for `channels` channels (PTX `.maxnreg`;
/// 0: none): the gray entry of radius 4 fits in 64.
pub const fn max_registers(radius: usize, channels: usize) -> u32 {
    if radius == 4 && channels == 1 { 64 } else { 0 }
}

/// The launch: a block covers every channel of its tile.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    let tiles = LaunchConfig::tiles(g, TILE, BLOCK, shared_bytes(g.radius, g.channels));
    LaunchConfig {
        grid: (tiles.grid.0, tiles.grid.1, 1),
        ..tiles
    }
}

/// Global loads per output pixel: the shared tile (rows of 160 bytes, halo and the zero-tap row
/// included) over the outputs it serves.
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    f64::from(COLUMNS * rows(r as u32)) / f64::from(TILE.0 * TILE.1)
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::mma::{mma_u8_s8, mma_u8_s8_k16},
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{block_idx_x, block_idx_y, sync_threads, sync_warp, thread_idx_x, thread_idx_y},
    crate::device::{Sample, Store, batch_image, fma, unroll},
    kernel_macros::kernel,
    load::load_tile,
    store::{store_colour, store_gray},
};

#[cfg(target_arch = "nvptx64")]
mod load;
#[cfg(target_arch = "nvptx64")]
mod planes;
#[cfg(target_arch = "nvptx64")]
mod store;

#[cfg(target_arch = "nvptx64")]
/// `0x4B40_0000` is 1.5 · 2^23 as `f32`: an accumulator started at this bit pattern holds, after
/// adding any integer |n| < 2^22, the bit pattern of the `f32` 1.5 · 2^23 + n, so the sum becomes
/// a float by one subtraction instead of a conversion instruction.
const ACC_START: u32 = 0x4B40_0000;
#[cfg(target_arch = "nvptx64")]
/// [`ACC_START`] as `f32`.
const ACC_BIAS: f32 = 12_582_912.0;

#[cfg(target_arch = "nvptx64")]
/// The `tensor-u8` kernel: an 8-bit image convolved on the tensor cores (`mma.sync` m16n8k32, u8 × s8
/// into `i32`).
///
/// # Method
/// The host scales the taps to 24-bit integers (by a power of two, so the scale is exact) and
/// splits each into [`DIGITS`] signed 8-bit digits. Per digit the products of the 8-bit
/// samples and the digits are summed exactly in `i32` by the tensor cores; the digit sums are
/// combined in `f32` at the end, so the result is as accurate as the `f32` kernels'. Rounding
/// and truncating stores ([`Geometry::trunc_scale`]) are compiled apart (`split_store`).
///
/// One MMA computes 16 output rows × 8 output columns for two filter rows and one digit. A is the
/// input: row `m` holds, in its first 16 bytes, the 16 input columns the window of 8 outputs
/// needs (8 + 2r ≤ 16) on the input row of filter row `2p` for output row `m`, and in its last 16
/// the same columns on the next input row (filter row `2p + 1`). B is the Toeplitz matrix of those
/// two filter rows: column `n` holds the taps shifted to output `n`, zero elsewhere. The last
/// filter row (k is odd) has an MMA of K = 16 (m16n8k16), half the work, to itself. A's fragments
/// are 32-bit words of the shared tile, read as they are; B's are the same for every block and
/// come from the host, [`DIGITS`] × 2 words per lane and pair of filter rows, loaded once
/// into registers.
///
/// # Tiling
/// A block of [`BLOCK`] = 32 × 8 threads produces a 128 × 64 output tile, every channel
/// of it (`C` = 1 for `conv_tensor_u8_*`, 3 for `conv_tensor_u8_c3_*` (RGB), 4 for `conv_tensor_u8_c4_*`
/// (RGBA, whose alpha is copied)). It loads the input tile, [`COLUMNS`] = 160 columns (the
/// output tile and a 16-byte vector of [`HALO`] each side) × `64 + 2R + 1` rows, into
/// shared memory as one plane of bytes per channel, rows [`STRIDE`] apart. Where the
/// image's rows and the tile's first column are whole 16-byte vectors, every run of 16 pixels
/// inside the image is `C` vector loads, split into the channels' planes by byte permutes and
/// stored as one vector per plane (a tile wholly inside checks none of them), and only runs
/// beyond the image's edges resolve the border pixel by pixel, and of those only the pixels
/// within R of the image: the rest of a tile that overhangs a small image (a 224² image's tiles
/// all do) feeds no stored output. Other images load pixel by pixel.
/// Each warp stages its outputs in its own area of shared memory and writes them as 16-byte
/// vectors of interleaved samples where the output's rows are whole vectors, else sample by
/// sample: a gray warp its 64 × 16 outputs at once, a colour warp 16 × 16 pixels (two windows,
/// every channel) at a time, RGBA's alpha taken from its plane.
///
/// # Thread mapping
/// Warp `w` (= `ty`) computes the 64 × 16 outputs at `(64 · (w % 2), 16 · (w / 2))` of the tile,
/// one window of 8 columns at a time (for colour, each channel of two windows in turn); lane
/// `(g, t)` = `(tx / 4, tx % 4)` ends with outputs `(8j + 2t + {0, 1}, g + {0, 8})` of window `j`.
///
/// # Safety
/// Launch with block [`BLOCK`],
/// [`shared_bytes(R, C)`] bytes of dynamic shared
/// memory and grid `(tiles across, tiles down, 1)`; `g.radius == R`, `g.channels == C`;
/// `input`/`output` as for `constant`; `taps` points to the
/// [`words(R)`] words the host builds for this filter.
#[kernel(types(u8), radius(0..=4), consts(C = 1), max_registers = max_registers(R, C), split_store = g)]
#[kernel(name = conv_tensor_u8_c3, types(u8), radius(0..=4), consts(C = 3), max_registers = max_registers(R, C), split_store = g)]
#[kernel(name = conv_tensor_u8_c4, types(u8), radius(0..=4), consts(C = 4), max_registers = max_registers(R, C), split_store = g)]
pub unsafe fn conv_tensor_u8<T: Sample, const R: usize, const C: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: *const u32,
) {
    const P: usize = pairs(R as u32) as usize;
    const D: usize = DIGITS as usize;
    // SAFETY: the launch contract: grid z holds the batch's images, the buffers every image.
    let (input, output, _) = unsafe { batch_image(input, output, &g, 1) };
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let (ox, oy) = (block_idx_x() * TILE.0, block_idx_y() * TILE.1);
    let bytes = input.cast::<u8>();

    // The input tile: column 0 is input column x0, row 0 is input row y0. Channel c's plane
    // starts at byte c · plane of the shared memory.
    let x0 = (ox + g.offset) as i32 - HALO as i32;
    let y0 = (oy + g.offset) as i32 - R as i32;
    let rows = rows(R as u32);
    let plane = STRIDE * rows;
    let shared = dynamic_shared_mem::<u8>();
    // SAFETY: the launch contract.
    unsafe { load_tile::<R, C>(&g, bytes, (x0, y0), ty * BLOCK.0 + tx) };

    // B fragments: the same for every block, loaded while the tile loads are in flight.
    // Sized for the largest radius, so the unrolled copies past P (which vanish) index inside it.
    let mut b = [[[0u32; 2]; D]; MAX_RADIUS as usize + 1];
    unroll!(I < P; [0, 1, 2, 3, 4] {
        unroll!(J < D; [0, 1, 2] {
            unroll!(H < 2; [0, 1] {
                // SAFETY: inside the `words(R)` words (launch contract).
                b[I][J][H] = unsafe { *taps.add(((I * D + J) * 2 + H) * 32 + tx as usize) };
            });
        });
    });
    // SAFETY: the last of the `words(R)` words.
    let scale = f32::from_bits(unsafe { *taps.add(P * D * 64) });
    sync_threads();

    let (lane_g, lane_t) = (tx / 4, tx % 4);
    let (wx, wy) = (64 * (ty % 2), 16 * (ty / 2));
    let words = shared.cast::<u32>().cast_const();
    let stride = STRIDE / 4;
    // Word of this lane's A fragment in the row of filter row 0 for output row g, window 0, of
    // plane 0: the window starts WINDOW_LEAD columns before its first output.
    let lead = HALO - WINDOW_LEAD;
    let base = (wy + lane_g) * stride + (wx + lead) / 4 + lane_t;
    // The lane's 4 outputs of the window whose A fragment word for filter row 0 is `at`:
    // (2t, g), (2t + 1, g), (2t, g + 8), (2t + 1, g + 8), as values in [0, 1] to store.
    let window = |at: u32| -> [f32; 4] {
        let mut acc = [[ACC_START; 4]; D];
        // Pairs of filter rows, K = 32.
        unroll!(I < P - 1; [0, 1, 2, 3] {
            let at = (at + 2 * I as u32 * stride) as usize;
            // SAFETY: inside the shared tile: row wy + g + 2I + 1 + 8 < 64 + 2R + 1, and word
            // (wx + 12) / 4 + 2j + t < 40 of the plane.
            let a = unsafe {
                [
                    *words.add(at),
                    *words.add(at + 8 * stride as usize),
                    *words.add(at + stride as usize),
                    *words.add(at + 9 * stride as usize),
                ]
            };
            unroll!(J < D; [0, 1, 2] {
                mma_u8_s8(a, b[I][J], &mut acc[J]);
            });
        });
        // The last filter row alone (k is odd; its pair's second row has zero taps): K = 16.
        let at = (at + 2 * (P as u32 - 1) * stride) as usize;
        // SAFETY: as above, rows wy + g + 2R + 8 < 64 + 2R + 1.
        let a = unsafe { [*words.add(at), *words.add(at + 8 * stride as usize)] };
        unroll!(J < D; [0, 1, 2] {
            mma_u8_s8_k16(a, [b[P - 1][J][0]], &mut acc[J]);
        });
        // Σ digit sum_d · 256^d (each unbiased exactly), then scaled: two roundings.
        [0, 1, 2, 3].map(|e| {
            let mut v = 0.0f32;
            unroll!(J < D; [0, 1, 2] {
                v = fma(v, 256.0, f32::from_bits(acc[D - 1 - J][e]) - ACC_BIAS);
            });
            v * scale
        })
    };
    // This warp's staging area, 16 rows OUT_STRIDE bytes apart, as an offset in the shared
    // memory (32 bits where a pointer would hold two registers through the loop).
    let staging_at = C as u32 * plane + ty * 16 * OUT_STRIDE;
    // SAFETY: inside the dynamic shared memory (`shared_bytes`).
    let staging = unsafe { shared.add(staging_at as usize) };
    let (x, y) = (ox + wx, oy + wy);
    if C == 1 {
        for j in 0..8u32 {
            let values = window(base + 2 * j);
            unroll!(H < 2; [0, 1] {
                let level = |e: usize| u16::from(u8::store(values[e], Store::of(&g, true)));
                let pair = level(2 * H) | level(2 * H + 1) << 8;
                let at = staging_at + (lane_g + 8 * H as u32) * OUT_STRIDE + 8 * j + 2 * lane_t;
                // SAFETY: inside this warp's staging area (row < 16, column < 64), 2-aligned.
                unsafe { *shared.add(at as usize).cast::<u16>() = pair };
            });
        }
        sync_warp();
        // SAFETY: (with `out`) inside the staging area and the output (checked).
        unsafe { store_gray(staging, output.cast::<u8>(), &g, (x, y)) };
        return;
    }
    // SAFETY: the launch contract; `staging_at` is this warp's staging area.
    unsafe {
        store_colour::<R, C>(
            window,
            output.cast::<u8>(),
            &g,
            (x, y),
            (wx, wy),
            (base, staging_at),
        )
    };
}
