//! The registry of GPU variants, [`REGISTRY`]: one [`Spec`] per variant, in [`Variant::ALL`]'s
//! order, naming its kernels (by their stem) and their launch shapes.

use super::shapes::{
    blocked, blocked_rect, lines_u8, loads_blocked, loads_lines_u8, loads_separable, loads_separable_fused,
    loads_tensor_f32, loads_tensor_f32_blocks, loads_tensor_u8, loads_tiled, loads_tiled_cache,
    loads_tiled_output, loads_warp_rows, pixel, separable_cols, separable_fused, separable_rows, taps,
    tensor_f32, tensor_u8, tiled, tiled_cache, tiled_output, warp_rows,
};
use super::variant::{
    Buffer, InputKind, Interleaved, LaunchConfig, MAX_RADIUS, Pass, Spec, TapsArg, Variant,
};
use crate::model::filter::MAX_GENERAL_SIZE;
use crate::model::image::DType;
use gpu_kernels::kernels::{
    blocked, constant, lines_u8, naive, readonly, separable_cols, separable_fused, separable_rows,
    tensor_f32, tensor_u8, texture, tiled, tiled_cache, tiled_output, warp_rows,
};
use gpu_kernels::launch::Geometry;

/// `blocked-4x4`'s and `blocked-4x2`'s interleaved entries.
const BLOCKED_INTERLEAVED: Interleaved = Interleaved {
    applies: blocked::interleaved,
    max_radius: blocked::INTERLEAVED_MAX_RADIUS,
};

/// `tensor-f32`'s RGBA entries that stage the colour channels together (up to its colour radius)
/// copy alpha; beyond it each channel is a block of its own, alpha included (and
/// `tensor-f32-blocks` cuts a filter into blocks past it where alpha is filtered).
fn tensor_f32_alpha(g: &Geometry) -> bool {
    g.filter_alpha == 0 || tensor_f32::planes(g.channels, g.radius) == 1
}

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
        rectangles_only: false,
        lines_only: false,
        autotune: false,
        batched: false,
        autotune_for: |_| true,
        honours_alpha: |_| true,
        loads_per_pixel: taps,
        dtypes: &DType::ALL,
        min_radius: 0,
        max_radius: MAX_RADIUS,
    }
}

/// Every variant, in [`Variant::ALL`]'s order.
pub static REGISTRY: [Spec; 19] = [
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
        dtypes: &DType::EVERY,
        rank1_only: true,
        autotune: true,
        batched: true,
        loads_per_pixel: loads_separable,
        max_radius: gpu_kernels::launch::MAX_SEPARABLE_RADIUS as usize,
        ..spec(
            Variant::Separable,
            "separable",
            "row pass then column pass through an f32 intermediate (rank-1 filters, up to 1023x1023)",
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
        dtypes: &DType::EVERY,
        rank1_only: true,
        autotune: true,
        batched: true,
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
        batched: true,
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
        dtypes: &DType::EVERY,
        autotune: true,
        batched: true,
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
        rectangles_only: true,
        batched: true,
        loads_per_pixel: loads_blocked::<0>,
        ..spec(
            Variant::BlockedRect,
            "blocked-rect",
            "as blocked-4x4 with the rows looped over at run time: a rectangle costs its own taps",
            &[per_radius(blocked::ENTRY_RECT, TapsArg::Rect, blocked_rect)],
        )
    },
    Spec {
        autotune: true,
        batched: true,
        loads_per_pixel: loads_tensor_u8,
        honours_alpha: |g| g.filter_alpha == 0,
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
        batched: true,
        loads_per_pixel: loads_tensor_f32,
        honours_alpha: tensor_f32_alpha,
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
        batched: true,
        loads_per_pixel: loads_tensor_f32_blocks,
        dtypes: &[DType::F32],
        min_radius: MAX_RADIUS + 1,
        max_radius: MAX_GENERAL_SIZE / 2,
        ..spec(
            Variant::TensorF32Blocks,
            "tensor-f32-blocks",
            "f32 filters past 31x31 (up to 127x127, any rank) as blocks of tensor-f32 taps added in the output",
            &[Pass {
                interleaved: Some(Interleaved {
                    applies: tensor_f32::interleaved,
                    max_radius: tensor_f32::MAX_RADIUS,
                }),
                ..per_radius(tensor_f32::ENTRY, TapsArg::TensorF32Blocks, tensor_f32)
            }],
        )
    },
    Spec {
        autotune: true,
        batched: true,
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
    Spec {
        autotune: true,
        rectangles_only: true,
        lines_only: true,
        batched: true,
        autotune_for: |g| lines_u8::by_vectors(g),
        loads_per_pixel: loads_lines_u8,
        dtypes: &[DType::U8],
        max_radius: lines_u8::MAX_RADIUS as usize,
        ..spec(
            Variant::LinesU8,
            "lines-u8",
            "u8 filters of one row or one column (1xk, kx1) on whole vectors, outputs in registers, radius <= 15",
            &[per_radius(lines_u8::ENTRY, TapsArg::Line, lines_u8)],
        )
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry a `blocked-4x4` pass launches: interleaved for RGB and RGBA rows of whole vectors up to
    /// the interleaved radius, else the one-channel-per-block entry of the radius.
    #[test]
    fn blocked_passes_pick_the_interleaved_entry_where_rows_are_whole_vectors() {
        let pass = &Variant::Blocked4x2.spec().passes[0];
        let max = Variant::Blocked4x2.spec().entry_radius();
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
        let max = Variant::TensorU8.spec().entry_radius();
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
        let max = Variant::TensorF32.spec().entry_radius();
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
                let shared_limit = if spec.name.starts_with("tensor-f32") {
                    227 << 10
                } else {
                    48 << 10
                };
                assert!(c.shared_bytes <= shared_limit, "{}", spec.name);
            }
        }
    }
}
