//! The `tensor-f32` kernel's products: a warp's 8 windows of one block of taps on the tensor
//! cores, from the split planes in shared memory and the host's B fragments.

use super::Shape;
use crate::device::mma::{ldmatrix_x2, ldmatrix_x4, mma_f16, mma_f16_k8, shared_address};
use crate::device::{Bytes16, unroll};

/// The three products of A's chunk I (`high`, `low`) with B's chunks (`b`; `$h`, `$l` are the
/// high and low parts of chunk `$k`) into the accumulators `$acc`, each over the windows the chunk
/// feeds (window I - K, if there is one: the difference wraps when K > I), so consecutive MMAs
/// add to different windows; the third (the samples' low parts) left out where `$exact` (FP16
/// samples, whose low parts are 0).
macro_rules! products {
    ($acc:ident, $mma:ident, $c:expr, $exact:expr, $high:expr, $low:expr, |$k:ident| $h:expr, $l:expr) => {
        unroll!(K < $c; [0, 1, 2, 3, 4] {
            if I.wrapping_sub(K) < 8 {
                let $k = K;
                $mma($high, $h, &mut $acc[I.wrapping_sub(K) % 8]);
            }
        });
        unroll!(K < $c; [0, 1, 2, 3, 4] {
            if I.wrapping_sub(K) < 8 {
                let $k = K;
                $mma($high, $l, &mut $acc[I.wrapping_sub(K) % 8]);
            }
        });
        if !$exact {
            unroll!(K < $c; [0, 1, 2, 3, 4] {
                if I.wrapping_sub(K) < 8 {
                    let $k = K;
                    $mma($low, $h, &mut $acc[I.wrapping_sub(K) % 8]);
                }
            });
        }
    };
}

/// Adds to `acc` the products of one block of taps (`block_taps`, its B fragments) with the
/// planes (`planes`: each filtered channel's high and low parts) for lane `tx` of warp `ty`: the
/// pairs of filter rows with K = 16, then the last row alone with K = 8. `exact`: the samples
/// are FP16 (the high plane only; two products a tap).
#[inline(always)]
pub(super) fn multiply<const R: usize, const CH: usize>(
    acc: &mut [[f32; 4]; 8],
    planes: *const u32,
    block_taps: *const u32,
    (tx, ty): (u32, u32),
    exact: bool,
) {
    let (c, stride, plane_words) = (
        Shape::<R, CH>::C,
        Shape::<R, CH>::STRIDE,
        Shape::<R, CH>::PLANE_WORDS,
    );
    // The B fragments of pair `pair`, for every chunk.
    let fragments = block_taps.cast::<Bytes16>();
    let load_b = |pair: usize| -> [[u32; 4]; 5] {
        let mut b = [[0u32; 4]; 5];
        unroll!(K < c; [0, 1, 2, 3, 4] {
            // SAFETY: inside the block's words (launch contract), 16-byte aligned.
            b[K] = unsafe { *fragments.add((pair * c + K) * 32 + tx as usize) }.0;
        });
        b
    };
    let (lane_g, lane_t) = (tx / 4, tx % 4);
    // The warps of a block that filters one channel all filter it.
    let (ch, part) = if Shape::<R, CH>::PLANES == 1 {
        (0, ty)
    } else {
        let channel_warps = Shape::<R, CH>::CHANNEL_WARPS;
        ((ty / channel_warps) as usize, ty % channel_warps)
    };
    let (wx, wy) = (64 * (part % 2), 16 * (part / 2));
    // SAFETY: channel ch's two planes, inside the dynamic shared memory.
    let (high_words, low_words) = unsafe {
        let high = planes.add(2 * ch * plane_words);
        (high, high.add(plane_words))
    };
    if exact {
        multiply_exact::<R, CH>(acc, high_words, load_b, (tx, wx, wy));
        return;
    }
    // This lane's word of chunk `q` of the warp in tile row `wy + g + row`: samples
    // `wx + 8q + 2t, +1`.
    let base = ((wy + lane_g) * stride + wx / 2 + lane_t) as usize;
    // This lane's words of chunk `q` in row `row` of the rows starting at word `at`.
    let load_a = |at: usize, row: usize, q: usize| -> [u32; 2] {
        let at = at + row * stride as usize + 4 * q;
        // SAFETY: inside the planes: row wy + g + 2p + row < rows (the callers' rows), word
        // wx / 2 + 4q + t < 32 + 4 · (8 + C - 1) = columns / 2.
        unsafe { [*high_words.add(at), *low_words.add(at)] }
    };
    // Pairs of filter rows 2p, 2p + 1: K = 16. A's rows g and g + 8 are output rows g and g + 8;
    // `at` is the lane's word in the row of filter row 2p for output row g.
    let mut at = base;
    // Empty for radius 0, whose one filter row is the last.
    #[allow(clippy::reversed_empty_ranges)]
    for p in 0..R {
        let b = load_b(p);
        unroll!(I < Shape::<R, CH>::Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
            let (r0, r8) = (load_a(at, 0, I), load_a(at, 8, I));
            let (r1, r9) = (load_a(at, 1, I), load_a(at, 9, I));
            let high = [r0[0], r8[0], r1[0], r9[0]];
            let low = [r0[1], r8[1], r1[1], r9[1]];
            products!(acc, mma_f16, c, false, high, low, |k| [b[k][0], b[k][1]], [b[k][2], b[k][3]]);
        });
        at += 2 * stride as usize;
    }
    // The last filter row, 2R, alone: K = 8.
    let b = load_b(R);
    unroll!(I < Shape::<R, CH>::Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
        let (r0, r8) = (load_a(at, 0, I), load_a(at, 8, I));
        let (high, low) = ([r0[0], r8[0]], [r0[1], r8[1]]);
        products!(acc, mma_f16_k8, c, false, high, low, |k| [b[k][0]], [b[k][2]]);
    });
}

