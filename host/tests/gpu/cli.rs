//! The `host` binary's GPU rows: the main job's and `verify`'s, on the options whose CPU rows
//! `tests/cli.rs` checks without a GPU.

use crate::common::{MAIN_JOB_CASES, VERIFY_LADDER, find_row, host, row, text};
use ferroconv::DType;
use ferroconv::engine::gpu::Variant;

/// Every variant that takes the case's filter and sample type has a passing row, and no other
/// variant has one.
pub fn main_job_gpu_rows_pass_for_every_option() {
    for (args, rank1) in MAIN_JOB_CASES {
        let o = host(&[args, &["--runs", "2", "--cpu-runs", "1"][..]].concat());
        let (out, err) = text(&o);
        assert!(o.status.success(), "{args:?}: {out}\n{err}");
        assert!(!out.contains("GPU variants skipped"), "{args:?}: {out}");
        let after = |flag: &str| args.iter().position(|a| *a == flag).map(|i| args[i + 1]);
        let dtype = after("--dtype").map_or(DType::F32, |d| {
            *DType::ALL
                .iter()
                .find(|t| t.suffix() == d)
                .expect("a sample type")
        });
        let radius = after("--mask").map_or(1, |m| m.parse::<usize>().expect("a mask size") / 2);
        for variant in Variant::ALL {
            let name = variant.name();
            if (variant.needs_rank1() && !rank1) || !variant.supports(dtype, radius) {
                assert!(
                    find_row(&out, name).is_none(),
                    "{args:?}: {name} ran with a filter or sample type it does not take: {out}"
                );
            } else {
                assert!(row(&out, name).ends_with("PASS"), "{args:?}: {out}");
            }
        }
    }
}

/// `host verify` on a small ladder with its GPU variants.
pub fn verify_passes_on_a_small_ladder_on_the_gpu() {
    let o = host(&VERIFY_LADDER);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(!out.contains("GPU variants were skipped"), "{out}");
}
