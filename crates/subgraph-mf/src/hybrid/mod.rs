//! HSGD* (thesis §3.2): the CPU's threads and the GPUs train at once. The cost model (`cost`)
//! fitted on this machine (`profile`) gives the GPUs' share; the ratings are divided
//! (`division`); threads and GPU drivers take blocks from a shared board (`board`) in a run
//! (`run`). HSGD, the baseline, is the same run on a uniform grid. `halves` keeps the split of
//! the rows but runs an epoch in two phases over halves of the items, the split following the
//! measured speeds (the default on one GPU). `rotation` runs several GPUs alone the same way,
//! each GPU's rows resident and the blocks of items passed round.

pub mod board;
pub mod cost;
pub mod division;
pub mod halves;
pub mod profile;
pub mod rotation;
pub mod run;

pub use run::Hybrid;
