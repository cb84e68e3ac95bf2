//! The `tensor-f32` kernel's store phase: a lane's outputs written straight from its accumulators
//! (blocks of one channel), or staged and written as interleaved 16-byte vectors of whole pixels
//! (blocks of three).

use super::{STAGING_STRIDE, block, tile};
use crate::device::thread::sync_threads;
use crate::device::{Bytes16, Sample, Store, out_index, unroll};
use crate::launch::Geometry;

/// Writes the outputs of a block that filters every colour channel of an RGB or RGBA (`CH` = 3, 4)
/// tile at `origin`: thread `thread`, of channel `ch`, puts its accumulators `acc` times `factor`
/// (its channel's), clamped as `g` says, the first at tile column `col` and row `row` (window `j`
/// of `acc` 8 columns on, its `[2h + e]` at `8h` rows and `e` columns more), into `staging`
/// (pixels interleaved, three samples each, rows
/// [`STAGING_STRIDE`] words apart); then the block writes the tile's rows as 16-byte vectors
/// (RGB where the output's rows are whole vectors; RGBA a pixel each, its alpha read from
/// `input`), sample by sample elsewhere, so each sector of the output is written whole once,
/// not a sample at a time by three warps.
///
/// # Safety
/// Every thread of the block calls it, after its last read of the planes; `staging` is the
/// block's planes (16-byte aligned, at least `tile(3).1 · STAGING_STRIDE` words);
/// `input` and `output` are the image's interleaved `f32` samples (`g.channels == CH`).
#[inline(always)]
pub(super) unsafe fn store_colour_tile<const CH: usize>(
    input: *const f32,
    output: *mut f32,
    g: &Geometry,
    staging: *mut f32,
    (ox, oy): (u32, u32),
    (thread, ch, col, row): (u32, u32, u32, u32),
    (acc, factor): (&[[f32; 4]; 8], f32),
) {
    const TILE: (u32, u32) = tile(3);
    let clamp = Store::of(g, g.clamp != 0);
    sync_threads();
    unroll!(J < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
        unroll!(H < 2; [0, 1] {
            let (col, row) = (col + 8 * J as u32, row + 8 * H as u32);
            unroll!(E < 2; [0, 1] {
                let v = f32::store(acc[J][2 * H + E] * factor, clamp);
                // SAFETY: inside the staging area: row < 32, col + E < 128 (caller's contract).
                unsafe { *staging.add((row * STAGING_STRIDE + 3 * (col + E as u32) + ch) as usize) = v };
            });
        });
    });
    sync_threads();
    let (threads, mut e) = (32 * block(3).1, thread);
    // The tile's columns inside the output.
    let inside = (g.out_width - ox).min(TILE.0);
    if CH == 3 {
        // Row `row` of the tile is 96 vectors of 4 samples; those of its first `3 · inside`
        // samples are the output's.
        let (end, aligned) = (3 * inside, g.out_width.is_multiple_of(4));
        while e < TILE.1 * 96 {
            let (row, f) = (e / 96, 4 * (e % 96));
            if oy + row < g.out_height {
                let at = ((oy + row) as usize * g.out_width as usize + ox as usize) * 3 + f as usize;
                let from = (row * STAGING_STRIDE + f) as usize;
                if aligned && f + 4 <= end {
                    // SAFETY: 16 bytes of the staging area and of the output row, 16-aligned (the
                    // stride, f, ox and the width are multiples of 4).
                    unsafe { (*staging.add(from).cast::<Bytes16>()).store_global(output.add(at).cast()) };
                } else {
                    unroll!(I < 4; [0, 1, 2, 3] {
                        if f + (I as u32) < end {
                            // SAFETY: inside the staging area and the output row.
                            unsafe { *output.add(at + I) = *staging.add(from + I) };
                        }
                    });
                }
            }
            e += threads;
        }
    } else {
        // One pixel a vector: its three samples from the staging area, its alpha from the input.
        while e < TILE.1 * TILE.0 {
            let (row, col) = (e / TILE.0, e % TILE.0);
            let (x, y) = (ox + col, oy + row);
            if y < g.out_height && col < inside {
                let from = (row * STAGING_STRIDE + 3 * col) as usize;
                let pixel = (y + g.offset) as usize * g.in_width as usize + (x + g.offset) as usize;
                // SAFETY: inside the staging area; the pixel's alpha inside the input (its
                // output is inside the output); 16 bytes of the output, 16-aligned (RGBA).
                unsafe {
                    let v = [
                        *staging.add(from),
                        *staging.add(from + 1),
                        *staging.add(from + 2),
                        *input.add(4 * pixel + 3),
                    ];
                    Bytes16(v.map(f32::to_bits)).store_global(output.add(out_index(g, x, y, 0)).cast());
                }
            }
            e += threads;
        }
    }
}

