//! Launch geometry and kernel-parameter layout shared by the kernels and the host.

/// Largest filter radius any kernel accepts (filter size `2 * MAX_RADIUS + 1` = 31).
pub const MAX_RADIUS: u32 = 15;
/// Largest filter side length.
pub const MAX_FILTER_SIZE: u32 = 2 * MAX_RADIUS + 1;
/// Number of taps the by-value filter parameter holds.
pub const MAX_TAPS: usize = (MAX_FILTER_SIZE * MAX_FILTER_SIZE) as usize;

/// Block shape of the one-thread-per-output-sample kernels (`naive`, `constant`, `readonly`,
/// `texture`): 32 threads along a row, 8 rows (256 threads).
pub const PIXEL_BLOCK: (u32, u32) = (32, 8);

/// Side of the square input tile (and thread block) of the `tiled` kernel: 32 × 32 = 1024 threads.
/// Each block produces an output tile of `TILED_IN - 2r` squared pixels.
pub const TILED_IN: u32 = 32;

/// Side of the output tile the `tiled` kernel computes for a given radius.
pub const fn tiled_out(radius: u32) -> u32 {
    TILED_IN - 2 * radius
}

/// Dynamic shared memory, in bytes, the `tiled` kernel needs: one `f32` per thread of the block.
pub const TILED_SHARED_BYTES: u32 = TILED_IN * TILED_IN * 4;

/// Block shapes (threads = output pixels) the `tiled-output` kernel is offered with.
pub const TILED_OUTPUT_BLOCKS: [(u32, u32); 3] = [(16, 16), (32, 16), (32, 32)];

/// Shared memory of the `tiled-output` kernel: the output tile plus an `r`-pixel halo.
pub const fn tiled_output_shared_bytes(block: (u32, u32), radius: u32) -> u32 {
    (block.0 + 2 * radius) * (block.1 + 2 * radius) * 4
}

/// Block shape of the `tiled-cache` kernel; its shared tile is exactly the block.
pub const TILED_CACHE_BLOCK: (u32, u32) = (32, 16);

/// Shared memory of the `tiled-cache` kernel.
pub const TILED_CACHE_SHARED_BYTES: u32 = TILED_CACHE_BLOCK.0 * TILED_CACHE_BLOCK.1 * 4;

/// Row pass of the separable filter: 32 × 4 threads, each computing `ROW_STEPS` outputs 32 pixels
/// apart, so a block covers `32 · ROW_STEPS` pixels of 4 rows.
pub const ROW_BLOCK: (u32, u32) = (32, 4);
/// Outputs per thread of the row pass.
pub const ROW_STEPS: u32 = 4;
/// Pixels of a row one row-pass block produces.
pub const ROW_SPAN: u32 = ROW_BLOCK.0 * ROW_STEPS;

/// Shared memory of the row pass: each block row's span plus an `r`-pixel apron on each side.
pub const fn row_shared_bytes(radius: u32) -> u32 {
    ROW_BLOCK.1 * (ROW_SPAN + 2 * radius) * 4
}

/// Column pass of the separable filter: 32 × 8 threads, each computing `COL_STEPS` outputs 8 rows
/// apart, so a block covers 32 columns of `8 · COL_STEPS` rows.
pub const COL_BLOCK: (u32, u32) = (32, 8);
/// Outputs per thread of the column pass.
pub const COL_STEPS: u32 = 4;
/// Rows one column-pass block produces.
pub const COL_SPAN: u32 = COL_BLOCK.1 * COL_STEPS;

/// Shared memory of the column pass: the span plus an `r`-row apron above and below, 32 wide.
pub const fn col_shared_bytes(radius: u32) -> u32 {
    (COL_SPAN + 2 * radius) * COL_BLOCK.0 * 4
}

/// Border modes, as the kernels receive them in [`Geometry::border`].
pub mod border {
    /// Pixels outside the image are 0 (ghost cells).
    pub const ZERO: u32 = 0;
    /// Clamp to the nearest edge pixel.
    pub const REPLICATE: u32 = 1;
    /// Mirror without repeating the edge pixel: `d c b | a b c d | c b a`.
    pub const REFLECT: u32 = 2;
    /// Periodic: the image repeats.
    pub const WRAP: u32 = 3;
    /// Coordinates are used as they are: every tap is inside the image (the `valid` border), or the
    /// texture unit's address mode handles the outside.
    pub const NONE: u32 = 4;
}

