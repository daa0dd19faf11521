//! Where an input's bytes come from: a file or standard input (`-`), decompressed on read when
//! gzip or zstd compressed (told by the magic bytes, else by a `.gz` or `.zst` extension). Under
//! a byte cap (`--max-memory`) the content is read in growing pieces and refused as soon as it
//! passes the cap, so that a decompression bomb or an endless pipe never takes more.

use crate::error::Error;
use crate::host::bytes;
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The path that names standard input.
pub const STDIN: &str = "-";
/// How errors name standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Bytes read ahead to tell the content by: the longest magic, the binary format's.
const HEAD_LEN: u64 = 8;

/// The first piece a stream of unknown length is read in; each later one doubles what is held.
const FIRST_PIECE: u64 = 64 << 10;

/// A compression that inputs are read through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
        }
    }

    /// The compression a file's extension names: `.gz` or `.zst`.
    pub fn from_extension(path: &Path) -> Option<Compression> {
        match path.extension()?.to_str()? {
            "gz" => Some(Compression::Gzip),
            "zst" => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The compression whose magic bytes `data` starts with: gzip `1f 8b`, zstd `28 b5 2f fd`.
    pub fn sniff(data: &[u8]) -> Option<Compression> {
        if data.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }

    /// Decompresses all of `input` (several gzip members or zstd frames in a row make one
    /// stream) into a vector that grows with the output; no size in the stream is trusted.
    /// More than `max_bytes` of output is an error once the cap is passed: the vector never
    /// holds more than `max_bytes` + 1 bytes.
    pub fn decompress(self, file: &Path, input: impl Read, max_bytes: Option<u64>) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        let within = match self {
            Compression::Gzip => read_within(flate2::read::MultiGzDecoder::new(input), &mut out, max_bytes, 0),
            Compression::Zstd => {
                zstd::stream::read::Decoder::new(input).and_then(|d| read_within(d, &mut out, max_bytes, 0))
            }
        }
        .map_err(|error| Error::Decompress { file: file.to_path_buf(), codec: self.name(), error })?;
        if !within {
            return Err(too_large(file, "decompresses to", max_bytes));
        }
        Ok(out)
    }
}

/// Reads `r` to its end after the bytes `out` holds, in pieces (the first `hint` + 1 bytes,
/// or [`FIRST_PIECE`], then each as large as what is held), each read into room reserved for
/// it alone. False, with the rest left unread, once `out` holds more than `max_bytes`: it
/// never holds more than `max_bytes` + 1.
fn read_within(mut r: impl Read, out: &mut Vec<u8>, max_bytes: Option<u64>, hint: u64) -> std::io::Result<bool> {
    let limit = max_bytes.map_or(u64::MAX, |m| m.saturating_add(1));
    let mut piece = hint.saturating_add(1).max(FIRST_PIECE);
    loop {
        let room = limit.saturating_sub(out.len() as u64);
        if room == 0 {
            return Ok(false);
        }
        let want = piece.min(room);
        out.reserve_exact(usize::try_from(want).unwrap_or(usize::MAX));
        let got = (&mut r).take(want).read_to_end(out)? as u64;
        if got < want {
            return Ok(max_bytes.is_none_or(|m| out.len() as u64 <= m));
        }
        piece = out.len() as u64;
    }
}

/// The error of an input larger than the cap `max_bytes` (`what` it does: "decompresses to").
fn too_large(file: &Path, what: &str, max_bytes: Option<u64>) -> Error {
    let cap = max_bytes.expect("only a cap is passed");
    Error::Limit(format!("{}: {what} more than --max-memory {}", file.display(), bytes(cap)))
}

/// Whether `path` names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// How errors and reports name `path`: `<stdin>` for `-`, else the path.
pub fn display_name(path: &Path) -> &Path {
    if is_stdin(path) {
        Path::new(STDIN_NAME)
    } else {
        path
    }
}

/// `path` without a compression extension, to tell the format by: `x.graph.gz` gives
/// `x.graph`, `x.gz` gives `x`.
pub fn uncompressed_name(path: &Path) -> Cow<'_, Path> {
    match Compression::from_extension(path) {
        Some(_) => Cow::Owned(path.with_extension("")),
        None => Cow::Borrowed(path),
    }
}

