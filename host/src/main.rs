//! `host`: the command line. Runs and times every convolution variant (the main job), verifies
//! every variant against the CPU reference (`host verify`), processes image files (`--input`), or
//! describes the GPU (`host info`). Each command lives in its own module under [`cli`].

mod cli;

use clap::{CommandFactory as _, FromArgMatches as _};
use cli::args::Cli;
use cli::usage::{self, Given};
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return usage::usage_error(e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage::usage_error(e),
    };
    let given = Given(&matches);
    let outcome = match cli.command {
        None if !cli.main.files.input.is_empty() => cli::files::run(&cli.main, &given),
        None => cli::main_job::run(&cli.main, &given),
        Some(command) => usage::check_no_main_options(&given, &matches).and_then(|()| command.run()),
    };
    usage::exit_code(outcome)
}
