//! 2D image convolution with Rust GPU kernels: CPU reference, GPU runner, verification and timing.
//!
//! The GPU kernels live in the `gpu-kernels` crate and are compiled to PTX at build time; this
//! library loads that PTX with `cust`, runs each variant, and checks every result against an
//! independent CPU reference that accumulates in `f64`.

pub mod autotune;
pub mod batch;
pub mod bench;
pub mod border;
pub mod check;
pub mod cpu;
pub mod driver;
pub mod error;
pub mod fault;
pub mod files;
pub mod filter;
pub mod gpu;
pub mod image;
pub mod interrupt;
pub mod jobs;
pub mod named;
pub mod peers;
pub mod pipeline;
pub mod sanitize;
pub mod soak;
pub mod stats;
pub mod strips;
mod texture;

pub use border::Border;
pub use error::{Error, Result};
pub use filter::Filter;
pub use image::{DType, Image};
