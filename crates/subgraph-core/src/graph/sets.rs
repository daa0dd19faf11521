//! Several labels per vertex and several edges per pair, without loss (issue 39): every
//! distinct set of labels a vertex holds, and every distinct set of edge labels joining one
//! ordered pair, is one label of its own (a *set label*, numbered above the file's labels), so
//! the CSR, the filters and every engine keep one label per vertex and one edge per pair and
//! stay exact; a query's label L is expanded into the set labels holding L before it is
//! matched (`subgraph-pattern`'s compiler). Self loops are kept apart, as each vertex's loop
//! labels, and take no part in the join.

/// The set labels of a graph: vertex label `vertex_base + i` is the set `vertex[i]`, edge label
/// `edge_base + i` the set `edge[i]` (each sorted, of two labels or more); a label below its
/// base is itself alone. Empty where every vertex has one label and every pair one edge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSets {
    pub(crate) vertex_base: u32,
    pub(crate) vertex: Vec<Vec<u32>>,
    pub(crate) edge_base: u32,
    pub(crate) edge: Vec<Vec<u32>>,
}

impl LabelSets {
    /// Whether no vertex has several labels and no pair several edges.
    pub fn is_empty(&self) -> bool {
        self.vertex.is_empty() && self.edge.is_empty()
    }

    /// The labels vertex label `label` stands for: itself, or the set it names.
    pub fn vertex_labels<'a>(&'a self, label: &'a u32) -> &'a [u32] {
        members(self.vertex_base, &self.vertex, label)
    }

    /// The edge labels edge label `label` stands for: itself, or the set it names.
    pub fn edge_labels<'a>(&'a self, label: &'a u32) -> &'a [u32] {
        members(self.edge_base, &self.edge, label)
    }

    /// The vertex sets (labels from `vertex_base` up, in order).
    pub fn vertex_sets(&self) -> &[Vec<u32>] {
        &self.vertex
    }

    /// The edge sets (labels from `edge_base` up, in order).
    pub fn edge_sets(&self) -> &[Vec<u32>] {
        &self.edge
    }

    pub fn vertex_base(&self) -> u32 {
        self.vertex_base
    }

    pub fn edge_base(&self) -> u32 {
        self.edge_base
    }

    pub(crate) fn memory_bytes(&self) -> u64 {
        self.vertex.iter().chain(&self.edge).map(|s| (s.len() * 4 + 24) as u64).sum()
    }
}

/// The labels vertex label `label` stands for, under `sets` (None: a graph without sets).
pub fn vertex_members<'a>(sets: Option<&'a LabelSets>, label: &'a u32) -> &'a [u32] {
    sets.map_or(std::slice::from_ref(label), |s| s.vertex_labels(label))
}

/// The edge labels edge label `label` stands for, under `sets` (None: a graph without sets).
pub fn edge_members<'a>(sets: Option<&'a LabelSets>, label: &'a u32) -> &'a [u32] {
    sets.map_or(std::slice::from_ref(label), |s| s.edge_labels(label))
}

/// Whether `members` (sorted) holds every label of `need` (None: any): a label or set that
/// a query's labels ask for.
pub fn holds_all(members: &[u32], need: Option<&[u32]>) -> bool {
    need.is_none_or(|n| n.iter().all(|l| members.binary_search(l).is_ok()))
}

fn members<'a>(base: u32, sets: &'a [Vec<u32>], label: &'a u32) -> &'a [u32] {
    match label.checked_sub(base).and_then(|i| sets.get(i as usize)) {
        Some(set) => set,
        None => std::slice::from_ref(label),
    }
}

/// Interns sets of labels: a set of one label is that label; a larger one gets `base + i` in
/// first-seen order. Fails where the numbers run past u32.
pub(crate) struct Interner {
    base: u32,
    sets: Vec<Vec<u32>>,
    index: std::collections::HashMap<Vec<u32>, u32>,
}

impl Interner {
    /// Set labels start above every label in `labels`.
    pub(crate) fn above(labels: impl Iterator<Item = u32>) -> Option<Interner> {
        let base = labels.max().map_or(Some(0), |m| m.checked_add(1))?;
        Some(Interner { base, sets: Vec::new(), index: Default::default() })
    }

    /// The label of `set` (sorted, deduplicated, not empty); None past u32.
    pub(crate) fn label(&mut self, set: &[u32]) -> Option<u32> {
        if set.len() == 1 {
            return Some(set[0]);
        }
        if let Some(&l) = self.index.get(set) {
            return Some(l);
        }
        let l = self.base.checked_add(u32::try_from(self.sets.len()).ok()?)?;
        self.sets.push(set.to_vec());
        self.index.insert(set.to_vec(), l);
        Some(l)
    }

    pub(crate) fn finish(self) -> (u32, Vec<Vec<u32>>) {
        (self.base, self.sets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_of_one_are_themselves_larger_ones_numbered_above() {
        let mut i = Interner::above([3u32, 9, 1].into_iter()).unwrap();
        assert_eq!(i.label(&[9]), Some(9));
        assert_eq!(i.label(&[1, 3]), Some(10));
        assert_eq!(i.label(&[1, 9]), Some(11));
        assert_eq!(i.label(&[1, 3]), Some(10));
        let (base, sets) = i.finish();
        let s = LabelSets { vertex_base: base, vertex: sets, ..Default::default() };
        assert_eq!(s.vertex_labels(&11), &[1, 9]);
        assert_eq!(s.vertex_labels(&9), &[9]);
        assert_eq!(s.edge_labels(&10), &[10], "no edge sets");
        assert!(Interner::above([u32::MAX].into_iter()).is_none());
        let mut top = Interner::above([u32::MAX - 1].into_iter()).unwrap();
        assert_eq!(top.label(&[0, 1]), Some(u32::MAX));
        assert_eq!(top.label(&[0, 2]), None);
    }
}
