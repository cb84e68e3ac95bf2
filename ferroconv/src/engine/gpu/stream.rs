//! [`StreamRef`]: a CUDA stream of the GPU's context that plans and device images queue work on
//! without owning it (re-exported as `ferroconv::plan::StreamRef`).

use super::Gpu;
use crate::Result;
use crate::error::check;
use cust::sys::CUstream;

/// A CUDA stream of the GPU's context, borrowed: the plan queues work on it and never
/// synchronizes or destroys it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamRef(CUstream);

// SAFETY: a CUstream is a driver handle, usable from any thread whose current context owns it
// (the plan makes its GPU's context current for every call).
unsafe impl Send for StreamRef {}
// SAFETY: as above; the handle is only passed to the driver, never dereferenced.
unsafe impl Sync for StreamRef {}

impl StreamRef {
    /// The legacy default stream (`0`): work on it waits for, and is waited for by, every
    /// blocking stream of the context.
    pub const LEGACY: StreamRef = StreamRef(std::ptr::null_mut());
    /// The per-thread default stream (`CU_STREAM_PER_THREAD`).
    pub const PER_THREAD: StreamRef = StreamRef(2 as CUstream);

    /// Wraps a raw `CUstream` (or `cudaStream_t`: the same handle), such as
    /// `torch.cuda.current_stream().cuda_stream` or `cupy.cuda.get_current_stream().ptr`.
    ///
    /// # Safety
    /// `stream` must be a stream of the primary context of the GPU the plan runs on (or one of
    /// the two special handles above), and must stay valid while work the plan queued on it
    /// has not finished.
    pub unsafe fn from_raw(stream: CUstream) -> Self {
        StreamRef(stream)
    }

    /// The raw handle.
    pub fn as_raw(&self) -> CUstream {
        self.0
    }

    /// Waits until the work queued on this stream has finished; reports a kernel's fault.
    pub fn synchronize(&self, gpu: &Gpu) -> Result<()> {
        let _current = gpu.enter()?;
        // SAFETY: `from_raw`'s contract makes the handle a stream of this context.
        check("wait for the stream", unsafe {
            cust::sys::cuStreamSynchronize(self.0)
        })
    }
}
