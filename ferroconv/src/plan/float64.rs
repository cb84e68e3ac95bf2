//! [`Float64Plan`]: a filter of `f64` taps run on `f64` images in device memory, computed in
//! `f64` on the GPU (the `conv_direct_f64` kernel), as scipy computes float64 arrays.

use crate::engine::gpu::{DEFAULT_SHARED_LIMIT, EntryPoint, Gpu};
use crate::error::{check, cuda};
use crate::plan::StreamRef;
use crate::{Border, Error, Result};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::kernels::direct_f64::{self, BLOCK, Direct64, MAX_SIDE, TILE};
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU32, Ordering};

/// A `ky × kx` filter of `f64` taps and a border, on one GPU, for packed `f64` device images of
/// 1 to 4 interleaved channels (each filtered), in batches.
pub struct Float64Plan {
    gpu: Gpu,
    function: EntryPoint,
    /// Freed on drop, but in a child forked after CUDA started (leaked: [`crate::fork`]).
    taps: ManuallyDrop<DeviceBuffer<f64>>,
    /// The launch's parameters but for the image's sizes.
    params: Direct64,
    /// Dynamic shared memory allowed the entry so far (bytes).
    shared_allowed: AtomicU32,
}

impl Float64Plan {
    /// The plan of `taps` (`ky × kx`, row-major, each side 1 to 127) with the tap `(cy, cx)` over
    /// the output sample and `border` (not [`Border::Valid`]); `cval` is the constant border's
    /// value (the others ignore it).
    pub fn new(
        gpu: &Gpu,
        taps: &[f64],
        (ky, kx): (usize, usize),
        (cy, cx): (usize, usize),
        border: Border,
        cval: f64,
    ) -> Result<Self> {
        let side = 1..=MAX_SIDE as usize;
        if !side.contains(&ky) || !side.contains(&kx) || taps.len() != ky * kx {
            return Err(Error::Filter(format!(
                "a float64 filter of {} taps as {ky}x{kx}: each side 1 to {MAX_SIDE}",
                taps.len()
            )));
        }
        if cy >= ky || cx >= kx {
            return Err(Error::Filter(format!(
                "the centre ({cy}, {cx}) is outside the {ky}x{kx} filter"
            )));
        }
        if border == Border::Valid {
            return Err(Error::InvalidRequest(
                "the float64 plan keeps the image's size: no valid border".into(),
            ));
        }
        if !cval.is_finite() || !taps.iter().all(|t| t.is_finite()) {
            return Err(Error::Filter("float64 taps and cval must be finite".into()));
        }
        let _current = gpu.enter()?;
        let function = gpu.entry(direct_f64::ENTRY)?;
        // SAFETY: a live handle of the loaded module; the attribute takes a percentage. As much
        // shared memory as the SM has (a hint), so that blocks, not the L1's share, bound
        // the kernel's occupancy.
        check("prefer shared memory for the float64 kernel", unsafe {
            cust::sys::cuFuncSetAttribute(
                function.raw(),
                cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                100,
            )
        })?;
        // The kernel reads the taps column by column.
        let columns: Vec<f64> = (0..ky * kx).map(|n| taps[(n % ky) * kx + n / ky]).collect();
        let taps = ManuallyDrop::new(DeviceBuffer::from_slice(&columns).map_err(cuda("upload the taps"))?);
        let params = Direct64 {
            cval: if matches!(border, Border::Zero) { 0.0 } else { cval },
            ky: ky as u32,
            kx: kx as u32,
            cy: cy as u32,
            cx: cx as u32,
            border: border.kernel_code(),
            ..Direct64::default()
        };
        Ok(Self {
            gpu: gpu.clone(),
            function,
            taps,
            params,
            shared_allowed: AtomicU32::new(DEFAULT_SHARED_LIMIT),
        })
    }

    /// The taps, row by row, as read back from the GPU (a check for tests).
    pub fn taps(&self) -> Result<Vec<f64>> {
        let _current = self.gpu.enter()?;
        let mut columns = vec![0.0; self.taps.len()];
        self.taps
            .copy_to(&mut columns)
            .map_err(cuda("download the taps"))?;
        let (ky, kx) = (self.params.ky as usize, self.params.kx as usize);
        Ok((0..ky * kx).map(|n| columns[(n % kx) * ky + n / kx]).collect())
    }

