//! What every kernel and the host agree on: the geometry and taps parameters, the border codes and
//! the largest filter. Each kernel's own launch (entry name, block, tile, shared memory, register
//! limit) is at the top of its file in [`kernels`](crate::kernels), with, on the host, its launch
//! shape for a geometry (a `LaunchConfig`) and its global loads per pixel.

/// Largest filter radius any kernel accepts (filter size `2 * MAX_RADIUS + 1` = 31).
pub const MAX_RADIUS: u32 = 15;
/// Largest filter side length.
pub const MAX_FILTER_SIZE: u32 = 2 * MAX_RADIUS + 1;
/// Number of taps the by-value filter parameter holds.
pub const MAX_TAPS: usize = (MAX_FILTER_SIZE * MAX_FILTER_SIZE) as usize;
/// Largest radius of the `separable` passes, whose kernels loop over a radius given at run time
/// and read each pass's `2r + 1` taps from global memory (1023 taps: radius 511).
pub const MAX_SEPARABLE_RADIUS: u32 = 511;

/// Block shape of the one-thread-per-output-sample kernels (`naive`, `constant`, `readonly`,
/// `texture`): 32 threads along a row, 8 rows (256 threads).
pub const PIXEL_BLOCK: (u32, u32) = (32, 8);

#[cfg(not(target_arch = "nvptx64"))]
mod shape;
#[cfg(not(target_arch = "nvptx64"))]
pub use shape::{LaunchConfig, halo, taps};

/// Border modes, as the kernels receive them in [`Geometry::border`].
pub mod border {
    /// Pixels outside the image are the constant [`Geometry::cval`](super::Geometry::cval)
    /// (0 for the zero border, "ghost cells").
    pub const CONSTANT: u32 = 0;
    /// Clamp to the nearest edge pixel.
    pub const REPLICATE: u32 = 1;
    /// Mirror without repeating the edge pixel: `d c b | a b c d | c b a`.
    pub const REFLECT: u32 = 2;
    /// Periodic: the image repeats.
    pub const WRAP: u32 = 3;
    /// Coordinates are used as they are: every tap is inside the image (the `valid` border), or the
    /// texture unit's address mode handles the outside.
    pub const NONE: u32 = 4;
    /// Mirror repeating the edge pixel: `a b c d | d c b a` (scipy's `reflect`, numpy's
    /// `symmetric`, OpenCV's `BORDER_REFLECT`).
    pub const SYMMETRIC: u32 = 5;
}

/// Sizes and modes of one convolution, passed by value to every kernel.
///
/// Images are interleaved (`channels` samples per pixel) and row-major without padding. Output
/// pixel `(x, y)` is centred on input pixel `(x + offset, y + offset)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Geometry {
    pub in_width: u32,
    pub in_height: u32,
    pub out_width: u32,
    pub out_height: u32,
    /// 1 (gray), 3 (RGB) or 4 (RGBA: channel 3 is copied from the input unchanged, unless
    /// `filter_alpha`).
    pub channels: u32,
    pub radius: u32,
    /// One of [`border`].
    pub border: u32,
    /// `radius` for the valid border, else 0.
    pub offset: u32,
    /// Non-zero: clamp `f32` results to [0, 1] (rounded integer results are always clamped;
    /// truncated ones never: [`trunc_scale`](Self::trunc_scale)).
    pub clamp: u32,
    /// The value of pixels outside the image under [`border::CONSTANT`], on the kernels' scale
    /// (integer samples divided by their maximum); 0 for every other border.
    pub cval: f32,
    /// `tensor-f32` only (0 for every other kernel, and for a plain filter): the number of blocks
    /// of taps a filter larger than the kernel's radius is cut into, each with its own centre
    /// (see the kernel), whose results the kernel sums.
    pub blocks: u32,
    /// `blocked-rect` only (0 for every other kernel): the filter's radius down a column, whose
    /// rows the kernel loops over at run time; `radius` is then its radius along a row.
    pub radius_y: u32,
    /// Non-zero: RGBA's channel 3 is filtered like the others (scipy's and PyTorch's rule);
    /// zero: copied from the input (the rule for image files). Kernels whose RGBA entries stage
    /// only the colour channels (`tensor-u8`, and `tensor-f32` up to its colour radius) copy
    /// alpha regardless: the host does not launch them so.
    pub filter_alpha: u32,
    /// How integer results become levels. 0 (the default): rounded to the nearest level. Else
    /// truncated as scipy.ndimage casts a float result into an integer array (a C cast, through
    /// `i32` on x86): level = `v · trunc_scale` toward zero, its low bits kept (out-of-range
    /// results wrap modulo the type's range), `v` the result on the kernels' scale and the
    /// product's truncation exact, for products of magnitude below 2^24 (others, and NaN, give
    /// an unspecified level). The host sets it to
    /// `max · widen`, rounded once to `f32` ([`trunc_scale`]): `widen` = [`widen`]`(taps, max)`
    /// makes a result that is exactly a whole number of levels (a flat region under weights
    /// summing to 1) truncate to that level despite the `f32` rounding below it. Ignored for
    /// `f32` samples (the host passes 0).
    pub trunc_scale: f32,
    /// `separable` and `separable-fused` on `f32` samples only (zeros for every other kernel and
    /// call): the device address (low word, high word) of an `f32` image laid out as the output
    /// (a batch as the output's batch, 16-byte aligned), or 0. Where it is not 0 the kernel stores
    /// `√(c² + v²)` for each result `v`, `c` that image's sample at the same place, each step
    /// rounded to nearest (numpy's `np.sqrt(c * c + v * v)`): the last pass of
    /// `gaussian_gradient_magnitude`'s two terms. The image may be the output itself.
    pub combine: [u32; 2],
    /// Zero, unread: it keeps the size of `Geometry` (68 bytes) at 52 mod 16, as it was before
    /// `trunc_scale`, so the taps parameter after it keeps its alignment in the constant bank.
    /// ptxas compiles by-value taps differently at other alignments (with 56 bytes,
    /// `conv_blocked_4x4_f32_r7` took 48 registers instead of 56): every kernel's code stays as
    /// it was.
    pub pad: u32,
}

