//! Square filters with odd side lengths: the built-in kinds, filter files, flipping, validation,
//! rank-1 factorization and conversion for the GPU.

use crate::named::{Named, impl_from_str};
use crate::{Error, Result};
use gpu_kernels::launch::{MAX_FILTER_SIZE, MAX_TAPS, Taps};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// A `size × size` filter (odd `size`, 1 to [`MAX_FILTER_SIZE`]), taps row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    size: usize,
    taps: Vec<f32>,
}

/// The built-in filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterKind {
    /// Averaging filter: every tap 1/k² (also called `average`).
    Box,
    /// Sharpen: every tap -1, the centre k² (taps sum to 1).
    Sharpen,
    /// Edge detection (Laplacian): every tap -1, the centre k² - 1 (taps sum to 0).
    Edge,
    /// Gaussian blur with standard deviation --sigma, normalized to sum 1 (separable).
    Gaussian,
    /// Sobel derivative along x: binomial smoothing down, binomial difference across (k >= 3).
    SobelX,
    /// Sobel derivative along y (k >= 3).
    SobelY,
    /// Emboss: tap (i, j) = i + j - 2r, the centre 1.
    Emboss,
    /// Identity: 1 at the centre.
    Identity,
}

impl Named for FilterKind {
    const WHAT: &'static str = "filter";
    const VALUES: &'static [Self] = &[
        FilterKind::Box,
        FilterKind::Sharpen,
        FilterKind::Edge,
        FilterKind::Gaussian,
        FilterKind::SobelX,
        FilterKind::SobelY,
        FilterKind::Emboss,
        FilterKind::Identity,
    ];

    fn name(self) -> &'static str {
        match self {
            FilterKind::Box => "box",
            FilterKind::Sharpen => "sharpen",
            FilterKind::Edge => "edge",
            FilterKind::Gaussian => "gaussian",
            FilterKind::SobelX => "sobel-x",
            FilterKind::SobelY => "sobel-y",
            FilterKind::Emboss => "emboss",
            FilterKind::Identity => "identity",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            FilterKind::Box => &["average"],
            _ => &[],
        }
    }
}

impl_from_str!(FilterKind);

