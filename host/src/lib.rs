//! 2D image convolution with Rust GPU kernels: CPU reference, GPU runner, verification and timing.
//!
//! The GPU kernels live in the `gpu-kernels` crate and are compiled to PTX (and SASS, when the
//! build finds `ptxas`) at build time; this library loads them with `cust`, runs each variant,
//! and checks every result against an independent CPU reference that accumulates in `f64`.
//!
//! ```
//! use conv::{Border, Convolver, DType, Filter, Image};
//! use conv::model::filter::FilterKind;
//!
//! let image = Image::random(640, 480, 3, DType::U8, 1)?;
//! let blur = Filter::builtin(FilterKind::Gaussian, 5, None)?;
//! // The GPU when there is one, else the CPU: the same result either way.
//! let out = Convolver::new()?.convolve(&image, &blur, Border::Reflect)?;
//! assert_eq!((out.width(), out.height(), out.channels()), (640, 480, 3));
//! # Ok::<(), conv::Error>(())
//! ```
//!
//! The layout, by concern:
//! - [`model`]: images, filters, borders and the [`Problem`] they make;
//! - [`engine`]: where it runs: [`engine::gpu`] (its [`variant`](engine::gpu::variant) registry
//!   describes every kernel), [`engine::cpu`], the autotuner, strips and the batch engine;
//! - [`io`]: image files, batch inputs and outputs, interruption;
//! - [`verify`]: comparison with the reference, the verification ladder, sanitizer plan, soak;
//! - [`bench`](mod@bench): the benchmark sweep and the comparison with the CUDA C++ peers.

#![feature(portable_simd)]

mod convolver;

pub mod bench;
pub mod engine;
pub mod error;
pub mod io;
pub mod model;
pub mod named;
pub mod stats;
pub mod verify;

pub use convolver::Convolver;
pub use engine::gpu::{Gpu, Variant};
pub use error::{Error, Result};
pub use model::border::Border;
pub use model::filter::Filter;
pub use model::image::{DType, Image};
pub use model::problem::Problem;
