//! subgraph-pattern: the parser of subgraph's inline pattern language, which follows
//! openCypher's (and ISO GQL's) MATCH syntax, a subset. [`parse`] turns
//!
//! ```text
//! MATCH (a:Person {age: 32})-[:knows]->(b)-[:created]->(c:Lang), (a)-[:likes]-(c)
//! WHERE b.age >= 30 AND c.name <> "Go"
//! RETURN DISTINCT a, c LIMIT 10
//! ```
//!
//! into a [`Pattern`]: numbered pattern vertices (with labels), edges (with direction and
//! label), property [`Predicate`]s, and what to return. Paths separated by commas share their
//! variables, so any pattern graph can be written, cycles included; whether it is connected, and
//! what a self-loop means, is for the engine to decide. `Pattern`'s `Display` writes a canonical
//! text that parses back to an equal pattern.
//!
//! # Grammar
//!
//! Keywords (`MATCH`, `WHERE`, `AND`, `RETURN`, `DISTINCT`, `LIMIT`, `count`) are
//! case-insensitive; whitespace, newlines, `// line` and `/* block */` comments may stand between
//! any two tokens.
//!
//! ```text
//! query        = [ "MATCH" ] path { "," path } [ where ] [ return ] [ ";" ] ;
//! path         = node { relationship node } ;
//! node         = "(" [ variable ] [ ":" label ] [ properties ] ")" ;
//! relationship = "-"  [ detail ] "-" ">"         (* out:    (a)-->(b), (a)-[:t]->(b) *)
//!              | "<" "-" [ detail ] "-"          (* in:     (a)<--(b), stored as b --> a *)
//!              | "-"  [ detail ] "-"             (* either: (a)--(b); "<-...->" too *)
//! detail       = "[" [ variable ] [ ":" label ] "]" ;
//! label        = name | integer ;                (* integer: a label id, at most u32::MAX *)
//! properties   = "{" [ name ":" literal { "," name ":" literal } ] "}" ;   (* equalities *)
//! where        = "WHERE" comparison { "AND" comparison } ;
//! comparison   = "(" comparison ")"
//!              | property op literal | literal op property ;   (* flipped to property op *)
//! property     = variable "." name ;
//! op           = "=" | "<>" | "<" | "<=" | ">" | ">=" ;
//! return       = "RETURN" [ "DISTINCT" ] ( "*" | "count" "(" "*" ")" | variable { "," variable } )
//!                [ "LIMIT" integer ] ;            (* integer: at most u64::MAX *)
//! literal      = [ "-" ] integer                  (* i64 *)
//!              | [ "-" ] float                    (* 1.5, 2e3, -1.5E-7; finite *)
//!              | string ;                         (* "..." or '...'; \" \' \\ \n \t \r *)
//! variable     = name ;                           (* not a reserved word unless backquoted *)
//! name         = identifier | "`" { any character, "``" for "`" } "`" ;
//! identifier   = ( letter | "_" ) { letter | digit | "_" } ;
//! ```
//!
//! * A variable names one vertex wherever it appears. Its label may be given at any one of its
//!   occurrences (or at several, if the same); two different labels are an error. Each node's
//!   map adds equality predicates. A node without a variable, `()`, is a vertex of its own
//!   (anonymous: `name` is `None`), which WHERE and RETURN cannot name.
//! * A label is a name (`:Person`, `` :`two words` ``), a number (`:3`, a label id), or absent
//!   (any label). `` :`3` `` is the *name* "3".
//! * An omitted RETURN is `RETURN *`: every named vertex, in order of first appearance.
//!   `DISTINCT` and `LIMIT` need a RETURN. `MATCH` itself may be left out.
//! * Reserved words, which cannot be bare variables (write `` `limit` ``): AND, AS, CALL,
//!   CREATE, DELETE, DETACH, DISTINCT, FALSE, LIMIT, MATCH, MERGE, NOT, NULL, OPTIONAL, OR,
//!   ORDER, REMOVE, RETURN, SET, SKIP, TRUE, UNION, UNWIND, WHERE, WITH, XOR. Labels and
//!   property names may be any identifier.
//!
//! Not supported, each with an error saying so at its position: several labels on a node
//! (`:A:B`), several relationship types (`:a|b`), variable-length relationships (`*`),
//! relationship properties, OR / XOR / NOT, comparing two properties, booleans, null, lists,
//! parameters (`$p`), returning properties or relationships, aliases (`AS`), and clauses other
//! than MATCH, WHERE and RETURN (a second MATCH included).
//!
//! # Errors
//!
//! A [`PatternError`] names what was expected at a 1-based line and character column, and
//! displays the line with a caret under the column:
//!
//! ```text
//! pattern, line 1, column 17: expected ')' or '{' after the node label, found '-'
//!   MATCH (a:Person -[:knows]->(b)
//!                   ^
//! ```
//!
//! The parser never panics and never recurses (parentheses, paths and lists are loops), so no
//! input exhausts the stack; its time is linear in the text, which may be at most
//! [`MAX_PATTERN_LEN`] bytes, and a pattern has at most [`MAX_PATTERN_VERTICES`] vertices,
//! [`MAX_PATTERN_EDGES`] edges and [`MAX_PATTERN_PREDICATES`] property tests.

pub mod compile;
mod display;
mod error;
mod lexer;
mod parser;
mod pattern;
pub mod rows;

#[cfg(test)]
mod tests;

pub use error::PatternError;
pub use parser::{MAX_PATTERN_EDGES, MAX_PATTERN_LEN, MAX_PATTERN_PREDICATES, MAX_PATTERN_VERTICES};
pub use pattern::{CompareOp, Direction, LabelRef, Pattern, PatternEdge, PatternVertex, Predicate, Return, Value};

/// Parses a pattern (see the [crate documentation](crate) for the language).
///
/// ```
/// use subgraph_pattern::{parse, Direction, LabelRef, Return};
///
/// let p = parse("MATCH (a:Person)-[:knows]->(b), (b)<--(c) RETURN a, c").unwrap();
/// assert_eq!(p.vertices.len(), 3);
/// assert_eq!(p.vertices[0].label, Some(LabelRef::Name("Person".into())));
/// assert_eq!((p.edges[1].from, p.edges[1].to, p.edges[1].direction), (2, 1, Direction::Out));
/// assert_eq!(p.returns, Return::Vertices(vec![0, 2]));
/// assert_eq!(p.column_names(), ["a", "c"]);
///
/// let e = parse("MATCH (a:Person -[:knows]->(b)").unwrap_err();
/// assert_eq!((e.line, e.column), (1, 17));
/// ```
pub fn parse(text: &str) -> Result<Pattern, PatternError> {
    if text.len() > MAX_PATTERN_LEN {
        return Err(PatternError::new(
            text,
            MAX_PATTERN_LEN,
            format!("the pattern is {} bytes long; at most {MAX_PATTERN_LEN} (1 MiB) are accepted", text.len()),
        ));
    }
    parser::Parser::new(text).parse()
}
