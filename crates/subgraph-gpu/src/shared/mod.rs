//! What the strategies share, below all of them: what a query reports (`report`), the limit its
//! devices share (`tally`), what its finished rows become (`emit`), what the kernels read about
//! each plan position (`levels`) and about the data graph (`slices`, beside `slices.cu`), and the
//! device prefix sum (`scan`, beside `scan.cu`).

pub mod emit;
pub mod levels;
pub mod report;
pub mod scan;
pub mod slices;
pub mod tally;
