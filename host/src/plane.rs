//! A single-channel `f32` image stored row-major, and reproducible random images.

use crate::{Error, Result};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// Largest width or height accepted (the GPU grid covers 65535 blocks of 8 rows).
pub const MAX_SIDE: usize = 1 << 19;
/// Largest number of pixels accepted: 2^30 (4 GiB of `f32`).
pub const MAX_PIXELS: usize = 1 << 30;

/// A `width × height` single-channel image, row-major, no padding between rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    width: usize,
    height: usize,
    data: Vec<f32>,
}

impl Plane {
    /// Wraps `data`, which must hold exactly `width * height` pixels.
    pub fn new(width: usize, height: usize, data: Vec<f32>) -> Result<Self> {
        check_dims(width, height)?;
        if data.len() != width * height {
            return Err(Error::Image(format!(
                "{width}x{height} needs {} pixels, got {}",
                width * height,
                data.len()
            )));
        }
        Ok(Self { width, height, data })
    }

    /// A reproducible image of uniform random values in `[0, 1)`; never all zeros.
    pub fn random(width: usize, height: usize, seed: u64) -> Result<Self> {
        check_dims(width, height)?;
        let mut rng = StdRng::seed_from_u64(seed);
        let data = (0..width * height).map(|_| rng.random::<f32>()).collect();
        Ok(Self { width, height, data })
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The pixels, row-major.
    pub fn data(&self) -> &[f32] {
        &self.data
    }

    /// Pixel `(x, y)`, or 0 outside the image (the zero "ghost cell" border).
    pub fn get_or_zero(&self, x: isize, y: isize) -> f32 {
        if x < 0 || y < 0 || x >= self.width as isize || y >= self.height as isize {
            0.0
        } else {
            self.data[y as usize * self.width + x as usize]
        }
    }
}

/// Rejects empty images and sizes beyond [`MAX_SIDE`] / [`MAX_PIXELS`].
pub fn check_dims(width: usize, height: usize) -> Result<()> {
    if width == 0 || height == 0 {
        return Err(Error::Image(format!("{width}x{height} has no pixels")));
    }
    if width > MAX_SIDE || height > MAX_SIDE || width.saturating_mul(height) > MAX_PIXELS {
        return Err(Error::Image(format!(
            "{width}x{height} is too large (at most {MAX_SIDE} per side and {MAX_PIXELS} pixels)"
        )));
    }
    Ok(())
}
