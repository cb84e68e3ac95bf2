mod locked_box;
mod locked_buffer;

pub use locked_box::*;
pub use locked_buffer::*;
