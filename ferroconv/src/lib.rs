//! 2D image convolution with Rust GPU kernels: the model, the GPU and CPU engines, image I/O.
//!
//! The GPU kernels live in the `gpu-kernels` crate and are compiled to PTX (and SASS, when the
//! build finds `ptxas`) at build time; this library loads them with `cust` and runs each variant,
//! next to an independent CPU reference that accumulates in `f64`. The `host` package builds on
//! it: the command line, the verification against the reference, and the benchmarks.
//!
//! ```
//! use ferroconv::{Border, Convolver, DType, Filter, Image};
//! use ferroconv::model::filter::FilterKind;
//!
//! let image = Image::random(640, 480, 3, DType::U8, 1)?;
//! let blur = Filter::builtin(FilterKind::Gaussian, 5, None)?;
//! // The GPU when there is one, else the CPU: the same result either way.
//! let out = Convolver::new()?.convolve(&image, &blur, Border::Reflect)?;
//! assert_eq!((out.width(), out.height(), out.channels()), (640, 480, 3));
//! # Ok::<(), ferroconv::Error>(())
//! ```
//!
//! The layout, by concern:
//! - [`model`]: images, filters, borders and the [`Problem`] they make;
//! - [`engine`]: where it runs: [`engine::gpu`] (its [`variant`](engine::gpu::variant) registry
//!   describes every kernel), [`engine::cpu`], the autotuner, strips and the batch engine;
//! - [`io`]: image files, batch inputs and outputs, interruption;
//! - [`named`], [`stats`], [`error`]: names of the enumerations, timing statistics, the error type.

mod convolver;

pub mod engine;
pub mod error;
pub mod io;
pub mod model;
pub mod named;
pub mod plan;
pub mod stats;

pub use convolver::Convolver;
pub use engine::gpu::{Gpu, Variant};
pub use error::{Error, Result};
pub use model::border::Border;
pub use model::filter::Filter;
pub use model::image::{DType, Image};
pub use model::problem::Problem;
pub use plan::{DeviceImage, Filter2D, ImageView, ImageViewMut, RawImage, StreamRef};

/// The revision of the repository this library was built from (`git describe`), or `unknown`:
/// reports record which revision produced their numbers.
pub const GIT_REV: &str = env!("CONV_GIT_REV");
