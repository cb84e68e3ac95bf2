//! The registry of GPU variants: one row per variant, its case of [`Variant`] and its [`Spec`]
//! (naming its kernels by their stem, their launch shapes and loads per pixel from the kernel
//! files), from which [`Variant::ALL`] and [`REGISTRY`] are made in one order.

use super::variant::{
    Buffer, InputKind, Interleaved, MAX_RADIUS, Pass, Spec, TapsArg, TestSizes, per_radius, registry, single,
    spec,
};
use crate::model::filter::MAX_GENERAL_SIZE;
use crate::model::image::DType;
use gpu_kernels::kernels::{
    blocked, constant, lines_u8, naive, readonly, separable_cols, separable_fused, separable_rows,
    tensor_f32, tensor_u8, texture, tiled, tiled_cache, tiled_output, warp_rows,
};
use gpu_kernels::launch::{Geometry, LaunchConfig};

/// `blocked-4x4`'s and `blocked-4x2`'s interleaved entries.
const BLOCKED_INTERLEAVED: Interleaved = Interleaved {
    applies: blocked::interleaved,
    max_radius: blocked::INTERLEAVED_MAX_RADIUS,
};

/// `blocked-4x4`'s and `blocked-4x2`'s own test: RGB rows of whole vectors (a width that is a
/// multiple of 4) take the interleaved entries up to radius 4 (RGBA at any width).
const BLOCKED_TESTS: &[TestSizes] = &[TestSizes {
    sizes: &[(12, 5), (528, 268)],
    filters: &[(1, 1), (3, 3), (5, 5), (7, 7), (9, 9), (11, 11)],
    channels: &[3, 4],
}];

/// `tensor-f32`'s RGBA entries that stage the colour channels together (up to its colour radius)
/// copy alpha; beyond it each channel is a block of its own, alpha included (and
/// `tensor-f32-blocks` cuts a filter into blocks past it where alpha is filtered).
fn tensor_f32_alpha(g: &Geometry) -> bool {
    g.filter_alpha == 0 || tensor_f32::planes(g.channels, g.radius) == 1
}

