//! Hostile partitions: a manifest or a part that is malformed, altered or inconsistent is
//! refused with an error naming the file and the problem, never a panic.

use std::path::{Path, PathBuf};
use subgraph_cluster::{partition, Local, Manifest, Rule};
use subgraph_core::GraphBuilder;

/// A small partition in `dir`, 3 parts by hash.
fn small(dir: &Path) -> PathBuf {
    let mut b = GraphBuilder::new(12, false);
    (0..12u32).for_each(|v| b.add_edge(v, (v + 1) % 12, 0));
    b.set_labels((0..12).map(|v| v % 3).collect());
    partition(&b.build().0, 3, Rule::Hash, dir).unwrap();
    dir.join("manifest.json")
}

fn load_error(manifest: &Path) -> String {
    let e = Local::load(manifest, 0, 1).err().expect("refused").to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn altered_manifests_are_refused_naming_the_file_and_the_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let path = small(tmp.path());
    let good = std::fs::read_to_string(&path).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("\"version\": 1", "\"version\": 9", "version 9"),
        ("\"parts\": 3", "\"parts\": 4", "4 parts but 3 files"),
        ("\"file\": \"part-1.sgb\"", "\"file\": \"../part-1.sgb\"", "not a plain file name"),
        ("\"file\": \"part-1.sgb\"", "\"file\": \"part-0.sgb\"", "named twice"),
        ("\"rule\": \"hash\"", "\"rule\": \"range\", \"starts\": [0, 9, 4]", "range starts decrease"),
        ("\"vertices\": 12", "\"vertices\": 13", "own 12 vertices"),
        ("\"format\"", "\"extra\": 1, \"format\"", "unknown field"),
    ];
    for (from, to, problem) in cases {
        assert!(good.contains(from), "{from}");
        std::fs::write(&path, good.replacen(from, to, 1)).unwrap();
        let e = load_error(&path);
        assert!(e.contains("manifest.json") && e.contains(problem), "{to}: {e}");
    }
    for junk in ["", "{", "[1, 2]", "\u{0}\u{1}", "{\"format\": 5}"] {
        std::fs::write(&path, junk).unwrap();
        assert!(load_error(&path).contains("manifest.json"));
    }
    let missing = tmp.path().join("none.json");
    assert!(load_error(&missing).contains("none.json"));
}

#[test]
fn altered_parts_are_refused_naming_the_part() {
    let tmp = tempfile::tempdir().unwrap();
    let path = small(tmp.path());
    let part = tmp.path().join("part-2.sgb");
    let bytes = std::fs::read(&part).unwrap();
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(&part, &flipped).unwrap();
    let e = load_error(&path);
    assert!(e.contains("part-2.sgb") && e.contains("checksum"), "{e}");
    std::fs::write(&part, &bytes[..bytes.len() / 2]).unwrap();
    assert!(load_error(&path).contains("bytes, the manifest says"));
    std::fs::remove_file(&part).unwrap();
    assert!(load_error(&path).contains("part-2.sgb"));
    // A part of another graph, its checksum and size written into the manifest: the part's
    // contents are checked against the manifest too.
    let other = tempfile::tempdir().unwrap();
    let mut b = GraphBuilder::new(5, false);
    b.add_edge(0, 1, 0);
    partition(&b.build().0, 3, Rule::Hash, other.path()).unwrap();
    std::fs::copy(other.path().join("part-2.sgb"), &part).unwrap();
    let mut m = Manifest::load(&path).unwrap();
    let theirs = Manifest::load(&other.path().join("manifest.json")).unwrap();
    (m.files[2].bytes, m.files[2].xxh3) = (theirs.files[2].bytes, theirs.files[2].xxh3.clone());
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
    let e = load_error(&path);
    assert!(e.contains("part-2.sgb") && e.contains("vertex count"), "{e}");
    // More processes than parts.
    let e = Local::load(&small(tmp.path()), 0, 4).err().unwrap().to_string();
    assert!(e.contains("4 processes") && e.contains("3 parts"), "{e}");
}
