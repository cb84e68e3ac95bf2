//! Which GPUs a run uses (`--gpus all|N|LIST`), among the visible ones (the driver applies
//! `CUDA_VISIBLE_DEVICES` and numbers the visible GPUs from 0).

use crate::{Error, Result};

/// The GPUs asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum GpuSelection {
    /// Every visible GPU (the default).
    #[default]
    All,
    /// The first `n`.
    First(usize),
    /// These, by number, in this order.
    List(Vec<usize>),
}

impl GpuSelection {
    /// `all`, a count `N` (the first N GPUs), or a comma-separated list of GPU numbers `0,2`
    /// (a list of one number is written with a trailing comma: `1,`).
    pub fn parse(text: &str) -> std::result::Result<GpuSelection, String> {
        let bad =
            || format!("--gpus {text}: expected all, a count (2), or a list of GPU numbers (0,2 or 1,)");
        let text = text.trim();
        if text == "all" {
            return Ok(GpuSelection::All);
        }
        if !text.contains(',') {
            return match text.parse::<usize>() {
                Ok(0) | Err(_) => Err(bad()),
                Ok(n) => Ok(GpuSelection::First(n)),
            };
        }
        let list = text
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.trim().parse::<usize>().map_err(|_| bad()))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        if list.is_empty() {
            return Err(bad());
        }
        Ok(GpuSelection::List(list))
    }

    /// The GPU numbers selected among `count` visible GPUs.
    pub fn resolve(&self, count: usize) -> Result<Vec<usize>> {
        let refuse = |why: String| Err(Error::InvalidRequest(why));
        match self {
            GpuSelection::All => Ok((0..count).collect()),
            GpuSelection::First(n) if *n > count => {
                refuse(format!("--gpus {n}: only {count} GPU(s) are visible"))
            }
            GpuSelection::First(n) => Ok((0..*n).collect()),
            GpuSelection::List(list) => {
                if let Some(&bad) = list.iter().find(|&&g| g >= count) {
                    return refuse(format!(
                        "--gpus: there is no GPU {bad}; {count} are visible, numbered from 0 (after CUDA_VISIBLE_DEVICES)"
                    ));
                }
                let mut seen = list.clone();
                seen.sort_unstable();
                seen.dedup();
                if seen.len() != list.len() {
                    return refuse("--gpus: a GPU is listed twice".into());
                }
                Ok(list.clone())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_parse_and_resolve_against_the_visible_count() {
        let p = |t: &str| GpuSelection::parse(t);
        assert_eq!(p("all").unwrap(), GpuSelection::All);
        assert_eq!(p("2").unwrap(), GpuSelection::First(2));
        assert_eq!(p("0,2").unwrap(), GpuSelection::List(vec![0, 2]));
        assert_eq!(p("1,").unwrap(), GpuSelection::List(vec![1]));
        for bad in ["0", "", "x", ",", "1,a", "-1"] {
            assert!(p(bad).is_err(), "{bad}");
        }
        assert_eq!(GpuSelection::All.resolve(4).unwrap(), [0, 1, 2, 3]);
        assert_eq!(GpuSelection::First(2).resolve(4).unwrap(), [0, 1]);
        assert!(GpuSelection::First(3).resolve(2).is_err());
        assert_eq!(GpuSelection::List(vec![3, 1]).resolve(4).unwrap(), [3, 1]);
        assert!(GpuSelection::List(vec![4]).resolve(4).is_err());
        assert!(GpuSelection::List(vec![1, 1]).resolve(4).is_err());
    }
}
