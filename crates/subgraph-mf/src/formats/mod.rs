//! Rating files: MovieLens (`u.data`, `ratings.dat`, `ratings.csv`), Netflix-prize style, LIBMF
//! text and Matrix Market coordinate files read into [`RawRatings`], plain or gzip or zstd
//! compressed; and LIBMF text written, so that peers such as LIBMF read what `gen` makes.
//!
//! Reading streams: a line at a time from a buffer, decompressed on the way (by the magic bytes,
//! else by a `.gz` or `.zst` suffix), so that a file is held once, as its ratings. Whatever the
//! bytes, a reader gives ratings or one line naming the file, the line and the problem
//! (`ratings.csv: line 12: user id -3 is negative: ids are unsigned integers`), never a panic.
//!
//! The rules every format shares: a user or item id is an unsigned integer up to 2^64 − 1 (a
//! negative, fractional or larger one is an error); a rating is a finite number (`NaN`, `inf`
//! and values beyond f32's range are errors); each line holds exactly its format's fields (a
//! missing or extra one is an error); lines end in `\n` or `\r\n`; blank lines are skipped; a
//! UTF-8 byte order mark is skipped; a file with no ratings is an error. `#` comments are allowed
//! in LIBMF text, `%` comments in Matrix Market files. Ids are kept as the file gives them
//! (Matrix Market's 1-based row and column numbers included) and compacted by
//! [`Dataset::compact`](crate::ratings::Dataset::compact).

mod format;
mod parse;

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Cursor, Read, Write};
use std::path::Path;

pub use format::Format;

use crate::error::{MfError, Result};
use crate::ratings::RawRatings;

/// Bytes of (decompressed) content read ahead to tell a file's format by.
const HEAD: u64 = 8 << 10;

/// The path that names standard input.
pub const STDIN: &str = "-";

/// The ratings of the file at `path` (`-`: standard input), in `format`, or in the format
/// [`Format::detect`] finds from its name and first bytes; gzip and zstd files are decompressed
/// as they are read.
pub fn read_ratings(path: impl AsRef<Path>, format: Option<Format>) -> Result<RawRatings> {
    let path = path.as_ref();
    let (mut input, name) = open(path)?;
    let mut head = Vec::new();
    (&mut input).take(HEAD).read_to_end(&mut head).map_err(|e| MfError::io(name, e))?;
    let format = format.unwrap_or_else(|| Format::detect(path, &head));
    parse::decode(Cursor::new(head).chain(input), format, name)
}

/// The ratings of `bytes` (not compressed) in `format`; errors name `name`.
pub fn decode_ratings(bytes: impl BufRead, format: Format, name: &Path) -> Result<RawRatings> {
    parse::decode(bytes, format, name)
}

/// Writes `ratings` to `path` as LIBMF text, a line `user item rating` each (the rating in the
/// shortest form that reads back to the same f32), gzip or zstd compressed when `path` ends in
/// `.gz` or `.zst`. Read back, the file gives `ratings` exactly; an empty set makes an empty
/// file, which reads back as an error.
pub fn write_libmf(path: impl AsRef<Path>, ratings: &RawRatings) -> Result<()> {
    let path = path.as_ref();
    let lens = [ratings.users.len(), ratings.items.len(), ratings.values.len()];
    if lens[0] != lens[2] || lens[1] != lens[2] {
        return Err(MfError::Ratings(format!(
            "{} user ids, {} item ids and {} values: one of each a rating",
            lens[0], lens[1], lens[2]
        )));
    }
    if let Some(i) = ratings.values.iter().position(|r| !r.is_finite()) {
        return Err(MfError::Ratings(format!("rating {i}: {} is not a finite number", ratings.values[i])));
    }
    let io = |e| MfError::io(path, e);
    let file = BufWriter::with_capacity(1 << 20, File::create(path).map_err(io)?);
    let mut out = match compression_of(path) {
        Some(Compression::Gzip) => Sink::Gzip(flate2::write::GzEncoder::new(file, flate2::Compression::default())),
        Some(Compression::Zstd) => Sink::Zstd(zstd::stream::write::Encoder::new(file, 3).map_err(io)?),
        None => Sink::Plain(file),
    };
    let mut line = Vec::with_capacity(64);
    for i in 0..ratings.len() {
        line.clear();
        writeln!(line, "{} {} {}", ratings.users[i], ratings.items[i], ratings.values[i]).map_err(io)?;
        out.write_all(&line).map_err(io)?;
    }
    out.finish().map_err(io)
}

