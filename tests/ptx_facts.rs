//! Facts about the embedded PTX that the reference reports are about, checked without a GPU.

use conv::gpu::PTX;
use gpu_kernels::launch::{MAX_TAPS, names};

/// The body of kernel `name`: from its `.entry` line to the next one.
fn kernel(name: &str) -> &'static str {
    let start = PTX
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("{name} not in the PTX"));
    let rest = &PTX[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

fn pointer_params(body: &str) -> usize {
    body.lines().filter(|l| l.contains(".param .u64 .ptr")).count()
}

#[test]
fn ptx_has_every_kernel_and_targets_sm_90() {
    let mut entries = ptx_builder::entry_names(PTX);
    entries.sort_unstable();
    let mut expected = names::ALL;
    expected.sort_unstable();
    assert_eq!(entries, expected);
    assert!(PTX.contains(".target sm_90"));
    let version: f64 = PTX
        .lines()
        .find_map(|l| l.strip_prefix(".version "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        version <= 9.0,
        "PTX ISA {version} is newer than driver 580 accepts"
    );
}

#[test]
fn tiled_kernel_really_uses_shared_memory() {
    let body = kernel(names::TILED);
    assert!(body.contains("st.shared"), "no shared-memory store");
    assert!(body.contains("ld.shared"), "no shared-memory load");
    assert!(body.contains("bar.sync"), "no barrier");
}

/// The constant-memory kernels receive the taps by value (constant bank) and read them through
/// `ld.param`; their only global pointers are the input and output images, so they cannot read the
/// filter from global memory, and no per-thread local copy of the taps exists.
#[test]
fn constant_and_tiled_kernels_read_taps_from_the_constant_bank() {
    for name in [names::CONSTANT, names::TILED] {
        let body = kernel(name);
        assert_eq!(
            pointer_params(body),
            2,
            "{name}: only input and output may be global pointers"
        );
        assert!(
            body.contains(&format!("{name}_param_5[{}]", 4 * MAX_TAPS)),
            "{name}: taps parameter missing"
        );
        assert!(
            body.contains(&format!("{name}_param_5;")),
            "{name}: taps address not taken"
        );
        assert!(
            body.contains("ld.param.f32"),
            "{name}: taps not read with ld.param"
        );
        assert!(!body.contains(".local"), "{name}: taps copied to local memory");
    }
}

#[test]
fn naive_kernel_reads_the_filter_from_global_memory() {
    let body = kernel(names::NAIVE);
    assert_eq!(pointer_params(body), 3, "input, output and filter");
    assert!(body.matches("ld.global").count() >= 2, "pixel and tap loads");
    assert!(!body.contains("ld.shared"));
}
