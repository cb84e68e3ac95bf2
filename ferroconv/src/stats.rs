//! Summary statistics of repeated timings, and how the benchmark takes them.

use crate::named::{Named, impl_from_str};

/// Median and minimum of a set of timings (ms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The median, in ms.
    pub median: f64,
    /// The minimum, in ms.
    pub min: f64,
    /// How many timings.
    pub runs: usize,
}

impl Timing {
    /// Summarizes `samples`; `None` when there are none.
    pub fn of(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let mid = s.len() / 2;
        let median = if s.len() % 2 == 1 {
            s[mid]
        } else {
            (s[mid - 1] + s[mid]) / 2.0
        };
        Some(Self {
            median,
            min: s[0],
            runs: s.len(),
        })
    }
}

/// Untimed runs before the timed ones wherever the crate times a kernel or a CPU path.
pub const WARMUP_RUNS: usize = 3;

/// Runs `f` `warmups` times untimed (caches, clocks, lazy initialization), then `runs` times, and
/// summarizes the times those return: the one timing loop of the crate.
pub fn warm_then_repeat<E>(
    warmups: usize,
    runs: usize,
    mut f: impl FnMut() -> Result<f64, E>,
) -> Result<Option<Timing>, E> {
    for _ in 0..warmups {
        f()?;
    }
    repeat(runs, f)
}

/// Runs `f` `runs` times and summarizes the times it returns.
pub fn repeat<E>(runs: usize, mut f: impl FnMut() -> Result<f64, E>) -> Result<Option<Timing>, E> {
    let samples = (0..runs).map(|_| f()).collect::<Result<Vec<_>, E>>()?;
    Ok(Timing::of(&samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(
            Timing::of(&[3.0, 1.0, 2.0]),
            Some(Timing {
                median: 2.0,
                min: 1.0,
                runs: 3
            })
        );
        assert_eq!(Timing::of(&[4.0, 1.0, 3.0, 2.0]).map(|t| t.median), Some(2.5));
        assert_eq!(Timing::of(&[]), None);
    }
}

/// How the benchmark times a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimingMethod {
    /// The timed launches are queued behind a GPU-side wait and run back to back, each between
    /// its own pair of events: the kernel's GPU time alone, as `peers.cu` measures (the default).
    BackToBack,
    /// Each launch is queued from the host between two events and waited for: short kernels
    /// then include the host's launch latency (the method before `back-to-back`).
    HostLaunched,
}

impl Named for TimingMethod {
    const WHAT: &'static str = "timing method";
    const VALUES: &'static [Self] = &[TimingMethod::BackToBack, TimingMethod::HostLaunched];

    fn name(self) -> &'static str {
        match self {
            TimingMethod::BackToBack => "back-to-back",
            TimingMethod::HostLaunched => "host-launched",
        }
    }
}

impl_from_str!(TimingMethod);

impl TimingMethod {
    /// How the method is described in reports.
    pub fn describe(self) -> &'static str {
        match self {
            TimingMethod::BackToBack => {
                "launches queued behind a GPU-side wait, run back to back, each between its own CUDA events"
            }
            TimingMethod::HostLaunched => "each launch from the host between two CUDA events, waited for",
        }
    }
}
