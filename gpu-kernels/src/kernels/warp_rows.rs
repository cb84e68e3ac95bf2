//! The `warp-rows` kernel (`conv_warp_rows`): 8-bit rows streamed through registers, each warp
//! walking down its own strip of the image with no shared memory and no barrier.

pub use launch::*;

/// The launch, read by the host and by the kernel: its own file beside this one.
mod launch;

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::thread::{block_idx_x, block_idx_y, shfl_down_1, shfl_up_1, thread_idx_x, thread_idx_y},
    crate::device::{
        Global, ParamTaps, Sample, Store, TapRead, batch_image, byte_perm, byte_value, copy_alpha_tile,
        correlate, fma, is_alpha, level_bits_as, param_taps, resolve, store_sample, unroll,
    },
    crate::launch::{ExactTaps, Geometry, border},
    kernel_macros::kernel,
    ptx::{edge_selectors, fma_sat, load_nc, load_nc_v2, store_v2},
};

#[cfg(target_arch = "nvptx64")]
mod ptx;

#[cfg(target_arch = "nvptx64")]
/// The `warp-rows` kernel: an 8-bit image convolved by warps that each load every input row of
/// their strip once, with the filter radius `R` and the channels `C` of the interleaved rows it
/// filters as words known at compile time.
///
/// # Method
/// The host passes the taps divided by 255, and the samples are summed as the integers 0-255
/// they are (each made exact in `f32` by two full-rate instructions), so the sum is the output
/// in [0, 1]. A lane holds `k` rows of 8 accumulators, one per output row its input rows still
/// feed. Each input row is applied, every tap a constant-bank operand, to the `k` output rows it
/// feeds; the last tap of an output row saturates it to [0, 1] in the same FMA, and the row is
/// rounded (or, unsaturated, truncated: [`Geometry::trunc_scale`], on a path of its own), packed and stored
/// as one 8-byte word. At k = 3 this is about 19 instructions per
/// output, where the `tensor-u8` kernel's fixed epilogue alone costs 12. An interleaved row is
/// filtered as a row of bytes whose taps lie `C` bytes apart, so every channel of a pixel is
/// filtered with its own samples; RGBA's alpha bytes are replaced by the input's (unless
/// [`Geometry::filter_alpha`]).
///
/// # Tiling
/// A block of [`BLOCK`] = 32 × 4 threads produces a [`TILE`] = 1024 bytes × 8
/// rows output tile: warp `w` the [`STRIP`] = 256 × 8 bytes at `(256 · w, 0)`, reading the
/// `8 + 2R` input rows they need. Warps share nothing but the caches.
///
/// # Thread mapping
/// Lane `l` of warp `w` in block `(bx, by)` writes output bytes `x .. x + 8` of rows
/// `8 · by .. 8 · by + 8`, with `x = 1024 · bx + 256 · w + 8 · l`, where inside the output.
/// Where the rows are words ([`words`]: whole 8-byte words, not the valid border), a lane
/// loads its 8 bytes of a row as one word and takes the `C · R` bytes on each side from its
/// neighbours' words (`shfl.sync`); lanes 0 and 31 load the 4-byte word beyond the strip's end
/// themselves. At the image's left and right edges that word comes from the edge's own bytes,
/// permuted as the border mirrors or repeats them (the other end of the row for the wrap border,
/// zeros for the zero border). A warp whose rows are all inside the image runs its rows unrolled
/// with no check between them, the next row's loads issued before the current row's arithmetic;
/// a warp at the top or bottom runs a loop over its rows, each resolved by the border. The gray
/// entry computes every other image (RGB and RGBA not run on their entries, the valid border,
/// other widths) output by output, one channel per block plane, with the border resolved per
/// pixel: correct, not fast.
///
/// # Safety
/// Launch with block [`BLOCK`] and no dynamic shared memory; `g.radius == R`; buffers as
/// for `constant`, of 8-bit samples; the taps are the filter's divided by 255. The gray entry
/// (`C` = 1): grid `(tiles across, tiles down, channels)` of [`TILE`] in pixels. The RGB
/// and RGBA entries: only where `interleaved(g)`, `C` = `g.channels`, grid `(tiles
/// across, tiles down, 1)` of [`TILE`] in bytes.
#[kernel(types(u8), radius(0..=2), consts(C = 1), max_registers = max_registers(R, C))]
#[kernel(name = conv_warp_rows_c3, types(u8), radius(0..=1), consts(C = 3), max_registers = max_registers(R, C))]
#[kernel(name = conv_warp_rows_c4, types(u8), radius(0..=1), consts(C = 4), max_registers = max_registers(R, C))]
pub unsafe fn conv_warp_rows<T: Sample, const R: usize, const C: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: ExactTaps<{ (2 * R + 1) * (2 * R + 1) }>,
) {
    // SAFETY: the launch contract: grid z holds every image's planes (the interleaved entries
    // cover every channel in one plane), the buffers every image.
    let (input, output, c) = unsafe { batch_image(input, output, &g, if C > 1 { 1 } else { g.channels }) };
    let (lane, warp) = (thread_idx_x(), thread_idx_y());
    let (ox, oy) = (block_idx_x() * TILE.0, block_idx_y() * TILE.1);
    if is_alpha(&g, c) {
        // SAFETY: an RGBA image on the gray entry (launch contract).
        unsafe { copy_alpha_tile(input, output, &g, (ox, oy), TILE, BLOCK) };
        return;
    }
    let strip = ox + warp * STRIP;
    if C == 1 && (g.channels != 1 || !words(&g)) {
        let taps = param_taps!(taps);
        // SAFETY: the launch contract.
        unsafe { per_pixel(input, output, &g, taps, (strip + lane, oy), c) };
        return;
    }
    let x = strip + lane * PER_LANE;
    let row = g.in_width * C as u32;
    if strip >= row {
        return;
    }
    let at = Lane::new::<C>(&g, lane, x, row);
    let (bytes, out) = (input.cast::<u8>(), output.cast::<u8>());
    // A strip holding the right edge on a lane other than 31, but for the zero border, runs the
    // loop. Unrolled it is as correct (the edge lane takes the border's bytes from its own word),
    // but ptxas then gives the gray radius-1 entry 48 registers instead of 56, and 8192² k=3 ran
    // 1.5% slower (measured 2026-11-24).
    let strip_unrolled = g.border == border::CONSTANT || strip + STRIP <= row;
    let rows_inside = oy >= R as u32 && oy + ROWS + R as u32 <= g.in_height;
    // RGBA whose alpha is copied leaves alpha out of the arithmetic: code of its own, in the
    // RGBA entries only (`const`: the other entries never instantiate it).
    macro_rules! rows {
        ($copy:literal, $store:expr) => {
            // SAFETY: the launch contract.
            unsafe {
                if rows_inside && strip_unrolled {
                    interior::<R, C, $copy>(bytes, out, (&g, $store), &taps, &at, oy)
                } else {
                    edge::<R, C, $copy>(bytes, out, (&g, $store), &taps, &at, oy)
                }
            }
        };
    }
    // Rounding and truncating rows compiled apart (`Store::truncates`).
    let (copy_alpha, store) = (const { C == 4 } && g.filter_alpha == 0, Store::of(&g, true));
    match (copy_alpha, store.truncates::<u8>()) {
        (true, true) => rows!(true, store.trunc_scale),
        (true, false) => rows!(true, 0.0),
        (false, true) => rows!(false, store.trunc_scale),
        (false, false) => rows!(false, 0.0),
    }
}

