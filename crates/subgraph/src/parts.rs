//! The parts a query is matched with, by name, as the command line's flags and the server's
//! requests give them: semantics, filter, order, symmetry breaking, the counted tail, the
//! spasm's counts and how the CPU's candidate space is made, its lists and its bitmaps
//! ([`Parts::from_names`]).

use subgraph_core::cpu::FailingSets;
use subgraph_core::filter::Filter;
use subgraph_core::order::Order;
use subgraph_core::pipeline::MatchOptions;
use subgraph_core::plan::{Symmetry, Tail};
use subgraph_core::space::{Bitmaps, SpaceBuild};
use subgraph_core::{spasm, Semantics};

/// The parts of a query's match, each by name (None: the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct PartNames<'a> {
    pub semantics: Option<&'a str>,
    pub filter: Option<&'a str>,
    pub order: Option<&'a str>,
    pub symmetry: Option<&'a str>,
    pub tail: Option<&'a str>,
    pub spasm: Option<&'a str>,
    pub space: Option<&'a str>,
    pub bitmaps: Option<&'a str>,
}

/// A name that names no part, or parts that do not go together: the message a front end
/// shows (its flags are named as the command line's).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PartsError(pub String);

/// The parts a query is matched with.
#[derive(Debug, Clone, Copy)]
pub struct Parts {
    pub semantics: Semantics,
    /// The semantics of patterns (`--pattern`, `.cypher` files): homomorphism unless
    /// `--semantics` says otherwise, as in SPARQL and GGQ.
    pub pattern_semantics: Semantics,
    pub filter: Filter,
    /// None: chosen by estimated cost.
    pub order: Option<Order>,
    pub symmetry: Symmetry,
    pub tail: Tail,
    pub spasm: spasm::Mode,
    pub space: SpaceBuild,
    pub bitmaps: Bitmaps,
}

impl Parts {
    /// The match options of these parts.
    pub fn options(&self, limit: Option<u64>, failing_sets: FailingSets) -> MatchOptions {
        MatchOptions {
            semantics: self.semantics,
            filter: self.filter,
            order: self.order,
            symmetry: self.symmetry,
            tail: self.tail,
            limit,
            failing_sets,
            max_memory: None,
            spasm: self.spasm,
            space: self.space,
            bitmaps: self.bitmaps,
        }
    }

    /// The name of the order as asked for (`auto` when the planner chooses).
    pub fn order_name(&self) -> &'static str {
        self.order.map_or("auto", Order::name)
    }
}

impl Parts {
    /// The parts `names` names: semantics `embed` (for patterns `homomorphism`) unless given,
    /// `auto` for the rest.
    pub fn from_names(names: &PartNames) -> Result<Parts, PartsError> {
        let fail = |what: &str, name: &str, names: &[&str]| {
            PartsError(format!("unknown {what} '{name}' (one of {})", names.join(", ")))
        };
        let given = names
            .semantics
            .map(|name| Semantics::from_name(name).ok_or_else(|| fail("semantics", name, Semantics::NAMES)))
            .transpose()?;
        let s = given.unwrap_or(Semantics::Embed);
        let filter = names.filter.unwrap_or("auto");
        let f = Filter::from_name(filter).ok_or_else(|| fail("filter", filter, Filter::NAMES))?;
        let o = match names.order.unwrap_or("auto") {
            "auto" => None,
            o => Some(Order::from_name(o).ok_or_else(|| {
                PartsError(format!("unknown order '{o}' (one of auto, {})", Order::NAMES.join(", ")))
            })?),
        };
        let auto_on_off = ["auto", "on", "off"];
        let symmetry = names.symmetry.unwrap_or("auto");
        let symmetry = Symmetry::from_name(symmetry).ok_or_else(|| fail("symmetry", symmetry, &auto_on_off))?;
        if symmetry == Symmetry::On && !s.injective() {
            return Err(PartsError(
                "--symmetry on needs injective matches (embed or induced): homomorphisms may map automorphic \
                 query vertices to one data vertex"
                    .into(),
            ));
        }
        let tail = names.tail.unwrap_or("auto");
        let tail = Tail::from_name(tail).ok_or_else(|| fail("tail", tail, &auto_on_off))?;
        let spasm = names.spasm.unwrap_or("auto");
        let spasm = spasm::Mode::from_name(spasm).ok_or_else(|| fail("spasm", spasm, &auto_on_off))?;
        let space = names.space.unwrap_or("auto");
        let space = SpaceBuild::from_name(space).ok_or_else(|| fail("space", space, &["auto", "eager", "lazy"]))?;
        let bitmaps = names.bitmaps.unwrap_or("auto");
        let bitmaps = Bitmaps::from_name(bitmaps).ok_or_else(|| fail("bitmaps", bitmaps, Bitmaps::NAMES))?;
        Ok(Parts {
            semantics: s,
            pattern_semantics: given.unwrap_or(Semantics::Homomorphism),
            filter: f,
            order: o,
            symmetry,
            tail,
            spasm,
            space,
            bitmaps,
        })
    }
}
