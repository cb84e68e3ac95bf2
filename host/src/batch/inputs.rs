//! Which files a batch reads and writes: expands inputs (files, folders, globs) and plans
//! outputs (never over an input, never over an existing file unless forced).

use ferroconv::io::files::{self, EXTENSIONS, shown};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One file to process and where its result goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Item {
    pub input: PathBuf,
    pub output: PathBuf,
}

/// One input file and its key: its path relative to the input root it was found under, as bytes
/// (names need not be UTF-8), with `/` separators (the root of a folder given as input is that
/// folder; of a glob pattern, its folders before the first wildcard; of a file named directly,
/// its folder). Shards are split by key ([`super::shard`]), so they do not depend on where
/// the inputs are mounted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub path: PathBuf,
    pub key: Vec<u8>,
    /// The folder the file is in, relative to its input root (empty at the root): where its
    /// result goes under an output folder, so the results mirror the input tree.
    pub folder: PathBuf,
}

/// The inputs of a batch, and the sub-folders of input folders that were not entered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expanded {
    pub inputs: Vec<Input>,
    /// Sub-folders of input folders skipped (without `recursive`).
    pub skipped_folders: usize,
}

/// The files named by `inputs`: each a file, a folder (its image files, by extension, sorted; with
/// `recursive`, those of its sub-folders too, not following symbolic links to folders) or a glob
/// pattern (its matching files, sorted). A file named more than once (`-i a.png -i .`) is taken
/// once, where it first appears.
pub fn expand_inputs(inputs: &[PathBuf], recursive: bool) -> Result<Expanded, String> {
    let mut skipped_folders = 0;
    let files = expand_each(inputs, recursive, &mut skipped_folders)?;
    let mut seen = std::collections::HashSet::new();
    Ok(Expanded {
        inputs: files
            .into_iter()
            .filter(|f| seen.insert(f.path.canonicalize().unwrap_or_else(|_| f.path.clone())))
            .collect(),
        skipped_folders,
    })
}

/// The image files of `folder` (by extension, AppleDouble files left out), and of its
/// sub-folders where `recursive` (not through symbolic links to folders; else counted in
/// `skipped`).
fn folder_files(folder: &Path, recursive: bool, skipped: &mut usize) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("cannot read input folder {}: {e}", shown(folder)))?;
    let mut found = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        // The entry itself: a symbolic link to a folder is not a folder here.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && recursive {
            found.extend(folder_files(&path, true, skipped)?);
        } else if is_dir {
            *skipped += 1;
        } else if path.is_file() && has_image_extension(&path) && !is_apple_double(&path) {
            found.push(path);
        }
    }
    Ok(found)
}

/// `path` relative to `root`, with `/` separators, as bytes (the whole path where it is not
/// under `root`).
fn key(path: &Path, root: &Path) -> Vec<u8> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().as_encoded_bytes())
        .collect::<Vec<_>>()
        .join(&b'/')
}

/// The folders of a glob pattern before its first component with a wildcard.
fn glob_root(pattern: &Path) -> PathBuf {
    pattern
        .components()
        .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
        .collect()
}

fn expand_each(inputs: &[PathBuf], recursive: bool, skipped: &mut usize) -> Result<Vec<Input>, String> {
    let mut files = Vec::new();
    let keyed = |found: Vec<PathBuf>, root: &Path| -> Vec<Input> {
        found
            .into_iter()
            .map(|path| Input {
                key: key(&path, root),
                folder: path
                    .strip_prefix(root)
                    .ok()
                    .and_then(Path::parent)
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
                path,
            })
            .collect()
    };
    for input in inputs {
        let text = input.to_string_lossy();
        if input.is_dir() {
            let mut found = folder_files(input, recursive, skipped)?;
            if found.is_empty() {
                return Err(format!(
                    "input folder {} has no image files ({})",
                    shown(input),
                    EXTENSIONS.join(", ")
                ));
            }
            found.sort();
            files.extend(keyed(found, input));
        } else if text.contains(['*', '?', '[']) && !input.exists() {
            let paths = glob::glob(&text).map_err(|e| format!("bad pattern {text}: {e}"))?;
            let mut found: Vec<PathBuf> = paths
                .filter_map(|p| p.ok())
                .filter(|p| p.is_file() && !is_apple_double(p))
                .collect();
            if found.is_empty() {
                return Err(format!("no file matches {text}"));
            }
            found.sort();
            files.extend(keyed(found, &glob_root(input)));
        } else if input.is_file() {
            files.extend(keyed(
                vec![input.clone()],
                input.parent().unwrap_or(Path::new("")),
            ));
        } else if input.exists() {
            return Err(format!(
                "input {} is not a regular file (a device, pipe or socket)",
                shown(input)
            ));
        } else {
            return Err(format!("input {} does not exist", shown(input)));
        }
    }
    Ok(files)
}

