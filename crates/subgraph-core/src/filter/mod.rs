//! Candidate filters, interchangeable by name (Sun & Luo §4): LDF (label and degree), NLF
//! (neighbour label frequency), GQL (GraphQL's profile plus semi-perfect-matching refinement),
//! CS (CFL / DP-iso style arc-consistency refinement of the candidate space) and `auto` (GQL's
//! refinement where it pays: see [`Filter::Auto`]).

mod bitset;
mod refine;

pub use bitset::Bitset;

use crate::graph::{Dir, Graph};
use crate::query::{Query, Semantics};
use crate::sink::Control;
use rayon::prelude::*;

/// Candidates per parallel piece of work: below this, splitting costs more than it saves.
const PAR_MIN: usize = 512;

/// Candidate vertices of each query vertex, sorted by id.
pub type Candidates = Vec<Vec<u32>>;

/// A candidate filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Same label, enough in- and out-degree.
    Ldf,
    /// LDF plus, for each (direction, edge label, neighbour label), enough neighbours.
    Nlf,
    /// NLF plus GraphQL's global refinement: the query vertex's neighbours must have a
    /// semi-perfect matching into the data vertex's candidate neighbours.
    Gql,
    /// NLF plus arc consistency: every query edge must have a candidate edge, repeated to a
    /// fixed point (CFL / DP-iso candidate space).
    Cs,
    /// GQL, whose refinement the CPU pipeline defers where it would cost more than the query
    /// (`pipeline::prepare`): the query first runs over the NLF candidates for as long as the
    /// refinement is predicted to take, and is refined only if that does not finish it.
    /// Everywhere else (`run`, the GPU's host filter, `explain`) it is GQL.
    Auto,
}

impl Filter {
    pub const NAMES: &'static [&'static str] = &["ldf", "nlf", "gql", "cs", "auto"];

    pub fn from_name(name: &str) -> Option<Filter> {
        match name {
            "ldf" => Some(Filter::Ldf),
            "nlf" => Some(Filter::Nlf),
            "gql" | "graphql" => Some(Filter::Gql),
            "cs" | "dpiso" | "cfl" => Some(Filter::Cs),
            "auto" => Some(Filter::Auto),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Filter::Ldf => "ldf",
            Filter::Nlf => "nlf",
            Filter::Gql => "gql",
            Filter::Cs => "cs",
            Filter::Auto => "auto",
        }
    }

    /// The filter that [`Filter::run`] applies: GQL for `auto`, else itself.
    pub fn applied(self) -> Filter {
        match self {
            Filter::Auto => Filter::Gql,
            f => f,
        }
    }

    /// The candidate sets of every query vertex. An empty set means no match exists. Once
    /// `control` says stop, the filter keeps what it has not yet tested: the sets stay
    /// supersets of the true matches, only weaker.
    pub fn run(self, data: &Graph, query: &Query, semantics: Semantics, control: &Control) -> Candidates {
        let mut cands = self.local(data, query, semantics, control);
        self.refine(data, query, semantics, &mut cands, control);
        cands
    }

    /// The local pass: LDF for `ldf`, NLF for every other filter, within each query vertex's
    /// restriction (`Query::allows`, applied whether stopped or not: the engines check
    /// restrictions only here).
    pub fn local(self, data: &Graph, query: &Query, semantics: Semantics, control: &Control) -> Candidates {
        let profiles: Vec<Option<Profile>> =
            (0..query.num_vertices() as u32).map(|u| Profile::new(data, query, u, semantics)).collect();
        let cands: Candidates = profiles
            .iter()
            .enumerate()
            .map(|(u, p)| match p {
                None => Vec::new(),
                Some(p) => {
                    let mut c = keep_while_running(data.vertices_with_label(query.label(u as u32)), control, |v| {
                        p.degrees_fit(data, v) && (self == Filter::Ldf || p.neighbours_fit(data, v))
                    });
                    if query.graph().allowed(u as u32).is_some() {
                        c.retain(|&v| query.allows(u as u32, v));
                    }
                    c
                }
            })
            .collect();
        emptied_if_any_empty(cands)
    }

    /// The global refinement of candidates from [`Filter::local`]: GraphQL's for `gql` and
    /// `auto`, arc consistency for `cs`, none for `ldf` and `nlf`. Stopped by `control`, it
    /// keeps the candidates it has not yet checked.
    pub fn refine(self, data: &Graph, query: &Query, semantics: Semantics, cands: &mut Candidates, control: &Control) {
        if cands.iter().any(Vec::is_empty) {
            return;
        }
        match self {
            Filter::Ldf | Filter::Nlf => {}
            Filter::Gql | Filter::Auto => refine::graphql(data, query, semantics, cands, control),
            Filter::Cs => refine::arc_consistency(data, query, cands, control),
        }
        *cands = emptied_if_any_empty(std::mem::take(cands));
    }

    /// The checks one pass of the global refinement makes over `cands`: a candidate for each
    /// query edge at it (the refinement's cost, before it runs).
    pub fn refine_checks(query: &Query, cands: &Candidates) -> f64 {
        cands.iter().enumerate().map(|(u, c)| c.len() as f64 * query.edges(u as u32).len() as f64).sum()
    }
}

