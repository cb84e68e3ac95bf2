//! Shards of a batch for cluster job arrays: which shard this process is (`--shard I/N`, a Slurm
//! job array, or a Kubernetes Indexed Job) and which inputs belong to it.
//!
//! An input belongs to shard `hash(key) mod N`, where `key` is its path relative to the input
//! root it was found under (see [`super::inputs::Input::key`]) and `hash` is 64-bit FNV-1a of
//! its UTF-8 bytes with `/` separators. The split depends on nothing but the key and `N`: every
//! machine computes the same one whatever order it lists the files in, and adding or removing a
//! file moves no other file to another shard.

use std::fmt;

/// Where this process's shard came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSource {
    /// `--shard I/N`.
    Flag,
    /// A Slurm job array: `SLURM_ARRAY_TASK_ID` and its count (`SLURM_ARRAY_TASK_COUNT`, or
    /// `SLURM_ARRAY_TASK_MIN`/`_MAX`/`_STEP`).
    Slurm,
    /// A Kubernetes Indexed Job: `JOB_COMPLETION_INDEX`, with the count from `--shard-count` or
    /// [`COUNT_VARIABLE`].
    Kubernetes,
}

/// The variable that gives a Kubernetes Indexed Job's shard count (its `completions`) when
/// `--shard-count` does not.
pub const COUNT_VARIABLE: &str = "CONV_SHARD_COUNT";

/// One shard of `count`: this process handles the inputs whose key hashes to `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based, below `count`.
    pub index: usize,
    pub count: usize,
    pub source: ShardSource,
}

impl Shard {
    /// `I/N` with `0 <= I < N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {text}: expected I/N, 0-based, with I < N (e.g. 0/8), or off");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        Shard::new(index, count, ShardSource::Flag).ok_or_else(bad)
    }

    fn new(index: usize, count: usize, source: ShardSource) -> Option<Shard> {
        (index < count).then_some(Shard { index, count, source })
    }

    /// The shard a job array gives this process through `var` (the environment, in use), or
    /// `None` outside one. A Slurm array comes first, then a Kubernetes Indexed Job, whose count
    /// is `count` (`--shard-count`) or else [`COUNT_VARIABLE`].
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
        count: Option<usize>,
    ) -> Result<Option<Shard>, String> {
        let number = |name: &str| -> Result<Option<i64>, String> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse::<i64>()
                        .map_err(|_| format!("{name}={v} is not a whole number"))
                })
                .transpose()
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let total = match (number("SLURM_ARRAY_TASK_COUNT")?, number("SLURM_ARRAY_TASK_MAX")?) {
                (Some(n), _) => n,
                (None, Some(max)) => (max - min) / step + 1,
                (None, None) => {
                    return Err(
                        "SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MAX: pass --shard I/N"
                            .into(),
                    );
                }
            };
            let offset = id - min;
            let index = offset / step;
            let shard = (offset >= 0 && offset % step == 0)
                .then(|| Shard::new(index as usize, total.max(0) as usize, ShardSource::Slurm))
                .flatten();
            return shard.map(Some).ok_or_else(|| {
                format!(
                    "task {id} of a Slurm array with minimum {min}, step {step} and {total} task(s) is not one of \
                     0..{total} in order (an array like --array=1,3,7?): pass --shard I/N"
                )
            });
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let total = match count {
                Some(n) => n as i64,
                None => number(COUNT_VARIABLE)?.ok_or_else(|| {
                    format!(
                        "JOB_COMPLETION_INDEX is set but the shard count is not: pass --shard-count N or set \
                         {COUNT_VARIABLE} (the Job's completions)"
                    )
                })?,
            };
            return (index >= 0)
                .then(|| Shard::new(index as usize, total.max(0) as usize, ShardSource::Kubernetes))
                .flatten()
                .map(Some)
                .ok_or_else(|| format!("JOB_COMPLETION_INDEX={index} is not below the shard count {total}"));
        }
        Ok(None)
    }

    /// Whether the input with `key` (its bytes: names need not be UTF-8) belongs to this shard.
    pub fn owns(&self, key: impl AsRef<[u8]>) -> bool {
        shard_of(key, self.count) == self.index
    }
}

impl fmt::Display for Shard {
    /// `shard I/N (from SOURCE)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = match self.source {
            ShardSource::Flag => "--shard",
            ShardSource::Slurm => "the Slurm job array",
            ShardSource::Kubernetes => "the Kubernetes Indexed Job",
        };
        write!(f, "shard {}/{} (from {from})", self.index, self.count)
    }
}

