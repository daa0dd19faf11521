//! The work a stopped count left: for each unfinished level of each stopped task, the
//! candidates bound above it and those it had still to try. A counting run that its deadline
//! stops hands these back, and a later run of the same plan over the same space counts exactly
//! what the first did not: the planner's scout of the default plan is not thrown away when the
//! plan is kept (issue 45: 1–2.3 ms of yeast's 4–10 ms queries).

/// The candidates (indices into the position's candidate set) a piece still has to try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cands {
    Range(u32, u32),
    List(Vec<u32>),
}

impl Cands {
    pub(super) fn len(&self) -> usize {
        match self {
            Cands::Range(lo, hi) => (hi - lo) as usize,
            Cands::List(v) => v.len(),
        }
    }
}

/// One piece of work left: the candidate indices bound at the positions before `depth`, and
/// the candidates of position `depth` still to try under them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Piece {
    pub(super) prefix: Vec<u32>,
    pub(super) depth: usize,
    pub(super) cands: Cands,
}

/// The work of one plan's count still to do: all of it, or what stopped runs left
/// ([`super::enumerate_rest`]); by default none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rest {
    pub(super) pieces: Vec<Piece>,
}

impl Rest {
    /// The whole search of a plan whose first position has `roots` candidates.
    pub fn whole(roots: usize) -> Rest {
        Rest { pieces: vec![Piece { prefix: Vec::new(), depth: 0, cands: Cands::Range(0, roots as u32) }] }
    }

    /// The matches under the first position's candidates at `roots` (indices).
    pub fn roots(roots: Vec<u32>) -> Rest {
        Rest { pieces: vec![Piece { prefix: Vec::new(), depth: 0, cands: Cands::List(roots) }] }
    }

    /// Adds `other`'s work to this.
    pub fn add(&mut self, other: Rest) {
        self.pieces.extend(other.pieces);
    }

    /// Takes out the first position's candidates no run has begun (the pieces at the first
    /// position) and returns them, sorted: what is left is the work under first candidates
    /// that a stopped run had begun.
    pub fn take_roots(&mut self) -> Vec<u32> {
        let mut roots = Vec::new();
        self.pieces.retain(|p| match (p.depth, &p.cands) {
            (0, Cands::Range(lo, hi)) => {
                roots.extend(*lo..*hi);
                false
            }
            (0, Cands::List(v)) => {
                roots.extend_from_slice(v);
                false
            }
            _ => true,
        });
        roots.sort_unstable();
        roots
    }

    /// Nothing left: the count is complete.
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(|p| p.cands.len() == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roots_taken_are_the_first_positions_unbegun_candidates() {
        let mut rest = Rest::whole(5);
        rest.add(Rest { pieces: vec![Piece { prefix: vec![7], depth: 1, cands: Cands::Range(2, 4) }] });
        rest.add(Rest::roots(vec![9, 6]));
        assert_eq!(rest.take_roots(), vec![0, 1, 2, 3, 4, 6, 9]);
        assert_eq!(rest.pieces, vec![Piece { prefix: vec![7], depth: 1, cands: Cands::Range(2, 4) }]);
        assert!(rest.take_roots().is_empty() && !rest.is_empty());
    }
}
