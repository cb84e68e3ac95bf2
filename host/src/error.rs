//! The library's one error type; CUDA failures carry the driver's own message.

use std::fmt;

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A CUDA driver call failed; `op` says which step.
    #[error("{op}: {}", DriverMessage(*.source))]
    Cuda {
        op: &'static str,
        source: cust::error::CudaError,
    },
    /// No GPU can be used: no driver library, no device, or the driver refused to start.
    #[error("{0}")]
    NoGpu(String),
    /// The driver could not compile (JIT) the embedded PTX; the JIT log is included.
    #[error("the CUDA driver could not load the kernels' PTX: {0}")]
    Jit(String),
    /// A filter that cannot be used (even size, too large, wrong number of taps, not finite).
    #[error("invalid filter: {0}")]
    Filter(String),
    /// Image dimensions that cannot be used.
    #[error("invalid image: {0}")]
    Image(String),
}

/// Builds a `map_err` closure that tags a CUDA error with the step that failed.
pub fn cuda(op: &'static str) -> impl FnOnce(cust::error::CudaError) -> Error {
    move |source| Error::Cuda { op, source }
}

/// Prints a CUDA error as the driver describes it, e.g. `out of memory (OutOfMemory)`.
struct DriverMessage(cust::error::CudaError);

impl fmt::Display for DriverMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // cust's own Display asks the driver and fails when the driver is not loaded; only call
        // it when it is, and fall back to the error's name otherwise.
        if crate::driver::is_loaded() {
            let text = std::panic::catch_unwind(|| self.0.to_string()).unwrap_or_default();
            if !text.is_empty() {
                return write!(f, "{} ({:?})", text.trim_matches('"'), self.0);
            }
        }
        write!(f, "{:?}", self.0)
    }
}
