//! Image files and the process around them: decoding, encoding, safe writes, and interruption.

pub mod files;
pub mod interrupt;
