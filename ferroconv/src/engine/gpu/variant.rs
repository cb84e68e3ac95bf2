//! The GPU variants and what describes one: a [`Spec`] per variant (in [`REGISTRY`]) says
//! everything the launcher, the autotuner, `bench`, `verify`, the tests and `host info` need to
//! know about it (kernels and their launch shapes, taps, input, loads per pixel, what it supports).

pub use super::registry::{REGISTRY, Variant};
use crate::model::image::DType;
use crate::{Error, Result};
use gpu_kernels::launch::{self, Geometry, LaunchConfig};

/// A device buffer a pass reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Buffer {
    /// The job's input image (linear memory or a texture object).
    Input,
    /// The `f32` intermediate between two passes (`out_width × in_height × channels`).
    Intermediate,
    /// The job's output image.
    Output,
}

/// The last kernel argument: where a pass finds its taps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TapsArg {
    /// A device pointer to the `k × k` filter in global memory.
    Global,
    /// The `k × k` filter by value (a [`launch::Taps`] in the constant bank).
    Filter,
    /// The `k × k` filter divided by 255, by value: for a kernel that sums 8-bit samples as the
    /// integers they are.
    FilterPerLevel,
    /// A rank-1 filter's row taps then its column taps, by value.
    RowThenColumn,
    /// A device pointer to a rank-1 filter's row taps (up to 1023: more than a parameter holds).
    Row,
    /// A device pointer to a rank-1 filter's column taps.
    Column,
    /// A device pointer to the `tensor-u8` kernel's B fragments of the filter's taps split into
    /// 8-bit digits (built by `engine/gpu/tensor_u8.rs`).
    TensorU8,
    /// A device pointer to the `tensor-f32` kernel's B fragments of the filter's taps split into
    /// FP16 high and low parts (built by `engine/gpu/tensor_f32.rs`).
    TensorF32,
    /// As [`TapsArg::TensorF32`] for each block of a larger filter, one launch a block.
    TensorF32Blocks,
    /// The filter's own rectangle by value, made odd about its centre tap (`2ry + 1` rows of
    /// `2rx + 1` taps, row-major): for a kernel compiled per radius along a row that loops over
    /// the rows.
    Rect,
    /// A filter of one row or one column by value (its `2r + 1` taps), for a kernel compiled per
    /// radius along its one axis; other filters are refused.
    Line,
}

/// One kernel launch of a variant: every kernel has the signature
/// `(input, output, Geometry, taps)`, with `input`/`output` as [`Buffer`]s and taps as [`TapsArg`].
#[derive(Debug)]
pub(crate) struct Pass {
    /// Entry-point base name: the kernel's `ENTRY` in [`gpu_kernels::kernels`].
    pub(crate) entry: &'static str,
    /// One entry point per radius, `<entry>[_<type>]_r<r>`, instead of `<entry>_<type>`.
    pub(crate) per_radius: bool,
    /// Also interleaved entries, `<entry>_c<channels>[_<type>]_r<r>` for the
    /// [`launch::INTERLEAVED_CHANNELS`] (`blocked-*`, `tensor-*`, `warp-rows`).
    pub(crate) interleaved: Option<Interleaved>,
    pub(crate) reads: Buffer,
    pub(crate) writes: Buffer,
    pub(crate) taps: TapsArg,
    /// The launch shape for a geometry.
    pub(crate) config: fn(&Geometry) -> LaunchConfig,
}

/// A pass's interleaved (RGB, RGBA) entries: up to which radius they exist, and for which
/// geometries they are taken.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interleaved {
    pub(crate) applies: fn(&Geometry) -> bool,
    pub(crate) max_radius: u32,
}

impl Pass {
    /// The pass's entry points for samples with name suffix `t` (`None` for a kernel of one sample
    /// type, whose entry names carry none; see [`Pass::function_index`]).
    pub(crate) fn entry_names(&self, t: Option<&str>, max_radius: usize) -> Vec<String> {
        let t = t.map(|t| format!("_{t}")).unwrap_or_default();
        if !self.per_radius {
            return vec![format!("{}{t}", self.entry)];
        }
        let mut names: Vec<String> = (0..=max_radius)
            .map(|r| format!("{}{t}_r{r}", self.entry))
            .collect();
        if let Some(interleaved) = self.interleaved {
            for c in launch::INTERLEAVED_CHANNELS {
                let radii = 0..=interleaved.max_radius;
                names.extend(radii.map(|r| format!("{}_c{c}{t}_r{r}", self.entry)));
            }
        }
        names
    }

