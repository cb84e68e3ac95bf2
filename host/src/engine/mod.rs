//! Where the command line's images are convolved: the engines of its batches, `host scale` and
//! `host soak` (the CPU, or plans on one GPU or several sharing an image's strips), and the fault
//! injection its reliability tests use.

pub mod fault;
pub mod recycle;
pub mod runner;
pub mod trace;
