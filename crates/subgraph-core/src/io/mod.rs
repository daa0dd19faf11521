//! Readers and writers of the field's graph formats, chosen by extension or content, or named.

pub mod binary;
pub mod edgelist;
pub mod gsi;
pub mod konect;
mod lossless;
pub mod mtx;
pub mod neo4j;
pub mod props;
pub mod rdf;
mod remap;
pub mod source;
pub mod sunluo;
mod text;

use crate::error::Error;
use crate::graph::{BuildStats, Graph, GraphBuilder};
use crate::host::bytes;
pub use binary::MapMode;
pub use remap::{number_labels, IdMode, KEEP_IDS_PER_BYTE, KEEP_IDS_SLACK, MAX_NAME_LEN};
use source::Input;
use std::path::{Path, PathBuf};

/// A graph file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Sun & Luo `.graph` (undirected).
    SunLuo,
    /// GSI `.g` (directed, edge-labelled, several graphs per file).
    Gsi,
    /// `u v [label]` lines.
    EdgeList,
    /// The `.sgb` binary format of [`binary`].
    Binary,
    /// Matrix Market coordinate files (`.mtx`).
    Mtx,
    /// KONECT networks (`out.NAME`).
    Konect,
    /// RDF N-Triples or N-Quads (`.nt`, `.nq`), as a property graph ([`rdf`]).
    Rdf,
}

impl Format {
    pub const NAMES: &'static [&'static str] = &["graph", "gsi", "edges", "binary", "mtx", "konect", "rdf"];

    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "graph" | "sunluo" => Some(Format::SunLuo),
            "gsi" | "g" => Some(Format::Gsi),
            "edges" | "edgelist" => Some(Format::EdgeList),
            "binary" | "sgb" => Some(Format::Binary),
            "mtx" => Some(Format::Mtx),
            "konect" => Some(Format::Konect),
            "rdf" | "nt" | "nq" | "ntriples" | "nquads" => Some(Format::Rdf),
            _ => None,
        }
    }

    /// Whether the format's vertex ids are the file's own (compacted or kept by [`IdMode`]),
    /// and a vertex label file can be applied to it.
    pub fn has_free_ids(self) -> bool {
        matches!(self, Format::EdgeList | Format::Mtx | Format::Konect)
    }

    /// The format a file's name says, if any: its extension, or KONECT's `out.` prefix.
    pub fn from_extension(path: &Path) -> Option<Format> {
        if path.file_name()?.to_str()?.starts_with("out.") {
            return Some(Format::Konect);
        }
        match path.extension()?.to_str()? {
            "graph" => Some(Format::SunLuo),
            "g" | "gsi" => Some(Format::Gsi),
            "txt" | "edges" | "el" | "tsv" | "snap" => Some(Format::EdgeList),
            "sgb" => Some(Format::Binary),
            "mtx" => Some(Format::Mtx),
            "nt" | "nq" => Some(Format::Rdf),
            _ => None,
        }
    }

    /// The format the content looks like: the binary magic bytes, the Matrix Market banner,
    /// a KONECT first line, else by the first line that is not a comment: `t #` starts GSI, `t`
    /// Sun & Luo, an IRI (`<…`) or a blank node (`_:…`) ending in `.` N-Triples or N-Quads,
    /// else an edge list.
    pub fn sniff(data: &[u8]) -> Format {
        if binary::has_magic(data) {
            return Format::Binary;
        }
        if mtx::has_banner(data) {
            return Format::Mtx;
        }
        if konect::has_header(data) {
            return Format::Konect;
        }
        let first = data
            .split(|&c| c == b'\n')
            .map(<[u8]>::trim_ascii)
            .find(|l| !l.is_empty() && l[0] != b'#' && l[0] != b'%')
            .unwrap_or(b"");
        if (first.starts_with(b"<") || first.starts_with(b"_:")) && first.ends_with(b".") {
            return Format::Rdf;
        }
        let mut tokens = first.split(|c| c.is_ascii_whitespace()).filter(|t| !t.is_empty());
        match (tokens.next(), tokens.next()) {
            (Some(b"t"), Some(b"#")) => Format::Gsi,
            (Some(b"t"), _) => Format::SunLuo,
            _ => Format::EdgeList,
        }
    }
}

