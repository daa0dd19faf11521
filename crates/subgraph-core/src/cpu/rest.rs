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

    /// Nothing left: the count is complete.
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(|p| p.cands.len() == 0)
    }
}
