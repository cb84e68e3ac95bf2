//! Where a convolution runs: the GPU (kernels, jobs, streams), the CPU (reference and timed
//! paths), the autotuner that picks between GPU variants, and strips for big images.

pub mod autotune;
pub mod cpu;
pub mod gpu;
pub mod strips;
