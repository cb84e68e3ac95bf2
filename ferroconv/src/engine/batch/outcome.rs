//! What became of each image of a batch ([`Outcome`], also as one entry of the `--json`
//! document) and the batch's totals.

use super::ComputeTimes;
use serde::Serialize;
use std::path::PathBuf;

/// What became of one image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Processed and written whole.
    Written,
    /// It failed: a bad file, a filter too large for it, a write error, a device fault.
    Failed,
    /// Processed, but a signal stopped the batch while it was being written: nothing was left.
    Discarded,
    /// Not processed: the batch stopped (a device fault on another image, or a signal) first.
    NotProcessed,
}

/// What happened to one image.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub input: PathBuf,
    /// Where the result goes (written there only when `status` is [`Status::Written`]).
    pub output: PathBuf,
    pub status: Status,
    /// Present when the image was processed and written (it names the variant that ran).
    pub done: Option<Done>,
    /// Why it was not written (one line, starting with the input's path), unless it was.
    pub error: Option<String>,
}

impl Outcome {
    /// [`Outcome::error`] without the input's path in front (the JSON has it in `input`).
    pub fn reason(&self) -> Option<&str> {
        let e = self.error.as_deref()?;
        Some(
            e.strip_prefix(&format!("{}: ", self.input.display()))
                .unwrap_or(e),
        )
    }
}

/// Version of the JSON document `--json` prints (README, "JSON"); it changes when a field changes
/// meaning or goes away.
pub const JSON_SCHEMA: u32 = 2;

/// One entry of the JSON document: every field always present, `null` where unknown or not
/// applicable; `output` only when it was written; `error` without the input's path.
impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap as _};
        let facts = match &self.done {
            Some(d) => serde_json::to_value(d),
            None => serde_json::to_value(Done::default()).map(|v| match v {
                serde_json::Value::Object(m) => {
                    m.into_iter().map(|(k, _)| (k, serde_json::Value::Null)).collect()
                }
                other => other,
            }),
        }
        .map_err(S::Error::custom)?;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("input", &self.input)?;
        map.serialize_entry(
            "output",
            &(self.status == Status::Written).then_some(&self.output),
        )?;
        map.serialize_entry("status", &self.status)?;
        if let serde_json::Value::Object(facts) = facts {
            for (k, v) in facts {
                map.serialize_entry(&k, &v)?;
            }
        }
        map.serialize_entry("error", &self.reason())?;
        map.end()
    }
}

/// Facts and times of an image that was processed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Done {
    /// The result's size (smaller than the input's with the valid border).
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub dtype: &'static str,
    pub strips: usize,
    pub decode_ms: f64,
    #[serde(flatten)]
    pub compute: ComputeTimes,
    pub encode_ms: f64,
    /// Input plus output bytes over the kernel time (GPU) or the whole convolution (CPU).
    pub gb_per_s: f64,
}

/// Totals of a batch.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub images: usize,
    /// Images processed and written.
    pub written: usize,
    /// Images that failed on their own (bad file, write error, device fault).
    pub failed: usize,
    /// Images whose result was being written when a signal stopped the batch (nothing left).
    pub discarded: usize,
    /// Images not processed because the batch stopped (a device fault, or a signal) first.
    pub not_processed: usize,
    pub seconds: f64,
    /// Megapixels of the images processed per second of wall time.
    pub megapixels_per_s: f64,
}

/// The totals of `outcomes`, which took `seconds`.
pub fn summarize(outcomes: &[Outcome], seconds: f64) -> Summary {
    let pixels: usize = outcomes
        .iter()
        .filter_map(|o| o.done.as_ref())
        .map(|d| d.width * d.height)
        .sum();
    let count = |s: Status| outcomes.iter().filter(|o| o.status == s).count();
    Summary {
        images: outcomes.len(),
        written: count(Status::Written),
        failed: count(Status::Failed),
        discarded: count(Status::Discarded),
        not_processed: count(Status::NotProcessed),
        seconds,
        megapixels_per_s: pixels as f64 / 1e6 / seconds.max(1e-9),
    }
}
