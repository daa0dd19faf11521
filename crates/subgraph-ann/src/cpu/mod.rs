//! The CPU engine: best-first search of a proximity graph on every core (`search`) and
//! GGraphCon's divide-and-conquer construction run with rayon (`build`), so that a machine
//! without a GPU builds the same kind of graph and answers the same queries.

mod backward;
pub mod build;
mod connect;
pub mod search;

pub(crate) use backward::BackwardEdges;
pub use build::{build, extend, layer_lengths, shuffled, BuildParams, Built, Prune, MAX_DEGREE};
pub(crate) use build::{lap, localize};
pub(crate) use connect::connect;
pub use search::search;
