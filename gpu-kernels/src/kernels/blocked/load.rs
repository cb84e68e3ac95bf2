//! The `blocked` kernels' load phase: a tile's rows fetched into shared memory by vectors, in
//! batches whose loads are all issued before any is stored.

use crate::device::{F32x4, Global, Sample, fetch_or_cval, unroll};
use crate::launch::Geometry;

/// Sample `s` of input row `y` after border resolution: with `C` > 1 channels the row's
/// interleaved samples, pixel `s / C`'s channel `s % C`; with `C` = 1, pixel `s` of `src`'s
/// channel.
#[inline(always)]
pub(super) fn fetch_sample<T: Sample, const C: usize>(g: &Geometry, src: &Global<T>, s: i32, y: i32) -> f32 {
    if C == 1 {
        fetch_or_cval(g, src, s, y)
    } else {
        let channel = s.rem_euclid(C as i32) as u32;
        fetch_or_cval(g, &Global { channel, ..*src }, s.div_euclid(C as i32), y)
    }
}

/// One thread's share of a tile loaded by vectors: rows `row_step` apart, one 4-sample vector
/// column, in batches of up to [`LOAD_BATCH`] loads issued before any is stored so their latencies
/// overlap.
pub(super) struct TileRows {
    /// Index of the thread's first vector in the input (negative above the image).
    pub(super) src: isize,
    /// Input index step between the thread's rows.
    pub(super) src_step: isize,
    /// Index of the thread's first vector in shared memory, in vectors.
    pub(super) dst: usize,
    /// Shared-memory step between the thread's rows, in vectors.
    pub(super) dst_step: usize,
    /// The thread's first tile row.
    pub(super) row: u32,
    /// Tile rows between the thread's rows.
    pub(super) row_step: u32,
    /// Rows in the tile.
    pub(super) tile_h: u32,
}

/// Most tile vectors a thread loads before storing them to shared memory.
pub(super) const LOAD_BATCH: usize = 6;

/// Tile vectors a thread of an entry for `T` and `C` channels loads before storing them:
/// [`LOAD_BATCH`] for gray `f32`, so one batch covers a `blocked-4x4` thread's rows up to radius 5; 4 for
/// 8- and 16-bit samples, which 6 would cost registers (and spills in RGB/RGBA entries), and for
/// RGB/RGBA `f32` (7% faster at 2048² k=7).
pub(super) const fn batch_len<T, const C: usize>() -> usize {
    if gray_f32::<T, C>() { LOAD_BATCH } else { 4 }
}

/// Whether the entry for `T` and `C` channels is gray `f32`, the one kind whose tiles load in
/// batches of [`LOAD_BATCH`] and whose edge tiles load in batches too.
pub(super) const fn gray_f32<T, const C: usize>() -> bool {
    core::mem::size_of::<T>() == 4 && C == 1
}

impl TileRows {
    /// Loads the thread's vectors of a tile wholly inside the image into `vectors`: [`Self::load`]
    /// without its range check, in `usize` index arithmetic (the loop of `671cb57`; `load` with
    /// the whole range made 8-bit tiles up to 6% slower at 8192²).
    ///
    /// # Safety
    /// Every vector of the thread's column is inside the image and 4-aligned; `vectors` holds the
    /// tile.
    #[inline(always)]
    pub(super) unsafe fn load_inside<T: Sample, const C: usize>(self, input: *const T, vectors: *mut F32x4) {
        let (src_step, mut src) = (self.src_step as usize, self.src as usize);
        let (mut row, mut dst) = (self.row, self.dst);
        while row < self.tile_h {
            let mut batch = [F32x4([0.0; 4]); LOAD_BATCH];
            unroll!(B < LOAD_BATCH; [0, 1, 2, 3, 4, 5] {
                if B < batch_len::<T, C>() && row + B as u32 * self.row_step < self.tile_h {
                    // SAFETY: a vector of a row inside the image (the caller's promise).
                    batch[B] = F32x4(unsafe { T::load4(input.add(src + B * src_step)) });
                }
            });
            unroll!(B < LOAD_BATCH; [0, 1, 2, 3, 4, 5] {
                if B < batch_len::<T, C>() && row + B as u32 * self.row_step < self.tile_h {
                    // SAFETY: a vector of a tile row below `tile_h`, inside the tile.
                    unsafe { *vectors.add(dst + B * self.dst_step) = batch[B] };
                }
            });
            row += batch_len::<T, C>() as u32 * self.row_step;
            src += batch_len::<T, C>() * src_step;
            dst += batch_len::<T, C>() * self.dst_step;
        }
    }

    /// Loads the thread's vectors into `vectors`: those of tile rows `row_lo .. row_lo + span`
    /// from the input, the others (outside the image) as zeros, without reading them.
    ///
    /// # Safety
    /// The vectors of tile rows `row_lo .. row_lo + span` in the thread's column are inside the
    /// image and 4-aligned; `vectors` holds the tile.
    #[inline(always)]
    pub(super) unsafe fn load<T: Sample, const C: usize>(
        mut self,
        input: *const T,
        vectors: *mut F32x4,
        row_lo: u32,
        span: u32,
    ) {
        // The loop compares tile rows with `tile_h`, a constant once inlined, so ptxas sees its
        // trip count.
        while self.row < self.tile_h {
            let mut batch = [F32x4([0.0; 4]); LOAD_BATCH];
            unroll!(B < LOAD_BATCH; [0, 1, 2, 3, 4, 5] {
                // One comparison: rows above `row_lo` wrap around to large values.
                if B < batch_len::<T, C>() && (self.row + B as u32 * self.row_step).wrapping_sub(row_lo) < span {
                    let at = input.wrapping_offset(self.src + B as isize * self.src_step);
                    // SAFETY: a vector of a row inside the image (the caller's promise).
                    batch[B] = F32x4(unsafe { T::load4(at) });
                }
            });
            unroll!(B < LOAD_BATCH; [0, 1, 2, 3, 4, 5] {
                if B < batch_len::<T, C>() && self.row + B as u32 * self.row_step < self.tile_h {
                    // SAFETY: a vector of a tile row below `tile_h`, inside the tile.
                    unsafe { *vectors.add(self.dst + B * self.dst_step) = batch[B] };
                }
            });
            self.row += batch_len::<T, C>() as u32 * self.row_step;
            self.src += batch_len::<T, C>() as isize * self.src_step;
            self.dst += batch_len::<T, C>() * self.dst_step;
        }
    }
}
