//! What the strategies share.

pub mod emit;
pub mod levels;
pub mod report;
pub mod scan;
pub mod slices;
pub mod tally;