/// A compression that files are read and written through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    Gzip,
    Zstd,
}

/// The compression a `.gz` or `.zst` suffix names.
fn compression_of(path: &Path) -> Option<Compression> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "gz" => Some(Compression::Gzip),
        "zst" => Some(Compression::Zstd),
        _ => None,
    }
}

/// The compression whose magic bytes `head` starts with: gzip `1f 8b`, zstd `28 b5 2f fd`.
fn sniff_compression(head: &[u8]) -> Option<Compression> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Compression::Gzip)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some(Compression::Zstd)
    } else {
        None
    }
}

/// The content of `path` (standard input for `-`), decompressed, and how errors name it.
fn open(path: &Path) -> Result<(Box<dyn BufRead>, &Path)> {
    let (raw, name): (Box<dyn Read>, &Path) = if path.as_os_str() == STDIN {
        (Box::new(io::stdin().lock()), Path::new("<stdin>"))
    } else {
        (Box::new(File::open(path).map_err(|e| MfError::io(path, e))?), path)
    };
    let mut raw = BufReader::with_capacity(1 << 20, raw);
    let head = raw.fill_buf().map_err(|e| MfError::io(name, e))?;
    let input: Box<dyn BufRead> = match sniff_compression(head).or_else(|| compression_of(path)) {
        Some(Compression::Gzip) => {
            let decoder = flate2::bufread::MultiGzDecoder::new(raw);
            Box::new(BufReader::with_capacity(1 << 20, Codec { inner: decoder, name: "gzip" }))
        }
        Some(Compression::Zstd) => {
            let decoder = zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| MfError::io(name, e))?;
            Box::new(BufReader::with_capacity(1 << 20, Codec { inner: decoder, name: "zstd" }))
        }
        None => Box::new(raw),
    };
    Ok((input, name))
}

/// A decoder whose errors say which codec failed (`x.gz: gzip: corrupt deflate stream`).
struct Codec<R> {
    inner: R,
    name: &'static str,
}

impl<R: Read> Read for Codec<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let message = e.to_string().replace('\n', " ");
            io::Error::new(e.kind(), format!("{}: {message}", self.name))
        })
    }
}