/// The vertices of `items` that pass `keep`, in order, tested in parallel pieces: once
/// `control` says stop (it is asked once per piece), the pieces not yet tested are kept whole.
fn keep_while_running(items: &[u32], control: &Control, keep: impl Fn(u32) -> bool + Sync) -> Vec<u32> {
    let keep = &keep;
    items
        .par_chunks(PAR_MIN)
        .flat_map_iter(|piece| {
            let stopped = control.should_stop();
            piece.iter().copied().filter(move |&v| stopped || keep(v))
        })
        .collect()
}

/// No candidates at all when some query vertex has none (no match exists).
fn emptied_if_any_empty(mut cands: Candidates) -> Candidates {
    if cands.iter().any(Vec::is_empty) {
        cands.iter_mut().for_each(Vec::clear);
    }
    cands
}

/// What a data vertex needs to host query vertex u: degrees and, per (direction, data pair id),
/// a number of neighbours.
struct Profile {
    out_degree: u32,
    in_degree: u32,
    groups: Vec<(Dir, u32, u32)>,
}

impl Profile {
    /// None when some query edge's (edge label, neighbour label) occurs nowhere in the data.
    fn new(data: &Graph, query: &Query, u: u32, semantics: Semantics) -> Option<Profile> {
        let mut groups: Vec<(Dir, u32, u32)> = Vec::new();
        let (mut out_degree, mut in_degree) = (0, 0);
        for e in query.edges(u) {
            let pair = data.pair_id(e.label, query.label(e.to))?;
            match e.dir {
                Dir::Out => out_degree += 1,
                Dir::In => in_degree += 1,
            }
            match groups.iter_mut().find(|g| g.0 == e.dir && g.1 == pair) {
                Some(g) => g.2 += 1,
                None => groups.push((e.dir, pair, 1)),
            }
        }
        if !semantics.injective() {
            // Several query neighbours may share one data neighbour: one is enough.
            groups.iter_mut().for_each(|g| g.2 = 1);
            out_degree = out_degree.min(1);
            in_degree = in_degree.min(1);
        }
        Some(Profile { out_degree, in_degree, groups })
    }

    fn degrees_fit(&self, data: &Graph, v: u32) -> bool {
        data.degree(v, Dir::Out) >= self.out_degree
            && (!data.is_directed() || data.degree(v, Dir::In) >= self.in_degree)
    }

