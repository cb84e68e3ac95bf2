//! The `tensor-f32` kernel (`conv_tensor_f32`): `f32` images on the tensor cores, samples and taps
//! each split into an FP16 high and low part, three products per tap.

pub use launch::*;

/// The launch (entry name, block, tile, shared memory, register limit), larger than the other
/// kernels': its own file beside this one, compiled for every target.
mod launch;

#[cfg(target_arch = "nvptx64")]
use {
    crate::device::shared::dynamic_shared_mem,
    crate::device::thread::{
        block_idx_x, block_idx_y, sync_threads, thread_idx_reread, thread_idx_x, thread_idx_y,
    },
    crate::device::{Sample, batch_image, copy_alpha_tile, is_alpha},
    crate::launch::Geometry,
    kernel_macros::kernel,
    mma::multiply,
    store::{store_colour_tile, store_tile},
    tile::{Tile, choose_scales, scale_exponent, tile_top},
};

#[cfg(target_arch = "nvptx64")]
mod mma;
#[cfg(target_arch = "nvptx64")]
mod store;
#[cfg(target_arch = "nvptx64")]
mod tile;

#[cfg(target_arch = "nvptx64")]
/// The constants of the entry for radius `R` and `CH` channels that every phase uses.
struct Shape<const R: usize, const CH: usize>;

