//! Facts about the embedded PTX that the reference reports are about, checked without a GPU.

use conv::engine::gpu::PTX;
use gpu_kernels::launch::{
    DTYPES, FAST_INTERLEAVED_MAX_RADIUS, INTERLEAVED_CHANNELS, MAX_RADIUS, MAX_TAPS, SPLIT_COLOUR_MAX_RADIUS,
    SPLIT_MAX_RADIUS, STREAM_INTERLEAVED_MAX_RADIUS, STREAM_MAX_RADIUS, TENSOR_MAX_RADIUS, names,
    split_chunks,
};

/// The body of kernel `name`: from its `.entry` line to the next one.
fn kernel(name: &str) -> &'static str {
    let start = PTX
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("{name} not in the PTX"));
    let rest = &PTX[start..];
    let end = rest[1..].find(".entry ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// The named entry points, each with its body.
fn with_bodies(names: impl Iterator<Item = String>) -> impl Iterator<Item = (String, &'static str)> {
    names.map(|name| {
        let body = kernel(&name);
        (name, body)
    })
}

/// Every entry point of kernel `base`, one per sample type, with its name.
fn each_type(base: &str) -> impl Iterator<Item = (String, &'static str)> {
    with_bodies(DTYPES.iter().map(move |t| format!("{base}_{t}")))
}

/// Every entry point of a kernel compiled per radius (`fast`, `separable-fused`): one per sample
/// type and radius.
fn radius_entries(base: &'static str) -> impl Iterator<Item = (String, &'static str)> {
    with_bodies(
        DTYPES
            .iter()
            .flat_map(move |t| (0..=MAX_RADIUS).map(move |r| format!("{base}_{t}_r{r}"))),
    )
}

/// Every entry point of a `fast` kernel: gray (one channel per block), then interleaved (RGB,
/// RGBA), one per channel count, sample type and radius up to `FAST_INTERLEAVED_MAX_RADIUS`.
fn fast_entries(base: &'static str) -> impl Iterator<Item = (String, &'static str)> {
    radius_entries(base).chain(interleaved_entries(base, &DTYPES, FAST_INTERLEAVED_MAX_RADIUS))
}

/// The interleaved entries of kernel `base` for sample types `types`: one per channel count,
/// type and radius up to `max_radius`.
fn interleaved_entries(
    base: &'static str,
    types: &'static [&'static str],
    max_radius: u32,
) -> impl Iterator<Item = (String, &'static str)> {
    with_bodies(INTERLEAVED_CHANNELS.iter().flat_map(move |c| {
        types
            .iter()
            .flat_map(move |t| (0..=max_radius).map(move |r| format!("{base}_c{c}_{t}_r{r}")))
    }))
}

/// Every entry point of the `tensor` kernel: 8-bit samples, radius 0 to 4, gray then
/// interleaved (RGB, RGBA).
fn tensor_entries() -> impl Iterator<Item = (String, &'static str)> {
    with_bodies((0..=TENSOR_MAX_RADIUS).map(|r| format!("{}_u8_r{r}", names::TENSOR)))
        .chain(interleaved_entries(names::TENSOR, &["u8"], TENSOR_MAX_RADIUS))
}

/// Every entry point of the `tensor-f32` kernel: `f32` samples, radius 0 to 15, gray then
/// interleaved (RGB, RGBA).
fn split_entries() -> impl Iterator<Item = (String, &'static str)> {
    with_bodies((0..=SPLIT_MAX_RADIUS).map(|r| format!("{}_f32_r{r}", names::TENSOR_SPLIT))).chain(
        interleaved_entries(names::TENSOR_SPLIT, &["f32"], SPLIT_MAX_RADIUS),
    )
}

/// Every entry point of the `stream` kernel: 8-bit samples, gray radius 0 to 2, then RGB and
/// RGBA radius 0 and 1.
fn stream_entries() -> impl Iterator<Item = (String, &'static str)> {
    with_bodies((0..=STREAM_MAX_RADIUS).map(|r| format!("{}_u8_r{r}", names::STREAM))).chain(
        interleaved_entries(names::STREAM, &["u8"], STREAM_INTERLEAVED_MAX_RADIUS),
    )
}

/// Entry `name` (`..._r<radius>`) takes two global pointers and exactly its k² taps by value;
/// returns the radius.
fn assert_taps_by_value(name: &str, body: &str) -> usize {
    let r: usize = name.rsplit("_r").next().unwrap().parse().unwrap();
    let k = 2 * r + 1;
    assert_eq!(
        pointer_params(body),
        2,
        "{name}: unexpected global pointer parameters"
    );
    assert!(
        body.contains(&format!("{name}_param_3[{}]", 4 * k * k)),
        "{name}: taps parameter is not {k}x{k} floats"
    );
    r
}

