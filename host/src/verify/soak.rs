//! Long runs: thousands of small images and tens of large ones through one batch engine in one
//! process, checking that outputs exist and equal a re-run, that device memory returns to its
//! starting level and that throughput does not decay.

use crate::engine::runner::{Engine, Settings};
use ferroconv::{DType, Image, Result};
use rand::{Rng, SeedableRng, rngs::StdRng};
use std::time::Instant;

/// Device memory the run may keep after it ends (driver bookkeeping, allocator granularity).
pub const MEMORY_SLACK: usize = 64 << 20;
/// Largest allowed slowdown of the last tenth of the small images against the first tenth.
pub const DECAY_FACTOR: f64 = 2.0;
/// Fewest small images in each tenth for the decay check to be made: with fewer, one image the
/// operating system delayed decides it, so the report says the check was not made instead.
pub const DECAY_MIN_PER_TENTH: usize = 10;

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
    /// Median throughput of the first and last tenth of the small images (megapixels per second
    /// of convolution time, image by image); `None` with too few small images to judge decay.
    pub decay: Option<Decay>,
    pub rechecked: usize,
    /// One line per problem found; empty when the run passed.
    pub problems: Vec<String>,
}

/// Throughput at the start and at the end of a run, in megapixels per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decay {
    pub first_tenth_mpx_s: f64,
    pub last_tenth_mpx_s: f64,
}

impl Decay {
    /// Compares the median per-image rate of the first and the last tenth of `rates`
    /// (megapixels, seconds per image, in order); `None` below [`DECAY_MIN_PER_TENTH`] images a
    /// tenth.
    pub fn measure(rates: &[(f64, f64)]) -> Option<Decay> {
        let tenth = rates.len() / 10;
        if tenth < DECAY_MIN_PER_TENTH {
            return None;
        }
        let median = |part: &[(f64, f64)]| {
            let mut r: Vec<f64> = part.iter().map(|(mpx, s)| mpx / s.max(1e-12)).collect();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        };
        Some(Decay {
            first_tenth_mpx_s: median(&rates[..tenth]),
            last_tenth_mpx_s: median(&rates[rates.len() - tenth..]),
        })
    }

    /// The problem line when the end is more than [`DECAY_FACTOR`] slower than the start.
    pub fn problem(&self) -> Option<String> {
        let (first, last) = (self.first_tenth_mpx_s, self.last_tenth_mpx_s);
        (last * DECAY_FACTOR < first).then(|| {
            format!(
                "throughput decayed from {first:.1} to {last:.1} megapixels/s (more than {DECAY_FACTOR}x)"
            )
        })
    }
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
    let decay = Decay::measure(&small_rates);
    problems.extend(decay.and_then(|d| d.problem()));
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
        decay,
        rechecked,
        problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` images of one megapixel each taking `seconds(i)`.
    fn rates(n: usize, seconds: impl Fn(usize) -> f64) -> Vec<(f64, f64)> {
        (0..n).map(|i| (1.0, seconds(i))).collect()
    }

    #[test]
    fn too_few_images_are_not_judged() {
        assert_eq!(
            Decay::measure(&rates(10 * DECAY_MIN_PER_TENTH - 1, |i| i as f64 + 1.0)),
            None
        );
    }

    #[test]
    fn a_run_that_slows_down_fails_and_a_steady_one_passes() {
        let n = 10 * DECAY_MIN_PER_TENTH;
        let slowing = Decay::measure(&rates(n, |i| if i < n / 2 { 1.0 } else { 3.0 })).unwrap();
        assert_eq!(slowing.first_tenth_mpx_s, 1.0);
        assert!((slowing.last_tenth_mpx_s - 1.0 / 3.0).abs() < 1e-12);
        assert!(slowing.problem().unwrap().contains("decayed from 1.0 to 0.3"));
        let steady = Decay::measure(&rates(n, |_| 1.0)).unwrap();
        assert_eq!(steady.problem(), None);
    }

    #[test]
    fn one_delayed_image_does_not_decide() {
        let n = 10 * DECAY_MIN_PER_TENTH;
        let d = Decay::measure(&rates(n, |i| if i == n - 1 { 50.0 } else { 1.0 })).unwrap();
        assert_eq!(d.problem(), None, "{d:?}");
    }
}
