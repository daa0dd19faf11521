//! A pattern's result rows: each match (as the engine writes it in `OutputFormat::Words`, one
//! data vertex per pattern vertex) projected onto the RETURN columns, made distinct where
//! DISTINCT asks, cut at LIMIT (which stops the search), and written with the columns' names.

use crate::compile::{Compiled, Skip};
use std::collections::HashSet;
use std::io::Write;
use std::sync::{Arc, Mutex};
use subgraph_core::graph::holds_all;
use subgraph_core::sink::{Control, Output, Stopped};
use subgraph_core::Graph;

/// What the rows of one pattern came to, shared between the writer the engine feeds and the
/// caller that reports.
struct State {
    width: usize,
    columns: Vec<usize>,
    names: Vec<String>,
    seen: Option<HashSet<Box<[u32]>>>,
    limit: Option<u64>,
    rows: u64,
    /// Matches taken (not skipped), before projection.
    matches: u64,
    /// The running query's reversed edges without direction, and the data graph to look for
    /// their forward edges in (`Compiled::skips`).
    skip: Vec<Skip>,
    /// The running query's weight (`Compiled::weights`): the rows each of its matches is.
    weight: u64,
    data: Arc<Graph>,
    /// Bytes of a word that a write split (batches hold whole matches, but `Write` promises
    /// nothing).
    partial: Vec<u8>,
    match_words: Vec<u32>,
    row: Vec<u32>,
    out: Option<(Arc<Output>, String)>,
    buf: Vec<u8>,
    control: Arc<Control>,
}

/// The rows of one pattern: give [`Rows::writer`] to the engine's output (`Words`), then read
/// [`Rows::count`].
#[derive(Clone)]
pub struct Rows(Arc<Mutex<State>>);

impl Rows {
    /// Rows of `compiled` over `data`, written to `out` under the query name when given;
    /// reaching `limit` rows stops `control`. A `count(*)` pattern's matches are only counted.
    pub fn new(
        compiled: &Compiled,
        data: Arc<Graph>,
        limit: Option<u64>,
        out: Option<(Arc<Output>, String)>,
        control: Arc<Control>,
    ) -> Rows {
        Rows(Arc::new(Mutex::new(State {
            width: compiled.width,
            columns: compiled.columns.clone(),
            names: compiled.names.clone(),
            seen: compiled.distinct.then(HashSet::new),
            limit: limit.filter(|_| !compiled.count_star),
            rows: 0,
            matches: 0,
            skip: Vec::new(),
            weight: 1,
            data,
            partial: Vec::new(),
            match_words: Vec::with_capacity(compiled.width),
            row: Vec::with_capacity(compiled.columns.len()),
            out,
            buf: Vec::new(),
            control,
        })))
    }

    /// The rows so far.
    pub fn count(&self) -> u64 {
        self.lock().rows
    }

    /// The matches taken so far (those of one query that another finds are skipped).
    pub fn matches(&self) -> u64 {
        self.lock().matches
    }

    /// Sets the query whose matches come next: `skip` and `weight` are its entries of
    /// `Compiled::skips` and `Compiled::weights`.
    pub fn start_query(&self, skip: &[Skip], weight: u64) {
        let mut s = self.lock();
        s.skip = skip.to_vec();
        s.weight = weight;
    }

    /// A writer of the engine's matches, in `OutputFormat::Words`.
    pub fn writer(&self) -> Box<dyn Write + Send> {
        Box::new(self.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn take_word(&mut self, w: u32) {
        self.match_words.push(w);
        if self.match_words.len() == self.width {
            self.add_match();
            self.match_words.clear();
        }
    }

    fn add_match(&mut self) {
        if self.limit.is_some_and(|l| self.rows >= l) {
            return;
        }
        let m = &self.match_words;
        let forward = |(a, b, need): &Skip| {
            let found = self.data.edge_label(m[*a], m[*b]);
            found.is_some_and(|l| holds_all(self.data.edge_label_members(&l), need.as_deref()))
        };
        if self.skip.iter().any(forward) {
            return;
        }
        self.matches += self.weight;
        self.row.clear();
        self.row.extend(self.columns.iter().map(|&c| self.match_words[c]));
        if let Some(seen) = &mut self.seen {
            if !seen.insert(self.row.clone().into_boxed_slice()) {
                return;
            }
        }
        // A match of weight k is k rows (one per binding of its edges), unless DISTINCT.
        let copies = if self.seen.is_some() { 1 } else { self.weight };
        for _ in 0..copies {
            self.rows += 1;
            if let Some((out, name)) = &self.out {
                out.format_row(name, &self.names, &self.row, &mut self.buf);
                if self.buf.len() >= subgraph_core::sink::OUTPUT_BATCH {
                    out.write_batch(&self.buf);
                    self.buf.clear();
                }
            }
            if self.limit.is_some_and(|l| self.rows >= l) {
                self.control.stop(Stopped::Limit);
                return;
            }
        }
    }
}

impl Write for Rows {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut s = self.lock();
        let mut rest = bytes;
        while !s.partial.is_empty() && !rest.is_empty() {
            s.partial.push(rest[0]);
            rest = &rest[1..];
            if s.partial.len() == 4 {
                let w = u32::from_le_bytes([s.partial[0], s.partial[1], s.partial[2], s.partial[3]]);
                s.partial.clear();
                s.take_word(w);
            }
        }
        let mut words = rest.chunks_exact(4);
        for w in &mut words {
            s.take_word(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
        s.partial.extend_from_slice(words.remainder());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut s = self.lock();
        if let Some((out, _)) = &s.out {
            let out = out.clone();
            out.write_batch(&s.buf);
            s.buf.clear();
        }
        Ok(())
    }
}