/// How to read a file.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Format; None picks by extension, then by content.
    pub format: Option<Format>,
    /// Edge lists only: edges are directed.
    pub directed: bool,
    /// Edge lists, Matrix Market and KONECT: a file of `id label…` lines (one label or more), in
    /// the file's ids, read through [`source`] like the graph.
    pub vertex_labels: Option<PathBuf>,
    /// Edge lists, Matrix Market and KONECT: how ids become vertices.
    pub ids: IdMode,
    /// Binary graphs read from a file: mapped or read into memory.
    pub map: MapMode,
    /// The most bytes a compressed input may decompress to, and standard input or a vertex
    /// label file may hold (`--max-memory`); more is an error before the memory is taken.
    pub max_bytes: Option<u64>,
}

/// A graph read from a file, with what the builder dropped.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub graph: Graph,
    pub stats: BuildStats,
    /// The vertex label file read from beside an edge list (`FILE.labels`, as `write_graph`
    /// writes it) without being named, for the front ends to say so.
    pub labels_beside: Option<PathBuf>,
    /// What the input held that the graph does not keep as such, for the front ends to say
    /// (Neo4j's relationship properties, relationships merged).
    pub notes: Vec<String>,
}

/// Reads every graph of a file (GSI files may hold several; the other formats hold one).
/// `-` reads standard input; gzip and zstd input is decompressed (see [`source`]), and the
/// format comes from the extension under `.gz`/`.zst`, else from the content.
pub fn read_graphs(path: &Path, opts: &ReadOptions) -> Result<Vec<Loaded>, Error> {
    let file = source::display_name(path);
    let named = opts.format.or_else(|| Format::from_extension(&source::uncompressed_name(path)));
    let input = source::open(path, opts.max_bytes)?;
    if named == Some(Format::Binary) || (named.is_none() && binary::has_magic(input.head())) {
        check_labels_apply(file, Format::Binary, opts.vertex_labels.is_some())?;
        let graph = match input {
            Input::File { .. } => binary::read(path, opts.map)?,
            Input::Bytes(data) => binary::decode(file, data.as_slice(), data.len() as u64)?,
        };
        return Ok(vec![Loaded { graph, stats: BuildStats::default(), labels_beside: None, notes: Vec::new() }]);
    }
    let data = input.into_bytes(file, opts.max_bytes)?;
    if named.is_none() && is_partition_manifest(&data) {
        return Err(Error::Parse { file: file.to_path_buf(), line: 1, msg: PARTITION_MANIFEST.into() });
    }
    let format = named.unwrap_or_else(|| Format::sniff(&data));
    // An edge list's labels written beside it (`write_graph`), read back unless another file
    // is named.
    let beside = match (&opts.vertex_labels, format) {
        (None, Format::EdgeList) if !source::is_stdin(path) => Some(labels_path(path)).filter(|p| p.is_file()),
        _ => None,
    };
    let labels = match opts.vertex_labels.as_deref().or(beside.as_deref()) {
        Some(lp) => Some((source::display_name(lp), source::read(lp, opts.max_bytes)?)),
        None => None,
    };
    let parsed = parse(file, format, &data, labels.as_ref().map(|(lp, d)| (*lp, d.as_slice())), opts)?;
    // The text is no longer needed while the builder sorts the edges.
    drop((data, labels));
    let mut all = finish_all(file, parsed)?;
    all.iter_mut().for_each(|l| l.labels_beside = beside.clone());
    Ok(all)
}

/// Why a partition's manifest is not read as a graph.
const PARTITION_MANIFEST: &str = "a partition's manifest (`subgraph partition`), which only the cluster mode reads \
                                  (`match MANIFEST QUERY --local-processes N` or `--cluster HOSTS`); give the \
                                  graph it was made from";

/// The `format` field of a partition's manifest (`subgraph partition`; subgraph-cluster writes
/// and checks it).
pub const PARTITION_FORMAT: &str = "subgraph-partition";

/// Whether `data` is a partition's manifest (JSON of format [`PARTITION_FORMAT`]), which no
/// graph format reads: an edge list's reader would call its first brace a bad vertex id.
fn is_partition_manifest(data: &[u8]) -> bool {
    let head = &data[..data.len().min(4096)];
    let quoted = format!("\"{PARTITION_FORMAT}\"");
    head.trim_ascii_start().starts_with(b"{") && head.windows(quoted.len()).any(|w| w == quoted.as_bytes())
}

