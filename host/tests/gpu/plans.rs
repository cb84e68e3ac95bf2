//! The size ladders of the per-kernel GPU tests: one [`plans`] per variant, sample type and
//! border.

use ferroconv::engine::gpu::Variant;
use ferroconv::{Border, DType};
use host_tools::verify::jobs::{RECTANGLES, VerifyPlan, squares};

/// The size ladder of one test: tiny, thin and odd sizes (smaller than the filter included) with
/// every filter size and channel count, then one larger image with two filter sizes and one
/// channel count (the layout `VerifyPlan::standard` uses for the sample type at large sizes), and
/// five rectangles, run in their squares; then the variant's own sizes from its registry row
/// (`Spec::tests`: its vector paths, its largest filters), or only those where the row says
/// `tests_only` (the variants that run only lines or only filters past 31 × 31).
pub fn plans(variant: Variant, dtype: DType, border: Border) -> Vec<VerifyPlan> {
    let spec = variant.spec();
    let own = spec.tests.iter().map(|t| VerifyPlan {
        sizes: t.sizes.to_vec(),
        filters: t.filters.to_vec(),
        borders: vec![border],
        layouts: t.channels.iter().map(|&c| (c, dtype)).collect(),
    });
    if spec.tests_only {
        return own.collect();
    }
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
    plans.extend(own);
    plans
}
