//! What the strategies share.

pub mod emit;
pub mod scan;
pub mod tally;
