//! The tools of the `host` command line, built on [`ferroconv`]: a library target so that the
//! integration tests use them too.
//!
//! - [`batch`]: batches of image files (their inputs and outputs, shards, and the pipeline of
//!   decoding threads, engines and encoding threads, with its progress bar);
//! - [`engine`]: the engines the batches, `host scale` and `host soak` run (the CPU, one GPU's
//!   plan, several GPUs sharing one image), and fault injection;
//! - [`verify`]: comparison with the reference, the verification ladder, sanitizer plan, soak;
//! - [`bench`](mod@bench): the benchmark sweep and the comparison with the CUDA C++ peers.

pub mod batch;
pub mod bench;
pub mod engine;
pub mod verify;
