//! Measuring: the benchmark sweep against the machine's roofline and the
//! comparison with the hand-written CUDA C++ peers.

pub mod peers;
pub mod sweep;
mod tables;
