//! [`Magnitude`]: the root of the sum of squares of two or three `f32` device arrays (the
//! `magnitude_f32` kernel), the last step of scipy's `gaussian_gradient_magnitude`.

use crate::engine::gpu::{EntryPoint, Gpu};
use crate::error::check;
use crate::plan::StreamRef;
use crate::{Error, Result};
use gpu_kernels::kernels::magnitude::{self, BLOCK};
use std::ffi::c_void;

/// `magnitude_f32` resolved on one GPU: `out = √(a² + b² (+ c²))` sample by sample, each step
/// rounded in `f32` as numpy rounds `np.sqrt(a * a + b * b + c * c)`.
pub struct Magnitude {
    gpu: Gpu,
    function: EntryPoint,
}

impl Magnitude {
    /// The kernel on `gpu`.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let _current = gpu.enter()?;
        Ok(Self {
            gpu: gpu.clone(),
            function: gpu.entry(magnitude::ENTRY)?,
        })
    }

    /// Queues `out = √(Σ terms²)` over `len` samples on `stream`; returns without waiting.
    ///
    /// # Safety
    /// `terms` (two or three) and `out` must be device memory of the plan's GPU (its primary
    /// context), each holding `len` `f32` and allocated until the work queued here has run on
    /// `stream`, a stream of that context (see [`StreamRef::from_raw`]); `out` may be one of
    /// the terms but must not overlap another array otherwise.
    pub unsafe fn run_raw(&self, terms: &[u64], out: u64, len: usize, stream: StreamRef) -> Result<()> {
        if !(2..=3).contains(&terms.len()) {
            return Err(Error::InvalidRequest(format!(
                "the magnitude of {} arrays: two or three",
                terms.len()
            )));
        }
        if terms.iter().chain([&out]).any(|p| p % 16 != 0) {
            return Err(Error::InvalidRequest(
                "the magnitude's arrays must be 16-byte aligned".into(),
            ));
        }
        if len == 0 {
            return Ok(());
        }
        let bytes = len as u64 * 4;
        if terms
            .iter()
            .any(|&t| t != out && t < out + bytes && out < t + bytes)
        {
            return Err(Error::InvalidRequest(
                "the magnitude's output overlaps a term it is not".into(),
            ));
        }
        let (a, b, c) = (terms[0], terms[1], terms.get(2).copied().unwrap_or(0));
        let len = len as u64;
        let grid = magnitude::grid(len);
        let _current = self.gpu.enter()?;
        let arg = |p: &u64| (p as *const u64).cast::<c_void>().cast_mut();
        let mut args = [arg(&a), arg(&b), arg(&c), arg(&out), arg(&len)];
        // SAFETY: the arguments are `magnitude_f32`'s `(a, b, c, out, len)`, each pointing at a
        // value alive until the call returns (the driver copies them); the caller guarantees the
        // arrays, checked above for alignment and overlap; any grid is the kernel's contract;
        // `stream` belongs to the current context.
        check("launch the magnitude kernel", unsafe {
            cust::sys::cuLaunchKernel(
                self.function.raw(),
                grid,
                1,
                1,
                BLOCK,
                1,
                1,
                0,
                stream.as_raw(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }
}
