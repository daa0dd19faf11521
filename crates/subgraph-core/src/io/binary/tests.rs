//! Round trips and hostile inputs of the `.sgb` reader and writer, copied and mapped.

use super::format::{padded, Counts, CHUNK, HEADER_SUM_AT};
use super::read::decode_mapped;
use super::*;
use crate::error::Error;
use crate::graph::{Column, Dir, Graph, GraphBuilder, LabelNames, Properties, Values, VertexIds};
use std::path::Path;
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

fn sample(directed: bool) -> Graph {
    let mut b = GraphBuilder::new(7, directed);
    b.set_labels(vec![3, 1, 3, 9, 1, 1, 3]);
    for &(u, v, l) in &[(0, 1, 0), (0, 2, 5), (1, 2, 0), (3, 4, 2), (4, 5, 0), (5, 0, 5), (2, 6, 0), (6, 3, 2)] {
        b.add_edge(u, v, l);
    }
    b.build().0
}

fn bytes(g: &Graph) -> Vec<u8> {
    let mut out = Vec::new();
    write(g, &mut out).unwrap();
    out
}

/// Decodes `data` both ways, copied and mapped (from an anonymous mapping holding it), and
/// checks that they agree: the same graph, or both an error (the copied load's is returned).
fn load(data: &[u8]) -> Result<Graph, Error> {
    let copied = decode(Path::new("g.sgb"), data, data.len() as u64);
    match (&copied, load_mapped(data)) {
        (Ok(a), Ok(b)) => same(a, &b),
        (Err(_), Err(Error::Parse { line: 0, .. })) | (_, Err(Error::Io { .. })) => {}
        (a, b) => panic!("the copied load gave {a:?}, the mapped one {b:?}"),
    }
    copied
}

fn load_mapped(data: &[u8]) -> Result<Graph, Error> {
    let io = |source| Error::Io { file: "g.sgb".into(), source };
    if data.len() < HEADER_LEN {
        return decode(Path::new("g.sgb"), data, data.len() as u64);
    }
    let mut m = memmap2::MmapMut::map_anon(data.len()).map_err(io)?;
    m.copy_from_slice(data);
    decode_mapped(Path::new("g.sgb"), Arc::new(m.make_read_only().map_err(io)?))
}

