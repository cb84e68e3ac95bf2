//! The registry of GPU variants: one [`Spec`] per variant says everything the launcher, the
//! autotuner, `bench`, `verify`, the tests and `host info` need to know about it (kernels and
//! their launch shapes, taps, input, loads per pixel, what it supports).

use super::shapes::{
    blocked, loads_blocked, loads_separable, loads_separable_fused, loads_tensor_f32, loads_tensor_u8,
    loads_tiled, loads_tiled_cache, loads_tiled_output, loads_warp_rows, pixel, separable_cols,
    separable_fused, separable_rows, taps, tensor_f32, tensor_u8, tiled, tiled_cache, tiled_output,
    warp_rows,
};
use crate::model::image::DType;
use crate::{Error, Result};
use gpu_kernels::kernels::{
    blocked, constant, naive, readonly, separable_cols, separable_fused, separable_rows, tensor_f32,
    tensor_u8, texture, tiled, tiled_cache, tiled_output, warp_rows,
};
use gpu_kernels::launch::{self, Geometry};

/// The GPU kernel variants, in the order the textbook and the reports introduce them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Filter and image both from global memory.
    Naive,
    /// Filter in the constant bank, image from global memory.
    Constant,
    /// Image through the read-only data cache (`ld.global.nc`), filter in the constant bank.
    Readonly,
    /// Image through a 2D texture object, filter in the constant bank.
    Texture,
    /// Blocks the size of the input tile; whole tile in shared memory.
    Tiled,
    /// Blocks the size of the output tile (block shape `TILED_OUTPUT_BLOCKS[i]`); haloed tile
    /// loaded in batches.
    TiledOutput(usize),
    /// Only the tile's interior in shared memory; halo through the caches.
    TiledCache,
    /// Row pass then column pass (rank-1 filters only).
    Separable,
    /// Row pass into shared memory then column pass, in one kernel (rank-1 filters only).
    SeparableFused,
    /// Register-blocked (4 × 4 outputs per thread), radius fixed at compile time.
    Blocked4x4,
    /// As [`Variant::Blocked4x4`] with 4 × 2 outputs per thread: half the tile, fewer registers.
    Blocked4x2,
    /// 8-bit images on the tensor cores (exact integer products, taps split into 8-bit digits),
    /// radius fixed at compile time, up to 4.
    TensorU8,
    /// `f32` images on the tensor cores (samples and taps split into FP16 high and low parts, three
    /// products per tap), radius fixed at compile time, 1 to 15.
    TensorF32,
    /// 8-bit rows streamed through registers by warps (no shared memory, no barrier), radius
    /// fixed at compile time, up to 2 (RGB and RGBA on their own entries up to 1).
    WarpRows,
}

/// Grid, block and dynamic shared memory of one kernel launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32),
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// One block per `tile` of output pixels (`tile` = the block's output), one grid plane per
    /// channel.
    pub(super) fn tiles(g: &Geometry, tile: (u32, u32), block: (u32, u32), shared_bytes: u32) -> Self {
        Self {
            grid: (
                g.out_width.div_ceil(tile.0),
                g.out_height.div_ceil(tile.1),
                g.channels,
            ),
            block,
            shared_bytes,
        }
    }
}

/// A device buffer a pass reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// The job's input image (linear memory or a texture object).
    Input,
    /// The `f32` intermediate between two passes (`out_width × in_height × channels`).
    Intermediate,
    /// The job's output image.
    Output,
}

