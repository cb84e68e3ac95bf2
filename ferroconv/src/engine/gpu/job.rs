//! A convolution's device side: the buffers and kernel arguments of one job, allocated as the
//! variant's [`Spec`](super::variant::Spec) says, and the copies in and out of it.

use super::texture::TextureInput;
use super::variant::{InputKind, TapsArg, Variant};
use super::{Gpu, cuda};
use crate::error::check;
use crate::model::filter::{Separable, taps_param};
use crate::model::image::{DType, Image, Samples};
use crate::{Error, Filter, Problem, Result};
use cust::memory::{AsyncCopyDestination, DeviceBuffer};
use gpu_kernels::launch::{Geometry, Taps, border};

/// Where a job's input lives on the device.
pub(super) enum Input {
    Linear(DeviceBuffer<u8>),
    Texture(TextureInput),
}

/// The taps argument of one pass.
pub(super) enum PassTaps {
    /// Taps in global memory (the kernel gets their address): the filter, or one pass's.
    Global(DeviceBuffer<f32>),
    /// Taps by value.
    Value(Box<Taps>),
    /// 32-bit words in global memory (the kernel gets their address): the tensor kernels'
    /// fragments.
    Words(DeviceBuffer<u32>),
    /// The fragments of every block of a larger filter: the kernel's radius for each block, and
    /// how many.
    Blocks(DeviceBuffer<u32>, u32, u32),
    /// A rectangle's taps by value, and its radii down a column and along a row.
    Rect(Box<Taps>, u32, u32),
    /// A row's or a column's taps by value, and its radii down a column and along a row (one of
    /// them 0).
    Line(Box<Taps>, u32, u32),
}

/// Device buffers and parameters of one convolution on the GPU, for one variant.
pub struct DeviceJob {
    pub(super) variant: Variant,
    pub(super) dtype: DType,
    pub(super) geometry: Geometry,
    pub(super) input: Input,
    pub(super) output: DeviceBuffer<u8>,
    /// Between two passes, for variants that have them.
    pub(super) intermediate: Option<DeviceBuffer<f32>>,
    /// One per pass of the variant.
    pub(super) taps: Vec<PassTaps>,
    /// The sum of a rank-1 filter's row taps (0 for the other variants): a pass over the row
    /// pass's results reads a row outside the image, all the constant, as the constant times it.
    pub(super) row_sum: f32,
}

impl DeviceJob {
    /// Device addresses of the input and output buffers, or `None` for a texture input.
    pub(crate) fn linear_buffers(&self) -> Option<(u64, u64)> {
        match &self.input {
            Input::Linear(buf) => Some((buf.as_device_ptr().as_raw(), self.output.as_device_ptr().as_raw())),
            Input::Texture(_) => None,
        }
    }
}

