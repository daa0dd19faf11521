//! Candidate filters, interchangeable by name (Sun & Luo §4): LDF (label and degree), NLF
//! (neighbour label frequency), GQL (GraphQL's profile plus semi-perfect-matching refinement),
//! CS (CFL / DP-iso style arc-consistency refinement of the candidate space) and `auto` (GQL's
//! refinement where it pays: see [`Filter::Auto`]).

mod candidates;
mod refine;

pub use crate::bitset::Bitset;
pub use candidates::Candidates;

use crate::graph::{Dir, Graph};
use crate::query::{Query, Semantics};
use crate::sink::Control;
use candidates::PAR_MIN;
use rayon::prelude::*;

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
    /// restrictions only here). The data vertices of a label are read once for all the query
    /// vertices of that label (`LabelPass`).
    pub fn local(self, data: &Graph, query: &Query, semantics: Semantics, control: &Control) -> Candidates {
        emptied_if_any_empty(self.local_within(data, query, semantics, None, control))
    }

    /// [`Filter::local`] over the data vertices `within` accepts (all when None), each query vertex's set
    /// left as it is when another's is empty: for a graph whose adjacency lists are whole at
    /// those vertices only, a cluster process's part (subgraph-cluster), whose sets are united
    /// with the other processes' before any is known to be empty.
    pub fn local_within(
        self,
        data: &Graph,
        query: &Query,
        semantics: Semantics,
        within: Option<&(dyn Fn(u32) -> bool + Sync)>,
        control: &Control,
    ) -> Candidates {
        let n = query.num_vertices() as u32;
        let profiles: Vec<Option<Profile>> = (0..n).map(|u| Profile::new(data, query, u, semantics)).collect();
        let mut labels: Vec<u32> = (0..n).filter(|&u| profiles[u as usize].is_some()).map(|u| query.label(u)).collect();
        labels.sort_unstable();
        labels.dedup();
        let mut cands: Candidates = vec![Vec::new(); n as usize];
        for label in labels {
            let of_label: Vec<(u32, &Profile)> = (0..n)
                .filter(|&u| query.label(u) == label)
                .filter_map(|u| profiles[u as usize].as_ref().map(|p| (u, p)))
                .collect();
            let pass = LabelPass::new(data, &of_label, self == Filter::Ldf);
            let all = data.vertices_with_label(label);
            let items: std::borrow::Cow<[u32]> = match within {
                None => all.into(),
                Some(within) => all.iter().copied().filter(|&v| within(v)).collect::<Vec<u32>>().into(),
            };
            for ((u, _), mut c) in of_label.iter().zip(pass.run(&items, control)) {
                if query.graph().allowed(*u).is_some() {
                    c.retain(|&v| query.allows(*u, v));
                }
                cands[*u as usize] = c;
            }
        }
        cands
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
            Filter::Gql | Filter::Auto => refine::graphql(data, query, semantics, cands, None, control),
            Filter::Cs => refine::arc_consistency(data, query, cands, control),
        }
        *cands = emptied_if_any_empty(std::mem::take(cands));
    }

    /// GraphQL's refinement ([`Filter::Gql`]) of the candidates `within` accepts, the others
    /// kept as they are, and no set emptied because another is: sound for a graph whose
    /// adjacency lists are whole at the vertices within, when `cands` are supersets of the
    /// true sets everywhere else (a cluster process's part, with the candidates the other
    /// processes found; subgraph-cluster). Where an edge's label pair occurs nowhere in
    /// `data`, nothing is refined.
    pub fn refine_gql_within(
        data: &Graph,
        query: &Query,
        semantics: Semantics,
        cands: &mut Candidates,
        within: &(dyn Fn(u32) -> bool + Sync),
        control: &Control,
    ) {
        if cands.iter().all(|c| !c.is_empty()) {
            refine::graphql(data, query, semantics, cands, Some(within), control);
        }
    }

    /// The checks one pass of the global refinement makes over `cands`: a candidate for each
    /// query edge at it (the refinement's cost, before it runs).
    pub fn refine_checks(query: &Query, cands: &Candidates) -> f64 {
        cands.iter().enumerate().map(|(u, c)| c.len() as f64 * query.edges(u as u32).len() as f64).sum()
    }
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
}

/// The local pass over the data vertices of one label, for all the query vertices of that
/// label at once: each data vertex's degrees are read once, and each (direction, pair) group
/// length at most once, when a query vertex whose degrees it fits needs it. wordnet's dense
/// queries have 20 query vertices of one label over 63,000 data vertices.
struct LabelPass<'a> {
    data: &'a Graph,
    /// Per query vertex, in the order given.
    checks: Vec<Check>,
    /// The distinct (direction, pair) groups the query vertices need.
    keys: Vec<(Dir, u32)>,
}

/// What one query vertex needs of a data vertex: out- and in-degree, and its groups as (index
/// into [`LabelPass::keys`], neighbours needed).
struct Check {
    out_degree: u32,
    in_degree: u32,
    groups: Vec<(usize, u32)>,
}

