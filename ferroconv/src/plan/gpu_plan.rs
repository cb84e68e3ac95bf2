//! The GPU side of a [`Filter2D`](super::Filter2D): the variant's choice, and the kernels and
//! buffers kept for the last image shape (and batch size) it ran, launched on packed images a
//! batch at a time.

use super::host::HostPath;
use crate::engine::autotune::Choice;
use crate::engine::gpu::{DeviceJob, Gpu, Kernel, Problem, Variant};
use crate::model::image::DType;
use crate::{Error, Result};
use std::time::Instant;

/// What a plan keeps for the last image shape it ran.
pub(super) struct Ready {
    /// Width, height, channels, sample type and images of a batch.
    shape: (usize, usize, usize, DType, usize),
    pub(super) variant: Variant,
    /// The taps (and the intermediate of two-pass variants); no input or output buffers.
    job: DeviceJob,
    /// After the job: fields drop in order, and the kernel's GPU clones keep the context alive
    /// for the job's buffers.
    kernel: Kernel,
}

pub(super) struct GpuPlan {
    pub(super) choice: Choice,
    pub(super) ready: Option<Ready>,
    /// Created by the first host call.
    pub(super) host: Option<HostPath>,
    /// Packed copies of pitched device images, grown on demand.
    pub(super) repack: [cust::memory::DeviceBuffer<u8>; 2],
    /// Time the last [`Filter2D::prepare`](super::Filter2D::prepare) that chose a variant spent
    /// choosing, in ms.
    pub(super) choose_ms: f64,
    /// Host runs record [`StageTimes`](super::StageTimes).
    pub(super) timed: bool,
    /// Last: fields drop in order, so the buffers, streams and staging above are freed while
    /// this clone keeps the context alive (it may be the last one).
    pub(super) gpu: Gpu,
}

impl GpuPlan {
    /// Queues the prepared kernel on `images` packed images of `problem`'s shape, image `i` at
    /// `input.0 + i·input.1` and its result at `output.0 + i·output.1` (addresses, bytes): one
    /// launch for the variants that take batches (up to the grid's limit), else one an image.
    /// `combine`: the address of an `f32` image of the output's layout, for
    /// [`Geometry::combine`](gpu_kernels::launch::Geometry::combine) (the caller has checked
    /// that the variant takes it).
    pub(super) fn launch_batch(
        &self,
        problem: &Problem,
        stream: cust::sys::CUstream,
        input: (u64, usize),
        output: (u64, usize),
        images: usize,
        combine: Option<u64>,
    ) -> Result<()> {
        let Some(ready) = &self.ready else {
            return Err(Error::Mismatch("the plan lost its kernels".into()));
        };
        let mut g = problem.geometry()?;
        g.trunc_scale = problem.trunc_scale(ready.variant.needs_rank1());
        let per_launch = per_launch(ready.variant);
        for first in (0..images).step_by(per_launch) {
            let n = per_launch.min(images - first);
            let io = (
                input.0 + (first * input.1) as u64,
                output.0 + (first * output.1) as u64,
            );
            if let Some(address) = combine {
                let at = address + (first * output.1) as u64;
                g.combine = [at as u32, (at >> 32) as u32];
            }
            self.gpu
                .launch_on(&ready.kernel, &ready.job, g, stream, Some(io), n as u32)?;
        }
        Ok(())
    }

    /// Forgets the kernels and buffers of the last shape (leaked in a forked child, where freeing
    /// them would call the driver: [`crate::fork`]).
    pub(super) fn unprepare(&mut self) {
        if let Some(ready) = self.ready.take()
            && crate::fork::cuda_forked()
        {
            std::mem::forget(ready);
        }
    }

    /// The kernels, variant and taps for `problem`'s shape in batches of `images`: kept from the
    /// last call when they are the same, else chosen and allocated now. A batch is tuned as one
    /// image `images` times as tall (the work of one launch). The context must be current.
    pub(super) fn prepare(&mut self, problem: &Problem, images: usize) -> Result<()> {
        let shape = (
            problem.width,
            problem.height,
            problem.channels,
            problem.dtype,
            images,
        );
        if self.ready.as_ref().is_none_or(|r| r.shape != shape) {
            self.unprepare();
            let started = Instant::now();
            let tuned = Problem {
                height: problem.height.saturating_mul(images),
                ..problem.clone()
            };
            let variant = self.choice.variant(&self.gpu, &tuned)?;
            self.choose_ms = started.elapsed().as_secs_f64() * 1e3;
            self.ready = Some(Ready {
                shape,
                variant,
                kernel: self.gpu.kernel(variant, problem.dtype)?,
                job: self
                    .gpu
                    .alloc_job(variant, problem, false, images.min(per_launch(variant)))?,
            });
        }
        Ok(())
    }
}

/// Images a launch of `variant` takes: up to 65535 grid planes of at most 4 channels where the
/// variant takes batches, else one.
fn per_launch(variant: Variant) -> usize {
    if variant.spec().batched { 65_535 / 4 } else { 1 }
}
