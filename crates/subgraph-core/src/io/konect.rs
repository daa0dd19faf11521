//! KONECT networks (`out.NAME` files): a first line `% sym|asym|bip <weights>`, a size line
//! `% edges vertices [right vertices]`, then `u v [weight [time]]` lines with 1-based ids.
//! `asym` is directed, `sym` and `bip` undirected; weights and times are ignored. A bipartite
//! network's right ids are numbered after the left ones (right id r is vertex left + r).

use super::remap::{IdMode, RawGraph};
use super::text::{check_text, show, Lines};
use crate::error::Error;
use std::path::Path;

/// The network kinds a KONECT first line names, with whether each is directed.
const KINDS: [(&[u8], bool); 3] = [(b"sym", false), (b"asym", true), (b"bip", false)];

/// The kind of network a KONECT first line (`% sym unweighted`) declares, if it is one.
fn kind(first_line: &[u8]) -> Option<&'static [u8]> {
    let mut t = first_line.strip_prefix(b"%")?.split(|c| c.is_ascii_whitespace()).filter(|t| !t.is_empty());
    let k = t.next()?;
    KINDS.iter().map(|&(name, _)| name).find(|&name| name == k)
}

/// Whether `data` starts like a KONECT network.
pub fn has_header(data: &[u8]) -> bool {
    kind(first_line(data)).is_some()
}

fn first_line(data: &[u8]) -> &[u8] {
    data[..memchr::memchr(b'\n', data).unwrap_or(data.len())].trim_ascii()
}

/// Reads a KONECT network's edges. Under `IdMode::Keep` vertex i is id i − 1.
pub(crate) fn parse(file: &Path, data: &[u8], mode: IdMode) -> Result<RawGraph, Error> {
    check_text(file, data)?;
    let err = |line, msg: String| Error::Parse { file: file.to_path_buf(), line, msg };
    let first = first_line(data);
    let Some(k) = kind(first) else {
        return Err(err(1, format!("expected a KONECT first line '% sym|asym|bip ...', found '{}'", show(first))));
    };
    let directed = KINDS.iter().any(|&(name, d)| name == k && d);
    let bipartite = k == b"bip";
    // The size line: the second line when it is a comment of two or three numbers.
    let mut left: Option<u64> = None;
    let second_start = (first.len() + 1).min(data.len());
    let second = first_line(&data[second_start..]);
    if let Some(rest) = second.strip_prefix(b"%") {
        let nums: Option<Vec<u64>> = rest
            .split(|c| c.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
            .map(|t| std::str::from_utf8(t).ok()?.parse().ok())
            .collect();
        if let Some(n) = nums.filter(|n| n.len() == 2 || n.len() == 3) {
            left = Some(n[1]);
        }
    }
    if bipartite && left.is_none() {
        return Err(err(2, "a bipartite (bip) network needs its size line '% edges left right'".into()));
    }
    let mode = if mode == IdMode::Names { IdMode::Compact } else { mode };
    let mut raw = RawGraph::new(mode, directed, data.len(), data.len() / 12);
    let base = u64::from(mode != IdMode::Keep);
    let shift = left.unwrap_or(0);
    let mut lines = Lines::new(file, data, true);
    while let Some(mut f) = lines.next_fields() {
        let u = raw.id(&mut f, "source id")?;
        let mut v = raw.id(&mut f, "target id")?;
        if u == 0 || v == 0 {
            return Err(f.error("KONECT ids start at 1"));
        }
        if bipartite && u > shift {
            return Err(f.error(format!("left id {u} exceeds the {shift} left vertices of the size line")));
        }
        if bipartite {
            // Right id r is id left + r, which must be an id (and, with --keep-ids, a vertex
            // the file may make).
            let what = format!("right id {v} after the {shift} left vertices");
            v = v
                .checked_add(shift)
                .ok_or_else(|| f.error(format!("{what} of the size line is beyond the largest id {}", u64::MAX)))?;
            raw.check_vertex(&f, &what, v - 1)?;
        }
        // Weights and times.
        f.token();
        f.token();
        f.end()?;
        raw.add_edge(u - 1 + base, v - 1 + base, 0);
    }
    if raw.num_edges() == 0 {
        return Err(lines.error(0, "a network without edges"));
    }
    Ok(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Graph, Id};

    fn read(data: &[u8], mode: IdMode) -> Result<Graph, Error> {
        parse(Path::new("out.x"), data, mode)?.into_graph(Path::new("out.x"))
    }

    #[test]
    fn reads_sym_asym_and_bip() {
        let g = read(b"% sym unweighted\n% 2 4 4\n1 2\n4 2 1 1234\n", IdMode::Compact).unwrap();
        assert!(!g.is_directed());
        assert_eq!((g.num_vertices(), g.num_edges()), (3, 2));
        assert_eq!(g.original_id(2), Id::Number(4));
        let g = read(b"% asym positive\n1\t2\t3\n", IdMode::Keep).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.edge_label(0, 1), Some(0));
        let g = read(b"% bip unweighted\n% 2 3 2\n1 1\n3 2\n", IdMode::Compact).unwrap();
        assert_eq!(g.num_vertices(), 4);
        assert_eq!(g.original_id(3), Id::Number(5));
        assert!(has_header(b"% bip unweighted\n"));
        assert!(!has_header(b"% comment\n1 2\n"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = |d: &[u8]| read(d, IdMode::Compact).unwrap_err().to_string();
        assert_eq!(e(b"% sym unweighted\n0 1\n"), "out.x:2: KONECT ids start at 1");
        assert_eq!(
            e(b"% bip unweighted\n1 1\n"),
            "out.x:2: a bipartite (bip) network needs its size line '% edges left right'"
        );
        assert_eq!(
            e(b"% bip unweighted\n% 1 2 2\n3 1\n"),
            "out.x:3: left id 3 exceeds the 2 left vertices of the size line"
        );
        assert_eq!(e(b"% sym unweighted\n1 2 1 1 1\n"), "out.x:2: unexpected token '1'");
        assert_eq!(e(b"% sym\n"), "out.x:0: a network without edges");
    }

    #[test]
    fn right_ids_beyond_u64_are_errors_not_wrapped() {
        // Right id 1 after 2^64 - 1 left vertices is 2^64: it wrapped onto left id 2^64 - 1, and
        // the edge was dropped as a self loop.
        let data = b"% bip\n% 2 18446744073709551615 2\n18446744073709551615 1\n1 1\n";
        let want = "out.x:3: right id 1 after the 18446744073709551615 left vertices of the size line is beyond the \
                    largest id 18446744073709551615";
        assert_eq!(read(data, IdMode::Compact).unwrap_err().to_string(), want);
        // The largest right id that fits is read.
        let g = read(b"% bip\n% 1 18446744073709551614 1\n1 1\n", IdMode::Compact).unwrap();
        assert_eq!(g.original_id(1), Id::Number(u64::MAX));
        // With --keep-ids, right ids after many left vertices are vertices to bound, like ids
        // (this made 4·10^9 vertices).
        let e = read(b"% bip\n% 1 4000000000 1\n1 1\n", IdMode::Keep).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "out.x:3: right id 1 after the 4000000000 left vertices with --keep-ids would make 4000000001 vertices"
            ),
            "{e}"
        );
        assert_eq!(read(b"% bip\n% 1 4 1\n1 1\n", IdMode::Keep).unwrap().num_vertices(), 5);
    }
}
