//! The `tensor` kernel (`conv_tensor`): 8-bit images on the tensor cores, with exact integer
//! products of the samples and the taps split into signed 8-bit digits.

use crate::device::mma::{mma_u8_s8, mma_u8_s8_k16};
use crate::device::shared::dynamic_shared_mem;
use crate::device::thread::{block_idx_x, block_idx_y, sync_threads, sync_warp, thread_idx_x, thread_idx_y};
use crate::device::{Bytes16, Sample, copy_alpha_tile, fma, is_alpha, out_index, resolve, unroll};
use crate::launch::{
    Geometry, TENSOR_BLOCK, TENSOR_COLUMNS, TENSOR_DIGITS, TENSOR_HALO, TENSOR_MAX_RADIUS, TENSOR_OUT_STRIDE,
    TENSOR_STRIDE, TENSOR_TILE, TENSOR_WINDOW_LEAD, tensor_pairs, tensor_rows,
};
use kernel_macros::kernel;

/// `0x4B40_0000` is 1.5 · 2^23 as `f32`: an accumulator started at this bit pattern holds, after
/// adding any integer |n| < 2^22, the bit pattern of the `f32` 1.5 · 2^23 + n, so the sum becomes
/// a float by one subtraction instead of a conversion instruction.
const ACC_START: u32 = 0x4B40_0000;
/// [`ACC_START`] as `f32`.
const ACC_BIAS: f32 = 12_582_912.0;

