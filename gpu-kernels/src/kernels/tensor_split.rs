//! The `tensor-f32` kernel (`conv_tensor_split`): `f32` images on the tensor cores, samples and taps
//! each split into an FP16 high and low part, three products per tap.

use crate::device::mma::{mma_f16, mma_f16_k8, split_f16x2};
use crate::device::shared::dynamic_shared_mem;
use crate::device::thread::{
    block_idx_x, block_idx_y, block_idx_z, sync_threads, thread_idx_reread, thread_idx_x, thread_idx_y,
    warp_max,
};
use crate::device::{Bytes16, Sample, copy_alpha_tile, is_alpha, out_index, resolve, unroll};
use crate::launch::{
    Geometry, SPLIT_BLOCK, SPLIT_TILE, SPLIT_WARPS, split_chunks, split_columns, split_lead, split_rows,
    split_stride,
};
use kernel_macros::kernel;

/// Vectors a thread loads before storing any, so their latencies overlap.
const LOAD_BATCH: usize = 4;

/// The `tensor-f32` kernel: an `f32` image convolved on the tensor cores (`mma.sync` m16n8k16,
/// FP16 × FP16 into `f32`).
///
/// # Method
/// Every sample `x` is split into FP16 parts `x ≈ xh + xl` (22 significant bits), and the host
/// does the same with the taps (`w ≈ wh + wl`, scaled by a power of two for the filter). The
/// tensor cores sum `xh·wh + xh·wl + xl·wh` with exact products, in `f32`; the dropped `xl·wl` and
/// the splits err by about 2^-21 of `Σ|w|·max|x|`, within the `f32` kernels' tolerance for every
/// filter of 3 × 3 or more (a 1 × 1 filter's is one rounding; the variant does not offer it). A
/// tile is split unscaled where its largest finite magnitude lies in [2^-3, 2^15), where the
/// splits keep 22 bits of it (the common case: one pass); any other tile is split again, scaled
/// by the power of two that puts its largest magnitude in [2^14, 2^15). The scales are undone at
/// the end. Non-finite samples are left out of the largest magnitude; their outputs are NaN or
/// infinite, and they also reach outputs up to 8 columns beyond their window (through B's zeros).
///
/// One MMA computes 16 output rows × 8 output columns (a *window*) for two filter rows and one
/// 8-column *chunk* of input: K = 16 is the chunk on the input row of filter row `2p`, then the
/// same chunk on the row of filter row `2p + 1`. A is the input; B is the Toeplitz matrix of the
/// two filter rows' taps shifted to each output column (zero elsewhere). A window's `8 + 2R`
/// input columns span [`split_chunks(R)`](crate::launch::split_chunks) chunks; the last filter row
/// (k is odd) has MMAs of K = 8 to itself. B's fragments are the same for every block and come
/// from the host, 4 words per lane per pair of filter rows and chunk.
///
/// # Tiling
/// A block of [`SPLIT_BLOCK`] = 32 × 8 threads produces a 128 × 64 output tile of one channel.
/// It loads the input tile, `128 + 8 · (chunks - 1)` columns from `split_lead(R)` (the radius
/// rounded up to a multiple of 4) left of the output tile × `64 + 2R` rows, 4 samples at a time,
/// and stores them split, as two planes in shared memory: the words of the high parts of samples
/// `2i, 2i + 1` of each row, and the words of their low parts. In a single-channel image whose
/// rows are whole 16-byte vectors, a tile wholly inside the image is loaded as vectors without a
/// check, and a tile at its edges loads the vectors inside it and resolves the border of the
/// others sample by sample; other gray images are loaded sample by sample. The RGB and RGBA
/// entries (`CH` = 3, 4) do the same with their channel's samples of 4 pixels in place of a
/// vector, at any width. The warps' largest
/// magnitudes meet in shared memory behind a barrier, which decides whether the tile is split
/// again.
///
/// # Thread mapping
/// Block `(bx, by, c)` computes tile `(bx, by)` of channel `c`; for the RGB and RGBA entries,
/// block `(bx · CH + c, by)`, so the channels of a tile are neighbouring blocks, run together and
/// read the interleaved tile from DRAM once between them. Warp `w` (= `ty`) computes the 64 × 16
/// outputs at `(64 · (w % 2), 16 · (w / 2))` of the tile.
/// A's rows `g` and `g + 8` (`g` = lane / 4, `t` = lane % 4) are output rows `g` and `g + 8`: a
/// lane's A words for a pair of filter rows and a chunk are 4 loads from each plane, straight
/// into the MMA's registers. Chunk `q` of the warp's `8 + chunks - 1` feeds windows `q - c` for
/// chunks `c` of B. Lane `(g, t)` ends with outputs `(8j + 2t + {0, 1}, g + {0, 8})` of window
/// `j`, stored as 8-byte vectors where the output is single-channel with an even width, else
/// sample by sample.
///
/// `ptx-builder`'s `register_limit` caps `conv_tensor_split_f32_r0` to `_r8` and
/// `conv_tensor_split_c3_f32_r0` to `_r8` at 64 registers (4 blocks per SM).
///
/// # Safety
/// Launch with block [`SPLIT_BLOCK`], [`split_shared_bytes(R)`](crate::launch::split_shared_bytes)
/// bytes of dynamic shared memory and grid `(tiles across, tiles down, channels)` (the RGB and
/// RGBA entries `conv_tensor_split_c<CH>_*`: `(tiles across · CH, tiles down, 1)` and
/// `g.channels == CH`); `g.radius == R`; `input`/`output` as for `constant`, of `f32` samples;
/// `taps` points to the [`split_words(R)`](crate::launch::split_words) words the host builds for this filter, 16-byte
/// aligned.
#[kernel(types(f32), radius(0..=15), consts(CH = 1))]
#[kernel(name = conv_tensor_split_c3, types(f32), radius(0..=15), consts(CH = 3))]
#[kernel(name = conv_tensor_split_c4, types(f32), radius(0..=15), consts(CH = 4))]
pub unsafe fn conv_tensor_split<T: Sample, const R: usize, const CH: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: *const u32,
) {
    /// Chunks of B per window.
    const C: usize = split_chunks(R as u32) as usize;
    /// Chunks of input a warp's 8 windows read on each row.
    const Q: usize = 8 + C - 1;
    /// Pairs of filter rows with two rows (the last row is alone).
    const PAIRS: usize = R;
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let (bx, c) = if CH == 1 {
        (block_idx_x(), block_idx_z())
    } else {
        (block_idx_x() / CH as u32, block_idx_x() % CH as u32)
    };
    let (ox, oy) = (bx * SPLIT_TILE.0, block_idx_y() * SPLIT_TILE.1);
    if is_alpha(&g, c) {
        // SAFETY: an RGBA image (launch contract).
        unsafe { copy_alpha_tile(input, output, &g, (ox, oy), SPLIT_TILE, SPLIT_BLOCK) };
        return;
    }
    let samples = input.cast::<f32>();
    let channels = if CH == 1 { g.channels as usize } else { CH };

    // The input tile: column 0 is input column x0, row 0 is input row y0.
    let x0 = (ox + g.offset) as i32 - split_lead(R as u32) as i32;
    let y0 = (oy + g.offset) as i32 - R as i32;
    let (columns, rows, stride) = (
        split_columns(R as u32),
        split_rows(R as u32),
        split_stride(R as u32),
    );
    let per_row = columns / 4;
    let total = per_row * rows;
    // One word per warp (the warps' largest magnitudes; first, so its address is the shared
    // window's, which costs no register), then the high parts' plane, then the low parts' (words
    // of two halves, `stride` words a row).
    let maxima = dynamic_shared_mem::<u32>();
    // SAFETY: inside the dynamic shared memory (`split_shared_bytes`).
    let (high_plane, low_plane) = unsafe {
        let high = maxima.add(SPLIT_WARPS as usize);
        (high, high.add((stride * rows) as usize))
    };
    let first = ty * SPLIT_BLOCK.0 + tx;
    let threads = SPLIT_BLOCK.0 * SPLIT_BLOCK.1;
    // Stores tile samples 4q .. 4q + 4 of row `row`, times `scale`, as their FP16 parts, and
    // raises `largest` to their largest finite magnitude's bits plus 2^23: non-finite magnitudes
    // (bits from 0x7F80_0000) become negative as `i32` and never win.
    let put = |row: u32, q: u32, v: [f32; 4], scale: f32, largest: &mut i32| {
        for x in v {
            *largest = (*largest).max(((x.to_bits() & 0x7FFF_FFFF) + 0x0080_0000) as i32);
        }
        let [a, b, c2, d] = v.map(|x| x * scale);
        let ((h01, l01), (h23, l23)) = (split_f16x2(a, b), split_f16x2(c2, d));
        let at = (row * stride + 2 * q) as usize;
        // SAFETY: words 2q, 2q + 1 of the row in each plane (2q + 1 < columns / 2 <= stride),
        // 8-aligned (stride is even).
        unsafe {
            *high_plane.add(at).cast::<u64>() = u64::from(h01) | u64::from(h23) << 32;
            *low_plane.add(at).cast::<u64>() = u64::from(l01) | u64::from(l23) << 32;
        }
    };
    // The sample the border rule reads for tile position (col, row), or 0 outside the image.
    let resolved = |col: u32, row: u32| -> f32 {
        let xx = resolve(x0 + col as i32, g.in_width as i32, g.border);
        let yy = resolve(y0 + row as i32, g.in_height as i32, g.border);
        if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
            let at = (yy as usize * g.in_width as usize + xx as usize) * channels + c as usize;
            // SAFETY: (xx, yy) is inside the image.
            unsafe { *samples.add(at) }
        } else {
            // Outside: the zero border, or (border NONE) a position no output uses.
            0.0
        }
    };
    // Gray rows of whole vectors from the tile's first column on, and every RGB or RGBA image.
    let vector_loads = CH > 1 || (g.channels == 1 && g.in_width.is_multiple_of(4) && x0 % 4 == 0);
    // This block's channel of the 4 pixels from pixel `pixel` on (inside the image, the callers
    // check): for gray one vector, 16-aligned (the vector's column and the width are multiples
    // of 4; the host's buffers are 256-byte aligned); for RGB and RGBA 4 samples CH apart.
    let load_pixels = |pixel: usize| -> [u32; 4] {
        if CH == 1 {
            // SAFETY: as above.
            unsafe { Bytes16::load_global(samples.add(pixel).cast::<u8>()) }.0
        } else {
            // SAFETY: as above, c < CH.
            [0, 1, 2, 3].map(|p| unsafe { *samples.add((pixel + p) * CH + c as usize) }.to_bits())
        }
    };
    // Whether the tile lies wholly inside the image.
    let whole = x0 >= 0 && y0 >= 0 && x0 as u32 + columns <= g.in_width && y0 as u32 + rows <= g.in_height;
    // Whether vector e of the tile is one load (used only for tiles not wholly inside).
    let inside = |e: u32| -> bool {
        let (gx, gy) = (x0 + 4 * (e % per_row) as i32, y0 + (e / per_row) as i32);
        vector_loads && gx >= 0 && gy >= 0 && gx as u32 + 4 <= g.in_width && (gy as u32) < g.in_height
    };
    // Fills both planes with the tile times `scale`: the vectors `inside` says are one load, the
    // rest sample by sample with the border resolved. First unscaled, which is right whenever
    // the tile's largest finite magnitude is in [2^-3, 2^15) (the common case: the splits keep
    // 22 bits of it); else again, scaled by 2^(14 - E) for its largest magnitude 2^E · 1.m (a
    // biased exponent kept inside the normal range, so its inverse is normal too). The choice is
    // the same for the whole block.
    // The tile's largest finite magnitude (bits), from the warps' area once it is written.
    let tile_top = || -> u32 {
        // SAFETY: the warps' area, written before a barrier.
        (0..SPLIT_WARPS).fold(0, |m, w| m.max(unsafe { *maxima.add(w as usize) }))
    };
    // The biased exponent of the tile's scale for its largest magnitude `top`: 127 (a scale of 1)
    // where the unscaled split is right.
    let scale_exponent = |top: u32| -> u32 {
        if top == 0 || (0x3E00_0000..0x4700_0000).contains(&top) {
            127
        } else {
            (268 - (top >> 23) as i32).clamp(1, 253) as u32
        }
    };
    let (mut scale, mut rescaled) = (1.0f32, false);
    loop {
        // Bits of the largest finite magnitude this thread stored, plus 2^23 (0: none).
        let mut largest = 0i32;
        if !(vector_loads && whole) {
            let mut e = first;
            while e < total {
                let (q, row) = (e % per_row, e / per_row);
                let v = if inside(e) {
                    let pixel =
                        (y0 + row as i32) as usize * g.in_width as usize + (x0 + 4 * q as i32) as usize;
                    load_pixels(pixel).map(f32::from_bits)
                } else {
                    [0, 1, 2, 3].map(|i| resolved(4 * q + i, row))
                };
                put(row, q, v, scale, &mut largest);
                e += threads;
            }
        } else {
            // A tile wholly inside the image: every vector is one load, none is checked.
            let origin = y0 as usize * g.in_width as usize + x0 as usize;
            let mut e0 = first;
            while e0 < total {
                let mut batch = [[0u32; 4]; LOAD_BATCH];
                unroll!(B < LOAD_BATCH; [0, 1, 2, 3] {
                    let e = e0 + B as u32 * threads;
                    if e < total {
                        // 4 pixels inside the image (the tile is).
                        batch[B] = load_pixels(origin + (e / per_row) as usize * g.in_width as usize + 4 * (e % per_row) as usize);
                    }
                });
                unroll!(B < LOAD_BATCH; [0, 1, 2, 3] {
                    let e = e0 + B as u32 * threads;
                    if e < total {
                        put(e / per_row, e % per_row, batch[B].map(f32::from_bits), scale, &mut largest);
                    }
                });
                e0 += LOAD_BATCH as u32 * threads;
            }
        }
        if rescaled {
            break;
        }
        let warp_largest = warp_max((largest as u32).saturating_sub(0x0080_0000));
        if tx == 0 {
            // SAFETY: word `ty` of the warps' area.
            unsafe { *maxima.add(ty as usize) = warp_largest };
        }
        sync_threads();
        let exponent = scale_exponent(tile_top());
        if exponent == 127 {
            break;
        }
        (scale, rescaled) = (f32::from_bits(exponent << 23), true);
        sync_threads();
    }

    // The B fragments of pair `pair`, for every chunk.
    let fragments = taps.cast::<Bytes16>();
    let load_b = |pair: usize| -> [[u32; 4]; 5] {
        let mut b = [[0u32; 4]; 5];
        unroll!(K < C; [0, 1, 2, 3, 4] {
            // SAFETY: inside the `split_words(R)` words (launch contract), 16-byte aligned.
            b[K] = unsafe { *fragments.add((pair * C + K) * 32 + tx as usize) }.0;
        });
        b
    };
    sync_threads();

    let (lane_g, lane_t) = (tx / 4, tx % 4);
    let (wx, wy) = (64 * (ty % 2), 16 * (ty / 2));
    let (high_words, low_words) = (high_plane.cast_const(), low_plane.cast_const());
    // This lane's word of chunk `q` of the warp in tile row `wy + g + row`: samples
    // `wx + 8q + 2t, +1`.
    let base = ((wy + lane_g) * stride + wx / 2 + lane_t) as usize;
    // This lane's words of chunk `q` in row `row` of the rows starting at word `at`.
    let load_a = |at: usize, row: usize, q: usize| -> [u32; 2] {
        let at = at + row * stride as usize + 4 * q;
        // SAFETY: inside the planes: row wy + g + 2p + row < 64 + 2R (the callers' rows), word
        // wx / 2 + 4q + t < 32 + 4 · (8 + C - 1) = columns / 2.
        unsafe { [*high_words.add(at), *low_words.add(at)] }
    };
    let mut acc = [[0.0f32; 4]; 8];
    // The three products of A's chunk I (`high`, `low`) with B's chunks (`b`; `$h`, `$l` are the
    // high and low parts of chunk `$k`), each over the windows the chunk feeds (window I - K, if
    // there is one: the difference wraps when K > I), so consecutive MMAs add to different windows.
    macro_rules! products {
        ($mma:ident, $high:expr, $low:expr, |$k:ident| $h:expr, $l:expr) => {
            unroll!(K < C; [0, 1, 2, 3, 4] {
                if I.wrapping_sub(K) < 8 {
                    let $k = K;
                    $mma($high, $h, &mut acc[I.wrapping_sub(K) % 8]);
                }
            });
            unroll!(K < C; [0, 1, 2, 3, 4] {
                if I.wrapping_sub(K) < 8 {
                    let $k = K;
                    $mma($high, $l, &mut acc[I.wrapping_sub(K) % 8]);
                }
            });
            unroll!(K < C; [0, 1, 2, 3, 4] {
                if I.wrapping_sub(K) < 8 {
                    let $k = K;
                    $mma($low, $h, &mut acc[I.wrapping_sub(K) % 8]);
                }
            });
        };
    }
    // Pairs of filter rows 2p, 2p + 1: K = 16. A's rows g and g + 8 are output rows g and g + 8;
    // `at` is the lane's word in the row of filter row 2p for output row g.
    let mut at = base;
    // Empty for radius 0, whose one filter row is the last.
    #[allow(clippy::reversed_empty_ranges)]
    for p in 0..PAIRS {
        let b = load_b(p);
        unroll!(I < Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
            let (r0, r8) = (load_a(at, 0, I), load_a(at, 8, I));
            let (r1, r9) = (load_a(at, 1, I), load_a(at, 9, I));
            let high = [r0[0], r8[0], r1[0], r9[0]];
            let low = [r0[1], r8[1], r1[1], r9[1]];
            products!(mma_f16, high, low, |k| [b[k][0], b[k][1]], [b[k][2], b[k][3]]);
        });
        at += 2 * stride as usize;
    }
    // The last filter row, 2R, alone: K = 8.
    let b = load_b(R);
    unroll!(I < Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
        let (r0, r8) = (load_a(at, 0, I), load_a(at, 8, I));
        let (high, low) = ([r0[0], r8[0]], [r0[1], r8[1]]);
        products!(mma_f16_k8, high, low, |k| [b[k][0]], [b[k][2]]);
    });

    // SAFETY: the last of the `split_words(R)` words.
    let unscale_taps = f32::from_bits(unsafe { *taps.add((R + 1) * C * 128) });
    // One factor for both scales (the tile's again from the warps' area, which keeps a register
    // free during the MMAs): it leaves the range of `f32` only where the results do.
    let unscale = f32::from_bits((254 - scale_exponent(tile_top())) << 23);
    let factor = unscale * unscale_taps;
    let clamp = g.clamp != 0;
    let out = output.cast::<f32>();
    let pairs = g.channels == 1 && g.out_width.is_multiple_of(2);
    // The lane's outputs, from the thread index read again (nothing derived from it was kept
    // through the MMAs).
    let (tx, ty) = thread_idx_reread();
    let (lane_g, lane_t, wx, wy) = (tx / 4, tx % 4, 64 * (ty % 2), 16 * (ty / 2));
    unroll!(J < 8; [0, 1, 2, 3, 4, 5, 6, 7] {
        let x = ox + wx + 8 * J as u32 + 2 * lane_t;
        unroll!(H < 2; [0, 1] {
            let y = oy + wy + lane_g + 8 * H as u32;
            let v = [acc[J][2 * H], acc[J][2 * H + 1]].map(|a| f32::store(a * factor, clamp));
            if y < g.out_height {
                if pairs && x + 1 < g.out_width {
                    // SAFETY: two samples inside the output, 8-aligned (x and the width are even).
                    unsafe {
                        *out.add(out_index(&g, x, y, 0)).cast::<u64>() =
                            u64::from(v[0].to_bits()) | u64::from(v[1].to_bits()) << 32
                    };
                } else {
                    unroll!(E < 2; [0, 1] {
                        if x + (E as u32) < g.out_width {
                            // SAFETY: inside the output.
                            unsafe { *out.add(out_index(&g, x + E as u32, y, c)) = v[E] };
                        }
                    });
                }
            }
        });
    });
}