/// Reads every graph of a file held in memory: `data` is the file `path` (named in errors),
/// `labels` the vertex label file of `opts.vertex_labels` with its content.
pub fn parse_graphs(
    path: &Path,
    data: &[u8],
    labels: Option<(&Path, &[u8])>,
    opts: &ReadOptions,
) -> Result<Vec<Loaded>, Error> {
    let format = opts.format.or_else(|| Format::from_extension(path)).unwrap_or_else(|| Format::sniff(data));
    finish_all(path, parse(path, format, data, labels, opts)?)
}

/// A file's graphs, read: loaded whole (binary) or still to be built.
enum Parsed {
    Graph(Box<Graph>),
    Builders(Vec<GraphBuilder>),
}

fn parse(
    path: &Path,
    format: Format,
    data: &[u8],
    labels: Option<(&Path, &[u8])>,
    opts: &ReadOptions,
) -> Result<Parsed, Error> {
    check_labels_apply(path, format, labels.is_some())?;
    Ok(Parsed::Builders(match format {
        Format::Binary => return Ok(Parsed::Graph(Box::new(binary::decode(path, data, data.len() as u64)?))),
        Format::SunLuo => vec![sunluo::parse(path, data)?],
        Format::Gsi => gsi::parse_all(path, data)?,
        Format::Rdf => vec![rdf::parse(path, data)?],
        Format::EdgeList | Format::Mtx | Format::Konect => {
            let mut raw = match format {
                Format::Mtx => mtx::parse(path, data, opts.ids)?,
                Format::Konect => konect::parse(path, data, opts.ids)?,
                _ => edgelist::parse(path, data, opts.directed, opts.ids)?,
            };
            if let Some((lp, ld)) = labels {
                edgelist::parse_labels(lp, ld, &mut raw)?;
            }
            vec![raw.into_builder(path)?]
        }
    }))
}

fn finish_all(path: &Path, parsed: Parsed) -> Result<Vec<Loaded>, Error> {
    match parsed {
        Parsed::Graph(graph) => {
            Ok(vec![Loaded { graph: *graph, stats: BuildStats::default(), labels_beside: None, notes: Vec::new() }])
        }
        Parsed::Builders(b) => b.into_iter().map(|b| finish(path, b)).collect(),
    }
}

/// A vertex label file only applies to formats whose vertices are the file's own ids.
fn check_labels_apply(path: &Path, format: Format, labelled: bool) -> Result<(), Error> {
    if labelled && !format.has_free_ids() {
        return Err(Error::Parse {
            file: path.to_path_buf(),
            line: 0,
            msg: "a vertex label file applies to edge lists, Matrix Market and KONECT files; this file has its labels"
                .into(),
        });
    }
    Ok(())
}

fn finish(path: &Path, b: GraphBuilder) -> Result<Loaded, Error> {
    let (graph, stats) =
        b.try_build().map_err(|e| Error::Parse { file: path.to_path_buf(), line: 0, msg: e.to_string() })?;
    Ok(Loaded { graph, stats, labels_beside: None, notes: Vec::new() })
}

/// Reads a graph from Neo4j bulk-import CSV files ([`neo4j`]): every node file, then every
/// relationship file, each read through [`source`] (compressed files, `-`), all of them
/// together within `opts.max_bytes`; the graph is directed and takes its ids, labels and
/// properties from the files, so the other options do not apply. Its notes say what the files
/// hold that it does not keep: relationship properties, and relationships merged into one of
/// the same type between the same nodes (see [`BuildStats::duplicates`]).
pub fn read_neo4j(nodes: &[PathBuf], relationships: &[PathBuf], opts: &ReadOptions) -> Result<Loaded, Error> {
    let mut reader = neo4j::Reader::default();
    let mut held = 0u64;
    let files = nodes.iter().map(|p| (p, true)).chain(relationships.iter().map(|p| (p, false)));
    for (path, is_node) in files {
        let file = source::display_name(path);
        let data = source::read(path, opts.max_bytes.map(|m| m.saturating_sub(held))).map_err(|e| match e {
            Error::Limit(_) if held > 0 => Error::Limit(format!(
                "{}: with the node and relationship files before it, more than --max-memory {}",
                file.display(),
                bytes(opts.max_bytes.unwrap_or_default())
            )),
            e => e,
        })?;
        held += data.len() as u64;
        match is_node {
            true => reader.nodes(file, &data)?,
            false => reader.relationships(file, &data)?,
        }
    }
    finish_neo4j(nodes.first().map(|p| source::display_name(p)), reader)
}

