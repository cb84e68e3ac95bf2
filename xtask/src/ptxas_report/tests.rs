//! The parser against ptxas's own output, and the allow-list against spills.

use super::*;

/// Real `ptxas -arch sm_90 -v` output (the pinned wheel, the kernels at `fe526f9`): two entries
/// that spill, each followed, as every entry is, by the block of the device function
/// `device::border::symmetric` (not inlined), whose stack line reads all zeros.
const PTXAS_LOG: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'conv_tensor_f32_r8' for 'sm_90'
ptxas info    : Function properties for conv_tensor_f32_r8
    24 bytes stack frame, 28 bytes spill stores, 28 bytes spill loads
ptxas info    : Used 64 registers, used 1 barriers, 24 bytes cumulative stack size
ptxas info    : Compile time = 5471.081 ms
ptxas info    : Function properties for _RNvNtNtCs1ZOfy3VAnWn_11gpu_kernels6device6border9symmetric
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'conv_tensor_f32_r7' for 'sm_90'
ptxas info    : Function properties for conv_tensor_f32_r7
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 63 registers, used 1 barriers
ptxas info    : Compile time = 2095.963 ms
ptxas info    : Function properties for _RNvNtNtCs1ZOfy3VAnWn_11gpu_kernels6device6border9symmetric
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'conv_blocked_4x4_c3_u8_r2' for 'sm_90'
ptxas info    : Function properties for conv_blocked_4x4_c3_u8_r2
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 8 bytes cumulative stack size
ptxas info    : Compile time = 360.189 ms
ptxas info    : Function properties for _RNvNtNtCs1ZOfy3VAnWn_11gpu_kernels6device6border9symmetric
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'conv_blocked_4x4_c3_u8_r1' for 'sm_90'
ptxas info    : Function properties for conv_blocked_4x4_c3_u8_r1
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 64 registers, used 1 barriers
ptxas info    : Compile time = 238.044 ms
ptxas info    : Function properties for _RNvNtNtCs1ZOfy3VAnWn_11gpu_kernels6device6border9symmetric
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
";

fn find<'a>(report: &'a [Resources], name: &str) -> &'a Resources {
    report
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("{name} is not in the report: {report:#?}"))
}

const SYMMETRIC: &str = "_RNvNtNtCs1ZOfy3VAnWn_11gpu_kernels6device6border9symmetric";

#[test]
fn each_function_gets_the_lines_of_its_own_block() {
    let report = parse(PTXAS_LOG);
    // The bug this guards against: the zero block after each entry overwrote its figures.
    let spilling: Vec<&str> = report
        .iter()
        .filter(|f| f.spills())
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(spilling, ["conv_tensor_f32_r8", "conv_blocked_4x4_c3_u8_r2"]);
    let names: Vec<&str> = report.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "conv_tensor_f32_r8",
            SYMMETRIC,
            "conv_tensor_f32_r7",
            "conv_blocked_4x4_c3_u8_r2",
            "conv_blocked_4x4_c3_u8_r1"
        ]
    );
    assert_eq!(
        *find(&report, "conv_tensor_f32_r8"),
        Resources {
            name: "conv_tensor_f32_r8".into(),
            entry: true,
            registers: 64,
            shared: 0,
            stack: 24,
            spill_stores: 28,
            spill_loads: 28,
        }
    );
    let r2 = find(&report, "conv_blocked_4x4_c3_u8_r2");
    assert_eq!(
        (r2.entry, r2.registers, r2.stack, r2.spill_stores, r2.spill_loads),
        (true, 32, 8, 4, 4)
    );
    let r7 = find(&report, "conv_tensor_f32_r7");
    assert_eq!((r7.registers, r7.spills()), (63, false));
    let symmetric = find(&report, SYMMETRIC);
    assert!(!symmetric.entry && !symmetric.spills(), "{symmetric:?}");
    assert_eq!(report.iter().filter(|f| f.entry).count(), 4);
}

#[test]
fn parses_a_block_with_shared_memory() {
    let log = "ptxas info    : Compiling entry function 'conv_tiled' for 'sm_90'
ptxas info    : Function properties for conv_tiled
    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 16 bytes cumulative stack size, 4096 bytes smem
";
    assert_eq!(
        parse(log),
        [Resources {
            name: "conv_tiled".into(),
            entry: true,
            registers: 30,
            shared: 4096,
            stack: 16,
            spill_stores: 4,
            spill_loads: 8
        }]
    );
}

fn allow(name: &str, stores: u32, loads: u32) -> Allowed {
    Allowed {
        name: name.into(),
        stores,
        loads,
    }
}

#[test]
fn a_spill_outside_the_list_or_past_it_fails_naming_the_function() {
    let report = parse(PTXAS_LOG);
    let both = [
        allow("conv_tensor_f32_r8", 28, 28),
        allow("conv_blocked_4x4_c3_u8_r2", 4, 4),
    ];
    assert_eq!(check_spills(&report, &both), Vec::<String>::new());
    let errors = check_spills(&report, &both[..1]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("conv_blocked_4x4_c3_u8_r2") && errors[0].contains("not in"),
        "{errors:?}"
    );
    let errors = check_spills(&report, &[allow("conv_tensor_f32_r8", 28, 20), both[1].clone()]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("register spills in entry conv_tensor_f32_r8: ")
            && errors[0].contains("more than the 28/20"),
        "{errors:?}"
    );
    let stale = [allow("conv_gone", 4, 4), both[0].clone(), both[1].clone()];
    let errors = check_spills(&report, &stale);
    assert!(errors.len() == 1 && errors[0].contains("conv_gone"), "{errors:?}");
    assert!(errors.iter().all(|e| !e.contains('\n')), "{errors:?}");
    let more = [allow("conv_tensor_f32_r8", 40, 28), both[1].clone()];
    assert_eq!(
        spilling_less(&report, &more),
        ["conv_tensor_f32_r8: 40/28 listed, 28/28 now"]
    );
}

#[test]
fn the_checked_in_list_parses() {
    let allowed = parse_allowed(ALLOWED_SPILLS).unwrap();
    assert!(
        allowed.iter().any(|a| a.name == "conv_tensor_f32_r8"),
        "{allowed:?}"
    );
    assert!(allowed.iter().all(|a| a.stores + a.loads > 0), "{allowed:?}");
    assert!(parse_allowed("conv_a 4").is_err());
    assert!(parse_allowed("conv_a 4 x").is_err());
    assert!(parse_allowed("conv_a 4 4\nconv_a 8 8").is_err());
    assert_eq!(
        parse_allowed("# c\n\nconv_a 4 8 # why\n").unwrap(),
        [allow("conv_a", 4, 8)]
    );
}
