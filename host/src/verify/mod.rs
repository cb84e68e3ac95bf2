//! Trusting the results: comparison with the `f64` reference, the verification ladder, the
//! sanitizer suite's plan and the soak run.

pub mod check;
pub mod jobs;
pub mod ladder;
pub mod sanitize;
pub mod soak;