registry! {
    /// Filter and image both from global memory.
    Naive => Spec {
        loads_per_pixel: naive::loads_per_pixel,
        ..spec(
            Variant::Naive,
            "naive",
            "filter and image from global memory",
            &[single(naive::ENTRY, TapsArg::Global, LaunchConfig::pixels)],
        )
    },
    /// Filter in the constant bank, image from global memory.
    Constant => spec(
        Variant::Constant,
        "constant",
        "filter in the constant bank, image from global memory",
        &[single(constant::ENTRY, TapsArg::Filter, LaunchConfig::pixels)],
    ),
    /// Image through the read-only data cache (`ld.global.nc`), filter in the constant bank.
    Readonly => spec(
        Variant::Readonly,
        "readonly",
        "image through the read-only data cache, filter in the constant bank",
        &[single(readonly::ENTRY, TapsArg::Filter, LaunchConfig::pixels)],
    ),
    /// Image through a 2D texture object, filter in the constant bank.
    Texture => Spec {
        input: InputKind::Texture,
        ..spec(
            Variant::Texture,
            "texture",
            "image through a 2D texture object, filter in the constant bank",
            &[single(texture::ENTRY, TapsArg::Filter, LaunchConfig::pixels)],
        )
    },
    /// Blocks the size of the input tile; whole tile in shared memory.
    Tiled => Spec {
        loads_per_pixel: tiled::loads_per_pixel,
        ..spec(
            Variant::Tiled,
            "tiled",
            "blocks the size of the input tile, whole tile in shared memory",
            &[single(tiled::ENTRY, TapsArg::Filter, tiled::launch_config)],
        )
    },
    /// Blocks the size of a 16 × 16 output tile; haloed tile loaded in batches.
    TiledOutput16x16 => Spec {
        autotune: true,
        loads_per_pixel: |r| tiled_output::loads_per_pixel(tiled_output::BLOCK_16X16, r),
        ..spec(
            Variant::TiledOutput16x16,
            "tiled-output-16x16",
            "blocks the size of a 16x16 output tile, haloed tile loaded in batches",
            &[single(tiled_output::ENTRY, TapsArg::Filter, |g| {
                tiled_output::launch_config(g, tiled_output::BLOCK_16X16)
            })],
        )
    },
    /// Blocks the size of a 32 × 16 output tile; haloed tile loaded in batches.
    TiledOutput32x16 => Spec {
        autotune: true,
        loads_per_pixel: |r| tiled_output::loads_per_pixel(tiled_output::BLOCK_32X16, r),
        ..spec(
            Variant::TiledOutput32x16,
            "tiled-output-32x16",
            "blocks the size of a 32x16 output tile, haloed tile loaded in batches",
            &[single(tiled_output::ENTRY, TapsArg::Filter, |g| {
                tiled_output::launch_config(g, tiled_output::BLOCK_32X16)
            })],
        )
    },
    /// Blocks the size of a 32 × 32 output tile; haloed tile loaded in batches.
    TiledOutput32x32 => Spec {
        autotune: true,
        loads_per_pixel: |r| tiled_output::loads_per_pixel(tiled_output::BLOCK_32X32, r),
        ..spec(
            Variant::TiledOutput32x32,
            "tiled-output-32x32",
            "blocks the size of a 32x32 output tile, haloed tile loaded in batches",
            &[single(tiled_output::ENTRY, TapsArg::Filter, |g| {
                tiled_output::launch_config(g, tiled_output::BLOCK_32X32)
            })],
        )
    },
    /// Only the tile's interior in shared memory; halo through the caches.
    TiledCache => Spec {
        loads_per_pixel: tiled_cache::loads_per_pixel,
        ..spec(
            Variant::TiledCache,
            "tiled-cache",
            "only the tile's interior in shared memory, halo through the caches",
            &[single(
                tiled_cache::ENTRY,
                TapsArg::Filter,
                tiled_cache::launch_config,
            )],
        )
    },
    /// Row pass then column pass (rank-1 filters only).
    Separable => Spec {
        // Rank-1 filters past 31 × 31, which only this variant runs.
        tests: &[TestSizes {
            sizes: &[(7, 5), (257, 129)],
            filters: &[(33, 33), (81, 81), (1, 301), (201, 15), (1023, 3)],
            channels: &[1, 3, 4],
        }],
        dtypes: &DType::EVERY,
        rank1_only: true,
        autotune: true,
        batched: true,
        loads_per_pixel: |r| separable_rows::loads_per_pixel(r) + separable_cols::loads_per_pixel(r),
        max_radius: gpu_kernels::launch::MAX_SEPARABLE_RADIUS as usize,
        ..spec(
            Variant::Separable,
            "separable",
            "row pass then column pass through an f32 intermediate (rank-1 filters, up to 1023x1023)",
            &[
                Pass {
                    writes: Buffer::Intermediate,
                    ..single(separable_rows::ENTRY, TapsArg::Row, separable_rows::launch_config)
                },
                Pass {
                    reads: Buffer::Intermediate,
                    ..single(
                        separable_cols::ENTRY,
                        TapsArg::Column,
                        separable_cols::launch_config,
                    )
                },
            ],
        )
    },
    /// Row pass into shared memory then column pass, in one kernel (rank-1 filters only).
    SeparableFused => Spec {
        dtypes: &DType::EVERY,
        rank1_only: true,
        autotune: true,
        batched: true,
        loads_per_pixel: separable_fused::loads_per_pixel,
        ..spec(
            Variant::SeparableFused,
            "separable-fused",
            "row pass into shared memory then column pass, one kernel (rank-1 filters)",
            &[per_radius(
                separable_fused::ENTRY,
                TapsArg::RowThenColumn,
                separable_fused::launch_config,
            )],
        )
    },
    /// Register-blocked (4 × 4 outputs per thread), radius fixed at compile time.
    Blocked4x4 => Spec {
        tests: BLOCKED_TESTS,
        autotune: true,
        batched: true,
        loads_per_pixel: |r| blocked::loads_per_pixel(blocked::ROWS_4X4, r),
        ..spec(
            Variant::Blocked4x4,
            "blocked-4x4",
            "4x4 outputs per thread in registers, radius fixed at compile time",
            &[Pass {
                interleaved: Some(BLOCKED_INTERLEAVED),
                ..per_radius(blocked::ENTRY_4X4, TapsArg::Filter, |g| {
                    blocked::launch_config(g, blocked::ROWS_4X4)
                })
            }],
        )
    },
    /// As [`Variant::Blocked4x4`] with 4 × 2 outputs per thread: half the tile, fewer registers.
    Blocked4x2 => Spec {
        tests: BLOCKED_TESTS,
        dtypes: &DType::EVERY,
        autotune: true,
        batched: true,
        loads_per_pixel: |r| blocked::loads_per_pixel(blocked::ROWS_4X2, r),
        ..spec(
            Variant::Blocked4x2,
            "blocked-4x2",
            "4x2 outputs per thread in registers: half the tile, fewer registers",
            &[Pass {
                interleaved: Some(BLOCKED_INTERLEAVED),
                ..per_radius(blocked::ENTRY_4X2, TapsArg::Filter, |g| {
                    blocked::launch_config(g, blocked::ROWS_4X2)
                })
            }],
        )
    },
    /// As [`Variant::Blocked4x4`] for a rectangle: its radius along a row fixed at compile time,
    /// its rows looped over at run time, so it costs its own taps, not its square's.
    BlockedRect => Spec {
        // Wide and tall rectangles of every radius class: 8 rows a thread up to radius 1 along
        // a row, whose tallest tiles take more than 48 KiB of shared memory; the taps of 4 rows
        // kept up to radius 3, read at each use past it.
        tests: &[
            TestSizes {
                sizes: &[(1, 1), (7, 5), (31, 17), (257, 129)],
                filters: &[
                    (31, 1),
                    (1, 31),
                    (15, 3),
                    (3, 15),
                    (31, 3),
                    (21, 5),
                    (5, 21),
                    (9, 2),
                    (31, 7),
                    (7, 31),
                ],
                channels: &[1, 3, 4],
            },
            TestSizes {
                sizes: &[(528, 268)],
                filters: &[(15, 3), (3, 15), (31, 1), (9, 31)],
                channels: &[1],
            },
        ],
        autotune: true,
        rectangles_only: true,
        batched: true,
        loads_per_pixel: |r| blocked::loads_per_pixel(blocked::ROWS_4X4, r),
        ..spec(
            Variant::BlockedRect,
            "blocked-rect",
            "as blocked-4x4 with the rows looped over at run time: a rectangle costs its own taps",
            &[per_radius(
                blocked::ENTRY_RECT,
                TapsArg::Rect,
                blocked::rect_launch_config,
            )],
        )
    },
    /// 8-bit images on the tensor cores (exact integer products, taps split into 8-bit digits),
    /// radius fixed at compile time, up to 4.
    TensorU8 => Spec {
        // Several whole tiles of a width that is a multiple of 16, whose inner tiles take the
        // vector paths, and one of a multiple of 4 only (RGB loads pixel by pixel, RGBA's last
        // vectors are partly outside), with every filter size it has.
        tests: &[TestSizes {
            sizes: &[(528, 268), (300, 140)],
            filters: &[(1, 1), (3, 3), (5, 5), (7, 7), (9, 9)],
            channels: &[1, 3, 4],
        }],
        autotune: true,
        batched: true,
        loads_per_pixel: tensor_u8::loads_per_pixel,
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
                ..per_radius(tensor_u8::ENTRY, TapsArg::TensorU8, tensor_u8::launch_config)
            }],
        )
    },
    /// `f32` images on the tensor cores (samples and taps split into FP16 high and low parts, three
    /// products per tap), radius fixed at compile time, 1 to 15.
    TensorF32 => Spec {
        // Its gray vector path needs a width that is a multiple of 4.
        tests: &[TestSizes {
            sizes: &[(528, 268)],
            filters: &[(3, 3), (9, 9), (17, 17), (31, 31)],
            channels: &[1, 3, 4],
        }],
        autotune: true,
        batched: true,
        loads_per_pixel: tensor_f32::loads_per_pixel,
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
                ..per_radius(tensor_f32::ENTRY, TapsArg::TensorF32, tensor_f32::launch_config)
            }],
        )
    },
    /// `f32` filters past 31 × 31 (to 127 × 127, of any rank) as blocks of taps, each a
    /// [`Variant::TensorF32`] launch adding to the output.
    TensorF32Blocks => Spec {
        // Only filters past 31 × 31, which it alone runs: squares, rectangles and one of the
        // largest, on tiny, odd and whole-tile images (gray of a width that is a multiple of 4,
        // where aligned blocks load vectors).
        tests: &[
            TestSizes {
                sizes: &[(1, 1), (7, 5), (31, 17), (257, 129)],
                filters: &[(33, 33), (63, 63), (45, 9), (5, 101)],
                channels: &[1, 3, 4],
            },
            TestSizes {
                sizes: &[(528, 268)],
                filters: &[(35, 35), (127, 127), (64, 40)],
                channels: &[1],
            },
        ],
        tests_only: true,
        autotune: true,
        batched: true,
        loads_per_pixel: super::tensor_f32::loads_per_pixel_blocks,
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
                ..per_radius(
                    tensor_f32::ENTRY,
                    TapsArg::TensorF32Blocks,
                    tensor_f32::launch_config,
                )
            }],
        )
    },
    /// FP16 images on the tensor cores: [`Variant::TensorF32`]'s kernel with the samples as
    /// they are (no low parts: two products a tap), one channel a block, radius 1 to 15.
    TensorF16 => Spec {
        // Whole vectors (a width that is a multiple of 4) and not, every channel count.
        tests: &[TestSizes {
            sizes: &[(528, 268), (301, 67)],
            filters: &[(3, 3), (5, 5), (17, 17), (31, 31)],
            channels: &[1, 3, 4],
        }],
        autotune: true,
        batched: true,
        loads_per_pixel: tensor_f32::loads_per_pixel,
        dtypes: &[DType::F16],
        min_radius: tensor_f32::MIN_RADIUS as usize,
        max_radius: tensor_f32::MAX_RADIUS as usize,
        ..spec(
            Variant::TensorF16,
            "tensor-f16",
            "f16 on the tensor cores (the samples as they are, taps as FP16 high/low parts), radius 1-15",
            &[per_radius(
                tensor_f32::ENTRY_F16,
                TapsArg::TensorF32,
                tensor_f32::launch_config_f16,
            )],
        )
    },
    /// 8-bit rows streamed through registers by warps (no shared memory, no barrier), radius
    /// fixed at compile time, up to 2 (RGB and RGBA on their own entries up to 1).
    WarpRows => Spec {
        // Rows of whole 8-byte words load a word per lane (the ladder's other sizes go pixel by
        // pixel): 512 ends with lane 31 of a strip, 528 with lane 1; 264 gray, 88 RGB and 66
        // RGBA bytes end on lane 0 (pixel by pixel but for the zero border); 2056 × 9 has no
        // row of blocks inside.
        tests: &[TestSizes {
            sizes: &[(528, 268), (512, 40), (264, 40), (88, 20), (66, 20), (2056, 9)],
            filters: &[(1, 1), (3, 3), (5, 5)],
            channels: &[1, 3, 4],
        }],
        autotune: true,
        batched: true,
        autotune_for: warp_rows::by_words,
        loads_per_pixel: warp_rows::loads_per_pixel,
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
                ..per_radius(
                    warp_rows::ENTRY,
                    TapsArg::FilterPerLevel,
                    warp_rows::launch_config,
                )
            }],
        )
    },
    /// 8-bit filters of one row or one column (1 × k, k × 1) read as whole vectors, each byte
    /// used as the integer it is, the outputs in registers; radius fixed at compile time, up to 15.
    LinesU8 => Spec {
        // Only filters of one row or one column, of every radius: rows of whole 16-byte vectors
        // (16: one vector, both ends of the row; 528 and 512 several), of words only (516, 68),
        // of neither, and colour images (computed sample by sample).
        tests: &[TestSizes {
            sizes: &[
                (1, 1),
                (7, 5),
                (31, 17),
                (257, 129),
                (16, 9),
                (68, 40),
                (516, 37),
                (512, 20),
                (528, 268),
            ],
            filters: &[
                (1, 1),
                (1, 3),
                (3, 1),
                (1, 9),
                (9, 1),
                (1, 31),
                (31, 1),
                (1, 2),
                (2, 1),
                (1, 16),
                (23, 1),
            ],
            channels: &[1, 3, 4],
        }],
        tests_only: true,
        autotune: true,
        rectangles_only: true,
        lines_only: true,
        batched: true,
        autotune_for: |g| lines_u8::by_vectors(g),
        loads_per_pixel: lines_u8::loads_per_pixel,
        dtypes: &[DType::U8],
        max_radius: lines_u8::MAX_RADIUS as usize,
        ..spec(
            Variant::LinesU8,
            "lines-u8",
            "u8 filters of one row or one column (1xk, kx1) on whole vectors, outputs in registers, radius <= 15",
            &[per_radius(
                lines_u8::ENTRY,
                TapsArg::Line,
                lines_u8::launch_config,
            )],
        )
    },
}

#[cfg(test)]
mod tests;
