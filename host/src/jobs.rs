//! The two things the CLI does: the main job (run and time every variant, one table) and the
//! verification ladder (every variant against the reference over many sizes and filters).

use crate::check::{self, Comparison};
use crate::gpu::{Gpu, Variant};
use crate::stats::{self, Timing};
use crate::{Filter, Plane, Result, cpu};
use std::time::Instant;

/// Kernel launches before timing starts (module JIT, caches and clocks settle).
const WARMUP_RUNS: usize = 3;

/// One row of the main job's table.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: &'static str,
    /// Compute time: the kernel alone for GPU rows (CUDA events), the whole call for CPU rows.
    pub compute: Timing,
    /// Host-to-device copy of the image (GPU rows; CUDA events).
    pub h2d_ms: Option<f64>,
    /// Device-to-host copy of the result (GPU rows; CUDA events).
    pub d2h_ms: Option<f64>,
    /// Allocating the device buffers and uploading the filter (GPU rows; host clock).
    pub alloc_ms: Option<f64>,
    /// One whole pass on the host clock: for GPU rows allocation, NaN poisoning, upload, one
    /// kernel and download; for CPU rows the median compute time.
    pub end_to_end_ms: f64,
    /// Global-memory loads per output pixel, counted by hand (GPU rows).
    pub loads_per_pixel: Option<f64>,
    pub check: Comparison,
}

/// Everything the main job measured.
#[derive(Clone, Debug)]
pub struct Report {
    pub width: usize,
    pub height: usize,
    pub filter_size: usize,
    pub rows: Vec<Row>,
}

impl Report {
    /// Floating-point operations of one convolution: a multiply and an add per tap and pixel.
    pub fn flops(&self) -> f64 {
        2.0 * (self.filter_size * self.filter_size) as f64 * (self.width * self.height) as f64
    }

    /// Bytes one convolution must move at least: each input pixel read once, each output written once.
    pub fn min_bytes(&self) -> f64 {
        8.0 * (self.width * self.height) as f64
    }

    /// The median time of the row named `name`.
    pub fn median_of(&self, name: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.compute.median)
    }

    pub fn all_passed(&self) -> bool {
        self.rows.iter().all(|r| r.check.passed())
    }
}

/// Settings of the main job.
#[derive(Clone, Debug)]
pub struct MainJob {
    pub image: Plane,
    pub filter: Filter,
    /// Timed kernel launches per GPU variant.
    pub runs: usize,
    /// Timed runs per CPU variant (they are slow at large sizes).
    pub cpu_runs: usize,
}

