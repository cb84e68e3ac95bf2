//! The command line of the `host` binary: clap's argument structs, one module per command, and
//! the pieces they share (value parsers, tables, JSON output, usage errors and exit codes,
//! interruption). clap is used here only, not in the library.

pub mod api_bench;
pub mod args;
pub mod bench;
pub mod cpu_time;
pub mod files;
pub mod gpu;
pub mod info;
pub mod interrupt;
pub mod json;
pub mod main_job;
pub mod merge;
pub mod names;
pub mod sanitize;
pub mod scale;
pub mod soak;
pub mod table;
pub mod usage;
pub mod values;
pub mod verify;
