//! subgraph-ann: k-nearest-neighbour vector search over proximity graphs, after Yu's thesis,
//! ch. 4 (`../shared/papers/thesis-fsig.md` §2). A search flows build → index → search:
//! vectors (`vectors`, read by `formats`, made by `gen`) are joined into a proximity graph
//! (`graph`) by a builder (GGraphCon's divide and conquer, on the GPU in `gpu` or on every core
//! in `cpu`), held with the vectors in an index (`index`, saved by `file`), and searched (GANNS
//! on the GPU, best-first on the CPU), or answered exactly by brute force (`brute`), under an
//! optional filter (`filter`), into `neighbours`.
//!
//! Modules import in one direction only: `error` → `vectors` → `graph`, `filter`,
//! `neighbours` → `brute` → `cpu`, `gpu` → `index` → `file`.

pub mod error;
pub mod filter;
pub mod gpu;
pub mod graph;
pub mod neighbours;
pub mod vectors;

pub use error::{AnnError, Result};
pub use filter::Allowed;
pub use graph::{GraphKind, Layer, ProximityGraph, NONE};
pub use neighbours::{recall, Neighbours, SearchParams};
pub use vectors::{Metric, Vectors};
