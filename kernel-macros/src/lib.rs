//! The `#[kernel]` attribute of `gpu-kernels`: writes a kernel's PTX entry points from one generic
//! function, so no entry-point name is ever written by hand.
//!
//! ```ignore
//! /// Rustdoc with `# Tiling`, `# Thread mapping`, `# Safety`.
//! #[kernel(types(u8, u16, f32))]
//! pub unsafe fn conv_tiled<T: Sample>(input: *const T, output: *mut T, g: Geometry, taps: Taps) {
//!     let taps = param_taps!(taps);
//!     // ...
//! }
//! ```
//!
//! expands to three `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn`s, `conv_tiled_u8`,
//! `conv_tiled_u16` and `conv_tiled_f32`, each the function with `T` replaced by its type (and
//! `T`'s bounds checked on that type, as `where u8: Sample`). The arguments, each optional:
//!
//! - `types(A, B, ...)`: one entry per type, bound to the function's type parameter; with more
//!   than one type the entry name gets `_<type>` (a kernel of one sample type, such as
//!   `conv_tensor_u8`, says it in its base name).
//! - `radius(LO..=HI)`: one entry per radius, bound to the const parameter `R`; the entry name gets
//!   `_r<radius>` (after the type).
//! - `consts(NAME = value, ...)`: values for the other const parameters.
//! - `name = base`: the base of the entry names instead of the function's name, for a second
//!   `#[kernel(...)]` on the same function that instantiates it with other `consts`.
//! - `max_registers = expr`: the entry's register limit (PTX `.maxnreg`, what `__launch_bounds__`
//!   gives CUDA C++; rustc has no attribute for it), a `u32` constant expression over the generic
//!   parameters' values; 0 means no limit. Each entry gets a `u32` global `<entry>_max_registers`
//!   holding it, which `ptx-builder` turns into the entry's `.maxnreg` and removes from the PTX,
//!   so the limit is declared beside the kernel and nothing matches entry names.
//! - `split_store = g`: the entry's body wrapped in `gpu-kernels`' `split_store!(T, g => ...)`,
//!   `T` the function's type parameter and `g` its `Geometry` parameter: rounding and truncating
//!   integer stores compiled apart.
//!
//! Each entry is the function's body with every generic parameter replaced by its value, not a
//! call to a generic function, because the entry's parameter types may depend on them (e.g.
//! `ExactTaps<{ (2 * R + 1) * (2 * R + 1) }>`). Every entry is `#[cfg(target_arch = "nvptx64")]`:
//! on any other target the kernel does not exist. Inside the body, `param_symbol!(param)` names the
//! PTX symbol of a parameter (`<entry>_param_<index>`), which `gpu-kernels`' `param_taps!` uses to
//! read taps through the parameter's address.

use proc_macro2::{Group, Spacing, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, FnArg, GenericParam, Ident, ItemFn, LitInt, Pat, Token};

/// Turns a (generic) kernel function into its PTX entry points; see the crate documentation.
#[proc_macro_attribute]
pub fn kernel(attr: proc_macro::TokenStream, item: proc_macro::TokenStream) -> proc_macro::TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What one `#[kernel(...)]` asks for.
#[derive(Default)]
struct Spec {
    name: Option<Ident>,
    types: Vec<Ident>,
    radius: Option<(u32, u32)>,
    consts: Vec<(Ident, LitInt)>,
    max_registers: Option<syn::Expr>,
    split_store: Option<Ident>,
}

impl Parse for Spec {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut spec = Spec::default();
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "name" => {
                    input.parse::<Token![=]>()?;
                    spec.name = Some(input.parse()?);
                }
                "types" => {
                    let content;
                    syn::parenthesized!(content in input);
                    spec.types = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?
                        .into_iter()
                        .collect();
                }
                "radius" => {
                    let content;
                    syn::parenthesized!(content in input);
                    let lo: LitInt = content.parse()?;
                    content.parse::<Token![..=]>()?;
                    let hi: LitInt = content.parse()?;
                    spec.radius = Some((lo.base10_parse()?, hi.base10_parse()?));
                }
                "max_registers" => {
                    input.parse::<Token![=]>()?;
                    spec.max_registers = Some(input.parse()?);
                }
                "split_store" => {
                    input.parse::<Token![=]>()?;
                    spec.split_store = Some(input.parse()?);
                }
                "consts" => {
                    let content;
                    syn::parenthesized!(content in input);
                    let pairs = Punctuated::<ConstValue, Token![,]>::parse_terminated(&content)?;
                    spec.consts = pairs.into_iter().map(|c| (c.name, c.value)).collect();
                }
                _ => {
                    return Err(syn::Error::new(
                        key.span(),
                        "expected `name = ...`, `types(...)`, `radius(LO..=HI)`, `consts(...)`, `max_registers = ...` \
                         or `split_store = ...`",
                    ));
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(spec)
    }
}

/// `NAME = value` in `consts(...)`.
struct ConstValue {
    name: Ident,
    value: LitInt,
}

impl Parse for ConstValue {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![=]>()?;
        Ok(ConstValue {
            name,
            value: input.parse()?,
        })
    }
}