// The taps after the geometry keep their alignment in the constant bank (see `Geometry::pad`).
const _: () = assert!(core::mem::size_of::<Geometry>() % 16 == 52 % 16);

/// The widening of a truncating integer store ([`Geometry::trunc_scale`]) of integer samples of
/// largest value `max`, for a result summed over `taps` products: `1 + 4 · taps · 2^-24`, four
/// times the relative error bound of an `f32` sum of that many terms, so that a result exactly on
/// a level (RGBA's copied alpha, a flat region) truncates to that level despite the `f32`
/// roundings below it; capped at `1 + 2^-8 / max`, so that no result gains more than 2^-8 of a
/// level (the Python package widens its own `f32` sums alike). The cap binds for `u16` at every
/// size and for `u8` past 16 taps. `taps` counts the products along the result's whole chain of
/// `f32` roundings: `rows · cols` for a filter applied as one 2D sum, `rows + cols` for a rank-1
/// filter applied as two 1D passes (`separable`, `separable-fused`, the CPU's two passes).
pub const fn widen(taps: u32, max: u32) -> f64 {
    let by_taps = 4.0 * taps as f64 / 16_777_216.0;
    let cap = 1.0 / (256.0 * max as f64);
    1.0 + if by_taps < cap { by_taps } else { cap }
}

/// [`Geometry::trunc_scale`] for integer samples of largest value `max` and results summed over
/// `taps` products ([`widen`]): `max · widen(taps, max)` rounded once to `f32`.
pub const fn trunc_scale(max: u32, taps: u32) -> f32 {
    (max as f64 * widen(taps, max)) as f32
}

/// The filter taps passed by value as a kernel parameter. Kernel parameters live in the GPU's
/// constant bank, so every thread of a warp reading the same tap is one broadcast, which is what
/// CUDA's `__constant__` memory gives. The first `k * k` entries hold the `k × k` filter row-major
/// (or, for `separable-fused`, its `k` row taps then its `k` column taps).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Taps(pub [f32; MAX_TAPS]);

/// Exactly the `N = k²` taps of a `k × k` filter (row-major), by value: the parameter of kernels
/// compiled per radius, so a launch carries only the taps that radius needs. The host passes a
/// [`Taps`], whose first `N` values these are.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExactTaps<const N: usize>(pub [f32; N]);

/// Sample types: the suffix of the entry-point names of kernels compiled for several of them.
pub const DTYPES: [&str; 3] = ["u8", "u16", "f32"];
/// The half floats (`f16`, `bf16`), which only `blocked-4x2` (gray, RGB, RGBA), the `separable`
/// passes and `separable-fused` have entries for, named as the others'.
pub const HALF_DTYPES: [&str; 2] = ["f16", "bf16"];

/// Channel counts the `blocked`, `tensor-u8`, `tensor-f32` and `warp-rows` kernels have interleaved
/// entries for, `<base>_c<channels>[_<type>]_r<r>`.
pub const INTERLEAVED_CHANNELS: [u32; 2] = [3, 4];