    fn neighbours_fit(&self, data: &Graph, v: u32) -> bool {
        self.groups.iter().all(|&(dir, pair, need)| data.neighbors_by_pair(v, dir, pair).len() as u32 >= need)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn graph(labels: &[u32], edges: &[(u32, u32)]) -> Graph {
        let mut b = GraphBuilder::new(labels.len(), false);
        b.set_labels(labels.to_vec());
        edges.iter().for_each(|&(u, v)| b.add_edge(u, v, 0));
        b.build().0
    }

    #[test]
    fn filters_get_stronger() {
        // Data: a triangle 0-1-2 (labels a a b) plus a path 3-4-5 (a a b) with a pendant 6 (b).
        let data = graph(&[0, 0, 1, 0, 0, 1, 1], &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 6)]);
        // Query: triangle a a b.
        let q = Query::new(graph(&[0, 0, 1], &[(0, 1), (1, 2), (0, 2)]), &data, Semantics::Embed).unwrap();
        let ldf = Filter::Ldf.run(&data, &q, Semantics::Embed, &Control::unlimited());
        assert_eq!(ldf[0], vec![0, 1, 3, 4]);
        assert_eq!(ldf[2], vec![2]);
        let nlf = Filter::Nlf.run(&data, &q, Semantics::Embed, &Control::unlimited());
        assert_eq!(nlf[0], vec![0, 1, 3, 4]);
        for f in [Filter::Gql, Filter::Cs, Filter::Auto] {
            let c = f.run(&data, &q, Semantics::Embed, &Control::unlimited());
            assert_eq!(c, vec![vec![0, 1], vec![0, 1], vec![2]], "{f:?}");
        }
    }

    #[test]
    fn a_stopped_filter_keeps_what_it_did_not_test() {
        let data = graph(&[0, 0, 1, 0, 0, 1, 1], &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 6)]);
        let q = Query::new(graph(&[0, 0, 1], &[(0, 1), (1, 2), (0, 2)]), &data, Semantics::Embed).unwrap();
        let expired = Control::new(Some(std::time::Instant::now()), Default::default());
        // Every vertex of the label stays, even 5 and 6 that LDF's degrees drop.
        let by_label = vec![vec![0, 1, 3, 4], vec![0, 1, 3, 4], vec![2, 5, 6]];
        for f in [Filter::Ldf, Filter::Nlf, Filter::Gql, Filter::Cs, Filter::Auto] {
            assert_eq!(f.run(&data, &q, Semantics::Embed, &expired), by_label, "{f:?}");
        }
        // A refinement stopped before it starts leaves its input as it was.
        let mut nlf = Filter::Nlf.run(&data, &q, Semantics::Embed, &Control::unlimited());
        let before = nlf.clone();
        Filter::Gql.refine(&data, &q, Semantics::Embed, &mut nlf, &expired);
        assert_eq!(nlf, before);
    }

    #[test]
    fn missing_label_pair_empties_everything() {
        let data = graph(&[0, 0], &[(0, 1)]);
        let q = Query::new(graph(&[0, 7], &[(0, 1)]), &data, Semantics::Embed).unwrap();
        for &f in &[Filter::Ldf, Filter::Nlf, Filter::Gql, Filter::Cs, Filter::Auto] {
            assert!(f.run(&data, &q, Semantics::Embed, &Control::unlimited()).iter().all(Vec::is_empty));
        }
    }

    #[test]
    fn homomorphism_relaxes_counts() {
        // A star with two leaves maps onto a single edge under homomorphism only.
        let data = graph(&[0, 1], &[(0, 1)]);
        let q = Query::new(graph(&[0, 1, 1], &[(0, 1), (0, 2)]), &data, Semantics::Homomorphism).unwrap();
        for &f in &[Filter::Ldf, Filter::Nlf, Filter::Gql, Filter::Cs, Filter::Auto] {
            assert_eq!(
                f.run(&data, &q, Semantics::Homomorphism, &Control::unlimited()),
                vec![vec![0], vec![1], vec![1]]
            );
            assert!(f.run(&data, &q, Semantics::Embed, &Control::unlimited()).iter().all(Vec::is_empty));
        }
    }
}