fn pointer_params(body: &str) -> usize {
    body.lines().filter(|l| l.contains(".param .u64 .ptr")).count()
}

#[test]
fn ptx_has_every_kernel_for_every_type_and_targets_sm_90() {
    let mut entries = ptx_builder::entry_names(PTX);
    entries.sort_unstable();
    let mut expected: Vec<String> = names::ALL
        .iter()
        .flat_map(|n| DTYPES.iter().map(move |t| format!("{n}_{t}")))
        .collect();
    expected.extend(fast_entries(names::FAST).map(|(name, _)| name));
    expected.extend(fast_entries(names::FAST_4X2).map(|(name, _)| name));
    expected.extend(radius_entries(names::SEP_FUSED).map(|(name, _)| name));
    expected.extend(tensor_entries().map(|(name, _)| name));
    expected.extend(split_entries().map(|(name, _)| name));
    expected.extend(stream_entries().map(|(name, _)| name));
    expected.push(names::FMA_PROBE.to_string());
    expected.push(names::GPU_SPIN.to_string());
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

/// The `stream` kernels take exactly their k² taps by value, share their rows between lanes with
/// shuffles, and use no shared or local memory and no barrier.
#[test]
fn stream_kernels_shuffle_and_share_nothing() {
    for (name, body) in stream_entries() {
        assert_taps_by_value(&name, body);
        assert!(body.contains("shfl.sync.up.b32"), "{name}: no shuffle");
        for absent in ["ld.shared", "st.shared", "bar.sync", ".local"] {
            assert!(!body.contains(absent), "{name}: {absent}");
        }
    }
}

#[test]
fn tiled_kernels_really_use_shared_memory() {
    let bases = [
        names::TILED,
        names::TILED_OUTPUT,
        names::TILED_CACHE,
        names::SEP_ROWS,
        names::SEP_COLS,
    ];
    let per_radius = [names::FAST, names::FAST_4X2]
        .into_iter()
        .flat_map(fast_entries)
        .chain(radius_entries(names::SEP_FUSED));
    for (name, body) in bases.into_iter().flat_map(each_type).chain(per_radius) {
        assert!(body.contains("st.shared"), "{name}: no shared-memory store");
        assert!(body.contains("ld.shared"), "{name}: no shared-memory load");
        assert!(body.contains("bar.sync"), "{name}: no barrier");
    }
}

/// The constant-memory kernels receive the taps by value (constant bank) and read them through
/// `ld.param`; their only global pointers are the input (unless it is a texture) and the output,
/// so they cannot read the filter from global memory, and no per-thread copy of the taps exists.
#[test]
fn constant_bank_kernels_never_read_taps_from_global_memory() {
    let bases = [
        (names::CONSTANT, 2),
        (names::READONLY, 2),
        (names::TEXTURE, 1),
        (names::TILED, 2),
        (names::TILED_OUTPUT, 2),
        (names::TILED_CACHE, 2),
        (names::SEP_ROWS, 2),
        (names::SEP_COLS, 2),
    ];
    let all = bases
        .into_iter()
        .flat_map(|(base, pointers)| each_type(base).map(move |e| (e, pointers)));
    let per_radius = [names::SEP_FUSED].into_iter().flat_map(radius_entries);
    for ((name, body), pointers) in all.chain(per_radius.map(|e| (e, 2))) {
        {
            assert_eq!(
                pointer_params(body),
                pointers,
                "{name}: unexpected global pointer parameters"
            );
            assert!(
                body.contains(&format!("{name}_param_3[{}]", 4 * MAX_TAPS)),
                "{name}: taps parameter missing"
            );
            assert!(
                body.contains(&format!("{name}_param_3;")),
                "{name}: taps address not taken"
            );
            assert!(
                body.contains("ld.param.f32"),
                "{name}: taps not read with ld.param"
            );
            assert!(!body.contains(".local"), "{name}: taps copied to local memory");
        }
    }
}

/// The `fast` kernels take exactly their k² taps by value (a small parameter block per launch)
/// and read them with `ld.param` (at constant offsets where the kernel is unrolled, else through
/// the parameter's address), never from global or local memory; `fast-4x2` up to radius 4 and
/// `fast` up to radius 4 (for `u16` from radius 2) carry their register limit, and so do the
/// interleaved entries but the few ptxas would spill.
#[test]
fn fast_kernels_take_exactly_their_taps_by_value() {
    for base in [names::FAST, names::FAST_4X2] {
        for (name, body) in fast_entries(base) {
            let r = assert_taps_by_value(&name, body);
            assert!(body.contains("ld.param"), "{name}: taps not read with ld.param");
            assert!(!body.contains(".local"), "{name}: taps copied to local memory");
            let limit = if name.contains("_c3_") || name.contains("_c4_") {
                ptx_builder::INTERLEAVED_OVER_32
                    .iter()
                    .find(|(entry, _)| *entry == name)
                    .map_or(Some(32), |&(_, limit)| limit)
            } else if base == names::FAST && name.contains("_u16_") {
                (2..=4).contains(&r).then_some(32)
            } else {
                (r <= 4).then_some(32)
            };
            let directive = body
                .split_once(".maxnreg ")
                .map(|(_, rest)| rest.split_whitespace().next().unwrap().parse::<u32>().unwrap());
            assert_eq!(directive, limit, "{name}: register limit");
        }
    }
}

/// The `tensor` kernels do their products on the tensor cores, 3 digits per pair of filter rows
/// and 3 MMAs of half the size for the last row (per copy of the window's code: one for gray,
/// the compiler may unroll the colour entries' loops), and read their fragments from global
/// memory.
#[test]
fn tensor_kernels_multiply_on_the_tensor_cores() {
    for (name, body) in tensor_entries() {
        let r: usize = name.rsplit("_r").next().unwrap().parse().unwrap();
        let count = |shape: &str| {
            body.matches(&format!("mma.sync.aligned.{shape}.row.col.s32.u8.s8.s32"))
                .count()
        };
        let copies = count("m16n8k16") / 3;
        let most = if name.contains("_c") { 2 } else { 1 };
        assert!(
            (1..=most).contains(&copies),
            "{name}: {copies} copies of the window"
        );
        assert_eq!(
            count("m16n8k16"),
            3 * copies,
            "{name}: MMAs of the last filter row"
        );
        assert_eq!(
            count("m16n8k32"),
            3 * r * copies,
            "{name}: MMAs of two filter rows"
        );
        assert_eq!(pointer_params(body), 3, "{name}: input, output and fragments");
        assert!(!body.contains(".local"), "{name}: local memory");
    }
}

/// The `tensor-f32` kernels do their products on the tensor cores: 3 FP16 MMAs per window and
/// chunk of B, K = 16 for pairs of filter rows (a loop LLVM may unroll) and K = 8 for the last
/// row, and read their fragments from global memory.
#[test]
fn tensor_f32_kernels_multiply_on_the_tensor_cores() {
    for (name, body) in split_entries() {
        let r: u32 = name.rsplit("_r").next().unwrap().parse().unwrap();
        let per_row = 3 * 8 * split_chunks(r) as usize;
        let count = |shape: &str| {
            body.matches(&format!("mma.sync.aligned.{shape}.row.col.f32.f16.f16.f32"))
                .count()
        };
        let pairs = count("m16n8k16");
        assert!(
            pairs % per_row == 0 && pairs <= per_row * r as usize && (pairs > 0) == (r > 0),
            "{name}: {pairs} MMAs of two filter rows"
        );
        assert_eq!(count("m16n8k8"), per_row, "{name}: MMAs of the last filter row");
        assert_eq!(pointer_params(body), 3, "{name}: input, output and fragments");
        assert!(!body.contains(".local"), "{name}: local memory");
    }
}

/// The `tensor-f32` RGB and RGBA entries whose blocks filter three channels (up to
/// `SPLIT_COLOUR_MAX_RADIUS`, the radius `ptx-builder` writes as a number) carry the 80-register
/// limit that keeps two of them on an SM; the others none.
#[test]
fn tensor_f32_colour_entries_of_three_channels_are_limited_to_80_registers() {
    for (name, body) in interleaved_entries(names::TENSOR_SPLIT, &["f32"], SPLIT_MAX_RADIUS) {
        let r: u32 = name.rsplit("_r").next().unwrap().parse().unwrap();
        let directive = body
            .split_once(".maxnreg ")
            .map(|(_, rest)| rest.split_whitespace().next().unwrap().parse::<u32>().unwrap());
        assert_eq!(
            directive,
            (r <= SPLIT_COLOUR_MAX_RADIUS).then_some(80),
            "{name}: register limit"
        );
    }
}

#[test]
fn memory_paths_are_the_ones_each_variant_claims() {
    for (name, body) in each_type(names::READONLY) {
        assert!(body.contains("ld.global.nc"), "{name}: no read-only cache loads");
    }
    for (name, body) in each_type(names::CONSTANT) {
        assert!(
            !body.contains("ld.global.nc"),
            "{name}: should use ordinary loads"
        );
    }
    for (name, body) in each_type(names::TEXTURE) {
        assert!(body.contains("tex.2d"), "{name}: no texture fetch");
        assert!(
            !body.contains("ld.global"),
            "{name}: the input must come through the texture"
        );
    }
    for (name, body) in each_type(names::NAIVE) {
        assert_eq!(pointer_params(body), 4 - 1, "{name}: input, output and filter");
        assert!(
            body.matches("ld.global").count() >= 2,
            "{name}: pixel and tap loads"
        );
        assert!(
            !body.contains("ld.shared") && !body.contains("ld.param.f32"),
            "{name}"
        );
    }
}
