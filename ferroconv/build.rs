//! Build script: embeds the kernels' PTX and builds the link-time CUDA driver shim.
//!
//! 1. PTX: compiles `gpu-kernels` for `nvptx64-nvidia-cuda` (recipe in `ptx-builder`) into
//!    `$OUT_DIR/kernels.ptx`, which `src/engine/gpu/mod.rs` includes, so a plain `cargo build` on
//!    a fresh clone needs no separate step. `CONV_PTX_ARCH` overrides the architecture (default
//!    `sm_90`). The kernels are always built by the nightly pinned in `rust-toolchain.toml` (through
//!    rustup when this build runs on another toolchain, stable included).
//! 2. SASS: when `ptxas` is found (`PTXAS`, `PATH`, or `target/tools/` from `cargo xtask
//!    install-ptxas`), the PTX is also assembled for that architecture and packed with the PTX into
//!    `$OUT_DIR/kernels.fatbin`, which the driver loads without JIT-compiling anything. Without
//!    `ptxas` the file is empty, the build says so in one warning, and the first run on each
//!    machine JIT-compiles the PTX (about 20 s; the driver caches the result).
//! 3. Driver shim: the driver API that cust (vendored, `vendor/README.md`) calls is never linked
//!    from a CUDA library. The link takes `$OUT_DIR/libferroconv_cuda_shim.a` instead: one
//!    trampoline per entry point in `cuda-shim/symbols.txt` plus `cuda-shim/loader.c`, which
//!    `dlopen`s the real `libcuda.so.1` at run time. The binary therefore needs no CUDA toolkit to
//!    build, starts everywhere and reports "no driver" instead of failing to load. When
//!    cross-compiling without a C compiler for the target, the shim is skipped with a warning:
//!    `cargo check --target aarch64-unknown-linux-gnu` (CI) needs no link.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    build_driver_shim(&manifest, &out);
    embed_ptx(&manifest, &out);
    embed_git_revision(&manifest);
}

/// Sets `CONV_GIT_REV` (reports record which revision produced their numbers).
fn embed_git_revision(manifest: &Path) {
    let git = manifest
        .parent()
        .expect("ferroconv/ lives in the workspace")
        .join(".git");
    println!("cargo:rerun-if-changed={}", git.join("HEAD").display());
    println!("cargo:rerun-if-changed={}", git.join("index").display());
    let rev = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .current_dir(manifest)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=CONV_GIT_REV={rev}");
}

