//! The convolution engines of a batch: the CPU, or one GPU (reusing its device buffers) per
//! [`Engine`], convolving an image whole or in strips, and several GPUs sharing one image's strips.

use super::Settings;
use crate::engine::autotune::Tuner;
use crate::engine::fault::{self, Stage};
use crate::engine::gpu::{DeviceJob, Gpu, Problem, Variant};
use crate::{Image, Result, engine::cpu, engine::strips};
use serde::Serialize;
use std::time::Instant;

/// Which GPU variant runs.
pub enum Choice {
    /// Always this one.
    Fixed(Variant),
    /// The fastest for each image's problem class, measured once and cached (`--variant auto`).
    Auto(Tuner),
}

/// Where convolutions run.
pub enum Engine<'g> {
    /// The multi-threaded CPU path (`cpu-par`).
    Cpu,
    /// The GPU; device buffers (and their pinned staging memory) are kept and reused while images
    /// keep their shape and variant.
    Gpu {
        gpu: &'g Gpu,
        choice: Choice,
        cached: Option<Box<(Problem, Variant, DeviceJob)>>,
    },
}

/// A convolution's result, its number of strips and its times.
pub type Convolved = (Image, usize, ComputeTimes);

/// Times of one image's convolution (ms).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ComputeTimes {
    /// The whole convolution on the host clock (GPU: including transfers and allocation).
    pub compute_ms: f64,
    /// The variant that ran (a GPU variant's name or `cpu-par`).
    pub variant: &'static str,
    /// GPU kernels only (CUDA events).
    pub kernel_ms: Option<f64>,
    pub h2d_ms: Option<f64>,
    pub d2h_ms: Option<f64>,
}

