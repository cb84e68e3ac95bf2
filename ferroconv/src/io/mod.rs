//! Image files and the process around them: decoding, encoding, safe writes, interruption, and
//! the shards of a batch spread over many machines.

pub mod files;
#[doc(hidden)]
#[cfg(feature = "cli")]
pub mod inputs;
#[doc(hidden)]
pub mod interrupt;
#[doc(hidden)]
#[cfg(feature = "cli")]
pub mod shard;