/// Sizes and modes of one convolution, passed by value to every kernel.
///
/// Images are interleaved (`channels` samples per pixel) and row-major without padding. Output
/// pixel `(x, y)` is centred on input pixel `(x + offset, y + offset)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Geometry {
    pub in_width: u32,
    pub in_height: u32,
    pub out_width: u32,
    pub out_height: u32,
    /// 1 (gray), 3 (RGB) or 4 (RGBA: channel 3 is copied from the input unchanged).
    pub channels: u32,
    pub radius: u32,
    /// One of [`border`].
    pub border: u32,
    /// `radius` for the valid border, else 0.
    pub offset: u32,
    /// Non-zero: clamp `f32` results to [0, 1] (integer results are always clamped).
    pub clamp: u32,
}

/// The filter taps passed by value as a kernel parameter. Kernel parameters live in the GPU's
/// constant bank, so every thread of a warp reading the same tap is one broadcast, which is what
/// CUDA's `__constant__` memory gives. The first `k * k` entries hold the `k × k` filter row-major
/// (or, for a separable pass, the `k` taps of that pass).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Taps(pub [f32; MAX_TAPS]);

/// Exactly the `N = k²` taps of a `k × k` filter (row-major), by value: the parameter of kernels
/// compiled per radius, so a launch carries only the taps that radius needs. The host passes a
/// [`Taps`], whose first `N` values these are.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExactTaps<const N: usize>(pub [f32; N]);

/// Sample types: the suffix of every kernel's entry-point name.
pub const DTYPES: [&str; 3] = ["u8", "u16", "f32"];

/// Kernel base names; the entry point of a kernel for samples of type `t` is `<base>_<t>`.
pub mod names {
    /// Filter and input both read from global memory.
    pub const NAIVE: &str = "conv_naive";
    /// Filter in the constant bank, input from global memory.
    pub const CONSTANT: &str = "conv_constant";
    /// Input through the read-only data cache (`ld.global.nc`), filter in the constant bank.
    pub const READONLY: &str = "conv_readonly";
    /// Input through a 2D texture object, filter in the constant bank.
    pub const TEXTURE: &str = "conv_texture";
    /// Blocks the size of the input tile; whole tile in shared memory.
    pub const TILED: &str = "conv_tiled";
    /// Blocks the size of the output tile; haloed tile loaded into shared memory in batches.
    pub const TILED_OUTPUT: &str = "conv_tiled_output";
    /// Only the tile's interior in shared memory; halo read through the caches.
    pub const TILED_CACHE: &str = "conv_tiled_cache";
    /// Separable filter, row pass (samples in, `f32` out).
    pub const SEP_ROWS: &str = "conv_sep_rows";
    /// Separable filter, column pass (`f32` in, samples out).
    pub const SEP_COLS: &str = "conv_sep_cols";
    /// The benchmark's FP32 FMA-rate probe (not a convolution).
    pub const FMA_PROBE: &str = "fma_probe";
    /// The benchmark's GPU-side wait ahead of back-to-back timed launches (not a convolution).
    pub const GPU_SPIN: &str = "gpu_spin";
    /// Register-blocked, radius known at compile time: the entry point for samples of type `t`
    /// and radius `r` is `conv_fast_<t>_r<r>` (not in [`ALL`], which has one entry per type).
    pub const FAST: &str = "conv_fast";
    /// As [`FAST`] with 4 × 2 outputs per thread: `conv_fast_4x2_<t>_r<r>`.
    pub const FAST_4X2: &str = "conv_fast_4x2";
    /// Fused separable filter (row pass into shared memory, then column pass): the entry point for
    /// samples of type `t` and radius `r` is `conv_sep_fused_<t>_r<r>` (not in [`ALL`]).
    pub const SEP_FUSED: &str = "conv_sep_fused";
    /// 8-bit images on the tensor cores, radius known at compile time: the entry point for radius
    /// `r` is `conv_tensor_u8_r<r>`, `r <= TENSOR_MAX_RADIUS`, and for RGB and RGBA images
    /// `conv_tensor_c<channels>_u8_r<r>` (not in [`ALL`]).
    pub const TENSOR: &str = "conv_tensor";
    /// `f32` images on the tensor cores (FP16 splits), radius known at compile time: the entry
    /// point for radius `r` is `conv_tensor_split_f32_r<r>`, `r <= SPLIT_MAX_RADIUS`, and for RGB
    /// and RGBA images `conv_tensor_split_c<channels>_f32_r<r>` (not in [`ALL`]).
    pub const TENSOR_SPLIT: &str = "conv_tensor_split";
    /// 8-bit rows streamed through registers by warps, radius known at compile time: the entry
    /// point for radius `r` is `conv_stream_u8_r<r>`, `r <= STREAM_MAX_RADIUS`, and for RGB and
    /// RGBA images `conv_stream_c<channels>_u8_r<r>`, `r <= STREAM_INTERLEAVED_MAX_RADIUS` (not in
    /// [`ALL`]).
    pub const STREAM: &str = "conv_stream";
    /// Every kernel base name.
    pub const ALL: [&str; 9] = [
        NAIVE,
        CONSTANT,
        READONLY,
        TEXTURE,
        TILED,
        TILED_OUTPUT,
        TILED_CACHE,
        SEP_ROWS,
        SEP_COLS,
    ];
}