#[cfg(target_arch = "nvptx64")]
impl<const R: usize, const CH: usize> Shape<R, CH> {
    /// Chunks of B per window.
    const C: usize = chunks(R as u32) as usize;
    /// Chunks of input a warp's 8 windows read on each row.
    const Q: usize = 8 + Self::C - 1;
    /// Channels the block filters.
    const PLANES: usize = planes(CH as u32, R as u32) as usize;
    /// Warps of the block, and of each filtered channel.
    const WARPS: u32 = block(Self::PLANES as u32).1;
    const CHANNEL_WARPS: u32 = Self::WARPS / Self::PLANES as u32;
    /// The output tile's columns and rows.
    const TILE: (u32, u32) = tile(Self::PLANES as u32);
    /// The input tile's columns and rows, and the words of a plane's row.
    const COLUMNS: u32 = columns(R as u32);
    const ROWS: u32 = rows(R as u32, Self::PLANES as u32);
    const STRIDE: u32 = stride(R as u32);
    /// Words of one plane.
    const PLANE_WORDS: usize = (Self::STRIDE * Self::ROWS) as usize;
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
/// The FP16 entries (`conv_tensor_f16`, `T = f16`, `CH` = 1) take any `g.channels`, one a block,
/// with `launch_config_f16`'s grid and shared memory, and one block of taps.
#[kernel(types(f32), radius(0..=15), consts(CH = 1), max_registers = max_registers(R, CH))]
#[kernel(name = conv_tensor_f32_c3, types(f32), radius(0..=15), consts(CH = 3), max_registers = max_registers(R, CH))]
#[kernel(name = conv_tensor_f32_c4, types(f32), radius(0..=15), consts(CH = 4), max_registers = max_registers(R, CH))]
#[kernel(name = conv_tensor_f16, types(f16), radius(0..=15), consts(CH = 1), max_registers = max_registers(R, CH))]
pub unsafe fn conv_tensor_f32<T: Sample, const R: usize, const CH: usize>(
    input: *const T,
    output: *mut T,
    g: Geometry,
    taps: *const u32,
) {
    const PLANES: usize = Shape::<R, CH>::PLANES;
    const TILE: (u32, u32) = Shape::<R, CH>::TILE;
    // SAFETY: the launch contract: grid z holds the batch's images, the buffers every image.
    let (input, output, _) = unsafe { batch_image(input, output, &g, 1) };
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    // FP16 samples (`conv_tensor_f16`), used as they are: the image's channels from `g`, one a
    // block.
    let exact = core::mem::size_of::<T>() == 2;
    let channels = if exact { g.channels } else { CH as u32 };
    // The block's tile across, and the image channel of its first filtered channel: a colour
    // block that filters one channel is block `tile · CH + channel`.
    let (bx, channel) = if (CH > 1 && PLANES == 1) || (exact && channels > 1) {
        (block_idx_x() / channels, block_idx_x() % channels)
    } else {
        (block_idx_x(), 0)
    };
    let (ox, oy) = (bx * TILE.0, block_idx_y() * TILE.1);
    if ((CH == 4 && PLANES == 1) || exact) && is_alpha(&g, channel) {
        // SAFETY: an RGBA image (launch contract).
        unsafe { copy_alpha_tile(input, output, &g, (ox, oy), TILE, block(1)) };
        return;
    }
    // One word per channel and warp (the warps' largest magnitudes; first, so its address is the
    // shared window's, which costs no register), then each channel's planes: its high parts',
    // then its low parts' (words of two halves, `stride` words a row).
    let maxima = dynamic_shared_mem::<u32>();
    let block = Block {
        input: input.cast(),
        output: output.cast(),
        g: &g,
        taps,
        maxima,
        // SAFETY: inside the dynamic shared memory (`shared_bytes`).
        planes: unsafe { maxima.add(PLANES * Shape::<R, CH>::WARPS as usize) },
        thread: (tx, ty),
        origin: (ox, oy),
        channel,
    };
    // The filter as blocks of taps, its code written out twice where they may loop: a plain
    // filter's code (one block) keeps no sums live while its tile loads.
    if !exact && R as u32 >= BLOCKS_MIN_RADIUS && g.blocks > 1 {
        // SAFETY: the launch contract, as above.
        unsafe { filter::<R, CH, true>(&block, g.blocks as usize, false) }
    } else {
        // SAFETY: as above.
        unsafe { filter::<R, CH, false>(&block, 1, exact) }
    }
}

#[cfg(target_arch = "nvptx64")]
/// What every phase of a block reads: the launch's buffers and geometry, the shared memory, the
/// thread, the tile.
struct Block<'a> {
    /// The image's and the output's interleaved `f32` samples.
    input: *const f32,
    output: *mut f32,
    g: &'a Geometry,
    /// The blocks of taps ([`Geometry::blocks`]; 0: one, not shifted), [`block_words(R)`] words
    /// each: its fragments, the factor that undoes the taps' scale, its shift across and down.
    taps: *const u32,
    /// The warps' largest magnitudes, a word per channel and warp, then the planes.
    maxima: *mut u32,
    planes: *mut u32,
    /// The thread's index and the output tile's first column and row.
    thread: (u32, u32),
    origin: (u32, u32),
    /// The image channel of the block's first filtered channel.
    channel: u32,
}

