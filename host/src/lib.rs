//! The tools of the `host` command line, built on [`ferroconv`]: a library target so that the
//! integration tests use them too.
//!
//! - [`verify`]: comparison with the reference, the verification ladder, sanitizer plan, soak;
//! - [`bench`](mod@bench): the benchmark sweep and the comparison with the CUDA C++ peers.

pub mod bench;
pub mod verify;
