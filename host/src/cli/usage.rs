//! Usage errors and exit codes: a rejected command line (exit 2; also a `--cval` the images'
//! type cannot hold), options given where they do nothing, and the exit code of a run's outcome
//! (1, or 128 + the signal that interrupted it).

use super::args::MainArgs;
use super::interrupt::Interrupted;
use super::json;
use anyhow::{Result, bail};
use ferroconv::{Border, DType};
use std::process::ExitCode;

/// Which options the command line gave (not their defaults).
pub struct Given<'a>(pub &'a clap::ArgMatches);

impl Given<'_> {
    pub fn has(&self, id: &str) -> bool {
        self.0.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    }
}

/// A command line the parser rejects: one `error:` line (with clap's tips) and exit code 2; with
/// `--json`, also the failure document on stdout. Help and version print as usual.
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = match (e.kind(), e.get(clap::error::ContextKind::InvalidSubcommand)) {
        // A path after the options, as `host -i a.png -o out/ b.png`: not a subcommand.
        (ErrorKind::InvalidSubcommand, Some(value)) => format!(
            "error: '{value}' is not a subcommand (bench, verify, info, sanitize, soak, cpu-time): put every input \
             after -i (-i a.png b.png) and the output after -o"
        ),
        _ => e.render().to_string(),
    };
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("the command line could not be parsed");
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let rest: Vec<&str> = lines.collect();
    if e.kind() == ErrorKind::MissingRequiredArgument {
        // clap lists the missing arguments on the lines below its first.
        let missing: Vec<&str> = rest
            .iter()
            .copied()
            .filter(|l| l.starts_with(['-', '<']))
            .collect();
        message.push(' ');
        message.push_str(&missing.join(", "));
    }
    for tip in rest.iter().filter_map(|l| l.strip_prefix("tip: ")) {
        message.push_str("; ");
        message.push_str(tip);
    }
    message.push_str(" (see --help)");
    if std::env::args().any(|a| a == "--json") {
        json::print_failure(&message, None);
    }
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Refuses the main job's and the files' options before a subcommand (`host --mask 3 verify`),
/// which does not read them.
pub fn check_no_main_options(given: &Given, matches: &clap::ArgMatches) -> Result<()> {
    let sub = matches.subcommand_name().unwrap_or("?");
    let command = <MainArgs as clap::Args>::augment_args(clap::Command::new("host"));
    for arg in command.get_arguments() {
        if given.has(arg.get_id().as_str()) {
            let name = arg
                .get_long()
                .map_or_else(|| arg.get_id().to_string(), |l| format!("--{l}"));
            bail!(
                "{name} applies to the main job and to image files, not to `host {sub}` (see host {sub} --help)"
            );
        }
    }
    Ok(())
}

/// A command-line value that the parser takes but the run cannot (a `--cval` that the images'
/// sample type cannot hold): one `error:` line naming the option and exit code 2, as the
/// parser's own errors.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Whether images of `dtype` can take `border` (a `--cval` in their levels); else a
/// [`UsageError`] naming `--cval` and saying why (`whose` names the images: `--dtype u8`, a file).
/// `cval` is the value as given: `border` holds its f32, which can round a fraction away
/// (`--cval 3.0000000001`, `--cval 1e-300`), so an integer type's levels are checked on it.
pub fn check_cval(border: Border, cval: Option<f64>, dtype: DType, whose: &str) -> Result<()> {
    let Border::Constant(v) = border else {
        return Ok(());
    };
    let given = cval.unwrap_or(f64::from(v));
    let why = match (border.check(dtype), dtype.levels()) {
        (Err(e), _) => e.to_string(),
        (Ok(()), Some(max)) if given.fract() != 0.0 || !(0.0..=max).contains(&given) => format!(
            "the border's constant {given} is not a level of {} samples (a whole number from 0 to {max})",
            dtype.suffix()
        ),
        _ => return Ok(()),
    };
    Err(UsageError(format!(
        "--cval {given} does not fit {whose}: {why}; --cval is in levels of the sample type filtered, \
         as OpenCV's borderValue is"
    ))
    .into())
}

/// The exit code of a run: 0; after an error (printed here, on one line), 128 + the signal that
/// interrupted it, 2 for a [`UsageError`], else 1.
pub fn exit_code(outcome: Result<()>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, even when a cause (such as a JIT log) spans several.
            eprintln!("error: {}", ferroconv::io::files::one_line(&format!("{e:#}")));
            match e.downcast_ref::<Interrupted>() {
                Some(Interrupted(signal)) => {
                    ExitCode::from(ferroconv::io::interrupt::exit_code(*signal).clamp(1, 255) as u8)
                }
                None if e.downcast_ref::<UsageError>().is_some() => ExitCode::from(2),
                None => ExitCode::FAILURE,
            }
        }
    }
}
