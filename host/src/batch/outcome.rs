//! What became of each image of a batch ([`Outcome`], also as one entry of the `--json`
//! document) and the batch's totals.

use super::ComputeTimes;
use ferroconv::io::files::shown;
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
        Some(e.strip_prefix(&format!("{}: ", shown(&self.input))).unwrap_or(e))
    }
}

/// Version of the JSON document `--json` prints (docs/cli.md, "JSON"); it changes when a field changes
/// meaning or goes away (3: a constant border's value is in sample levels, and `settings.taps`
/// summarizes a filter past 31 × 31).
pub const JSON_SCHEMA: u32 = 3;

/// One entry of the JSON document: every field always present, `null` where unknown or not
/// applicable; `output` only when it was written; `error` without the input's path;
/// `input_bytes` and `output_bytes` (base64) only for names that are not UTF-8.
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
        path_entry(&mut map, "input", Some(&self.input))?;
        path_entry(
            &mut map,
            "output",
            (self.status == Status::Written).then_some(&self.output),
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

/// `path` under `key` as text (`null` for `None`), lossy where it is not UTF-8, and then also
/// its bytes, base64, under `<key>_bytes`: names that are not UTF-8 are reported, never a panic.
fn path_entry<M: serde::ser::SerializeMap>(
    map: &mut M,
    key: &str,
    path: Option<&std::path::Path>,
) -> std::result::Result<(), M::Error> {
    map.serialize_entry(key, &path.map(|p| p.to_string_lossy()))?;
    if let Some(p) = path
        && p.to_str().is_none()
    {
        use std::os::unix::ffi::OsStrExt as _;
        map.serialize_entry(&format!("{key}_bytes"), &base64(p.as_os_str().as_bytes()))?;
    }
    Ok(())
}

/// Standard base64 (RFC 4648, with padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc_4648() {
        for (raw, encoded) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"foobar", "Zm9vYmFy"),
            (b"\xff\xfe.png", "//4ucG5n"),
        ] {
            assert_eq!(super::base64(raw), encoded);
        }
    }
}

/// Facts and times of an image that was processed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Done {
    /// The result's size (smaller than the input's with the valid border); its first page's,
    /// for a multi-page TIFF.
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub dtype: &'static str,
    /// Pages filtered and written (more than one for a multi-page TIFF).
    pub pages: usize,
    /// Each page's result size, `[width, height]`, in page order.
    pub page_sizes: Vec<[usize; 2]>,
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
        .flat_map(|d| &d.page_sizes)
        .map(|[w, h]| w * h)
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
