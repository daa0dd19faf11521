//! The data graph on the device (GSI §IV-A): vertex labels, PCSR per edge label and
//! direction (or the plain CSR baseline of GSI's Table II), the signature table, and for
//! induced matching and GpSM the id-sorted adjacency; or, where it does not fit, SGSI's
//! segments in host memory (§6.1, [`crate::partition`]); and the arguments of its structures
//! for the kernels of `slices.cu` ([`crate::shared::slices`]).

use subgraph_core::{Dir, Graph};
use subgraph_cuda::{DeviceBuffer, Gpu};

use crate::error::{GpuError, Result};
use crate::gsi::pcsr::{ColumnOrder, LabelledCsr, Pcsr};
use crate::gsi::signature::{DeviceSignatureTable, SignatureTable};
use crate::options::{CandidateFilter, GpuOptions, Partitions, Structure};
use crate::partition::{self, PartitionedGraph};
use crate::shared::slices::{structure_mode, DeviceStructure, GraphArgs};

/// The id-sorted adjacency lists of every direction (direction d's n + 1 offsets from
/// d · (n + 1)), each entry's edge label beside it: where GSI's induced matching checks
/// non-edges, and what GpSM reads.
pub(crate) struct SortedAdjacency {
    pub(crate) offsets: DeviceBuffer<u64>,
    pub(crate) columns: DeviceBuffer<u32>,
    pub(crate) labels: DeviceBuffer<u32>,
}

/// The data graph on the device: vertex labels, the join structures and the signature table
/// (uploaded when first needed) and, for induced matching and GpSM, the id-sorted adjacency;
/// or, partitioned, the vertex labels and the segments that fit.
pub struct DeviceGraph {
    pub(crate) labels: DeviceBuffer<u32>,
    pub(crate) partitioned: Option<PartitionedGraph>,
    pub(crate) signatures: Option<DeviceSignatureTable>,
    pub(crate) pcsr: Option<DeviceStructure>,
    pub(crate) csr: Option<DeviceStructure>,
    pub(crate) adjacency: Option<SortedAdjacency>,
}

fn directions(data: &Graph) -> &'static [Dir] {
    if data.is_directed() {
        &[Dir::Out, Dir::In]
    } else {
        &[Dir::Out]
    }
}

impl DeviceGraph {
    /// Uploads `data` for `opts` (its structure, and the signature table where `filter` runs
    /// on the device), partitioned ([`PartitionedGraph`]) where `opts.partitions` says so: under
    /// [`Partitions::Auto`], where the in-core layout would take more than
    /// [`partition::AUTO_SHARE`] of the budget.
    pub(crate) fn open(gpu: &Gpu, data: &Graph, opts: &GpuOptions, filter: CandidateFilter) -> Result<DeviceGraph> {
        let partitioned = match (opts.partitions, opts.structure) {
            (Partitions::Off, _) => None,
            (Partitions::On, Structure::Csr) => return Err(GpuError::Partitioned { what: "the CSR structure" }),
            (Partitions::Auto, Structure::Csr) => None,
            (which, _) => {
                let budget = match opts.device_memory {
                    Some(cap) => cap,
                    None => gpu.headroom()?,
                };
                let in_core = partition::in_core_bytes(data, filter != CandidateFilter::Host);
                let share = (budget as f64 * partition::RESIDENT_SHARE) as u64;
                let resident = opts.resident_bytes.unwrap_or(share.saturating_sub(4 * data.num_vertices() as u64));
                let segment = opts.segment_bytes.unwrap_or_else(|| partition::segment_bytes(budget));
                match which == Partitions::On || in_core as f64 > budget as f64 * partition::AUTO_SHARE {
                    true => Some((segment, resident)),
                    false => None,
                }
            }
        };
        let labels = gpu.upload("vertex labels", data.labels())?;
        let partitioned = match partitioned {
            Some((segment, resident)) => Some(PartitionedGraph::new(gpu, data, segment, resident, opts.pipeline)?),
            None => None,
        };
        let mut graph = DeviceGraph { labels, partitioned, signatures: None, pcsr: None, csr: None, adjacency: None };
        graph.ensure(gpu, data, opts.structure)?;
        if filter != CandidateFilter::Host {
            match &mut graph.partitioned {
                Some(parts) => parts.ensure_table(gpu, data)?,
                None => graph.ensure_signatures(gpu, data).map(drop)?,
            }
        }
        Ok(graph)
    }

