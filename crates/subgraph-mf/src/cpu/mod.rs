//! The CPU engine, FPSGD (thesis §3.1, the LIBMF core): a scheduler that hands each thread a
//! free block of the grid (`schedule`), and threads that update their blocks (`fpsgd`).

pub mod fpsgd;
pub mod schedule;

pub use fpsgd::Fpsgd;
pub use schedule::Scheduler;
