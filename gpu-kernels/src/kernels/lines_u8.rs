//! The `lines-u8` kernel (`conv_lines_u8_r<radius>`): 8-bit images filtered along one axis, by a
//! filter of one row (1 × k) or one column (k × 1), the 1D passes of scipy.ndimage's filters on
//! 8-bit arrays. Threads read whole vectors of bytes, use each byte as the integer it is, and keep
//! their outputs in registers: no shared memory, no barrier.

use crate::launch::Geometry;
#[cfg(not(target_arch = "nvptx64"))]
use crate::launch::LaunchConfig;

/// The entry-point base name: `conv_lines_u8_r<radius>` (8-bit samples only).
pub const ENTRY: &str = "conv_lines_u8";
/// Block shape: 4 warps.
pub const BLOCK: (u32, u32) = (32, 4);
/// Output tile of one block: 512 bytes of 8 rows.
pub const TILE: (u32, u32) = (512, 8);
/// Bytes of a row one thread of a row filter computes: one 16-byte vector, from its own vector
/// and its two neighbours'.
pub const ROW_BYTES: u32 = 16;
/// Bytes one thread of a column filter computes in each of its rows: one 4-byte word.
pub const COLUMN_BYTES: u32 = 4;
/// Output rows of one thread of a column filter.
pub const COLUMN_ROWS: u32 = TILE.1;
/// Largest radius: a row filter's window, `16 + 2r` bytes, lies in three vectors.
pub const MAX_RADIUS: u32 = 15;

/// Whether a row filter (`radius_y` 0) runs on whole vectors: gray rows of a multiple of 16
/// bytes, not the valid border. Elsewhere the kernel computes output by output (correct, slow,
/// never autotuned).
pub const fn by_vectors(g: &Geometry) -> bool {
    g.channels == 1 && g.offset == 0 && g.in_width.is_multiple_of(ROW_BYTES)
}

/// Whether a column filter runs on whole words: gray rows of a multiple of 4 bytes, not the
/// valid border.
pub const fn by_words(g: &Geometry) -> bool {
    g.channels == 1 && g.offset == 0 && g.in_width.is_multiple_of(COLUMN_BYTES)
}

/// The launch: one block per 512 bytes of 8 rows, every channel's bytes together.
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_config(g: &Geometry) -> LaunchConfig {
    LaunchConfig {
        grid: (
            (g.out_width * g.channels).div_ceil(TILE.0),
            g.out_height.div_ceil(TILE.1),
            1,
        ),
        block: BLOCK,
        shared_bytes: 0,
    }
}

/// Global loads per output pixel: a column filter's thread loads its word of `8 + 2r` rows for
/// 8 outputs (a row filter's, three vectors for one: 3).
#[cfg(not(target_arch = "nvptx64"))]
pub fn loads_per_pixel(r: usize) -> f64 {
    let rows = f64::from(COLUMN_ROWS);
    (rows + 2.0 * r as f64) / rows
}

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::thread::{block_idx_x, block_idx_y, thread_idx_x, thread_idx_y},
    crate::device::{
        Bytes16, Global, ParamTaps, Sample, Store, TapRead, batch_image, byte_value, fetch_or_cval, fma,
        is_alpha, param_taps, resolve, store_sample, unroll,
    },
    crate::launch::ExactTaps,
    kernel_macros::kernel,
};

#[cfg(target_arch = "nvptx64")]
/// 1/255: the sums of bytes as integers back on the kernels' scale of [0, 1].
const PER_LEVEL: f32 = 1.0 / 255.0;