/// An input as [`open`] found it.
#[derive(Debug)]
pub enum Input {
    /// A plain file, left for the format's reader; `head` holds its first bytes (up to 8),
    /// already read from it.
    File { file: File, head: Vec<u8> },
    /// Standard input or a decompressed file, whole.
    Bytes(Vec<u8>),
}

impl Input {
    /// The first bytes of the content (all of it when read whole, else up to 8), to tell its
    /// format by.
    pub fn head(&self) -> &[u8] {
        match self {
            Input::File { head, .. } => head,
            Input::Bytes(data) => data,
        }
    }

    /// The whole content; `file` names the input in errors. A file of more than `max_bytes`
    /// is an error.
    pub fn into_bytes(self, file: &Path, max_bytes: Option<u64>) -> Result<Vec<u8>, Error> {
        match self {
            Input::Bytes(data) => Ok(data),
            Input::File { file: f, mut head } => {
                let io = |source| Error::Io { file: file.to_path_buf(), source };
                let len = f.metadata().map_err(io)?.len();
                if !read_within(f, &mut head, max_bytes, len).map_err(io)? {
                    return Err(too_large(file, "holds", max_bytes));
                }
                Ok(head)
            }
        }
    }
}

/// Opens `path`, or standard input for `-`. Compressed content is decompressed whole here;
/// standard input is read whole. Either is refused once it passes `max_bytes`.
pub fn open(path: &Path, max_bytes: Option<u64>) -> Result<Input, Error> {
    let name = display_name(path);
    let io = |source| Error::Io { file: name.to_path_buf(), source };
    if is_stdin(path) {
        let mut stdin = std::io::stdin().lock();
        let head = read_head(&mut stdin).map_err(io)?;
        let compression = Compression::sniff(&head);
        return read_rest(name, head, stdin, compression, max_bytes).map(Input::Bytes);
    }
    let mut file = File::open(path).map_err(io)?;
    let head = read_head(&mut file).map_err(io)?;
    match Compression::sniff(&head).or_else(|| Compression::from_extension(path)) {
        Some(c) => read_rest(name, head, file, Some(c), max_bytes).map(Input::Bytes),
        None => Ok(Input::File { file, head }),
    }
}

/// The whole content of `path` (standard input for `-`), decompressed; more than `max_bytes`
/// is an error.
pub fn read(path: &Path, max_bytes: Option<u64>) -> Result<Vec<u8>, Error> {
    open(path, max_bytes)?.into_bytes(display_name(path), max_bytes)
}

fn read_head(r: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEAD_LEN as usize);
    r.take(HEAD_LEN).read_to_end(&mut head)?;
    Ok(head)
}

