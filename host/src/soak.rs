//! Long runs: thousands of small images and tens of large ones through one batch engine in one
//! process, checking that outputs exist and equal a re-run, that device memory returns to its
//! starting level and that throughput does not decay.

use crate::batch::{Engine, Settings};
use crate::{DType, Image, Result};
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::time::Instant;

/// Device memory the run may keep after it ends (driver bookkeeping, allocator granularity).
pub const MEMORY_SLACK: usize = 64 << 20;
/// Largest allowed slowdown of the last tenth of the small images against the first tenth.
pub const DECAY_FACTOR: f64 = 2.0;

/// What to run.
#[derive(Clone, Debug)]
pub struct SoakConfig {
    /// Small images, random sizes from 64x64 to 256x256, random layouts.
    pub small: usize,
    /// Large square images of `large_side`, random layouts.
    pub large: usize,
    pub large_side: usize,
    /// Every `recheck_every`th small image, and every large one, is convolved twice.
    pub recheck_every: usize,
    pub seed: u64,
}

/// What happened.
#[derive(Clone, Debug)]
pub struct SoakReport {
    pub images: usize,
    pub megapixels: f64,
    pub seconds: f64,
    /// Free device memory before the first image and after the engine released its buffers.
    pub memory_before: Option<usize>,
    pub memory_after: Option<usize>,
    /// Throughput of the first and last tenth of the small images (megapixels per second of
    /// convolution time).
    pub first_tenth_mpx_s: f64,
    pub last_tenth_mpx_s: f64,
    pub rechecked: usize,
    /// One line per problem found; empty when the run passed.
    pub problems: Vec<String>,
}

impl SoakReport {
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

/// The layout of image `n`: small ones random in size and layout, `large` evenly spread.
fn plan(config: &SoakConfig) -> Vec<(usize, usize, usize, DType, bool)> {
    let mut rng = StdRng::seed_from_u64(config.seed);
    let total = config.small + config.large;
    let every = total / config.large.max(1);
    let mut large_left = config.large;
    (0..total)
        .map(|n| {
            let ch = [1, 3, 4][rng.random_range(0..3)];
            let dt = DType::ALL[rng.random_range(0..3)];
            if large_left > 0 && (n + 1) % every.max(1) == 0 {
                large_left -= 1;
                (config.large_side, config.large_side, ch, dt, true)
            } else {
                let (w, h) = (rng.random_range(64..=256), rng.random_range(64..=256));
                (w, h, ch, dt, false)
            }
        })
        .collect()
}

/// Runs the soak on `engine`; `free_memory` reads the device's free memory (`None` on the CPU).
/// Releases the engine's buffers before the final memory reading.
pub fn run(
    engine: &mut Engine<'_>,
    settings: &Settings,
    config: &SoakConfig,
    free_memory: &dyn Fn() -> Result<Option<usize>>,
    mut progress: impl FnMut(usize, usize),
) -> Result<SoakReport> {
    let memory_before = free_memory()?;
    let jobs = plan(config);
    let mut problems = Vec::new();
    let (mut megapixels, mut rechecked) = (0.0, 0);
    // (megapixels, seconds) of each small image, in order.
    let mut small_rates: Vec<(f64, f64)> = Vec::new();
    let started = Instant::now();
    for (n, &(w, h, ch, dt, large)) in jobs.iter().enumerate() {
        let image = Image::random(w, h, ch, dt, config.seed.wrapping_add(n as u64 + 1))?;
        let t = Instant::now();
        let (out, _, _) = engine.convolve(&image, settings, None)?;
        let seconds = t.elapsed().as_secs_f64();
        let mpx = (w * h) as f64 / 1e6;
        megapixels += mpx;
        if !large {
            small_rates.push((mpx, seconds));
        }
        let (ow, oh) = settings.border.output_size(w, h, settings.filter.radius())?;
        if (out.width(), out.height(), out.channels(), out.dtype()) != (ow, oh, ch, dt) {
            problems.push(format!(
                "image {n} ({w}x{h} x{ch} {dt:?}): the output has the wrong shape"
            ));
        }
        if large || n % config.recheck_every.max(1) == 0 {
            rechecked += 1;
            let (again, _, _) = engine.convolve(&image, settings, None)?;
            if again != out {
                problems.push(format!(
                    "image {n} ({w}x{h} x{ch} {dt:?}): a re-run gave a different result"
                ));
            }
        }
        progress(n + 1, jobs.len());
    }
    let seconds = started.elapsed().as_secs_f64();
    engine.release();
    let memory_after = free_memory()?;
    let tenth = (small_rates.len() / 10).max(1);
    let rate = |part: &[(f64, f64)]| {
        let (mpx, s) = part.iter().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        mpx / s.max(1e-12)
    };
    let (first, last) = if small_rates.is_empty() {
        (0.0, 0.0)
    } else {
        (
            rate(&small_rates[..tenth]),
            rate(&small_rates[small_rates.len() - tenth..]),
        )
    };
    if last * DECAY_FACTOR < first {
        problems.push(format!(
            "throughput decayed from {first:.1} to {last:.1} megapixels/s (more than {DECAY_FACTOR}x)"
        ));
    }
    if let (Some(before), Some(after)) = (memory_before, memory_after)
        && after + MEMORY_SLACK < before
    {
        problems.push(format!(
            "device memory in use grew by {:.1} MiB (slack {} MiB)",
            (before - after) as f64 / (1u64 << 20) as f64,
            MEMORY_SLACK >> 20
        ));
    }
    Ok(SoakReport {
        images: jobs.len(),
        megapixels,
        seconds,
        memory_before,
        memory_after,
        first_tenth_mpx_s: first,
        last_tenth_mpx_s: last,
        rechecked,
        problems,
    })
}