/// Block shape of the `stream` kernel: 4 warps side by side, each streaming down its own strip
/// of 256 bytes (8 per lane).
pub const STREAM_BLOCK: (u32, u32) = (32, 4);
/// Bytes per lane of the `stream` kernel: one 8-byte load per input row.
pub const STREAM_PER_LANE: u32 = 8;
/// Output rows of one `stream` warp (each input row it loads feeds up to `k` of them).
pub const STREAM_ROWS: u32 = 8;
/// Bytes across one `stream` warp's strip: 256.
pub const STREAM_STRIP: u32 = STREAM_BLOCK.0 * STREAM_PER_LANE;
/// Output tile of one `stream` block: 1024 bytes × 8 rows (1024 gray pixels; an RGB or RGBA
/// block's bytes hold every channel of its pixels).
pub const STREAM_TILE: (u32, u32) = (STREAM_STRIP * STREAM_BLOCK.1, STREAM_ROWS);
/// Largest radius of the `stream` kernel: its accumulators for `k` output rows of 8 pixels stay in
/// registers up to 5 × 5 filters, where it is the fastest 8-bit kernel at k = 3 (larger filters
/// are the `tensor` kernel's).
pub const STREAM_MAX_RADIUS: u32 = 2;
/// Largest radius of the `stream` kernel's RGB and RGBA entries: a window reaches `channels · r`
/// bytes past a lane's 8 on each side, at most the 4 bytes of a neighbour's word.
pub const STREAM_INTERLEAVED_MAX_RADIUS: u32 = 1;

/// Whether the `stream` kernel's rows of `g` are whole 8-byte words it loads a lane at a time:
/// rows of a multiple of 8 bytes, not the valid border, and (but for the zero border) no warp
/// whose first lane ends the row, which would need a word beyond each end of its bytes.
pub const fn stream_words(g: &Geometry) -> bool {
    let row = g.in_width * g.channels;
    row.is_multiple_of(STREAM_PER_LANE)
        && g.offset == 0
        && (g.border == border::ZERO || row % STREAM_STRIP != STREAM_PER_LANE)
}

/// Whether the `stream` kernel streams `g` by words (gray, or RGB and RGBA on their entries);
/// elsewhere its gray entry computes output by output, correct but never the fastest variant.
pub const fn stream_by_words(g: &Geometry) -> bool {
    stream_words(g) && (g.channels == 1 || stream_interleaved(g))
}

/// Whether the `stream` kernel runs `g` on an interleaved entry: RGB or RGBA up to
/// [`STREAM_INTERLEAVED_MAX_RADIUS`] whose rows are words ([`stream_words`]); other colour images
/// run the gray entry, which computes them pixel by pixel.
pub const fn stream_interleaved(g: &Geometry) -> bool {
    (g.channels == 3 || g.channels == 4) && g.radius <= STREAM_INTERLEAVED_MAX_RADIUS && stream_words(g)
}

