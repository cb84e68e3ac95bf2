//! A task's command-line arguments: a small typed parser that every task uses.
//!
//! A task takes its flags (`--x`), its options with a value (`--x V` or `--x=V`) and its positional
//! arguments, in any order, then calls [`Args::finish`], which rejects whatever is left; or it
//! passes what is left to another program ([`Args::forward`]).

use anyhow::{Result, bail};
use std::fmt::Display;
use std::str::FromStr;

/// The arguments after the task's name, minus those already taken.
pub struct Args {
    task: String,
    given: Vec<String>,
    left: Vec<String>,
}

impl Args {
    pub fn new(task: &str, args: Vec<String>) -> Self {
        Args {
            task: task.to_string(),
            given: args.clone(),
            left: args,
        }
    }

    /// The arguments as given, joined by spaces (for reports that record the command).
    pub fn as_given(&self) -> String {
        self.given.join(" ")
    }

    /// Takes every `name` (a flag without a value); true if there was one.
    pub fn flag(&mut self, name: &str) -> bool {
        let before = self.left.len();
        self.left.retain(|a| a != name);
        self.left.len() != before
    }

    /// Takes `name V` or `name=V` and parses V. `None` if `name` is not there; an error if V is
    /// missing or does not parse.
    pub fn value<T>(&mut self, name: &str) -> Result<Option<T>>
    where
        T: FromStr,
        T::Err: Display,
    {
        let Some(i) = self
            .left
            .iter()
            .position(|a| a == name || a.strip_prefix(name).is_some_and(|r| r.starts_with('=')))
        else {
            return Ok(None);
        };
        let arg = self.left.remove(i);
        let text = match arg.split_once('=') {
            Some((_, v)) => v.to_string(),
            None if i < self.left.len() && !self.left[i].starts_with("--") => self.left.remove(i),
            None => bail!("{name} needs a value"),
        };
        match text.parse() {
            Ok(v) => Ok(Some(v)),
            Err(e) => bail!("{name}: invalid value '{text}' ({e})"),
        }
    }

    /// Takes the first argument that does not start with `-` and parses it as `what`. Call it
    /// after the task's flags and values are taken, so that their values are not mistaken for it.
    pub fn positional<T>(&mut self, what: &str) -> Result<Option<T>>
    where
        T: FromStr,
        T::Err: Display,
    {
        let Some(i) = self.left.iter().position(|a| !a.starts_with('-')) else {
            return Ok(None);
        };
        let text = self.left.remove(i);
        match text.parse() {
            Ok(v) => Ok(Some(v)),
            Err(e) => bail!("{what}: invalid value '{text}' ({e})"),
        }
    }

    /// What is left, unchecked: for tasks that hand their arguments to another program.
    pub fn forward(self) -> Vec<String> {
        self.left
    }

    /// Fails, with one line naming them, if any arguments are left.
    pub fn finish(self) -> Result<()> {
        match self.left.as_slice() {
            [] => Ok(()),
            [one] => bail!(
                "{}: unknown argument {one} (`cargo xtask help` lists them)",
                self.task
            ),
            many => bail!(
                "{}: unknown arguments {} (`cargo xtask help` lists them)",
                self.task,
                many.join(" ")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroUsize;

    fn args(list: &[&str]) -> Args {
        Args::new("t", list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn takes_flags_values_and_positionals_in_any_order() {
        let mut a = args(&["DIR", "--size=8", "--no-x", "--rounds", "3"]);
        assert!(a.flag("--no-x"));
        assert!(!a.flag("--no-y"));
        assert_eq!(a.value::<usize>("--rounds").unwrap(), Some(3));
        assert_eq!(a.value::<usize>("--size").unwrap(), Some(8));
        assert_eq!(a.value::<usize>("--runs").unwrap(), None);
        assert_eq!(a.positional::<String>("DIR").unwrap().as_deref(), Some("DIR"));
        assert_eq!(a.positional::<String>("DIR").unwrap(), None);
        a.finish().unwrap();
    }

    #[test]
    fn reports_missing_and_bad_values_and_leftovers() {
        let mut a = args(&["--size", "--runs"]);
        let e = a.value::<usize>("--size").unwrap_err().to_string();
        assert_eq!(e, "--size needs a value");
        let e = args(&["--size", "0"])
            .value::<NonZeroUsize>("--size")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--size: invalid value '0'"), "{e}");
        let e = args(&["--x", "y"]).finish().unwrap_err().to_string();
        assert_eq!(e, "t: unknown arguments --x y (`cargo xtask help` lists them)");
        let a = args(&["--size", "1", "--other"]);
        assert_eq!(a.as_given(), "--size 1 --other");
        assert_eq!(a.forward(), ["--size", "1", "--other"]);
    }
}
