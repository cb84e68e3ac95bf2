//! The `blocked` kernels' load phase: a block's haloed input tile fetched into shared memory, by
//! vectors where it can, in batches whose loads are all issued before any is stored.

use super::BLOCK;
use crate::device::shared::dynamic_shared_mem;
use crate::device::{F32x4, Global, Sample, fetch_or_cval, outside_is_constant, unroll};
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

/// Loads a block's haloed input tile into shared memory (the dynamic shared memory, as `f32`
/// samples or 16-byte vectors): `tile_w` samples (`C` interleaved channels a pixel, or `src`'s
/// one channel) × `tile_h` rows from input sample `x0` of row `y0` on, thread `first` of the
/// block taking its share; `ry` is the filter's radius down a column. The ways it loads are
/// [`blocked`](super::blocked)'s `# Tiling`.
///
/// # Safety
/// [`blocked`](super::blocked)'s launch contract; `src` reads `input`.
#[inline(always)]
pub(super) unsafe fn load_tile<T: Sample, const R: usize, const C: usize>(
    input: *const T,
    g: &Geometry,
    src: &Global<T>,
    (x0, y0): (i32, i32),
    (tile_w, tile_h): (u32, u32),
    ry: usize,
    first: u32,
) {
    // Samples per input row (x is in samples from here on).
    let row_len = g.in_width * C as u32;
    let pixels = dynamic_shared_mem::<f32>();
    let vectors = dynamic_shared_mem::<F32x4>();
    let threads = BLOCK.0 * BLOCK.1;
    let c = src.channel;
    // A single-channel image whose rows are whole 16-byte vectors: every 4-pixel vector of the
    // tile that lies inside the image is one vector load, and only the vectors beyond its edges
    // resolve the border pixel by pixel (or are zeros), so blocks at the image's edges stay
    // vectorized too.
    let vectors_ok = (g.channels == 1 || C > 1) && row_len.is_multiple_of(4) && x0 % 4 == 0;
    let per_row = tile_w / 4;
    let inside = x0 >= 0 && y0 >= 0 && x0 as u32 + tile_w <= row_len && y0 as u32 + tile_h <= g.in_height;
    // Whether what lies outside reads 0: the zero border's (a constant of 0) and `valid`'s.
    let zero_outside = outside_is_constant(g) && g.cval == 0.0;
    // Only gray `f32` edge tiles load in batches; the others run the vector-by-vector loop below
    // (batching them too made 8- and 16-bit tiles up to 6% slower at 8192², RGB `f32` 7% at
    // 2048²).
    let gray_f32 = gray_f32::<T, C>();
    if vectors_ok && (inside || (zero_outside && gray_f32)) {
        // Thread `first` loads vector column `first % per_row` of rows `first / per_row`, then
        // every `row_step`-th row below (the threads past `row_step` whole rows idle), so its
        // addresses advance by constants. A tile wholly inside checks nothing; a gray `f32` tile
        // at the image's edges, under a border whose outside reads 0, loads each vector that lies
        // inside (a vector is wholly inside or outside: the row width and x0 are multiples of 4)
        // and zeros the others, with the same batches, so edge tiles take no longer than inner
        // ones.
        let row_step = threads / per_row;
        let (q, first_row) = (first % per_row, first / per_row);
        if first_row < row_step {
            let rows = TileRows {
                src: (y0 as isize + first_row as isize) * row_len as isize + x0 as isize + 4 * q as isize,
                src_step: row_step as isize * row_len as isize,
                dst: first as usize,
                dst_step: (row_step * per_row) as usize,
                row: first_row,
                row_step,
                tile_h,
            };
            // Inner tiles get a loop of their own, without the range check, except in gray `f32`
            // entries of radius 5 and more (ptxas then takes 8 more registers).
            if inside && !(gray_f32 && R >= 5) {
                // SAFETY: every row of the tile is inside the image.
                unsafe { rows.load_inside::<_, C>(input, vectors) };
            } else {
                // Tile rows `row_lo .. row_lo + span` of the thread's column lie inside the image.
                let (row_lo, span) = if inside {
                    (0, tile_h)
                } else if ((x0 + 4 * q as i32) as u32) < row_len {
                    let lo = (-y0).max(0) as u32;
                    let hi = (g.in_height as i32 - y0).clamp(0, tile_h as i32) as u32;
                    (lo, hi.saturating_sub(lo))
                } else {
                    (0, 0)
                };
                // SAFETY: the rows `row_lo .. row_lo + span` of the thread's column are inside
                // the image, and only those are read.
                unsafe { rows.load::<_, C>(input, vectors, row_lo, span) };
            }
        }
    } else if vectors_ok {
        // A tile at the image's edges, loaded vector by vector. A vector beyond the image is
        // resolved by the border only where it holds a sample within R pixels of the image (the
        // only ones a stored output reads); the others, a tile's columns and rows past the
        // image's in images whose size is not a multiple of the tile's, feed only outputs that
        // are never stored: zeros.
        let (rx, ry) = ((R * C) as i32, ry as i32);
        // RGBA entries and radius 0 resolve every vector: the check costs them a spill under
        // their register limit.
        let skip_unread = C != 4 && R > 0;
        let mut e = first;
        while e < per_row * tile_h {
            let (gx, gy) = (x0 + 4 * (e % per_row) as i32, y0 + (e / per_row) as i32);
            let v = if gx >= 0 && gy >= 0 && (gx as u32) < row_len && (gy as u32) < g.in_height {
                let at = gy as usize * row_len as usize + gx as usize;
                // SAFETY: the 4 pixels are inside the image (gx is 4-aligned and below the row
                // width, a multiple of 4) and 16-byte aligned for f32.
                unsafe { T::load4(input.add(at)) }
            } else if zero_outside
                || skip_unread
                    // gx + 4 > -rx and gx < row_len + rx, and -ry <= gy < in_height + ry, as
                    // one unsigned comparison each.
                    && ((gx + rx + 3) as u32 >= row_len + (2 * rx + 3) as u32
                        || (gy + ry) as u32 >= g.in_height + (2 * ry) as u32)
            {
                // The whole vector is outside (its 4 pixels share a row, and the width is a
                // multiple of 4), and reads 0 or is read by no stored output (a constant other
                // than 0 is fetched pixel by pixel below: as a vector here it took the RGBA
                // entries past their register limits).
                [0.0; 4]
            } else {
                // Written out (not `map`): with a call in it the map was left a loop over an
                // array in local memory.
                let fetch = |i: i32| fetch_sample::<T, C>(g, src, gx + i, gy);
                [fetch(0), fetch(1), fetch(2), fetch(3)]
            };
            // SAFETY: `e` indexes a vector inside the tile.
            unsafe { *vectors.add(e as usize) = F32x4(v) };
            e += threads;
        }
    } else if C == 1 && inside {
        // A tile wholly inside whose rows are not whole vectors (RGB, RGBA, or a width or offset
        // off the multiple of 4): no border logic; each thread gathers 4 neighbouring pixels of its
        // channel (the warp's loads share their cache lines) into one shared vector.
        let mut e = first;
        while e < per_row * tile_h {
            let (q, row) = (e % per_row, e / per_row);
            let pixel = (y0 as usize + row as usize) * g.in_width as usize + x0 as usize + 4 * q as usize;
            let at = pixel * g.channels as usize + c as usize;
            let step = g.channels as usize;
            // SAFETY: the 4 pixels are inside the image.
            let v = [0, 1, 2, 3].map(|p| unsafe { T::load(input.add(at + p * step)) });
            // SAFETY: `e` indexes a vector inside the tile.
            unsafe { *vectors.add(e as usize) = F32x4(v) };
            e += threads;
        }
    } else {
        let mut e = first;
        while e < tile_w * tile_h {
            let (lx, ly) = (e % tile_w, e / tile_w);
            // SAFETY: e < tile_w · tile_h, the shared size the host allocates for this radius.
            unsafe { *pixels.add(e as usize) = fetch_sample::<T, C>(g, src, x0 + lx as i32, y0 + ly as i32) };
            e += threads;
        }
    }
}