/// [`read_neo4j`] over files held in memory: (name, content) of each node file and each
/// relationship file.
pub fn parse_neo4j(nodes: &[(&Path, &[u8])], relationships: &[(&Path, &[u8])]) -> Result<Loaded, Error> {
    let mut reader = neo4j::Reader::default();
    for (file, data) in nodes {
        reader.nodes(file, data)?;
    }
    for (file, data) in relationships {
        reader.relationships(file, data)?;
    }
    finish_neo4j(nodes.first().map(|n| n.0), reader)
}

fn finish_neo4j(first: Option<&Path>, reader: neo4j::Reader) -> Result<Loaded, Error> {
    let Some(first) = first else {
        return Err(Error::Parse { file: "--nodes".into(), line: 0, msg: "no node file given".into() });
    };
    let (b, mut notes) = reader.finish(first)?;
    let mut loaded = finish(first, b)?;
    if loaded.stats.duplicates > 0 {
        notes.push(format!(
            "{} relationships repeat one of the same type between the same two nodes and were merged into it \
             (Neo4j would keep each, and Cypher count each)",
            loaded.stats.duplicates
        ));
    }
    loaded.notes = notes;
    Ok(loaded)
}

/// Reads a file that must hold exactly one graph.
pub fn read_graph(path: &Path, opts: &ReadOptions) -> Result<Loaded, Error> {
    let mut all = read_graphs(path, opts)?;
    if all.len() != 1 {
        return Err(Error::Parse {
            file: source::display_name(path).to_path_buf(),
            line: 0,
            msg: format!("expected one graph, the file holds {}", all.len()),
        });
    }
    Ok(all.pop().expect("one graph"))
}

/// Why `format` cannot hold `g` without loss, in one line; None where it can. Sun & Luo `.graph`
/// and GSI `.g` files hold one label per vertex and one edge per pair (their readers take an
/// `e v v` line for a self loop, so loops are written); edge lists and `.sgb` files hold
/// everything. Formats that are not written at all are refused by [`write_graph`] apart.
pub fn unwritable(g: &Graph, format: Format) -> Option<String> {
    match format {
        Format::SunLuo => lossless::one_label_per_vertex(g, lossless::SUNLUO),
        Format::Gsi => lossless::one_label_per_vertex(g, lossless::GSI),
        _ => None,
    }
}

/// Writes `g` to `path` in `format` (`-`: standard output); edge lists get their vertex labels
/// in `path.labels`, which standard output cannot hold: there an edge list of a graph with
/// vertex labels is refused. A graph the format cannot hold ([`unwritable`]) is refused before
/// anything is written.
pub fn write_graph(g: &Graph, path: &Path, format: Format) -> Result<(), Error> {
    let stdout = source::is_stdin(path);
    let name = if stdout { Path::new("<stdout>") } else { path };
    if matches!(format, Format::Mtx | Format::Konect | Format::Rdf) {
        return Err(Error::Parse {
            file: path.to_path_buf(),
            line: 0,
            msg: "writing Matrix Market, KONECT or RDF files is not supported; write an edge list".into(),
        });
    }
    if let Some(msg) = unwritable(g, format) {
        return Err(Error::Unwritable { file: name.to_path_buf(), msg });
    }
    let io = |source| Error::Io { file: name.to_path_buf(), source };
    let create = |p: &Path| std::fs::File::create(p).map(std::io::BufWriter::new);
    let w: Box<dyn std::io::Write> = match stdout {
        true => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        false => Box::new(create(path).map_err(io)?),
    };
    match format {
        Format::Mtx | Format::Konect | Format::Rdf => unreachable!("refused above"),
        Format::SunLuo => sunluo::write(g, w),
        Format::Gsi => gsi::write(g, w),
        Format::Binary => binary::write(g, w),
        Format::EdgeList if stdout => {
            let labelled = g.vertex_label_values().iter().any(|&l| l != 0) || g.label_names().is_some();
            if labelled {
                return Err(Error::Parse {
                    file: name.to_path_buf(),
                    line: 0,
                    msg: "an edge list keeps its vertex labels in a FILE.labels beside it, which standard output \
                          cannot hold; write to a file, or as graph, gsi or binary"
                        .into(),
                });
            }
            edgelist::write(g, w, None::<std::io::Sink>)
        }
        Format::EdgeList => {
            let lp = labels_path(path);
            let lw = create(&lp).map_err(|source| Error::Io { file: lp.clone(), source })?;
            edgelist::write(g, w, Some(lw))
        }
    }
    .map_err(io)
}

