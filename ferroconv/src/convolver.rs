//! The library's front door: [`Convolver`] convolves images on the GPU when one can be used and
//! on the CPU otherwise, with the same results (both are checked against the `f64` reference).

use crate::engine::{cpu, strips};
use crate::{Border, Error, Filter, Filter2D, Gpu, Image, Problem, Result, Variant};

/// Convolves images with square filters; see the crate documentation for an example.
pub struct Convolver {
    gpu: Option<Gpu>,
    variant: Variant,
}

impl Convolver {
    /// Opens the first GPU, or falls back to the CPU when there is none (no driver, no device).
    /// Any other GPU failure is an error.
    pub fn new() -> Result<Self> {
        match Gpu::new() {
            Ok(gpu) => Ok(Self {
                gpu: Some(gpu),
                variant: Variant::Blocked4x4,
            }),
            Err(Error::NoGpu(_)) => Ok(Self::cpu()),
            Err(e) => Err(e),
        }
    }

    /// Runs on the CPU (multi-threaded `f32`), whatever GPU the machine has.
    pub fn cpu() -> Self {
        Self {
            gpu: None,
            variant: Variant::Blocked4x4,
        }
    }

    /// Uses `variant` on the GPU instead of `blocked-4x4` (no effect on the CPU).
    pub fn with_variant(self, variant: Variant) -> Self {
        Self { variant, ..self }
    }

    /// The GPU in use, if any.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    /// The correlation of `image` with `filter` (a filter that is not symmetric is used as given,
    /// not flipped), with pixels outside the image defined by `border`; results of integer types
    /// are rounded and clamped, `f32` results are not clamped. Images too large for the GPU's
    /// memory run in strips with the same result. A [`Border::Constant`] is in the image's own
    /// levels; one its type cannot hold (`-3` or `0.5` for 8-bit samples) is an error.
    pub fn convolve(&self, image: &Image, filter: &Filter, border: Border) -> Result<Image> {
        border.check(image.dtype())?;
        // In a child forked after CUDA started, the parent's GPU cannot be used: the CPU runs.
        let Some(gpu) = self.gpu.as_ref().filter(|_| !crate::fork::cuda_forked()) else {
            return cpu::parallel(image, filter, border, false);
        };
        let problem = Problem::of(image, filter, border, false);
        let budget = strips::budget(gpu)?;
        let plan_strips = strips::plan(&problem, self.variant.spec().has_intermediate(), budget)?;
        let mut plan = Filter2D::new(gpu, filter, border)?.with_variant(self.variant)?;
        strips::run(image, filter.radius(), border, &plan_strips, |strip| {
            plan.run_image(strip)
        })
    }
}
