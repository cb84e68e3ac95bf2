//! The `#[kernel]` attribute's unit tests: names, instances, substitution, expansion, limits.

use super::*;

#[test]
fn names_are_base_then_type_then_radius() {
    assert_eq!(entry_name("fma_probe", None, None), "fma_probe");
    assert_eq!(entry_name("conv_naive", Some("u8"), None), "conv_naive_u8");
    assert_eq!(
        entry_name("conv_blocked_4x2", Some("f32"), Some(15)),
        "conv_blocked_4x2_f32_r15"
    );
}

#[test]
fn instances_run_over_types_then_radii() {
    let types = ["f32".to_string(), "u8".to_string()];
    let names: Vec<String> = instances("conv_separable_fused", &types, Some((0, 2)))
        .into_iter()
        .map(|i| i.name)
        .collect();
    assert_eq!(
        names,
        [
            "conv_separable_fused_f32_r0",
            "conv_separable_fused_f32_r1",
            "conv_separable_fused_f32_r2",
            "conv_separable_fused_u8_r0",
            "conv_separable_fused_u8_r1",
            "conv_separable_fused_u8_r2",
        ]
    );
    assert_eq!(instances("gpu_spin", &[], None).len(), 1);
    assert_eq!(instances("conv_blocked_4x4", &types, Some((0, 15))).len(), 32);
    let one: Vec<String> = instances("conv_tensor_u8", &["u8".to_string()], Some((4, 4)))
        .into_iter()
        .map(|i| i.name)
        .collect();
    assert_eq!(one, ["conv_tensor_u8_r4"]);
}

#[test]
fn substitutes_generic_parameters_but_not_paths_fields_or_lifetimes() {
    let values = [("T".to_string(), quote!(u16)), ("R".to_string(), quote!(3usize))];
    let tokens = quote!(T::load(p.R, a::T, x as T, [0; 2 * R + 1], &'T f(R)));
    assert_eq!(
        substitute(tokens, &values).to_string(),
        quote!(u16::load(p.R, a::T, x as u16, [0; 2 * 3usize + 1], &'T f(3usize))).to_string()
    );
}

#[test]
fn expands_one_entry_per_type_and_radius_with_parameter_symbols() {
    let item = quote! {
        /// Doc.
        pub unsafe fn conv_x<T: Sample, const R: usize, const PY: usize>(a: *const T, taps: ExactTaps<{ 2 * R + 1 }>) {
            body::<T, R, PY>();
        }
    };
    let attr = quote!(
        types(u8, f32),
        radius(1..=2),
        consts(PY = 4),
        max_registers = regs(R, PY)
    );
    let out = expand(attr, item).unwrap().to_string();
    assert_eq!(out.matches("extern \"ptx-kernel\"").count(), 4);
    assert!(out.contains("static conv_x_u8_r2_max_registers : u32 = regs (2usize , 4usize) ;"));
    assert!(out.contains("fn conv_x_u8_r1 (a : * const u8 , taps : ExactTaps < { 2 * 1usize + 1 } >)"));
    assert!(out.contains("body :: < u8 , 2usize , 4usize > ()"));
    assert!(out.contains("(taps) => { \"conv_x_u8_r2_param_1\" }"));
    assert!(out.contains("# [cfg (target_arch = \"nvptx64\")]"));
    assert!(out.contains("where u8 : Sample {"));
}

#[test]
fn split_store_wraps_the_body_with_the_type_bound() {
    let item = quote! {
        pub unsafe fn conv_y<T: Sample>(a: *const T, g: Geometry) {
            body::<T>(&g);
        }
    };
    let out = expand(quote!(types(u8), split_store = g), item)
        .unwrap()
        .to_string();
    assert!(out.contains("crate :: device :: split_store ! (u8 , g => { body :: < u8 > (& g) ; })"));
    let plain = quote!(
        pub unsafe fn conv_z<T: Sample>(g: Geometry) {
            body::<T>(&g);
        }
    );
    let out = expand(quote!(types(u8)), plain).unwrap().to_string();
    assert!(!out.contains("split_store"));
}

#[test]
fn counts_lines_of_code_as_clippy_does() {
    let body = "{\n    let a = 1;\n\n    // a comment\n    /* a block\n       comment */\n    a\n}";
    assert_eq!(code_lines(body), 4);
    let long = format!("{{\n{}}}", "    x();\n".repeat(MAX_BODY_LINES));
    assert_eq!(code_lines(&long), MAX_BODY_LINES + 2);
}

#[test]
fn rejects_unbound_generics_and_safe_functions() {
    let generic = quote!(
        pub unsafe fn k<T: Sample>(a: *const T) {}
    );
    assert!(expand(quote!(), generic).is_err());
    let safe = quote!(
        pub fn k() {}
    );
    assert!(expand(quote!(), safe).is_err());
}