/// `head` and the rest of the input after it, decompressed by `compression`, up to
/// `max_bytes`.
fn read_rest(
    file: &Path,
    head: Vec<u8>,
    rest: impl Read,
    compression: Option<Compression>,
    max_bytes: Option<u64>,
) -> Result<Vec<u8>, Error> {
    match compression {
        Some(c) => c.decompress(file, head.as_slice().chain(rest), max_bytes),
        None => {
            let mut data = head;
            let within = read_within(rest, &mut data, max_bytes, 0)
                .map_err(|source| Error::Io { file: file.to_path_buf(), source })?;
            if !within {
                return Err(too_large(file, "holds", max_bytes));
            }
            Ok(data)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_graph, write_graph, Format, ReadOptions};
    use super::*;
    use crate::graph::Graph;
    use std::io::Write;
    use std::path::PathBuf;

    const TRIANGLE: &[u8] = b"t 4 4\nv 0 1 2\nv 1 2 3\nv 2 1 2\nv 3 2 1\ne 0 1\ne 1 2\ne 0 2\ne 1 3\n";

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// With the content checksum, as the `zstd` command writes it.
    fn zst(data: &[u8]) -> Vec<u8> {
        let mut e = zstd::Encoder::new(Vec::new(), 3).unwrap();
        e.include_checksum(true).unwrap();
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    struct Dir(PathBuf);

    impl Dir {
        fn new(tag: &str) -> Dir {
            let d = std::env::temp_dir().join(format!("source-test-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            Dir(d)
        }

        fn put(&self, name: &str, data: &[u8]) -> PathBuf {
            let p = self.0.join(name);
            std::fs::write(&p, data).unwrap();
            p
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn load(p: &Path, opts: &ReadOptions) -> Graph {
        read_graph(p, opts).unwrap_or_else(|e| panic!("{}: {e}", p.display())).graph
    }

    fn same(a: &Graph, b: &Graph) {
        assert_eq!(
            (a.num_vertices(), a.num_edges(), a.is_directed()),
            (b.num_vertices(), b.num_edges(), b.is_directed())
        );
        assert_eq!(a.edges().collect::<Vec<_>>(), b.edges().collect::<Vec<_>>());
        assert!((0..a.num_vertices() as u32).all(|v| a.label(v) == b.label(v)));
    }

    #[test]
    fn tells_compression_and_names() {
        assert_eq!(Compression::sniff(&gz(b"x")), Some(Compression::Gzip));
        assert_eq!(Compression::sniff(&zst(b"x")), Some(Compression::Zstd));
        assert_eq!(Compression::sniff(b"t 1 0\n"), None);
        assert_eq!(Compression::from_extension(Path::new("a.graph.zst")), Some(Compression::Zstd));
        assert_eq!(uncompressed_name(Path::new("d/a.graph.gz")), Path::new("d/a.graph"));
        assert_eq!(uncompressed_name(Path::new("a.gz")), Path::new("a"));
        assert_eq!(uncompressed_name(Path::new("a.g")), Path::new("a.g"));
        assert_eq!(display_name(Path::new("-")), Path::new("<stdin>"));
        assert!(!is_stdin(Path::new("./-")));
    }

    #[test]
    fn round_trips_compressed_graphs_edge_lists_and_binaries() {
        let d = Dir::new("round");
        let plain = load(&d.put("t.graph", TRIANGLE), &Default::default());
        for (ext, pack) in [("gz", gz as fn(&[u8]) -> Vec<u8>), ("zst", zst)] {
            // By the inner extension, and sniffed from the content where there is none.
            same(&plain, &load(&d.put(&format!("t.graph.{ext}"), &pack(TRIANGLE)), &Default::default()));
            same(&plain, &load(&d.put(&format!("t.{ext}"), &pack(TRIANGLE)), &Default::default()));

            let edges = b"# snap\n0 1\n1 2\n2 0\n1 3\n";
            let labels = d.put(&format!("l.txt.{ext}"), &pack(b"0 1\n1 2\n2 1\n3 2\n"));
            let opts = ReadOptions { vertex_labels: Some(labels), ..Default::default() };
            let el = load(&d.put(&format!("e.txt.{ext}"), &pack(edges)), &opts);
            same(&plain, &el);

            let sgb = d.0.join("b.sgb");
            write_graph(&plain, &sgb, Format::Binary).unwrap();
            let bytes = std::fs::read(&sgb).unwrap();
            same(&plain, &load(&d.put(&format!("b.sgb.{ext}"), &pack(&bytes)), &Default::default()));
            same(&plain, &load(&d.put(&format!("b.{ext}"), &pack(&bytes)), &Default::default()));
        }
        // Several gzip members in a row are one stream, as gzip -d reads them.
        let (a, b) = TRIANGLE.split_at(20);
        let two = [gz(a), gz(b)].concat();
        same(&plain, &load(&d.put("two.graph.gz", &two), &Default::default()));
    }

    #[test]
    fn misleading_names_are_read_by_magic_bytes() {
        let d = Dir::new("magic");
        let plain = load(&d.put("t.graph", TRIANGLE), &Default::default());
        same(&plain, &load(&d.put("gzip-inside.graph", &gz(TRIANGLE)), &Default::default()));
        same(&plain, &load(&d.put("zstd-inside.graph.gz", &zst(TRIANGLE)), &Default::default()));
        let sgb = d.0.join("b.sgb");
        write_graph(&plain, &sgb, Format::Binary).unwrap();
        let bytes = std::fs::read(&sgb).unwrap();
        same(&plain, &load(&d.put("b.bin", &gz(&bytes)), &Default::default()));
        same(&plain, &load(&d.put("b.sgb", &zst(&bytes)), &Default::default()));
    }

    #[test]
    fn corrupt_and_truncated_streams_are_errors() {
        let d = Dir::new("corrupt");
        let err = |name: &str, data: &[u8]| match read_graph(&d.put(name, data), &Default::default()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{name}: {} bytes read as a graph", data.len()),
        };
        for (ext, packed) in [("gz", gz(TRIANGLE)), ("zst", zst(TRIANGLE))] {
            let codec = if ext == "gz" { "gzip" } else { "zstd" };
            for k in 0..packed.len() {
                let e = err(&format!("t.graph.{ext}"), &packed[..k]);
                assert!(e.contains(&format!("t.graph.{ext}: {codec}: ")), "{k}: {e}");
            }
            let mut flipped = packed.clone();
            let mid = packed.len() / 2;
            flipped[mid] ^= 0x55;
            let e = err(&format!("f.graph.{ext}"), &flipped);
            assert!(e.contains(&format!("f.graph.{ext}: {codec}: ")), "{e}");
            assert_eq!(e.lines().count(), 1, "{e}");
            let e = err(&format!("tail.graph.{ext}"), &[packed.as_slice(), b"junk"].concat());
            assert!(e.contains(&format!("tail.graph.{ext}: {codec}: ")), "{e}");
        }
        let e = err("plain.graph.gz", TRIANGLE);
        assert!(e.contains("plain.graph.gz: gzip: invalid gzip header"), "{e}");
    }

    #[test]
    fn a_cap_stops_decompression_bombs_and_long_inputs_before_they_are_held() {
        const CAP: u64 = 1 << 20;
        // 16 MiB of edges in a few kilobytes: a small decompression bomb.
        let bomb = b"0 1\n".repeat(4 << 20);
        let d = Dir::new("cap");
        for (ext, packed) in [("gz", gz(&bomb)), ("zst", zst(&bomb))] {
            assert!(packed.len() < 64 << 10, "{}", packed.len());
            let p = d.put(&format!("bomb.txt.{ext}"), &packed);
            let opts = ReadOptions { max_bytes: Some(CAP), ..Default::default() };
            let e = read_graph(&p, &opts).unwrap_err().to_string();
            assert_eq!(e, format!("{}: decompresses to more than --max-memory 1.0 MiB", p.display()));
            // Without a cap, or under a cap it fits, it reads as before.
            assert_eq!(load(&p, &Default::default()).num_edges(), 1);
            let big = ReadOptions { max_bytes: Some(bomb.len() as u64), ..Default::default() };
            assert_eq!(load(&p, &big).num_edges(), 1);
        }
        // The output never holds more than the cap and one byte, however the stream grows.
        for (cap, len) in [(0u64, 0usize), (0, 1), (10, 10), (10, 11), (100_000, 99_999), (100_000, 300_000)] {
            for c in [Compression::Gzip, Compression::Zstd] {
                let packed = if c == Compression::Gzip { gz(&bomb[..len]) } else { zst(&bomb[..len]) };
                let mut out = Vec::new();
                let within = match c {
                    Compression::Gzip => {
                        read_within(flate2::read::MultiGzDecoder::new(&packed[..]), &mut out, Some(cap), 0)
                    }
                    Compression::Zstd => read_within(zstd::Decoder::new(&packed[..]).unwrap(), &mut out, Some(cap), 0),
                }
                .unwrap();
                assert_eq!(within, len as u64 <= cap, "{c:?} {cap} {len}");
                assert!(out.capacity() as u64 <= cap + 1, "{c:?} {cap} {len}: {}", out.capacity());
                if within {
                    assert_eq!(out, bomb[..len]);
                }
                let e = c.decompress(Path::new("x"), &packed[..], Some(cap)).map(|o| o.len());
                assert_eq!(e.is_ok(), within);
            }
        }
        // A vertex label file and a plain file beyond the cap.
        let labels = d.put("l.txt.gz", &gz(&b"0 1\n".repeat(1 << 19)));
        let opts = ReadOptions { vertex_labels: Some(labels.clone()), max_bytes: Some(CAP), ..Default::default() };
        let e = read_graph(&d.put("e.txt", b"0 1\n"), &opts).unwrap_err().to_string();
        assert_eq!(e, format!("{}: decompresses to more than --max-memory 1.0 MiB", labels.display()));
        let plain = d.put("p.txt", &bomb[..(CAP + 1) as usize]);
        let e = read(&plain, Some(CAP)).unwrap_err().to_string();
        assert_eq!(e, format!("{}: holds more than --max-memory 1.0 MiB", plain.display()));
        assert_eq!(read(&plain, Some(CAP + 1)).unwrap().len() as u64, CAP + 1);
    }
}
