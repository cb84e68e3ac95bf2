//! 2D image convolution with Rust GPU kernels: CPU reference, GPU runner, verification and timing.
//!
//! The GPU kernels live in the `gpu-kernels` crate and are compiled to PTX at build time; this
//! library loads that PTX with `cust`, runs each variant, and checks every result against an
//! independent CPU reference that accumulates in `f64`.

pub mod bench;
pub mod engine;
pub mod error;
pub mod io;
pub mod model;
pub mod named;
pub mod stats;
pub mod verify;

pub use engine::gpu::{Gpu, Problem, Variant};
pub use error::{Error, Result};
pub use model::border::Border;
pub use model::filter::Filter;
pub use model::image::{DType, Image};