/// Runs every CPU variant and, when `gpu` is given, every GPU variant; checks each against the
/// `f64` reference.
pub fn main_job(job: &MainJob, gpu: Option<&Gpu>) -> Result<Report> {
    let (image, filter) = (&job.image, &job.filter);
    let expected = cpu::reference_parallel(image, filter);
    let tol = check::tolerance(image, filter);
    let mut rows = Vec::new();
    type CpuVariant = fn(&Plane, &Filter) -> Vec<f32>;
    let cpu_variants: [(&'static str, CpuVariant); 2] =
        [("cpu-seq", cpu::sequential), ("cpu-par", cpu::parallel)];
    for (name, run) in cpu_variants {
        let mut out = Vec::new();
        let compute = stats::repeat(job.cpu_runs.max(1), || -> Result<f64> {
            let t = Instant::now();
            out = run(image, filter);
            Ok(t.elapsed().as_secs_f64() * 1e3)
        })?
        .expect("at least one run");
        rows.push(Row {
            name,
            compute,
            h2d_ms: None,
            d2h_ms: None,
            alloc_ms: None,
            end_to_end_ms: compute.median,
            loads_per_pixel: None,
            check: check::compare(&out, &expected, image.width(), tol),
        });
    }
    if let Some(gpu) = gpu {
        for variant in Variant::ALL {
            rows.push(gpu_row(gpu, variant, job, &expected, tol)?);
        }
    }
    Ok(Report {
        width: image.width(),
        height: image.height(),
        filter_size: filter.size(),
        rows,
    })
}

fn gpu_row(gpu: &Gpu, variant: Variant, job: &MainJob, expected: &[f64], tol: f64) -> Result<Row> {
    let (image, filter) = (&job.image, &job.filter);
    let kernel = gpu.kernel(variant)?;
    // NaN-filled (not zeroed) so the pages are touched before the timed download.
    let mut out = vec![f32::NAN; image.data().len()];

    let pass = Instant::now();
    let mut dev = gpu.alloc(image.width(), image.height(), filter)?;
    gpu.sync()?;
    let alloc_ms = pass.elapsed().as_secs_f64() * 1e3;
    gpu.poison(&mut dev)?;
    let h2d_ms = gpu.upload(&mut dev, image)?;
    let first_ms = gpu.time(|g| g.launch(&kernel, &mut dev))?;
    let d2h_ms = gpu.download(&dev, &mut out)?;
    let end_to_end_ms = pass.elapsed().as_secs_f64() * 1e3;
    let check = check::compare(&out, expected, image.width(), tol);

    for _ in 0..WARMUP_RUNS {
        gpu.launch(&kernel, &mut dev)?;
    }
    gpu.sync()?;
    let compute = stats::repeat(job.runs, || gpu.time(|g| g.launch(&kernel, &mut dev)))?.unwrap_or(Timing {
        median: first_ms,
        min: first_ms,
        runs: 1,
    });
    Ok(Row {
        name: variant.name(),
        compute,
        h2d_ms: Some(h2d_ms),
        d2h_ms: Some(d2h_ms),
        alloc_ms: Some(alloc_ms),
        end_to_end_ms,
        loads_per_pixel: Some(variant.global_loads_per_pixel(filter.radius())),
        check,
    })
}

/// The image sizes (width × height) the verification ladder covers by default.
pub const VERIFY_SIZES: [(usize, usize); 8] = [
    (1, 1),
    (1, 7),
    (7, 1),
    (7, 5),
    (31, 17),
    (257, 129),
    (1023, 769),
    (2048, 2048),
];
/// The filter sizes the verification ladder covers by default.
pub const VERIFY_FILTERS: [usize; 7] = [1, 3, 5, 7, 9, 17, 31];

/// One checked case of the verification ladder.
#[derive(Clone, Debug)]
pub struct Case {
    pub variant: &'static str,
    pub width: usize,
    pub height: usize,
    pub filter_size: usize,
    pub check: Comparison,
}

/// Checks the CPU variants and, with `gpu`, every GPU variant on random images and random filters
/// for every size and filter size; the GPU output is poisoned with NaN before each run.
/// `report` sees each case as it finishes. Returns every case.
pub fn verify(
    sizes: &[(usize, usize)],
    filter_sizes: &[usize],
    seed: u64,
    gpu: Option<&Gpu>,
    mut report: impl FnMut(&Case),
) -> Result<Vec<Case>> {
    let kernels = match gpu {
        Some(g) => Variant::ALL
            .iter()
            .map(|&v| g.kernel(v))
            .collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    let mut cases = Vec::new();
    for (n, &(width, height)) in sizes.iter().enumerate() {
        let image = Plane::random(width, height, seed.wrapping_add(n as u64))?;
        for &k in filter_sizes {
            let filter = Filter::random(k, seed.wrapping_mul(31).wrapping_add((n * 100 + k) as u64))?;
            let expected = cpu::reference_parallel(&image, &filter);
            let tol = check::tolerance(&image, &filter);
            let mut record = |variant: &'static str, got: &[f32]| {
                let case = Case {
                    variant,
                    width,
                    height,
                    filter_size: k,
                    check: check::compare(got, &expected, width, tol),
                };
                report(&case);
                cases.push(case);
            };
            record("cpu-seq", &cpu::sequential(&image, &filter));
            record("cpu-par", &cpu::parallel(&image, &filter));
            if let Some(gpu) = gpu {
                let mut dev = gpu.alloc(width, height, &filter)?;
                gpu.upload(&mut dev, &image)?;
                let mut out = vec![0.0f32; width * height];
                for kernel in &kernels {
                    gpu.poison(&mut dev)?;
                    gpu.time(|g| g.launch(kernel, &mut dev))?;
                    gpu.download(&dev, &mut out)?;
                    record(kernel.variant().name(), &out);
                }
            }
        }
    }
    Ok(cases)
}
