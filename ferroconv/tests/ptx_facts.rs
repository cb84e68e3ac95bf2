//! Facts about the embedded PTX that the reference reports are about, checked without a GPU.

use ferroconv::engine::gpu::PTX;
use gpu_kernels::kernels::{
    self, blocked, constant, direct_f64, lines_u8, magnitude, naive, probe, readonly, separable_cols,
    separable_fused, separable_rows, spin, tensor_f32, tensor_u8, texture, tiled, tiled_cache, tiled_output,
    warp_rows,
};
use gpu_kernels::launch::{DTYPES, HALF_DTYPES, INTERLEAVED_CHANNELS, MAX_RADIUS, MAX_TAPS};

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

/// Every entry point of a kernel compiled per radius (`blocked-*`, `separable-fused`): one per sample
/// type and radius.
fn radius_entries(base: &'static str) -> impl Iterator<Item = (String, &'static str)> {
    with_bodies(
        DTYPES
            .iter()
            .flat_map(move |t| (0..=MAX_RADIUS).map(move |r| format!("{base}_{t}_r{r}"))),
    )
}

/// Every entry point of a `blocked-*` kernel: gray (one channel per block), then interleaved (RGB,
/// RGBA), one per channel count, sample type and radius up to `INTERLEAVED_MAX_RADIUS`.
fn blocked_entries(base: &'static str) -> impl Iterator<Item = (String, &'static str)> {
    let typed: Vec<String> = DTYPES.iter().map(|t| format!("_{t}")).collect();
    radius_entries(base).chain(interleaved_entries(base, typed, blocked::INTERLEAVED_MAX_RADIUS))
}

/// `blocked-4x2`'s half-float entries (`f16`, `bf16`): gray, then RGB and RGBA.
fn half_blocked_entries() -> impl Iterator<Item = (String, &'static str)> {
    HALF_DTYPES.into_iter().flat_map(|t| {
        let base = blocked::ENTRY_4X2;
        let gray = with_bodies((0..=MAX_RADIUS).map(move |r| format!("{base}_{t}_r{r}")));
        gray.chain(interleaved_entries(
            base,
            vec![format!("_{t}")],
            blocked::INTERLEAVED_MAX_RADIUS,
        ))
    })
}

/// The interleaved entries of kernel `base` for the type suffixes `types` (`[""]` for a kernel of
/// one sample type): one per channel count, type and radius up to `max_radius`.
fn interleaved_entries(
    base: &'static str,
    types: Vec<String>,
    max_radius: u32,
) -> impl Iterator<Item = (String, &'static str)> {
    let names: Vec<String> = INTERLEAVED_CHANNELS
        .iter()
        .flat_map(|c| {
            types
                .iter()
                .flat_map(move |t| (0..=max_radius).map(move |r| format!("{base}_c{c}{t}_r{r}")))
        })
        .collect();
    with_bodies(names.into_iter())
}

/// Every entry point of a kernel of one sample type compiled per radius: gray radius 0 to
/// `max_radius`, then RGB and RGBA up to `interleaved_max_radius`.
fn single_type_entries(
    base: &'static str,
    max_radius: u32,
    interleaved_max_radius: u32,
) -> impl Iterator<Item = (String, &'static str)> {
    with_bodies((0..=max_radius).map(move |r| format!("{base}_r{r}"))).chain(interleaved_entries(
        base,
        vec![String::new()],
        interleaved_max_radius,
    ))
}

/// Every entry point of the `tensor-u8` kernel: radius 0 to 4, gray then interleaved.
fn tensor_u8_entries() -> impl Iterator<Item = (String, &'static str)> {
    single_type_entries(tensor_u8::ENTRY, tensor_u8::MAX_RADIUS, tensor_u8::MAX_RADIUS)
}

/// Every entry point of the `tensor-f32` kernel: radius 0 to 15, gray then interleaved.
fn tensor_f32_entries() -> impl Iterator<Item = (String, &'static str)> {
    single_type_entries(tensor_f32::ENTRY, tensor_f32::MAX_RADIUS, tensor_f32::MAX_RADIUS)
}

/// Every entry point of `tensor-f16` (the `tensor-f32` kernel on FP16 samples): gray, radius 0
/// to 15.
fn tensor_f16_entries() -> impl Iterator<Item = (String, &'static str)> {
    with_bodies((0..=tensor_f32::MAX_RADIUS).map(|r| format!("{}_r{r}", tensor_f32::ENTRY_F16)))
}