#[cfg(target_arch = "nvptx64")]
/// `prmt` selector that keeps a word as it is.
const KEEP: u32 = 0x3210;

#[cfg(target_arch = "nvptx64")]
/// What a lane loads: its 8 bytes from column `x` (where `own`), and in lanes 0 and 31 (and the
/// lane at the image's right edge) a `side` word at byte `side_at` (at a replicated or reflected
/// edge, its own first word), whose bytes and its own high word's `side_sel` permutes into the
/// 4 bytes beyond the lane's left end (lane 0) or right end (zeros where it loads none).
struct Lane {
    x: u32,
    own: bool,
    side: bool,
    side_at: u32,
    side_sel: u32,
    /// The side word holds the bytes left of the lane's (lane 0), not right of them.
    left: bool,
    /// The side word holds the bytes right of the lane's (lane 31, or the lane at the right edge).
    right: bool,
}

#[cfg(target_arch = "nvptx64")]
impl Lane {
    #[inline(always)]
    fn new<const C: usize>(g: &Geometry, lane: u32, x: u32, row: u32) -> Self {
        let left = lane == 0;
        let right = !left && (lane == 31 || x + PER_LANE == row);
        // (side, side_at, side_sel) at an edge of the image, given the wrap border's word and the
        // replicate and reflect borders' selectors (of the lane's own words).
        let edge = |wrap_at: u32, [replicate, reflect, symmetric]: [u32; 3]| match g.border {
            border::REPLICATE => (true, x, replicate),
            border::REFLECT => (true, x, reflect),
            border::SYMMETRIC => (true, x, symmetric),
            border::WRAP => (true, wrap_at, KEEP),
            _ => (false, 0, KEEP),
        };
        let (side, side_at, side_sel) = if left && x > 0 {
            (true, x - 4, KEEP)
        } else if right && x + PER_LANE < row {
            (true, x + PER_LANE, KEEP)
        } else if left {
            edge(row - 4, const { edge_selectors::<C, true>() })
        } else if right && x + PER_LANE == row {
            edge(0, const { edge_selectors::<C, false>() })
        } else {
            (false, 0, KEEP)
        };
        Self {
            x,
            own: x < row,
            side,
            side_at,
            side_sel,
            left,
            right,
        }
    }
}

