//! The labelled graph: CSR adjacency whose neighbour lists are grouped by (edge label, neighbour
//! label) and sorted by id inside each group, so N(v, edge label, neighbour label) is one slice
//! (the layout GSI's PCSR hashes on the device, GSI §IV-A; the label grouping of Sun & Luo §3).
//! The graph is `csr`; the rest build it (`builder`), renumber it (`renumber`), store its arrays
//! (`array`) and carry what a file gives beside the structure (`ids`, `names`, `properties`)
//! and the sets behind the labels of vertices with several labels and pairs with several edges
//! (`sets`).

mod array;
mod builder;
mod csr;
mod ids;
mod names;
mod properties;
mod renumber;
mod sets;

pub(crate) use array::map as map_file;
pub use array::Array;
pub use builder::{BuildStats, GraphBuilder};
pub use csr::{Adjacency, Dir, Graph};
pub use ids::{Id, VertexIds};
pub use names::LabelNames;
pub use properties::{Column, Properties, Value, Values};
pub use sets::{edge_members, holds_all, vertex_members, LabelSets};