fn embed_ptx(manifest: &Path, out: &Path) {
    let workspace = manifest.parent().expect("ferroconv/ lives in the workspace");
    // The kernels, and the `#[kernel]` attribute that writes their entry points.
    for dir in ["gpu-kernels", "kernel-macros"] {
        println!("cargo:rerun-if-changed={}", workspace.join(dir).display());
    }
    // The nightly that builds them.
    println!(
        "cargo:rerun-if-changed={}",
        workspace.join(ptx_builder::TOOLCHAIN_FILE).display()
    );
    println!("cargo:rerun-if-env-changed=CONV_PTX_ARCH");
    let arch = std::env::var("CONV_PTX_ARCH").unwrap_or_else(|_| ptx_builder::DEFAULT_ARCH.into());
    let target_dir = workspace.join("target").join("ptx-build");
    let ptx = out.join("kernels.ptx");
    match ptx_builder::build(workspace, &target_dir, &arch, &ptx) {
        Ok(_) => {}
        // One line, shown by cargo as the build's error (the build fails; nothing else to dump).
        Err(ptx_builder::Error::Toolchain(why)) => {
            println!("cargo::error={why}");
            std::process::exit(0);
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
    embed_sass(workspace, &target_dir, &arch, &ptx, &out.join("kernels.fatbin"));
}

fn embed_sass(workspace: &Path, target_dir: &Path, arch: &str, ptx: &Path, fatbin: &Path) {
    println!("cargo:rerun-if-env-changed=PTXAS");
    // Installing ptxas later (into this folder) makes the next build embed SASS.
    let tools = ptx_builder::installed_ptxas(workspace);
    let tools = tools
        .ancestors()
        .nth(4)
        .expect("target/tools/nvcc/nvidia/cu13/bin/ptxas");
    let _ = std::fs::create_dir_all(tools);
    println!("cargo:rerun-if-changed={}", tools.display());
    let warning = match ptx_builder::find_ptxas(workspace) {
        Some(ptxas) => match ptx_builder::build_fatbin(&ptxas, ptx, arch, &target_dir.join("sass"), fatbin) {
            Ok(()) => return,
            Err(e) => format!("{}: {}", ptxas.display(), e.to_string().replace('\n', " ")),
        },
        None => "ptxas not found".to_string(),
    };
    println!(
        "cargo:warning=no SASS embedded ({warning}): the first run on each machine JIT-compiles the \
         PTX (about 20 s); `cargo xtask install-ptxas` and a rebuild embed it"
    );
    std::fs::write(fatbin, []).expect("write an empty fatbin");
}

/// The driver shim's library: `lib<SHIM>.a` in `OUT_DIR`.
const SHIM: &str = "ferroconv_cuda_shim";

fn build_driver_shim(manifest: &Path, out: &Path) {
    let dir = manifest.join("cuda-shim");
    let symbols_path = dir.join("symbols.txt");
    println!("cargo:rerun-if-changed={}", symbols_path.display());
    println!("cargo:rerun-if-changed={}", dir.join("loader.c").display());
    let symbols = std::fs::read_to_string(&symbols_path).expect("read cuda-shim/symbols.txt");
    let names: Vec<&str> = symbols.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").expect("cargo sets CARGO_CFG_TARGET_ARCH");

    let mut c = String::from(
        "/* Generated by ferroconv/build.rs from cuda-shim/symbols.txt. */\n#include <stddef.h>\n",
    );
    c.push_str("int conv_cuda_missing(void);\n");
    let _ = writeln!(c, "const size_t conv_cuda_count = {};", names.len());
    c.push_str("const char *const conv_cuda_names[] = {\n");
    for n in &names {
        let _ = writeln!(c, "  \"{n}\",");
    }
    c.push_str("};\n__attribute__((visibility(\"hidden\"))) void *conv_cuda_table[] = {\n");
    for _ in &names {
        c.push_str("  (void *)conv_cuda_missing,\n");
    }
    c.push_str("};\n");
    for (i, n) in names.iter().enumerate() {
        let jump = match arch.as_str() {
            "x86_64" => format!("jmp *(conv_cuda_table+{})(%rip)", 8 * i),
            "aarch64" => format!(
                "adrp x16, conv_cuda_table\\n add x16, x16, :lo12:conv_cuda_table\\n ldr x16, [x16, #{}]\\n br x16",
                8 * i
            ),
            other => panic!("the CUDA driver shim supports x86_64 and aarch64, not {other}"),
        };
        let _ = writeln!(
            c,
            "__asm__(\".text\\n.globl {n}\\n.type {n},@function\\n{n}:\\n {jump}\\n.size {n}, .-{n}\\n\");"
        );
    }
    let generated = out.join("cuda_trampolines.c");
    std::fs::write(&generated, c).expect("write the generated shim source");
    let built = cc::Build::new()
        .file(&generated)
        .file(dir.join("loader.c"))
        .cargo_metadata(false)
        .try_compile(SHIM);
    if let Err(e) = built {
        let (target, host) = (std::env::var("TARGET"), std::env::var("HOST"));
        // Cross-checking (CI's `cargo check --target aarch64-unknown-linux-gnu`) links nothing, so
        // a missing cross C compiler only matters for a cross build, whose link then fails.
        if target.is_ok() && target != host {
            println!(
                "cargo:warning=the CUDA driver shim was not built for {} ({}): `cargo check` works, \
                 linking fails (install a C compiler for the target, e.g. gcc-aarch64-linux-gnu)",
                target.unwrap_or_default(),
                e.to_string().replace('\n', " ")
            );
            return;
        }
        panic!("building the CUDA driver shim: {e}");
    }
    // Whole: the trampolines are called from cust, which the linker reads after this crate. Its
    // own name: no `-lcuda` anywhere, so no CUDA library on the machine can be linked instead.
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static:+whole-archive={SHIM}");
    println!("cargo:rustc-link-lib=dylib=dl");
}
