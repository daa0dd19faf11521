//! HSGD* (thesis §3.2): the CPU's threads and the GPUs train at once, the ratings split between
//! them by a fitted cost model (`cost`).

pub mod board;
pub mod cost;
pub mod division;
