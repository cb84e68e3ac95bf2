//! The `tensor` kernel (`conv_tensor`): 8-bit images on the tensor cores, with the samples exact in
//! half precision and each tap split into two half-precision parts.

use crate::device::mma::{bytes_to_f16x2, load_matrix_x2, mma_f16, shared_address, store_shared_8};
use crate::device::shared::dynamic_shared_mem;
use crate::device::thread::{block_idx_x, block_idx_y, sync_threads, sync_warp, thread_idx_x, thread_idx_y};
use crate::device::{Bytes16, Sample, is_alpha, out_index, resolve, store_sample, unroll};
use crate::launch::{
    Geometry, TENSOR_BLOCK, TENSOR_COLUMNS, TENSOR_HALO, TENSOR_MAX_RADIUS, TENSOR_OUT_STRIDE, TENSOR_SHIFT,
    TENSOR_STRIDE, TENSOR_TILE, TENSOR_WINDOW_LEAD, tensor_rows,
};
use kernel_macros::kernel;

/// The `tensor` kernel: an 8-bit image convolved on the tensor cores (`mma.sync` m16n8k16, `f16`
/// products summed in `f32`).
///
/// # Method
/// Sample levels 0..255 are exact in `f16`. The host scales the taps by a power of two (so the
/// scale is exact) and splits each into a high `f16` and the `f16` of what it leaves, 22
/// significant bits together. The products of samples and parts are exact in the tensor cores'
/// `f32` sums, which are as accurate as the `f32` kernels'.
///
/// One MMA computes 16 output rows × 8 output columns for one filter row and one part. A is the
/// input: row `m` holds the 16 input columns the window of 8 outputs needs (8 + 2r ≤ 16) on the
/// input row of that filter row for output row `m`. B is the Toeplitz matrix of the filter row:
/// column `n` holds the taps shifted to output `n`, zero elsewhere. A's fragments come from the
/// shared tile by `ldmatrix`, each 8-column block once (a window's right half is the next one's
/// left half); B's are the same for every block and come from the host, 2 words per lane, part
/// and filter row, loaded once into registers.
///
/// # Tiling
/// A block of [`TENSOR_BLOCK`] = 32 × 8 threads produces a 128 × 64 output tile of one channel.
/// It loads the input tile, [`TENSOR_COLUMNS`] = 160 columns (the output tile and a 16-byte
/// vector of [`TENSOR_HALO`] each side) × `64 + 2R` rows, into shared memory as `f16`, rows
/// [`TENSOR_STRIDE`] apart and shifted right by [`TENSOR_SHIFT`] columns. In a single-channel
/// image whose rows are whole 16-byte vectors every vector inside the image is one load and only
/// vectors beyond its edges resolve the border byte by byte; other images are loaded byte by
/// byte. Each warp stages its 64 × 16 output bytes in its own area of shared memory and writes
/// them as 16-byte vectors where the output's rows are whole vectors (single channel), else byte
/// by byte, consecutive lanes on consecutive pixels.
///
/// # Thread mapping
/// Warp `w` (= `ty`) computes the 64 × 16 outputs at `(64 · (w % 2), 16 · (w / 2))` of the tile,
/// one window of 8 columns at a time; lane `(g, t)` = `(tx / 4, tx % 4)` ends with outputs
/// `(8j + 2t + {0, 1}, g + {0, 8})` of window `j`. The channels of a tile are neighbouring blocks.
///
/// # Safety
/// Launch with block [`TENSOR_BLOCK`], [`tensor_shared_bytes(R)`](crate::launch::tensor_shared_bytes)
/// bytes of dynamic shared memory and grid `(tiles across · channels, tiles down, 1)`;
/// `g.radius == R`; `input`/`output` as for `constant`; `taps` points to the
/// [`tensor_words(R)`](crate::launch::tensor_words) words the host builds for this filter.
#[kernel(types(u8), radius(0..=4))]
pub unsafe fn conv_tensor<T: Sample, const R: usize>(input: *const T, output: *mut T, g: Geometry, taps: *const u32) {
    const K: usize = 2 * R + 1;
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let (bx, c) = if g.channels == 1 {
        (block_idx_x(), 0)
    } else {
        (block_idx_x() / g.channels, block_idx_x() % g.channels)
    };
    let (ox, oy) = (bx * TENSOR_TILE.0, block_idx_y() * TENSOR_TILE.1);
    let bytes = input.cast::<u8>();
    let channels = g.channels as usize;
    if is_alpha(&g, c) {
        // RGBA's alpha is copied: one output row per warp step, one pixel per lane.
        let mut y = oy + ty;
        while y < (oy + TENSOR_TILE.1).min(g.out_height) {
            let mut x = ox + tx;
            while x < (ox + TENSOR_TILE.0).min(g.out_width) {
                let at = ((y + g.offset) as usize * g.in_width as usize + (x + g.offset) as usize) * channels + 3;
                // SAFETY: (x + offset, y + offset) is inside the input; alpha is stored as read.
                unsafe { store_sample(output, &g, x, y, c, T::load(input.add(at))) };
                x += TENSOR_BLOCK.0;
            }
            y += TENSOR_BLOCK.1;
        }
        return;
    }

    // The input tile: column 0 is input column x0, row 0 is input row y0; tile position
    // (col, row) is the f16 at byte row · STRIDE + 2 · (col + SHIFT) of shared memory.
    let x0 = (ox + g.offset) as i32 - TENSOR_HALO as i32;
    let y0 = (oy + g.offset) as i32 - R as i32;
    let rows = tensor_rows(R as u32);
    let shared = dynamic_shared_mem::<u8>();
    let tile = shared_address(shared);
    let at_tile = |col: u32, row: u32| tile + row * TENSOR_STRIDE + 2 * (col + TENSOR_SHIFT);
    let first = ty * TENSOR_BLOCK.0 + tx;
    let threads = TENSOR_BLOCK.0 * TENSOR_BLOCK.1;
    // Stores the level the border rule reads for tile position (col, row) (0 outside the image).
    let store_resolved = |col: u32, row: u32| {
        let xx = resolve(x0 + col as i32, g.in_width as i32, g.border);
        let yy = resolve(y0 + row as i32, g.in_height as i32, g.border);
        let level = if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
            let at = (yy as usize * g.in_width as usize + xx as usize) * channels + c as usize;
            // SAFETY: (xx, yy) is inside the image.
            unsafe { *bytes.add(at) }
        } else {
            // Outside: the zero border, or (border NONE) a position no output uses.
            0
        };
        let half = bytes_to_f16x2::<0x4140>(u32::from(level)) as u16;
        // SAFETY: the tile position is inside the shared tile (2-aligned).
        unsafe { core::arch::asm!("st.shared.u16 [{p}], {v};", p = in(reg32) at_tile(col, row), v = in(reg16) half, options(nostack)) };
    };
    if g.channels == 1 && g.in_width.is_multiple_of(16) && x0 % 16 == 0 {
        /// Vectors a thread loads before storing any (the most any radius needs), so their
        /// latencies overlap.
        const BATCH: usize = ((TENSOR_COLUMNS / 16) * tensor_rows(TENSOR_MAX_RADIUS))
            .div_ceil(TENSOR_BLOCK.0 * TENSOR_BLOCK.1) as usize;
        let per_row = TENSOR_COLUMNS / 16;
        let total = per_row * rows;
        // Whether vector e of the tile lies wholly inside the image (always, in a tile inside).
        let whole = x0 >= 0 && y0 >= 0 && x0 as u32 + TENSOR_COLUMNS <= g.in_width && y0 as u32 + rows <= g.in_height;
        let inside = |e: u32| -> bool {
            let (gx, gy) = (x0 + 16 * (e % per_row) as i32, y0 + (e / per_row) as i32);
            whole || (gx >= 0 && gy >= 0 && gx as u32 + 16 <= g.in_width && (gy as u32) < g.in_height)
        };
        if !whole {
            // Vectors beyond the image's edges first, byte by byte with the border resolved.
            let mut e = first;
            while e < total {
                if !inside(e) {
                    for b in 0..16 {
                        store_resolved(16 * (e % per_row) + b, e / per_row);
                    }
                }
                e += threads;
            }
        }
        let mut batch = [[0u32; 4]; BATCH];
        unroll!(B < BATCH; [0, 1, 2, 3, 4, 5] {
            let e = first + B as u32 * threads;
            if e < total && inside(e) {
                let at = (y0 + (e / per_row) as i32) as usize * g.in_width as usize + (x0 + 16 * (e % per_row) as i32) as usize;
                // SAFETY: 16 bytes inside the image, 16-aligned (the vector's column and the
                // width are multiples of 16; the host's buffers are 256-byte aligned).
                batch[B] = unsafe { Bytes16::load_global(bytes.add(at)) }.0;
            }
        });
        unroll!(B < BATCH; [0, 1, 2, 3, 4, 5] {
            let e = first + B as u32 * threads;
            if e < total && inside(e) {
                let at = at_tile(16 * (e % per_row), e / per_row);
                unroll!(W < 4; [0, 1, 2, 3] {
                    let word = batch[B][W];
                    let pair = [bytes_to_f16x2::<0x4140>(word), bytes_to_f16x2::<0x4342>(word)];
                    // SAFETY: 4 pixels of a row of the shared tile, 8-aligned (STRIDE and the
                    // shifted column are multiples of 8 bytes).
                    unsafe { store_shared_8(at + 8 * W as u32, pair) };
                });
            }
        });
    } else {
        let mut e = first;
        while e < TENSOR_COLUMNS * rows {
            store_resolved(e % TENSOR_COLUMNS, e / TENSOR_COLUMNS);
            e += threads;
        }
    }

    // B fragments: the same for every block, loaded while the tile loads are in flight.
    let mut b = [[[0u32; 2]; 2]; K];
    unroll!(I < K; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
        unroll!(P < 2; [0, 1] {
            unroll!(H < 2; [0, 1] {
                // SAFETY: inside the `tensor_words(R)` words (launch contract).
                b[I][P][H] = unsafe { *taps.add(((I * 2 + P) * 2 + H) * 32 + tx as usize) };
            });
        });
    });
    // SAFETY: the last of the `tensor_words(R)` words.
    let scale = f32::from_bits(unsafe { *taps.add(K * 128) });
    sync_threads();

    let (wx, wy) = (64 * (ty % 2), 16 * (ty / 2));
    // This lane's row address for the matrix loads of an 8-column block: row l % 8 of rows
    // 8 · (l / 8 % 2) .. of the block (lanes 16.. repeat lanes 0..16, whose addresses are used);
    // window 0 starts TENSOR_WINDOW_LEAD columns before the warp's first output.
    let lane_row = at_tile(TENSOR_HALO - TENSOR_WINDOW_LEAD + wx, wy + tx % 16);
    // This warp's staging area: 16 rows of 64 output bytes.
    let staging_at = TENSOR_STRIDE * rows + ty * 16 * TENSOR_OUT_STRIDE;
    // SAFETY: inside the dynamic shared memory (`tensor_shared_bytes`).
    let staging = unsafe { shared.add(staging_at as usize) };
    let (lane_g, lane_t) = (tx / 4, tx % 4);
    // Window j's columns 8..16 are window j + 1's columns 0..8: each filter row's right half of
    // the A fragment stays in registers as the next window's left half, so every 8-column block
    // is read from shared memory once.
    let mut left = [[0u32; 2]; K];
    unroll!(I < K; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
        // SAFETY: the whole warp is here; rows wy + 16 + I <= 64 + 2R and columns 12 + wx + 8
        // <= 160 are inside the tile, written before the barrier.
        left[I] = unsafe { load_matrix_x2(lane_row + I as u32 * TENSOR_STRIDE) };
    });
    // Unrolled, so keeping the right halves costs no register moves.
    unroll!(WINDOW < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
        let j = WINDOW as u32;
        // Two sums, the high parts' and the low parts', so two chains of MMAs are in flight.
        let mut acc = [[0.0f32; 4]; 2];
        unroll!(I < K; [0, 1, 2, 3, 4, 5, 6, 7, 8] {
            // SAFETY: as above, columns 12 + wx + 8j + 16 <= 160.
            let right = unsafe { load_matrix_x2(lane_row + I as u32 * TENSOR_STRIDE + 16 * (j + 1)) };
            let a = [left[I][0], left[I][1], right[0], right[1]];
            unroll!(P < 2; [0, 1] {
                mma_f16(a, b[I][P], &mut acc[P]);
            });
            left[I] = right;
        });
        unroll!(H < 2; [0, 1] {
            let level = |e: usize| u16::from(u8::store((acc[0][e] + acc[1][e]) * scale, true));
            let pair = level(2 * H) | level(2 * H + 1) << 8;
            let at = (lane_g + 8 * H as u32) * TENSOR_OUT_STRIDE + 8 * j + 2 * lane_t;
            // SAFETY: inside this warp's staging area (row < 16, column < 64), 2-aligned.
            unsafe { *staging.add(at as usize).cast::<u16>() = pair };
        });
    });
    sync_warp();
    let (x, y) = (ox + wx, oy + wy);
    if g.channels == 1 && g.out_width.is_multiple_of(16) && x + 64 <= g.out_width {
        unroll!(I < 2; [0, 1] {
            let e = tx + 32 * I as u32;
            let (row, q) = (e / 4, e % 4);
            if y + row < g.out_height {
                // SAFETY: 16 bytes of the staging area, 16-aligned (stride and base multiples of
                // 16), and of the output: inside (checked) and 16-aligned (x and the width are
                // multiples of 16).
                unsafe {
                    let v = *staging.add((row * TENSOR_OUT_STRIDE + 16 * q) as usize).cast::<Bytes16>();
                    v.store_global(output.cast::<u8>().add(out_index(&g, x + 16 * q, y + row, 0)));
                }
            }
        });
    } else {
        let mut e = tx;
        while e < 16 * 64 {
            let (row, col) = (e / 64, e % 64);
            if x + col < g.out_width && y + row < g.out_height {
                // SAFETY: inside the staging area and the output.
                unsafe {
                    let v = *staging.add((row * TENSOR_OUT_STRIDE + col) as usize);
                    *output.cast::<u8>().add(out_index(&g, x + col, y + row, c)) = v;
                }
            }
            e += 32;
        }
    }
}