#[cfg(target_arch = "nvptx64")]
/// # Tiling
/// A block covers 512 bytes of 8 output rows. The host says which axis the `2R + 1` taps run
/// along: `radius_y` 0 for a row filter, `R` for a column filter (`radius` is `R` either way).
/// A row filter's thread loads the 16-byte vector of its outputs and the vectors left and right of
/// it (its neighbours' loads hit the same cache lines), takes the `16 + 2R` bytes its outputs read
/// as integers 0-255, and sums `2R + 1` products into each of 16 outputs. A column filter's
/// thread walks down one 4-byte word of the row through `8 + 2R` rows, each loaded once and
/// added into the up to `2R + 1` of its 8 output rows it feeds. The taps are constant-bank
/// operands; the sums are scaled to [0, 1] once, stored rounded or truncated (`trunc_scale`), 4
/// bytes a store.
///
/// # Thread mapping
/// Block `(bx, by, image)`, thread `(tx, ty)`: a row filter writes bytes `512·bx + 16·tx ..+ 16`
/// of rows `8·by + ty` and `8·by + ty + 4`; a column filter bytes `512·bx + 128·ty + 4·tx ..+ 4`
/// of rows `8·by .. 8·by + 8`. A row filter's threads at an end of the row load the bytes beyond
/// it one by one, resolved by the border; where the rows are not whole vectors (words), or the
/// image has channels or the valid border, every thread computes its outputs one by one, the
/// border resolved per sample.
///
/// # Safety
/// `input` and `output` hold the images `g` describes (grid z = the batch's images, packed); the
/// filter is one row (`radius_y` 0) or one column (`radius_y` = `radius`) of `2R + 1` taps, which
/// are `taps`; the host's buffers are 16-byte aligned.
#[kernel(types(u8), radius(0..=15), split_store = g)]
pub unsafe fn conv_lines_u8<T: Sample, const R: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: ExactTaps<{ 2 * R + 1 }>,
) {
    // SAFETY: the launch contract: grid z holds the batch's images, one plane each.
    let (input, output, _) = unsafe { batch_image(input, output, &g, 1) };
    let (bytes, out) = (input.cast::<u8>(), output.cast::<u8>());
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let (bx, by) = (block_idx_x() * TILE.0, block_idx_y() * TILE.1);
    let store = Store::of(&g, true);
    let rows = g.radius_y == 0;
    let generic = param_taps!(taps);
    if rows && by_vectors(&g) {
        let b = bx + tx * ROW_BYTES;
        for half in 0..2 {
            let y = by + ty + half * BLOCK.1;
            if b < g.in_width && y < g.out_height {
                // SAFETY: byte b of row y lies inside the image; the launch contract.
                unsafe { row_vector::<R>(bytes, out, &g, &taps, b, y, store) };
            }
        }
    } else if !rows && by_words(&g) {
        let b = bx + ty * (BLOCK.0 * COLUMN_BYTES) + tx * COLUMN_BYTES;
        // Every input row of the block inside the image: straight-line loads, none resolved.
        let last = by as usize + COLUMN_ROWS as usize + R;
        let inside = by as usize >= R && last <= g.in_height as usize;
        if b < g.in_width && by < g.out_height {
            // SAFETY: as above.
            unsafe {
                if inside {
                    column_word::<R, true>(bytes, out, &g, &taps, b, by, store);
                } else {
                    column_word::<R, false>(bytes, out, &g, &taps, b, by, store);
                }
            }
        }
    } else {
        let b = bx + ty * (BLOCK.0 * COLUMN_BYTES) + tx * COLUMN_BYTES;
        // SAFETY: the launch contract.
        unsafe { one_by_one(bytes, out, &g, generic, (b, COLUMN_BYTES), (by, COLUMN_ROWS)) };
    }
}

#[cfg(target_arch = "nvptx64")]
/// The 16 outputs of a row filter at bytes `b .. b + 16` of row `y`, from the vectors at
/// `b - 16`, `b` and `b + 16`; at an end of the row, the `R` bytes beyond it one by one, resolved
/// by the border (a few loads in one lane of the warp, where computing the lane's outputs one by
/// one held its warp for all their taps' border resolutions).
///
/// # Safety
/// Gray rows of a multiple of 16 bytes ([`by_vectors`]), row `y` inside the image, `b` a vector
/// of it.
#[inline(always)]
unsafe fn row_vector<const R: usize>(
    bytes: *const u8,
    out: *mut u8,
    g: &Geometry,
    taps: impl TapRead,
    b: u32,
    y: u32,
    store: Store,
) {
    let (w, row) = (g.in_width, y as usize * g.in_width as usize);
    let at = row + b as usize;
    let (has_left, has_right) = (b >= ROW_BYTES, b + 2 * ROW_BYTES <= w);
    // SAFETY: the caller's contract: 16-byte aligned vectors (rows of whole vectors, aligned
    // buffers), the neighbours only where they are inside the row.
    let (own, left, right) = unsafe {
        let vector = |there: bool, p: usize| {
            if there {
                Bytes16::load_global(bytes.add(p)).0
            } else {
                [0; 4]
            }
        };
        (
            vector(true, at),
            vector(R > 0 && has_left, at.wrapping_sub(16)),
            vector(R > 0 && has_right, at + 16),
        )
    };
    // A byte beyond an end of the row, as the border reads it (the constant a whole level).
    let beyond = |i: i32| -> f32 {
        let x = resolve(i, w as i32, g.border);
        if x < 0 {
            return (g.cval * 255.0 + 0.5) as u32 as f32;
        }
        // SAFETY: x is a byte of row y.
        f32::from(unsafe { *bytes.add(row + x as usize) })
    };
    let words = [
        left[0], left[1], left[2], left[3], own[0], own[1], own[2], own[3], right[0], right[1], right[2],
        right[3],
    ];
    // Bytes b - R .. b + 16 + R of the row, as integers.
    let mut v = [0.0f32; 16 + 2 * MAX_RADIUS as usize];
    unroll!(M < 16 + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45] {
        let p = M + 16 - R;
        let loaded = (16..32).contains(&p) || (p < 16 && has_left) || (p >= 32 && has_right);
        v[M] = if loaded { byte_value(words[p / 4], (p % 4) as u32) } else { beyond(b as i32 + p as i32 - 16) };
    });
    let mut acc = [0.0f32; 16];
    unroll!(J < 2 * R + 1; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
        let t = taps.tap(J);
        unroll!(O < 16; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            acc[O] = fma(v[O + J], t, acc[O]);
        });
    });
    unroll!(Q < 4; [0, 1, 2, 3] {
        let four = [acc[4 * Q], acc[4 * Q + 1], acc[4 * Q + 2], acc[4 * Q + 3]].map(|a| a * PER_LEVEL);
        // SAFETY: 4 bytes of the output row (as wide as the input's), 4-byte aligned.
        unsafe { u8::store4(out.add(at + 4 * Q), four, store) };
    });
}

