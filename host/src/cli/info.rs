//! `host info`: every visible GPU (or why there is none), the embedded PTX and the largest
//! filter, as text or (`--json`) one JSON document; works without a GPU.

use super::gpu::{gib, open_selected};
use super::json;
use anyhow::Result;
use ferroconv::engine::gpu::{FATBIN, GpuSelection, ptx_directive, ptx_entries};

/// `host info`'s options.
#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// Print one JSON document (GPUs, kernels, largest filter, variants) instead of text.
    #[arg(long)]
    json: bool,
}

/// Prints the description: every visible GPU (the driver applies `CUDA_VISIBLE_DEVICES`), in
/// the order `--gpus` numbers them.
pub fn run(args: &InfoArgs) -> Result<()> {
    let mut unavailable = None;
    let gpus = open_selected(GpuSelection::All, |e| {
        unavailable = Some(e.to_string());
        Ok(())
    })?;
    // Each GPU's free memory, asked once for the text and the document alike.
    let mut free = Vec::with_capacity(gpus.len());
    for gpu in &gpus {
        gpu.make_current()?;
        free.push(gpu.memory().ok().map(|(free, _)| free));
    }
    let k = gpu_kernels::launch::MAX_FILTER_SIZE;
    let registry = &ferroconv::engine::gpu::variant::REGISTRY;
    if args.json {
        let described: Vec<_> = gpus
            .iter()
            .zip(&free)
            .map(|(gpu, free)| {
                let mut doc = json::gpu(gpu.info());
                doc["memory_free_bytes"] = serde_json::json!(free);
                doc["kernels_from"] = gpu.module_kind().to_string().into();
                doc["kernels_load_ms"] = gpu.module_load_ms().into();
                doc
            })
            .collect();
        json::print(&serde_json::json!({
            "gpus": described,
            "gpu_unavailable": unavailable,
            "ptx": {
                "target": ptx_directive(".target"),
                "isa": ptx_directive(".version"),
                "kernels": ptx_entries(),
                "sass_embedded": !FATBIN.is_empty(),
            },
            "largest_filter": k,
            "variants": registry.iter().map(|s| serde_json::json!({"name": s.name, "summary": s.summary})).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    if let Some(e) = &unavailable {
        println!("GPU: none ({e})");
    }
    for (gpu, free) in gpus.iter().zip(&free) {
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
        match free {
            Some(free) => println!(
                "memory: {:.1} GiB ({:.1} GiB free)",
                gib(i.memory_bytes),
                gib(*free)
            ),
            None => println!("memory: {:.1} GiB", gib(i.memory_bytes)),
        }
        println!("driver: CUDA driver API {}", i.driver_api());
        println!(
            "kernels loaded from: {} in {:.1} ms",
            gpu.module_kind(),
            gpu.module_load_ms()
        );
    }
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
    println!("largest filter: {k}x{k}");
    println!("variants:");
    for spec in registry {
        println!("  {:<18} {}", spec.name, spec.summary);
    }
    Ok(())
}
