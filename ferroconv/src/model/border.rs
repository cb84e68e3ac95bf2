//! Border modes: how pixels outside the image are defined, and the output size they give.

use crate::named::{Named, impl_from_str};
use crate::{Error, Result};
use gpu_kernels::launch::border as kernel_border;

/// How the convolution treats pixels outside the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Border {
    /// Pixels outside are 0 ("ghost cells").
    Zero,
    /// Clamp to the nearest edge pixel: `a a | a b c d | d d`.
    Replicate,
    /// Mirror without repeating the edge pixel: `c b | a b c d | c b`.
    Reflect,
    /// Periodic: `c d | a b c d | a b`.
    Wrap,
    /// No padding: only outputs whose whole window is inside; (W - 2r) × (H - 2r).
    Valid,
}

impl Border {
    /// Every border, in the order the command line lists them.
    pub const ALL: [Border; 5] = [
        Border::Zero,
        Border::Replicate,
        Border::Reflect,
        Border::Wrap,
        Border::Valid,
    ];

    /// The border's name on the command line (`zero`, `replicate`, `reflect`, `wrap`, `valid`).
    pub fn name(self) -> &'static str {
        match self {
            Border::Zero => "zero",
            Border::Replicate => "replicate",
            Border::Reflect => "reflect",
            Border::Wrap => "wrap",
            Border::Valid => "valid",
        }
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
            Border::Zero => kernel_border::ZERO,
            Border::Replicate => kernel_border::REPLICATE,
            Border::Reflect => kernel_border::REFLECT,
            Border::Wrap => kernel_border::WRAP,
            Border::Valid => kernel_border::NONE,
        }
    }

    /// Where coordinate `i` on an axis of `n` pixels reads from, or `None` for a zero pixel.
    /// Written independently of the kernels' version: reflection bounces step by step.
    pub fn source(self, i: isize, n: usize) -> Option<usize> {
        let n = n as isize;
        if (0..n).contains(&i) {
            return Some(i as usize);
        }
        match self {
            Border::Zero | Border::Valid => None,
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
