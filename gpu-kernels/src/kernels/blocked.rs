//! The `blocked-4x4` and `blocked-4x2` kernels (`conv_blocked_4x4`, 4 × 4 outputs per thread, and
//! `conv_blocked_4x2`, 4 × 2): register blocking with the filter radius known at compile time.

pub use launch::*;

/// The launch (entry names, block, tiles, shared memory, register limits), read by the host and by
/// the kernel: its own file beside this one, compiled for every target.
mod launch;

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{block_idx_x, block_idx_y, sync_threads, thread_idx_x, thread_idx_y},
    crate::device::{
        F32x4, Global, Sample, TapRead, batch_image, bf16, clamp_keeping_nan, computed_here, fma, is_alpha,
        outside_is_constant, param_taps, split_store, store_patch, unroll,
    },
    crate::launch::{ExactTaps, Geometry, MAX_FILTER_SIZE},
    kernel_macros::kernel,
    load::{TileRows, fetch_sample, gray_f32},
};

#[cfg(target_arch = "nvptx64")]
mod load;

#[cfg(target_arch = "nvptx64")]
/// The `blocked` kernels: register blocking with the filter radius known at compile time, `R`.
///
/// # Tiling
/// A block of [`BLOCK`] = 32 × 8 threads produces a 128 × 8·PY
/// output tile of one channel, where PY (4 for `conv_blocked_4x4_*`, 2 for `conv_blocked_4x2_*`) is the
/// number of output rows per thread. It first loads the haloed input tile, `(128 + 2RA) × (8·PY +
/// 2R)` pixels where `RA` is `R` rounded up to a multiple of 4 (so everything stays 16-byte
/// aligned), into shared memory. In a single-channel image whose width is a multiple of 4 every
/// 4 pixels inside the image are one vector load. Each thread loads one vector column of every few
/// tile rows, in batches of up to [`LOAD_BATCH`](load::LOAD_BATCH) = 6 issued before any is stored, so their
/// latencies overlap; a gray `f32` tile at the image's edges does the same under the zero and
/// `valid` borders, with the vectors outside the image zeros, and other edge tiles load vector by
/// vector, those beyond the image's edges the constant or resolved pixel by pixel. Another tile wholly
/// inside (RGB, RGBA, other widths) gathers 4 pixels of its channel per shared vector, and the
/// remaining tiles are loaded pixel by pixel with the border resolved. Each thread then computes a
/// 4 × PY patch of outputs held in registers. Where
/// [`unrolled`] says so (k ≤ 15 for 4 × 4, k ≤ 17 for 4 × 2) it walks the `PY + 2R` input rows
/// the patch needs, reads each row's `4 + 2RA` pixels once as 16-byte shared loads and applies
/// them to every output row they feed, with every loop unrolled so each tap is read at a constant
/// offset of the constant bank. Larger filters loop over filter rows instead
/// (reading each input row once per output row), which keeps their code small. Shared-memory
/// traffic per FMA falls by about `4k / (4 + 2R)` compared with one output per thread, which moves
/// large filters from the load units onto the FMA units. PY = 4 shares each input row among more
/// outputs; PY = 2 halves the tile, so small images get more blocks, and needs fewer registers.
///
/// # Thread mapping
/// Block `(bx · channels + c, by)`, thread `(tx, ty)` writes output pixels
/// `(bx·128 + 4·tx + ox, by·8·PY + PY·ty + oy)`, `ox < 4`, `oy < PY`, of channel `c`, where inside
/// the output. The channels of one tile are neighbouring blocks.
///
/// # Interleaved channels
/// The entries `conv_blocked_4x4[_4x2]_c3_*` and `_c4_*` (`C` = 3 or 4, radius up to 4) filter an RGB or
/// RGBA image's rows as rows of `width · C` samples whose taps are `C` samples apart: block
/// `(bx, by)` produces samples `bx·128 .. bx·128 + 128` of its rows, every channel at once, so its
/// tile is loaded and its results stored as whole 16-byte vectors, as for gray rows (where one
/// block per channel gathers 4 samples 12 or 16 bytes apart per vector and stores them one by
/// one). A sample beyond a row's ends is pixel `s / C`'s channel `s % C`, resolved by the border.
/// In RGBA the 4th sample of a thread's 4 is alpha, copied from the input unless
/// [`Geometry::filter_alpha`].
///
/// # Safety
/// Launch with block `BLOCK`, `shared_bytes(R, PY, 1)` bytes of dynamic shared memory and
/// grid `(tiles across · channels, tiles down, 1)`; `g.radius == R`; buffers and taps as for
/// `constant`. The interleaved entries (`C` = `g.channels` = 3 or 4, where
/// [`interleaved`] holds) take `shared_bytes(R, PY, C)`
/// bytes and grid `(tiles across the row's out_width · C samples, tiles down, 1)`.
///
/// Register limits: [`max_registers`].
#[kernel(types(f32, u8, u16), radius(0..=15), consts(PY = 4, C = 1), max_registers = max_registers(core::mem::size_of::<T>(), R, PY, C))]
#[kernel(name = conv_blocked_4x2, types(f32, u8, u16, f16, bf16), radius(0..=15), consts(PY = 2, C = 1), max_registers = max_registers(core::mem::size_of::<T>(), R, PY, C))]
#[kernel(name = conv_blocked_4x4_c3, types(f32, u8, u16), radius(0..=4), consts(PY = 4, C = 3), max_registers = max_registers(core::mem::size_of::<T>(), R, PY, C))]
#[kernel(name = conv_blocked_4x4_c4, types(f32, u8, u16), radius(0..=4), consts(PY = 4, C = 4), max_registers = max_registers(core::mem::size_of::<T>(), R, PY, C))]
#[kernel(name = conv_blocked_4x2_c3, types(f32, u8, u16, f16, bf16), radius(0..=4), consts(PY = 2, C = 3), max_registers = max_registers(core::mem::size_of::<T>(), R, PY, C))]
#[kernel(name = conv_blocked_4x2_c4, types(f32, u8, u16, f16, bf16), radius(0..=4), consts(PY = 2, C = 4), max_registers = max_registers(core::mem::size_of::<T>(), R, PY, C))]
pub unsafe fn conv_blocked_4x4<T: Sample, const R: usize, const PY: usize, const C: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: ExactTaps<{ (2 * R + 1) * (2 * R + 1) }>,
) {
    // One body for rounding and truncating integer stores (the store tests which): compiled
    // apart (`split_store!`), the 32-register entries spill.
    if unrolled(R, PY) {
        // Every index is a constant: the taps are read straight from the parameter.
        // SAFETY: the caller follows the launch contract above.
        unsafe { blocked::<T, R, PY, C, false>(input, output, &g, &taps) }
    } else {
        let by_address = param_taps!(taps);
        // SAFETY: the caller follows the launch contract above.
        unsafe { blocked::<T, R, PY, C, false>(input, output, &g, by_address) }
    }
}

