//! `host report merge`: the `--json` documents of a batch's shards (or of separate runs) as one
//! document of the same schema, with every image, summed totals and each shard's own account.

use anyhow::{Context as _, Result, bail};
use ferroconv::engine::gpu::Variant;
use host_tools::batch::JSON_SCHEMA;
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    #[command(subcommand)]
    pub command: ReportCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum ReportCommand {
    /// Merge the `--json` documents of a batch's shards (`--shard`, a Slurm array, a Kubernetes
    /// Indexed Job) into one on stdout: every image, summed totals (`seconds` is the longest
    /// shard's), each shard's account under `shards`. Fails (after printing) when a shard is
    /// missing, reported an error, or an image was not written.
    Merge {
        /// The shards' documents (at least one).
        #[arg(required = true)]
        reports: Vec<PathBuf>,
    },
}

pub fn run(args: &ReportArgs) -> Result<()> {
    let ReportCommand::Merge { reports } = &args.command;
    let docs = reports
        .iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            let doc: Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a JSON document", path.display()))?;
            Ok((path.display().to_string(), doc))
        })
        .collect::<Result<Vec<_>>>()?;
    let (merged, problems) = merge(&docs)?;
    println!("{}", serde_json::to_string_pretty(&merged)?);
    for p in &problems {
        eprintln!("error: {p}");
    }
    if !problems.is_empty() {
        bail!(
            "the merged batch is incomplete or has failures ({} problem(s) above)",
            problems.len()
        );
    }
    Ok(())
}

/// The merged document of `docs` (name, document), and what makes the merged batch incomplete
/// or failed (missing shards, errors, interruptions, images not written). Refuses documents of
/// another schema, of different settings (filter, border, sample type, clamping, format, encoder
/// choices, variant asked for), of different shard counts, the same shard twice, or the same
/// input twice.
pub fn merge(docs: &[(String, Value)]) -> Result<(Value, Vec<String>)> {
    let mut problems = Vec::new();
    check_one_batch(docs)?;
    let shards: Vec<Option<(u64, u64)>> = docs
        .iter()
        .map(|(_, d)| {
            let s = d.get("shard")?;
            Some((s.get("index")?.as_u64()?, s.get("count")?.as_u64()?))
        })
        .collect();
    let count = shard_count(docs, &shards, &mut problems)?;

    let mut images: Vec<Value> = Vec::new();
    let mut inputs = HashSet::new();
    let mut totals = [0u64; 5];
    let mut seconds = 0.0f64;
    let first = |key: &str| {
        docs.iter()
            .map(|(_, d)| field(d, key))
            .find(|v| !v.is_null())
            .unwrap_or(Value::Null)
    };
    let (gpu, gpu_unavailable, interrupted) = (first("gpu"), first("gpu_unavailable"), first("interrupted"));
    let (filter, border) = (first("filter"), first("border"));
    let mut variants = BTreeSet::new();
    let mut choices: Vec<Value> = Vec::new();
    let mut accounts = Vec::new();
    for ((name, doc), shard) in docs.iter().zip(&shards) {
        let label = shard.map_or(name.clone(), |(i, n)| format!("shard {i}/{n} ({name})"));
        if let Some(e) = doc.get("error").and_then(Value::as_str) {
            problems.push(format!("{label}: {e}"));
        }
        if let Some(s) = doc.get("interrupted").and_then(Value::as_str) {
            problems.push(format!("{label} was interrupted by {s}"));
        }
        if let Some(v) = doc.get("variant").and_then(Value::as_str) {
            // A variant's former name (`blocked-4x4`) and its name (`blocked-4x4`) are one setting.
            variants.insert(Variant::parse(v).map_or_else(|| v.to_string(), |v| v.name().to_string()));
        }
        for c in doc
            .get("auto_choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !choices.contains(c) {
                choices.push(c.clone());
            }
        }
        for image in doc.get("images").and_then(Value::as_array).into_iter().flatten() {
            let input = image.get("input").and_then(Value::as_str).unwrap_or_default();
            // A name that is not UTF-8 is told apart by its bytes, not by its lossy text.
            let bytes = image.get("input_bytes").and_then(Value::as_str);
            if !inputs.insert((input.to_string(), bytes.map(str::to_string))) {
                bail!("{input} is in more than one document: not shards of one batch");
            }
            images.push(image.clone());
        }
        let summary = field(doc, "summary");
        for (t, key) in totals
            .iter_mut()
            .zip(["images", "written", "failed", "discarded", "not_processed"])
        {
            *t += summary.get(key).and_then(Value::as_u64).unwrap_or(0);
        }
        seconds = seconds.max(summary.get("seconds").and_then(Value::as_f64).unwrap_or(0.0));
        accounts.push(json!({
            "report": name,
            "index": shard.map(|s| s.0),
            "gpu": field(doc, "gpu"),
            "variant": field(doc, "variant"),
            "error": field(doc, "error"),
            "interrupted": field(doc, "interrupted"),
            "summary": summary,
        }));
    }
    images.sort_by(|a, b| {
        a.get("input")
            .and_then(Value::as_str)
            .cmp(&b.get("input").and_then(Value::as_str))
    });
    let [n_images, written, failed, discarded, not_processed] = totals;
    let unsuccessful = failed + discarded + not_processed;
    if unsuccessful > 0 {
        problems.push(format!("{unsuccessful} of {n_images} image(s) were not written"));
    }
    let pixels: f64 = images
        .iter()
        .filter_map(|i| Some(i.get("width")?.as_f64()? * i.get("height")?.as_f64()?))
        .sum();
    let inputs_total = docs
        .iter()
        .find_map(|(_, d)| d.get("shard")?.get("inputs_total").cloned())
        .unwrap_or(Value::Null);
    let mut doc = Map::new();
    doc.insert("schema".into(), json!(JSON_SCHEMA));
    doc.insert(
        "error".into(),
        if problems.is_empty() {
            Value::Null
        } else {
            json!(problems.join("; "))
        },
    );
    doc.insert("interrupted".into(), interrupted);
    doc.insert("gpu".into(), gpu);
    doc.insert("gpu_unavailable".into(), gpu_unavailable);
    doc.insert(
        "variant".into(),
        match variants.len() {
            0 => Value::Null,
            1 => json!(variants.pop_first()),
            _ => json!("mixed"),
        },
    );
    doc.insert("auto_choices".into(), Value::Array(choices));
    doc.insert("filter".into(), filter);
    doc.insert("border".into(), border);
    doc.insert("settings".into(), first("settings"));
    let skipped: u64 = docs
        .iter()
        .filter_map(|(_, d)| d.get("skipped_existing")?.as_u64())
        .sum();
    doc.insert("skipped_existing".into(), json!(skipped));
    doc.insert(
        "shard".into(),
        match count {
            Some(n) => json!({"index": null, "count": n, "source": "merged", "inputs_total": inputs_total}),
            None => Value::Null,
        },
    );
    doc.insert("images".into(), Value::Array(images));
    doc.insert(
        "summary".into(),
        json!({
            "images": n_images,
            "written": written,
            "failed": failed,
            "discarded": discarded,
            "not_processed": not_processed,
            "seconds": seconds,
            "megapixels_per_s": pixels / 1e6 / seconds.max(1e-9),
        }),
    );
    doc.insert("shards".into(), Value::Array(accounts));
    Ok((Value::Object(doc), problems))
}