/// macOS's AppleDouble companions (`._photo.png` beside `photo.png`, written on file systems
/// without extended attributes): metadata, not images, skipped in folders and patterns.
fn is_apple_double(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.as_encoded_bytes().starts_with(b"._"))
}

fn has_image_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// What to do with a result whose file exists already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Refuse the run (the default).
    Refuse,
    /// Replace the file (`--force`).
    Replace,
    /// Skip the input (`--skip-existing`): results appear only whole, by rename, so an existing
    /// one is complete (its settings are not compared).
    Skip,
}

/// Where each input's result goes, for the inputs `own` accepts (by index; the others are
/// another shard's), and how many of those were skipped since their result exists. `output` is a file when there is one input and `output` is neither an
/// existing folder nor ends with `/`; otherwise a folder that must exist, and each result is
/// named after its input with the extension `format` (default: the input's). Refuses to write two
/// results to one file (among all the inputs, so shards never collide), and, for its own items,
/// to overwrite an input or to meet an existing file other than as `existing` says. Checks that
/// the destination folder is writable before anything is decoded.
pub fn plan_outputs(
    inputs: &[Input],
    output: &Path,
    format: Option<&str>,
    existing: Existing,
    own: impl Fn(usize) -> bool,
) -> Result<(Vec<Item>, usize), String> {
    let special = |path: &Path| {
        files::not_a_regular_file(path).map(|kind| {
            format!(
                "{} is {kind}, not a regular file: refusing to write a result there, even with --force",
                shown(path)
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
            .map(|Input { path, folder, .. }| {
                let stem = path.file_stem().unwrap_or_default();
                let mut out = output.join(folder).join(stem);
                let ext = format
                    .map(str::to_owned)
                    .or_else(|| path.extension().map(|e| e.to_string_lossy().into_owned()));
                if let Some(ext) = ext {
                    out.set_extension(ext);
                }
                Item {
                    input: path.clone(),
                    output: out,
                }
            })
            .collect()
    } else {
        if let Some(f) = format {
            return Err(format!(
                "--format {f} names the results in an output folder, and the output {} is a file: \
                 give it the extension of the format you want",
                shown(output)
            ));
        }
        files::check_writable_dir(output.parent().unwrap_or(Path::new("")))?;
        vec![Item {
            input: inputs[0].path.clone(),
            output: output.to_path_buf(),
        }]
    };
    let canonical: std::collections::HashSet<PathBuf> =
        inputs.iter().filter_map(|i| i.path.canonicalize().ok()).collect();
    let mut first_with_output: HashMap<&Path, &Item> = HashMap::with_capacity(items.len());
    let mut skipped = std::collections::HashSet::new();
    for (n, item) in items.iter().enumerate() {
        if own(n)
            && let Some(e) = special(&item.output)
        {
            return Err(e);
        }
        if files::Format::of(&item.output).is_none() {
            let list = EXTENSIONS.join(", ");
            return Err(match item.output.extension() {
                Some(e) => format!(
                    "{}: unknown output extension '{}' (use one of: {list})",
                    shown(&item.output),
                    e.to_string_lossy()
                ),
                None if folder_mode => format!(
                    "{}: the output has no extension to choose its format: give --format (one of: {list})",
                    shown(&item.output)
                ),
                None => format!(
                    "{}: the output has no extension to choose its format: name it with one (one of: {list})",
                    shown(&item.output)
                ),
            });
        }
        if own(n) && item.output.exists() {
            if item.output.canonicalize().is_ok_and(|c| canonical.contains(&c)) {
                return Err(format!(
                    "refusing to overwrite the input {} with a result",
                    shown(&item.output)
                ));
            }
            match existing {
                Existing::Refuse => {
                    return Err(format!(
                        "{} already exists (use --force to overwrite it, or --skip-existing to skip its input)",
                        shown(&item.output)
                    ));
                }
                Existing::Replace => {}
                Existing::Skip => {
                    skipped.insert(n);
                }
            }
        }
        if let Some(other) = first_with_output.insert(&item.output, item) {
            return Err(format!(
                "{} and {} would both be written to {}: rename one, or give them separate runs",
                shown(&other.input),
                shown(&item.input),
                shown(&item.output)
            ));
        }
    }
    let count = skipped.len();
    let items: Vec<Item> = items
        .into_iter()
        .enumerate()
        .filter(|(n, _)| own(*n) && !skipped.contains(n))
        .map(|(_, item)| item)
        .collect();
    // The output tree's folders, for inputs found in sub-folders of their root.
    for item in &items {
        if let Some(parent) = item.output.parent()
            && folder_mode
            && parent != output
        {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create the output folder {}: {e}", shown(parent)))?;
        }
    }
    Ok((items, count))
}
