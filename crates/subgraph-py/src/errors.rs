//! The package's errors: `subgraph.SubgraphError` (a ValueError) with the command line's one-line
//! messages, worded with the package's arguments where those name the command line's options;
//! unknown names listed with the values they may take.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use subgraph::patterns::PatternRunError;
use subgraph_core::error::IdError;
use subgraph_pattern::compile::CompileError;

create_exception!(
    subgraph,
    SubgraphError,
    PyValueError,
    "A bad input or a query that cannot run, with its one-line message."
);

pub(crate) fn error(e: impl std::fmt::Display) -> PyErr {
    SubgraphError::new_err(e.to_string())
}

/// A name that is none of `names`, the values `what` takes.
pub(crate) fn unknown(what: &str, name: &str, names: &[&str]) -> PyErr {
    error(format!("unknown {what} '{name}' (one of {})", names.join(", ")))
}

/// `device`'s values, as the command line's --device.
pub(crate) const DEVICES: &[&str] = &["auto", "cpu", "gpu"];

/// `ids`' values: the command line's default, --keep-ids and --string-ids.
pub(crate) const IDS: &[&str] = &["compact", "keep", "names"];

/// A reader's error, in the package's words where the command line's name its options.
pub(crate) fn read_error(e: subgraph_core::Error) -> PyErr {
    match e {
        subgraph_core::Error::Id { file, line, error: IdError::NotANumber { what, token } } => error(format!(
            "{}:{line}: bad {what} '{token}'; use ids=\"names\" for ids that are not numbers",
            file.display()
        )),
        subgraph_core::Error::Id { file, line, error: IdError::TooManyKept { what, vertices, most } } => {
            error(format!(
                "{}:{line}: {what} with ids=\"keep\" would make {vertices} vertices; at most {most} are allowed for \
                 this file (without ids=\"keep\" ids are compacted)",
                file.display()
            ))
        }
        e => error(e),
    }
}

/// Why a pattern cannot run, in the package's words where the command line's name its options.
pub(crate) fn pattern_error(e: PatternRunError) -> String {
    let words = match e {
        PatternRunError::UniqueRestricted => {
            "unique=True divides by the pattern's automorphisms, which its property tests or its edges without \
             direction on directed data break; leave unique out"
        }
        PatternRunError::UniqueBindings => {
            "unique=True counts distinct subgraphs, and an edge without label that binds to one of a pair's several \
             edges makes one subgraph of each; give the edge a label, or leave unique out"
        }
        PatternRunError::InducedOnView => {
            "semantics=\"induced\" forbids edges of every label, and the pattern's labels expand into too many queries: \
             it would run over the data's edges of its edge label alone; give more of its vertices a label"
        }
        PatternRunError::InducedWithoutDirection => {
            "semantics=\"induced\" does not say which direction an edge without direction forbids on directed data; \
             write -> or <-"
        }
        PatternRunError::Compile(CompileError::NoProperties) => {
            "property tests ({key: value} maps and WHERE) need the data graph's vertex properties: read it with \
             Graph.from_file(..., vertex_props=\"FILE.csv\")"
        }
        e => return e.to_string(),
    };
    words.to_string()
}