/// Writes lane `(lane_g, lane_t)`'s outputs of a block that filters one channel (`channel`) of the
/// tile at `origin`, the warp's 64 × 16 outputs at `(wx, wy)` of it: its accumulators `acc` times
/// `factor`, clamped as `g` says, window `j` 8 columns on; two samples as one vector where the
/// output is single-channel with an even width, else sample by sample. `exact`: the samples are
/// FP16 (rounded to the nearest), of `g.channels` channels.
///
/// # Safety
/// `output` is the image's `f32` samples (`g.channels == CH`), or FP16 samples where `exact`.
#[inline(always)]
pub(super) unsafe fn store_tile<const CH: usize>(
    output: *mut f32,
    g: &Geometry,
    (ox, oy): (u32, u32),
    (lane_g, lane_t, wx, wy): (u32, u32, u32, u32),
    (channel, exact): (u32, bool),
    (acc, factor): (&[[f32; 4]; 8], f32),
) {
    let clamp = Store::of(g, g.clamp != 0);
    let pairs = CH == 1 && (!exact || g.channels == 1) && g.out_width.is_multiple_of(2);
    unroll!(J < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
        let x = ox + wx + 8 * J as u32 + 2 * lane_t;
        unroll!(H < 2; [0, 1] {
            let y = oy + wy + lane_g + 8 * H as u32;
            let a = [acc[J][2 * H] * factor, acc[J][2 * H + 1] * factor];
            if y < g.out_height {
                let pair = pairs && x + 1 < g.out_width;
                if exact {
                    // SAFETY: inside the output, FP16 samples (the caller's contract).
                    unsafe { store_halves(output.cast(), g, (x, y, channel), a.map(|a| f16::store(a, clamp)), pair) };
                } else {
                    let v = a.map(|a| f32::store(a, clamp));
                    if pair {
                        // SAFETY: two samples inside the output, 8-aligned (x and the width are even).
                        unsafe {
                            *output.add(out_index(g, x, y, 0)).cast::<u64>() =
                                u64::from(v[0].to_bits()) | u64::from(v[1].to_bits()) << 32
                        };
                    } else {
                        unroll!(E < 2; [0, 1] {
                            if x + (E as u32) < g.out_width {
                                // SAFETY: inside the output.
                                unsafe { *output.add(out_index(g, x + E as u32, y, channel)) = v[E] };
                            }
                        });
                    }
                }
            }
        });
    });
}

/// Writes FP16 outputs `v` at `(x, y)`, `x + 1` of channel `channel`: as one word where `pair`
/// (gray, `x` and the width even, both inside), else those inside one by one.
///
/// # Safety
/// `output` is the image's FP16 samples; `(x, y)` inside it.
#[inline(always)]
unsafe fn store_halves(
    output: *mut f16,
    g: &Geometry,
    (x, y, channel): (u32, u32, u32),
    v: [f16; 2],
    pair: bool,
) {
    if pair {
        // SAFETY: two samples inside the output, 4-aligned (x and the width are even).
        unsafe {
            *output.add(out_index(g, x, y, 0)).cast::<u32>() =
                u32::from(v[0].to_bits()) | u32::from(v[1].to_bits()) << 16
        };
    } else {
        unroll!(E < 2; [0, 1] {
            if x + (E as u32) < g.out_width {
                // SAFETY: inside the output.
                unsafe { *output.add(out_index(g, x + E as u32, y, channel)) = v[E] };
            }
        });
    }
}