/// [`multiply`] of FP16 samples (the high plane alone, two products a tap), A's fragments read
/// with `ldmatrix`: one instruction a chunk of a pair of filter rows for the 4 words of each lane.
#[inline(always)]
fn multiply_exact<const R: usize, const CH: usize>(
    acc: &mut [[f32; 4]; 8],
    high_words: *const u32,
    load_b: impl Fn(usize) -> [[u32; 4]; 5],
    (tx, wx, wy): (u32, u32, u32),
) {
    let (c, stride) = (Shape::<R, CH>::C, Shape::<R, CH>::STRIDE);
    // Lane l gives the address of row l % 8 of matrix l / 8: A's rows g and g + 8 on the input
    // row of filter row 2p (matrices 0 and 1), then on that of 2p + 1 (2 and 3), at chunk q
    // (16 bytes on from the warp's first chunk); bytes of the plane, 16-aligned (the stride is
    // a multiple of 4 words, the planes start on 16 bytes).
    let m = tx / 8;
    let row = wy + tx % 8 + 8 * (m % 2) + m / 2;
    let mut at = shared_address(high_words) + 4 * (row * stride + wx / 2);
    // Empty for radius 0, whose one filter row is the last.
    #[allow(clippy::reversed_empty_ranges)]
    for p in 0..R {
        let b = load_b(p);
        unroll!(I < Shape::<R, CH>::Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
            // SAFETY: rows row + 2p < rows and chunk I's 16 bytes inside the row (as `multiply`).
            let a = unsafe { ldmatrix_x4(at + 16 * I as u32) };
            products!(acc, mma_f16, c, true, a, a, |k| [b[k][0], b[k][1]], [b[k][2], b[k][3]]);
        });
        at += 8 * stride;
    }
    // The last filter row, 2R, alone: K = 8, matrices 0 and 1 (lanes 0-15's rows).
    let b = load_b(R);
    unroll!(I < Shape::<R, CH>::Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
        // SAFETY: as above; only lanes 0-15's addresses (rows g, g + 8 of filter row 2R) are read.
        let a = unsafe { ldmatrix_x2(at + 16 * I as u32) };
        products!(acc, mma_f16_k8, c, true, a, a, |k| [b[k][0]], [b[k][2]]);
    });
}