/// The taps argument a pass of kind `kind` gets for `filter` (whose factors are `rank1`, for a
/// rank-1-only variant) over geometry `g`.
fn pass_taps(kind: TapsArg, filter: &Filter, rank1: Option<&Separable>, g: &Geometry) -> Result<PassTaps> {
    let factors =
        || rank1.ok_or_else(|| Error::Mismatch("a rank-1 pass without the filter's factors".into()));
    Ok(match kind {
        TapsArg::Global => {
            PassTaps::Global(DeviceBuffer::from_slice(filter.taps()).map_err(cuda("upload the filter"))?)
        }
        TapsArg::Filter => PassTaps::Value(filter.to_param()),
        TapsArg::FilterPerLevel => {
            let taps: Vec<f32> = filter
                .taps()
                .iter()
                .map(|&t| (f64::from(t) / 255.0) as f32)
                .collect();
            PassTaps::Value(taps_param(&taps))
        }
        TapsArg::RowThenColumn => {
            let s = factors()?;
            PassTaps::Value(taps_param(&[s.row.as_slice(), s.column.as_slice()].concat()))
        }
        TapsArg::Row => {
            PassTaps::Global(DeviceBuffer::from_slice(&factors()?.row).map_err(cuda("upload the filter"))?)
        }
        TapsArg::Column => {
            PassTaps::Global(DeviceBuffer::from_slice(&factors()?.column).map_err(cuda("upload the filter"))?)
        }
        TapsArg::TensorU8 => PassTaps::Words(
            DeviceBuffer::from_slice(&super::tensor_u8::fragments(filter.taps(), filter.radius()))
                .map_err(cuda("upload the filter"))?,
        ),
        TapsArg::TensorF32 => PassTaps::Words(
            DeviceBuffer::from_slice(&super::tensor_f32::fragments(filter.taps(), filter.radius()))
                .map_err(cuda("upload the filter"))?,
        ),
        TapsArg::Rect => {
            let (taps, (ry, rx)) = filter.odd_rect();
            PassTaps::Rect(taps_param(&taps), ry as u32, rx as u32)
        }
        TapsArg::Line => {
            let (taps, (ry, rx)) = filter.odd_rect();
            if ry > 0 && rx > 0 {
                return Err(Error::Unsupported(format!(
                    "the lines-u8 variant runs filters of one row or one column (1xk, kx1), not {}x{}",
                    2 * ry + 1,
                    2 * rx + 1
                )));
            }
            PassTaps::Line(taps_param(&taps), ry as u32, rx as u32)
        }
        TapsArg::TensorF32Blocks => {
            let b = super::tensor_f32::blocks(filter.taps(), filter.size(), g);
            let words = DeviceBuffer::from_slice(&b.words).map_err(cuda("upload the filter"))?;
            PassTaps::Blocks(words, b.radius, b.count)
        }
    })
}

impl Gpu {
    /// Allocates (uninitialized) device buffers for `problem` as `variant` needs them, and uploads
    /// the filter (a few hundred bytes) for a kernel that reads it from global memory.
    pub fn alloc(&self, variant: Variant, problem: &Problem) -> Result<DeviceJob> {
        self.alloc_job(variant, problem, true, 1)
    }

    /// [`Gpu::alloc`], with input and output buffers only where `io` (a plan that reads and writes
    /// its caller's buffers needs only the taps and the intermediate), and an intermediate for
    /// `images` images (a batch of a batched variant in one launch).
    pub(crate) fn alloc_job(
        &self,
        variant: Variant,
        problem: &Problem,
        io: bool,
        images: usize,
    ) -> Result<DeviceJob> {
        crate::model::image::check_dims(problem.width, problem.height)?;
        variant.check_supports(problem.dtype, problem.filter.radius())?;
        let mut geometry = problem.geometry()?;
        // The rank-1 variants run the filter as two 1D passes: truncated as such.
        geometry.trunc_scale = problem.trunc_scale(variant.needs_rank1());
        if !(variant.spec().honours_alpha)(&geometry) {
            return Err(Error::Unsupported(format!(
                "the {} variant copies RGBA's alpha at this filter size; it cannot filter it",
                variant.name()
            )));
        }
        let (ow, oh) = problem.output_size()?;
        let size = problem.dtype.size();
        let io = usize::from(io);
        let in_bytes = problem.width * problem.height * problem.channels * size * io;
        let out_bytes = ow * oh * problem.channels * size * io;
        let input = if variant.spec().input == InputKind::Texture {
            let tex = TextureInput::new(
                problem.width,
                problem.height,
                problem.channels,
                problem.dtype,
                problem.border,
            )?;
            if tex.hardware_border {
                geometry.border = border::NONE;
            }
            Input::Texture(tex)
        } else {
            // SAFETY: the buffer is written by an upload before any kernel reads it (none is
            // allocated for zero bytes).
            Input::Linear(
                unsafe { DeviceBuffer::uninitialized(in_bytes) }.map_err(cuda("allocate the input"))?,
            )
        };
        // SAFETY: the output is poisoned or written by a kernel before it is read.
        let output =
            unsafe { DeviceBuffer::uninitialized(out_bytes) }.map_err(cuda("allocate the output"))?;
        let spec = variant.spec();
        let rank1 = if spec.rank1_only {
            Some(problem.filter.rank1().ok_or_else(|| {
                Error::Filter(format!(
                    "the {} variant needs a rank-1 (separable) filter",
                    variant.name()
                ))
            })?)
        } else {
            None
        };
        let taps = spec
            .passes
            .iter()
            .map(|pass| pass_taps(pass.taps, &problem.filter, rank1.as_ref(), &geometry))
            .collect::<Result<Vec<_>>>()?;
        let intermediate = if spec.has_intermediate() {
            // SAFETY: the first pass writes every element before the second reads it.
            Some(
                unsafe {
                    DeviceBuffer::uninitialized(ow * problem.height * problem.channels * images.max(1))
                }
                .map_err(cuda("allocate the intermediate"))?,
            )
        } else {
            None
        };
        Ok(DeviceJob {
            variant,
            dtype: problem.dtype,
            geometry,
            input,
            output,
            intermediate,
            taps,
            row_sum: rank1.map_or(0.0, |s| s.row.iter().sum()),
        })
    }

