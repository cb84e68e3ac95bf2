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
    let registry = &ferroconv::engine::gpu::variant::REGISTRY;
    let limits = Limits::of(registry);
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
            "largest_filter": limits.general,
            "largest_rank1_filter": limits.rank1,
            "largest_filter_every_variant": limits.every_variant,
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
    println!("largest filter: {}", limits.describe());
    println!("variants:");
    for spec in registry {
        println!("  {:<18} {}", spec.name, spec.summary);
    }
    Ok(())
}

/// The largest filters, from the library's limits and the variants' registry: any filter, a
/// rank-1 one, and what most GPU variants run.
struct Limits {
    /// The largest side of a filter that is not rank 1 (the CPU's and the largest GPU variant's).
    general: usize,
    /// The largest side of a rank-1 filter.
    rank1: usize,
    /// The side up to which most GPU variants run any filter.
    every_variant: usize,
    /// The GPU variants that run the largest general and rank-1 filters.
    general_by: Vec<&'static str>,
    rank1_by: Vec<&'static str>,
}

impl Limits {
    fn of(registry: &[ferroconv::engine::gpu::variant::Spec]) -> Limits {
        use ferroconv::model::filter::{MAX_GENERAL_SIZE, MAX_SEPARABLE_SIZE};
        let side = |r: usize| 2 * r + 1;
        let by = |limit: usize, rank1: bool| {
            registry
                .iter()
                .filter(|s| side(s.max_radius) >= limit && (rank1 || !s.rank1_only))
                .map(|s| s.name)
                .collect()
        };
        Limits {
            general: MAX_GENERAL_SIZE,
            rank1: MAX_SEPARABLE_SIZE,
            every_variant: gpu_kernels::launch::MAX_FILTER_SIZE as usize,
            general_by: by(MAX_GENERAL_SIZE, false),
            rank1_by: by(MAX_SEPARABLE_SIZE, true),
        }
    }

    /// `127x127, 1023x1023 rank-1 (on the CPU; on the GPU ...)`.
    fn describe(&self) -> String {
        let (g, r, e) = (self.general, self.rank1, self.every_variant);
        format!(
            "{g}x{g}, {r}x{r} rank-1 (on the CPU; on the GPU {g}x{g} on {}, {r}x{r} rank-1 on {}, \
             most variants up to {e}x{e})",
            self.general_by.join(", "),
            self.rank1_by.join(", ")
        )
    }
}
