//! What a convolution is about, independent of where it runs: images, filters, borders and the
//! problem they make together.

pub mod border;
pub mod filter;
pub mod image;
pub mod problem;