/// The shard of `count` that the input with `key` belongs to.
pub fn shard_of(key: impl AsRef<[u8]>, count: usize) -> usize {
    (fnv1a(key.as_ref()) % count.max(1) as u64) as usize
}

/// 64-bit FNV-1a: a fixed, documented hash (unlike `std`'s, which may change between releases).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn keys(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("scans/batch-{}/img_{i:06}.tif", i % 7))
            .collect()
    }

    #[test]
    fn every_input_is_in_exactly_one_shard_and_shards_are_even() {
        let keys = keys(10_000);
        for n in [1, 2, 3, 7, 8, 64] {
            let mut sizes = vec![0usize; n];
            for key in &keys {
                let owners: Vec<usize> = (0..n)
                    .filter(|&i| Shard::new(i, n, ShardSource::Flag).unwrap().owns(key))
                    .collect();
                assert_eq!(owners.len(), 1, "{key} in shards {owners:?} of {n}");
                sizes[owners[0]] += 1;
            }
            let mean = keys.len() as f64 / n as f64;
            for (i, &s) in sizes.iter().enumerate() {
                // Binomial spread: within 5 standard deviations of the mean.
                let sd = (mean * (1.0 - 1.0 / n as f64)).sqrt();
                assert!(
                    (s as f64 - mean).abs() <= 5.0 * sd + 1.0,
                    "shard {i}/{n}: {s} of {}",
                    keys.len()
                );
            }
        }
    }

    #[test]
    fn adding_or_removing_a_file_moves_no_other_file_and_order_does_not_matter() {
        let all = keys(2_000);
        for n in [2, 5, 16] {
            let before: HashMap<&String, usize> = all.iter().map(|k| (k, shard_of(k, n))).collect();
            let mut changed: Vec<String> = all[1..].to_vec();
            changed.push("scans/new/extra.tif".into());
            changed.reverse();
            for key in &changed {
                if let Some(&was) = before.get(key) {
                    assert_eq!(shard_of(key, n), was, "{key} moved");
                }
            }
        }
        // The hash is fixed (FNV-1a), so the split is the same on every machine and release.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn the_flag_parses_and_refuses_nonsense() {
        assert_eq!(
            Shard::parse("3/8").unwrap(),
            Shard {
                index: 3,
                count: 8,
                source: ShardSource::Flag
            }
        );
        for bad in ["8/8", "1", "a/2", "-1/4", "0/0", "1/2/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slurm_and_kubernetes_arrays_are_detected() {
        let none = Shard::from_env(env(&[]), None).unwrap();
        assert_eq!(none, None);
        let slurm = |pairs: &[(&str, &str)]| Shard::from_env(env(pairs), None);
        let s = slurm(&[("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_COUNT", "10")])
            .unwrap()
            .unwrap();
        assert_eq!((s.index, s.count, s.source), (4, 10, ShardSource::Slurm));
        // --array=1-8: the first task is shard 0.
        let s = slurm(&[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "8"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((s.index, s.count), (0, 8));
        // --array=0-30:10 has tasks 0, 10, 20, 30.
        let s = slurm(&[
            ("SLURM_ARRAY_TASK_ID", "20"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "30"),
            ("SLURM_ARRAY_TASK_STEP", "10"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((s.index, s.count), (2, 4));
        assert!(slurm(&[("SLURM_ARRAY_TASK_ID", "3")]).is_err(), "no count");
        assert!(slurm(&[("SLURM_ARRAY_TASK_ID", "x"), ("SLURM_ARRAY_TASK_COUNT", "2")]).is_err());
        // --array=1,3,7: task 7 is not the third of 0..3 in order.
        assert!(
            slurm(&[
                ("SLURM_ARRAY_TASK_ID", "7"),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "3")
            ])
            .is_err()
        );

        let k = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "2"), (COUNT_VARIABLE, "5")]), None)
            .unwrap()
            .unwrap();
        assert_eq!((k.index, k.count, k.source), (2, 5, ShardSource::Kubernetes));
        let k = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "2")]), Some(3))
            .unwrap()
            .unwrap();
        assert_eq!((k.index, k.count), (2, 3));
        assert!(
            Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "2")]), None).is_err(),
            "no count"
        );
        assert!(Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "3")]), Some(3)).is_err());
        // Slurm wins when both are set.
        let both = Shard::from_env(
            env(&[
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "2"),
                ("JOB_COMPLETION_INDEX", "0"),
            ]),
            Some(2),
        )
        .unwrap()
        .unwrap();
        assert_eq!(both.source, ShardSource::Slurm);
    }
}
