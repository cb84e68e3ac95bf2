//! Border modes: how pixels outside the image are defined, and the output size they give.

use crate::named::{Named, impl_from_str};
use crate::{DType, Error, Result};
use gpu_kernels::launch::border as kernel_border;

/// How the convolution treats pixels outside the image.
///
/// | border | pixels beyond `a b c d` | scipy / cupyx `mode` | OpenCV | numpy `pad` | PyTorch `padding_mode` |
/// |---|---|---|---|---|---|
/// | `Zero` | `0 0 \| a b c d \| 0 0` | `constant`, `cval=0` | `BORDER_CONSTANT` | `constant` | `zeros` |
/// | `Constant(v)` | `v v \| a b c d \| v v` | `constant`, `cval=v` | `BORDER_CONSTANT`, value | `constant`, `constant_values` | - |
/// | `Replicate` | `a a \| a b c d \| d d` | `nearest` | `BORDER_REPLICATE` | `edge` | `replicate` |
/// | `Reflect` | `c b \| a b c d \| c b` | `mirror` | `BORDER_REFLECT_101` | `reflect` | `reflect` |
/// | `Symmetric` | `b a \| a b c d \| d c` | `reflect` | `BORDER_REFLECT` | `symmetric` | - |
/// | `Wrap` | `c d \| a b c d \| a b` | `wrap` (`grid-wrap`) | `BORDER_WRAP` | `wrap` | `circular` |
/// | `Valid` | none: the output shrinks by `2r` | - | - | - | `padding=0` |
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Border {
    /// Pixels outside are 0 ("ghost cells").
    Zero,
    /// Clamp to the nearest edge pixel: `a a | a b c d | d d`.
    Replicate,
    /// Mirror without repeating the edge pixel: `c b | a b c d | c b`.
    Reflect,
    /// Mirror repeating the edge pixel: `b a | a b c d | d c` (scipy's `reflect`).
    Symmetric,
    /// Periodic: `c d | a b c d | a b`.
    Wrap,
    /// Pixels outside are this value, on the scale of `f32` samples: integer samples count as
    /// level / maximum, so 1.0 is 255 for 8-bit images and 65535 for 16-bit ones (rounded to the
    /// nearest level there, see [`Border::outside_sample`]). Finite.
    Constant(f32),
    /// No padding: only outputs whose whole window is inside; (W - 2r) × (H - 2r).
    Valid,
}

impl Border {
    /// Every border, in the order the command line lists them; the constant one with value 0.
    pub const ALL: [Border; 7] = [
        Border::Zero,
        Border::Replicate,
        Border::Reflect,
        Border::Symmetric,
        Border::Wrap,
        Border::Constant(0.0),
        Border::Valid,
    ];

    /// The constant of [`Border::CHECKED`]: three quarters of full scale, not a whole level of
    /// 8- or 16-bit samples (they round it), so that a constant read as 0 fails.
    pub const CHECKED_CVAL: f32 = 0.75;

    /// Every border, the constant one with [`Border::CHECKED_CVAL`]: the list the tests and
    /// `host verify` check.
    pub const CHECKED: [Border; 7] = [
        Border::Zero,
        Border::Replicate,
        Border::Reflect,
        Border::Symmetric,
        Border::Wrap,
        Border::Constant(Border::CHECKED_CVAL),
        Border::Valid,
    ];

    /// The constant border of value `cval` (see [`Border::Constant`]); an error if it is not
    /// finite.
    pub fn constant(cval: f64) -> Result<Border> {
        let v = cval as f32;
        if !v.is_finite() {
            return Err(Error::InvalidRequest(format!(
                "the border's constant {cval} is not a finite 32-bit value"
            )));
        }
        Ok(Border::Constant(v))
    }