    /// The kernel arguments of `which` (uploaded already, or `aux`, a query's A, under
    /// [`Structure::Aux`]) over a graph of `nverts` vertices; the placeholders stand in for the
    /// id-sorted adjacency when it is not uploaded.
    pub(crate) fn args<'b>(
        &'b self,
        which: Structure,
        aux: Option<&'b DeviceStructure>,
        nverts: u32,
        dummy64: &'b DeviceBuffer<u64>,
        dummy32: &'b DeviceBuffer<u32>,
    ) -> Result<GraphArgs<'b>> {
        // Without a query's A (a plan with nothing to join), its base structure.
        let (st, which) = match (which, aux) {
            (Structure::Aux, Some(aux)) => (Some(aux), Structure::Aux),
            (which, _) => (self.structure(which), which.base()),
        };
        let st = st.ok_or_else(|| GpuError::Mismatch("structure not uploaded".into()))?;
        let adjacency = self.adjacency.as_ref();
        Ok(GraphArgs {
            st,
            labels: &self.labels,
            adj_off: adjacency.map_or(dummy64, |a| &a.offsets),
            adj_col: adjacency.map_or(dummy32, |a| &a.columns),
            mode: structure_mode(which),
            nverts,
        })
    }

    /// The arguments of a segment of a partitioned graph (PCSR mode).
    pub(crate) fn segment_args<'b>(
        &'b self,
        st: &'b DeviceStructure,
        nverts: u32,
        dummy64: &'b DeviceBuffer<u64>,
        dummy32: &'b DeviceBuffer<u32>,
    ) -> GraphArgs<'b> {
        GraphArgs { st, labels: &self.labels, adj_off: dummy64, adj_col: dummy32, mode: 0, nverts }
    }

    pub(crate) fn structure(&self, which: Structure) -> Option<&DeviceStructure> {
        match which.base() {
            Structure::Csr => self.csr.as_ref(),
            _ => self.pcsr.as_ref(),
        }
    }

    /// Uploads `which` (its base) unless present; nothing when the graph is partitioned (its
    /// queries read the segments).
    pub(crate) fn ensure(&mut self, gpu: &Gpu, data: &Graph, which: Structure) -> Result<()> {
        if self.structure(which).is_some() || self.partitioned.is_some() {
            return Ok(());
        }
        let csr = which.base() == Structure::Csr;
        let mut groups = Vec::new();
        let mut meta = Vec::new();
        let mut columns = Vec::new();
        let mut elabels = Vec::new();
        if csr {
            for &dir in directions(data) {
                let csr = LabelledCsr::build(data, dir)?;
                let base = columns.len() as u64;
                meta.extend(csr.offsets().iter().map(|&o| base + o as u64));
                columns.extend_from_slice(csr.columns());
                elabels.extend_from_slice(csr.edge_labels());
            }
        } else {
            for p in Pcsr::build_all(data, ColumnOrder::ByNeighbourLabel)? {
                meta.extend([groups.len() as u64, p.num_groups() as u64, columns.len() as u64]);
                groups.extend_from_slice(p.groups());
                columns.extend_from_slice(p.columns());
            }
        }
        let s = DeviceStructure {
            groups: gpu.upload("PCSR groups", &groups)?,
            meta: gpu.upload("structure offsets", &meta)?,
            columns: gpu.upload("structure columns", &columns)?,
            elabels: gpu.upload("CSR edge labels", &elabels)?,
        };
        match csr {
            true => self.csr = Some(s),
            false => self.pcsr = Some(s),
        }
        Ok(())
    }

    /// Builds and uploads the signature table unless present.
    pub(crate) fn ensure_signatures(&mut self, gpu: &Gpu, data: &Graph) -> Result<&DeviceSignatureTable> {
        if self.signatures.is_none() {
            self.signatures = Some(SignatureTable::build(data)?.upload(gpu)?);
        }
        self.signatures.as_ref().ok_or_else(|| GpuError::Mismatch("signature table not uploaded".into()))
    }

    /// Uploads the id-sorted adjacency of every direction, with edge labels, unless present.
    pub(crate) fn ensure_adjacency(&mut self, gpu: &Gpu, data: &Graph) -> Result<()> {
        if self.adjacency.is_none() {
            let mut offsets = Vec::new();
            let mut entries: Vec<(u32, u32)> = Vec::new();
            for &dir in directions(data) {
                for v in 0..data.num_vertices() as u32 {
                    offsets.push(entries.len() as u64);
                    let start = entries.len();
                    for (pair, nbrs) in data.neighbor_groups(v, dir) {
                        let edge_label = data.pair(pair).0;
                        entries.extend(nbrs.iter().map(|&w| (w, edge_label)));
                    }
                    entries[start..].sort_unstable();
                }
                offsets.push(entries.len() as u64);
            }
            let (columns, labels): (Vec<u32>, Vec<u32>) = entries.into_iter().unzip();
            self.adjacency = Some(SortedAdjacency {
                offsets: gpu.upload("adjacency offsets", &offsets)?,
                columns: gpu.upload("adjacency columns", &columns)?,
                labels: gpu.upload("adjacency edge labels", &labels)?,
            });
        }
        Ok(())
    }
}
