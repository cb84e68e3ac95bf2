//! Kernel launches: a variant's entry points resolved for one sample type ([`Kernel`]) and one
//! typed launch for every pass of every variant, as its [`Spec`](super::variant::Spec) describes.

use super::job::{DeviceJob, Input, PassTaps};
use super::variant::{Buffer, Variant};
use super::{EntryPoint, Gpu};
use crate::error::check;
use crate::model::image::DType;
use crate::{Error, Result};
use cust::sys::CUstream;
use gpu_kernels::launch::LaunchConfig;
use gpu_kernels::launch::{Geometry, Taps};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

/// A variant's kernels resolved from the module for one sample type, ready to launch; resolving
/// happens outside timed regions.
pub struct Kernel {
    variant: Variant,
    dtype: DType,
    /// Per pass: its entry points, as [`Pass::entry_names`](super::variant::Pass::entry_names) lists them.
    functions: Vec<Vec<Entry>>,
}

/// A resolved entry point and the dynamic shared memory it has been allowed so far.
struct Entry {
    function: EntryPoint,
    /// Bytes; past [`DEFAULT_SHARED_LIMIT`] only once `cuFuncSetAttribute` has allowed them, so
    /// the attribute is set once per entry and size, not on every launch.
    shared_allowed: AtomicU32,
}

impl Kernel {
    /// The variant whose entry points this kernel holds.
    pub fn variant(&self) -> Variant {
        self.variant
    }
}

/// Dynamic shared memory a kernel may use without opting in (`cuFuncSetAttribute`).
pub(crate) const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// The last argument of a convolution kernel, as the kernel declares it.
enum TapsParam<'a> {
    Pointer(u64),
    Value(&'a Taps),
}

/// The arguments every convolution kernel takes: `(input, output, Geometry, taps)`.
struct ConvArgs<'a> {
    input: u64,
    output: u64,
    geometry: Geometry,
    taps: TapsParam<'a>,
}