#[cfg(target_arch = "nvptx64")]
/// The `blocked-rect` kernel: `blocked-4x4` for a `(2·g.radius_y + 1) × (2R + 1)` filter whose
/// radius along a row, `R`, is known at compile time and whose rows are looped over at run time,
/// so a rectangle costs its own taps, not its square's.
///
/// # Tiling
/// As `conv_blocked_4x4`'s gray entries with PY = [`rect_rows`]`(R)` output rows per thread (8
/// for radius 0 and 1, the tall filters, else 4) and `g.radius_y` in place of `R` down a
/// column: the tile is `(128 + 2RA) × (8·PY + 2·radius_y)` pixels.
///
/// # Thread mapping
/// As `conv_blocked_4x4`'s: each thread computes a 4 × PY patch, walking the `PY + 2·radius_y`
/// input rows it needs once each (a loop at run time), reading each row's `4 + 2RA` pixels as
/// 16-byte shared loads and applying them to every output row they feed. Each filter row's taps
/// are read from one address at immediate offsets (two at a time into uniform registers); up to
/// radius 3 the loop steps PY rows so that each filter row's taps are read once and kept for the
/// PY input rows that use them.
///
/// # Safety
/// Launch with block `BLOCK`, [`rect_shared_bytes`]`(R, g.radius_y)` bytes of dynamic shared
/// memory and grid `(tiles across · channels, tiles down, 1)` of tiles `tile(rect_rows(R))`;
/// `g.radius == R`, `g.radius_y <= MAX_RADIUS`; `taps` holds the `(2·radius_y + 1) × (2R + 1)`
/// taps row-major; buffers as for `constant`.
#[kernel(types(f32, u8, u16), radius(0..=1), consts(PY = 8), max_registers = rect_max_registers(R as u32))]
#[kernel(name = conv_blocked_rect, types(f32, u8, u16), radius(2..=15), consts(PY = 4), max_registers = rect_max_registers(R as u32))]
pub unsafe fn conv_blocked_rect<T: Sample, const R: usize, const PY: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: ExactTaps<{ MAX_FILTER_SIZE as usize * (2 * R + 1) }>,
) {
    const { assert!(PY as u32 == rect_rows(R as u32)) };
    let by_address = param_taps!(taps);
    // Rounding and truncating integer stores compiled apart (`split_store!`).
    // SAFETY: the caller follows the launch contract above.
    split_store!(T, g => unsafe { blocked::<T, R, PY, 1, true>(input, output, &g, by_address) })
}

