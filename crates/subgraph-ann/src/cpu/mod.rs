//! The CPU engine: best-first search of a proximity graph on every core (`search`) and
//! GGraphCon's divide-and-conquer construction run with rayon (`build`), so that a machine
//! without a GPU builds the same kind of graph and answers the same queries.

pub mod build;
pub mod search;

pub(crate) use build::{backward_edges, connect, lap, localize};
pub use build::{build, extend, layer_lengths, shuffled, BuildParams, Built, Prune, MAX_DEGREE};
pub use search::search;
