//! The device-side API the kernels are written against: `cuda_std`'s names and meaning over
//! `core::arch::nvptx` (Rust-CUDA's `cuda_std` itself does not build for rustc's nvptx target), plus
//! this project's convolution helpers.
//!
//! - [`thread`]: indices, block size, [`sync_threads`](thread::sync_threads) (as `cuda_std::thread`).
//! - [`shared`]: [`dynamic_shared_mem`](shared::dynamic_shared_mem) (as `cuda_std::shared`).
//! - [`Sample`]: `u8`, `u16`, `f32`, `f16`, [`bf16`] samples read as `f32` (integers in [0, 1])
//!   and written back (as [`Store`] says), also 4 at a time.
//! - [`Source`]: where input samples come from ([`Global`], [`ReadOnly`], [`Texture`]).
//! - [`resolve`], [`fetch_or_cval`], [`outside_is_constant`]: border handling.
//! - [`ParamTaps`], [`TapRead`], [`param_taps!`]: filter taps read from kernel parameters.
//! - [`fma`], [`correlate`], [`correlate_tile`], [`per_sample`], [`store_sample`], [`store_patch`]:
//!   the arithmetic and the output side.
//! - [`batch_image`], [`batch_lengths`]: the image of a batch a block works on.
//! - [`root_of_squares`], [`combine_image`], [`combine_patch`], [`combine_sample`]: roots of sums of
//!   squares as numpy rounds them, and the combined store of `Geometry::combine`.
//! - [`unroll!`]: loops unrolled at compile time, so register arrays stay in registers.
//!
//! Raw special-register reads, the barrier and inline PTX (`ld.global.nc`, `tex`, `ld.param`) live
//! here, each behind a safe or documented-`unsafe` function, so the kernels hold only their own
//! pointer arithmetic's `unsafe`.

pub mod mma;
pub mod shared;
pub mod thread;

mod batch;
mod border;
mod conv;
mod half;
mod hypot;
mod sample;
mod source;
mod taps;
mod unroll;

pub use batch::{batch_image, batch_lengths};
pub use border::{fetch_or_cval, outside_is_constant, resolve};
pub use conv::{
    computed_here, copy_alpha_tile, correlate, correlate_tile, fma, is_alpha, out_index, per_sample,
    store_patch, store_sample,
};
pub use half::bf16;
pub use hypot::{combine_image, combine_patch, combine_sample, root_of_squares};
pub(crate) use sample::split_store;
pub use sample::{Bytes16, F32x4, Sample, Store, byte_perm, byte_value, clamp_keeping_nan, level_bits_as};
pub use source::{Global, ReadOnly, Source, Texture};
pub(crate) use taps::param_taps;
pub use taps::{ParamTaps, TapRead};
pub(crate) use unroll::unroll;
