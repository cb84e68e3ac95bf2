//! Filters of any shape up to 127 × 127 (rank-1 ones up to 1023 × 1023), each placed in the odd
//! square the engines run: the built-in kinds, filter files, origins, flipping, validation, rank-1
//! factorization and conversion for the GPU.

use crate::named::{Named, impl_from_str};
use crate::{Border, Error, Result};
use gpu_kernels::launch::{MAX_SEPARABLE_RADIUS, MAX_TAPS, Taps};

/// Largest side of a rank-1 filter: the `separable` passes' (1023).
pub const MAX_SEPARABLE_SIZE: usize = 2 * MAX_SEPARABLE_RADIUS as usize + 1;
/// Largest side of the square of a filter that is not rank-1 (127; past
/// [`MAX_FILTER_SIZE`](gpu_kernels::launch::MAX_FILTER_SIZE), 31, only `tensor-f32-blocks` and
/// the CPU run it).
pub const MAX_GENERAL_SIZE: usize = 127;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// A `rows × cols` filter whose tap `centre` lies over the output pixel, held as the odd
/// `size × size` square centred on that tap (zeros around the rectangle), which is what every
/// engine computes. A square filter of odd side is its own square.
///
/// The centre is scipy's: tap `(rows / 2, cols / 2)`, moved by an origin
/// ([`with_origin`](Filter::with_origin)). The square's side is at most [`MAX_GENERAL_SIZE`], so
/// an odd side goes up to 127 and an even one, one tap off the middle, up to 126 (most GPU
/// variants stop at [`MAX_FILTER_SIZE`](gpu_kernels::launch::MAX_FILTER_SIZE), 31); a rank-1
/// filter's up to [`MAX_SEPARABLE_SIZE`] (1023), which only the separable paths run past 127.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    size: usize,
    taps: Vec<f32>,
    shape: (usize, usize),
    centre: (usize, usize),
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
    /// A square filter of odd side from its taps (row-major); checks the size and that every tap
    /// is finite.
    pub fn new(size: usize, taps: Vec<f32>) -> Result<Self> {
        check_size(size)?;
        Self::rect(size, size, taps)
    }

    /// A `rows × cols` filter from its taps (row-major), centred as scipy centres it: on tap
    /// `(rows / 2, cols / 2)`. Checks the shape and that every tap is finite.
    pub fn rect(rows: usize, cols: usize, taps: Vec<f32>) -> Result<Self> {
        if rows == 0 || cols == 0 || rows > MAX_SEPARABLE_SIZE || cols > MAX_SEPARABLE_SIZE {
            return Err(Error::Filter(format!(
                "a {rows}x{cols} filter is not supported: each side from 1 to {MAX_GENERAL_SIZE}, or to \
                 {MAX_SEPARABLE_SIZE} for a rank-1 (separable) filter"
            )));
        }
        if taps.len() != rows * cols {
            return Err(Error::Filter(format!(
                "a {rows}x{cols} filter needs {} taps, got {}",
                rows * cols,
                taps.len()
            )));
        }
        if let Some(i) = taps.iter().position(|t| !t.is_finite()) {
            return Err(Error::Filter(format!(
                "tap {i} is {}, not a finite number",
                taps[i]
            )));
        }
        Self::placed((rows, cols), (rows / 2, cols / 2), &taps)
    }

    /// The filter with its centre moved by scipy's `origin` `(dy, dx)`: tap `(rows / 2 + dy,
    /// cols / 2 + dx)` lies over the output pixel, so a positive origin shifts the filter left
    /// and up. Each must lie in `-(side / 2) ..= (side - 1) / 2`, as scipy requires.
    pub fn with_origin(&self, (dy, dx): (isize, isize)) -> Result<Self> {
        let (rows, cols) = self.shape;
        let centre = |side: usize, o: isize, axis: &str| {
            let c = (side / 2) as isize + o;
            if c < 0 || c >= side as isize || o > (side as isize - 1) / 2 {
                return Err(Error::Filter(format!(
                    "origin {o} {axis} is outside the filter's {side} taps: from {} to {}",
                    -((side / 2) as isize),
                    (side as isize - 1) / 2
                )));
            }
            Ok(c as usize)
        };
        let centre = (centre(rows, dy, "down")?, centre(cols, dx, "across")?);
        Self::placed(self.shape, centre, &self.rect_taps())
    }

    /// Places `taps` (`rows × cols`, row-major) in the square centred on tap `centre`.
    fn placed((rows, cols): (usize, usize), (cy, cx): (usize, usize), taps: &[f32]) -> Result<Self> {
        let radius = cy.max(rows - 1 - cy).max(cx).max(cols - 1 - cx);
        let size = 2 * radius + 1;
        let reach = |most: usize, what: &str| {
            Error::Filter(format!(
                "a {rows}x{cols} filter centred on tap ({cy}, {cx}) reaches {radius} taps from its centre: \
                 at most {most}{what}"
            ))
        };
        if radius > MAX_SEPARABLE_RADIUS as usize {
            return Err(reach(MAX_SEPARABLE_RADIUS as usize, ""));
        }
        let mut square = vec![0.0f32; size * size];
        for (i, row) in taps.chunks_exact(cols).enumerate() {
            let at = (i + radius - cy) * size + radius - cx;
            square[at..at + cols].copy_from_slice(row);
        }
        let filter = Self {
            size,
            taps: square,
            shape: (rows, cols),
            centre: (cy, cx),
        };
        if size > MAX_GENERAL_SIZE && filter.rank1().is_none() {
            return Err(reach(
                MAX_GENERAL_SIZE / 2,
                &format!(
                    " (the {MAX_GENERAL_SIZE}x{MAX_GENERAL_SIZE} square) for a filter that is not rank-1; \
                     rank-1 (separable) filters go up to {MAX_SEPARABLE_SIZE}x{MAX_SEPARABLE_SIZE}"
                ),
            ));
        }
        Ok(filter)
    }

    /// The rank-1 filter `ky ⊗ kx`: `ky` down, `kx` across (cv2's `sepFilter2D(kernelX, kernelY)`),
    /// a `ky.len() × kx.len()` rectangle centred as [`rect`](Filter::rect) centres it.
    pub fn separable(ky: &[f32], kx: &[f32]) -> Result<Self> {
        let wide = |k: &[f32]| k.iter().map(|&t| f64::from(t)).collect::<Vec<_>>();
        let taps = outer(&wide(ky), &wide(kx)).iter().map(|&v| v as f32).collect();
        Self::rect(ky.len(), kx.len(), taps)
    }

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

    /// Parses a filter file: one filter row per line, numbers separated by whitespace, `#` starts
    /// a comment, blank lines ignored; any rectangle [`rect`](Filter::rect) takes, centred as it
    /// centres it.
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
        let Some((_, first)) = rows.first() else {
            return Err(Error::Filter("the filter file has no numbers".into()));
        };
        let shape = (rows.len(), first.len());
        Self::rect(shape.0, shape.1, rows.into_iter().flat_map(|(_, r)| r).collect())
    }

    /// A reproducible filter of uniform random taps in `[-1, 1)`, for verification: `shape` is a
    /// side (a square) or `(rows, cols)`.
    pub fn random(shape: impl Shape, seed: u64) -> Result<Self> {
        let (rows, cols) = shape.rows_cols();
        let mut rng = StdRng::seed_from_u64(seed);
        Self::rect(
            rows,
            cols,
            (0..rows * cols).map(|_| rng.random_range(-1.0..1.0)).collect(),
        )
    }

    /// A reproducible random filter whose taps (mostly positive, some negative) sum to 1, so
    /// results of [0, 1] images mostly stay in [0, 1]: integer outputs then test rounding, not
    /// just clamping.
    pub fn random_normalized(shape: impl Shape, seed: u64) -> Result<Self> {
        let (rows, cols) = shape.rows_cols();
        let mut rng = StdRng::seed_from_u64(seed);
        let taps: Vec<f64> = (0..rows * cols).map(|_| rng.random_range(-0.3..1.0)).collect();
        let sum: f64 = taps.iter().sum::<f64>().max(0.5);
        Self::rect(rows, cols, taps.iter().map(|t| (t / sum) as f32).collect())
    }

    /// A reproducible random rank-1 filter (outer product of two random vectors).
    pub fn random_rank1(shape: impl Shape, seed: u64) -> Result<Self> {
        let (rows, cols) = shape.rows_cols();
        let mut rng = StdRng::seed_from_u64(seed);
        let mut v = |n| (0..n).map(|_| rng.random_range(0.05..1.0)).collect::<Vec<f64>>();
        let (a, b) = (v(rows), v(cols));
        let scale = a.iter().sum::<f64>() * b.iter().sum::<f64>();
        Self::rect(
            rows,
            cols,
            outer(&a, &b).iter().map(|t| (t / scale) as f32).collect(),
        )
    }

    /// The filter rotated by 180° about its square's middle: correlation with the flipped filter
    /// is true convolution. An even side's centre moves to the other side of the middle, which is
    /// the shift `scipy.ndimage.convolve` makes.
    pub fn flipped(&self) -> Self {
        let ((rows, cols), (cy, cx)) = (self.shape, self.centre);
        Self {
            size: self.size,
            taps: self.taps.iter().rev().copied().collect(),
            shape: self.shape,
            centre: (rows - 1 - cy, cols - 1 - cx),
        }
    }

    /// Side length `k` of the square the engines run.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Radius `r` of the square, with `k = 2r + 1`.
    pub fn radius(&self) -> usize {
        self.size / 2
    }

    /// The filter's own `(rows, cols)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The filter's own number of taps, `rows · cols` (what it costs, not its square's `size²`).
    pub fn tap_count(&self) -> usize {
        self.shape.0 * self.shape.1
    }

    /// Whether the filter is its square: odd sides, equal, centred.
    pub fn is_square(&self) -> bool {
        self.shape == (self.size, self.size)
    }

    /// The filter's own taps (`rows × cols`, row-major), cut out of its square.
    pub fn rect_taps(&self) -> Vec<f32> {
        let ((rows, cols), (cy, cx), r) = (self.shape, self.centre, self.radius());
        (0..rows)
            .flat_map(|i| {
                let at = (i + r - cy) * self.size + r - cx;
                self.taps[at..at + cols].iter().copied()
            })
            .collect()
    }

    /// The filter's radii `(ry, rx)` down a column and along a row: how far its taps reach from
    /// the centre tap (the square's radius is the larger).
    pub fn reach(&self) -> (usize, usize) {
        let ((rows, cols), (cy, cx)) = (self.shape, self.centre);
        (cy.max(rows - 1 - cy), cx.max(cols - 1 - cx))
    }

    /// The smallest odd rectangle centred on the centre tap that holds the filter,
    /// `(2ry + 1) × (2rx + 1)` taps row-major (zeros where an even side or an origin leaves a
    /// side short), cut out of the square, and its radii `(ry, rx)` ([`reach`](Filter::reach)).
    pub fn odd_rect(&self) -> (Vec<f32>, (usize, usize)) {
        let ((ry, rx), r) = (self.reach(), self.radius());
        let taps = (r - ry..=r + ry)
            .flat_map(|i| {
                self.taps[i * self.size + r - rx..=i * self.size + r + rx]
                    .iter()
                    .copied()
            })
            .collect();
        (taps, (ry, rx))
    }

    /// The taps of the square, row-major.
    pub fn taps(&self) -> &[f32] {
        &self.taps
    }

    /// The output size for a `width × height` input under `border`, which for the valid border
    /// takes a filter that is its square (the whole window inside the image).
    pub fn output_size(&self, border: Border, width: usize, height: usize) -> Result<(usize, usize)> {
        if border == Border::Valid && !self.is_square() {
            let (rows, cols) = self.shape;
            return Err(Error::Filter(format!(
                "the valid border takes square filters of odd side; this one is {rows}x{cols} (centred on \
                 tap {:?}): use another border",
                self.centre
            )));
        }
        border.output_size(width, height, self.radius())
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

    /// The taps packed as the kernels' by-value parameter (boxed: it is almost 4 KB), for filters
    /// up to 31 × 31 (the variants of larger ones pass each pass's taps instead).
    pub fn to_param(&self) -> Box<Taps> {
        taps_param(&self.taps)
    }
}

/// A filter's shape: a side (`usize`, a square) or `(rows, cols)`.
pub trait Shape: Copy {
    /// `(rows, cols)`.
    fn rows_cols(self) -> (usize, usize);
}

impl Shape for usize {
    fn rows_cols(self) -> (usize, usize) {
        (self, self)
    }
}

impl Shape for (usize, usize) {
    fn rows_cols(self) -> (usize, usize) {
        self
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

/// Accepts odd sizes from 1 to [`MAX_GENERAL_SIZE`].
pub fn check_size(size: usize) -> Result<()> {
    if size.is_multiple_of(2) || size > MAX_GENERAL_SIZE {
        return Err(Error::Filter(format!(
            "size {size} is not supported: use an odd size from 1 to {MAX_GENERAL_SIZE}"
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