    /// The index in [`Pass::entry_names`] of the entry that runs geometry `g`.
    pub(crate) fn function_index(&self, g: &Geometry, max_radius: usize) -> usize {
        let r = g.radius as usize;
        if !self.per_radius {
            0
        } else if let Some(interleaved) = self.interleaved.filter(|i| (i.applies)(g)) {
            let radii = interleaved.max_radius as usize + 1;
            let c = launch::INTERLEAVED_CHANNELS
                .iter()
                .position(|&c| c == g.channels)
                .expect("interleaved entries exist for every channel count they are taken for");
            max_radius + 1 + c * radii + r
        } else {
            r
        }
    }
}

/// Where a variant's input lives on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// Linear device memory.
    Linear,
    /// A 2D texture object over pitched memory (its address mode may do the border).
    Texture,
}

/// Images and filters the GPU tests of a variant run besides the ladder every variant runs (or
/// instead of it, where [`Spec::tests_only`]): the cross product of these, in the test's sample
/// type and border.
#[derive(Debug)]
pub struct TestSizes {
    /// Image sizes `(width, height)`.
    pub sizes: &'static [(usize, usize)],
    /// Filter shapes `(rows, cols)`.
    pub filters: &'static [(usize, usize)],
    /// Channel counts.
    pub channels: &'static [usize],
}

/// Everything about one variant.
#[derive(Debug)]
pub struct Spec {
    pub(crate) variant: Variant,
    /// The name used in tables and on the command line.
    pub name: &'static str,
    /// One line for `host info` and the docs.
    pub summary: &'static str,
    /// Kernel launches, in order.
    pub(crate) passes: &'static [Pass],
    /// How the image reaches the kernels.
    pub input: InputKind,
    /// Works only with rank-1 (separable) filters.
    pub rank1_only: bool,
    /// Among `--variant auto`'s candidates only for filters that are not their own square (it
    /// runs squares too, at their square's cost).
    pub(crate) rectangles_only: bool,
    /// Runs only filters of one row or one column.
    pub lines_only: bool,
    /// Among the candidates `--variant auto` times.
    pub(crate) autotune: bool,
    /// Filters a batch of packed images in one launch (grid z holds every image's planes).
    pub batched: bool,
    /// The geometries `--variant auto` times it on, if a candidate.
    pub(crate) autotune_for: fn(&Geometry) -> bool,
    /// Whether its kernels treat RGBA's alpha as [`Geometry::filter_alpha`] asks on this
    /// geometry (kernels that stage only the colour channels copy it regardless).
    pub(crate) honours_alpha: fn(&Geometry) -> bool,
    /// Global-memory (or texture) loads per output sample for a radius, counted by hand as the
    /// reports do.
    pub(crate) loads_per_pixel: fn(usize) -> f64,
    /// The sample types it has kernels for.
    pub(crate) dtypes: &'static [DType],
    /// The smallest filter radius it offers.
    pub(crate) min_radius: usize,
    /// The largest filter radius it has kernels for.
    pub max_radius: usize,
    /// The sizes its GPU tests add to the ladder every variant runs: its own paths.
    pub tests: &'static [TestSizes],
    /// Its GPU tests run only [`Spec::tests`] (it runs only some filters).
    pub tests_only: bool,
}