impl ConvArgs<'_> {
    /// Queues `entry` with these arguments on `stream` (a handle of this GPU's context: the
    /// engine's own streams, or a caller's).
    fn launch(&self, stream: CUstream, entry: &Entry, config: LaunchConfig) -> Result<()> {
        if config.grid.1 > 65_535 {
            return Err(Error::Launch(format!(
                "the image is too tall for this kernel ({} block rows, at most 65535)",
                config.grid.1
            )));
        }
        let last = match &self.taps {
            TapsParam::Pointer(p) => arg(p),
            TapsParam::Value(t) => arg(*t),
        };
        let function = &entry.function;
        if config.shared_bytes > entry.shared_allowed.load(Ordering::Relaxed) {
            // SAFETY: `function` is a live handle of the loaded module; the attribute takes a
            // byte count (below the GPU's opt-in limit, else the driver refuses it).
            let status = unsafe {
                cust::sys::cuFuncSetAttribute(
                    function.raw(),
                    cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    config.shared_bytes as i32,
                )
            };
            check("allow a kernel more than 48 KiB of shared memory", status)?;
            entry.shared_allowed.store(config.shared_bytes, Ordering::Relaxed);
        }
        let mut args = [arg(&self.input), arg(&self.output), arg(&self.geometry), last];
        let (grid, block) = (config.grid, config.block);
        // SAFETY: every convolution kernel in gpu-kernels takes `(input: *const T or a texture
        // object, output: *mut T or *mut f32, g: Geometry, taps: *const f32 or a by-value Taps
        // prefix)`, which these four arguments are, each pointing at a value that lives until
        // the call returns (the driver copies them); the buffers hold at least what `geometry`
        // covers (the job's own, sized from its Geometry, or a caller's, checked by the plan);
        // block and shared memory come from the variant's registered launch shape; `stream`
        // belongs to the current context.
        let status = unsafe {
            cust::sys::cuLaunchKernel(
                function.raw(),
                grid.0,
                grid.1,
                grid.2,
                block.0,
                block.1,
                1,
                config.shared_bytes,
                stream,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        check("launch a kernel", status)
    }
}

/// A kernel argument: a pointer to the value, as `cuLaunchKernel` takes it.
pub(super) fn arg<T>(value: &T) -> *mut c_void {
    value as *const T as *mut c_void
}

impl Gpu {
    /// Resolves a variant's kernels for samples of `dtype`.
    pub fn kernel(&self, variant: Variant, dtype: DType) -> Result<Kernel> {
        variant.check_supports(dtype, variant.spec().min_radius)?;
        let spec = variant.spec();
        let t = (spec.dtypes.len() > 1).then(|| dtype.suffix());
        let functions = spec
            .passes
            .iter()
            .map(|pass| {
                pass.entry_names(t, spec.entry_radius())
                    .iter()
                    .map(|name| {
                        Ok(Entry {
                            function: self.entry(name)?,
                            shared_allowed: AtomicU32::new(DEFAULT_SHARED_LIMIT),
                        })
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Kernel {
            variant,
            dtype,
            functions,
        })
    }

    /// Queues `kernel` on the job (does not wait).
    pub fn launch(&self, kernel: &Kernel, job: &mut DeviceJob) -> Result<()> {
        self.launch_on(kernel, job, job.geometry, self.inner.stream.as_inner(), None, 1)
    }

    /// Queues `kernel` on `stream` over the job's first `in_height` input rows, as if the image
    /// were that tall (the output shrinks to match); for strips of a larger image.
    pub(crate) fn launch_rows(
        &self,
        kernel: &Kernel,
        job: &DeviceJob,
        in_height: usize,
        stream: CUstream,
    ) -> Result<()> {
        let mut g = job.geometry;
        let rows = u32::try_from(in_height)
            .ok()
            .filter(|&h| h <= g.in_height && h > 2 * g.offset);
        let Some(rows) = rows else {
            return Err(Error::Launch(format!(
                "a strip of {in_height} rows does not fit a job of {} rows",
                g.in_height
            )));
        };
        g.in_height = rows;
        g.out_height = rows - 2 * g.offset;
        self.launch_on(kernel, job, g, stream, None, 1)
    }

    /// Queues every pass of the job's variant over geometry `g` on `stream`, reading and writing
    /// `io` (device addresses of packed images of `g`'s sizes) instead of the job's own input and
    /// output where given; the job then contributes its taps and intermediate buffer only. With
    /// `images > 1`, `io` holds that many packed images one after another, filtered in one launch
    /// by a [`batched`](super::variant::Spec::batched) variant.
    pub(crate) fn launch_on(
        &self,
        kernel: &Kernel,
        job: &DeviceJob,
        g: Geometry,
        stream: CUstream,
        io: Option<(u64, u64)>,
        images: u32,
    ) -> Result<()> {
        if (kernel.variant, kernel.dtype) != (job.variant, job.dtype) {
            return Err(Error::Mismatch(
                "kernel and job are for different variants or sample types".into(),
            ));
        }
        let address = |buffer: Buffer| -> Result<u64> {
            Ok(match (buffer, io) {
                (Buffer::Input, Some((input, _))) => input,
                (Buffer::Output, Some((_, output))) => output,
                (Buffer::Input, None) => match &job.input {
                    Input::Linear(buf) => buf.as_device_ptr().as_raw(),
                    Input::Texture(tex) => tex.object(),
                },
                (Buffer::Output, None) => job.output.as_device_ptr().as_raw(),
                (Buffer::Intermediate, _) => job
                    .intermediate
                    .as_ref()
                    .ok_or_else(|| Error::Mismatch("the job has no intermediate buffer".into()))?
                    .as_device_ptr()
                    .as_raw(),
            })
        };
        let spec = job.variant.spec();
        for ((pass, functions), taps) in spec.passes.iter().zip(&kernel.functions).zip(&job.taps) {
            let mut geometry = g;
            if pass.reads == Buffer::Intermediate {
                // A pass over the row pass's results: a row outside the image, all constant,
                // reads as the constant times the row taps' sum.
                geometry.cval = g.cval * job.row_sum;
            }
            let taps = match taps {
                PassTaps::Global(filter) => TapsParam::Pointer(filter.as_device_ptr().as_raw()),
                PassTaps::Value(taps) => TapsParam::Value(taps),
                PassTaps::Words(words) => TapsParam::Pointer(words.as_device_ptr().as_raw()),
                PassTaps::Rect(taps, ry, rx) => {
                    // The kernel's radius is the rectangle's along a row; it loops over its rows.
                    (geometry.radius, geometry.radius_y) = (*rx, *ry);
                    TapsParam::Value(taps)
                }
                PassTaps::Line(taps, ry, rx) => {
                    // The kernel's radius is the line's, `radius_y` says its axis.
                    (geometry.radius, geometry.radius_y) = ((*ry).max(*rx), *ry);
                    TapsParam::Value(taps)
                }
                PassTaps::Blocks(words, radius, count) => {
                    // The kernel's radius is the blocks', and it loops over them.
                    (geometry.radius, geometry.blocks) = (*radius, *count);
                    TapsParam::Pointer(words.as_device_ptr().as_raw())
                }
            };
            let entry = &functions[pass.function_index(&geometry, spec.entry_radius())];
            let mut config = (pass.config)(&geometry);
            if images > 1 {
                config.grid.2 = config
                    .grid
                    .2
                    .checked_mul(images)
                    .filter(|&z| spec.batched && z <= 65_535)
                    .ok_or_else(|| {
                        Error::Launch(format!(
                            "{images} images in one launch of the {} variant (at most 65535 grid planes, on a batched variant)",
                            spec.name
                        ))
                    })?;
            }
            let args = ConvArgs {
                input: address(pass.reads)?,
                output: address(pass.writes)?,
                geometry,
                taps,
            };
            args.launch(stream, entry, config)?;
        }
        Ok(())
    }
}
