//! Tests of the parser and the printer: what parses into what (`parse`), the errors (`errors`),
//! and property tests (`props`).

mod errors;
mod parse;
mod props;
