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
    /// Pixels outside are this value, in sample levels of the image's own type, as OpenCV's
    /// `borderValue` and scipy's `cval` are: 0 to 255 for 8-bit images, 0 to 65535 for 16-bit
    /// ones (a whole level), the value itself for `f32` images. Finite. A plan, a
    /// [`Convolver`](crate::Convolver) and a batch refuse a value the image's type cannot hold
    /// (see [`Border::check`]).
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

    /// The constant of [`Border::CHECKED`] for `f32` images: three quarters of full scale, so
    /// that a constant read as 0 fails ([`Border::checked_cval`] gives it in every type's levels).
    pub const CHECKED_CVAL: f32 = 0.75;

    /// Every border, the constant one with [`Border::CHECKED_CVAL`]: the list the tests and
    /// `host verify` check on `f32` images ([`Border::checked`] gives it for any sample type).
    pub const CHECKED: [Border; 7] = [
        Border::Zero,
        Border::Replicate,
        Border::Reflect,
        Border::Symmetric,
        Border::Wrap,
        Border::Constant(Border::CHECKED_CVAL),
        Border::Valid,
    ];

    /// [`Border::CHECKED_CVAL`] in `dtype`'s levels: three quarters of full scale, rounded to a
    /// whole level for integers (191 for 8-bit samples, 49151 for 16-bit ones).
    pub fn checked_cval(dtype: DType) -> f32 {
        match dtype.levels() {
            Some(max) => (f64::from(Border::CHECKED_CVAL) * max).round() as f32,
            None => Border::CHECKED_CVAL,
        }
    }

    /// [`Border::CHECKED`] for images of `dtype`: the constant one with
    /// [`Border::checked_cval`]`(dtype)`.
    pub fn checked(dtype: DType) -> [Border; 7] {
        Border::CHECKED.map(|b| match b {
            Border::Constant(_) => Border::Constant(Border::checked_cval(dtype)),
            b => b,
        })
    }

    /// The constant border of value `cval` in sample levels (see [`Border::Constant`]); an
    /// error if it is not finite. Whether an image's type can hold it is checked where the type
    /// is known ([`Border::check`]).
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

    /// Whether images of `dtype` can take this border: an error (naming the constant and the
    /// levels the type holds) for a constant that is not one of an integer type's levels
    /// (negative, above the maximum, not whole) or is not finite; every other border fits
    /// every type.
    pub fn check(self, dtype: DType) -> Result<()> {
        let Border::Constant(v) = self else {
            return Ok(());
        };
        let fits = match dtype.levels() {
            Some(max) => v.is_finite() && v.fract() == 0.0 && (0.0..=max).contains(&f64::from(v)),
            None => v.is_finite(),
        };
        if fits {
            return Ok(());
        }
        Err(Error::InvalidRequest(match dtype.levels() {
            Some(max) => format!(
                "the border's constant {v} is not a level of {} samples (a whole number from 0 to {max})",
                dtype.suffix()
            ),
            None => format!("the border's constant {v} is not a finite value"),
        }))
    }

    /// The value of a pixel outside the image where [`source`](Border::source) gives none, in
    /// `dtype`'s own units (levels for integer samples): the constant, and 0 for `Zero` and for
    /// `Valid` (whose outputs read no such pixel). A constant that [`check`](Border::check)
    /// refuses for `dtype` (which the plans, [`Convolver`](crate::Convolver) and batches never
    /// run) is taken to the nearest level, never a panic.
    pub fn outside_sample(self, dtype: DType) -> f64 {
        match (self, dtype.levels()) {
            (Border::Constant(v), Some(max)) => f64::from(v).round().clamp(0.0, max),
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
    pub(crate) fn kernel_code(self) -> u32 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The constant is in the image's own levels, as OpenCV's `borderValue` and scipy's `cval`:
    /// a value an integer type cannot hold is an error, never clamped or rescaled.
    #[test]
    fn the_constant_is_in_the_types_own_levels() {
        let c = |v: f32| Border::Constant(v);
        assert_eq!(c(128.0).outside_sample(DType::U8), 128.0);
        assert_eq!(c(128.0).outside(DType::U8), 128.0 / 255.0);
        assert_eq!(c(40000.0).outside_sample(DType::U16), 40000.0);
        assert_eq!(c(-3.5).outside_sample(DType::F32), -3.5);
        for (v, dtype) in [
            (0.0, DType::U8),
            (255.0, DType::U8),
            (65535.0, DType::U16),
            (-3.0, DType::F32),
        ] {
            assert!(c(v).check(dtype).is_ok(), "{v} {dtype:?}");
        }
        for (v, dtype) in [
            (-3.0, DType::U8),
            (256.0, DType::U8),
            (0.5, DType::U8),
            (65536.0, DType::U16),
            (-1.0, DType::U16),
            (f32::NAN, DType::U8),
            (f32::INFINITY, DType::F32),
        ] {
            let e = c(v).check(dtype).unwrap_err().to_string();
            assert!(e.contains("the border's constant"), "{e}");
        }
        assert!(Border::Reflect.check(DType::U8).is_ok());
        // Unchecked, an integer type takes the nearest level: no panic.
        assert_eq!(c(-3.0).outside_sample(DType::U8), 0.0);
        assert_eq!(c(300.4).outside_sample(DType::U8), 255.0);
        assert_eq!(Border::checked_cval(DType::U8), 191.0);
        assert_eq!(Border::checked_cval(DType::U16), 49151.0);
        assert_eq!(Border::checked(DType::F32), Border::CHECKED);
        for dtype in DType::ALL {
            assert!(Border::checked(dtype).iter().all(|b| b.check(dtype).is_ok()));
        }
    }
}