/// Block shape of the `fast` kernels: 32 × 8 threads.
pub const FAST_BLOCK: (u32, u32) = (32, 8);
/// Outputs per thread of the `fast` kernel: a 4 × 4 patch held in registers.
pub const FAST_PER_THREAD: (u32, u32) = (4, 4);
/// Output rows per thread of the `fast` kernels: 4 (`fast`, a 4 × 4 patch per thread) or 2
/// (`fast-4x2`, a 4 × 2 patch: half the tile, more blocks, fewer registers).
pub const FAST_ROWS: [u32; 2] = [4, 2];
/// Output tile of one `fast` block with `rows` output rows per thread: 128 × (8 · rows) pixels.
pub const fn fast_tile(rows: u32) -> (u32, u32) {
    (FAST_BLOCK.0 * FAST_PER_THREAD.0, FAST_BLOCK.1 * rows)
}
/// Output tile of one `fast` block: 128 × 32 pixels.
pub const FAST_TILE: (u32, u32) = fast_tile(FAST_PER_THREAD.1);

/// The `fast` kernel's horizontal halo: the radius rounded up to a multiple of 4, so the tile's
/// first column, every row of it, and every thread's run of pixels are 16-byte aligned.
pub const fn fast_halo(radius: u32) -> u32 {
    radius.div_ceil(4) * 4
}

/// Row stride (in `f32`) of the `fast` kernel's shared tile: the tile plus its aligned halo.
pub const fn fast_stride(radius: u32) -> u32 {
    FAST_TILE.0 + 2 * fast_halo(radius)
}

/// Shared memory of the `fast` kernel with `rows` output rows per thread, for the entries that
/// filter rows of `channels` interleaved channels as rows of samples (1: one channel per block).
pub const fn fast_shared_bytes(radius: u32, rows: u32, channels: u32) -> u32 {
    fast_stride(radius * channels) * (fast_tile(rows).1 + 2 * radius) * 4
}

/// Channel counts the `fast`, `tensor` and `tensor-f32` kernels have interleaved entries for,
/// `<base>_c<channels>_<t>_r<r>`. `fast`'s block filters a run of 128 interleaved samples of
/// every channel, each tap `channels` samples from the next, and `tensor`'s splits its tile into
/// a plane per channel, so RGB and RGBA rows load and store whole 16-byte vectors as gray rows do
/// (RGBA's alpha is copied); `tensor-f32`'s channels of a tile are neighbouring blocks.
pub const INTERLEAVED_CHANNELS: [u32; 2] = [3, 4];
/// Largest radius of the `fast` kernels' interleaved entries.
pub const FAST_INTERLEAVED_MAX_RADIUS: u32 = 4;

/// Whether the `fast` kernels run `g` on an interleaved entry: RGB or RGBA, radius up to
/// [`FAST_INTERLEAVED_MAX_RADIUS`], and rows of whole 4-sample vectors from the tile's first
/// column on (else each channel is its own block, as for other channel counts).
pub const fn fast_interleaved(g: &Geometry) -> bool {
    (g.channels == 3 || g.channels == 4)
        && g.radius <= FAST_INTERLEAVED_MAX_RADIUS
        && (g.in_width * g.channels).is_multiple_of(4)
        && (g.offset * g.channels).is_multiple_of(4)
}

/// Whether the `tensor` and `tensor-f32` kernels run `g` on an interleaved entry: RGB or RGBA
/// (any width).
pub const fn tensor_interleaved(g: &Geometry) -> bool {
    g.channels == 3 || g.channels == 4
}

/// Block shape of the fused separable kernel: 32 × 8 threads.
pub const FUSED_BLOCK: (u32, u32) = (32, 8);
/// Output tile of one fused separable block: 128 × 32 pixels (4 × 4 per thread).
pub const FUSED_TILE: (u32, u32) = (
    FUSED_BLOCK.0 * FAST_PER_THREAD.0,
    FUSED_BLOCK.1 * FAST_PER_THREAD.1,
);

/// Shared memory of the fused separable kernel: the row-filtered `128 × (32 + 2r)` tile.
pub const fn fused_shared_bytes(radius: u32) -> u32 {
    FUSED_TILE.0 * (FUSED_TILE.1 + 2 * radius) * 4
}