/// Every entry point of the `warp-rows` kernel: gray radius 0 to 2, then RGB and RGBA radius 0
/// and 1.
fn warp_rows_entries() -> impl Iterator<Item = (String, &'static str)> {
    single_type_entries(
        warp_rows::ENTRY,
        warp_rows::MAX_RADIUS,
        warp_rows::INTERLEAVED_MAX_RADIUS,
    )
}

/// The `.maxnreg` directive of an entry's body, if any.
fn register_limit(body: &str) -> Option<u32> {
    body.split_once(".maxnreg ")
        .map(|(_, rest)| rest.split_whitespace().next().unwrap().parse::<u32>().unwrap())
}

/// The radius of an entry `..._r<radius>`.
fn radius(name: &str) -> usize {
    name.rsplit("_r").next().unwrap().parse().unwrap()
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
    let mut expected: Vec<String> = kernels::PER_TYPE
        .iter()
        .flat_map(|n| DTYPES.iter().map(move |t| format!("{n}_{t}")))
        .collect();
    expected.extend(blocked_entries(blocked::ENTRY_4X4).map(|(name, _)| name));
    expected.extend(blocked_entries(blocked::ENTRY_4X2).map(|(name, _)| name));
    expected.extend(radius_entries(blocked::ENTRY_RECT).map(|(name, _)| name));
    expected.extend(radius_entries(separable_fused::ENTRY).map(|(name, _)| name));
    expected.extend(tensor_u8_entries().map(|(name, _)| name));
    expected.extend(tensor_f32_entries().map(|(name, _)| name));
    expected.extend(tensor_f16_entries().map(|(name, _)| name));
    expected.extend(warp_rows_entries().map(|(name, _)| name));
    expected.extend((0..=lines_u8::MAX_RADIUS).map(|r| format!("{}_r{r}", lines_u8::ENTRY)));
    for t in HALF_DTYPES {
        let per_radius = |base: &'static str| (0..=MAX_RADIUS).map(move |r| format!("{base}_{t}_r{r}"));
        expected.extend([separable_rows::ENTRY, separable_cols::ENTRY].map(|n| format!("{n}_{t}")));
        expected.extend(per_radius(separable_fused::ENTRY));
    }
    expected.extend(half_blocked_entries().map(|(name, _)| name));
    expected.push(direct_f64::ENTRY.to_string());
    expected.push(magnitude::ENTRY.to_string());
    expected.push(probe::ENTRY.to_string());
    expected.push(spin::ENTRY.to_string());
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

/// The `warp-rows` kernels take exactly their k² taps by value, share their rows between lanes with
/// shuffles, and use no shared or local memory and no barrier.
#[test]
fn warp_rows_kernels_shuffle_and_share_nothing() {
    for (name, body) in warp_rows_entries() {
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
        tiled::ENTRY,
        tiled_output::ENTRY,
        tiled_cache::ENTRY,
        separable_rows::ENTRY,
        separable_cols::ENTRY,
    ];
    let per_radius = [blocked::ENTRY_4X4, blocked::ENTRY_4X2]
        .into_iter()
        .flat_map(blocked_entries)
        .chain(radius_entries(blocked::ENTRY_RECT))
        .chain(radius_entries(separable_fused::ENTRY));
    for (name, body) in bases.into_iter().flat_map(each_type).chain(per_radius) {
        assert!(body.contains("st.shared"), "{name}: no shared-memory store");
        assert!(body.contains("ld.shared"), "{name}: no shared-memory load");
        assert!(body.contains("bar.sync"), "{name}: no barrier");
    }
}

/// The `separable` passes take their taps (up to 1023, more than a parameter holds) through a
/// third global pointer, beside the input and the output (or the intermediate).
#[test]
fn separable_passes_read_their_taps_from_global_memory() {
    for (name, body) in [separable_rows::ENTRY, separable_cols::ENTRY]
        .into_iter()
        .flat_map(each_type)
    {
        assert_eq!(pointer_params(body), 3, "{name}: input, output and taps");
    }
}

/// The constant-memory kernels receive the taps by value (constant bank) and read them through
/// `ld.param`; their only global pointers are the input (unless it is a texture) and the output,
/// so they cannot read the filter from global memory, and no per-thread copy of the taps exists.
#[test]
fn constant_bank_kernels_never_read_taps_from_global_memory() {
    let bases = [
        (constant::ENTRY, 2),
        (readonly::ENTRY, 2),
        (texture::ENTRY, 1),
        (tiled::ENTRY, 2),
        (tiled_output::ENTRY, 2),
        (tiled_cache::ENTRY, 2),
    ];
    let all = bases
        .into_iter()
        .flat_map(|(base, pointers)| each_type(base).map(move |e| (e, pointers)));
    let per_radius = [separable_fused::ENTRY].into_iter().flat_map(radius_entries);
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

/// The `blocked-*` kernels take exactly their k² taps by value (a small parameter block per
/// launch) and read them with `ld.param` (at constant offsets where the kernel is unrolled, else
/// through the parameter's address), never from global or local memory.
#[test]
fn blocked_kernels_take_exactly_their_taps_by_value() {
    for base in [blocked::ENTRY_4X4, blocked::ENTRY_4X2] {
        for (name, body) in blocked_entries(base) {
            assert_taps_by_value(&name, body);
            assert!(body.contains("ld.param"), "{name}: taps not read with ld.param");
            assert!(!body.contains(".local"), "{name}: taps copied to local memory");
        }
    }
}

/// The `blocked-rect` entries take the taps of up to 31 rows of their `2r + 1` by value and read
/// them through the parameter's address (the row at a run-time offset), never from global or
/// local memory.
#[test]
fn blocked_rect_takes_31_rows_of_taps_by_value() {
    for (name, body) in radius_entries(blocked::ENTRY_RECT) {
        let k = 2 * radius(&name) + 1;
        assert_eq!(
            pointer_params(body),
            2,
            "{name}: unexpected global pointer parameters"
        );
        assert!(
            body.contains(&format!("{name}_param_3[{}]", 4 * 31 * k)),
            "{name}: taps parameter is not 31 rows of {k} floats"
        );
        assert!(
            body.contains(&format!("{name}_param_3;")),
            "{name}: taps address not taken"
        );
        assert!(!body.contains(".local"), "{name}: taps copied to local memory");
    }
}

/// Every entry carries the register limit its kernel declares (`#[kernel(max_registers = ...)]`,
/// turned into `.maxnreg` by `ptx-builder`), and no other entry has one.
#[test]
fn every_entry_carries_the_register_limit_its_kernel_declares() {
    let channels = |name: &str| {
        INTERLEAVED_CHANNELS
            .into_iter()
            .find(|c| name.contains(&format!("_c{c}_")))
            .unwrap_or(1) as usize
    };
    let mut limited = 0;
    for (rows, base) in [(4, blocked::ENTRY_4X4), (2, blocked::ENTRY_4X2)] {
        for (name, body) in blocked_entries(base) {
            let bytes = if name.contains("_u8_") {
                1
            } else if name.contains("_u16_") {
                2
            } else {
                4
            };
            let limit = blocked::max_registers(bytes, radius(&name), rows, channels(&name));
            assert_eq!(register_limit(body).unwrap_or(0), limit, "{name}");
            limited += usize::from(limit > 0);
        }
    }
    // `blocked-4x2`'s half-float entries: 2-byte samples.
    for (name, body) in half_blocked_entries() {
        let limit = blocked::max_registers(2, radius(&name), 2, channels(&name));
        assert_eq!(register_limit(body).unwrap_or(0), limit, "{name}");
        limited += usize::from(limit > 0);
    }
    for (name, body) in radius_entries(blocked::ENTRY_RECT) {
        let limit = blocked::rect_max_registers(radius(&name) as u32);
        assert_eq!(register_limit(body).unwrap_or(0), limit, "{name}");
        limited += usize::from(limit > 0);
    }
    type MaxRegisters = fn(usize, usize) -> u32;
    let single: [(MaxRegisters, Vec<(String, &str)>); 4] = [
        (tensor_u8::max_registers, tensor_u8_entries().collect()),
        (tensor_f32::max_registers, tensor_f32_entries().collect()),
        (tensor_f32::max_registers, tensor_f16_entries().collect()),
        (warp_rows::max_registers, warp_rows_entries().collect()),
    ];
    for (max_registers, entries) in single {
        for (name, body) in entries {
            let limit = max_registers(radius(&name), channels(&name));
            assert_eq!(register_limit(body).unwrap_or(0), limit, "{name}");
            limited += usize::from(limit > 0);
        }
    }
    assert_eq!(PTX.matches(".maxnreg ").count(), limited);
    assert!(
        !PTX.contains(ptx_builder::MAX_REGISTERS_SUFFIX),
        "a register-limit global left in the PTX"
    );
    // The limits measured best (ptxas 13.0, H100): 32 for the gray blocked entries up to radius 4
    // (4 × 4 `u16` from radius 2) and most interleaved ones, 36, 40 or none where 32 spills.
    assert_eq!(blocked::max_registers(4, 4, 2, 1), 32);
    assert_eq!(blocked::max_registers(4, 5, 2, 1), 0);
    assert_eq!(blocked::max_registers(2, 1, 4, 1), 0);
    assert_eq!(blocked::max_registers(2, 2, 4, 1), 32);
    assert_eq!(blocked::max_registers(4, 1, 2, 4), 36);
    assert_eq!(blocked::max_registers(1, 4, 4, 4), 40);
    assert_eq!(blocked::max_registers(2, 4, 2, 4), 0);
    assert_eq!(blocked::max_registers(1, 1, 4, 3), 0);
    assert_eq!(blocked::max_registers(4, 1, 2, 3), 32);
    assert_eq!(blocked::rect_max_registers(1), 64);
    assert_eq!(blocked::rect_max_registers(2), 0);
    assert_eq!(tensor_u8::max_registers(4, 1), 64);
    assert_eq!(tensor_u8::max_registers(3, 1), 0);
    assert_eq!(warp_rows::max_registers(1, 1), 56);
    assert_eq!(warp_rows::max_registers(1, 3), 0);
    assert_eq!(tensor_f32::max_registers(1, 1), 0);
    assert_eq!(tensor_f32::max_registers(12, 1), 64);
    assert_eq!(tensor_f32::max_registers(13, 1), 80);
    assert_eq!(tensor_f32::max_registers(12, 3), 80);
    assert_eq!(tensor_f32::max_registers(13, 4), 80);
}

/// The `tensor-u8` kernels do their products on the tensor cores, 3 digits per pair of filter rows
/// and 3 MMAs of half the size for the last row (per copy of the window's code: two for gray, the
/// rounding and truncating stores compiled apart, and the compiler may unroll the colour
/// entries' loops), and read their fragments from global memory.
#[test]
fn tensor_kernels_multiply_on_the_tensor_cores() {
    for (name, body) in tensor_u8_entries() {
        let r: usize = name.rsplit("_r").next().unwrap().parse().unwrap();
        let count = |shape: &str| {
            body.matches(&format!("mma.sync.aligned.{shape}.row.col.s32.u8.s8.s32"))
                .count()
        };
        let copies = count("m16n8k16") / 3;
        let most = if name.contains("_c") { 4 } else { 2 };
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
/// row (twice from `BLOCKS_MIN_RADIUS`: with the loop over blocks of taps and without), and read
/// their fragments from global memory.
#[test]
fn tensor_f32_kernels_multiply_on_the_tensor_cores() {
    for (name, body) in tensor_f32_entries() {
        let r: u32 = name.rsplit("_r").next().unwrap().parse().unwrap();
        let copies = if r >= tensor_f32::BLOCKS_MIN_RADIUS { 2 } else { 1 };
        let per_row = copies * 3 * 8 * tensor_f32::chunks(r) as usize;
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

#[test]
fn memory_paths_are_the_ones_each_variant_claims() {
    for (name, body) in each_type(readonly::ENTRY) {
        assert!(body.contains("ld.global.nc"), "{name}: no read-only cache loads");
    }
    for (name, body) in each_type(constant::ENTRY) {
        assert!(
            !body.contains("ld.global.nc"),
            "{name}: should use ordinary loads"
        );
    }
    for (name, body) in each_type(texture::ENTRY) {
        assert!(body.contains("tex.2d"), "{name}: no texture fetch");
        assert!(
            !body.contains("ld.global"),
            "{name}: the input must come through the texture"
        );
    }
    for (name, body) in each_type(naive::ENTRY) {
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