/// `doc`'s `key`, or null.
fn field(doc: &Value, key: &str) -> Value {
    doc.get(key).cloned().unwrap_or(Value::Null)
}

/// Refuses documents of another schema, or of different settings (filter, border, sample type,
/// clamping, format, encoder choices, variant asked for): not one batch.
fn check_one_batch(docs: &[(String, Value)]) -> Result<()> {
    for (name, doc) in docs {
        let schema = doc.get("schema").and_then(Value::as_u64);
        if schema != Some(u64::from(JSON_SCHEMA)) {
            bail!(
                "{name}: not a --json document of schema {JSON_SCHEMA} (schema {})",
                schema.map_or("missing".to_string(), |s| s.to_string())
            );
        }
    }
    // Documents of runs that failed before processing have no settings: they agree.
    for (key, what) in [
        ("filter", "filters"),
        ("border", "borders"),
        ("settings", "settings"),
    ] {
        let values: Vec<(&String, Value)> = docs
            .iter()
            .map(|(n, d)| (n, field(d, key)))
            .filter(|(_, v)| !v.is_null())
            .collect();
        if let Some((other, _)) = values.iter().find(|(_, v)| *v != values[0].1) {
            bail!(
                "{} and {other} were made with different {what}: not one batch",
                values[0].0
            );
        }
    }
    Ok(())
}