/// The `tensor` kernel: an 8-bit image convolved on the tensor cores (`mma.sync` m16n8k32, u8 × s8
/// into `i32`).
///
/// # Method
/// The host scales the taps to 24-bit integers (by a power of two, so the scale is exact) and
/// splits each into [`TENSOR_DIGITS`] signed 8-bit digits. Per digit the products of the 8-bit
/// samples and the digits are summed exactly in `i32` by the tensor cores; the digit sums are
/// combined in `f32` at the end, so the result is as accurate as the `f32` kernels'.
///
/// One MMA computes 16 output rows × 8 output columns for two filter rows and one digit. A is the
/// input: row `m` holds, in its first 16 bytes, the 16 input columns the window of 8 outputs
/// needs (8 + 2r ≤ 16) on the input row of filter row `2p` for output row `m`, and in its last 16
/// the same columns on the next input row (filter row `2p + 1`). B is the Toeplitz matrix of those
/// two filter rows: column `n` holds the taps shifted to output `n`, zero elsewhere. The last
/// filter row (k is odd) has an MMA of K = 16 (m16n8k16), half the work, to itself. A's fragments
/// are 32-bit words of the shared tile, read as they are; B's are the same for every block and
/// come from the host, [`TENSOR_DIGITS`] × 2 words per lane and pair of filter rows, loaded once
/// into registers.
///
/// # Tiling
/// A block of [`TENSOR_BLOCK`] = 32 × 8 threads produces a 128 × 64 output tile of one channel.
/// It loads the input tile, [`TENSOR_COLUMNS`] = 160 columns (the output tile and a 16-byte
/// vector of [`TENSOR_HALO`] each side) × `64 + 2R + 1` rows, as bytes into shared memory with
/// rows [`TENSOR_STRIDE`] apart. In a single-channel image whose rows are whole 16-byte vectors
/// every vector inside the image is one load (a tile wholly inside checks none of them) and only
/// vectors beyond its edges resolve the border byte by byte. In an RGB or RGBA image whose rows
/// are whole words, a tile wholly inside is loaded 4 pixels (3 or 4 words, or one 16-byte
/// vector) per thread and load, keeping the block's channel. Other tiles are loaded byte by byte.
/// Each warp stages its 64 × 16 output bytes in its own area of shared memory and writes
/// them as 16-byte vectors where the output's rows are whole vectors (single channel), else byte
/// by byte, consecutive lanes on consecutive pixels (with constant address steps where the warp's
/// outputs are all inside the image).
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
pub unsafe fn conv_tensor<T: Sample, const R: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: *const u32,
) {
    const P: usize = tensor_pairs(R as u32) as usize;
    const D: usize = TENSOR_DIGITS as usize;
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
        // SAFETY: an RGBA image (launch contract).
        unsafe { copy_alpha_tile(input, output, &g, (ox, oy), TENSOR_TILE, TENSOR_BLOCK) };
        return;
    }

    // The input tile: column 0 is input column x0, row 0 is input row y0.
    let x0 = (ox + g.offset) as i32 - TENSOR_HALO as i32;
    let y0 = (oy + g.offset) as i32 - R as i32;
    let rows = tensor_rows(R as u32);
    let tile = dynamic_shared_mem::<u8>();
    let first = ty * TENSOR_BLOCK.0 + tx;
    let threads = TENSOR_BLOCK.0 * TENSOR_BLOCK.1;
    // The byte the border rule reads for tile position (col, row), or 0 outside the image.
    let resolved = |col: i32, row: i32| -> u8 {
        let xx = resolve(x0 + col, g.in_width as i32, g.border);
        let yy = resolve(y0 + row, g.in_height as i32, g.border);
        if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
            let at = (yy as usize * g.in_width as usize + xx as usize) * channels + c as usize;
            // SAFETY: (xx, yy) is inside the image.
            unsafe { *bytes.add(at) }
        } else {
            // Outside: the zero border, or (border NONE) a position no output uses.
            0
        }
    };
    if g.channels == 1 && g.in_width.is_multiple_of(16) && x0 % 16 == 0 {
        /// Vectors a thread loads before storing any (the most any radius needs, at most 6), so
        /// their latencies overlap.
        const BATCH: usize = ((TENSOR_COLUMNS / 16) * tensor_rows(TENSOR_MAX_RADIUS))
            .div_ceil(TENSOR_BLOCK.0 * TENSOR_BLOCK.1) as usize;
        let per_row = TENSOR_COLUMNS / 16;
        let total = per_row * rows;
        let vectors = tile.cast::<Bytes16>();
        // Whether vector e of the tile lies wholly inside the image (always, in a tile inside).
        let whole =
            x0 >= 0 && y0 >= 0 && x0 as u32 + TENSOR_COLUMNS <= g.in_width && y0 as u32 + rows <= g.in_height;
        let inside = |e: u32| -> bool {
            let (gx, gy) = (x0 + 16 * (e % per_row) as i32, y0 + (e / per_row) as i32);
            whole || (gx >= 0 && gy >= 0 && gx as u32 + 16 <= g.in_width && (gy as u32) < g.in_height)
        };
        if !whole {
            // Vectors beyond the image's edges first, byte by byte with the border resolved.
            let mut e = first;
            while e < total {
                if !inside(e) {
                    let (q, row) = (e % per_row, e / per_row);
                    for b in 0..16 {
                        let col = 16 * q + b;
                        // SAFETY: inside the shared tile.
                        unsafe {
                            *tile.add((row * TENSOR_STRIDE + col) as usize) = resolved(col as i32, row as i32)
                        };
                    }
                }
                e += threads;
            }
        }
        // Sized for the unrolled copies below; those past BATCH vanish.
        let mut batch = [[0u32; 4]; 6];
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
                let (q, row) = (e % per_row, e / per_row);
                // SAFETY: inside the shared tile (row < rows, vector < per_row <= stride / 16).
                unsafe { *vectors.add((row * (TENSOR_STRIDE / 16) + q) as usize) = Bytes16(batch[B]) };
            }
        });
    } else if (g.channels == 3 || g.channels == 4)
        && (g.in_width * g.channels).is_multiple_of(4)
        && x0 % 4 == 0
        && x0 >= 0
        && y0 >= 0
        && x0 as u32 + TENSOR_COLUMNS <= g.in_width
        && y0 as u32 + rows <= g.in_height
    {
        // A tile wholly inside an RGB or RGBA image whose rows are whole words: each thread loads
        // the 12 or 16 interleaved bytes of 4 pixels (as words, or as one 16-byte vector for RGBA
        // rows of whole vectors) and keeps its channel's 4 bytes as one word of the tile (instead
        // of 4 byte loads with the border resolved). Loads go in pairs, both issued before
        // any is stored, so their latencies overlap.
        const LOAD_BATCH: usize = 2;
        let per_row = TENSOR_COLUMNS / 4;
        let total = per_row * rows;
        let vector = g.channels == 4 && g.in_width.is_multiple_of(4);
        let mut e = first;
        while e < total {
            let mut batch = [[0u32; 4]; LOAD_BATCH];
            unroll!(B < LOAD_BATCH; [0, 1] {
                let f = e + B as u32 * threads;
                if f < total {
                    let (q, row) = (f % per_row, f / per_row);
                    let pixel = (y0 as usize + row as usize) * g.in_width as usize + x0 as usize + 4 * q as usize;
                    let at = bytes.wrapping_add(pixel * channels);
                    // SAFETY: the 4 pixels are inside the image (the tile is). Their first byte is
                    // 4-aligned (the row and the tile start on words), and 16-aligned for RGBA
                    // rows of whole vectors (pixel is a multiple of 4); the host's buffers are
                    // 256-byte aligned.
                    batch[B] = if vector {
                        unsafe { Bytes16::load_global(at) }.0
                    } else {
                        let words = at.cast::<u32>();
                        [0, 1, 2, 3].map(|i| if i < channels { unsafe { *words.add(i) } } else { 0 })
                    };
                }
            });
            unroll!(B < LOAD_BATCH; [0, 1] {
                let f = e + B as u32 * threads;
                if f < total {
                    let (q, row) = (f % per_row, f / per_row);
                    // SAFETY: inside the shared tile (row < rows, word q < 40 <= stride / 4).
                    unsafe {
                        *tile.cast::<u32>().add((row * (TENSOR_STRIDE / 4) + q) as usize) =
                            channel_word(batch[B], g.channels, c)
                    };
                }
            });
            e += LOAD_BATCH as u32 * threads;
        }
    } else {
        let mut e = first;
        while e < TENSOR_COLUMNS * rows {
            let (col, row) = (e % TENSOR_COLUMNS, e / TENSOR_COLUMNS);
            // SAFETY: inside the shared tile.
            unsafe { *tile.add((row * TENSOR_STRIDE + col) as usize) = resolved(col as i32, row as i32) };
            e += threads;
        }
    }

    // B fragments: the same for every block, loaded while the tile loads are in flight.
    // Sized for the largest radius, so the unrolled copies past P (which vanish) index inside it.
    let mut b = [[[0u32; 2]; D]; TENSOR_MAX_RADIUS as usize + 1];
    unroll!(I < P; [0, 1, 2, 3, 4] {
        unroll!(J < D; [0, 1, 2] {
            unroll!(H < 2; [0, 1] {
                // SAFETY: inside the `tensor_words(R)` words (launch contract).
                b[I][J][H] = unsafe { *taps.add(((I * D + J) * 2 + H) * 32 + tx as usize) };
            });
        });
    });
    // SAFETY: the last of the `tensor_words(R)` words.
    let scale = f32::from_bits(unsafe { *taps.add(P * D * 64) });
    sync_threads();

    let (lane_g, lane_t) = (tx / 4, tx % 4);
    let (wx, wy) = (64 * (ty % 2), 16 * (ty / 2));
    let words = tile.cast::<u32>().cast_const();
    let stride = TENSOR_STRIDE / 4;
    // Word of this lane's A fragment in the row of filter row 0 for output row g, window 0: the
    // window starts TENSOR_WINDOW_LEAD columns before its first output.
    let lead = TENSOR_HALO - TENSOR_WINDOW_LEAD;
    let base = (wy + lane_g) * stride + (wx + lead) / 4 + lane_t;
    // This warp's staging area, 16 rows of 64 output bytes, as an offset in the shared memory
    // (32 bits where a pointer would hold two registers through the loop).
    let staging_at = TENSOR_STRIDE * rows + ty * 16 * TENSOR_OUT_STRIDE;
    for j in 0..8u32 {
        let mut acc = [[ACC_START; 4]; D];
        // Pairs of filter rows, K = 32.
        unroll!(I < P - 1; [0, 1, 2, 3] {
            let at = (base + 2 * j + 2 * I as u32 * stride) as usize;
            // SAFETY: inside the shared tile: row wy + g + 2I + 1 + 8 < 64 + 2R + 1, and word
            // (wx + 12) / 4 + 2j + t < 40.
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
        let at = (base + 2 * j + 2 * (P as u32 - 1) * stride) as usize;
        // SAFETY: as above, rows wy + g + 2R + 8 < 64 + 2R + 1.
        let a = unsafe { [*words.add(at), *words.add(at + 8 * stride as usize)] };
        unroll!(J < D; [0, 1, 2] {
            mma_u8_s8_k16(a, [b[P - 1][J][0]], &mut acc[J]);
        });
        unroll!(H < 2; [0, 1] {
            // Σ digit sum_d · 256^d (each unbiased exactly), then scaled: two roundings.
            let level = |e: usize| {
                let mut v = 0.0f32;
                unroll!(J < D; [0, 1, 2] {
                    v = fma(v, 256.0, f32::from_bits(acc[D - 1 - J][e]) - ACC_BIAS);
                });
                u16::from(u8::store(v * scale, true))
            };
            let pair = level(2 * H) | level(2 * H + 1) << 8;
            let at = staging_at + (lane_g + 8 * H as u32) * TENSOR_OUT_STRIDE + 8 * j + 2 * lane_t;
            // SAFETY: inside this warp's staging area (row < 16, column < 64), 2-aligned.
            unsafe { *tile.add(at as usize).cast::<u16>() = pair };
        });
    }
    sync_warp();
    // SAFETY: inside the dynamic shared memory (`tensor_shared_bytes`).
    let staging = unsafe { tile.add(staging_at as usize) };
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
    } else if x + 64 <= g.out_width && y + 16 <= g.out_height {
        // The warp's outputs are all inside: lane `tx` stores columns tx and tx + 32 of each row
        // (to its channel's sample), at addresses that advance by constants.
        let step = 32 * channels;
        let row_samples = g.out_width as usize * channels;
        let mut at = out_index(&g, x + tx, y, c);
        unroll!(ROW < 16; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            unroll!(H < 2; [0, 1] {
                // SAFETY: inside the staging area (row < 16, column < 64) and the output (checked).
                unsafe {
                    let v = *staging.add(ROW * TENSOR_OUT_STRIDE as usize + tx as usize + 32 * H);
                    *output.cast::<u8>().add(at + H * step) = v;
                }
            });
            at += row_samples;
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

/// Channel `c`'s bytes of 4 interleaved pixels held in `w` (the first 12 bytes for RGB, all 16 for
/// RGBA, little-endian), as one word: pixel `p`'s byte `p · channels + c` becomes byte `p`.
#[inline(always)]
fn channel_word(w: [u32; 4], channels: u32, c: u32) -> u32 {
    let pair = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
    let byte = |v: u64, bit: u32| (v >> bit) as u32 & 0xff;
    let bytes = if channels == 4 {
        [0, 1, 2, 3].map(|p| byte(u64::from(w[p]), 8 * c))
    } else {
        // Byte 3p + c: in w0 for p = 0, w0..w1 for p = 1, w1..w2 for p = 2, w2 for p = 3.
        [
            byte(u64::from(w[0]), 8 * c),
            byte(pair(w[0], w[1]), 24 + 8 * c),
            byte(pair(w[1], w[2]), 16 + 8 * c),
            byte(u64::from(w[2]), 8 + 8 * c),
        ]
    };
    bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
}
