//! The `tensor-f32` kernel's products: a warp's 8 windows of one block of taps on the tensor
//! cores, from the split planes in shared memory and the host's B fragments.

use super::Shape;
use crate::device::mma::{mma_f16, mma_f16_k8};
use crate::device::{Bytes16, unroll};

/// The three products of A's chunk I (`high`, `low`) with B's chunks (`b`; `$h`, `$l` are the
/// high and low parts of chunk `$k`) into the accumulators `$acc`, each over the windows the chunk
/// feeds (window I - K, if there is one: the difference wraps when K > I), so consecutive MMAs
/// add to different windows.
macro_rules! products {
    ($acc:ident, $mma:ident, $c:expr, $high:expr, $low:expr, |$k:ident| $h:expr, $l:expr) => {
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
        unroll!(K < $c; [0, 1, 2, 3, 4] {
            if I.wrapping_sub(K) < 8 {
                let $k = K;
                $mma($low, $h, &mut $acc[I.wrapping_sub(K) % 8]);
            }
        });
    };
}

/// Adds to `acc` the products of one block of taps (`block_taps`, its B fragments) with the
/// planes (`planes`: each filtered channel's high and low parts) for lane `tx` of warp `ty`: the
/// pairs of filter rows with K = 16, then the last row alone with K = 8.
#[inline(always)]
pub(super) fn multiply<const R: usize, const CH: usize>(
    acc: &mut [[f32; 4]; 8],
    planes: *const u32,
    block_taps: *const u32,
    (tx, ty): (u32, u32),
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
            products!(acc, mma_f16, c, high, low, |k| [b[k][0], b[k][1]], [b[k][2], b[k][3]]);
        });
        at += 2 * stride as usize;
    }
    // The last filter row, 2R, alone: K = 8.
    let b = load_b(R);
    unroll!(I < Shape::<R, CH>::Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
        let (r0, r8) = (load_a(at, 0, I), load_a(at, 8, I));
        let (high, low) = ([r0[0], r8[0]], [r0[1], r8[1]]);
        products!(acc, mma_f16_k8, c, high, low, |k| [b[k][0]], [b[k][2]]);
    });
}
