//! Measurements of the GPU itself, which the benchmarks print beside their tables as ceilings:
//! device and page-locked copies and the FP32 FMA rate (feature `testing`).

use super::launch::arg;
use super::{Gpu, cuda};
use crate::{Result, stats};
use cust::memory::{AsyncCopyDestination, DeviceBuffer};
use gpu_kernels::kernels::probe;

impl Gpu {
    /// Device-to-device copy bandwidth, counting bytes read plus bytes written, in GB/s: the
    /// median of `runs` copies of a `bytes`-byte buffer after a warm-up copy.
    pub fn copy_bandwidth(&self, bytes: usize, runs: usize) -> Result<f64> {
        let src = DeviceBuffer::from_slice(&vec![1u8; bytes]).map_err(cuda("allocate the copy probe"))?;
        // SAFETY: written by the copies below before anything reads it.
        let mut dst =
            unsafe { DeviceBuffer::<u8>::uninitialized(bytes) }.map_err(cuda("allocate the copy probe"))?;
        let mut copy = |gpu: &Self| {
            // SAFETY: both buffers are device memory of `bytes` bytes that outlive the copy (`time`
            // waits for it).
            unsafe { dst.async_copy_from(&*src, &gpu.inner.stream) }.map_err(cuda("copy on the device"))
        };
        self.time(&mut copy)?;
        let ms = stats::repeat(runs, || self.time(&mut copy))?.map_or(f64::NAN, |t| t.median);
        Ok(2.0 * bytes as f64 / ms / 1e6)
    }

    /// One copy of `bytes` bytes from page-locked host memory to this GPU and one back, in ms
    /// (CUDA events, each the median of `runs` after a warm-up): what copies of a host image of
    /// that size cost at best.
    pub fn pinned_copy_ms(&self, bytes: usize, runs: usize) -> Result<(f64, f64)> {
        let _current = self.enter()?;
        // SAFETY: both buffers are written by the copies below before anything reads them.
        let mut host = unsafe { cust::memory::LockedBuffer::<u8>::uninitialized(bytes) }
            .map_err(cuda("allocate the copy probe"))?;
        // SAFETY: as above.
        let mut device =
            unsafe { DeviceBuffer::<u8>::uninitialized(bytes) }.map_err(cuda("allocate the copy probe"))?;
        let median = |copy: &mut dyn FnMut(&Self) -> Result<()>| -> Result<f64> {
            self.time(&mut *copy)?;
            Ok(stats::repeat(runs, || self.time(&mut *copy))?.map_or(f64::NAN, |t| t.median))
        };
        let h2d = median(&mut |gpu| {
            // SAFETY: page-locked host memory and device memory of `bytes` bytes each, both
            // alive until `time` has waited for the copy.
            unsafe { device.async_copy_from(&*host, &gpu.inner.stream) }.map_err(cuda("copy to the GPU"))
        })?;
        let d2h = median(&mut |gpu| {
            // SAFETY: as above.
            unsafe { device.async_copy_to(&mut *host, &gpu.inner.stream) }.map_err(cuda("copy from the GPU"))
        })?;
        Ok((h2d, d2h))
    }

    /// The FP32 fused multiply-add rate, in GFLOP/s, measured with the `fma_probe` kernel on
    /// enough blocks to fill every SM: the median of `runs` launches after a warm-up.
    pub fn fma_peak(&self, runs: usize) -> Result<f64> {
        let probe = self
            .inner
            .module
            .get_function(probe::ENTRY)
            .map_err(cuda("find the FMA probe"))?;
        let (block, iters) = (256u32, 4096u32);
        let blocks = 16 * self.inner.info.multiprocessors as u32;
        let threads = (block * blocks) as usize;
        // SAFETY: every element is written by the probe.
        let out =
            unsafe { DeviceBuffer::<f32>::uninitialized(threads) }.map_err(cuda("allocate the probe"))?;
        let ptr = out.as_device_ptr().as_raw();
        let seed = 0.5f32;
        let args = [arg(&ptr), arg(&iters), arg(&seed)];
        let run = |gpu: &Self| {
            // SAFETY: the arguments match `fma_probe(out: *mut f32, iters: u32, seed: f32)` and `out`
            // has one element per thread of the grid.
            unsafe {
                gpu.inner
                    .stream
                    .launch(&probe, (blocks, 1, 1), (block, 1, 1), 0, &args)
            }
            .map_err(cuda("launch the FMA probe"))
        };
        self.time(run)?;
        let ms = stats::repeat(runs, || self.time(run))?.map_or(f64::NAN, |t| t.median);
        Ok(2.0 * 8.0 * f64::from(iters) * threads as f64 / ms / 1e6)
    }
}
