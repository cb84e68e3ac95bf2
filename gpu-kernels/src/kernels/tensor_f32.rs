//! The `tensor-f32` kernel (`conv_tensor_f32`): `f32` images on the tensor cores, samples and taps
//! each split into an FP16 high and low part, three products per tap.

pub use launch::*;

/// The launch (entry name, block, tile, shared memory, register limit), larger than the other
/// kernels': its own file beside this one, compiled for every target.
mod launch;

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::mma::{mma_f16, mma_f16_k8, split_f16x2},
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_idx_x, block_idx_y, sync_threads, thread_idx_reread, thread_idx_x, thread_idx_y, warp_max,
    },
    crate::device::{
        Bytes16, Sample, Store, batch_image, copy_alpha_tile, is_alpha, out_index, resolve, unroll,
    },
    crate::launch::Geometry,
    kernel_macros::kernel,
    store::store_colour_tile,
};

#[cfg(target_arch = "nvptx64")]
mod store;

#[cfg(target_arch = "nvptx64")]
/// Runs of 4 pixels a gray thread loads before storing any, so their latencies overlap.
const LOAD_BATCH: usize = 4;
#[cfg(target_arch = "nvptx64")]
/// The same for RGB and RGBA threads, which load every channel of a run.
const COLOUR_BATCH: usize = 2;

#[cfg(target_arch = "nvptx64")]
/// The three products of A's chunk I (`high`, `low`) with B's chunks (`b`; `$h`, `$l` are the
/// high and low parts of chunk `$k`) into the accumulators `$acc`, each over the windows the chunk
/// feeds (window I - K, if there is one: the difference wraps when K > I), so consecutive MMAs
/// add to different windows.
macro_rules! products {
    ($acc:ident, $mma:ident, $high:expr, $low:expr, |$k:ident| $h:expr, $l:expr) => {
        unroll!(K < C; [0, 1, 2, 3, 4] {
            if I.wrapping_sub(K) < 8 {
                let $k = K;
                $mma($high, $h, &mut $acc[I.wrapping_sub(K) % 8]);
            }
        });
        unroll!(K < C; [0, 1, 2, 3, 4] {
            if I.wrapping_sub(K) < 8 {
                let $k = K;
                $mma($high, $l, &mut $acc[I.wrapping_sub(K) % 8]);
            }
        });
        unroll!(K < C; [0, 1, 2, 3, 4] {
            if I.wrapping_sub(K) < 8 {
                let $k = K;
                $mma($low, $h, &mut $acc[I.wrapping_sub(K) % 8]);
            }
        });
    };
}

