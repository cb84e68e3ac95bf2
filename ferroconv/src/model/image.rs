//! Interleaved images of 1, 3 or 4 channels with `u8`, `u16`, `f32`, `f16` or `bf16` samples.

use crate::named::{Named, impl_from_str};
use crate::{Error, Result};
use half::{bf16, f16};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// Largest width or height accepted.
pub const MAX_SIDE: usize = 1 << 18;
/// Largest number of pixels accepted: any image within [`MAX_SIDE`] on both sides (2^36). What
/// a machine can hold is decided by the memory bound on a decoded image instead
/// (`--max-image-mem`), from the file's header, before anything is allocated.
pub const MAX_PIXELS: usize = MAX_SIDE * MAX_SIDE;

/// The sample type of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 8-bit unsigned; value = sample / 255.
    U8,
    /// 16-bit unsigned; value = sample / 65535.
    U16,
    /// 32-bit float, used as is.
    F32,
    /// IEEE half float, used as is (computed in `f32`, rounded to the nearest when stored).
    F16,
    /// bfloat16 (the high half of an `f32`), used as is like [`DType::F16`].
    BF16,
}

impl DType {
    /// The sample types of image files, the command line and every GPU variant.
    pub const ALL: [DType; 3] = [DType::U8, DType::U16, DType::F32];
    /// The half floats: device and host images of the library (the CPU engine, and on the GPU
    /// the variants that have kernels for them, [`Variant::supports_dtype`]), not of files.
    ///
    /// [`Variant::supports_dtype`]: crate::Variant::supports_dtype
    pub const HALF: [DType; 2] = [DType::F16, DType::BF16];
    /// Every sample type.
    pub const EVERY: [DType; 5] = [DType::U8, DType::U16, DType::F32, DType::F16, DType::BF16];

    /// Bytes per sample.
    pub fn size(self) -> usize {
        match self {
            DType::U8 => 1,
            DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::F32 => 4,
        }
    }

    /// The suffix of the kernels' entry points for this type.
    pub fn suffix(self) -> &'static str {
        match self {
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
        }
    }

    /// The largest integer level (255, 65535), or `None` for the floats.
    pub fn levels(self) -> Option<f64> {
        match self {
            DType::U8 => Some(255.0),
            DType::U16 => Some(65535.0),
            DType::F32 | DType::F16 | DType::BF16 => None,
        }
    }
}

impl Named for DType {
    const WHAT: &'static str = "sample type";
    const VALUES: &'static [Self] = &DType::ALL;

    fn name(self) -> &'static str {
        self.suffix()
    }
}

impl_from_str!(DType);

/// `$body` with `$t` the Rust type of the sample type `$dtype` (`u8`, `u16`, `f32`,
/// `half::f16`, `half::bf16`): one generic call per sample type.
macro_rules! for_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {
        match $dtype {
            $crate::DType::U8 => {
                type $t = u8;
                $body
            }
            $crate::DType::U16 => {
                type $t = u16;
                $body
            }
            $crate::DType::F32 => {
                type $t = f32;
                $body
            }
            $crate::DType::F16 => {
                type $t = half::f16;
                $body
            }
            $crate::DType::BF16 => {
                type $t = half::bf16;
                $body
            }
        }
    };
}
pub(crate) use for_dtype;

/// The samples of an image, interleaved, row-major, no row padding.
#[derive(Clone, Debug, PartialEq)]
pub enum Samples {
    /// 8-bit samples, 0-255.
    U8(Vec<u8>),
    /// 16-bit samples, 0-65535.
    U16(Vec<u16>),
    /// `f32` samples (images from files: 0-1).
    F32(Vec<f32>),
    /// Half-float samples.
    F16(Vec<f16>),
    /// bfloat16 samples.
    BF16(Vec<bf16>),
}

/// `$body` with `$v` bound to the samples' vector, whatever their type.
macro_rules! each {
    ($s:expr, $v:ident => $body:expr) => {
        match $s {
            Samples::U8($v) => $body,
            Samples::U16($v) => $body,
            Samples::F32($v) => $body,
            Samples::F16($v) => $body,
            Samples::BF16($v) => $body,
        }
    };
}

