//! Square filters with odd side lengths: construction, validation and conversion for the GPU.

use crate::{Error, Result};
use gpu_kernels::launch::{MAX_FILTER_SIZE, MAX_TAPS, Taps};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// A `size × size` filter (odd `size`, 1 to [`MAX_FILTER_SIZE`]), taps row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    size: usize,
    taps: Vec<f32>,
}

/// The built-in filters the command line offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FilterKind {
    /// Averaging filter: every tap 1/(k·k).
    #[value(alias = "average")]
    Box,
}

impl Filter {
    /// A filter from its taps; checks the size and that every tap is finite.
    pub fn new(size: usize, taps: Vec<f32>) -> Result<Self> {
        check_size(size)?;
        if taps.len() != size * size {
            return Err(Error::Filter(format!(
                "a {size}x{size} filter needs {} taps, got {}",
                size * size,
                taps.len()
            )));
        }
        if let Some(i) = taps.iter().position(|t| !t.is_finite()) {
            return Err(Error::Filter(format!(
                "tap {i} is {}, not a finite number",
                taps[i]
            )));
        }
        Ok(Self { size, taps })
    }

    /// The built-in filter `kind` of side `size`.
    pub fn builtin(kind: FilterKind, size: usize) -> Result<Self> {
        check_size(size)?;
        match kind {
            FilterKind::Box => Self::new(size, vec![1.0 / (size * size) as f32; size * size]),
        }
    }

    /// A reproducible filter of uniform random taps in `[-1, 1)`, for verification.
    pub fn random(size: usize, seed: u64) -> Result<Self> {
        check_size(size)?;
        let mut rng = StdRng::seed_from_u64(seed);
        Self::new(
            size,
            (0..size * size).map(|_| rng.random_range(-1.0..1.0)).collect(),
        )
    }

    /// Side length `k`.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Radius `r`, with `k = 2r + 1`.
    pub fn radius(&self) -> usize {
        self.size / 2
    }

    /// The taps, row-major.
    pub fn taps(&self) -> &[f32] {
        &self.taps
    }

    /// Sum of the taps' absolute values (used to bound rounding error).
    pub fn abs_sum(&self) -> f64 {
        self.taps.iter().map(|t| f64::from(t.abs())).sum()
    }

    /// The taps packed as the kernels' by-value parameter (boxed: it is almost 4 KB).
    pub fn to_param(&self) -> Box<Taps> {
        let mut p = Box::new(Taps([0.0; MAX_TAPS]));
        p.0[..self.taps.len()].copy_from_slice(&self.taps);
        p
    }
}

/// Accepts odd sizes from 1 to [`MAX_FILTER_SIZE`].
pub fn check_size(size: usize) -> Result<()> {
    if size.is_multiple_of(2) || size > MAX_FILTER_SIZE as usize {
        return Err(Error::Filter(format!(
            "size {size} is not supported: use an odd size from 1 to {MAX_FILTER_SIZE}"
        )));
    }
    Ok(())
}