/// Block shape of the `tensor` kernel: 8 warps.
pub const TENSOR_BLOCK: (u32, u32) = (32, 8);
/// Output tile of one `tensor` block: 128 × 64 pixels; warp `w` computes the 64 × 16 part at
/// `(64 · (w % 2), 16 · (w / 2))`.
pub const TENSOR_TILE: (u32, u32) = (128, 64);
/// Largest radius of the `tensor` kernel: a window of 8 outputs and its `2r` halo fit the 16
/// columns one half of an MMA's K = 32 covers.
pub const TENSOR_MAX_RADIUS: u32 = 4;
/// Signed 8-bit digits each fixed-point tap is split into (24 bits: f32's precision).
pub const TENSOR_DIGITS: u32 = 3;
/// Columns an MMA's window of 16 input columns starts before its first output (the largest
/// radius, so every window is 4-byte aligned whatever the radius).
pub const TENSOR_WINDOW_LEAD: u32 = TENSOR_MAX_RADIUS;
/// Columns of the `tensor` kernel's input tile left of the output tile: 16, so the tile's rows are
/// whole 16-byte vectors; the tile is 160 columns wide.
pub const TENSOR_HALO: u32 = 16;
/// Width of the `tensor` kernel's input tile in bytes: the output tile and a 16-byte vector of
/// halo on each side.
pub const TENSOR_COLUMNS: u32 = TENSOR_TILE.0 + 2 * TENSOR_HALO;
/// Row stride of the `tensor` kernel's shared input tile, in bytes: 176 = 44 words, 12 mod 32,
/// so the 8 rows × 4 words of an A fragment fall in 32 different banks, and a multiple of 16.
pub const TENSOR_STRIDE: u32 = 176;
/// Row stride of a warp's output staging area (16 rows of 64 bytes), in bytes: 80 = 20 words, so
/// the 8 rows a warp writes at once fall in different banks, and a multiple of 16.
pub const TENSOR_OUT_STRIDE: u32 = 80;

/// Pairs of filter rows of the `tensor` kernel's taps argument for radius `radius`: `k = 2r + 1`
/// rows and one of zero taps. The kernel does one MMA per pair and digit, except for the last
/// pair, whose first row it multiplies alone (an MMA of half the size).
pub const fn tensor_pairs(radius: u32) -> u32 {
    radius + 1
}

/// Rows of the `tensor` kernel's shared tile: the output tile, the halo, and one row more (the
/// last pair's second row, which has zero taps: loaded, never multiplied).
pub const fn tensor_rows(radius: u32) -> u32 {
    TENSOR_TILE.1 + 2 * radius + 1
}

/// Shared memory of the `tensor` kernel for images of `channels` channels: the input tile's
/// plane of each channel, then each warp's output staging area.
pub const fn tensor_shared_bytes(radius: u32, channels: u32) -> u32 {
    let warps = TENSOR_BLOCK.0 * TENSOR_BLOCK.1 / 32;
    channels * TENSOR_STRIDE * tensor_rows(radius) + warps * 16 * TENSOR_OUT_STRIDE
}

/// Words of the `tensor` kernel's taps argument: per pair of filter rows, digit and half of K, one
/// B-fragment word per lane (index `((pair · DIGITS + digit) · 2 + half) · 32 + lane`), then the
/// `f32` bits of the factor that turns the exact integer sum into a value in [0, 1].
pub const fn tensor_words(radius: u32) -> u32 {
    tensor_pairs(radius) * TENSOR_DIGITS * 2 * 32 + 1
}