/// Where [`write_libmf`] writes.
enum Sink {
    Plain(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
}

impl Sink {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Sink::Plain(w) => w.write_all(bytes),
            Sink::Gzip(w) => w.write_all(bytes),
            Sink::Zstd(w) => w.write_all(bytes),
        }
    }

    fn finish(self) -> io::Result<()> {
        let mut file = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
            Sink::Zstd(w) => w.finish()?,
        };
        file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> RawRatings {
        let mut raw = RawRatings::default();
        raw.push(196, 242, 3.0);
        raw.push(u64::MAX, 0, -0.1);
        raw.push(7, 1 << 40, 4.123_456_7);
        raw.push(7, 3, f32::MIN_POSITIVE);
        raw
    }

    #[test]
    fn libmf_text_reads_back_exactly_plain_and_compressed() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["r.txt", "r.txt.gz", "r.libmf.zst", "R.GZ"] {
            let path = dir.path().join(name);
            write_libmf(&path, &sample()).unwrap();
            assert_eq!(read_ratings(&path, None).unwrap(), sample(), "{name}");
            assert_eq!(read_ratings(&path, Some(Format::Libmf)).unwrap(), sample(), "{name}");
        }
        let plain = std::fs::read_to_string(dir.path().join("r.txt")).unwrap();
        assert!(plain.starts_with("196 242 3\n18446744073709551615 0 -0.1\n7 1099511627776 4.1234565\n"), "{plain}");
    }

    #[test]
    fn compression_is_told_by_magic_bytes_and_formats_by_name_or_content() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"1::10::4::978300760\n2::10::3.5::978300761\n";
        // gzip content under a name without the suffix, zstd under a .dat name.
        let gz = dir.path().join("ratings.dat");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let zst = dir.path().join("sniffed.zst");
        std::fs::write(&zst, zstd::encode_all(&text[..], 1).unwrap()).unwrap();
        for path in [&gz, &zst] {
            let raw = read_ratings(path, None).unwrap();
            assert_eq!((raw.users, raw.items, raw.values), (vec![1, 2], vec![10, 10], vec![4.0, 3.5]));
        }
        let netflix = dir.path().join("mv_0000010.txt");
        std::fs::write(&netflix, "10:\n1,4,2005-01-01\n").unwrap();
        assert_eq!(read_ratings(&netflix, None).unwrap().items, vec![10]);
        let e = read_ratings(&netflix, Some(Format::Libmf)).unwrap_err().to_string();
        assert!(e.ends_with("mv_0000010.txt: line 1: expected 3 fields 'user item rating', found 1"), "{e}");
    }

    #[test]
    fn missing_damaged_and_mismatched_files_are_one_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = read_ratings(dir.path().join("none.txt"), None).unwrap_err().to_string();
        assert!(missing.contains("none.txt: "), "{missing}");
        let bad = dir.path().join("r.txt.gz");
        std::fs::write(&bad, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 3, 4]).unwrap();
        let e = read_ratings(&bad, None).unwrap_err().to_string();
        assert!(e.contains("r.txt.gz: gzip: ") && !e.contains('\n'), "{e}");
        let bad = dir.path().join("r.zst");
        std::fs::write(&bad, b"not zstd at all").unwrap();
        let e = read_ratings(&bad, None).unwrap_err().to_string();
        assert!(e.contains("r.zst: ") && !e.contains('\n'), "{e}");
        let empty = dir.path().join("empty.csv");
        std::fs::write(&empty, "").unwrap();
        assert!(read_ratings(&empty, None)
            .unwrap_err()
            .to_string()
            .ends_with("empty.csv: no ratings (read as ratings.csv)"));
        let mut uneven = sample();
        uneven.values.pop();
        let e = write_libmf(dir.path().join("u.txt"), &uneven).unwrap_err().to_string();
        assert_eq!(e, "4 user ids, 4 item ids and 3 values: one of each a rating");
        let mut nan = sample();
        nan.values[2] = f32::NAN;
        assert_eq!(
            write_libmf(dir.path().join("n.txt"), &nan).unwrap_err().to_string(),
            "rating 2: NaN is not a finite number"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_finite_ratings_round_trip(rows in proptest::collection::vec((any::<u64>(), any::<u64>(), any::<f32>()), 1..50)) {
            let dir = tempfile::tempdir().unwrap();
            let mut raw = RawRatings::default();
            for (u, v, r) in rows {
                raw.push(u, v, if r.is_finite() { r } else { 1.0 });
            }
            let path = dir.path().join("p.txt");
            write_libmf(&path, &raw).unwrap();
            prop_assert_eq!(read_ratings(&path, None).unwrap(), raw);
        }

        #[test]
        fn any_bytes_give_ratings_or_one_line(format in 0..6usize, bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let format = Format::ALL[format];
            match decode_ratings(&bytes[..], format, Path::new("fuzz")) {
                Ok(raw) => {
                    prop_assert!(!raw.is_empty() && raw.users.len() == raw.len() && raw.items.len() == raw.len());
                    prop_assert!(raw.values.iter().all(|r| r.is_finite()));
                }
                Err(e) => prop_assert!(!e.to_string().contains('\n')),
            }
            let _ = Format::sniff(&bytes);
        }
    }
}