    /// Copies `image` to the job's input; returns the copy's GPU time in ms.
    pub fn upload(&self, job: &mut DeviceJob, image: &Image) -> Result<f64> {
        let g = &job.geometry;
        if (image.width(), image.height(), image.channels(), image.dtype())
            != (
                g.in_width as usize,
                g.in_height as usize,
                g.channels as usize,
                job.dtype,
            )
        {
            return Err(Error::Mismatch(
                "the image does not match the job it is uploaded to".into(),
            ));
        }
        let source = image.samples().as_bytes();
        self.time(|gpu| match &mut job.input {
            Input::Linear(buf) => {
                // SAFETY: `time` waits for an event recorded after this copy before it returns,
                // so the source outlives the copy.
                unsafe { buf.async_copy_from(source, &gpu.inner.stream) }
                    .map_err(cuda("copy the image to the GPU"))
            }
            Input::Texture(tex) => {
                // SAFETY: as above.
                unsafe { tex.queue_upload(image, &gpu.inner.stream) }
            }
        })
    }

    /// Fills the output buffer with `byte` repeated (or, for `f32` outputs when `byte` is `None`,
    /// with NaN); returns the GPU time in ms.
    pub fn poison(&self, job: &mut DeviceJob, byte: Option<u8>) -> Result<f64> {
        let ptr = job.output.as_device_ptr().as_raw();
        let len = job.output.len();
        self.time(|gpu| {
            // SAFETY: the fill covers exactly the output buffer, which we own; `time` waits for it.
            let status = unsafe {
                match byte {
                    Some(b) => cust::sys::cuMemsetD8Async(ptr, b, len, gpu.inner.stream.as_inner()),
                    None => cust::sys::cuMemsetD32Async(
                        ptr,
                        f32::NAN.to_bits(),
                        len / 4,
                        gpu.inner.stream.as_inner(),
                    ),
                }
            };
            check("poison the output", status)
        })
    }

    /// Copies the job's output into a new image; returns it and the copy's GPU time in ms.
    pub fn download(&self, job: &mut DeviceJob) -> Result<(Image, f64)> {
        let g = &job.geometry;
        let (w, h, c) = (g.out_width as usize, g.out_height as usize, g.channels as usize);
        let mut samples = Samples::filled(job.dtype, w * h * c);
        let target = samples.as_bytes_mut();
        let output = &job.output;
        let ms = self.time(|gpu| {
            // SAFETY: `time` waits for an event recorded after this copy before it returns, so
            // the target outlives the copy.
            unsafe { output.async_copy_to(target, &gpu.inner.stream) }
                .map_err(cuda("copy the result from the GPU"))
        })?;
        Ok((Image::new(w, h, c, samples)?, ms))
    }
}
