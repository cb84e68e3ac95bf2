//! `Magnitude`: the root of the sum of squares of two or three float32 CUDA arrays, the last
//! step of `gaussian_gradient_magnitude` on float32 results.

use crate::{gpu, to_py};
use ferroconv::fork;
use ferroconv::plan::StreamRef;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The library's `Magnitude` kernel on one GPU.
#[pyclass(frozen)]
pub(crate) struct Magnitude {
    kernel: ferroconv::plan::Magnitude,
    /// The process that made it (a forked child must not use the parent's GPU handles).
    pid: u32,
}

#[pymethods]
impl Magnitude {
    /// The kernel on GPU `device`.
    #[new]
    fn new(device: usize) -> PyResult<Self> {
        let kernel = ferroconv::plan::Magnitude::new(gpu(device).map_err(to_py)?).map_err(to_py)?;
        Ok(Self {
            kernel,
            pid: fork::process_id(),
        })
    }

    /// Queues `out = sqrt(sum of terms squared)` over `len` float32 samples at the device
    /// addresses `terms` (two or three) into `out` (one of them, or a separate array) on
    /// `stream`.
    fn run_device(&self, py: Python<'_>, terms: Vec<u64>, out: u64, len: usize, stream: usize) -> PyResult<()> {
        if self.pid != fork::process_id() {
            return Err(PyRuntimeError::new_err(fork::FORKED));
        }
        // SAFETY: the package passes the data pointers of live, packed float32 CUDA arrays of
        // the kernel's device, each of `len` samples, that it holds until the call returns and
        // that the stream orders (the framework's current stream); `out` is one of the terms or
        // a separate array; `stream` a stream of the device's primary context.
        py.detach(|| unsafe {
            self.kernel
                .run_raw(&terms, out, len, StreamRef::from_raw(stream as *mut _))
        })
        .map_err(to_py)
    }
}