/// Largest radius at which an RGB or RGBA `tensor-f32` block filters every colour channel of its
/// tile (RGBA's alpha is copied), so each line of the interleaved tile crosses from L2 to the SM
/// once: up to it two such blocks' planes fit an SM's shared memory. Beyond it each block filters
/// one channel, the channels of a tile in neighbouring blocks, as gray blocks do their one.
pub const SPLIT_COLOUR_MAX_RADIUS: u32 = 12;
/// Channels a `tensor-f32` block filters for an image of `channels` channels and a filter of
/// radius `radius`: 3 for RGB and RGBA up to [`SPLIT_COLOUR_MAX_RADIUS`], else 1.
pub const fn split_planes(channels: u32, radius: u32) -> u32 {
    if channels == 1 || radius > SPLIT_COLOUR_MAX_RADIUS {
        1
    } else {
        3
    }
}
/// Block shape of the `tensor-f32` kernel (`conv_tensor_split`) whose blocks filter `planes`
/// channels: 8 warps for one, 12 (4 a channel) for three.
pub const fn split_block(planes: u32) -> (u32, u32) {
    if planes == 1 { (32, 8) } else { (32, 12) }
}
/// Output tile of one `tensor-f32` block that filters `planes` channels: 128 × 64 pixels for one,
/// 128 × 32 for three (each channel's planes take shared memory). Warp `w` computes the 64 × 16
/// part at `(64 · (s % 2), 16 · (s / 2))`, `s = w % 4` for three (its channel is `w / 4`), else
/// `w`, as 8 windows of 8 columns.
pub const fn split_tile(planes: u32) -> (u32, u32) {
    if planes == 1 { (128, 64) } else { (128, 32) }
}
/// Row stride, in words, of the area where a `tensor-f32` block of three channels stages its
/// outputs (128 pixels of three samples, interleaved; plus 4, so the 8 rows of a warp's stores
/// spread over the banks, and a multiple of 4, so rows stay 16-byte aligned). The area is the
/// block's planes, which are larger at every radius.
pub const SPLIT_STAGING_STRIDE: u32 = 3 * split_tile(3).0 + 4;
const _: () = assert!(
    4 * split_tile(3).1 * SPLIT_STAGING_STRIDE <= split_shared_bytes(0, 3) - 4 * 3 * split_block(3).1
);
/// Largest radius of the `tensor-f32` kernel (as the other kernels': 31 × 31 filters).
pub const SPLIT_MAX_RADIUS: u32 = 15;
/// Smallest radius of the `tensor-f32` kernel the variant offers: a 1 × 1 filter's tolerance (one
/// `f32` rounding) is tighter than the error of the FP16 splits.
pub const SPLIT_MIN_RADIUS: u32 = 1;

/// Columns of the `tensor-f32` tile left of the output tile: the radius rounded up to a multiple
/// of 4, so the tile's rows start 16-byte aligned.
pub const fn split_lead(radius: u32) -> u32 {
    radius.div_ceil(4) * 4
}

/// 8-column chunks of input a window of 8 outputs spans: its `8 + 2r` columns start
/// `split_lead(r) - r` columns into the window's first chunk.
pub const fn split_chunks(radius: u32) -> u32 {
    (8 + 2 * radius + split_lead(radius) - radius).div_ceil(8)
}

/// Columns of the `tensor-f32` input tile: the 16 windows' chunks, `128 + 8 · (chunks - 1)`.
pub const fn split_columns(radius: u32) -> u32 {
    split_tile(1).0 + 8 * (split_chunks(radius) - 1)
}

/// Row stride of each plane of the `tensor-f32` tile (the samples' FP16 high parts, then their low
/// parts), in words of two halves: the columns' words, plus 4 where that makes it 4 mod 8, so the
/// A-fragment loads of 8 rows × 4 lanes fall in 32 different banks; even, so rows stay 8-byte
/// aligned.
pub const fn split_stride(radius: u32) -> u32 {
    let words = split_columns(radius) / 2;
    if words.is_multiple_of(8) { words + 4 } else { words }
}

/// Rows of the `tensor-f32` input tile: the output tile's and the filter's.
pub const fn split_rows(radius: u32, planes: u32) -> u32 {
    split_tile(planes).1 + 2 * radius
}

/// Shared memory of the `tensor-f32` kernel whose blocks filter `planes` channels: one word per
/// warp and channel (their largest magnitudes), then each channel's two planes of the input tile.
pub const fn split_shared_bytes(radius: u32, planes: u32) -> u32 {
    let plane = split_stride(radius) * split_rows(radius, planes);
    4 * planes * (split_block(planes).1 + 2 * plane)
}

/// Words of the `tensor-f32` kernel's taps argument: for each of the `r + 1` pairs of filter rows
/// (the last has one row) and each chunk, 4 words per lane (`[b0, b1]` of the high parts, then of
/// the low parts; index `((pair · chunks + chunk) · 32 + lane) · 4`), then the `f32` bits of the
/// factor that undoes the taps' scale.
pub const fn split_words(radius: u32) -> u32 {
    (radius + 1) * split_chunks(radius) * 32 * 4 + 1
}