#[cfg(target_arch = "nvptx64")]
/// The outputs of a column filter at bytes `b .. b + 4` of rows `y0 .. y0 + 8` (those inside the
/// image): `8 + 2R` input rows, each loaded once as one word, all loads issued before the first
/// sum (outside the image, unless `INSIDE`, resolved by the border, or the constant).
///
/// # Safety
/// Gray rows of a multiple of 4 bytes ([`by_words`]), `b` inside the row, `y0` inside the image;
/// where `INSIDE`, rows `y0 - R .. y0 + 8 + R` too.
#[inline(always)]
unsafe fn column_word<const R: usize, const INSIDE: bool>(
    bytes: *const u8,
    out: *mut u8,
    g: &Geometry,
    taps: impl TapRead,
    b: u32,
    y0: u32,
    store: Store,
) {
    let (w, h) = (g.in_width as usize, g.in_height as i32);
    // The constant border's level in every byte of a word (a whole level: the host's check).
    let constant = ((g.cval * 255.0 + 0.5) as u32) * 0x0101_0101;
    let load = |i: i32| -> u32 {
        let y = if INSIDE { i } else { resolve(i, h, g.border) };
        if y < 0 {
            return constant;
        }
        // SAFETY: row y is inside the image and b + 4 inside the row, 4-byte aligned (rows of
        // whole words, aligned buffers).
        unsafe { *bytes.add(y as usize * w + b as usize).cast::<u32>() }
    };
    let mut words = [0u32; COLUMN_ROWS as usize + 2 * MAX_RADIUS as usize];
    unroll!(I < COLUMN_ROWS as usize + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37] {
        words[I] = load(y0 as i32 + I as i32 - R as i32);
    });
    let mut acc = [0.0f32; 4 * COLUMN_ROWS as usize];
    unroll!(I < COLUMN_ROWS as usize + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37] {
        let word = words[I];
        let v = [0, 1, 2, 3].map(|i| byte_value(word, i));
        // Input row I feeds output row O through tap I - O.
        unroll!(O < COLUMN_ROWS as usize; [0, 1, 2, 3, 4, 5, 6, 7] {
            // I - O, wrapped past usize::MAX where I < O (then no tap).
            let k = I.wrapping_sub(O);
            if k <= 2 * R {
                let t = taps.tap(k);
                unroll!(Q < 4; [0, 1, 2, 3] {
                    acc[4 * O + Q] = fma(v[Q], t, acc[4 * O + Q]);
                });
            }
        });
    });
    unroll!(O < COLUMN_ROWS as usize; [0, 1, 2, 3, 4, 5, 6, 7] {
        let y = y0 as usize + O;
        if y < g.out_height as usize {
            let four = [acc[4 * O], acc[4 * O + 1], acc[4 * O + 2], acc[4 * O + 3]].map(|a| a * PER_LEVEL);
            // SAFETY: 4 bytes of output row y (as wide as the input's), 4-byte aligned.
            unsafe { u8::store4(out.add(y * w + b as usize), four, store) };
        }
    });
}

#[cfg(target_arch = "nvptx64")]
/// Output bytes `b .. b + n` (those inside the row of `out_width · channels` bytes) of rows
/// `y0 .. y0 + rows` (those inside the output), one by one: each sample's `2r + 1` taps along
/// the filter's axis, the border resolved per sample; RGBA's alpha copied where `g` says so.
///
/// # Safety
/// `input` and `output` hold the images `g` describes.
#[inline(always)]
unsafe fn one_by_one(
    input: *const u8,
    output: *mut u8,
    g: &Geometry,
    taps: ParamTaps,
    (b, n): (u32, u32),
    (y0, rows): (u32, u32),
) {
    let (r, along_row) = (g.radius as i32, g.radius_y == 0);
    let row = g.out_width * g.channels;
    for y in y0..(y0 + rows).min(g.out_height) {
        for q in b..(b + n).min(row) {
            let (x, c) = (q / g.channels, q % g.channels);
            let src = Global {
                channel: c,
                ..Global::new(input, g)
            };
            let (ix, iy) = ((x + g.offset) as i32, (y + g.offset) as i32);
            let v = if is_alpha(g, c) {
                fetch_or_cval(g, &src, ix, iy)
            } else {
                let mut acc = 0.0f32;
                for j in 0..2 * r + 1 {
                    let (xx, yy) = if along_row {
                        (ix + j - r, iy)
                    } else {
                        (ix, iy + j - r)
                    };
                    acc = fma(fetch_or_cval(g, &src, xx, yy), taps.get(j as u32), acc);
                }
                acc
            };
            // SAFETY: (x, y, c) is inside the output.
            unsafe { store_sample(output, g, x, y, c, v) };
        }
    }
}