/// The last kernel argument: where a pass finds its taps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapsArg {
    /// A device pointer to the `k × k` filter in global memory.
    Global,
    /// The `k × k` filter by value (a [`launch::Taps`] in the constant bank).
    Filter,
    /// The `k × k` filter divided by 255, by value: for a kernel that sums 8-bit samples as the
    /// integers they are.
    FilterPerLevel,
    /// A rank-1 filter's row taps then its column taps, by value.
    RowThenColumn,
    /// A rank-1 filter's row taps, by value.
    Row,
    /// A rank-1 filter's column taps, by value.
    Column,
    /// A device pointer to the `tensor-u8` kernel's B fragments of the filter's taps split into
    /// 8-bit digits (built by `engine/gpu/tensor.rs`).
    TensorU8,
    /// A device pointer to the `tensor-f32` kernel's B fragments of the filter's taps split into
    /// FP16 high and low parts (built by `engine/gpu/tensor_f32.rs`).
    TensorF32,
}

/// One kernel launch of a variant: every kernel has the signature
/// `(input, output, Geometry, taps)`, with `input`/`output` as [`Buffer`]s and taps as [`TapsArg`].
#[derive(Debug)]
pub struct Pass {
    /// Entry-point base name (see [`launch::names`]).
    pub entry: &'static str,
    /// One entry point per radius, `<entry>[_<type>]_r<r>`, instead of `<entry>_<type>`.
    pub per_radius: bool,
    /// Also interleaved entries, `<entry>_c<channels>[_<type>]_r<r>` for the
    /// [`launch::INTERLEAVED_CHANNELS`] (`blocked-*`, `tensor-*`, `warp-rows`).
    pub interleaved: Option<Interleaved>,
    pub reads: Buffer,
    pub writes: Buffer,
    pub taps: TapsArg,
    /// The launch shape for a geometry.
    pub config: fn(&Geometry) -> LaunchConfig,
}

/// A pass's interleaved (RGB, RGBA) entries: up to which radius they exist, and for which
/// geometries they are taken.
#[derive(Clone, Copy, Debug)]
pub struct Interleaved {
    pub applies: fn(&Geometry) -> bool,
    pub max_radius: u32,
}

/// `blocked-4x4`'s and `blocked-4x2`'s interleaved entries.
const BLOCKED_INTERLEAVED: Interleaved = Interleaved {
    applies: blocked::interleaved,
    max_radius: blocked::INTERLEAVED_MAX_RADIUS,
};

