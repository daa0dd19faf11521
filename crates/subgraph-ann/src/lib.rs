//! subgraph-ann: k-nearest-neighbour vector search over proximity graphs, after Yu's thesis,
//! ch. 4 (`../shared/papers/thesis-fsig.md` §2). A search flows build → index → search:
//! vectors (`vectors`, read by `formats`, made by `gen`) are joined into a proximity graph
//! (`graph`) by a builder (GGraphCon's divide and conquer, on the GPU in `gpu` or on every core
//! in `cpu`), held with the vectors in an index (`index`, saved by `file`), and searched (GANNS
//! on the GPU, best-first on the CPU), or answered exactly by brute force (`brute`), under an
//! optional filter (`filter`), into `neighbours`.
//!
//! Modules import in one direction only: `error` → `vectors` → `gen`, `graph`, `filter`,
//! `neighbours` → `formats`, `brute` → `cpu` → `gpu` (whose builder shares the CPU's
//! shuffle, layers and connectivity pass) → `index` → `file`, `engine` (which chooses the
//! device).

pub mod brute;
pub mod cpu;
pub mod engine;
pub mod error;
pub mod file;
pub mod filter;
pub mod formats;
pub mod gen;
pub mod gpu;
pub mod graph;
pub mod index;
pub mod neighbours;
pub mod vectors;

pub use cpu::{BuildParams, Prune};
pub use engine::{Device, Engine};
pub use error::{AnnError, Result};
pub use filter::Allowed;
pub use formats::{read_ids, read_labels, read_vectors, IdRows};
pub use gen::{clustered, clustered_stream, GenSpec};
pub use graph::{GraphKind, Layer, ProximityGraph, NONE};
pub use index::{Filter, Index};
pub use neighbours::{recall, Neighbours, Precision, SearchParams};
pub use vectors::{Metric, Vectors};