    /// The border's name on the command line (`zero`, `replicate`, `reflect`, `symmetric`,
    /// `wrap`, `constant`, `valid`).
    pub fn name(self) -> &'static str {
        match self {
            Border::Zero => "zero",
            Border::Replicate => "replicate",
            Border::Reflect => "reflect",
            Border::Symmetric => "symmetric",
            Border::Wrap => "wrap",
            Border::Constant(_) => "constant",
            Border::Valid => "valid",
        }
    }

    /// The border for messages and reports: its name, and the constant's value
    /// (`constant 0.5`).
    pub fn describe(self) -> String {
        match self {
            Border::Constant(v) => format!("constant {v}"),
            b => b.name().to_string(),
        }
    }

    /// The value of a pixel outside the image where [`source`](Border::source) gives none, in
    /// `dtype`'s own units: the constant (levels for integer samples, rounded to the nearest
    /// level and clamped to the type's range as OpenCV's border value is), and 0 for `Zero` and
    /// for `Valid` (whose outputs read no such pixel).
    pub fn outside_sample(self, dtype: DType) -> f64 {
        match (self, dtype.levels()) {
            (Border::Constant(v), Some(max)) => (f64::from(v) * max).round().clamp(0.0, max),
            (Border::Constant(v), None) => f64::from(v),
            _ => 0.0,
        }
    }

    /// [`outside_sample`](Border::outside_sample) on the scale of `f32` samples (integer levels
    /// divided by their maximum), as the kernels and the reference read samples.
    pub fn outside(self, dtype: DType) -> f64 {
        self.outside_sample(dtype) / dtype.levels().unwrap_or(1.0)
    }

    /// The output size for a `width × height` input and filter radius `radius`.
    pub fn output_size(self, width: usize, height: usize, radius: usize) -> Result<(usize, usize)> {
        if self != Border::Valid {
            return Ok((width, height));
        }
        let k = 2 * radius + 1;
        if width < k || height < k {
            return Err(Error::Image(format!(
                "the valid border needs an image at least as large as the {k}x{k} filter, got {width}x{height}"
            )));
        }
        Ok((width - 2 * radius, height - 2 * radius))
    }

    /// How far output pixel (0, 0) lies from input pixel (0, 0) on each axis: `radius` for `valid`,
    /// whose outputs start where the whole window is inside, and 0 for the padded modes.
    pub fn offset(self, radius: usize) -> usize {
        if self == Border::Valid { radius } else { 0 }
    }

    /// The mode code the kernels receive.
    pub fn kernel_code(self) -> u32 {
        match self {
            Border::Zero | Border::Constant(_) => kernel_border::CONSTANT,
            Border::Replicate => kernel_border::REPLICATE,
            Border::Reflect => kernel_border::REFLECT,
            Border::Symmetric => kernel_border::SYMMETRIC,
            Border::Wrap => kernel_border::WRAP,
            Border::Valid => kernel_border::NONE,
        }
    }

    /// Where coordinate `i` on an axis of `n` pixels reads from, or `None` for a pixel of value
    /// [`outside`](Border::outside). Written independently of the kernels' version: reflection
    /// bounces step by step.
    pub fn source(self, i: isize, n: usize) -> Option<usize> {
        let n = n as isize;
        if (0..n).contains(&i) {
            return Some(i as usize);
        }
        match self {
            Border::Zero | Border::Constant(_) | Border::Valid => None,
            Border::Replicate => Some(i.clamp(0, n - 1) as usize),
            Border::Wrap => Some(i.rem_euclid(n) as usize),
            Border::Reflect => {
                if n == 1 {
                    return Some(0);
                }
                let mut i = i;
                while !(0..n).contains(&i) {
                    i = if i < 0 { -i } else { 2 * (n - 1) - i };
                }
                Some(i as usize)
            }
            Border::Symmetric => {
                let mut i = i;
                while !(0..n).contains(&i) {
                    i = if i < 0 { -1 - i } else { 2 * n - 1 - i };
                }
                Some(i as usize)
            }
        }
    }
}

impl Named for Border {
    const WHAT: &'static str = "border";
    const VALUES: &'static [Self] = &Border::ALL;

    fn name(self) -> &'static str {
        Border::name(self)
    }
}

impl_from_str!(Border);