impl Samples {
    /// `n` samples of type `dtype` set to a marker (NaN for `f32`): host buffers are pre-filled so
    /// their pages are touched before a timed download and hold no stale result.
    pub fn filled(dtype: DType, n: usize) -> Self {
        match dtype {
            DType::U8 => Samples::U8(vec![0xAB; n]),
            DType::U16 => Samples::U16(vec![0xABCD; n]),
            DType::F32 => Samples::F32(vec![f32::NAN; n]),
            DType::F16 => Samples::F16(vec![f16::NAN; n]),
            DType::BF16 => Samples::BF16(vec![bf16::NAN; n]),
        }
    }

    /// `n` zero samples whose pages are not touched yet (the allocator's zeroed pages): for a
    /// result that is written whole, whose writers fault its pages in (on many threads, where
    /// they are many) instead of one thread filling it first.
    pub fn zeroed(dtype: DType, n: usize) -> Self {
        match dtype {
            DType::U8 => Samples::U8(vec![0; n]),
            DType::U16 => Samples::U16(vec![0; n]),
            DType::F32 => Samples::F32(vec![0.0; n]),
            DType::F16 => Samples::F16(vec![f16::ZERO; n]),
            DType::BF16 => Samples::BF16(vec![bf16::ZERO; n]),
        }
    }

    /// Their sample type.
    pub fn dtype(&self) -> DType {
        match self {
            Samples::U8(_) => DType::U8,
            Samples::U16(_) => DType::U16,
            Samples::F32(_) => DType::F32,
            Samples::F16(_) => DType::F16,
            Samples::BF16(_) => DType::BF16,
        }
    }

    /// How many samples.
    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sample `i` as a value: integers divided by their maximum.
    pub fn value(&self, i: usize) -> f64 {
        match self {
            Samples::U8(v) => f64::from(v[i]) / 255.0,
            Samples::U16(v) => f64::from(v[i]) / 65535.0,
            Samples::F32(v) => f64::from(v[i]),
            Samples::F16(v) => f64::from(v[i]),
            Samples::BF16(v) => f64::from(v[i]),
        }
    }

    /// Sample `i` as an `f32` value, the way the GPU reads it.
    pub fn value_f32(&self, i: usize) -> f32 {
        match self {
            Samples::U8(v) => f32::from(v[i]) * (1.0 / 255.0),
            Samples::U16(v) => f32::from(v[i]) * (1.0 / 65535.0),
            Samples::F32(v) => v[i],
            Samples::F16(v) => v[i].to_f32(),
            Samples::BF16(v) => v[i].to_f32(),
        }
    }

    /// The raw bytes (for copies to the GPU).
    pub fn as_bytes(&self) -> &[u8] {
        each!(self, v => bytemuck::cast_slice(v))
    }

    /// The raw bytes, writable (for copies from the GPU).
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        each!(self, v => bytemuck::cast_slice_mut(v))
    }

    /// Converts `f32` values of an image with `channels` channels to this type, as the kernels
    /// do: integers are clamped to [0, 1] and rounded to the nearest level; floats are clamped
    /// only if `clamp`, and never in the alpha channel of RGBA (half floats then rounded to the
    /// nearest).
    pub fn from_values(dtype: DType, values: &[f32], channels: usize, clamp: bool) -> Self {
        let level = |v: f32, max: f32| (v.clamp(0.0, 1.0) * max + 0.5) as u32;
        let is_alpha = |i: usize| channels == 4 && i % 4 == 3;
        let float = || {
            values.iter().enumerate().map(move |(i, &v)| {
                if clamp && !is_alpha(i) {
                    v.clamp(0.0, 1.0)
                } else {
                    v
                }
            })
        };
        match dtype {
            DType::U8 => Samples::U8(values.iter().map(|&v| level(v, 255.0) as u8).collect()),
            DType::U16 => Samples::U16(values.iter().map(|&v| level(v, 65535.0) as u16).collect()),
            DType::F32 => Samples::F32(float().collect()),
            DType::F16 => Samples::F16(float().map(f16::from_f32).collect()),
            DType::BF16 => Samples::BF16(float().map(bf16::from_f32).collect()),
        }
    }
}