/// One entry point: its name and the value of each generic parameter.
#[derive(Debug, PartialEq)]
struct Instance {
    name: String,
    /// The type parameter's value, if the kernel is generic over the sample type.
    ty: Option<String>,
    /// The radius, if the kernel is compiled per radius.
    radius: Option<u32>,
}

/// The entry-point name for sample type `ty` and `radius`: `<base>[_<ty>][_r<radius>]`. This is
/// the naming `gpu_kernels::launch::names` documents and the host looks entries up by.
fn entry_name(base: &str, ty: Option<&str>, radius: Option<u32>) -> String {
    let mut name = base.to_string();
    if let Some(ty) = ty {
        name.push('_');
        name.push_str(ty);
    }
    if let Some(r) = radius {
        name.push_str(&format!("_r{r}"));
    }
    name
}

/// Every entry point of `base` for `types` (none: not generic over a type) and the radii
/// `radius` (none: not compiled per radius), types outermost. The type is in the name only where
/// there are several.
fn instances(base: &str, types: &[String], radius: Option<(u32, u32)>) -> Vec<Instance> {
    let named = types.len() > 1;
    let types: Vec<Option<&str>> = if types.is_empty() {
        vec![None]
    } else {
        types.iter().map(|t| Some(t.as_str())).collect()
    };
    let radii: Vec<Option<u32>> = match radius {
        Some((lo, hi)) => (lo..=hi).map(Some).collect(),
        None => vec![None],
    };
    let mut out = Vec::with_capacity(types.len() * radii.len());
    for ty in &types {
        for &r in &radii {
            out.push(Instance {
                name: entry_name(base, ty.filter(|_| named), r),
                ty: ty.map(str::to_string),
                radius: r,
            });
        }
    }
    out
}

/// Whether `attr` is a `#[kernel(...)]` (or `#[kernel_macros::kernel(...)]`).
fn is_kernel_attr(attr: &Attribute) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == "kernel")
}

/// The most lines of code a kernel's body may have: clippy.toml's `too-many-lines-threshold`,
/// which clippy applies to every other function of the workspace.
const MAX_BODY_LINES: usize = 150;

/// Lines of code in `text` (a function body's source), as clippy's `too_many_lines` counts them:
/// lines that are neither blank nor only a comment (`//` lines and lines inside `/* */`).
fn code_lines(text: &str) -> usize {
    let mut in_block = false;
    text.lines()
        .filter(|line| {
            let line = line.trim();
            if in_block {
                in_block = !line.contains("*/");
                return false;
            }
            if line.starts_with("/*") {
                in_block = !line.contains("*/");
                return false;
            }
            !line.is_empty() && !line.starts_with("//")
        })
        .count()
}

fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut func: ItemFn = syn::parse2(item)?;
    // This attribute, then any further `#[kernel(...)]` on the same function.
    let mut specs: Vec<Spec> = vec![syn::parse2(attr)?];
    let mut attrs = Vec::new();
    for a in std::mem::take(&mut func.attrs) {
        if is_kernel_attr(&a) {
            specs.push(match &a.meta {
                syn::Meta::Path(_) => Spec::default(),
                _ => a.parse_args()?,
            });
        } else {
            attrs.push(a);
        }
    }
    let sig = &func.sig;
    if sig.unsafety.is_none() {
        return Err(syn::Error::new(
            sig.fn_token.span,
            "a kernel is an `unsafe fn`: its launch contract goes in its `# Safety` section",
        ));
    }

    // The body's length, which clippy's `too_many_lines` does not see in the entries written here.
    let body = func.block.brace_token.span.join();
    if let Some(lines) = body.source_text().as_deref().map(code_lines)
        && lines > MAX_BODY_LINES
    {
        return Err(syn::Error::new(
            sig.fn_token.span,
            format!(
                "this kernel's body has {lines} lines of code, over the {MAX_BODY_LINES} of \
                 clippy.toml's too-many-lines-threshold: split it into #[inline(always)] stages"
            ),
        ));
    }

    let mut out = TokenStream::new();
    for spec in &specs {
        let base = spec.name.as_ref().unwrap_or(&sig.ident).to_string();
        let types: Vec<String> = spec.types.iter().map(|t| t.to_string()).collect();
        for inst in instances(&base, &types, spec.radius) {
            let values = bind_generics(&func, spec, &inst)?;
            out.extend(entry(
                &func,
                &attrs,
                &inst.name,
                &values,
                spec.split_store.as_ref(),
            ));
            if let Some(limit) = &spec.max_registers {
                out.extend(register_limit(&inst.name, limit, &values));
            }
        }
    }
    Ok(out)
}