impl Engine<'_> {
    /// The name of what runs: a GPU variant's name, `auto`, or `cpu-par`.
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu => "cpu-par",
            Engine::Gpu {
                choice: Choice::Fixed(v),
                ..
            } => v.name(),
            Engine::Gpu {
                choice: Choice::Auto(_),
                ..
            } => "auto",
        }
    }

    /// Frees the engine's device buffers (a no-op on the CPU).
    pub fn release(&mut self) {
        if let Engine::Gpu { cached, .. } = self {
            *cached = None;
        }
    }

    /// Convolves `image` (in strips when it exceeds the budget); returns the result, the number of
    /// strips and the times. `fault` makes that stage fail (fault injection).
    pub fn convolve(&mut self, image: &Image, s: &Settings, fault: Option<Stage>) -> Result<Convolved> {
        let start = Instant::now();
        fault::strike(fault, Stage::Compute)?;
        let (r, border) = (s.filter.radius(), s.border);
        let problem = Problem::of(image, &s.filter, border, s.clamp);
        let mut times = ComputeTimes::default();
        let (out, strips) = match self {
            Engine::Cpu => {
                times.variant = "cpu-par";
                let plan = strips::plan(&problem, false, s.max_mem.unwrap_or(usize::MAX))?;
                let out = strips::run(image, r, border, &plan, |strip| {
                    cpu::parallel(strip, &s.filter, border, s.clamp)
                })?;
                (out, plan.len())
            }
            Engine::Gpu { gpu, choice, cached } => {
                let variant = match choice {
                    Choice::Fixed(v) => *v,
                    Choice::Auto(tuner) => tuner.choose(gpu, &problem)?.0,
                };
                times.variant = variant.name();
                let plan = strips::plan(&problem, variant.spec().has_intermediate(), budget(gpu, s)?)?;
                let kernel = gpu.kernel(variant, image.dtype())?;
                let mut copy = CopyTimes::default();
                let out = strips::run(image, r, border, &plan, |strip| {
                    gpu_strip(gpu, cached, variant, &kernel, strip, s, fault, &mut copy)
                })?;
                copy.report(&mut times);
                (out, plan.len())
            }
        };
        times.compute_ms = start.elapsed().as_secs_f64() * 1e3;
        Ok((out, strips, times))
    }

    /// Convolves `image` on every engine of `engines` (one per GPU) at once: its strips (at
    /// least one per GPU, more where the memory budget of the smallest asks for them) are dealt
    /// to the GPUs, strip `i` to GPU `i mod n`, each GPU on its own thread with its own context,
    /// buffers and stream, and the result is assembled. The variant is chosen once, by the first
    /// engine, for the whole image, and runs on every strip, so the result is the one GPU's bit
    /// for bit. `kernel_ms`, `h2d_ms` and `d2h_ms` are the busiest GPU's. With one engine (or
    /// the CPU), [`Engine::convolve`].
    pub fn convolve_spread(
        engines: &mut [Engine<'_>],
        image: &Image,
        s: &Settings,
        fault: Option<Stage>,
    ) -> Result<Convolved> {
        let gpus: Vec<&Gpu> = engines
            .iter()
            .filter_map(|e| match e {
                Engine::Gpu { gpu, .. } => Some(*gpu),
                Engine::Cpu => None,
            })
            .collect();
        if engines.len() < 2 || gpus.len() != engines.len() {
            return engines[0].convolve(image, s, fault);
        }
        let start = Instant::now();
        fault::strike(fault, Stage::Compute)?;
        let (r, border) = (s.filter.radius(), s.border);
        let problem = Problem::of(image, &s.filter, border, s.clamp);
        gpus[0].make_current()?;
        let variant = match &mut engines[0] {
            Engine::Gpu {
                gpu,
                choice: Choice::Auto(tuner),
                ..
            } => tuner.choose(gpu, &problem)?.0,
            Engine::Gpu {
                choice: Choice::Fixed(v),
                ..
            } => *v,
            Engine::Cpu => unreachable!("only GPU engines are spread"),
        };
        let mut smallest = usize::MAX;
        for gpu in &gpus {
            gpu.make_current()?;
            smallest = smallest.min(budget(gpu, s)?);
        }
        let n = gpus.len();
        let (_, oh) = problem.output_size()?;
        let planned = strips::plan(&problem, variant.spec().has_intermediate(), smallest)?.len();
        let plan = strips::split(oh, planned.div_ceil(n) * n, r, border);
        let mut workers: Vec<(&mut Engine<'_>, CopyTimes)> =
            engines.iter_mut().map(|e| (e, CopyTimes::default())).collect();
        let out = strips::run_spread(image, r, border, &plan, &mut workers, |(engine, copy), strip| {
            let Engine::Gpu { gpu, cached, .. } = &mut **engine else {
                unreachable!("only GPU engines are spread")
            };
            gpu.make_current()?;
            let kernel = gpu.kernel(variant, image.dtype())?;
            gpu_strip(gpu, cached, variant, &kernel, strip, s, fault, copy)
        })?;
        let busiest = workers
            .iter()
            .map(|(_, c)| *c)
            .fold(CopyTimes::default(), CopyTimes::max);
        gpus[0].make_current()?;
        let mut times = ComputeTimes {
            variant: variant.name(),
            ..ComputeTimes::default()
        };
        busiest.report(&mut times);
        times.compute_ms = start.elapsed().as_secs_f64() * 1e3;
        Ok((out, plan.len(), times))
    }
}

/// Device memory one convolution may use on `gpu`: `--max-gpu-mem`, else 90% of what is free.
fn budget(gpu: &Gpu, s: &Settings) -> Result<usize> {
    match s.max_mem {
        Some(b) => Ok(b),
        None => Ok(gpu.memory()?.0 / 10 * 9),
    }
}

/// GPU times of the strips one GPU convolved, in ms.
#[derive(Clone, Copy, Debug, Default)]
struct CopyTimes {
    kernel: f64,
    h2d: f64,
    d2h: f64,
}

impl CopyTimes {
    /// Each time the larger of the two.
    fn max(self, o: CopyTimes) -> CopyTimes {
        CopyTimes {
            kernel: self.kernel.max(o.kernel),
            h2d: self.h2d.max(o.h2d),
            d2h: self.d2h.max(o.d2h),
        }
    }

    fn report(self, times: &mut ComputeTimes) {
        times.kernel_ms = Some(self.kernel);
        times.h2d_ms = Some(self.h2d);
        times.d2h_ms = Some(self.d2h);
    }
}

/// One strip image on `gpu`: the device buffers in `cached` are reused when the strip has their
/// shape and variant, else replaced; upload, kernel and download times are added to `copy`.
#[allow(clippy::too_many_arguments)]
fn gpu_strip(
    gpu: &Gpu,
    cached: &mut Option<Box<(Problem, Variant, DeviceJob)>>,
    variant: Variant,
    kernel: &crate::engine::gpu::Kernel<'_>,
    strip: &Image,
    s: &Settings,
    fault: Option<Stage>,
    copy: &mut CopyTimes,
) -> Result<Image> {
    let strip_problem = Problem::of(strip, &s.filter, s.border, s.clamp);
    let reusable = cached
        .as_ref()
        .is_some_and(|c| c.1 == variant && same_shape(&c.0, &strip_problem));
    if !reusable {
        // Free the old buffers before allocating the new ones.
        *cached = None;
        let mut job = gpu.alloc(variant, &strip_problem)?;
        gpu.pin(&mut job)?;
        *cached = Some(Box::new((strip_problem.clone(), variant, job)));
    }
    let job = &mut cached.as_mut().expect("allocated above").2;
    fault::strike(fault, Stage::Upload)?;
    copy.h2d += gpu.upload(job, strip)?;
    fault::strike(fault, Stage::Launch)?;
    copy.kernel += gpu.time(|g| g.launch(kernel, job))?;
    fault::strike(fault, Stage::Download)?;
    let (result, ms) = gpu.download(job)?;
    copy.d2h += ms;
    Ok(result)
}

/// Whether two problems (same filter, border and clamping within a batch) have the same buffers.
fn same_shape(a: &Problem, b: &Problem) -> bool {
    (a.width, a.height, a.channels, a.dtype) == (b.width, b.height, b.channels, b.dtype)
}