#[cfg(target_arch = "nvptx64")]
/// Whether the kernel for radius `r` and `rows` output rows per thread is unrolled completely
/// (input-row-stationary, taps at constant offsets): up to radius 8 for 4 × 2 patches and 7 for
/// 4 × 4, where the unrolled 4 × 4 kernel needs so many registers that it is slower than the loop.
/// Larger filters keep a loop over filter rows, which keeps their code small.
const fn unrolled(r: usize, rows: usize) -> bool {
    r <= 8 && (rows == 2 || r <= 7)
}

#[cfg(target_arch = "nvptx64")]
/// The largest radius along a row for which `conv_blocked_rect` keeps the taps of PY filter rows
/// in registers (4 × 7), read once each, rather than reading each tap at every use.
const ROTATE_MAX_RADIUS: usize = 3;

#[cfg(target_arch = "nvptx64")]
/// The body of `conv_blocked_4x4` (`RECT`: of `conv_blocked_rect`, whose radius down a column is
/// `g.radius_y`), generic over where it reads its taps from.
///
/// # Safety
/// As for `conv_blocked_4x4` (`conv_blocked_rect`).
#[inline(always)]
// Over the 150 lines: its load phase moved into a function of `load.rs` (PTX the same but the
// order of two blocks) ran gray 4096² tiles 7-15% slower on an H200 (design notes, 2026-12-02).
#[allow(clippy::too_many_lines)]
unsafe fn blocked<T: Sample, const R: usize, const PY: usize, const C: usize, const RECT: bool>(
    input: *const T,
    output: *mut T,
    g: &Geometry,
    taps: impl TapRead,
) {
    /// Longest input run a thread reads per row (4 outputs plus the largest aligned halo), in `f32`.
    const SEGMENT: usize = (PER_THREAD.0 + 2 * halo(MAX_FILTER_SIZE / 2)) as usize;

    const {
        assert!(
            C == 1 || R * C <= 16,
            "the interleaved kernels' sample radius is at most 16"
        )
    };
    // SAFETY: the launch contract: grid z holds the batch's images, the buffers every image.
    let (input, output, _) = unsafe { batch_image(input, output, g, 1) };
    let k = 2 * R + 1;
    // The filter's radius down a column: R, but for a rectangle's rows given at run time.
    let ry = if RECT { g.radius_y as usize } else { R };
    let tile = tile(PY as u32);
    // The filter's reach along a row of samples: R pixels of C samples each.
    let rs = R * C;
    // Columns are loaded with an aligned halo of RA >= RS samples; row reads skip RA - RS of them.
    let ra = halo(rs as u32) as usize;
    let stride = stride(rs as u32);
    let (tile_w, tile_h) = (stride, tile.1 + 2 * ry as u32);
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    // With C = 1, the channels of a tile are neighbouring blocks, so they run together and share
    // the tile's rows in L2: an interleaved image is read from DRAM once, not once per channel.
    // With C > 1 a block covers every channel of its run of samples.
    let (bx, c) = if g.channels == 1 || C > 1 {
        (block_idx_x(), 0)
    } else {
        (block_idx_x() / g.channels, block_idx_x() % g.channels)
    };
    let src = Global {
        channel: c,
        ..Global::new(input, g)
    };
    // Samples per input row, and of the tile's columns (x is in samples from here on).
    let row_len = g.in_width * C as u32;
    let x0 = (bx * tile.0 + g.offset * C as u32) as i32 - ra as i32;
    let y0 = (block_idx_y() * tile.1 + g.offset) as i32 - ry as i32;
    let pixels = dynamic_shared_mem::<f32>();
    let vectors = dynamic_shared_mem::<F32x4>();
    let threads = BLOCK.0 * BLOCK.1;
    let first = ty * BLOCK.0 + tx;
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
                let fetch = |i: i32| fetch_sample::<T, C>(g, &src, gx + i, gy);
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
            unsafe {
                *pixels.add(e as usize) = fetch_sample::<T, C>(g, &src, x0 + lx as i32, y0 + ly as i32)
            };
            e += threads;
        }
    }
    sync_threads();

    let (px, py) = (PER_THREAD.0 * tx, PY as u32 * ty);
    let (x, y) = (bx * tile.0 + px, block_idx_y() * tile.1 + py);
    if x >= g.out_width * C as u32 || y >= g.out_height {
        return;
    }
    let alpha = C == 1 && is_alpha(g, c);
    let mut acc = [[0.0f32; 4]; PY];
    if alpha {
        unroll!(OY < PY; [0, 1, 2, 3, 4, 5, 6, 7] {
            unroll!(OX < 4; [0, 1, 2, 3] {
                let at = (py as usize + OY + ry) * stride as usize + px as usize + OX + ra;
                // SAFETY: inside the tile.
                acc[OY][OX] = unsafe { *pixels.add(at) };
            });
        });
    } else if RECT {
        // Input-row-stationary as below, over the `PY + 2·ry` input rows in a loop: each row's
        // segment is read once and applied to the (up to PY) output rows it feeds, filter row
        // `row - OY` for output row OY. Up to radius ROTATE_MAX_RADIUS the loop steps PY rows,
        // unrolled, so that a filter row's taps are read once, into the slot `i % PY` of
        // registers its next PY - 1 input rows find at constant indices; wider rows read their
        // taps at each use (4 multiply-adds each).
        // Row counters in 32 bits: 64-bit comparisons cost two instructions each.
        let (kh, rotate) = (2 * ry as u32 + 1, R <= ROTATE_MAX_RADIUS);
        let rows = PY as u32 + kh - 1;
        // Rows a loop step takes: PY for the slots' constant indices, else one (a quarter of the
        // code).
        let step = if rotate { PY } else { 1 };
        let mut slots = [[0.0f32; 2 * ROTATE_MAX_RADIUS + 1]; PY];
        let mut base = 0;
        while base < rows {
            unroll!(S < step; [0, 1, 2, 3, 4, 5, 6, 7] {
                let row = base + S as u32;
                if row < rows {
                    if rotate && row < kh {
                        unroll!(J < k; [0, 1, 2, 3, 4, 5, 6] {
                            slots[S][J] = taps.tap_at::<J>(row as usize * k);
                        });
                    }
                    let mut seg = [0.0f32; SEGMENT];
                    let at = ((py + row) * stride + px) as usize / 4;
                    unroll!(Q < (4 + 2 * ra) / 4; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
                        // SAFETY: 16-byte aligned (stride and px are multiples of 4) and inside
                        // the tile: px + 4Q + 3 < px + 4 + 2·RA <= stride and py + row < 8·PY +
                        // 2·ry = tile_h.
                        let v = unsafe { *vectors.add(at + Q) };
                        seg[4 * Q..4 * Q + 4].copy_from_slice(&v.0);
                    });
                    unroll!(OY < PY; [0, 1, 2, 3, 4, 5, 6, 7] {
                        // Filter row i meets this input row for output row OY (none where it
                        // wraps); its taps are in slot (S - OY) mod PY.
                        let i = row.wrapping_sub(OY as u32);
                        if i < kh {
                            unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
                                // J is a constant in each copy; it passes the slots' length only in
                                // copies where `rotate` is false, which must still index in bounds.
                                #[allow(clippy::unnecessary_min_or_max)]
                                let tap = if rotate {
                                    slots[(S + PY - OY) % PY][J.min(2 * ROTATE_MAX_RADIUS)]
                                } else {
                                    taps.tap_at::<J>(i as usize * k)
                                };
                                unroll!(OX < 4; [0, 1, 2, 3] {
                                    acc[OY][OX] = fma(seg[OX + J + ra - rs], tap, acc[OY][OX]);
                                });
                            });
                        }
                    });
                }
            });
            base += step as u32;
        }
    } else if unrolled(R, PY) {
        // Input-row-stationary: each of the 4 + 2R shared rows the patch needs is read once and
        // applied to every output row it feeds. Every loop is unrolled, so every tap's offset is a
        // constant and the taps are FMA operands straight from the constant bank.
        unroll!(ROW < PY + 2 * R; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19] {
            let mut seg = [0.0f32; SEGMENT];
            let row = ((py as usize + ROW) * stride as usize + px as usize) / 4;
            unroll!(Q < (4 + 2 * ra) / 4; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
                // SAFETY: 16-byte aligned (stride and px are multiples of 4) and inside the tile:
                // px + 4Q + 3 < px + 4 + 2·RA <= stride and py + ROW < 8·PY + 2R = tile_h.
                let v = unsafe { *vectors.add(row + Q) };
                seg[4 * Q..4 * Q + 4].copy_from_slice(&v.0);
            });
            unroll!(OY < PY; [0, 1, 2, 3] {
                // Filter row i meets this input row for output row OY.
                let i = ROW as isize - OY as isize;
                if i >= 0 && (i as usize) < k {
                    unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] {
                        let tap = taps.tap(i as usize * k + J);
                        unroll!(OX < 4; [0, 1, 2, 3] {
                            acc[OY][OX] = fma(seg[OX + J * C + ra - rs], tap, acc[OY][OX]);
                        });
                    });
                }
            });
        });
    } else {
        for i in 0..k {
            let mut row_taps = [0.0f32; MAX_FILTER_SIZE as usize];
            unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
                row_taps[J] = taps.tap(i * k + J);
            });
            unroll!(OY < PY; [0, 1, 2, 3] {
                let mut seg = [0.0f32; SEGMENT];
                let row = ((py as usize + OY + i) * stride as usize + px as usize) / 4;
                unroll!(Q < (4 + 2 * ra) / 4; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
                    // SAFETY: 16-byte aligned (stride and px are multiples of 4) and inside the
                    // tile: px + 4Q + 3 < px + 4 + 2·RA <= stride and py + OY + i < tile_h.
                    let v = unsafe { *vectors.add(row + Q) };
                    seg[4 * Q..4 * Q + 4].copy_from_slice(&v.0);
                });
                unroll!(OX < 4; [0, 1, 2, 3] {
                    unroll!(J < k; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] {
                        acc[OY][OX] = fma(seg[OX + J * C + ra - rs], row_taps[J], acc[OY][OX]);
                    });
                });
            });
        }
    }
    if C == 1 {
        // SAFETY: the launch contract; (x, y) is inside the output (checked above).
        unsafe { store_patch(output, g, x, y, c, &acc) };
    } else {
        // Output samples x..x + 4 of a row of `out_width · C`, stored as a gray row that long.
        let mut rows = Geometry {
            out_width: g.out_width * C as u32,
            channels: 1,
            ..*g
        };
        if C == 4 && g.filter_alpha == 0 {
            // x is a multiple of 4, so sample 3 of the patch is alpha: the input sample it is
            // centred on, stored unclamped (the colour samples are clamped here instead).
            rows.clamp = 0;
            unroll!(OY < PY; [0, 1, 2, 3] {
                let at = (py as usize + OY + R) * stride as usize + px as usize + 3 + ra;
                // SAFETY: inside the tile.
                acc[OY][3] = unsafe { *pixels.add(at) };
                if g.clamp != 0 {
                    unroll!(OX < 3; [0, 1, 2] { acc[OY][OX] = clamp_keeping_nan(acc[OY][OX]) });
                }
            });
        }
        // Every output row is computed before any is stored: LLVM would otherwise sink a row's
        // FMAs into its store's bounds check, so the input rows they read stay live until then.
        let acc = acc.map(|row| row.map(computed_here));
        // SAFETY: the launch contract; (x, y) is inside the output (checked above).
        unsafe { store_patch(output, &rows, x, y, 0, &acc) };
    }
}