/// A `width × height` image of `channels` interleaved channels.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    width: usize,
    height: usize,
    channels: usize,
    samples: Samples,
}

impl Image {
    /// Wraps `samples`, which must hold exactly `width · height · channels` values.
    pub fn new(width: usize, height: usize, channels: usize, samples: Samples) -> Result<Self> {
        check_dims(width, height)?;
        check_channels(channels)?;
        if samples.len() != width * height * channels {
            return Err(Error::Image(format!(
                "{width}x{height} with {channels} channels needs {} samples, got {}",
                width * height * channels,
                samples.len()
            )));
        }
        Ok(Self {
            width,
            height,
            channels,
            samples,
        })
    }

    /// A single-channel `f32` image.
    pub fn gray(width: usize, height: usize, values: Vec<f32>) -> Result<Self> {
        Self::new(width, height, 1, Samples::F32(values))
    }

    /// A reproducible image of uniform random samples (floats in [0, 1), integers over their
    /// whole range), for tests and benchmarks (feature `testing`).
    #[cfg(feature = "testing")]
    pub fn random(width: usize, height: usize, channels: usize, dtype: DType, seed: u64) -> Result<Self> {
        Self::noise(width, height, channels, dtype, seed)
    }

    /// [`Image::random`]'s image, which the autotuner times its candidates on.
    pub(crate) fn noise(
        width: usize,
        height: usize,
        channels: usize,
        dtype: DType,
        seed: u64,
    ) -> Result<Self> {
        check_dims(width, height)?;
        check_channels(channels)?;
        let n = width * height * channels;
        let mut rng = StdRng::seed_from_u64(seed);
        let samples = match dtype {
            DType::U8 => Samples::U8((0..n).map(|_| rng.random()).collect()),
            DType::U16 => Samples::U16((0..n).map(|_| rng.random()).collect()),
            DType::F32 => Samples::F32((0..n).map(|_| rng.random()).collect()),
            DType::F16 => Samples::F16((0..n).map(|_| f16::from_f32(rng.random())).collect()),
            DType::BF16 => Samples::BF16((0..n).map(|_| bf16::from_f32(rng.random())).collect()),
        };
        Ok(Self {
            width,
            height,
            channels,
            samples,
        })
    }

    /// Pixels per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Samples per pixel: 1 (gray), 3 (RGB) or 4 (RGBA; alpha is copied, not filtered).
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The sample type.
    pub fn dtype(&self) -> DType {
        self.samples.dtype()
    }

    /// The samples, to overwrite in place; callers keep their number and type.
    pub(crate) fn samples_mut(&mut self) -> &mut Samples {
        &mut self.samples
    }

    /// The samples, interleaved, row-major, no row padding.
    pub fn samples(&self) -> &Samples {
        &self.samples
    }

    /// The samples, the image given up (to use their memory again).
    pub fn into_samples(self) -> Samples {
        self.samples
    }

    /// The value of channel `c` of pixel `(x, y)` (integers divided by their maximum).
    pub fn value(&self, x: usize, y: usize, c: usize) -> f64 {
        self.samples.value((y * self.width + x) * self.channels + c)
    }

    /// Bytes of all samples.
    pub fn byte_len(&self) -> usize {
        self.samples.len() * self.dtype().size()
    }

    /// Largest absolute sample value.
    pub fn max_abs(&self) -> f64 {
        (0..self.samples.len())
            .map(|i| self.samples.value(i).abs())
            .fold(0.0, f64::max)
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

/// Accepts 1 (gray), 3 (RGB) and 4 (RGBA) channels.
pub fn check_channels(channels: usize) -> Result<()> {
    if matches!(channels, 1 | 3 | 4) {
        Ok(())
    } else {
        Err(Error::Image(format!(
            "{channels} channels are not supported: use 1 (gray), 3 (RGB) or 4 (RGBA)"
        )))
    }
}
