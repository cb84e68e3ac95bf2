//! The `--json` document of a files run: exactly one is printed on stdout, the full one or, when
//! the run fails before (or instead of) processing images, the failure one.

use ferroconv::engine::gpu::GpuInfo;
use host_tools::batch;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the `--json` document (or the failure document) was printed: exactly one is.
static PRINTED: AtomicBool = AtomicBool::new(false);

/// Prints `doc` as the `--json` document, unless one was printed already.
pub fn print(doc: &serde_json::Value) {
    if !PRINTED.swap(true, Ordering::SeqCst) {
        let text = serde_json::to_string_pretty(doc).unwrap_or_else(|_| "null".into());
        println!("{text}");
    }
}

/// The `--json` document of a run that failed before (or instead of) processing images: the same
/// fields as a full one, `error` set, the rest null or empty.
pub fn print_failure(error: &str, interrupted: Option<i32>) {
    print(&serde_json::json!({
        "schema": batch::JSON_SCHEMA,
        "error": error,
        "interrupted": interrupted.map(ferroconv::io::interrupt::name),
        "gpu": null,
        "gpus": [],
        "gpu_unavailable": null,
        "variant": null,
        "auto_choices": [],
        "filter": null,
        "border": null,
        "settings": null,
        "skipped_existing": 0,
        "shard": null,
        "images": [],
        "summary": null,
    }));
}

/// The document's `gpu` object.
pub fn gpu(i: &GpuInfo) -> serde_json::Value {
    serde_json::json!({
        "index": i.ordinal,
        "name": i.name,
        "compute_capability": format!("{}.{}", i.compute_capability.0, i.compute_capability.1),
        "multiprocessors": i.multiprocessors,
        "memory_bytes": i.memory_bytes,
        "driver_api": i.driver_version,
    })
}