/// The value of every generic parameter of `func` for instance `inst`: `(name, tokens)`.
fn bind_generics(func: &ItemFn, spec: &Spec, inst: &Instance) -> syn::Result<Vec<(String, TokenStream)>> {
    let mut values = Vec::new();
    for param in &func.sig.generics.params {
        match param {
            GenericParam::Type(t) => {
                let Some(ty) = &inst.ty else {
                    return Err(syn::Error::new(
                        t.ident.span(),
                        "bind the type parameter with `types(...)`",
                    ));
                };
                let ty = Ident::new(ty, Span::call_site());
                values.push((t.ident.to_string(), quote!(#ty)));
            }
            GenericParam::Const(c) => {
                let value = if c.ident == "R" && inst.radius.is_some() {
                    inst.radius.map(u64::from)
                } else {
                    spec.consts
                        .iter()
                        .find(|(name, _)| *name == c.ident)
                        .map(|(_, v)| v.base10_parse::<u64>())
                        .transpose()?
                };
                let Some(value) = value else {
                    return Err(syn::Error::new(
                        c.ident.span(),
                        "bind this const parameter with `radius(...)` (if it is `R`) or `consts(...)`",
                    ));
                };
                let ty = &c.ty;
                let literal: LitInt = syn::parse_str(&format!("{value}{}", quote!(#ty)))?;
                values.push((c.ident.to_string(), quote!(#literal)));
            }
            GenericParam::Lifetime(l) => {
                return Err(syn::Error::new(
                    l.lifetime.span(),
                    "kernels take no lifetime parameters",
                ));
            }
        }
    }
    Ok(values)
}

/// One `extern "ptx-kernel"` entry point named `name`: `func` with its generic parameters
/// replaced by `values`, and `param_symbol!` defined for its parameters; its body in
/// `split_store!` over the geometry parameter `split`, if any.
fn entry(
    func: &ItemFn,
    attrs: &[Attribute],
    name: &str,
    values: &[(String, TokenStream)],
    split: Option<&Ident>,
) -> TokenStream {
    let ident = format_ident!("{name}");
    let vis = &func.vis;
    let (inputs, output) = (&func.sig.inputs, &func.sig.output);
    let inputs = substitute(quote!(#inputs), values);
    let output = substitute(quote!(#output), values);
    let stmts = &func.block.stmts;
    let ty = func.sig.generics.params.iter().find_map(|p| match p {
        GenericParam::Type(t) => Some(&t.ident),
        _ => None,
    });
    let body = match (split, ty) {
        (Some(g), Some(t)) => quote!(crate::device::split_store!(#t, #g => { #(#stmts)* })),
        _ => quote!(#(#stmts)*),
    };
    let body = substitute(body, values);
    // The generic parameters' bounds, checked on the values (`where u8: Sample`).
    let mut bounds: Vec<TokenStream> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) if !t.bounds.is_empty() => {
                let (ident, bounds) = (&t.ident, &t.bounds);
                Some(substitute(quote!(#ident: #bounds), values))
            }
            _ => None,
        })
        .collect();
    if let Some(clause) = &func.sig.generics.where_clause {
        let predicates = &clause.predicates;
        bounds.extend(predicates.iter().map(|p| substitute(quote!(#p), values)));
    }
    let where_clause = (!bounds.is_empty()).then(|| quote!(where #(#bounds),*));
    let symbols = func.sig.inputs.iter().enumerate().filter_map(|(index, arg)| {
        let FnArg::Typed(arg) = arg else { return None };
        let Pat::Ident(pat) = &*arg.pat else { return None };
        let param = &pat.ident;
        let symbol = format!("{name}_param_{index}");
        Some(quote!((#param) => { #symbol };))
    });
    quote! {
        #(#attrs)*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #vis unsafe extern "ptx-kernel" fn #ident(#inputs) #output #where_clause {
            // `param_symbol!(param)`: the PTX name of a parameter of this entry point.
            #[allow(unused_macros)]
            macro_rules! param_symbol { #(#symbols)* }
            #body
        }
    }
}

/// The global `<name>_max_registers` that carries entry `name`'s register limit to `ptx-builder`.
fn register_limit(name: &str, limit: &syn::Expr, values: &[(String, TokenStream)]) -> TokenStream {
    let ident = format_ident!("{name}_max_registers");
    let limit = substitute(quote!(#limit), values);
    quote! {
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[used]
        #[allow(non_upper_case_globals)]
        static #ident: u32 = #limit;
    }
}

/// `tokens` with every identifier named in `values` replaced by its value, inside groups too,
/// except where it is a path segment after `::`, a field or method after `.`, or a lifetime.
fn substitute(tokens: TokenStream, values: &[(String, TokenStream)]) -> TokenStream {
    let mut out = Vec::<TokenTree>::new();
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => {
                let after_separator = match out.as_slice() {
                    [.., TokenTree::Punct(p)] if p.as_char() == '.' || p.as_char() == '\'' => true,
                    [.., TokenTree::Punct(a), TokenTree::Punct(b)] => {
                        a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
                    }
                    _ => false,
                };
                match values.iter().find(|(name, _)| ident == name) {
                    Some((_, value)) if !after_separator => out.extend(value.clone()),
                    _ => out.push(TokenTree::Ident(ident)),
                }
            }
            TokenTree::Group(group) => {
                let mut replaced = Group::new(group.delimiter(), substitute(group.stream(), values));
                replaced.set_span(group.span());
                out.push(TokenTree::Group(replaced));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests;
