//! The library's one error type; CUDA failures carry the driver's own message.

use std::ffi::{CStr, c_char};
use std::fmt;

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A CUDA driver call failed; `op` says which step, `code` is the `CUresult`.
    #[error("{op}: {}", DriverMessage(*.code))]
    Cuda {
        /// The step that failed.
        op: &'static str,
        /// The driver's `CUresult`.
        code: u32,
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
    /// A kernel that cannot be launched for this geometry (e.g. a grid too tall), or a strip
    /// that does not fit its job.
    #[error("cannot launch the kernel: {0}")]
    Launch(String),
    /// An image, kernel or strip used with a job or pipeline made for another shape, variant or
    /// sample type: a bug in the caller.
    #[error("mismatched use of the GPU engine: {0}")]
    Mismatch(String),
    /// A GPU result that differs from what it must be (checked while benchmarking).
    #[error("wrong result: {0}")]
    WrongResult(String),
    /// A variant asked for a sample type or filter size it has no kernels for.
    #[error("{0}")]
    Unsupported(String),
    /// A request the library cannot carry out as given (e.g. zero timed runs).
    #[error("{0}")]
    InvalidRequest(String),
    /// The autotuner could not time any candidate.
    #[error("variant auto: {0}")]
    Autotune(String),
    /// A `peers.csv` that cannot be read as the peers binary writes it.
    #[error("peers.csv: {0}")]
    Peers(String),
    /// A fault injected for testing (the `host` package's `CONV_INJECT_FAULT`), or a bad
    /// request for one.
    #[error("{0}")]
    Fault(String),
}

impl Error {
    /// Whether this is a device (or injected) fault, after which a batch stops: the GPU context
    /// may be unusable, unlike after a problem with one image.
    pub fn is_device_fault(&self) -> bool {
        matches!(self, Error::Cuda { .. } | Error::Fault(_))
    }
}

/// Builds a `map_err` closure that tags a cust error with the step that failed.
pub(crate) fn cuda(op: &'static str) -> impl FnOnce(cust::error::CudaError) -> Error {
    move |e| Error::Cuda { op, code: e as u32 }
}

/// Turns a raw driver status into a result, tagged with the step that failed.
pub(crate) fn check(op: &'static str, status: cust::sys::CUresult) -> Result<()> {
    match status {
        cust::sys::cudaError_enum::CUDA_SUCCESS => Ok(()),
        other => Err(Error::Cuda {
            op,
            code: other as u32,
        }),
    }
}

/// Prints a driver status as the driver describes it, e.g. `out of memory (CUDA_ERROR_OUT_OF_MEMORY)`.
struct DriverMessage(u32);

impl fmt::Display for DriverMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ask =
            |get: unsafe extern "C" fn(cust::sys::CUresult, *mut *const c_char) -> cust::sys::CUresult| {
                if !crate::engine::gpu::driver::is_loaded() {
                    return None;
                }
                let mut text: *const c_char = std::ptr::null();
                // SAFETY: the driver is loaded. The code came from the driver, so it is a valid
                // CUresult (same size and representation as u32); the driver returns a static string
                // or an error (then `text` stays null).
                unsafe {
                    let code: cust::sys::CUresult = std::mem::transmute(self.0);
                    get(code, &mut text);
                    (!text.is_null()).then(|| CStr::from_ptr(text).to_string_lossy().into_owned())
                }
            };
        match (ask(cust::sys::cuGetErrorString), ask(cust::sys::cuGetErrorName)) {
            (Some(text), Some(name)) => write!(f, "{text} ({name})"),
            _ => write!(f, "CUDA error {}", self.0),
        }
    }
}