#[cfg(target_arch = "nvptx64")]
/// The filter of [`conv_tensor_f32`] as `blocks` blocks of taps (`LOOPS`: they may be more than
/// one), each's tile loaded, split and multiplied into the same accumulators; then the outputs
/// stored once. `exact`: FP16 samples (one block), loaded as they are, unscaled.
///
/// # Safety
/// [`conv_tensor_f32`]'s launch contract, `b` made from its arguments.
#[inline(always)]
unsafe fn filter<const R: usize, const CH: usize, const LOOPS: bool>(
    b: &Block<'_>,
    blocks: usize,
    exact: bool,
) {
    let (g, (tx, ty), (ox, oy)) = (b.g, b.thread, b.origin);
    let (planes, warps) = (Shape::<R, CH>::PLANES, Shape::<R, CH>::WARPS);
    let stride_words = block_words(R as u32) as usize;
    // Per filtered channel, the biased exponent of the scale the tiles so far were split at (255:
    // none yet). A later tile of larger magnitudes lowers it, and the sums so far are scaled down
    // to match; a tile of smaller ones is split at it (its products are below what the tolerance
    // allows for the larger ones).
    let mut exponent = [255u32; 3];
    let mut acc = [[0.0f32; 4]; 8];
    let mut block = 0;
    loop {
        // SAFETY: block `block` of the `blocks` the taps hold (launch contract).
        let block_taps = unsafe { b.taps.add(block * stride_words) };
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
        let tile = Tile::<R, CH>::new(g, b.input, b.channel, (x0, y0), b.planes);
        // Fills every channel's planes with the tile times the channel's scale. First unscaled,
        // which is right whenever the channel's largest finite magnitude in the tile is in
        // [2^-3, 2^15) (the common case: the splits keep 22 bits of it); else again, that channel
        // scaled by 2^(14 - E) for its largest magnitude 2^E · 1.m (a biased exponent kept inside
        // the normal range, so its inverse is normal too). The choice is the same for the whole
        // block.
        if exact {
            // FP16 samples: stored as they are, never scaled.
            tile.load_half(ty * 32 + tx, 32 * warps);
        } else {
            let (mut scale, mut rescaled) = ([1.0f32; 3], false);
            loop {
                let largest = tile.load(ty * 32 + tx, 32 * warps, &scale);
                if rescaled {
                    break;
                }
                let again = choose_scales::<R, CH, LOOPS>(
                    b.maxima,
                    (tx, ty),
                    &largest,
                    (&mut exponent, &mut scale),
                    &mut acc,
                );
                if !again {
                    break;
                }
                rescaled = true;
                sync_threads();
            }
        }
        sync_threads();
        if !LOOPS {
            // One block: its sums start here, not live while the tile loads.
            acc = [[0.0f32; 4]; 8];
        }
        multiply::<R, CH>(&mut acc, b.planes, block_taps, (tx, ty), exact);
        block += 1;
        if block == blocks {
            break;
        }
        // Every warp done with the planes and the maxima before the next block's tile.
        sync_threads();
    }

    // SAFETY: the factor's word of the first block (the same in every block).
    let unscale_taps = f32::from_bits(unsafe { *b.taps.add((R + 1) * Shape::<R, CH>::C * 128) });
    // The lane's outputs, from the thread index read again (nothing derived from it was kept
    // through the MMAs).
    let (tx, ty) = thread_idx_reread();
    let (ch, part) = if planes == 1 {
        (0, ty)
    } else {
        let channel_warps = Shape::<R, CH>::CHANNEL_WARPS;
        (ty / channel_warps, ty % channel_warps)
    };
    let (lane_g, lane_t, wx, wy) = (tx / 4, tx % 4, 64 * (part % 2), 16 * (part / 2));
    // One factor for both scales: it leaves the range of `f32` only where the results do.
    // (Below `BLOCKS_MIN_RADIUS`, the one tile's from the warps' area again, which keeps a
    // register free during the MMAs.)
    let tile_exponent = match ch {
        _ if exact => 127,
        _ if (R as u32) < BLOCKS_MIN_RADIUS => scale_exponent(tile_top(b.maxima, warps, ch as usize)),
        0 => exponent[0],
        1 => exponent[1],
        _ => exponent[2],
    };
    let unscale = f32::from_bits((254 - tile_exponent) << 23);
    let factor = unscale * unscale_taps;
    if planes == 3 {
        // SAFETY: the planes, every warp done with them, become the staging area; `input` and
        // `output` as the launch contract says.
        unsafe {
            store_colour_tile::<CH>(
                b.input,
                b.output,
                g,
                b.planes.cast(),
                (ox, oy),
                (32 * ty + tx, ch, wx + 2 * lane_t, wy + lane_g),
                (&acc, factor),
            )
        };
    } else {
        // SAFETY: `output` as the launch contract says.
        unsafe {
            store_tile::<CH>(
                b.output,
                g,
                (ox, oy),
                (lane_g, lane_t, wx, wy),
                (b.channel, exact),
                (&acc, factor),
            )
        };
    }
}
