//! What to compute: the shape, sample type, filter, border and clamping of a convolution,
//! without the pixels; it travels whole from the caller to the engine and the kernels.

use crate::{Border, DType, Error, Filter, Image, Result};
use gpu_kernels::launch::Geometry;

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
        }
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

    /// The sizes and modes the kernels receive.
    pub fn geometry(&self) -> Result<Geometry> {
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
            clamp: u32::from(self.clamp),
            cval: self.border.outside(self.dtype) as f32,
            filter_alpha: u32::from(self.filter_alpha && self.channels == 4),
            ..Geometry::default()
        })
    }
}
