//! The autotune cache shared by many processes at once (the jobs of an array share one home
//! folder): every process's choice survives, and processes tuning the same problem class agree.
//! Each test starts copies of this test binary that each run [`record_one_choice`].

use ferroconv::Variant;
use ferroconv::engine::autotune::Tuner;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

/// Problem class and variant a child records, from its environment.
const KEY: &str = "CACHE_TEST_KEY";
const VARIANT: &str = "CACHE_TEST_VARIANT";

/// The child: records its choice in the cache of `CONV_CACHE_DIR` and prints the choice kept.
#[test]
#[ignore = "started by the other tests of this file, in many processes at once"]
fn record_one_choice() {
    let (Ok(key), Ok(name)) = (std::env::var(KEY), std::env::var(VARIANT)) else {
        return;
    };
    let variant = Variant::parse(&name).expect("a variant name");
    let kept = Tuner::load().record(&key, variant);
    println!("kept={}", kept.name());
}

/// Starts one child per `(key, variant)` at once and returns what each kept, in order.
fn record_at_once(dir: &Path, choices: &[(String, Variant)]) -> Vec<String> {
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = choices
        .iter()
        .map(|(key, variant)| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "record_one_choice",
                    "--ignored",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("CONV_CACHE_DIR", dir)
                .env(KEY, key)
                .env(VARIANT, variant.name())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("start a child")
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().expect("a child's output");
            assert!(out.status.success(), "a child failed");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.lines()
                .find_map(|l| l.split_once("kept=").map(|(_, v)| v.trim()))
                .unwrap_or_else(|| panic!("no choice printed: {text}"))
                .to_string()
        })
        .collect()
}

fn cache(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(dir.join("variants.json")).expect("the cache file");
    serde_json::from_str(&text).expect("a JSON object")
}

#[test]
fn many_processes_writing_at_once_lose_no_entry() {
    let dir = tempfile::tempdir().unwrap();
    let choices: Vec<(String, Variant)> = (0..24)
        .map(|i| {
            (
                format!("GPU|u8|c1|k{}|general|zero|2^{}px", 2 * (i % 8) + 1, 20 + i / 8),
                [Variant::Blocked4x4, Variant::Blocked4x2, Variant::TiledCache][i % 3],
            )
        })
        .collect();
    let kept = record_at_once(dir.path(), &choices);
    let file = cache(dir.path());
    assert_eq!(file.len(), choices.len(), "entries lost: {file:?}");
    for ((key, variant), kept) in choices.iter().zip(&kept) {
        assert_eq!(kept, variant.name());
        assert_eq!(file[key], variant.name());
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn processes_tuning_the_same_class_agree_on_one_variant() {
    let dir = tempfile::tempdir().unwrap();
    let key = "GPU|f32|c1|k5|general|zero|2^22px".to_string();
    let choices: Vec<(String, Variant)> = (0..12)
        .map(|i| {
            (
                key.clone(),
                [
                    Variant::Blocked4x4,
                    Variant::Blocked4x2,
                    Variant::TiledOutput32x16,
                ][i % 3],
            )
        })
        .collect();
    let kept = record_at_once(dir.path(), &choices);
    let file = cache(dir.path());
    assert_eq!(file.len(), 1);
    for k in &kept {
        assert_eq!(k, &file[&key], "a process kept another choice than the cache's");
    }
}