/// The shard count of `docs`, whose `shards` are each one's (index, count) where it is a shard
/// (`None`: none is); refuses a mix of shards and others, shards of different counts, or the
/// same shard twice, and adds the shards missing to `problems`.
fn shard_count(
    docs: &[(String, Value)],
    shards: &[Option<(u64, u64)>],
    problems: &mut Vec<String>,
) -> Result<Option<u64>> {
    let count = match shards
        .iter()
        .flatten()
        .map(|&(_, c)| c)
        .collect::<BTreeSet<_>>()
        .len()
    {
        0 => None,
        1 => shards.iter().flatten().next().map(|&(_, c)| c),
        _ => bail!("the documents are shards of different counts: not one batch"),
    };
    if let Some(n) = count {
        if let Some(lone) = shards.iter().position(Option::is_none) {
            bail!("{} is not a shard, the others are: not one batch", docs[lone].0);
        }
        let mut seen = std::collections::HashMap::new();
        for ((name, _), s) in docs.iter().zip(shards) {
            let (i, _) = s.expect("all are shards");
            if let Some(first) = seen.insert(i, name) {
                bail!("{first} and {name} are both shard {i}/{n}");
            }
        }
        let missing: Vec<String> = (0..n)
            .filter(|i| !seen.contains_key(i))
            .map(|i| i.to_string())
            .collect();
        if !missing.is_empty() {
            problems.push(format!("shard(s) {} of {n} missing", missing.join(", ")));
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(i: u64, n: u64, images: &[(&str, bool)], seconds: f64) -> Value {
        let entries: Vec<Value> = images
            .iter()
            .map(|&(input, ok)| {
                json!({"input": input, "status": if ok { "written" } else { "failed" },
                       "width": if ok { json!(10) } else { Value::Null }, "height": if ok { json!(20) } else { Value::Null }})
            })
            .collect();
        let written = images.iter().filter(|i| i.1).count();
        json!({
            "schema": JSON_SCHEMA, "error": null, "interrupted": null, "gpu": null, "gpu_unavailable": null,
            "variant": "fast", "auto_choices": [], "filter": "box 5x5", "border": "zero",
            "shard": {"index": i, "count": n, "source": "slurm", "inputs_total": 4},
            "images": entries,
            "summary": {"images": images.len(), "written": written, "failed": images.len() - written,
                        "discarded": 0, "not_processed": 0, "seconds": seconds, "megapixels_per_s": 0.0},
        })
    }

    fn named(docs: Vec<Value>) -> Vec<(String, Value)> {
        docs.into_iter()
            .enumerate()
            .map(|(i, d)| (format!("s{i}.json"), d))
            .collect()
    }

    #[test]
    fn shards_merge_into_one_batch() {
        let docs = named(vec![
            shard(1, 2, &[("b.png", true), ("d.png", true)], 2.0),
            shard(0, 2, &[("c.png", true), ("a.png", true)], 1.0),
        ]);
        let (m, problems) = merge(&docs).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        let inputs: Vec<&str> = m["images"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["input"].as_str().unwrap())
            .collect();
        assert_eq!(inputs, ["a.png", "b.png", "c.png", "d.png"]);
        assert_eq!(m["summary"]["images"], 4);
        assert_eq!(m["summary"]["written"], 4);
        assert_eq!(m["summary"]["seconds"], 2.0);
        assert!((m["summary"]["megapixels_per_s"].as_f64().unwrap() - 4.0 * 200.0 / 1e6 / 2.0).abs() < 1e-12);
        assert_eq!(m["shard"]["count"], 2);
        assert_eq!(m["shards"].as_array().unwrap().len(), 2);
        assert_eq!(m["variant"], "blocked-4x4");
        assert_eq!(m["error"], Value::Null);
    }

    /// Two names that are not UTF-8 and differ only in bytes their lossy text loses are two
    /// inputs, told apart by `input_bytes`; the same name twice is still refused.
    #[test]
    fn names_that_are_not_utf8_are_compared_by_their_bytes() {
        let mut a = shard(0, 2, &[("\u{fffd}.png", true)], 1.0);
        let mut b = shard(1, 2, &[("\u{fffd}.png", true)], 1.0);
        a["images"][0]["input_bytes"] = json!("/w==");
        b["images"][0]["input_bytes"] = json!("/g==");
        let (m, problems) = merge(&named(vec![a.clone(), b])).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(m["images"].as_array().unwrap().len(), 2);
        let mut same = shard(1, 2, &[("\u{fffd}.png", true)], 1.0);
        same["images"][0]["input_bytes"] = json!("/w==");
        assert!(
            merge(&named(vec![a, same]))
                .unwrap_err()
                .to_string()
                .contains("more than one document")
        );
    }

    #[test]
    fn missing_shards_and_failures_are_problems() {
        let docs = named(vec![shard(0, 3, &[("a.png", true), ("b.png", false)], 1.0)]);
        let (m, problems) = merge(&docs).unwrap();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("1, 2 of 3 missing"), "{problems:?}");
        assert!(problems[1].contains("1 of 2 image(s)"), "{problems:?}");
        assert!(m["error"].as_str().unwrap().contains("missing"));
    }

    #[test]
    fn documents_of_different_batches_are_refused() {
        let twice = named(vec![
            shard(0, 2, &[("a.png", true)], 1.0),
            shard(0, 2, &[("b.png", true)], 1.0),
        ]);
        assert!(merge(&twice).unwrap_err().to_string().contains("both shard 0/2"));
        let counts = named(vec![
            shard(0, 2, &[("a.png", true)], 1.0),
            shard(1, 3, &[("b.png", true)], 1.0),
        ]);
        assert!(merge(&counts).is_err());
        let mut other = shard(1, 2, &[("b.png", true)], 1.0);
        other["filter"] = json!("gaussian 7x7");
        assert!(merge(&named(vec![shard(0, 2, &[("a.png", true)], 1.0), other])).is_err());
        let same_input = named(vec![
            shard(0, 2, &[("a.png", true)], 1.0),
            shard(1, 2, &[("a.png", true)], 1.0),
        ]);
        assert!(merge(&same_input).is_err());
        let mut old = shard(0, 1, &[], 1.0);
        old["schema"] = json!(1);
        assert!(merge(&named(vec![old])).is_err());
    }
}