#[cfg(target_arch = "nvptx64")]
/// A lane's loads of one input row: its 8 bytes and its side word.
#[derive(Clone, Copy)]
struct Words {
    low: u32,
    high: u32,
    side: u32,
}

#[cfg(target_arch = "nvptx64")]
/// Loads the lane's words of the row starting at byte `row` of `bytes`, or zeros where the row
/// is outside the image (`inside` false).
///
/// # Safety
/// `bytes` is the input and `row` the start of one of its rows where `inside`.
#[inline(always)]
unsafe fn load_row(bytes: *const u8, row: usize, at: &Lane, inside: bool) -> Words {
    let (mut low, mut high) = (0, 0);
    if inside && at.own {
        // SAFETY: 8 bytes inside the row (`own`), 8-aligned (the row length and x are multiples
        // of 8; the host's buffers are 256-byte aligned).
        [low, high] = unsafe { load_nc_v2(bytes.add(row + at.x as usize)) };
    }
    // Not `low` where it loads none: the side load would wait for the lane's own.
    let mut side = 0;
    if inside && at.side {
        // SAFETY: 4 bytes inside the row (`side_at` + 4 <= the row's bytes), 4-aligned.
        side = unsafe { load_nc(bytes.add(row + at.side_at as usize)) };
    }
    Words { low, high, side }
}

#[cfg(target_arch = "nvptx64")]
/// The lane's input bytes `x - C·R .. x + 8 + C·R` of a row as integers 0-255, from its words and
/// its neighbours' (every lane of the warp calls it together).
#[inline(always)]
fn pixels<const R: usize, const C: usize>(w: Words, at: &Lane) -> [f32; 16] {
    let (left, right) = (shfl_up_1(w.high), shfl_down_1(w.low));
    let side = byte_perm(w.side, w.high, at.side_sel);
    // Bytes x - 4 .. x + 12, 4 to a word.
    let words = [
        if at.left { side } else { left },
        w.low,
        w.high,
        if at.right { side } else { right },
    ];
    let mut v = [0.0f32; 16];
    unroll!(M < 8 + 2 * C * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
        let byte = M + 4 - C * R;
        v[M] = byte_value(words[byte / 4], (byte % 4) as u32);
    });
    v
}