    /// Filters `images` packed `width × height × channels` `f64` images of host memory `src`
    /// into `dst` (the same shape): copied to the GPU, filtered and copied back in order on the
    /// legacy default stream (the synchronous copies' own); returns when `dst` holds the result.
    pub fn run(&self, src: &[f64], dst: &mut [f64], dims: (usize, usize, usize, usize)) -> Result<()> {
        let (width, height, channels, images) = dims;
        let len = width * height * channels * images;
        if src.len() != len || dst.len() != len {
            return Err(Error::Mismatch(format!(
                "{} input and {} output samples for {images} images of {width}x{height}x{channels}",
                src.len(),
                dst.len()
            )));
        }
        let _current = self.gpu.enter()?;
        let input = DeviceBuffer::from_slice(src).map_err(cuda("upload the image"))?;
        // SAFETY: the kernel writes every sample before it is read back.
        let output =
            unsafe { DeviceBuffer::<f64>::uninitialized(len) }.map_err(cuda("allocate the output"))?;
        // SAFETY: two separate allocations of this GPU holding `len` samples each, alive until
        // the synchronous copy below, which the legacy stream orders after the kernel.
        unsafe {
            self.run_raw(
                input.as_device_ptr().as_raw(),
                output.as_device_ptr().as_raw(),
                dims,
                StreamRef::LEGACY,
            )?
        };
        output.copy_to(dst).map_err(cuda("download the result"))
    }

    /// Queues the filter of `images` packed `width × height × channels` `f64` images at device
    /// address `src` into the same shape at `dst` on `stream`, returning without waiting.
    ///
    /// # Safety
    /// `src` and `dst` must be device memory of the plan's GPU (its primary context), each
    /// holding `images · height · width · channels` `f64`, not overlapping, both allocated and
    /// `src` unchanged until the work queued here has run on `stream`, a stream of that
    /// context (see [`StreamRef::from_raw`]).
    pub unsafe fn run_raw(
        &self,
        src: u64,
        dst: u64,
        (width, height, channels, images): (usize, usize, usize, usize),
        stream: StreamRef,
    ) -> Result<()> {
        if width == 0 || height == 0 || images == 0 || !(1..=4).contains(&channels) {
            return Err(Error::Image(format!(
                "{images} images of {width}x{height}x{channels}: 1 to 4 channels, none empty"
            )));
        }
        let bytes = (width * height * channels * images * 8) as u64;
        if src < dst + bytes && dst < src + bytes {
            return Err(Error::InvalidRequest("the output overlaps the input".into()));
        }
        let fits = |n: usize| u32::try_from(n).ok();
        let grid = (
            fits(width.div_ceil(TILE.0 as usize)),
            fits(height.div_ceil(TILE.1 as usize)).filter(|&y| y <= 65_535),
            fits(channels * images).filter(|&z| z <= 65_535),
        );
        let (Some(gx), Some(gy), Some(gz)) = grid else {
            return Err(Error::Launch(format!(
                "{images} images of {width}x{height}x{channels} exceed one launch's grid"
            )));
        };
        let params = Direct64 {
            width: width as u32,
            height: height as u32,
            channels: channels as u32,
            ..self.params
        };
        let shared = direct_f64::shared_bytes(params.ky, params.kx);
        let _current = self.gpu.enter()?;
        if shared > self.shared_allowed.load(Ordering::Relaxed) {
            // SAFETY: a live handle of the loaded module; a byte count below the opt-in limit
            // of every GPU the PTX targets (195 KiB at most).
            check("allow the float64 kernel its shared memory", unsafe {
                cust::sys::cuFuncSetAttribute(
                    self.function.raw(),
                    cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared as i32,
                )
            })?;
            self.shared_allowed.store(shared, Ordering::Relaxed);
        }
        let taps = self.taps.as_device_ptr().as_raw();
        let arg = |p: *const c_void| p as *mut c_void;
        let mut args = [
            arg((&src as *const u64).cast()),
            arg((&dst as *const u64).cast()),
            arg((&params as *const Direct64).cast()),
            arg((&taps as *const u64).cast()),
        ];
        // SAFETY: the arguments are `conv_direct_f64`'s `(input, output, Direct64, taps)`, each
        // pointing at a value alive until the call returns (the driver copies them); the caller
        // guarantees the images; the taps hold ky · kx values; grid, block and shared memory are
        // the kernel's launch contract; `stream` belongs to the current context.
        check("launch the float64 kernel", unsafe {
            cust::sys::cuLaunchKernel(
                self.function.raw(),
                gx,
                gy,
                gz,
                BLOCK.0,
                BLOCK.1,
                1,
                shared,
                stream.as_raw(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })
    }
}

impl Drop for Float64Plan {
    fn drop(&mut self) {
        // In a forked child the parent's GPU handles are never called (`enter` fails there).
        if let Ok(_current) = self.gpu.enter() {
            // SAFETY: dropped once, here, and never used after.
            unsafe { ManuallyDrop::drop(&mut self.taps) }
        }
    }
}
