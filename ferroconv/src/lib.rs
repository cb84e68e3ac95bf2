//! 2D image convolution with Rust GPU kernels: the model, the GPU and CPU engines, image I/O.
//!
//! The GPU kernels live in the `gpu-kernels` crate and are compiled to PTX (and SASS, when the
//! build finds `ptxas`) at build time; this library loads them with `cust` and runs each variant,
//! next to an independent CPU reference that accumulates in `f64`. The `host` package builds on
//! it: the command line, the verification against the reference, and the benchmarks.
//!
//! ```
//! use ferroconv::{Border, Convolver, Filter, Image};
//! use ferroconv::model::filter::FilterKind;
//! use ferroconv::model::image::Samples;
//!
//! // An RGB image, its samples interleaved row after row.
//! let pixels: Vec<u8> = (0..640 * 480 * 3).map(|i| (i % 251) as u8).collect();
//! let image = Image::new(640, 480, 3, Samples::U8(pixels))?;
//! let blur = Filter::builtin(FilterKind::Gaussian, 5, None)?;
//! // The GPU when there is one, else the CPU: the same result either way.
//! let out = Convolver::new()?.convolve(&image, &blur, Border::Reflect)?;
//! assert_eq!((out.width(), out.height(), out.channels()), (640, 480, 3));
//! # Ok::<(), ferroconv::Error>(())
//! ```
//!
//! The API: [`plan`] (a [`Filter2D`] built once and run many times on host views, device images
//! or raw device pointers), [`Convolver`] (one call on an owned image), the [`model`] (images,
//! filters, borders), [`Gpu`] (with its [`GpuInfo`]) and [`Variant`], and image files
//! ([`io::files`]).
//!
//! Beneath the plans, for verification and benchmarks (the `host` package's checks and tables):
//! the [`engine`] (the `f64` CPU reference and the timed CPU paths, the kernels' registry, device
//! jobs and launches, the autotuner, strips), timing [`stats`] and the [`named`] enums' names.
//! They move faster than the plans: a program that filters images needs only the API above.

#![deny(missing_docs)]

mod convolver;

pub mod engine;
pub mod error;
pub mod fork;
pub mod io;
pub mod model;
pub mod named;
pub mod plan;
pub mod stats;

pub use convolver::Convolver;
pub use engine::gpu::{Gpu, GpuInfo, Variant};
pub use error::{Error, Result};
pub use model::border::Border;
pub use model::filter::Filter;
pub use model::image::{DType, Image};
pub use model::problem::Problem;
pub use plan::{DeviceImage, Filter2D, ImageView, ImageViewMut, RawImage, StageTimes, StreamRef};

/// The revision of the repository this library was built from (`git describe`), or `unknown`:
/// reports record which revision produced their numbers.
pub const GIT_REV: &str = env!("CONV_GIT_REV");
