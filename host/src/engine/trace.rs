//! A Chrome-trace record (the JSON that Perfetto and `chrome://tracing` open) of the engines'
//! work, for `host scale --trace`: each GPU stage of every plan run (copy in, kernel, copy out,
//! from the plan's CUDA events, [`StageTimes`]) on a row per GPU and host thread, and the host
//! threads' convolutions and strips on the host clock. Times count from [`epoch`]. Off until
//! [`start`]; recording takes one lock per span.

use anyhow::{Context as _, Result};
use ferroconv::Filter2D;
use ferroconv::plan::{StageTimes, epoch};
use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// One complete event: `pid` 0 is the host, `g + 1` GPU `g`; `tid` the host thread that ran it.
struct Span {
    name: &'static str,
    pid: u64,
    tid: u64,
    start_ms: f64,
    ms: f64,
}

/// The spans recorded since [`start`] (`None`: not recording).
static SPANS: Mutex<Option<Vec<Span>>> = Mutex::new(None);

/// Whether [`start`] has been called and [`finish`] not since: read before anything is measured,
/// so a run that records nothing queries no events and takes no lock.
static RECORDING: AtomicBool = AtomicBool::new(false);

fn spans() -> std::sync::MutexGuard<'static, Option<Vec<Span>>> {
    SPANS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts recording (and forgets what was recorded before).
pub fn start() {
    epoch();
    *spans() = Some(Vec::new());
    RECORDING.store(true, Ordering::Release);
}

/// This thread's number in the trace (1, 2, ... in the order threads first record).
fn thread_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    ID.with(|id| *id)
}

fn push(span: Span) {
    if let Some(all) = spans().as_mut() {
        all.push(span);
    }
}

/// A host span `name` from `started` to now, on this thread.
pub fn host(name: &'static str, started: Instant) {
    if !RECORDING.load(Ordering::Acquire) {
        return;
    }
    let start_ms = started.saturating_duration_since(epoch()).as_secs_f64() * 1e3;
    push(Span {
        name,
        pid: 0,
        tid: thread_id(),
        start_ms,
        ms: started.elapsed().as_secs_f64() * 1e3,
    });
}

/// The stages of `plan`'s last timed host run, on its GPU's row for this thread.
pub fn gpu(plan: &Filter2D) {
    if !RECORDING.load(Ordering::Acquire) {
        return;
    }
    let (Some(t), Some(gpu)) = (plan.stage_times(), plan.gpu()) else {
        return;
    };
    let StageTimes {
        upload_ms,
        kernel_ms,
        download_ms,
        start_ms,
    } = t;
    let (pid, tid) = (gpu.info().ordinal as u64 + 1, thread_id());
    let mut at = start_ms;
    for (name, ms) in [
        ("copy in", upload_ms),
        ("kernel", kernel_ms),
        ("copy out", download_ms),
    ] {
        push(Span {
            name,
            pid,
            tid,
            start_ms: at,
            ms,
        });
        at += ms;
    }
}

/// The recorded spans as a Chrome-trace document, its rows named.
fn document(spans: &[Span]) -> Value {
    let mut events: Vec<Value> = spans
        .iter()
        .map(|s| {
            json!({"name": s.name, "ph": "X", "pid": s.pid, "tid": s.tid,
                   "ts": s.start_ms * 1e3, "dur": s.ms * 1e3})
        })
        .collect();
    let mut rows: Vec<(u64, u64)> = spans.iter().map(|s| (s.pid, s.tid)).collect();
    rows.sort_unstable();
    rows.dedup();
    for (pid, tid) in rows {
        let (process, thread) = match pid {
            0 => ("host".to_string(), format!("thread {tid}")),
            g => (format!("GPU {}", g - 1), format!("stream of host thread {tid}")),
        };
        events.push(json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": process}}));
        events.push(
            json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": thread}}),
        );
    }
    json!({"traceEvents": events, "displayTimeUnit": "ms"})
}

/// Writes what was recorded to `path` as a Chrome trace and stops recording.
pub fn finish(path: &std::path::Path) -> Result<()> {
    RECORDING.store(false, Ordering::Release);
    let recorded = spans().take().unwrap_or_default();
    let text = serde_json::to_string(&document(&recorded))?;
    std::fs::write(path, text).with_context(|| format!("writing the trace {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_become_complete_events_on_named_rows() {
        let spans = [
            Span {
                name: "convolve",
                pid: 0,
                tid: 3,
                start_ms: 1.5,
                ms: 2.0,
            },
            Span {
                name: "kernel",
                pid: 2,
                tid: 3,
                start_ms: 2.0,
                ms: 0.25,
            },
        ];
        let doc = document(&spans);
        let events = doc["traceEvents"].as_array().unwrap();
        assert_eq!(events.len(), 2 + 4);
        assert_eq!(events[0]["ph"], "X");
        assert_eq!(events[0]["ts"], 1500.0);
        assert_eq!(events[0]["dur"], 2000.0);
        assert_eq!(events[1]["pid"], 2);
        let names: Vec<&str> = events[2..]
            .iter()
            .map(|e| e["args"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["host", "thread 3", "GPU 1", "stream of host thread 3"]);
    }

    #[test]
    fn nothing_is_recorded_before_start_and_finish_writes_the_document() {
        *spans() = None;
        host("convolve", Instant::now());
        assert!(spans().is_none());
        start();
        host("convolve", Instant::now());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.json");
        finish(&path).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        assert!(
            events.iter().any(|e| e["name"] == "convolve" && e["ph"] == "X"),
            "{doc}"
        );
        assert!(spans().is_none());
    }
}