#[cfg(target_arch = "nvptx64")]
/// Applies input row `v` with filter row `I` to `acc` (tap `J` reads the bytes `C · J` on),
/// saturating to [0, 1] in the output's last tap where `sat` (rounded results; truncated ones
/// wrap as they are).
#[inline(always)]
fn apply_row<const R: usize, const C: usize, const I: usize>(
    acc: &mut [f32; 8],
    v: &[f32; 16],
    taps: impl TapRead,
    sat: bool,
) {
    let k = 2 * R + 1;
    unroll!(J < k; [0, 1, 2, 3, 4] {
        let tap = taps.tap(I * k + J);
        unroll!(P < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
            acc[P] = if I == 2 * R && J == 2 * R && sat {
                fma_sat(tap, v[P + C * J], acc[P])
            } else {
                fma(tap, v[P + C * J], acc[P])
            };
        });
    });
}

#[cfg(target_arch = "nvptx64")]
/// A warp whose rows are all inside the image: every row unrolled, the next row's words loaded
/// before the current row is applied, no check between the rows; outputs stored as
/// [`store_row`] does with `trunc_scale`.
///
/// # Safety
/// As for `conv_warp_rows`, rows of words with `oy - R .. oy + 8 + R` inside the image.
#[inline(always)]
unsafe fn interior<const R: usize, const C: usize, const COPY_ALPHA: bool>(
    bytes: *const u8,
    out: *mut u8,
    (g, trunc_scale): (&Geometry, f32),
    taps: impl TapRead,
    at: &Lane,
    oy: u32,
) {
    let k = 2 * R + 1;
    let row = (g.in_width as usize) * C;
    let first = (oy as usize - R) * row;
    // Output row `o` of the lane accumulates in `ring[o % k]`; input row `i`'s words are
    // `rows[i % k]` while an output row centred on it is still open (RGBA's alpha).
    let mut ring = [[0.0f32; 8]; 5];
    let mut rows = [(0u32, 0u32); 5];
    // SAFETY: rows inside the image (the caller's contract).
    let mut next = unsafe { load_row(bytes, first, at, true) };
    unroll!(RW < ROWS as usize + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
        let words = next;
        if RW + 1 < ROWS as usize + 2 * R {
            // SAFETY: as above.
            next = unsafe { load_row(bytes, first + (RW + 1) * row, at, true) };
        }
        // (The last row loads nothing more.)
        let _ = next;
        rows[RW % k] = (words.low, words.high);
        let v = pixels::<R, C>(words, at);
        // Filter row I applies this input row to output row RW - I (none for RW < I: the
        // difference wraps).
        unroll!(I < k; [0, 1, 2, 3, 4] {
            let out_row = RW.wrapping_sub(I);
            if out_row < ROWS as usize {
                let acc = &mut ring[out_row % k];
                if I == 0 {
                    *acc = [0.0; 8];
                }
                apply_row::<R, C, I>(acc, &v, taps, trunc_scale == 0.0);
                if I == 2 * R {
                    let at_out = (oy as usize + out_row) * row;
                    // SAFETY: an output row inside the image, which is the output's size.
                    unsafe { store_row::<C, COPY_ALPHA>(out, (at_out, trunc_scale), at, acc, rows[(out_row + R) % k]) };
                }
            }
        });
    });
}