impl<'a> LabelPass<'a> {
    fn new(data: &'a Graph, of_label: &[(u32, &Profile)], degrees_only: bool) -> LabelPass<'a> {
        let mut keys: Vec<(Dir, u32)> = Vec::new();
        let checks = of_label
            .iter()
            .map(|(_, p)| {
                let groups = match degrees_only {
                    true => Vec::new(),
                    false => p
                        .groups
                        .iter()
                        .map(|&(dir, pair, need)| {
                            let at = keys.iter().position(|&k| k == (dir, pair)).unwrap_or_else(|| {
                                keys.push((dir, pair));
                                keys.len() - 1
                            });
                            (at, need)
                        })
                        .collect(),
                };
                Check { out_degree: p.out_degree, in_degree: p.in_degree, groups }
            })
            .collect();
        LabelPass { data, checks, keys }
    }

    /// The candidates among `items` (sorted) of each query vertex, in the order given to
    /// [`LabelPass::new`], tested in parallel pieces: once `control` says stop (it is asked
    /// once per piece), the pieces not yet tested are kept whole.
    fn run(&self, items: &[u32], control: &Control) -> Vec<Vec<u32>> {
        let pieces: Vec<Vec<Vec<u32>>> = items
            .par_chunks(PAR_MIN)
            .map(|piece| {
                let mut kept = vec![Vec::new(); self.checks.len()];
                if control.should_stop() {
                    kept.iter_mut().for_each(|k| k.extend_from_slice(piece));
                    return kept;
                }
                let mut lengths = vec![u32::MAX; self.keys.len()];
                for &v in piece {
                    self.keep(v, &mut lengths, &mut kept);
                }
                kept
            })
            .collect();
        (0..self.checks.len())
            .map(|i| {
                let mut c = Vec::with_capacity(pieces.iter().map(|p| p[i].len()).sum());
                pieces.iter().for_each(|p| c.extend_from_slice(&p[i]));
                c
            })
            .collect()
    }

    /// Appends v to the lists of the query vertices it may host; `lengths` (u32::MAX: not
    /// read yet) caches v's group lengths.
    fn keep(&self, v: u32, lengths: &mut [u32], kept: &mut [Vec<u32>]) {
        lengths.iter_mut().for_each(|l| *l = u32::MAX);
        let directed = self.data.is_directed();
        let out_degree = self.data.degree(v, Dir::Out);
        let in_degree = if directed { self.data.degree(v, Dir::In) } else { 0 };
        for (check, list) in self.checks.iter().zip(kept.iter_mut()) {
            if out_degree < check.out_degree || (directed && in_degree < check.in_degree) {
                continue;
            }
            let fits = check.groups.iter().all(|&(at, need)| {
                if lengths[at] == u32::MAX {
                    let (dir, pair) = self.keys[at];
                    lengths[at] = self.data.neighbors_by_pair(v, dir, pair).len() as u32;
                }
                lengths[at] >= need
            });
            if fits {
                list.push(v);
            }
        }
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
    fn the_local_pass_keeps_exactly_what_each_query_vertex_fits() {
        // Pseudo-random directed and undirected graphs with three vertex and two edge labels;
        // the oracle counts neighbours by (edge label, neighbour label) directly.
        let mut step = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = |m: u32| step(m as u64) as u32;
        for directed in [false, true] {
            let random = |n: usize, m: usize, next: &mut dyn FnMut(u32) -> u32| {
                let mut b = GraphBuilder::new(n, directed);
                b.set_labels((0..n).map(|_| next(3)).collect());
                for _ in 0..m {
                    let (a, c) = (next(n as u32), next(n as u32));
                    if a != c {
                        b.add_edge(a, c, next(2));
                    }
                }
                b.build().0
            };
            let data = random(3000, 12_000, &mut next);
            for _ in 0..20 {
                let Ok(q) = Query::new(random(6, 12, &mut next), &data, Semantics::Embed) else { continue };
                for f in [Filter::Ldf, Filter::Nlf] {
                    let got = f.local(&data, &q, Semantics::Embed, &Control::unlimited());
                    let fits = |u: u32, v: u32| {
                        let edges = q.edges(u);
                        let need = |dir: Dir| edges.iter().filter(|e| e.dir == dir).count() as u32;
                        let degrees = data.degree(v, Dir::Out) >= need(Dir::Out)
                            && (!directed || data.degree(v, Dir::In) >= need(Dir::In));
                        let neighbours = edges.iter().all(|e| {
                            let same = edges
                                .iter()
                                .filter(|o| (o.dir, o.label, q.label(o.to)) == (e.dir, e.label, q.label(e.to)));
                            data.neighbors_labelled(v, e.dir, e.label, q.label(e.to)).len() >= same.count()
                        });
                        data.label(v) == q.label(u) && degrees && (f == Filter::Ldf || neighbours)
                    };
                    let n = q.num_vertices() as u32;
                    let want: Candidates =
                        emptied_if_any_empty((0..n).map(|u| (0..3000).filter(|&v| fits(u, v)).collect()).collect());
                    assert_eq!(got, want, "{f:?} directed {directed}");
                }
            }
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
