//! The built-in filters: box, sharpen, edge, Gaussian (OpenCV's and scipy's sizes and
//! deviations), Sobel, emboss and identity, of any odd side (the box and the Gaussian of any
//! rectangle).

use super::{Filter, MAX_SEPARABLE_SIZE, check_size, outer};
use crate::named::{Named, impl_from_str};
use crate::{Error, Result};

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

impl Filter {
    /// A `rows × cols` Gaussian of standard deviations `sigma_y` down and `sigma_x` across
    /// (anisotropic where they differ), normalized to sum 1; rank 1. Sides are odd.
    pub fn gaussian((rows, cols): (usize, usize), sigma_y: f64, sigma_x: f64) -> Result<Self> {
        Self::gaussian_of((rows, cols), Some(sigma_y), Some(sigma_x))
    }

    /// [`gaussian`](Filter::gaussian), each `None` standard deviation OpenCV's default for its side.
    fn gaussian_of((rows, cols): (usize, usize), sigma_y: Option<f64>, sigma_x: Option<f64>) -> Result<Self> {
        let (gy, gx) = (gaussian_taps(rows, sigma_y)?, gaussian_taps(cols, sigma_x)?);
        let sum = gy.iter().sum::<f64>() * gx.iter().sum::<f64>();
        Self::rect(
            rows,
            cols,
            outer(&gy, &gx).iter().map(|v| (v / sum) as f32).collect(),
        )
    }

    /// The built-in filter `kind` of side `size`; `sigma` is the Gaussian's standard deviation
    /// (`None`: OpenCV's default, see [`gaussian_taps`]).
    pub fn builtin(kind: FilterKind, size: usize, sigma: Option<f64>) -> Result<Self> {
        Self::builtin_rect(kind, (size, size), sigma)
    }

    /// The built-in filter `kind` of `rows × cols` taps: odd sides up to 127, or any sides for the
    /// box (scipy's `uniform_filter`, centred as [`rect`](Filter::rect) centres it). The box and
    /// the Gaussian, rank 1, go up to 1023. The Gaussian takes `sigma` on both axes; Sobel smooths
    /// along one axis and differentiates along the other.
    pub fn builtin_rect(kind: FilterKind, (rows, cols): (usize, usize), sigma: Option<f64>) -> Result<Self> {
        match kind {
            FilterKind::Box => return Self::rect(rows, cols, vec![1.0 / (rows * cols) as f32; rows * cols]),
            FilterKind::Gaussian => return Self::gaussian_of((rows, cols), sigma, sigma),
            _ => {}
        }
        check_size(rows)?;
        check_size(cols)?;
        let (ry, rx) = ((rows / 2) as f64, (cols / 2) as f64);
        let centre = (rows * cols) / 2;
        let from_fn = |f: &dyn Fn(f64, f64) -> f64| {
            let taps = (0..rows * cols)
                .map(|n| f((n / cols) as f64 - ry, (n % cols) as f64 - rx) as f32)
                .collect();
            Self::rect(rows, cols, taps)
        };
        let from_outer =
            |a: &[f64], b: &[f64]| Self::rect(rows, cols, outer(a, b).iter().map(|&v| v as f32).collect());
        match kind {
            FilterKind::Box | FilterKind::Gaussian => unreachable!("returned above"),
            FilterKind::Sharpen | FilterKind::Edge => {
                let mut taps = vec![-1.0; rows * cols];
                taps[centre] = (rows * cols) as f32 - if kind == FilterKind::Edge { 1.0 } else { 0.0 };
                Self::rect(rows, cols, taps)
            }
            FilterKind::Identity => from_fn(&|i, j| if i == 0.0 && j == 0.0 { 1.0 } else { 0.0 }),
            FilterKind::Emboss => from_fn(&|i, j| if i == 0.0 && j == 0.0 { 1.0 } else { i + j }),
            FilterKind::SobelX | FilterKind::SobelY => {
                let (along, across) = if kind == FilterKind::SobelX {
                    (cols, rows)
                } else {
                    (rows, cols)
                };
                if along < 3 {
                    return Err(Error::Filter(format!(
                        "{} needs at least 3 taps along its derivative, got {along}",
                        crate::named::Named::name(kind)
                    )));
                }
                let smooth = binomial(across - 1);
                let deriv = convolve_1d(&binomial(along - 3), &[-1.0, 0.0, 1.0]);
                if kind == FilterKind::SobelX {
                    from_outer(&smooth, &deriv)
                } else {
                    from_outer(&deriv, &smooth)
                }
            }
        }
    }
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
    if k.is_multiple_of(2) || k > MAX_SEPARABLE_SIZE {
        return Err(Error::Filter(format!(
            "a Gaussian of {k} taps is not supported: use an odd number from 1 to {MAX_SEPARABLE_SIZE}"
        )));
    }
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
