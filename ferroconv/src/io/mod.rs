//! Image files and the process around them: decoding, encoding, safe writes, interruption, and
//! the shards of a batch spread over many machines.

pub mod files;
pub mod inputs;
pub mod interrupt;
pub mod shard;
