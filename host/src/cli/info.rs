//! `host info`: every visible GPU (or why there is none), the embedded PTX and the largest
//! filter; works without a GPU.

use super::gpu::{gib, open_selected};
use anyhow::Result;
use ferroconv::engine::gpu::GpuSelection;

/// Prints the description: every visible GPU (the driver applies `CUDA_VISIBLE_DEVICES`), in
/// the order `--gpus` numbers them.
pub fn run() -> Result<()> {
    let gpus = open_selected(GpuSelection::All, |e| {
        println!("GPU: none ({e})");
        Ok(())
    })?;
    for gpu in &gpus {
        gpu.make_current()?;
        let i = gpu.info();
        let label = if gpus.len() > 1 {
            format!("GPU {}", i.ordinal)
        } else {
            "GPU".to_string()
        };
        println!("{label}: {}", i.name);
        println!(
            "compute capability: {}.{}",
            i.compute_capability.0, i.compute_capability.1
        );
        println!("SMs: {}", i.multiprocessors);
        match gpu.memory() {
            Ok((free, total)) => println!("memory: {:.1} GiB ({:.1} GiB free)", gib(total), gib(free)),
            Err(_) => println!("memory: {:.1} GiB", gib(i.memory_bytes)),
        }
        println!("driver: CUDA driver API {}", i.driver_api());
        println!(
            "kernels loaded from: {} in {:.1} ms",
            gpu.module_kind(),
            gpu.module_load_ms()
        );
    }
    use ferroconv::engine::gpu::{FATBIN, ptx_directive, ptx_entries};
    println!(
        "PTX target: {} (PTX ISA {}, {} kernels); SASS: {}",
        ptx_directive(".target"),
        ptx_directive(".version"),
        ptx_entries(),
        if FATBIN.is_empty() {
            "none (built without ptxas: the first run JIT-compiles the PTX)"
        } else {
            "embedded for the PTX target"
        }
    );
    let k = gpu_kernels::launch::MAX_FILTER_SIZE;
    println!("largest filter: {k}x{k}");
    println!("variants:");
    for spec in &ferroconv::engine::gpu::variant::REGISTRY {
        println!("  {:<18} {}", spec.name, spec.summary);
    }
    Ok(())
}
