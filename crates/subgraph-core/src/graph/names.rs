//! Label names: where a reader met words in place of label numbers (a vertex label file, an
//! edge list's third column), the labels are numbered 0..k in the names' byte order and the
//! names are kept, for patterns that name labels and for `info`.

/// The names of a graph's vertex and edge labels: label i is `vertex[i]` (or `edge[i]`), in
/// byte order; an empty list means that kind of label is a plain number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelNames {
    pub vertex: Vec<String>,
    pub edge: Vec<String>,
}

impl LabelNames {
    /// The vertex label named `name`.
    pub fn vertex_label(&self, name: &str) -> Option<u32> {
        find(&self.vertex, name)
    }

    /// The edge label named `name`.
    pub fn edge_label(&self, name: &str) -> Option<u32> {
        find(&self.edge, name)
    }

    /// Bytes the names hold.
    pub fn memory_bytes(&self) -> u64 {
        self.vertex.iter().chain(&self.edge).map(|s| (s.len() + std::mem::size_of::<String>()) as u64).sum()
    }

    /// Whether neither kind of label has names.
    pub fn is_empty(&self) -> bool {
        self.vertex.is_empty() && self.edge.is_empty()
    }

    /// Checks what a loaded graph relies on: each list strictly increasing (byte order), and
    /// every label used below its list's length.
    pub fn check(&self, vertex_labels: &[u32], edge_labels: &[u32]) -> Result<(), String> {
        for (what, names, used) in [("vertex", &self.vertex, vertex_labels), ("edge", &self.edge, edge_labels)] {
            if let Some(i) = names.windows(2).position(|w| w[0].as_bytes() >= w[1].as_bytes()) {
                return Err(format!("{what} label names not increasing at {}", i + 1));
            }
            if let (false, Some(&l)) = (names.is_empty(), used.iter().max()) {
                if l as usize >= names.len() {
                    return Err(format!("{what} label {l} has no name ({} names)", names.len()));
                }
            }
        }
        Ok(())
    }
}

fn find(names: &[String], name: &str) -> Option<u32> {
    names.binary_search_by(|n| n.as_bytes().cmp(name.as_bytes())).ok().map(|i| i as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_look_up_and_check() {
        let n = LabelNames { vertex: vec!["Lang".into(), "Person".into()], edge: Vec::new() };
        assert_eq!(n.vertex_label("Person"), Some(1));
        assert_eq!(n.vertex_label("person"), None);
        assert_eq!(n.edge_label("knows"), None);
        assert!(n.check(&[0, 1], &[0, 7]).is_ok(), "numeric edge labels take any value");
        assert!(n.check(&[2], &[]).unwrap_err().contains("vertex label 2 has no name"));
        let unsorted = LabelNames { vertex: vec!["b".into(), "a".into()], edge: Vec::new() };
        assert!(unsorted.check(&[], &[]).is_err());
    }
}