fn err(data: &[u8]) -> String {
    match load(data) {
        Err(e @ Error::Parse { line: 0, .. }) => e.to_string(),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// Every `step`-th byte from `from` on flipped (one bit), and the file cut at every
/// `cut_step`-th length where given, is a load error, never a panic or a graph.
fn damage_is_an_error(data: &[u8], from: usize, step: usize, cut_step: Option<usize>) {
    for i in (from..data.len()).step_by(step) {
        let mut d = data.to_vec();
        d[i] ^= 0x10;
        err(&d);
    }
    for len in cut_step.into_iter().flat_map(|c| (0..data.len()).step_by(c)) {
        err(&data[..len]);
    }
}

/// Recomputes both checksums, as a forger would, so that validation alone must catch damage.
fn reseal(data: &mut [u8]) {
    seal(data);
}

fn same(a: &Graph, b: &Graph) {
    assert_eq!(a.is_directed(), b.is_directed());
    assert_eq!(a.labels(), b.labels());
    assert_eq!(a.num_edges(), b.num_edges());
    assert_eq!(a.edges().collect::<Vec<_>>(), b.edges().collect::<Vec<_>>());
    for v in 0..a.num_vertices() as u32 {
        assert_eq!(a.neighbors(v, Dir::In), b.neighbors(v, Dir::In));
        assert_eq!(
            a.neighbor_groups(v, Dir::Out).collect::<Vec<_>>(),
            b.neighbor_groups(v, Dir::Out).collect::<Vec<_>>()
        );
    }
    assert_eq!(a.vertices_with_label(1), b.vertices_with_label(1));
    assert_eq!(a.edge_label_values(), b.edge_label_values());
    assert_eq!(a.memory_bytes(), b.memory_bytes());
    assert_eq!(a.ids(), b.ids());
    assert_eq!(a.label_sets(), b.label_sets());
    assert_eq!(a.loops(), b.loops());
}

#[test]
fn original_ids_round_trip_as_version_3_and_damage_is_an_error() {
    let numbers = VertexIds::Numbers(vec![0, 5, 6, 7, 9, 1 << 40, u64::MAX]);
    let names = VertexIds::names(&["a", "bé", "c", "d", "e", "f", "zz"]);
    for ids in [numbers, names] {
        let g = sample(true);
        let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
        b.set_ids(ids);
        let g = b.build().0;
        let data = bytes(&g);
        assert_eq!(data[8..12], VERSION_3.to_le_bytes());
        assert_eq!(data.len() % 8, 0);
        same(&g, &load(&data).unwrap());
        damage_is_an_error(&data, 0, 1, Some(1));
        let mut v2 = data.clone();
        v2[8..12].copy_from_slice(&VERSION_2.to_le_bytes());
        let sum = xxh3_64(&v2[..HEADER_SUM_AT]);
        v2[HEADER_SUM_AT..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(err(&v2), "g.sgb:0: unknown flags 0x3");
    }
    assert_eq!(bytes(&sample(false))[8..12], VERSION_2.to_le_bytes());
}

#[test]
fn renumbered_ids_round_trip_as_kind_4_and_a_bad_permutation_is_an_error() {
    let numbers = VertexIds::Numbers(vec![0, 5, 6, 7, 9, 1 << 40, u64::MAX]);
    let names = VertexIds::names(&["a", "bé", "c", "d", "e", "f", "zz"]);
    for ids in [None, Some(numbers), Some(names)] {
        let g = sample(true);
        let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
        if let Some(ids) = ids {
            b.set_ids(ids);
        }
        let g = b.build().0;
        let r = g.renumbered(g.degree_order());
        let data = bytes(&r);
        let back = load(&data).unwrap();
        same(&r, &back);
        for v in 0..r.num_vertices() as u32 {
            assert_eq!(back.original_id(v), r.original_id(v));
        }
        damage_is_an_error(&data, 0, 1, Some(1));
    }
    let mut bad = sample(true).renumbered((0..7).collect());
    bad.ids = Some(std::sync::Arc::new(VertexIds::Renumbered {
        base: None,
        old: vec![0, 1, 2, 3, 4, 5, 5],
        new: vec![0; 7],
    }));
    assert_eq!(
        err(&bytes(&bad)),
        "g.sgb:0: vertex id section: a renumbering that is not a permutation of the vertices"
    );
}

fn named_graph_with(g: &Graph, vertex_names: &[String]) -> Graph {
    let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
    b.set_label_names(LabelNames { vertex: vertex_names.to_vec(), edge: Vec::new() });
    b.build().0
}

#[test]
fn label_names_round_trip_as_version_4_and_damage_is_an_error() {
    let g = sample(true);
    let vertex_names: Vec<String> =
        (0..=*g.vertex_label_values().iter().max().unwrap()).map(|i| format!("label-{i:03}")).collect();
    let edge_names: Vec<String> = (0..=*g.edge_label_values().iter().max().unwrap()).map(|i| format!("e{i}")).collect();
    for (ids, edge) in
        [(None, edge_names.clone()), (Some(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g"])), Vec::new())]
    {
        let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
        if let Some(ids) = ids {
            b.set_ids(ids);
        }
        b.set_label_names(LabelNames { vertex: vertex_names.clone(), edge });
        let named = b.build().0;
        let data = bytes(&named);
        assert_eq!(data[8..12], VERSION_4.to_le_bytes());
        let back = load(&data).unwrap();
        same(&named, &back);
        assert_eq!(back.label_names(), named.label_names());
        assert_eq!(back.ids(), named.ids());
        damage_is_an_error(&data, HEADER_LEN, 3, Some(5));
    }
    // Properties: every type, values and none, through the file.
    let mut with_props = named_graph_with(&g, &vertex_names);
    let n = with_props.num_vertices();
    with_props.set_properties(Properties::new(vec![
        Column {
            name: "age".into(),
            values: Values::Int {
                values: (0..n as i64).map(|x| x - 3).collect(),
                present: (0..n).map(|v| v % 3 != 0).collect(),
            },
        },
        Column { name: "height".into(), values: Values::Float { values: vec![1.5; n], present: vec![true; n] } },
        Column {
            name: "név".into(),
            values: Values::Str {
                codes: (0..n as u32).map(|v| if v % 2 == 0 { v % 4 / 2 } else { u32::MAX }).collect(),
                dictionary: vec!["a".into(), "bé".into()],
            },
        },
    ]));
    let data = bytes(&with_props);
    let back = load(&data).unwrap();
    assert_eq!(back.properties(), with_props.properties());
    damage_is_an_error(&data, HEADER_LEN, 7, None);
    // A label with no name, behind valid checksums.
    let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), true);
    b.set_label_names(LabelNames { vertex: vertex_names[..1].to_vec(), edge: Vec::new() });
    assert!(err(&bytes(&b.build().0)).contains("has no name"));
}

/// A graph of vertex sets ({1, 3}, {1, 9}), an edge set ({0, 5}) and self loops (labels 2, 7).
fn with_sets(directed: bool) -> Graph {
    builder_with_sets(directed).build().0
}

fn builder_with_sets(directed: bool) -> GraphBuilder {
    let g = sample(directed);
    let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), directed);
    b.add_label(1, 3);
    b.add_label(4, 3);
    b.add_label(5, 9);
    b.add_label(5, 1);
    for (u, v, l) in [(0, 1, 5), (3, 3, 2), (3, 3, 7), (6, 6, 2), (1, 0, 5)] {
        b.add_edge(u, v, l);
    }
    b
}

#[test]
fn label_sets_and_loops_round_trip_as_version_5_and_damage_is_an_error() {
    for directed in [false, true] {
        let g = with_sets(directed);
        let sets = g.label_sets().unwrap();
        assert_eq!((sets.vertex_sets(), sets.edge_sets()), (&[vec![1, 3], vec![1, 9]][..], &[vec![0, 5]][..]));
        assert_eq!(g.loops(), &[(3, 2), (3, 7), (6, 2)]);
        let data = bytes(&g);
        assert_eq!(data[8..12], VERSION.to_le_bytes());
        assert_eq!(data[12..16], (16 | u32::from(directed)).to_le_bytes());
        let back = load(&data).unwrap();
        same(&g, &back);
        assert_eq!(bytes(&back), data);
        let mut sealed = data.clone();
        seal(&mut sealed);
        assert_eq!(sealed, data);
        damage_is_an_error(&data, 0, 1, Some(1));
        // Version 4 knows no flag bit 4.
        let mut v4 = data.clone();
        v4[8..12].copy_from_slice(&VERSION_4.to_le_bytes());
        seal(&mut v4);
        assert_eq!(err(&v4), format!("g.sgb:0: unknown flags {:#x}", 16 | u32::from(directed)));
    }
    // Loops alone, or vertex sets alone, with ids, names and properties before the section.
    let g = sample(false);
    let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), false);
    b.add_edge(2, 2, 4);
    b.set_ids(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g"]));
    let names = |k: u32, p: &str| (0..k).map(|i| format!("{p}{i:02}")).collect::<Vec<_>>();
    b.set_label_names(LabelNames { vertex: names(10, "v"), edge: names(6, "e") });
    let mut looped = b.build().0;
    looped.set_properties(Properties::new(vec![Column {
        name: "x".into(),
        values: Values::Int { values: vec![1; 7], present: vec![true; 7] },
    }]));
    assert!(looped.label_sets().is_none());
    let data = bytes(&looped);
    assert_eq!(data[8..12], VERSION.to_le_bytes());
    let back = load(&data).unwrap();
    same(&looped, &back);
    assert_eq!((back.label_names(), back.properties()), (looped.label_names(), looped.properties()));
    let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), false);
    b.add_label(0, 1);
    let labelled = b.build().0;
    assert!(labelled.loops().is_empty() && labelled.label_sets().unwrap().edge_sets().is_empty());
    same(&labelled, &load(&bytes(&labelled)).unwrap());
}

