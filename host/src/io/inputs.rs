//! Which files a batch reads and writes: expands inputs (files, folders, globs) and plans
//! outputs (never over an input, never over an existing file unless forced).

use crate::io::files::{self, EXTENSIONS};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One file to process and where its result goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// The files named by `inputs`: each a file, a folder (its image files, by extension, sorted) or a
/// glob pattern (its matching files, sorted). A file named more than once (`-i a.png -i .`) is
/// taken once, where it first appears.
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let files = expand_each(inputs)?;
    let mut seen = std::collections::HashSet::new();
    Ok(files
        .into_iter()
        .filter(|f| seen.insert(f.canonicalize().unwrap_or_else(|_| f.clone())))
        .collect())
}

fn expand_each(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        let text = input.to_string_lossy();
        if input.is_dir() {
            let entries = std::fs::read_dir(input)
                .map_err(|e| format!("cannot read input folder {}: {e}", input.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && has_image_extension(p))
                .collect();
            if found.is_empty() {
                return Err(format!(
                    "input folder {} has no image files ({})",
                    input.display(),
                    EXTENSIONS.join(", ")
                ));
            }
            found.sort();
            files.extend(found);
        } else if text.contains(['*', '?', '[']) && !input.exists() {
            let paths = glob::glob(&text).map_err(|e| format!("bad pattern {text}: {e}"))?;
            let mut found: Vec<PathBuf> = paths.filter_map(|p| p.ok()).filter(|p| p.is_file()).collect();
            if found.is_empty() {
                return Err(format!("no file matches {text}"));
            }
            found.sort();
            files.extend(found);
        } else if input.is_dir() || input.is_file() {
            files.push(input.clone());
        } else if input.exists() {
            return Err(format!(
                "input {} is not a regular file (a device, pipe or socket)",
                input.display()
            ));
        } else {
            return Err(format!("input {} does not exist", input.display()));
        }
    }
    Ok(files)
}

fn has_image_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Where each input's result goes. `output` is a file when there is one input and `output` is
/// neither an existing folder nor ends with `/`; otherwise a folder that must exist, and each
/// result is named after its input with the extension `format` (default: the input's). Refuses to overwrite an input, to
/// write two results to one file, and to replace an existing file unless `force`. Checks that the
/// destination folder is writable before anything is decoded.
pub fn plan_outputs(
    inputs: &[PathBuf],
    output: &Path,
    format: Option<&str>,
    force: bool,
) -> Result<Vec<Item>, String> {
    let special = |path: &Path| {
        files::not_a_regular_file(path).map(|kind| {
            format!(
                "{} is {kind}, not a regular file: refusing to write a result there, even with --force",
                path.display()
            )
        })
    };
    // `--format .tif` means `--format tif`.
    let format = format.map(|f| f.trim_start_matches('.'));
    let folder_mode = inputs.len() > 1 || output.is_dir() || output.to_string_lossy().ends_with('/');
    if !folder_mode && let Some(e) = special(output) {
        return Err(e);
    }
    let items: Vec<Item> = if folder_mode {
        files::check_writable_dir(output)?;
        inputs
            .iter()
            .map(|input| {
                let stem = input.file_stem().unwrap_or_default();
                let mut out = output.join(stem);
                let ext = format
                    .map(str::to_owned)
                    .or_else(|| input.extension().map(|e| e.to_string_lossy().into_owned()));
                if let Some(ext) = ext {
                    out.set_extension(ext);
                }
                Item {
                    input: input.clone(),
                    output: out,
                }
            })
            .collect()
    } else {
        files::check_writable_dir(output.parent().unwrap_or(Path::new("")))?;
        vec![Item {
            input: inputs[0].clone(),
            output: output.to_path_buf(),
        }]
    };
    let canonical: Vec<PathBuf> = inputs.iter().filter_map(|p| p.canonicalize().ok()).collect();
    for (n, item) in items.iter().enumerate() {
        if let Some(e) = special(&item.output) {
            return Err(e);
        }
        if files::Format::of(&item.output).is_none() {
            let list = EXTENSIONS.join(", ");
            return Err(match item.output.extension() {
                Some(e) => format!(
                    "{}: unknown output extension '{}' (use one of: {list})",
                    item.output.display(),
                    e.to_string_lossy()
                ),
                None => format!(
                    "{}: the output has no extension to choose its format: name it with one, or give \
                     --format (one of: {list})",
                    item.output.display()
                ),
            });
        }
        if item.output.exists() {
            if item.output.canonicalize().is_ok_and(|c| canonical.contains(&c)) {
                return Err(format!(
                    "refusing to overwrite the input {} with a result",
                    item.output.display()
                ));
            }
            if !force {
                return Err(format!(
                    "{} already exists (use --force to overwrite it)",
                    item.output.display()
                ));
            }
        }
        if let Some(other) = items[..n].iter().find(|o| o.output == item.output) {
            return Err(format!(
                "{} and {} would both be written to {}: rename one, or give them separate runs",
                other.input.display(),
                item.input.display(),
                item.output.display()
            ));
        }
    }
    Ok(items)
}