/// Where an edge list's vertex labels are written: `FILE.labels` beside it.
pub fn labels_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".labels");
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_manifest_is_named_not_read_as_an_edge_list() {
        let dir = std::env::temp_dir().join(format!("sgm-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("manifest.json");
        std::fs::write(&path, "{\n  \"format\": \"subgraph-partition\",\n  \"version\": 1\n}\n").unwrap();
        let e = read_graphs(&path, &ReadOptions::default()).err().unwrap().to_string();
        assert_eq!(e, format!("{}:1: {PARTITION_MANIFEST}", path.display()));
        // Other JSON is no manifest: the edge list's own error.
        std::fs::write(&path, "{\"format\": \"other\"}\n").unwrap();
        let e = read_graphs(&path, &ReadOptions::default()).err().unwrap().to_string();
        assert!(e.contains("bad source id"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn formats_of_one_label_per_vertex_and_one_edge_per_pair_refuse_sets_in_one_line() {
        let dir = std::env::temp_dir().join(format!("sgw-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut b = GraphBuilder::new(4, false);
        b.set_labels(vec![1, 2, 1, 1]);
        b.add_label(0, 2);
        b.add_label(2, 3);
        for (u, v, l) in [(0, 1, 0), (1, 0, 1), (1, 2, 0), (2, 3, 0), (2, 3, 4), (3, 3, 5)] {
            b.add_edge(u, v, l);
        }
        let g = b.build().0;
        for (format, file, name) in
            [(Format::SunLuo, "g.graph", "a Sun & Luo .graph file"), (Format::Gsi, "g.g", "a GSI .g file")]
        {
            let path = dir.join(file);
            let e = write_graph(&g, &path, format).unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "{}: {name} holds one label per vertex and one edge per pair: 2 vertices have several labels \
                     and 2 pairs have several edges; write an edge list or .sgb",
                    path.display()
                )
            );
            assert!(!path.exists(), "refused before anything is written");
            let mut out = Vec::new();
            let direct = if format == Format::SunLuo { sunluo::write(&g, &mut out) } else { gsi::write(&g, &mut out) };
            assert_eq!(direct.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
        }
        // One of each: singular words; a graph of loops alone is written (see the writers).
        let mut b = GraphBuilder::new(2, false);
        b.add_label(0, 1);
        b.add_edge(0, 1, 0);
        b.add_edge(0, 1, 1);
        let e = unwritable(&b.build().0, Format::SunLuo).unwrap();
        assert!(e.ends_with("1 vertex has several labels and 1 pair has several edges; write an edge list or .sgb"));
        for format in [Format::EdgeList, Format::Binary] {
            assert_eq!(unwritable(&g, format), None);
            write_graph(&g, &dir.join("g.out"), format).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sniffs_formats() {
        assert_eq!(Format::sniff(b"t # 0\n"), Format::Gsi);
        assert_eq!(Format::sniff(b"\n t 3 2\n"), Format::SunLuo);
        assert_eq!(Format::sniff(b"# c\n0 1\n"), Format::EdgeList);
        assert_eq!(Format::from_extension(Path::new("a/b.g")), Some(Format::Gsi));
        assert_eq!(Format::from_extension(Path::new("b.sgb")), Some(Format::Binary));
        assert_eq!(Format::sniff(b"\x89SGB\r\n\x1a\nt 1 0\n"), Format::Binary);
        assert_eq!(Format::from_name("binary"), Some(Format::Binary));
        // N-Triples by content (standard input, a file without `.nt`).
        assert_eq!(Format::sniff(b"# people\n<http://x/a> <http://x/knows> <http://x/b> .\n"), Format::Rdf);
        assert_eq!(Format::sniff(b"_:b0 <http://x/p> \"v\" .\n"), Format::Rdf);
        assert_eq!(Format::sniff(b"<a> <b>\n"), Format::EdgeList);
    }
}