/// `g` written with its label set section replaced by one of `loops` and `sets`, resealed.
fn with_section(g: &Graph, loops: &[(u32, u32)], sets: &crate::graph::LabelSets) -> Vec<u8> {
    let data = bytes(g);
    let own = super::sets::encode(g.loops(), g.label_sets().map(|s| &**s));
    let mut d = data[..data.len() - own.len()].to_vec();
    d.extend_from_slice(&super::sets::encode(loops, Some(sets)));
    seal(&mut d);
    d
}

#[test]
fn label_set_sections_that_do_not_fit_are_errors() {
    use crate::graph::LabelSets;
    let g = with_sets(true);
    let own = (**g.label_sets().unwrap()).clone();
    let loops = g.loops().to_vec();
    let sets = |vertex_base: u32, vertex: &[&[u32]], edge_base: u32, edge: &[&[u32]]| LabelSets {
        vertex_base,
        vertex: vertex.iter().map(|s| s.to_vec()).collect(),
        edge_base,
        edge: edge.iter().map(|s| s.to_vec()).collect(),
    };
    assert_eq!((own.vertex_base(), own.edge_base()), (10, 8));
    same(&g, &load(&with_section(&g, &loops, &own)).unwrap());
    let ok_sets = sets(10, &[&[1, 3], &[1, 9]], 8, &[&[0, 5]]);
    assert_eq!(ok_sets, own);
    type Case = (Vec<(u32, u32)>, LabelSets, &'static str);
    let cases: Vec<Case> = vec![
        (vec![(3, 2), (7, 1)], own.clone(), "invalid graph: a loop at vertex 7, out of range (7 vertices)"),
        (vec![(3, 7), (3, 2)], own.clone(), "label set section: loops not sorted and distinct at (3, 2)"),
        (vec![(3, 2), (3, 2)], own.clone(), "label set section: loops not sorted and distinct at (3, 2)"),
        (loops.clone(), sets(10, &[&[1], &[1, 9]], 8, &[&[0, 5]]), "vertex set 0 (label 10) has fewer than two labels"),
        (loops.clone(), sets(10, &[&[3, 1], &[1, 9]], 8, &[&[0, 5]]), "vertex set 10 is not sorted and distinct"),
        (loops.clone(), sets(10, &[&[1, 3], &[1, 1]], 8, &[&[0, 5]]), "vertex set 11 is not sorted and distinct"),
        (loops.clone(), sets(10, &[&[1, 3], &[1, 9]], 8, &[&[0, 8]]), "edge set 8 holds a label from its base 8 up"),
        (loops.clone(), sets(10, &[&[1, 3], &[1, 3]], 8, &[&[0, 5]]), "a vertex set is there twice"),
        (
            loops.clone(),
            sets(u32::MAX, &[&[1, 3], &[1, 9]], 8, &[&[0, 5]]),
            "2 vertex sets from label 4294967295 on run past 2^32 - 1",
        ),
        (loops.clone(), sets(11, &[&[1, 3], &[1, 9]], 8, &[&[0, 5]]), "1 of the 2 vertex sets are no vertex's label"),
        (vec![(3, 2), (6, 2)], own.clone(), "edge set base 8 is not one above the largest edge label below it (5)"),
        (
            loops.clone(),
            sets(10, &[&[1, 3], &[1, 9], &[3, 9]], 8, &[&[0, 5]]),
            "1 of the 3 vertex sets are no vertex's label",
        ),
        (loops.clone(), sets(10, &[&[1, 3]], 8, &[&[0, 5]]), "vertex label 11 is above its sets (1 from label 10 on)"),
        (vec![(3, 2), (3, 9)], own.clone(), "edge set base 8 is not one above the largest edge label below it (9)"),
        (Vec::new(), LabelSets::default(), "label set section: no loop and no set"),
    ];
    for (loops, bad, want) in cases {
        let e = err(&with_section(&g, &loops, &bad));
        assert!(e.starts_with("g.sgb:0: ") && e.contains(want), "{want}: {e}");
    }
    // Names must cover the sets' members and the loops' labels, not the set labels.
    let named = |vertex: u32, edge: u32| {
        let mut b = builder_with_sets(true);
        let names = |k: u32, p: &str| (0..k).map(|i| format!("{p}{i:02}")).collect::<Vec<_>>();
        b.set_label_names(LabelNames { vertex: names(vertex, "v"), edge: names(edge, "e") });
        b.build().0
    };
    let g = named(10, 8);
    assert!(g.label_sets().is_some());
    same(&g, &load(&bytes(&g)).unwrap());
    let short = named(10, 7);
    assert!(
        err(&bytes(&short)).contains("invalid graph: edge label 7 has no name (7 names)"),
        "{}",
        err(&bytes(&short))
    );
}

#[test]
fn round_trips_directed_undirected_and_empty() {
    for directed in [false, true] {
        let g = sample(directed);
        let data = bytes(&g);
        assert_eq!(data.len() % 8, 0);
        assert!(has_magic(&data));
        same(&g, &load(&data).unwrap());
        assert_eq!(bytes(&load(&data).unwrap()), data);
        let mut sealed = data.clone();
        seal(&mut sealed);
        assert_eq!(sealed, data);
    }
    let empty = GraphBuilder::new(0, false).build().0;
    assert_eq!(load(&bytes(&empty)).unwrap().num_vertices(), 0);
    let isolated = GraphBuilder::new(3, true).build().0;
    same(&isolated, &load(&bytes(&isolated)).unwrap());
}

#[test]
fn every_flipped_byte_and_every_truncation_is_an_error() {
    for directed in [false, true] {
        let data = bytes(&sample(directed));
        for i in 0..data.len() {
            for bit in [0x01u8, 0x80] {
                let mut d = data.clone();
                d[i] ^= bit;
                err(&d);
            }
        }
        for len in 0..data.len() {
            err(&data[..len]);
        }
        let mut longer = data.clone();
        longer.extend_from_slice(&[0; 8]);
        assert!(err(&longer).contains("trailing bytes"), "{}", err(&longer));
    }
}

/// Counts near 2^64 in a resealed header or id section are errors, not overflows (found by
/// the `binary` and `binary_structured` fuzz targets on the 16-core host, 2026-11-25).
#[test]
fn counts_near_the_limits_are_errors_not_overflows() {
    let mut d = bytes(&sample(true));
    d[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    d[56..64].copy_from_slice(&2u64.to_le_bytes());
    seal(&mut d);
    assert!(err(&d).contains("inconsistent header"), "{}", err(&d));
    let g = sample(false);
    let mut b = GraphBuilder::from_parts(g.labels().to_vec(), g.edges().collect(), false);
    b.set_ids(VertexIds::names(&["a", "b", "c", "d", "e", "f", "g"]));
    let data = bytes(&b.build().0);
    let section = HEADER_LEN + u64::from_le_bytes(data[88..96].try_into().unwrap()) as usize;
    for data_len in [u64::MAX - 3, u64::MAX, 1 << 63] {
        let mut d = data.clone();
        d[section + 8..section + 16].copy_from_slice(&data_len.to_le_bytes());
        seal(&mut d);
        assert!(err(&d).contains("vertex id section: the file has"), "{}", err(&d));
    }
}

#[test]
fn messages_name_the_problem() {
    let data = bytes(&sample(false));
    assert_eq!(err(&data[..100]), "g.sgb:0: 100 bytes are too few for a binary graph (the header alone is 112)");
    assert!(err(&data[..data.len() - 8]).contains("truncated file"));
    let mut d = data.clone();
    d[0] = b'X';
    assert!(err(&d).ends_with("wrong magic bytes)"));
    let mut d = data.clone();
    d[20] ^= 1;
    assert!(err(&d).ends_with("corrupt header (checksum mismatch)"));
    let mut d = data.clone();
    d[HEADER_LEN + 3] ^= 1;
    assert!(err(&d).ends_with("corrupt payload (checksum mismatch)"));
    let mut d = data.clone();
    d[8] = 6;
    reseal(&mut d);
    assert!(err(&d).ends_with("format version 6 is not supported (this build reads versions 1 to 5)"));
    let mut d = data.clone();
    d[24] += 1;
    reseal(&mut d);
    assert!(err(&d).contains("inconsistent header"), "{}", err(&d));
    let mut d = data.clone();
    d[24..32].copy_from_slice(&(1u64 << 62).to_le_bytes());
    d[32..40].copy_from_slice(&(1u64 << 63).to_le_bytes());
    reseal(&mut d);
    assert!(err(&d).ends_with("inconsistent header: the counts overflow 64-bit sizes"), "{}", err(&d));
    let mut d = data;
    d[89] ^= 1;
    reseal(&mut d);
    assert!(err(&d).contains("inconsistent header: payload of"), "{}", err(&d));
}

/// Damage behind valid checksums is caught by the structural checks.
#[test]
fn validation_catches_resealed_damage() {
    let g = sample(true);
    let data = bytes(&g);
    let n = g.num_vertices();
    let labels_at = HEADER_LEN;
    let out_offsets_at = labels_at + padded(4 * n as u64) as usize;
    let out_nbrs_at = out_offsets_at + 8 * (n + 1);
    let write32 = |d: &mut Vec<u8>, at: usize, x: u32| d[at..at + 4].copy_from_slice(&x.to_le_bytes());
    type Damage<'a> = Box<dyn Fn(&mut Vec<u8>) + 'a>;
    let cases: Vec<(Damage, &str)> = vec![
        (Box::new(|d| write32(d, out_nbrs_at, n as u32)), "out of range"),
        (Box::new(|d| write32(d, out_nbrs_at, 0)), "self loop"),
        (Box::new(|d| write32(d, out_nbrs_at + 4, 1)), "not its sorted group members"),
        (Box::new(|d| write32(d, labels_at, 77)), "not its vertices sorted by id"),
        (Box::new(|d| d[out_offsets_at + 8] += 1), "out groups of vertex 0"),
        (Box::new(|d| d[out_offsets_at + 8 * n] += 1), "out offsets do not run from 0"),
    ];
    for (damage, want) in cases {
        let mut d = data.clone();
        damage(&mut d);
        reseal(&mut d);
        let e = err(&d);
        assert!(e.contains("invalid graph") && e.contains(want), "{e} lacks {want}");
    }
}

/// Vertex 0 has the groups (0, 1): [1, 2, 4, 5], (0, 2): [3] and (3, 0): [6].
fn grouped() -> Graph {
    let mut b = GraphBuilder::new(7, false);
    b.set_labels(vec![0, 1, 1, 2, 1, 1, 0]);
    for &(u, v, l) in &[(0, 1, 0), (0, 2, 0), (0, 4, 0), (0, 5, 0), (0, 3, 0), (0, 6, 3), (1, 2, 0), (4, 5, 0)] {
        b.add_edge(u, v, l);
    }
    b.build().0
}

/// Damage that keeps every id in range and every group's first and last neighbour of the
/// group's label is caught by the count of breaks in the (label rank, id) order.
#[test]
fn validation_catches_unsorted_and_mislabelled_group_members() {
    let g = grouped();
    assert_eq!(g.neighbors(0, Dir::Out), &[1, 2, 4, 5, 3, 6]);
    let data = bytes(&g);
    let n = g.num_vertices();
    let nbrs_at = HEADER_LEN + padded(4 * n as u64) as usize + 8 * (n + 1);
    let list_at = data.len() - 8 - padded(4 * n as u64) as usize;
    let cases: [(&[u32], usize, &str); 6] = [
        (&[1, 3, 4, 5, 3, 6], nbrs_at, "out neighbours of vertex 0 are not its sorted group members"),
        (&[1, 4, 2, 5, 3, 6], nbrs_at, "out neighbours of vertex 0 are not its sorted group members"),
        (&[1, 2, 2, 5, 3, 6], nbrs_at, "out neighbours of vertex 0 are not its sorted group members"),
        (&[1, 2, 4, 5, 3, 0], nbrs_at, "out neighbours of vertex 0: an id out of range (7 vertices) or a self loop"),
        (&[6, 0, 1, 2, 4, 5], list_at, "the vertex list of label 0 is not its vertices sorted by id"),
        (&[0, 6, 1, 2, 3, 4], list_at, "the vertex list of label 1 is not its vertices sorted by id"),
    ];
    for (values, at, want) in cases {
        let mut d = data.clone();
        for (i, x) in values.iter().enumerate() {
            d[at + 4 * i..at + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        reseal(&mut d);
        assert_eq!(err(&d), format!("g.sgb:0: invalid graph: {want}"));
    }
}

/// Byte offset of the `i`-th array of the payload of `g` (0: vertex labels, 1 to 5: out
/// offsets, neighbours, group offsets, group pairs, group ends, then in-adjacency's five).
fn array_at(g: &Graph, i: usize) -> usize {
    HEADER_LEN + Counts::of(g).arrays()[..i].iter().map(|&(len, size)| padded(len * size) as usize).sum::<usize>()
}

/// Overwrites the `k`-th u32 of the `i`-th array, reseals and returns the error.
fn forge(g: &Graph, edits: &[(usize, usize, u32)]) -> String {
    let mut d = bytes(g);
    for &(i, k, x) in edits {
        let at = array_at(g, i) + 4 * k;
        d[at..at + 4].copy_from_slice(&x.to_le_bytes());
    }
    reseal(&mut d);
    err(&d)
}

fn built(n: usize, directed: bool, edges: &[(u32, u32, u32)]) -> Graph {
    let mut b = GraphBuilder::new(n, directed);
    edges.iter().for_each(|&(u, v, l)| b.add_edge(u, v, l));
    b.build().0
}

/// Found by fuzzing (`binary_structured`): one neighbour id overwritten behind valid
/// checksums left an undirected graph's edge at one end only, and it loaded.
#[test]
fn validation_catches_edges_stored_at_one_end() {
    let asymmetric = "g.sgb:0: invalid graph: the adjacency is not symmetric: an edge is stored at one end only, \
                      or with another label at its other end";
    // The fuzzer's case: out neighbours [6, 7, 0, 1] of vertices 0, 1, 6, 7 become [6, 0, 0, 1].
    let g = built(18, false, &[(7, 1, 2), (0, 6, 2)]);
    assert_eq!(forge(&g, &[(2, 1, 0)]), asymmetric);
    // An edge of label 0 at one end and 1 at the other: vertex 1's group names pair (1, 0).
    let g = built(3, false, &[(0, 1, 0), (0, 2, 1)]);
    assert_eq!(g.pair(1), (1, 0));
    assert_eq!(forge(&g, &[(4, 2, 1)]), asymmetric);
    // Directed: in-neighbours [0] of 1 and [1] of 2 become [0] and [0]: arc 1 -> 2 is stored
    // as 0 -> 2 at its head.
    let g = built(3, true, &[(0, 1, 0), (1, 2, 0)]);
    assert_eq!(
        forge(&g, &[(7, 1, 0)]),
        "g.sgb:0: invalid graph: the in-adjacency is not the out-adjacency reversed: an arc is stored at one \
         end only, or with another label at its other end"
    );
}

/// Found by fuzzing (`binary_structured`, the 16-core host): a label pair that no group
/// has, behind valid checksums, loaded.
#[test]
fn validation_catches_unused_label_pairs() {
    // Pairs (0, 0) and (1, 0); the groups of vertices 2 and 3 (the edge of label 1) name
    // pair 0 instead, at both ends: a consistent graph whose table lists a pair too many.
    let g = built(4, false, &[(0, 1, 0), (2, 3, 1)]);
    assert_eq!((g.num_pairs(), g.pair(1)), (2, (1, 0)));
    assert_eq!(
        forge(&g, &[(4, 2, 0), (4, 3, 0)]),
        "g.sgb:0: invalid graph: label pair (1, 0) is in the table but no edge has it"
    );
}

/// Found by fuzzing (`binary`, the 16-core host): an edge label in the table that no label
/// pair has, behind valid checksums, loaded.
#[test]
fn validation_catches_unused_edge_labels() {
    // Vertex 4 (label 1) has no edge; the pairs are (0, 0) and (5, 0).
    let mut b = GraphBuilder::new(5, false);
    b.set_labels(vec![0, 0, 0, 0, 1]);
    [(0, 1, 0), (2, 3, 5)].iter().for_each(|&(u, v, l)| b.add_edge(u, v, l));
    let g = b.build().0;
    assert_eq!((g.pair(1), g.edge_label_values()), ((5, 0), &[0, 5][..]));
    // The pair table (array 6) says (0, 1) instead of (5, 0): sorted, its labels in the
    // tables, but edge label 5 on no pair.
    assert_eq!(
        forge(&g, &[(6, 2, 0), (6, 3, 1)]),
        "g.sgb:0: invalid graph: edge label 5 is in the table but no edge has it"
    );
}

/// Found by fuzzing (`binary_structured`): a neighbour in two groups of different edge
/// labels (parallel edges, which the builder never writes) loaded.
#[test]
fn validation_catches_parallel_edges() {
    // Vertex 0's groups (0, 0): [1] and (1, 0): [2] become [1] and [1].
    let g = built(3, false, &[(0, 1, 0), (0, 2, 1)]);
    assert_eq!(g.neighbors(0, Dir::Out), &[1, 2]);
    assert_eq!(
        forge(&g, &[(2, 1, 1)]),
        "g.sgb:0: invalid graph: out neighbours of vertex 0: a neighbour twice (parallel edges)"
    );
}

/// What the fast validation stands for, checked the slow way: every group sorted by id,
/// holding in-range neighbours of its label other than the vertex, every label's vertex
/// list its vertices.
fn invariants_hold(g: &Graph) -> bool {
    let n = g.num_vertices() as u32;
    let groups_ok = (0..n).all(|v| {
        [Dir::Out, Dir::In].iter().all(|&dir| {
            g.neighbor_groups(v, dir).all(|(pair, nbrs)| {
                nbrs.windows(2).all(|w| w[0] < w[1])
                    && nbrs.iter().all(|&w| w < n && w != v && g.label(w) == g.pair(pair).1)
            })
        })
    });
    groups_ok
        && g.vertex_label_values()
            .iter()
            .all(|&l| g.vertices_with_label(l).iter().copied().eq((0..n).filter(|&v| g.label(v) == l)))
}

/// Any u32 of the payload, or any two at random, replaced by small ids, labels and counts
/// behind valid checksums: the file is rejected, or its graph meets every invariant the
/// matcher relies on.
#[test]
fn forged_payloads_are_rejected_or_valid() {
    let mut x = 7u64;
    let mut next = move |below: usize| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize % below
    };
    for g in [grouped(), sample(true), sample(false)] {
        let data = bytes(&g);
        let slots = (data.len() - HEADER_LEN) / 4;
        let values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, u32::MAX];
        let single = (0..slots).flat_map(|i| values.iter().map(move |&x| vec![(i, x)]));
        let double = (0..10_000).map(|_| (0..2).map(|_| (next(slots), values[next(values.len())])).collect());
        let (mut accepted, mut rejected) = (0, 0);
        for damage in single.chain(double).collect::<Vec<Vec<(usize, u32)>>>() {
            let mut d = data.clone();
            for &(i, x) in &damage {
                let at = HEADER_LEN + 4 * i;
                d[at..at + 4].copy_from_slice(&x.to_le_bytes());
            }
            reseal(&mut d);
            match load(&d) {
                Ok(forged) => {
                    assert!(invariants_hold(&forged), "{damage:?}");
                    accepted += 1;
                }
                Err(_) => rejected += 1,
            }
        }
        assert!(accepted > 0 && rejected > accepted, "{accepted} accepted, {rejected} rejected");
    }
}

/// The payload checksum is the XXH3-64 of the chunks' XXH3-64s, whose damage in any chunk
/// is found; the chunks are read in parallel.
#[test]
fn round_trips_a_graph_of_several_chunks() {
    let n = 300_000u32;
    let mut b = GraphBuilder::new(n as usize, true);
    b.set_labels((0..n).map(|v| v % 5).collect());
    let mut x = 1u64;
    for _ in 0..400_000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        b.add_edge((x >> 33) as u32 % n, (x >> 13) as u32 % n, (x % 3) as u32);
    }
    let g = b.build().0;
    assert!(!g.loops().is_empty(), "a label set section after the payload");
    let data = bytes(&g);
    let payload_len = u64::from_le_bytes(data[88..96].try_into().unwrap()) as usize;
    let payload = &data[HEADER_LEN..HEADER_LEN + payload_len];
    assert!(payload.len() > 5 * CHUNK);
    let sums: Vec<u8> = payload.chunks(CHUNK).flat_map(|c| xxh3_64(c).to_le_bytes()).collect();
    assert_eq!(data[96..104], xxh3_64(&sums).to_le_bytes());
    same(&g, &load(&data).unwrap());
    for at in [HEADER_LEN + 2 * CHUNK + 5, HEADER_LEN + payload_len - 9] {
        let mut d = data.clone();
        d[at] ^= 0x10;
        assert!(err(&d).ends_with("corrupt payload (checksum mismatch)"), "{}", err(&d));
    }
    assert!(err(&data[..data.len() - CHUNK]).contains("truncated file"));
}

#[test]
fn reads_files_and_checks_the_length_first() {
    let dir = std::env::temp_dir().join(format!("sgb-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.sgb");
    let g = sample(false);
    write(&g, std::fs::File::create(&path).unwrap()).unwrap();
    same(&g, &read(&path, MapMode::Off).unwrap());
    let mapped = read(&path, MapMode::On).unwrap();
    same(&g, &mapped);
    assert!(mapped.mapped_bytes() > 0 && mapped.mapped_bytes() < mapped.memory_bytes());
    assert_eq!(read(&path, MapMode::Auto).unwrap().mapped_bytes(), 0, "a small file is read");
    // Found by its magic bytes whatever the extension.
    let other = dir.join("a.bin");
    std::fs::copy(&path, &other).unwrap();
    same(&g, &super::super::read_graph(&other, &Default::default()).unwrap().graph);
    let data = std::fs::read(&path).unwrap();
    std::fs::write(&path, &data[..data.len() - 1]).unwrap();
    for mode in [MapMode::Off, MapMode::On] {
        let e = read(&path, mode).unwrap_err().to_string();
        assert!(e.contains("a.sgb:0: truncated file"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn auto_maps_files_larger_than_half_the_memory() {
    let little = cfg!(target_endian = "little");
    assert_eq!(MapMode::Auto.maps(600, || Some(1000)), little);
    assert!(!MapMode::Auto.maps(500, || Some(1000)));
    assert!(!MapMode::Auto.maps(600, || None), "unknown memory: read");
    assert_eq!(MapMode::On.maps(1, || Some(1000)), little);
    assert!(!MapMode::Off.maps(u64::MAX, || Some(1000)));
    for &name in MapMode::NAMES {
        assert!(MapMode::from_name(name).is_some());
    }
}
