//! The size ladders of the per-kernel GPU tests: one [`plans`] per variant, sample type and
//! border.

use ferroconv::engine::gpu::Variant;
use ferroconv::{Border, DType};
use host_tools::verify::jobs::{RECTANGLES, VerifyPlan, squares};

/// The size ladder of one test: tiny, thin and odd sizes (smaller than the filter included) with
/// every filter size and channel count, then one larger image with two filter sizes and one
/// channel count (the layout `VerifyPlan::standard` uses for the sample type at large sizes).
/// `blocked-4x4` and `blocked-4x2` also get RGB and RGBA images whose rows are whole 16-byte vectors.
/// `tensor-u8` also gets a gray, an RGB and an RGBA image of several whole tiles with a width that is
/// a multiple of 16, whose inner tiles take its vector paths, and one whose width is a multiple of
/// 4 only (RGB loads pixel by pixel, RGBA's last vectors are partly outside), with every filter
/// size it has; `tensor-f32` the gray, RGB and RGBA 528x268 images (its gray vector path needs a
/// width that is a multiple of 4) with four filter sizes. Every variant gets five rectangles, run
/// in their squares; `separable` also rank-1 filters past 31 × 31, up to 1023 taps a side;
/// `tensor-f32-blocks` only filters past 31 × 31, up to 127 × 127; `blocked-rect` wide and tall
/// rectangles of every radius class (8 rows a thread up to radius 1 along a row, whose tallest
/// tiles take more than 48 KiB of shared memory; the taps of 4 rows kept up to radius 3, read at
/// each use past it).
pub fn plans(variant: Variant, dtype: DType, border: Border) -> Vec<VerifyPlan> {
    let large_channels = match dtype {
        DType::F32 | DType::F16 => 1,
        DType::U16 | DType::BF16 => 3,
        DType::U8 => 4,
    };
    let mut plans = vec![
        VerifyPlan {
            sizes: vec![(1, 1), (1, 7), (7, 1), (7, 5), (31, 17), (257, 129)],
            filters: squares(&[1, 3, 5, 7, 9, 17, 31]),
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        },
        VerifyPlan {
            sizes: vec![(1031, 517)],
            filters: squares(&[3, 17]),
            borders: vec![border],
            layouts: vec![(large_channels, dtype)],
        },
        // Rectangles, run in their squares.
        VerifyPlan {
            sizes: vec![(31, 17), (257, 129)],
            filters: RECTANGLES.to_vec(),
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        },
    ];
    if matches!(variant, Variant::Blocked4x4 | Variant::Blocked4x2) {
        // RGB rows of whole vectors (a width that is a multiple of 4) take the interleaved
        // entries up to radius 4 (RGBA at any width).
        plans.push(VerifyPlan {
            sizes: vec![(12, 5), (528, 268)],
            filters: squares(&[1, 3, 5, 7, 9, 11]),
            borders: vec![border],
            layouts: vec![(3, dtype), (4, dtype)],
        });
    }
    if variant == Variant::BlockedRect {
        plans.push(VerifyPlan {
            sizes: vec![(1, 1), (7, 5), (31, 17), (257, 129)],
            filters: vec![
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
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        });
        plans.push(VerifyPlan {
            sizes: vec![(528, 268)],
            filters: vec![(15, 3), (3, 15), (31, 1), (9, 31)],
            borders: vec![border],
            layouts: vec![(1, dtype)],
        });
    }
    if variant == Variant::TensorU8 {
        plans.push(VerifyPlan {
            sizes: vec![(528, 268), (300, 140)],
            filters: squares(&[1, 3, 5, 7, 9]),
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        });
    }
    if variant == Variant::WarpRows {
        // Rows of whole 8-byte words load a word per lane (the other sizes above go pixel by
        // pixel): 512 ends with lane 31 of a strip, 528 with lane 1; 264 gray, 88 RGB and 66
        // RGBA bytes end on lane 0 (pixel by pixel but for the zero border); 2056 × 9 has no row
        // of blocks inside.
        plans.push(VerifyPlan {
            sizes: vec![(528, 268), (512, 40), (264, 40), (88, 20), (66, 20), (2056, 9)],
            filters: squares(&[1, 3, 5]),
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        });
    }
    if variant == Variant::LinesU8 {
        // Only filters of one row or one column, of every radius: rows of whole 16-byte vectors
        // (16: one vector, both ends of the row; 528 and 512 several), of words only (516, 68),
        // of neither, and colour images (computed sample by sample).
        return vec![VerifyPlan {
            sizes: vec![
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
            filters: vec![
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
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        }];
    }
    if variant == Variant::Separable {
        // Rank-1 filters past 31 × 31, which only this variant runs.
        plans.push(VerifyPlan {
            sizes: vec![(7, 5), (257, 129)],
            filters: vec![(33, 33), (81, 81), (1, 301), (201, 15), (1023, 3)],
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        });
    }
    if variant == Variant::TensorF32Blocks {
        // Only filters past 31 × 31, which it alone runs: squares, rectangles and one of the
        // largest, on tiny, odd and whole-tile images (gray of a width that is a multiple of 4,
        // where aligned blocks load vectors).
        return vec![
            VerifyPlan {
                sizes: vec![(1, 1), (7, 5), (31, 17), (257, 129)],
                filters: vec![(33, 33), (63, 63), (45, 9), (5, 101)],
                borders: vec![border],
                layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
            },
            VerifyPlan {
                sizes: vec![(528, 268)],
                filters: vec![(35, 35), (127, 127), (64, 40)],
                borders: vec![border],
                layouts: vec![(1, dtype)],
            },
        ];
    }
    if variant == Variant::TensorF32 {
        plans.push(VerifyPlan {
            sizes: vec![(528, 268)],
            filters: squares(&[3, 9, 17, 31]),
            borders: vec![border],
            layouts: vec![(1, dtype), (3, dtype), (4, dtype)],
        });
    }
    plans
}