#[cfg(target_arch = "nvptx64")]
/// A warp at the top or bottom of the image: a loop over its rows (not unrolled, so its code
/// stays small), each resolved by the border; at step `rw`, `acc[i]` holds output row `rw - i`
/// and `rows[i]` input row `rw - i`'s words, and both move down one place per step; outputs
/// stored as [`store_row`] does with `trunc_scale`.
///
/// # Safety
/// As for `conv_warp_rows`, rows of words.
#[inline(always)]
unsafe fn edge<const R: usize, const C: usize, const COPY_ALPHA: bool>(
    bytes: *const u8,
    out: *mut u8,
    (g, trunc_scale): (&Geometry, f32),
    taps: impl TapRead,
    at: &Lane,
    oy: u32,
) {
    let height = g.in_height;
    let row = g.in_width as usize * C;
    let mut acc = [[0.0f32; 8]; 5];
    let mut rows = [(0u32, 0u32); 5];
    // The trip count from the geometry (`g.radius` is R), so the loop stays a loop.
    for rw in 0..ROWS + 2 * g.radius {
        let yy = resolve(oy as i32 - R as i32 + rw as i32, height as i32, g.border);
        let inside = (yy as u32) < height;
        // SAFETY: the row where `inside`.
        let words = unsafe { load_row(bytes, (yy as usize).wrapping_mul(row), at, inside) };
        unroll!(J < 2 * R; [0, 1, 2, 3] {
            rows[2 * R - J] = rows[2 * R - J - 1];
        });
        rows[0] = (words.low, words.high);
        let v = pixels::<R, C>(words, at);
        unroll!(I < 2 * R + 1; [0, 1, 2, 3, 4] {
            apply_row::<R, C, I>(&mut acc[I], &v, taps, trunc_scale == 0.0);
        });
        // The output row filter row 2R completes (none before step 2R: the difference wraps).
        let y = (oy + rw).wrapping_sub(2 * R as u32);
        if rw >= 2 * R as u32 && y < g.out_height {
            // SAFETY: an output row inside the output, which is the input's size.
            unsafe {
                store_row::<C, COPY_ALPHA>(out, (y as usize * row, trunc_scale), at, &acc[2 * R], rows[R])
            };
        }
        unroll!(J < 2 * R; [0, 1, 2, 3] {
            acc[2 * R - J] = acc[2 * R - J - 1];
        });
        acc[0] = [0.0; 8];
    }
}

#[cfg(target_arch = "nvptx64")]
/// Rounds the lane's 8 outputs (in [0, 1]) to 8-bit samples (or truncates them where
/// `trunc_scale` is not 0: [`Geometry::trunc_scale`]) and stores them at byte `row` + x of the
/// output as one 8-byte word, where the lane's bytes are inside; where `COPY_ALPHA`, RGBA's
/// alpha bytes (3 and 7) are taken from `centre`, the input row's words the outputs are centred
/// on.
///
/// # Safety
/// `out` is the output and `row` the start of one of its rows.
#[inline(always)]
unsafe fn store_row<const C: usize, const COPY_ALPHA: bool>(
    out: *mut u8,
    (row, trunc_scale): (usize, f32),
    at: &Lane,
    acc: &[f32; 8],
    centre: (u32, u32),
) {
    let b = acc.map(|v| level_bits_as(v, 255.0, trunc_scale));
    // Packed as `u8`'s `store4` packs 4, with the selectors in registers: immediate ones
    // reorder the RGBA entry's schedule (same instructions).
    let mut low = byte_perm(
        byte_perm(b[0], b[1], 0x0040),
        byte_perm(b[2], b[3], 0x0040),
        0x5410,
    );
    let mut high = byte_perm(
        byte_perm(b[4], b[5], 0x0040),
        byte_perm(b[6], b[7], 0x0040),
        0x5410,
    );
    if C == 4 && COPY_ALPHA {
        low = byte_perm(low, centre.0, 0x7210);
        high = byte_perm(high, centre.1, 0x7210);
    }
    if at.own {
        // SAFETY: 8 bytes inside the row, 8-aligned (the row length and x are multiples of 8).
        unsafe { store_v2(out.add(row + at.x as usize), [low, high]) };
    }
}

#[cfg(target_arch = "nvptx64")]
/// Every other image: the lane's outputs `x + 32 · p` (`p` < 8, neighbouring lanes on
/// neighbouring pixels) of rows `oy .. oy + 8`, channel `c`, each correlated on its own with the
/// border resolved per pixel.
///
/// # Safety
/// As for `conv_warp_rows`.
#[inline(always)]
unsafe fn per_pixel<T: Sample>(
    input: *const T,
    output: *mut T,
    g: &Geometry,
    taps: ParamTaps,
    (x, oy): (u32, u32),
    c: u32,
) {
    let src = Global {
        channel: c,
        ..Global::new(input, g)
    };
    for y in oy..(oy + ROWS).min(g.out_height) {
        for p in 0..PER_LANE {
            let xx = x + p * BLOCK.0;
            if xx < g.out_width {
                // The taps are divided by 255 and `correlate` reads samples in [0, 1].
                let v = correlate(g, &src, xx, y, |i| taps.get(i)) * 255.0;
                // SAFETY: inside the output.
                unsafe { store_sample(output, g, xx, y, c, v) };
            }
        }
    }
}