/// Largest relative error of a rank-1 factorization for a filter to count as separable: every
/// tap of `column ⊗ row` within `1e-6 · max|tap|` of the filter.
pub const RANK1_TOLERANCE: f64 = 1e-6;

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

    /// The rank-1 filter `ky ⊗ kx`: `ky` down, `kx` across (cv2's `sepFilter2D(kernelX, kernelY)`),
    /// each of odd length, the shorter padded with zeros on both ends to a square of the longer's
    /// side.
    pub fn separable(ky: &[f32], kx: &[f32]) -> Result<Self> {
        let size = ky.len().max(kx.len());
        for (name, k) in [("y", ky), ("x", kx)] {
            if k.len().is_multiple_of(2) {
                return Err(Error::Filter(format!(
                    "the {name} kernel has {} taps: give an odd number (1 to {MAX_FILTER_SIZE})",
                    k.len()
                )));
            }
        }
        check_size(size)?;
        let pad = |k: &[f32]| {
            let side = (size - k.len()) / 2;
            let mut v = vec![0.0f64; side];
            v.extend(k.iter().map(|&t| f64::from(t)));
            v.resize(size, 0.0);
            v
        };
        Self::new(
            size,
            outer(&pad(ky), &pad(kx)).iter().map(|&v| v as f32).collect(),
        )
    }

    /// A `size × size` Gaussian of standard deviations `sigma_y` down and `sigma_x` across
    /// (anisotropic where they differ), normalized to sum 1; rank 1.
    pub fn gaussian(size: usize, sigma_y: f64, sigma_x: f64) -> Result<Self> {
        let (gy, gx) = (
            gaussian_taps(size, Some(sigma_y))?,
            gaussian_taps(size, Some(sigma_x))?,
        );
        let sum = gy.iter().sum::<f64>() * gx.iter().sum::<f64>();
        Self::new(size, outer(&gy, &gx).iter().map(|v| (v / sum) as f32).collect())
    }

    /// The built-in filter `kind` of side `size`; `sigma` is the Gaussian's standard deviation
    /// (`None`: OpenCV's default, see [`gaussian_taps`]).
    pub fn builtin(kind: FilterKind, size: usize, sigma: Option<f64>) -> Result<Self> {
        check_size(size)?;
        let (k, r) = (size, (size / 2) as f64);
        let centre = (k * k) / 2;
        let from_fn = |f: &dyn Fn(f64, f64) -> f64| {
            let taps = (0..k * k)
                .map(|n| f((n / k) as f64 - r, (n % k) as f64 - r) as f32)
                .collect();
            Self::new(k, taps)
        };
        match kind {
            FilterKind::Box => Self::new(k, vec![1.0 / (k * k) as f32; k * k]),
            FilterKind::Sharpen | FilterKind::Edge => {
                let mut taps = vec![-1.0; k * k];
                taps[centre] = (k * k) as f32 - if kind == FilterKind::Edge { 1.0 } else { 0.0 };
                Self::new(k, taps)
            }
            FilterKind::Identity => {
                let mut taps = vec![0.0; k * k];
                taps[centre] = 1.0;
                Self::new(k, taps)
            }
            FilterKind::Emboss => from_fn(&|i, j| if i == 0.0 && j == 0.0 { 1.0 } else { i + j }),
            FilterKind::Gaussian => {
                let g = gaussian_taps(k, sigma)?;
                let sum: f64 = g.iter().sum();
                Self::new(
                    k,
                    outer(&g, &g).iter().map(|v| (v / (sum * sum)) as f32).collect(),
                )
            }
            FilterKind::SobelX | FilterKind::SobelY => {
                if k < 3 {
                    return Err(Error::Filter(format!(
                        "{} needs a size of at least 3, got {k}",
                        crate::named::Named::name(kind)
                    )));
                }
                let smooth = binomial(k - 1);
                let deriv = convolve_1d(&binomial(k - 3), &[-1.0, 0.0, 1.0]);
                let taps = if kind == FilterKind::SobelX {
                    outer(&smooth, &deriv)
                } else {
                    outer(&deriv, &smooth)
                };
                Self::new(k, taps.iter().map(|&v| v as f32).collect())
            }
        }
    }

    /// Parses a filter file: one filter row per line, numbers separated by whitespace, `#` starts
    /// a comment, blank lines ignored; the filter must be square with an odd size.
    pub fn parse(text: &str) -> Result<Self> {
        let mut rows: Vec<(usize, Vec<f32>)> = Vec::new();
        // Editors on some systems start UTF-8 files with a byte order mark: it is not a number.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            if line.trim().is_empty() {
                continue;
            }
            let row = line
                .split_whitespace()
                .map(|w| match w.parse::<f32>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    Ok(v) => Err(Error::Filter(format!(
                        "line {}: {v} is not a finite number",
                        n + 1
                    ))),
                    Err(_) => Err(Error::Filter(format!("line {}: '{w}' is not a number", n + 1))),
                })
                .collect::<Result<Vec<f32>>>()?;
            if let Some((first_line, first)) = rows.first()
                && first.len() != row.len()
            {
                return Err(Error::Filter(format!(
                    "line {} has {} numbers but line {} has {}: rows must have equal length",
                    n + 1,
                    row.len(),
                    first_line + 1,
                    first.len()
                )));
            }
            rows.push((n, row));
        }
        let size = rows.len();
        if size == 0 {
            return Err(Error::Filter("the filter file has no numbers".into()));
        }
        if rows[0].1.len() != size {
            return Err(Error::Filter(format!(
                "the filter is {}x{size}, not square",
                rows[0].1.len()
            )));
        }
        Self::new(size, rows.into_iter().flat_map(|(_, r)| r).collect())
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

    /// A reproducible random filter whose taps (mostly positive, some negative) sum to 1, so
    /// results of [0, 1] images mostly stay in [0, 1]: integer outputs then test rounding, not
    /// just clamping.
    pub fn random_normalized(size: usize, seed: u64) -> Result<Self> {
        check_size(size)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let taps: Vec<f64> = (0..size * size).map(|_| rng.random_range(-0.3..1.0)).collect();
        let sum: f64 = taps.iter().sum::<f64>().max(0.5);
        Self::new(size, taps.iter().map(|t| (t / sum) as f32).collect())
    }

    /// A reproducible random rank-1 filter (outer product of two random vectors).
    pub fn random_rank1(size: usize, seed: u64) -> Result<Self> {
        check_size(size)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let mut v = || {
            (0..size)
                .map(|_| rng.random_range(0.05..1.0))
                .collect::<Vec<f64>>()
        };
        let (a, b) = (v(), v());
        let scale = a.iter().sum::<f64>() * b.iter().sum::<f64>();
        Self::new(size, outer(&a, &b).iter().map(|t| (t / scale) as f32).collect())
    }

    /// The filter rotated by 180°: correlation with the flipped filter is true convolution.
    pub fn flipped(&self) -> Self {
        Self {
            size: self.size,
            taps: self.taps.iter().rev().copied().collect(),
        }
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

    /// Factorizes the filter as `column ⊗ row` if it is rank-1 within [`RANK1_TOLERANCE`]:
    /// returns `(column taps, row taps, largest tap error)`.
    pub fn rank1(&self) -> Option<Separable> {
        let k = self.size;
        let at = |i: usize, j: usize| f64::from(self.taps[i * k + j]);
        let (p, q) = (0..k * k)
            .map(|n| (n / k, n % k))
            .max_by(|a, b| at(a.0, a.1).abs().total_cmp(&at(b.0, b.1).abs()))?;
        let pivot = at(p, q);
        if pivot == 0.0 {
            return None;
        }
        let column: Vec<f64> = (0..k).map(|i| at(i, q)).collect();
        let row: Vec<f64> = (0..k).map(|j| at(p, j) / pivot).collect();
        let error = (0..k * k)
            .map(|n| (at(n / k, n % k) - column[n / k] * row[n % k]).abs())
            .fold(0.0, f64::max);
        (error <= RANK1_TOLERANCE * pivot.abs()).then(|| Separable {
            column: column.iter().map(|&v| v as f32).collect(),
            row: row.iter().map(|&v| v as f32).collect(),
            error,
        })
    }

    /// The taps packed as the kernels' by-value parameter (boxed: it is almost 4 KB).
    pub fn to_param(&self) -> Box<Taps> {
        taps_param(&self.taps)
    }
}

