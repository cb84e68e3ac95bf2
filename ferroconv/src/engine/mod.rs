//! Where a convolution runs: the GPU (kernels, jobs, streams), the CPU (reference and timed
//! paths), the autotuner that picks between GPU variants, strips for big images and the batch
//! engine that drives either over many images.

pub mod autotune;
#[cfg(feature = "cli")]
pub mod batch;
pub mod cpu;
pub mod fault;
pub mod gpu;
pub mod runner;
pub mod strips;