#[cfg(target_arch = "nvptx64")]
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
/// input columns span [`chunks(R)`] chunks; the last filter row
/// (k is odd) has MMAs of K = 8 to itself. B's fragments are the same for every block and come
/// from the host, 4 words per lane per pair of filter rows and chunk.
///
/// A filter larger than 31 × 31 runs as [`Geometry::blocks`] blocks of its taps (the
/// `tensor-f32-blocks` variant), each of radius `R` with its centre shifted from the output
/// pixel's: the block loops over them, loading (and splitting) the input tile each block reads
/// and adding its products to the same accumulators, so the outputs are stored once.
///
/// # Tiling
/// A block filters [`planes(CH, R)`] channels: a gray block
/// its one; an RGB or RGBA block (`CH` = 3, 4) every colour channel of its tile (RGBA's alpha is
/// copied) up to [`COLOUR_MAX_RADIUS`], so each
/// line of the interleaved tile crosses from L2 to the SM once, and beyond it one channel. A block
/// of one channel has 32 × 8 threads and a 128 × 64 output tile; of three, 32 × 12 threads and a
/// 128 × 32 tile. It loads the input tile, `128 + 8 · (chunks - 1)` columns from `lead(R)`
/// (the radius rounded up to a multiple of 4) left of the output tile × the tile's rows + `2R`,
/// 4 pixels at a time, and stores each filtered channel split, as two planes in shared memory: the
/// words of the high parts of samples `2i, 2i + 1` of each row, and the words of their low parts.
/// A tile wholly inside the image is loaded without a check: 4 gray pixels as one vector where
/// the image's rows and the tile's first column are whole 16-byte vectors, 4 RGBA pixels as 4
/// vectors, 4 RGB pixels as 3 where the rows and the first column are multiples of 4 pixels, and
/// otherwise (and for a block of one colour channel) sample by sample. A tile at the image's
/// edges loads the runs inside it so and resolves the border of the others sample by sample. The warps'
/// largest magnitudes of each channel meet in shared memory behind a barrier, which decides
/// whether that channel's tile is split again.
///
/// # Thread mapping
/// Block `(bx, by)` computes tile `(bx, by)`, or for a colour block of one channel block
/// `(bx · CH + c, by)` channel `c` of it, so the channels of a tile are neighbouring blocks. Warp
/// `w` (= `ty`) of a block of one channel computes the 64 × 16 outputs at
/// `(64 · (w % 2), 16 · (w / 2))` of the tile; of three, those at `(64 · (s % 2), 16 · (s / 2))`,
/// `s = w % 4`, of channel `w / 4`.
/// A's rows `g` and `g + 8` (`g` = lane / 4, `t` = lane % 4) are output rows `g` and `g + 8`: a
/// lane's A words for a pair of filter rows and a chunk are 4 loads from each plane, straight
/// into the MMA's registers. Chunk `q` of the warp's `8 + chunks - 1` feeds windows `q - c` for
/// chunks `c` of B. Lane `(g, t)` ends with outputs `(8j + 2t + {0, 1}, g + {0, 8})` of window
/// `j`, stored as 8-byte vectors where the output is single-channel with an even width, else
/// sample by sample; a block of three channels stages them in shared memory and writes whole
/// pixels ([`store_colour_tile`]; written sample by sample from three warps, RGB at k=3 took
/// 2.4× as long, measured 2026-11-24).
///
/// Register limits: [`max_registers`].
///
/// # Safety
/// With `P = planes(CH, R)`: launch with block [`block(P)`],
/// [`shared_bytes(R, P)`] bytes of dynamic shared memory
/// and grid `(tiles across · (CH if P = 1 else 1), tiles down, 1)` of
/// [`tile(P)`] tiles; `g.channels == CH`; `g.radius == R`;
/// `input`/`output` as for `constant`, of `f32` samples; `taps` points to the
/// [`block_words(R)`] words the host builds for each of the filter's `max(g.blocks, 1)` blocks,
/// 16-byte aligned.
#[kernel(types(f32), radius(0..=15), consts(CH = 1), max_registers = max_registers(R, CH))]
#[kernel(name = conv_tensor_f32_c3, types(f32), radius(0..=15), consts(CH = 3), max_registers = max_registers(R, CH))]
#[kernel(name = conv_tensor_f32_c4, types(f32), radius(0..=15), consts(CH = 4), max_registers = max_registers(R, CH))]
pub unsafe fn conv_tensor_f32<T: Sample, const R: usize, const CH: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: *const u32,
) {
    /// Chunks of B per window.
    const C: usize = chunks(R as u32) as usize;
    /// Chunks of input a warp's 8 windows read on each row.
    const Q: usize = 8 + C - 1;
    /// Pairs of filter rows with two rows (the last row is alone).
    const PAIRS: usize = R;
    /// Channels the block filters.
    const PLANES: usize = planes(CH as u32, R as u32) as usize;
    /// Warps of the block, and of each filtered channel.
    const WARPS: u32 = block(PLANES as u32).1;
    const CHANNEL_WARPS: u32 = WARPS / PLANES as u32;
    const TILE: (u32, u32) = tile(PLANES as u32);
    // SAFETY: the launch contract: grid z holds the batch's images, the buffers every image.
    let (input, output, _) = unsafe { batch_image(input, output, &g, 1) };
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    // The block's tile across, and the image channel of its first filtered channel: a colour
    // block that filters one channel is block `tile · CH + channel`.
    let (bx, channel) = if CH > 1 && PLANES == 1 {
        (block_idx_x() / CH as u32, block_idx_x() % CH as u32)
    } else {
        (block_idx_x(), 0)
    };
    let (ox, oy) = (bx * TILE.0, block_idx_y() * TILE.1);
    if CH == 4 && PLANES == 1 && is_alpha(&g, channel) {
        // SAFETY: an RGBA image (launch contract).
        unsafe { copy_alpha_tile(input, output, &g, (ox, oy), TILE, block(1)) };
        return;
    }
    let samples = input.cast::<f32>();
    // The blocks of taps ([`Geometry::blocks`]; 0: one, not shifted), [`block_words(R)`] words
    // each: its fragments, the factor that undoes the taps' scale, its shift across and down.
    let stride_words = block_words(R as u32) as usize;
    // One word per channel and warp (the warps' largest magnitudes; first, so its address is the
    // shared window's, which costs no register), then each channel's planes: its high parts',
    // then its low parts' (words of two halves, `stride` words a row).
    let maxima = dynamic_shared_mem::<u32>();
    // SAFETY: inside the dynamic shared memory (`shared_bytes`).
    let planes = unsafe { maxima.add(PLANES * WARPS as usize) };
    // Channel `ch`'s largest finite magnitude in the tile (bits), from the warps' area once it is
    // written.
    let tile_top = |ch: usize| -> u32 {
        (0..WARPS).fold(0, |m, w| {
            // SAFETY: the warps' area, written before a barrier.
            m.max(unsafe { *maxima.add(ch * WARPS as usize + w as usize) })
        })
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
    // The filter as `$blocks` blocks of taps, written out twice where they may loop: a plain
    // filter's code (one block) keeps no sums live while its tile loads.
    macro_rules! filter {
        ($blocks:expr, $loops:expr) => {{
            let blocks: usize = $blocks;
            // Whether the blocks may be more than one (else the code is the plain filter's).
            const LOOPS: bool = $loops;
            // Per filtered channel, the biased exponent of the scale the tiles so far were split at (255:
            // none yet). A later tile of larger magnitudes lowers it, and the sums so far are scaled down
            // to match; a tile of smaller ones is split at it (its products are below what the tolerance
            // allows for the larger ones).
            let mut exponent = [255u32; 3];
            let mut acc = [[0.0f32; 4]; 8];
            let mut block = 0;
            loop {
                // SAFETY: block `block` of the `blocks` the taps hold (launch contract).
                let block_taps = unsafe { taps.add(block * stride_words) };
                let (shift_x, shift_y) = if (R as u32) < BLOCKS_MIN_RADIUS || g.blocks == 0 {
                    (0, 0)
                } else {
                    // SAFETY: the block's last words.
                    unsafe {
                        (
                            *block_taps.add(stride_words - 3) as i32,
                            *block_taps.add(stride_words - 2) as i32,
                        )
                    }
                };
                // The input tile: column 0 is input column x0, row 0 is input row y0.
                let x0 = (ox + g.offset) as i32 + shift_x - lead(R as u32) as i32;
                let y0 = (oy + g.offset) as i32 + shift_y - R as i32;
                let (columns, rows, stride) = (columns(R as u32), rows(R as u32, PLANES as u32), stride(R as u32));
                let per_row = columns / 4;
                let total = per_row * rows;
                let plane_words = (stride * rows) as usize;
                let first = ty * 32 + tx;
                let threads = 32 * WARPS;
                // Stores channel `ch`'s tile samples 4q .. 4q + 4 of row `row`, times `scale`, as their FP16
                // parts, and raises `largest` to their largest finite magnitude's bits plus 2^23: non-finite
                // magnitudes (bits from 0x7F80_0000) become negative as `i32` and never win.
                let put = |row: u32, q: u32, ch: usize, v: [f32; 4], scale: f32, largest: &mut i32| {
                    for x in v {
                        *largest = (*largest).max(((x.to_bits() & 0x7FFF_FFFF) + 0x0080_0000) as i32);
                    }
                    let [a, b, c2, d] = v.map(|x| x * scale);
                    let ((h01, l01), (h23, l23)) = (split_f16x2(a, b), split_f16x2(c2, d));
                    let at = 2 * ch * plane_words + (row * stride + 2 * q) as usize;
                    // SAFETY: words 2q, 2q + 1 of the row in each of the channel's planes (2q + 1 < columns / 2
                    // <= stride), 8-aligned (stride, plane_words and the maxima's words are even).
                    unsafe {
                        *planes.add(at).cast::<u64>() = u64::from(h01) | u64::from(h23) << 32;
                        *planes.add(at + plane_words).cast::<u64>() = u64::from(l01) | u64::from(l23) << 32;
                    }
                };
                // Filtered channel `ch`'s sample the border rule reads for tile position (col, row), or 0
                // outside the image.
                let resolved = |col: u32, row: u32, ch: usize| -> f32 {
                    let xx = resolve(x0 + col as i32, g.in_width as i32, g.border);
                    let yy = resolve(y0 + row as i32, g.in_height as i32, g.border);
                    if (xx as u32) < g.in_width && (yy as u32) < g.in_height {
                        let at = (yy as usize * g.in_width as usize + xx as usize) * CH + channel as usize + ch;
                        // SAFETY: (xx, yy) is inside the image.
                        unsafe { *samples.add(at) }
                    } else {
                        // Outside: the constant border, or (border NONE) a position no output uses.
                        g.cval
                    }
                };
                // Whether the image's rows and the tile's first column are multiples of 4 pixels.
                let aligned = g.in_width.is_multiple_of(4) && x0 % 4 == 0;
                // Gray rows of whole vectors from the tile's first column on, and every RGB or RGBA image.
                let vector_loads = CH > 1 || aligned;
                // Whether 4 pixels from a multiple of 4 columns from the tile's first on are `CH` 16-byte
                // vectors: always for RGBA (16 bytes a pixel); for RGB where `aligned`.
                let pixel_vectors = CH == 4 || aligned;
                // (Arrays of filtered channels have room for 3; a gray block uses the first.)
                // The filtered channels' samples of the 4 pixels from pixel `pixel` on (inside the image, the
                // callers check, and `vector_loads`): for gray one vector, 16-aligned (the vector's column
                // and the width are multiples of 4; the host's buffers are 256-byte aligned); for RGB and
                // RGBA blocks of three channels `CH` vectors where `pixel_vectors` (16-aligned likewise);
                // else samples `CH` apart one by one.
                let load_pixels = |pixel: usize| -> [[f32; 4]; 3] {
                    let mut v = [[0.0f32; 4]; 3];
                    if CH == 1 {
                        // SAFETY: as above.
                        v[0] = unsafe { Bytes16::load_global(samples.add(pixel).cast::<u8>()) }
                            .0
                            .map(f32::from_bits);
                    } else if PLANES == 3 && pixel_vectors {
                        let mut words = [0u32; 16];
                        unroll!(W < CH; [0, 1, 2, 3] {
                            // SAFETY: as above; vector W of the 4 pixels' `4 · CH` samples.
                            let w = unsafe { Bytes16::load_global(samples.add(pixel * CH + 4 * W).cast::<u8>()) }.0;
                            words[4 * W..4 * W + 4].copy_from_slice(&w);
                        });
                        unroll!(P < PLANES; [0, 1, 2] {
                            v[P] = [0, 1, 2, 3].map(|i| f32::from_bits(words[i * CH + P]));
                        });
                    } else {
                        unroll!(P < PLANES; [0, 1, 2] {
                            // SAFETY: as above, P < CH.
                            v[P] = [0, 1, 2, 3].map(|i| unsafe { *samples.add((pixel + i) * CH + channel as usize + P) });
                        });
                    }
                    v
                };
                // Whether the tile lies wholly inside the image.
                let whole =
                    x0 >= 0 && y0 >= 0 && x0 as u32 + columns <= g.in_width && y0 as u32 + rows <= g.in_height;
                // Whether the 4 pixels of vector e of the tile lie inside the image (used only for tiles
                // not wholly inside, and for gray rows not of whole vectors).
                let inside = |e: u32| -> bool {
                    let (gx, gy) = (x0 + 4 * (e % per_row) as i32, y0 + (e / per_row) as i32);
                    gx >= 0 && gy >= 0 && gx as u32 + 4 <= g.in_width && (gy as u32) < g.in_height
                };
                // Fills every channel's planes with the tile times the channel's scale: the vectors `inside`
                // says are one load, the rest sample by sample with the border resolved. First unscaled,
                // which is right whenever the channel's largest finite magnitude in the tile is in
                // [2^-3, 2^15) (the common case: the splits keep 22 bits of it); else again, that channel
                // scaled by 2^(14 - E) for its largest magnitude 2^E · 1.m (a biased exponent kept inside the
                // normal range, so its inverse is normal too). The choice is the same for the whole block.
                let (mut scale, mut rescaled) = ([1.0f32; 3], false);
                loop {
                    // Bits of the largest finite magnitude of each channel this thread stored, plus 2^23
                    // (0: none).
                    let mut largest = [0i32; 3];
                    if !(vector_loads && whole) {
                        let mut e = first;
                        while e < total {
                            let (q, row) = (e % per_row, e / per_row);
                            let pixel =
                                || (y0 + row as i32) as usize * g.in_width as usize + (x0 + 4 * q as i32) as usize;
                            let v = if vector_loads && inside(e) {
                                load_pixels(pixel())
                            } else if inside(e) {
                                // Gray, off a whole vector: the 4 samples one by one.
                                let mut v = [[0.0f32; 4]; 3];
                                // SAFETY: inside the image (`inside`).
                                v[0] = [0, 1, 2, 3].map(|i| unsafe { *samples.add(pixel() + i) });
                                v
                            } else {
                                let mut v = [[0.0f32; 4]; 3];
                                unroll!(P < PLANES; [0, 1, 2] {
                                    // Written out (not `map`, which a call in `resolve` left a loop
                                    // over an array in local memory).
                                    let at = |i: u32| resolved(4 * q + i, row, P);
                                    v[P] = [at(0), at(1), at(2), at(3)];
                                });
                                v
                            };
                            unroll!(P < PLANES; [0, 1, 2] {
                                put(row, q, P, v[P], scale[P], &mut largest[P]);
                            });
                            e += threads;
                        }
                    } else {
                        // A tile wholly inside the image: every vector is one load, none is checked.
                        let origin = y0 as usize * g.in_width as usize + x0 as usize;
                        let batch_len = if CH == 1 { LOAD_BATCH } else { COLOUR_BATCH };
                        let mut e0 = first;
                        while e0 < total {
                            let mut batch = [[[0.0f32; 4]; 3]; LOAD_BATCH];
                            unroll!(B < batch_len; [0, 1, 2, 3] {
                                let e = e0 + B as u32 * threads;
                                if e < total {
                                    // 4 pixels inside the image (the tile is).
                                    batch[B] = load_pixels(origin + (e / per_row) as usize * g.in_width as usize + 4 * (e % per_row) as usize);
                                }
                            });
                            unroll!(B < batch_len; [0, 1, 2, 3] {
                                let e = e0 + B as u32 * threads;
                                if e < total {
                                    unroll!(P < PLANES; [0, 1, 2] {
                                        put(e / per_row, e % per_row, P, batch[B][P], scale[P], &mut largest[P]);
                                    });
                                }
                            });
                            e0 += batch_len as u32 * threads;
                        }
                    }
                    if rescaled {
                        break;
                    }
                    unroll!(P < PLANES; [0, 1, 2] {
                        let warp_largest = warp_max((largest[P] as u32).saturating_sub(0x0080_0000));
                        if tx == 0 {
                            // SAFETY: word `ty` of channel P's part of the warps' area.
                            unsafe { *maxima.add(P * WARPS as usize + ty as usize) = warp_largest };
                        }
                    });
                    sync_threads();
                    let mut again = false;
                    // The scale of the warp's channel before this tile and after.
                    let (mut before, mut after) = (255, 255);
                    let warp_channel = if PLANES == 1 {
                        0
                    } else {
                        (ty / CHANNEL_WARPS) as usize
                    };
                    unroll!(P < PLANES; [0, 1, 2] {
                        let e = if LOOPS {
                            scale_exponent(tile_top(P)).min(exponent[P])
                        } else {
                            scale_exponent(tile_top(P))
                        };
                        if P == warp_channel {
                            (before, after) = (exponent[P], e);
                        }
                        exponent[P] = e;
                        again |= e != 127;
                        scale[P] = f32::from_bits(e << 23);
                    });
                    if LOOPS && after < before && before != 255 {
                        // 2^(after - before), exact (or, below 2^-126, sums too small to matter).
                        let down = f32::from_bits((127 + after).saturating_sub(before).max(1) << 23);
                        for window in acc.iter_mut() {
                            for a in window.iter_mut() {
                                *a *= down;
                            }
                        }
                    }
                    if !again {
                        break;
                    }
                    rescaled = true;
                    sync_threads();
                }
                // The B fragments of pair `pair`, for every chunk.
                let fragments = block_taps.cast::<Bytes16>();
                let load_b = |pair: usize| -> [[u32; 4]; 5] {
                    let mut b = [[0u32; 4]; 5];
                    unroll!(K < C; [0, 1, 2, 3, 4] {
                        // SAFETY: inside the block's words (launch contract), 16-byte aligned.
                        b[K] = unsafe { *fragments.add((pair * C + K) * 32 + tx as usize) }.0;
                    });
                    b
                };
                sync_threads();

                let (lane_g, lane_t) = (tx / 4, tx % 4);
                // The warps of a block that filters one channel all filter it.
                let (ch, part) = if PLANES == 1 {
                    (0, ty)
                } else {
                    ((ty / CHANNEL_WARPS) as usize, ty % CHANNEL_WARPS)
                };
                let (wx, wy) = (64 * (part % 2), 16 * (part / 2));
                // SAFETY: channel ch's two planes, inside the dynamic shared memory.
                let (high_words, low_words) = unsafe {
                    let high = planes.add(2 * ch * plane_words).cast_const();
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
                if !LOOPS {
                    // One block: its sums start here, not live while the tile loads.
                    acc = [[0.0f32; 4]; 8];
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
                        products!(acc, mma_f16, high, low, |k| [b[k][0], b[k][1]], [b[k][2], b[k][3]]);
                    });
                    at += 2 * stride as usize;
                }
                // The last filter row, 2R, alone: K = 8.
                let b = load_b(R);
                unroll!(I < Q; [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
                    let (r0, r8) = (load_a(at, 0, I), load_a(at, 8, I));
                    let (high, low) = ([r0[0], r8[0]], [r0[1], r8[1]]);
                    products!(acc, mma_f16_k8, high, low, |k| [b[k][0]], [b[k][2]]);
                });
                block += 1;
                if block == blocks {
                    break;
                }
                // Every warp done with the planes and the maxima before the next block's tile.
                sync_threads();
            }

            // SAFETY: the factor's word of the first block (the same in every block).
            let unscale_taps = f32::from_bits(unsafe { *taps.add((R + 1) * C * 128) });
            // The lane's outputs, from the thread index read again (nothing derived from it was kept
            // through the MMAs).
            let (tx, ty) = thread_idx_reread();
            let (ch, part) = if PLANES == 1 {
                (0, ty)
            } else {
                (ty / CHANNEL_WARPS, ty % CHANNEL_WARPS)
            };
            let (lane_g, lane_t, wx, wy) = (tx / 4, tx % 4, 64 * (part % 2), 16 * (part / 2));
            // One factor for both scales: it leaves the range of `f32` only where the results do.
            // (Below `BLOCKS_MIN_RADIUS`, the one tile's from the warps' area again, which keeps a
            // register free during the MMAs.)
            let tile_exponent = match ch {
                _ if (R as u32) < BLOCKS_MIN_RADIUS => scale_exponent(tile_top(ch as usize)),
                0 => exponent[0],
                1 => exponent[1],
                _ => exponent[2],
            };
            let unscale = f32::from_bits((254 - tile_exponent) << 23);
            let factor = unscale * unscale_taps;
            let clamp = Store::of(&g, g.clamp != 0);
            let out = output.cast::<f32>();
            if PLANES == 3 {
                // SAFETY: the planes, every warp done with them, become the staging area; `input` and
                // `output` as the launch contract says.
                unsafe {
                    store_colour_tile::<CH>(
                        input.cast(),
                        output.cast(),
                        &g,
                        planes.cast(),
                        (ox, oy),
                        (32 * ty + tx, ch, wx + 2 * lane_t, wy + lane_g),
                        (&acc, factor),
                    )
                };
                return;
            }
            let pairs = CH == 1 && g.out_width.is_multiple_of(2);
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
                                    unsafe { *out.add(out_index(&g, x + E as u32, y, channel)) = v[E] };
                                }
                            });
                        }
                    }
                });
            });
        }};
    }
    if R as u32 >= BLOCKS_MIN_RADIUS && g.blocks > 1 {
        filter!(g.blocks as usize, true)
    } else {
        filter!(1, false)
    }
}