/// Declares [`Variant`], [`Variant::ALL`] and [`REGISTRY`] from one row per variant: its case
/// of `Variant` (with its documentation) and its [`Spec`], in the order the textbook and the
/// reports introduce them.
macro_rules! registry {
    ($($(#[doc = $doc:literal])+ $variant:ident => $spec:expr,)+) => {
        /// The GPU kernel variants, in the order the textbook and the reports introduce them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Variant {
            $($(#[doc = $doc])+ $variant,)+
        }

        /// How many variants there are.
        const COUNT: usize = [$(stringify!($variant)),+].len();

        impl Variant {
            /// Every variant.
            pub const ALL: [Variant; COUNT] = [$(Variant::$variant),+];
        }

        /// Every variant, in [`Variant::ALL`]'s order.
        pub static REGISTRY: [Spec; COUNT] = [$($spec),+];
    };
}
pub(super) use registry;

/// The largest radius of any variant; most support every sample type, border and radius up to
/// this one.
pub(crate) const MAX_RADIUS: usize = launch::MAX_RADIUS as usize;

/// A pass of one entry point (or one per sample type) from the input to the output.
pub(super) const fn single(
    entry: &'static str,
    taps: TapsArg,
    config: fn(&Geometry) -> LaunchConfig,
) -> Pass {
    Pass {
        entry,
        per_radius: false,
        interleaved: None,
        reads: Buffer::Input,
        writes: Buffer::Output,
        taps,
        config,
    }
}

/// As [`single`] with one entry point per radius.
pub(super) const fn per_radius(
    entry: &'static str,
    taps: TapsArg,
    config: fn(&Geometry) -> LaunchConfig,
) -> Pass {
    Pass {
        per_radius: true,
        ..single(entry, taps, config)
    }
}

/// A variant of these passes with the defaults: linear input, every sample type, radius 0 to
/// [`MAX_RADIUS`], any filter, not autotuned, loads per pixel one per tap, no tests of its own.
pub(super) const fn spec(
    variant: Variant,
    name: &'static str,
    summary: &'static str,
    passes: &'static [Pass],
) -> Spec {
    Spec {
        variant,
        name,
        summary,
        passes,
        input: InputKind::Linear,
        rank1_only: false,
        rectangles_only: false,
        lines_only: false,
        autotune: false,
        batched: false,
        autotune_for: |_| true,
        honours_alpha: |_| true,
        loads_per_pixel: launch::taps,
        dtypes: &DType::ALL,
        min_radius: 0,
        max_radius: MAX_RADIUS,
        tests: &[],
        tests_only: false,
    }
}

impl Spec {
    /// The largest radius its per-radius entry points exist for: [`Spec::max_radius`], or the
    /// kernels' for a variant that runs larger filters as blocks of taps.
    pub(crate) fn entry_radius(&self) -> usize {
        self.max_radius.min(MAX_RADIUS)
    }

    /// Whether the passes go through an intermediate buffer (which costs device memory).
    pub fn has_intermediate(&self) -> bool {
        self.passes.iter().any(|p| p.writes == Buffer::Intermediate)
    }
}

impl Variant {
    /// The variant's description in [`REGISTRY`].
    pub fn spec(self) -> &'static Spec {
        // `registry!` declares the cases and the rows in one order.
        &REGISTRY[self as usize]
    }

    /// The name used in tables and on the command line.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Whether the variant only works with rank-1 (separable) filters.
    pub fn needs_rank1(self) -> bool {
        self.spec().rank1_only
    }

    /// Whether the variant has kernels for samples of `dtype` (for some filter sizes).
    pub fn supports_dtype(self, dtype: DType) -> bool {
        self.spec().dtypes.contains(&dtype)
    }

    /// Whether the variant has kernels for samples of `dtype` and filters of radius `radius`.
    pub fn supports(self, dtype: DType, radius: usize) -> bool {
        let spec = self.spec();
        self.supports_dtype(dtype) && (spec.min_radius..=spec.max_radius).contains(&radius)
    }

    /// As [`supports`](Variant::supports), as an error that says what the variant supports.
    pub fn check_supports(self, dtype: DType, radius: usize) -> Result<()> {
        if self.supports(dtype, radius) {
            return Ok(());
        }
        let spec = self.spec();
        let dtypes: Vec<&str> = spec.dtypes.iter().map(|d| d.suffix()).collect();
        let size = |r: usize| format!("{0}x{0}", 2 * r + 1);
        let sizes = if spec.min_radius == 0 {
            format!("up to {}", size(spec.max_radius))
        } else {
            format!("from {} up to {}", size(spec.min_radius), size(spec.max_radius))
        };
        Err(Error::Unsupported(format!(
            "the {} variant works on {} samples with filters {sizes} (asked: {}, {})",
            spec.name,
            dtypes.join("/"),
            dtype.suffix(),
            size(radius)
        )))
    }

    /// The variant called `name`, or formerly called so ([`Variant::ALIASES`]).
    pub fn parse(name: &str) -> Option<Variant> {
        REGISTRY
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.variant)
            .or_else(|| {
                Variant::ALIASES
                    .iter()
                    .find(|(old, _)| *old == name)
                    .map(|&(_, v)| v)
            })
    }

    /// The names four variants had until 2026-11-25, still accepted on the command line and read
    /// from autotune caches, `--json` reports and `report merge` inputs.
    pub const ALIASES: [(&'static str, Variant); 4] = [
        ("fast", Variant::Blocked4x4),
        ("fast-4x2", Variant::Blocked4x2),
        ("tensor", Variant::TensorU8),
        ("stream", Variant::WarpRows),
    ];

    /// Global-memory (or texture) loads per output sample, counted by hand as the reports do.
    pub fn global_loads_per_pixel(self, radius: usize) -> f64 {
        (self.spec().loads_per_pixel)(radius)
    }
}
