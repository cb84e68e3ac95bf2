//! Filters of any shape up to 127 × 127 (rank-1 ones up to 1023 × 1023), each placed in the odd
//! square the engines run: the built-in kinds (`builtin`: box, Gaussian, Sobel…), filter files,
//! random filters for verification, origins, flipping, validation, rank-1 factorization and
//! conversion for the GPU.

mod builtin;
#[cfg(feature = "testing")]
mod random;

pub use builtin::{FilterKind, gaussian_size, gaussian_taps};
#[cfg(feature = "testing")]
pub use random::Shape;

use crate::{Border, Error, Result};
use gpu_kernels::launch::{MAX_SEPARABLE_RADIUS, MAX_TAPS, Taps};

/// Largest side of a rank-1 filter: the `separable` passes' (1023).
pub const MAX_SEPARABLE_SIZE: usize = 2 * MAX_SEPARABLE_RADIUS as usize + 1;
/// Largest side of the square of a filter that is not rank-1 (127; past
/// [`MAX_FILTER_SIZE`](gpu_kernels::launch::MAX_FILTER_SIZE), 31, only `tensor-f32-blocks` and
/// the CPU run it).
pub const MAX_GENERAL_SIZE: usize = 127;

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

    /// Whether the filter is one row or one column (`1 × k`, `k × 1`; a 1 × 1 filter too).
    pub fn is_line(&self) -> bool {
        let (rows, cols) = self.shape;
        rows == 1 || cols == 1
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
    pub(crate) fn to_param(&self) -> Box<Taps> {
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

/// Accepts odd sizes from 1 to [`MAX_GENERAL_SIZE`].
pub fn check_size(size: usize) -> Result<()> {
    if size.is_multiple_of(2) || size > MAX_GENERAL_SIZE {
        return Err(Error::Filter(format!(
            "size {size} is not supported: use an odd size from 1 to {MAX_GENERAL_SIZE}"
        )));
    }
    Ok(())
}

/// Row-major `a ⊗ b` (`a` down, `b` across).
fn outer(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().flat_map(|&x| b.iter().map(move |&y| x * y)).collect()
}
