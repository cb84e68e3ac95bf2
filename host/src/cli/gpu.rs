//! Opening the GPU for a command, with the command's own fallback when none is usable.

use anyhow::{Context as _, Result};
use ferroconv::engine::gpu::{Gpu, GpuSelection};

/// Opens the GPU; when none is usable, `fallback` gets the reason and decides: `Ok(())` goes on
/// without a GPU (`None`), an error stops the command.
pub fn open_or(fallback: impl FnOnce(ferroconv::Error) -> Result<()>) -> Result<Option<Gpu>> {
    match Gpu::new() {
        Ok(gpu) => Ok(Some(gpu)),
        Err(e) => fallback(e).map(|()| None),
    }
}

/// Opens the GPUs `selection` names among the visible ones, each with its own context; when
/// none is usable, `fallback` decides as for [`open_or`]. A selection the visible GPUs cannot
/// meet (`--gpus 4` on a 2-GPU machine, a number that is not there) is an error.
pub fn open_selected(
    selection: GpuSelection,
    fallback: impl FnOnce(ferroconv::Error) -> Result<()>,
) -> Result<Vec<Gpu>> {
    let count = match ferroconv::engine::gpu::device_count() {
        Ok(n) => n,
        Err(e) => return fallback(e).map(|()| Vec::new()),
    };
    open_all(&selection.resolve(count)?)
}

/// Opens the GPUs `ordinals` at once, each on a thread of its own (loading the kernels takes a
/// few hundred milliseconds a GPU), in their order; the first one's context is made current on
/// the calling thread. The first failure (in that order) is the error.
pub fn open_all(ordinals: &[usize]) -> Result<Vec<Gpu>> {
    let gpus = std::thread::scope(|scope| {
        let handles: Vec<_> = ordinals
            .iter()
            .map(|&n| scope.spawn(move || Gpu::open(n).with_context(|| format!("opening GPU {n}"))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Result<Vec<_>>>()
    })?;
    if let Some(first) = gpus.first() {
        first.make_current()?;
    }
    Ok(gpus)
}

/// Opens the GPU for the main job and `verify`, or says in one line why the GPU variants are
/// skipped.
pub fn open_for_variants(cpu_only: bool) -> Option<Gpu> {
    if cpu_only {
        println!("GPU variants skipped: --cpu-only was given");
        return None;
    }
    let Ok(Some(gpu)) = open_or(|e| {
        println!("GPU variants skipped: {e}");
        Ok(())
    }) else {
        return None;
    };
    let i = gpu.info();
    println!(
        "GPU: {} (compute capability {}.{}, {} SMs, {:.1} GiB), driver API {}, kernels from {} in {:.1} ms",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.multiprocessors,
        gib(i.memory_bytes),
        i.driver_api(),
        gpu.module_kind(),
        gpu.module_load_ms()
    );
    Some(gpu)
}

/// Bytes in GiB.
pub fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}