/// A rank-1 filter's two 1D passes.
#[derive(Clone, Debug, PartialEq)]
pub struct Separable {
    /// Taps down the columns (applied by the column pass).
    pub column: Vec<f32>,
    /// Taps along the rows (applied by the row pass).
    pub row: Vec<f32>,
    /// Largest `|f(i, j) - column[i] · row[j]|`.
    pub error: f64,
}

/// Packs up to [`MAX_TAPS`] taps into the by-value kernel parameter, zero-padded.
pub(crate) fn taps_param(taps: &[f32]) -> Box<Taps> {
    let mut p = Box::new(Taps([0.0; MAX_TAPS]));
    p.0[..taps.len()].copy_from_slice(taps);
    p
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

/// OpenCV's fixed Gaussian kernels (`getGaussianKernel(k, 0)` for k = 1, 3, 5, 7).
const OPENCV_SMALL_GAUSSIANS: [&[f64]; 4] = [
    &[1.0],
    &[0.25, 0.5, 0.25],
    &[0.0625, 0.25, 0.375, 0.25, 0.0625],
    &[0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125],
];

/// The side of a Gaussian of standard deviation `sigma` cut at `truncate` deviations, by scipy's
/// rule (`gaussian_filter`): radius `int(truncate · sigma + 0.5)`.
pub fn gaussian_size(sigma: f64, truncate: f64) -> usize {
    2 * (truncate * sigma + 0.5).floor().max(0.0) as usize + 1
}

/// The 1D Gaussian of `k` taps (not yet normalized): with `sigma`, `exp(-x²/2σ²)`; without, the
/// taps of OpenCV's `getGaussianKernel(k, 0)`: its fixed kernels for k <= 7, else σ =
/// `0.3·((k-1)/2 - 1) + 0.8`.
pub fn gaussian_taps(k: usize, sigma: Option<f64>) -> Result<Vec<f64>> {
    check_size(k)?;
    if sigma.is_none()
        && let Some(fixed) = OPENCV_SMALL_GAUSSIANS.get(k / 2)
    {
        return Ok(fixed.to_vec());
    }
    let sigma = sigma.unwrap_or(0.3 * ((k as f64 - 1.0) * 0.5 - 1.0) + 0.8);
    if !(sigma.is_finite() && sigma > 0.0) {
        return Err(Error::Filter(format!(
            "sigma must be a positive number, got {sigma}"
        )));
    }
    let r = (k / 2) as f64;
    Ok((0..k)
        .map(|i| (-((i as f64 - r).powi(2)) / (2.0 * sigma * sigma)).exp())
        .collect())
}

/// Row-major `a ⊗ b` (`a` down, `b` across).
fn outer(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().flat_map(|&x| b.iter().map(move |&y| x * y)).collect()
}

/// Binomial coefficients of order `n`: `n + 1` values.
fn binomial(n: usize) -> Vec<f64> {
    (0..n).fold(vec![1.0], |row, _| convolve_1d(&row, &[1.0, 1.0]))
}

/// Full 1D convolution.
fn convolve_1d(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}
