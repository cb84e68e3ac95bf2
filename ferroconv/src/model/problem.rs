//! What to compute: the shape, sample type, filter, border and clamping of a convolution,
//! without the pixels; it travels whole from the caller to the engine and the kernels.

use crate::{Border, DType, Error, Filter, Image, Result};
use gpu_kernels::launch::{self, Geometry};

/// What to compute: everything about a convolution except the pixels.
#[derive(Clone, Debug)]
pub struct Problem {
    /// Input pixels per row.
    pub width: usize,
    /// Input rows.
    pub height: usize,
    /// Samples per pixel.
    pub channels: usize,
    /// The sample type of input and output.
    pub dtype: DType,
    /// The filter (correlated, not flipped).
    pub filter: Filter,
    /// What lies beyond the edges.
    pub border: Border,
    /// Clamp `f32` results to [0, 1].
    pub clamp: bool,
    /// Filter RGBA's alpha like the other channels (scipy's and PyTorch's rule), instead of
    /// copying it from the input (the rule for image files).
    pub filter_alpha: bool,
    /// Truncate integer results toward zero (scipy.ndimage's cast) instead of rounding them to
    /// the nearest level: see [`Problem::widen`].
    pub truncate: bool,
}

impl Problem {
    /// The problem of convolving `image`.
    pub fn of(image: &Image, filter: &Filter, border: Border, clamp: bool) -> Self {
        Self {
            width: image.width(),
            height: image.height(),
            channels: image.channels(),
            dtype: image.dtype(),
            filter: filter.clone(),
            border,
            clamp,
            filter_alpha: false,
            truncate: false,
        }
    }

    /// Where integer results are truncated ([`truncate`](Self::truncate)): the widening of the
    /// store, `level = value in levels · widen` toward zero, wrapped to the type's range
    /// ([`launch::widen`]), for an engine that applies the filter as two 1D passes (`two_pass`:
    /// the `separable` and `separable-fused` variants, the CPU's rank-1 path) or as one 2D sum
    /// (every other). `None`: rounded (the default), and always for `f32` samples.
    pub fn widen(&self, two_pass: bool) -> Option<f64> {
        let max = self.dtype.levels()? as u32;
        self.truncate
            .then(|| launch::widen(self.truncation_taps(two_pass), max))
    }

    /// [`Geometry::trunc_scale`] for an engine that applies the filter as two 1D passes or not
    /// (see [`widen`](Self::widen)): 0 where results are rounded.
    pub fn trunc_scale(&self, two_pass: bool) -> f32 {
        match self.dtype.levels() {
            Some(max) if self.truncate => launch::trunc_scale(max as u32, self.truncation_taps(two_pass)),
            _ => 0.0,
        }
    }

    /// The products along a result's chain of `f32` roundings: the filter's `rows · cols`
    /// taps summed at once, or `rows + cols` in two 1D passes.
    fn truncation_taps(&self, two_pass: bool) -> u32 {
        let (rows, cols) = self.filter.shape();
        let taps = if two_pass { rows + cols } else { rows * cols };
        u32::try_from(taps).unwrap_or(u32::MAX)
    }

    /// The output size.
    pub fn output_size(&self) -> Result<(usize, usize)> {
        self.filter.output_size(self.border, self.width, self.height)
    }

    /// Bytes a convolution must move at least: the input read once and the output written once.
    pub fn min_bytes(&self) -> Result<f64> {
        let (ow, oh) = self.output_size()?;
        Ok(((self.width * self.height + ow * oh) * self.channels * self.dtype.size()) as f64)
    }

    /// The sizes and modes the kernels receive, integer results truncated (where they are) as a
    /// 2D sum's: a variant that runs two 1D passes sets its own
    /// [`trunc_scale`](Self::trunc_scale)`(true)`.
    pub(crate) fn geometry(&self) -> Result<Geometry> {
        let (ow, oh) = self.output_size()?;
        let r = self.filter.radius();
        let u = |v: usize| {
            u32::try_from(v).map_err(|_| Error::Image(format!("{v} does not fit the kernels' 32-bit sizes")))
        };
        Ok(Geometry {
            in_width: u(self.width)?,
            in_height: u(self.height)?,
            out_width: u(ow)?,
            out_height: u(oh)?,
            channels: u(self.channels)?,
            radius: u(r)?,
            border: self.border.kernel_code(),
            offset: u(self.border.offset(r))?,
            // Truncated integers wrap as scipy's cast does: never clamped.
            clamp: u32::from(self.clamp && self.trunc_scale(false) == 0.0),
            cval: self.border.outside(self.dtype) as f32,
            filter_alpha: u32::from(self.filter_alpha && self.channels == 4),
            trunc_scale: self.trunc_scale(false),
            ..Geometry::default()
        })
    }
}