impl Pass {
    /// The pass's entry points for samples with name suffix `t` (`None` for a kernel of one sample
    /// type, whose entry names carry none; see [`Pass::function_index`]).
    pub fn entry_names(&self, t: Option<&str>, max_radius: usize) -> Vec<String> {
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
    pub fn function_index(&self, g: &Geometry, max_radius: usize) -> usize {
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

/// Everything about one variant.
#[derive(Debug)]
pub struct Spec {
    pub variant: Variant,
    /// The name used in tables and on the command line.
    pub name: &'static str,
    /// One line for `host info` and the docs.
    pub summary: &'static str,
    /// Kernel launches, in order.
    pub passes: &'static [Pass],
    pub input: InputKind,
    /// Works only with rank-1 (separable) filters.
    pub rank1_only: bool,
    /// Among the candidates `--variant auto` times.
    pub autotune: bool,
    /// The geometries `--variant auto` times it on, if a candidate.
    pub autotune_for: fn(&Geometry) -> bool,
    /// Global-memory (or texture) loads per output sample for a radius, counted by hand as the
    /// reports do.
    pub loads_per_pixel: fn(usize) -> f64,
    /// The sample types it has kernels for.
    pub dtypes: &'static [DType],
    /// The smallest filter radius it offers.
    pub min_radius: usize,
    /// The largest filter radius it has kernels for.
    pub max_radius: usize,
}

/// The largest radius of any variant; most support every sample type, border and radius up to
/// this one.
pub const MAX_RADIUS: usize = launch::MAX_RADIUS as usize;

const fn single(entry: &'static str, taps: TapsArg, config: fn(&Geometry) -> LaunchConfig) -> Pass {
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

const fn per_radius(entry: &'static str, taps: TapsArg, config: fn(&Geometry) -> LaunchConfig) -> Pass {
    Pass {
        per_radius: true,
        ..single(entry, taps, config)
    }
}

const fn spec(variant: Variant, name: &'static str, summary: &'static str, passes: &'static [Pass]) -> Spec {
    Spec {
        variant,
        name,
        summary,
        passes,
        input: InputKind::Linear,
        rank1_only: false,
        autotune: false,
        autotune_for: |_| true,
        loads_per_pixel: taps,
        dtypes: &DType::ALL,
        min_radius: 0,
        max_radius: MAX_RADIUS,
    }
}

/// Every variant, in [`Variant::ALL`]'s order.
pub static REGISTRY: [Spec; 16] = [
    Spec {
        loads_per_pixel: |r| 2.0 * taps(r),
        ..spec(
            Variant::Naive,
            "naive",
            "filter and image from global memory",
            &[single(naive::ENTRY, TapsArg::Global, pixel)],
        )
    },
    spec(
        Variant::Constant,
        "constant",
        "filter in the constant bank, image from global memory",
        &[single(constant::ENTRY, TapsArg::Filter, pixel)],
    ),
    spec(
        Variant::Readonly,
        "readonly",
        "image through the read-only data cache, filter in the constant bank",
        &[single(readonly::ENTRY, TapsArg::Filter, pixel)],
    ),
    Spec {
        input: InputKind::Texture,
        ..spec(
            Variant::Texture,
            "texture",
            "image through a 2D texture object, filter in the constant bank",
            &[single(texture::ENTRY, TapsArg::Filter, pixel)],
        )
    },
    Spec {
        loads_per_pixel: loads_tiled,
        ..spec(
            Variant::Tiled,
            "tiled",
            "blocks the size of the input tile, whole tile in shared memory",
            &[single(tiled::ENTRY, TapsArg::Filter, tiled)],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_tiled_output::<0>,
        ..spec(
            Variant::TiledOutput(0),
            "tiled-output-16x16",
            "blocks the size of a 16x16 output tile, haloed tile loaded in batches",
            &[single(tiled_output::ENTRY, TapsArg::Filter, tiled_output::<0>)],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_tiled_output::<1>,
        ..spec(
            Variant::TiledOutput(1),
            "tiled-output-32x16",
            "blocks the size of a 32x16 output tile, haloed tile loaded in batches",
            &[single(tiled_output::ENTRY, TapsArg::Filter, tiled_output::<1>)],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_tiled_output::<2>,
        ..spec(
            Variant::TiledOutput(2),
            "tiled-output-32x32",
            "blocks the size of a 32x32 output tile, haloed tile loaded in batches",
            &[single(tiled_output::ENTRY, TapsArg::Filter, tiled_output::<2>)],
        )
    },
    Spec {
        loads_per_pixel: loads_tiled_cache,
        ..spec(
            Variant::TiledCache,
            "tiled-cache",
            "only the tile's interior in shared memory, halo through the caches",
            &[single(tiled_cache::ENTRY, TapsArg::Filter, tiled_cache)],
        )
    },
    Spec {
        rank1_only: true,
        autotune: true,
        loads_per_pixel: loads_separable,
        ..spec(
            Variant::Separable,
            "separable",
            "row pass then column pass through an f32 intermediate (rank-1 filters)",
            &[
                Pass {
                    writes: Buffer::Intermediate,
                    ..single(separable_rows::ENTRY, TapsArg::Row, separable_rows)
                },
                Pass {
                    reads: Buffer::Intermediate,
                    ..single(separable_cols::ENTRY, TapsArg::Column, separable_cols)
                },
            ],
        )
    },
    Spec {
        rank1_only: true,
        autotune: true,
        loads_per_pixel: loads_separable_fused,
        ..spec(
            Variant::SeparableFused,
            "separable-fused",
            "row pass into shared memory then column pass, one kernel (rank-1 filters)",
            &[per_radius(
                separable_fused::ENTRY,
                TapsArg::RowThenColumn,
                separable_fused,
            )],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_blocked::<0>,
        ..spec(
            Variant::Blocked4x4,
            "blocked-4x4",
            "4x4 outputs per thread in registers, radius fixed at compile time",
            &[Pass {
                interleaved: Some(BLOCKED_INTERLEAVED),
                ..per_radius(blocked::ENTRY_4X4, TapsArg::Filter, blocked::<0>)
            }],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_blocked::<1>,
        ..spec(
            Variant::Blocked4x2,
            "blocked-4x2",
            "4x2 outputs per thread in registers: half the tile, fewer registers",
            &[Pass {
                interleaved: Some(BLOCKED_INTERLEAVED),
                ..per_radius(blocked::ENTRY_4X2, TapsArg::Filter, blocked::<1>)
            }],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_tensor_u8,
        dtypes: &[DType::U8],
        max_radius: tensor_u8::MAX_RADIUS as usize,
        ..spec(
            Variant::TensorU8,
            "tensor-u8",
            "u8 on the tensor cores (exact 8-bit products, taps as 3 digits), radius <= 4",
            &[Pass {
                interleaved: Some(Interleaved {
                    applies: tensor_u8::interleaved,
                    max_radius: tensor_u8::MAX_RADIUS,
                }),
                ..per_radius(tensor_u8::ENTRY, TapsArg::TensorU8, tensor_u8)
            }],
        )
    },
    Spec {
        autotune: true,
        loads_per_pixel: loads_tensor_f32,
        dtypes: &[DType::F32],
        min_radius: tensor_f32::MIN_RADIUS as usize,
        max_radius: tensor_f32::MAX_RADIUS as usize,
        ..spec(
            Variant::TensorF32,
            "tensor-f32",
            "f32 on the tensor cores (FP16 high/low splits, 3 products per tap), radius 1-15",
            &[Pass {
                interleaved: Some(Interleaved {
                    applies: tensor_f32::interleaved,
                    max_radius: tensor_f32::MAX_RADIUS,
                }),
                ..per_radius(tensor_f32::ENTRY, TapsArg::TensorF32, tensor_f32)
            }],
        )
    },
    Spec {
        autotune: true,
        autotune_for: warp_rows::by_words,
        loads_per_pixel: loads_warp_rows,
        dtypes: &[DType::U8],
        max_radius: warp_rows::MAX_RADIUS as usize,
        ..spec(
            Variant::WarpRows,
            "warp-rows",
            "u8 rows streamed through registers by warps, no shared memory, radius <= 2 (RGB/RGBA: 1)",
            &[Pass {
                interleaved: Some(Interleaved {
                    applies: warp_rows::interleaved,
                    max_radius: warp_rows::INTERLEAVED_MAX_RADIUS,
                }),
                ..per_radius(warp_rows::ENTRY, TapsArg::FilterPerLevel, warp_rows)
            }],
        )
    },
];

impl Spec {
    /// Whether the passes go through an intermediate buffer (which costs device memory).
    pub fn has_intermediate(&self) -> bool {
        self.passes.iter().any(|p| p.writes == Buffer::Intermediate)
    }
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 16] = [
        Variant::Naive,
        Variant::Constant,
        Variant::Readonly,
        Variant::Texture,
        Variant::Tiled,
        Variant::TiledOutput(0),
        Variant::TiledOutput(1),
        Variant::TiledOutput(2),
        Variant::TiledCache,
        Variant::Separable,
        Variant::SeparableFused,
        Variant::Blocked4x4,
        Variant::Blocked4x2,
        Variant::TensorU8,
        Variant::TensorF32,
        Variant::WarpRows,
    ];

    /// The variant's description in [`REGISTRY`].
    pub fn spec(self) -> &'static Spec {
        let index = match self {
            Variant::Naive => 0,
            Variant::Constant => 1,
            Variant::Readonly => 2,
            Variant::Texture => 3,
            Variant::Tiled => 4,
            // Block shapes past the last are the last, as `TILED_OUTPUT_BLOCKS` has three.
            Variant::TiledOutput(i) => 5 + i.min(2),
            Variant::TiledCache => 8,
            Variant::Separable => 9,
            Variant::SeparableFused => 10,
            Variant::Blocked4x4 => 11,
            Variant::Blocked4x2 => 12,
            Variant::TensorU8 => 13,
            Variant::TensorF32 => 14,
            Variant::WarpRows => 15,
        };
        &REGISTRY[index]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry a `blocked-4x4` pass launches: interleaved for RGB and RGBA rows of whole vectors up to
    /// the interleaved radius, else the one-channel-per-block entry of the radius.
    #[test]
    fn blocked_passes_pick_the_interleaved_entry_where_rows_are_whole_vectors() {
        let pass = &Variant::Blocked4x2.spec().passes[0];
        let max = Variant::Blocked4x2.spec().max_radius;
        let names = pass.entry_names(Some("f32"), max);
        let entry = |width: u32, channels: u32, radius: u32, offset: u32| {
            let g = Geometry {
                in_width: width,
                channels,
                radius,
                offset,
                ..Geometry::default()
            };
            names[pass.function_index(&g, max)].as_str()
        };
        assert_eq!(entry(64, 1, 2, 0), "conv_blocked_4x2_f32_r2");
        assert_eq!(entry(64, 3, 2, 0), "conv_blocked_4x2_c3_f32_r2");
        assert_eq!(entry(63, 3, 2, 0), "conv_blocked_4x2_f32_r2");
        assert_eq!(entry(63, 4, 0, 0), "conv_blocked_4x2_c4_f32_r0");
        assert_eq!(entry(64, 4, 4, 0), "conv_blocked_4x2_c4_f32_r4");
        assert_eq!(entry(64, 4, 5, 0), "conv_blocked_4x2_f32_r5");
        assert_eq!(entry(64, 3, 1, 1), "conv_blocked_4x2_f32_r1");
        assert_eq!(entry(64, 4, 1, 1), "conv_blocked_4x2_c4_f32_r1");
        assert_eq!(entry(64, 2, 1, 0), "conv_blocked_4x2_f32_r1");
        let naive = &Variant::Naive.spec().passes[0];
        assert_eq!(naive.entry_names(Some("u8"), max), ["conv_naive_u8"]);
        // 300 RGB pixels are 900 samples: 8 blocks of 128 along x, with the RGB tile's halo of 4
        // samples each side; the same image one channel per block has 3 blocks of 128 pixels per
        // channel.
        let rgb = Geometry {
            in_width: 300,
            out_width: 300,
            out_height: 16,
            channels: 3,
            radius: 1,
            ..Geometry::default()
        };
        let config = (pass.config)(&rgb);
        assert_eq!(config.grid, (8, 1, 1));
        assert_eq!(config.shared_bytes, blocked::shared_bytes(1, 2, 3));
        let config = (pass.config)(&Geometry {
            in_width: 301,
            out_width: 301,
            ..rgb
        });
        assert_eq!(config.grid, (9, 1, 1));
        assert_eq!(config.shared_bytes, blocked::shared_bytes(1, 2, 1));
    }

    /// A `tensor-u8` pass launches the interleaved entry for RGB and RGBA at any width, one block per
    /// tile covering every channel; so does `tensor-f32` (128 × 32 tiles) up to radius 12, and one
    /// block per channel of a tile beyond.
    #[test]
    fn tensor_passes_pick_the_interleaved_entry_for_colour() {
        let pass = &Variant::TensorU8.spec().passes[0];
        let max = Variant::TensorU8.spec().max_radius;
        let names = pass.entry_names(None, max);
        let g = Geometry {
            in_width: 301,
            out_width: 301,
            out_height: 65,
            channels: 3,
            radius: 2,
            ..Geometry::default()
        };
        assert_eq!(names[pass.function_index(&g, max)], "conv_tensor_u8_c3_r2");
        let rgba = Geometry { channels: 4, ..g };
        assert_eq!(names[pass.function_index(&rgba, max)], "conv_tensor_u8_c4_r2");
        let gray = Geometry { channels: 1, ..g };
        assert_eq!(names[pass.function_index(&gray, max)], "conv_tensor_u8_r2");
        let config = (pass.config)(&g);
        assert_eq!(config.grid, (3, 2, 1));
        assert_eq!(config.shared_bytes, tensor_u8::shared_bytes(2, 3));
        // `tensor-f32`: the interleaved entries for RGB and RGBA up to its largest radius, one block
        // per channel of a 128 × 64 tile there.
        let split = &Variant::TensorF32.spec().passes[0];
        let max = Variant::TensorF32.spec().max_radius;
        let names = split.entry_names(None, max);
        let rgb = Geometry { radius: 15, ..g };
        assert_eq!(names[split.function_index(&rgb, max)], "conv_tensor_f32_c3_r15");
        assert_eq!((split.config)(&rgb).grid, (9, 2, 1));
        let max_shared = tensor_f32::COLOUR_MAX_RADIUS;
        let config = (split.config)(&Geometry {
            radius: max_shared,
            ..rgb
        });
        assert_eq!((config.grid, config.block), ((3, 3, 1), (32, 12)));
        assert_eq!(config.shared_bytes, tensor_f32::shared_bytes(max_shared, 3));
        let gray = Geometry { channels: 1, ..rgb };
        assert_eq!(names[split.function_index(&gray, max)], "conv_tensor_f32_r15");
        assert_eq!((split.config)(&gray).grid, (3, 2, 1));
    }

    #[test]
    fn the_registry_describes_every_variant_once_in_order() {
        let listed: Vec<Variant> = REGISTRY.iter().map(|s| s.variant).collect();
        assert_eq!(listed, Variant::ALL);
        for v in Variant::ALL {
            assert_eq!(v.spec().variant, v);
            assert_eq!(Variant::parse(v.name()), Some(v));
        }
        assert_eq!(Variant::parse("fast-4x2"), Some(Variant::Blocked4x2));
        assert_eq!(Variant::parse("stream").map(Variant::name), Some("warp-rows"));
    }

    #[test]
    fn launch_shapes_cover_the_output() {
        let g = Geometry {
            in_width: 1000,
            in_height: 700,
            out_width: 996,
            out_height: 696,
            channels: 3,
            radius: 2,
            ..Geometry::default()
        };
        for spec in &REGISTRY {
            let last = spec.passes.last().expect("a pass");
            assert_eq!(last.writes, Buffer::Output, "{}", spec.name);
            assert_eq!(spec.passes[0].reads, Buffer::Input, "{}", spec.name);
            for pass in spec.passes {
                let c = (pass.config)(&g);
                // Every channel in one block (interleaved entries), one block plane per channel,
                // or the channels of a tile side by side in x.
                let covered = if pass.interleaved.is_some_and(|i| (i.applies)(&g)) {
                    c.grid.2 == 1
                } else if c.grid.2 == 1 {
                    c.grid.0 % 3 == 0
                } else {
                    c.grid.2 == 3
                };
                assert!(covered, "{}: {:?}", spec.name, c.grid);
                assert!(c.block.0 * c.block.1 <= 1024, "{}", spec.name);
                // 48 KiB without opting in; `tensor-f32`'s colour blocks hold three channels'
                // planes, which the launcher opts in to (a block may have up to 227 KiB).
                let shared_limit = if spec.name == "tensor-f32" {
                    227 << 10
                } else {
                    48 << 10
                };
                assert!(c.shared_bytes <= shared_limit, "{}", spec.name);
            }
        }
    }
}
