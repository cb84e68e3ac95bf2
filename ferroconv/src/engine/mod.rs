//! Where a convolution runs: the GPU (kernels, jobs, streams), the CPU (reference and timed
//! paths), the autotuner that picks between GPU variants, strips for big images and the runner
//! that drives either over one image (the `host` package's file batches call it).

pub mod autotune;
pub mod cpu;
pub mod fault;
pub mod gpu;
pub mod runner;
pub mod strips;
