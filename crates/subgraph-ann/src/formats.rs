//! Reads and writes vector files: the ANN-benchmarks formats (`.fvecs`, `.bvecs`, `.ivecs`: rows
//! of a little-endian i32 count, then that many values), numpy's `.npy` (versions 1.0 to 3.0,
//! C order, little-endian) and label files (one integer a line, or a 1-D `.npy`).
//!
//! Readers stream from a buffer into the result, so that a file of several gigabytes is held
//! once; whatever the bytes, they give a value or one line naming the file, the row, line or
//! byte, and the problem. Ids are `u32` with [`NONE`] for an empty slot, which the files hold as
//! -1 (as faiss and the ground-truth files of ANN-benchmarks do).

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use bytemuck::Pod;

use crate::error::{AnnError, Result};
use crate::graph::NONE;
use crate::vectors::{Vectors, MAX_DIM};

/// A file format, known by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.fvecs`: rows of an i32 dimension, then that many little-endian f32.
    Fvecs,
    /// `.bvecs`: rows of an i32 dimension, then that many bytes.
    Bvecs,
    /// `.ivecs`: rows of an i32 count, then that many little-endian i32 ids.
    Ivecs,
    /// `.npy`: numpy's array file.
    Npy,
    /// Text, one integer a line: any other extension, for labels only.
    Text,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Fvecs => ".fvecs",
            Format::Bvecs => ".bvecs",
            Format::Ivecs => ".ivecs",
            Format::Npy => ".npy",
            Format::Text => "text",
        }
    }

    /// The format of `path` by its extension, which must be one of `accepted` (for `what`).
    fn of(path: &Path, accepted: &[Format], what: &str) -> Result<Format> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let found =
            accepted.iter().copied().find(|f| f.name().strip_prefix('.').is_some_and(|e| e.eq_ignore_ascii_case(ext)));
        found.or(accepted.contains(&Format::Text).then_some(Format::Text)).ok_or_else(|| {
            let shown = if ext.is_empty() { "a name without an extension".to_string() } else { format!(".{ext}") };
            AnnError::file(path, format!("{what} are read from {}, not {shown}", list(accepted)))
        })
    }
}

/// "a, b or c" of the formats' extensions.
fn list(formats: &[Format]) -> String {
    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

const VECTOR_FORMATS: [Format; 3] = [Format::Fvecs, Format::Bvecs, Format::Npy];
const ID_FORMATS: [Format; 2] = [Format::Ivecs, Format::Npy];
const LABEL_FORMATS: [Format; 2] = [Format::Npy, Format::Text];

/// Rows of `k` ids each (ground truth, search results), row-major, [`NONE`] for an empty slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdRows {
    pub k: usize,
    pub ids: Vec<u32>,
}

impl IdRows {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ids.len() / self.k
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn row(&self, i: usize) -> &[u32] {
        &self.ids[i * self.k..(i + 1) * self.k]
    }
}

/// The vectors of a `.fvecs`, `.bvecs` or `.npy` file (by its extension), only the first
/// `max_rows` when given.
pub fn read_vectors(path: impl AsRef<Path>, max_rows: Option<usize>) -> Result<Vectors> {
    let path = path.as_ref();
    let format = Format::of(path, &VECTOR_FORMATS, "vectors")?;
    vectors(&mut open(path)?, format, max_rows)
}

/// The id rows of an `.ivecs` or a 2-D integer `.npy` file (by its extension).
pub fn read_ids(path: impl AsRef<Path>) -> Result<IdRows> {
    let path = path.as_ref();
    let format = Format::of(path, &ID_FORMATS, "ids")?;
    ids(&mut open(path)?, format)
}

/// One label a vector: a 1-D integer `.npy` file, or text of one non-negative integer a line
/// (any other extension; blank lines may end it).
pub fn read_labels(path: impl AsRef<Path>) -> Result<Vec<u32>> {
    let path = path.as_ref();
    let format = Format::of(path, &LABEL_FORMATS, "labels")?;
    labels(&mut open(path)?, format)
}

/// [`read_vectors`] of bytes in `format`, named `name` in errors.
pub fn decode_vectors(bytes: impl BufRead, format: Format, name: &Path, max_rows: Option<usize>) -> Result<Vectors> {
    vectors(&mut Input::new(bytes, name, None), format, max_rows)
}

/// [`read_ids`] of bytes in `format`, named `name` in errors.
pub fn decode_ids(bytes: impl BufRead, format: Format, name: &Path) -> Result<IdRows> {
    ids(&mut Input::new(bytes, name, None), format)
}

/// [`read_labels`] of bytes in `format`, named `name` in errors.
pub fn decode_labels(bytes: impl BufRead, format: Format, name: &Path) -> Result<Vec<u32>> {
    labels(&mut Input::new(bytes, name, None), format)
}

fn open(path: &Path) -> Result<Input<'_, BufReader<File>>> {
    let file = File::open(path).map_err(|e| AnnError::io(path, e))?;
    let meta = file.metadata().map_err(|e| AnnError::io(path, e))?;
    let len = meta.is_file().then_some(meta.len());
    Ok(Input::new(BufReader::with_capacity(1 << 20, file), path, len))
}

fn vectors<R: BufRead>(input: &mut Input<'_, R>, format: Format, max_rows: Option<usize>) -> Result<Vectors> {
    if max_rows == Some(0) {
        return Err(AnnError::Parameter("max_rows 0: read at least one row".into()));
    }
    let mut data = Vec::new();
    let dim = match format {
        Format::Fvecs => xvecs(input, max_rows, MAX_DIM, &mut data, |_, v: u32| Ok(f32::from_bits(u32::from_le(v))))?,
        Format::Bvecs => xvecs(input, max_rows, MAX_DIM, &mut data, |_, v: u8| Ok(f32::from(v)))?,
        Format::Npy => {
            let header = NpyHeader::read(input)?;
            let [rows, cols] = header.matrix(input, "vectors")?;
            if cols == 0 || cols > MAX_DIM as u64 {
                return Err(input.error(format!("shape {}: dimension {cols}: must be 1 to {MAX_DIM}", header.shape())));
            }
            let take = max_rows.map_or(rows, |m| rows.min(m as u64));
            let (n, all) = (take * cols, take == rows);
            match header.dtype {
                Some(Dtype::F4) => {
                    header.data(input, n, all, &mut data, |_, v: u32| Ok(f32::from_bits(u32::from_le(v))))?
                }
                Some(Dtype::F8) => {
                    header.data(input, n, all, &mut data, |_, v: u64| Ok(f64::from_bits(u64::from_le(v)) as f32))?
                }
                Some(Dtype::U1) => header.data(input, n, all, &mut data, |_, v: u8| Ok(f32::from(v)))?,
                Some(Dtype::I4) => header.data(input, n, all, &mut data, |_, v: i32| Ok(i32::from_le(v) as f32))?,
                _ => return Err(header.unsupported(input, &[Dtype::F4, Dtype::F8, Dtype::U1, Dtype::I4])),
            }
            cols as usize
        }
        _ => {
            return Err(input.error(format!("vectors are read from {}, not {}", list(&VECTOR_FORMATS), format.name())))
        }
    };
    if data.is_empty() {
        return Err(input.error("holds no vectors"));
    }
    Vectors::new(dim, data).map_err(|e| input.error(e.to_string()))
}

fn ids<R: BufRead>(input: &mut Input<'_, R>, format: Format) -> Result<IdRows> {
    let mut ids = Vec::new();
    let k = match format {
        Format::Ivecs => xvecs(input, None, usize::MAX, &mut ids, |at, v: i32| {
            let v = i32::from_le(v);
            id(v.into()).ok_or_else(|| not_an_id(at, v))
        })?,
        Format::Npy => {
            let header = NpyHeader::read(input)?;
            let [rows, k] = header.matrix(input, "ids")?;
            let n = rows * k;
            let at = |i: u64| (i / k, i % k);
            let conv = |i, v| id(v).ok_or_else(|| not_an_id(at(i), v));
            header.integers(input, n, &mut ids, &[Dtype::I4, Dtype::I8, Dtype::U4, Dtype::U8], conv)?;
            k as usize
        }
        _ => return Err(input.error(format!("ids are read from {}, not {}", list(&ID_FORMATS), format.name()))),
    };
    if ids.is_empty() {
        return Err(input.error("holds no ids"));
    }
    Ok(IdRows { k, ids })
}

/// -1, and 2^32 - 1 (-1 as a u32), are [`NONE`]; other ids must lie below it.
fn id(v: i128) -> Option<u32> {
    if v == -1 || v == i128::from(NONE) {
        Some(NONE)
    } else {
        u32::try_from(v).ok()
    }
}

fn not_an_id(at: (u64, u64), v: impl Into<i128>) -> String {
    format!("row {}, column {}: {} is not an id (0 to {}, or -1 for none)", at.0, at.1, v.into(), NONE - 1)
}

fn labels<R: BufRead>(input: &mut Input<'_, R>, format: Format) -> Result<Vec<u32>> {
    let labels = match format {
        Format::Npy => {
            let header = NpyHeader::read(input)?;
            let n = match header.shape[..] {
                [n] => n,
                _ => return Err(header.rank(input, "labels", "1 (one label a vector)")),
            };
            let mut labels = Vec::new();
            let conv = |i, v: i128| u32::try_from(v).map_err(|_| format!("label {i}: {v} is not 0 to {}", u32::MAX));
            let accepted = [Dtype::U1, Dtype::I4, Dtype::I8, Dtype::U4, Dtype::U8];
            header.integers(input, n, &mut labels, &accepted, conv)?;
            labels
        }
        Format::Text => text_labels(input)?,
        _ => return Err(input.error(format!("labels are read from {}, not {}", list(&LABEL_FORMATS), format.name()))),
    };
    if labels.is_empty() {
        return Err(input.error("holds no labels"));
    }
    Ok(labels)
}

fn text_labels<R: BufRead>(input: &mut Input<'_, R>) -> Result<Vec<u32>> {
    let mut labels = Vec::new();
    let mut line = Vec::new();
    let mut blank = None;
    for number in 1.. {
        line.clear();
        if input.reader.read_until(b'\n', &mut line).map_err(|e| AnnError::io(input.name, e))? == 0 {
            break;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            blank = blank.or(Some(number));
            continue;
        }
        if let Some(blank) = blank {
            return Err(input.error(format!("line {blank} is blank, yet line {number} has a label")));
        }
        match std::str::from_utf8(text).ok().and_then(|s| s.parse::<u32>().ok()) {
            Some(label) => labels.push(label),
            None => {
                let shown: String = String::from_utf8_lossy(text).chars().take(40).collect();
                let problem = if text.iter().all(u8::is_ascii_digit) {
                    format!("is larger than {}", u32::MAX)
                } else {
                    "is not a non-negative integer".to_string()
                };
                return Err(input.error(format!("line {number}: {shown:?} {problem}")));
            }
        }
    }
    Ok(labels)
}

/// Rows of an i32 count (1 to `max_width`, the same in every row) and that many `T`, each
/// converted by `convert` (given its row and column) onto `out`, at most `max_rows` of them;
/// returns the count.
fn xvecs<R: BufRead, T: Pod, U>(
    input: &mut Input<'_, R>,
    max_rows: Option<usize>,
    max_width: usize,
    out: &mut Vec<U>,
    mut convert: impl FnMut((u64, u64), T) -> Result<U, String>,
) -> Result<usize> {
    let size = size_of::<T>() as u64;
    let mut width = 0u64;
    for row in 0.. {
        if max_rows.is_some_and(|m| row >= m as u64) {
            break;
        }
        let mut head = [0u8; 4];
        let got = input.read_full(&mut head)?;
        if got == 0 {
            break;
        }
        if got < 4 {
            return Err(input.error(format!("truncated: row {row} needs 4 bytes for its dimension, {got} remain")));
        }
        let dim = i32::from_le_bytes(head);
        let problem = match u64::try_from(dim) {
            Err(_) => Some(format!("row {row} has a negative dimension, {dim}")),
            Ok(0) => Some(format!("row {row} has dimension 0")),
            Ok(d) if d > max_width as u64 => Some(format!("row {row} has dimension {d}, more than {max_width}")),
            Ok(d) if row > 0 && d != width => Some(format!("row {row} has dimension {d}, row 0 has {width}")),
            Ok(_) => None,
        };
        if let Some(problem) = problem {
            return Err(input.error(problem));
        }
        if row == 0 {
            width = dim as u64;
            // A file's length bounds its rows; a stream's grow as they come.
            let rows = input.remaining().map_or(0, |r| (r + 4) / (4 + width * size));
            let rows = max_rows.map_or(rows, |m| rows.min(m as u64));
            out.reserve_exact(input.capacity(rows * width, size));
        }
        let got = input.read_into(width, out, |col, v| convert((row, col), v))?;
        if got < width * size {
            return Err(input.error(format!(
                "truncated: row {row} needs {} bytes, {} remain",
                4 + width * size,
                4 + got
            )));
        }
    }
    Ok(width as usize)
}

/// Bytes read at once, and the most allocated ahead of the bytes that fill them.
const CHUNK: usize = 1 << 18;

/// The bytes being decoded, with how far they have been read.
struct Input<'a, R> {
    reader: R,
    name: &'a Path,
    /// Bytes read so far.
    pos: u64,
    /// The length of the input, where known (a file's).
    len: Option<u64>,
    /// Chunks as read, aligned for any value.
    scratch: Vec<u64>,
}

impl<'a, R: BufRead> Input<'a, R> {
    fn new(reader: R, name: &'a Path, len: Option<u64>) -> Self {
        Input { reader, name, pos: 0, len, scratch: Vec::new() }
    }

    fn error(&self, message: impl Into<String>) -> AnnError {
        AnnError::file(self.name, message)
    }

    fn remaining(&self) -> Option<u64> {
        self.len.map(|len| len.saturating_sub(self.pos))
    }

    /// How many of `count` values of `size` bytes to allocate for ahead: no more than the rest
    /// of a file holds, nor than a chunk of a stream of unknown length.
    fn capacity(&self, count: u64, size: u64) -> usize {
        let bound = self.remaining().unwrap_or(CHUNK as u64) / size;
        usize::try_from(count.min(bound)).unwrap_or(0)
    }

    /// Fills `buf` unless the input ends first; returns the bytes read.
    fn read_full(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.reader.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(AnnError::io(self.name, e)),
            }
        }
        self.pos += got as u64;
        Ok(got)
    }

    /// Reads `count` values of `T` as stored, each converted by `convert` (given its index) onto
    /// `out`; returns the bytes read, fewer than the values' only where the input ended.
    fn read_into<T: Pod, U>(
        &mut self,
        count: u64,
        out: &mut Vec<U>,
        mut convert: impl FnMut(u64, T) -> Result<U, String>,
    ) -> Result<u64> {
        let size = size_of::<T>();
        let mut scratch = std::mem::take(&mut self.scratch);
        let (mut done, mut bytes) = (0, 0);
        let result = loop {
            if done == count {
                break Ok(bytes);
            }
            let n = (count - done).min((CHUNK / size) as u64) as usize;
            scratch.resize((n * size).div_ceil(8), 0);
            let buf = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut scratch)[..n * size];
            let got = match self.read_full(buf) {
                Ok(got) => got,
                Err(e) => break Err(e),
            };
            bytes += got as u64;
            if got < buf.len() {
                break Ok(bytes);
            }
            let converted: Result<(), String> =
                bytemuck::cast_slice::<u8, T>(buf).iter().zip(done..).try_for_each(|(&v, i)| {
                    out.push(convert(i, v)?);
                    Ok(())
                });
            if let Err(message) = converted {
                break Err(self.error(message));
            }
            done += n as u64;
        };
        self.scratch = scratch;
        result
    }
}

/// The element types read from `.npy` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dtype {
    F4,
    F8,
    U1,
    I4,
    I8,
    U4,
    U8,
}

impl Dtype {
    const ALL: [Dtype; 7] = [Dtype::F4, Dtype::F8, Dtype::U1, Dtype::I4, Dtype::I8, Dtype::U4, Dtype::U8];

    fn descr(self) -> &'static str {
        match self {
            Dtype::F4 => "<f4",
            Dtype::F8 => "<f8",
            Dtype::U1 => "|u1",
            Dtype::I4 => "<i4",
            Dtype::I8 => "<i8",
            Dtype::U4 => "<u4",
            Dtype::U8 => "<u8",
        }
    }
}

const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The longest `.npy` header read: a 2-D array's takes under a hundred bytes.
const MAX_NPY_HEADER: u32 = 1 << 16;

/// What a `.npy` header says of the array after it.
struct NpyHeader {
    descr: String,
    dtype: Option<Dtype>,
    shape: Vec<u64>,
    /// Where the data starts.
    start: u64,
}

impl NpyHeader {
    /// The magic string, the version, the header's length and the header.
    fn read<R: BufRead>(input: &mut Input<'_, R>) -> Result<NpyHeader> {
        let mut lead = [0u8; 8];
        let got = input.read_full(&mut lead)?;
        if got < 6 || lead[..6] != NPY_MAGIC[..] {
            return Err(input.error("not a .npy file: it does not start with \\x93NUMPY"));
        }
        if got < 8 {
            return Err(input.error("truncated: no format version after the magic string"));
        }
        let width = match (lead[6], lead[7]) {
            (1, 0) => 2,
            (2, 0) | (3, 0) => 4,
            (major, minor) => {
                return Err(
                    input.error(format!("format version {major}.{minor} is not supported (expected 1.0, 2.0 or 3.0)"))
                )
            }
        };
        let mut len = [0u8; 4];
        let got = input.read_full(&mut len[..width])?;
        if got < width {
            return Err(
                input.error(format!("truncated: the header length needs {width} bytes at byte 8, {got} remain"))
            );
        }
        let len = u32::from_le_bytes(len);
        if len > MAX_NPY_HEADER {
            return Err(input.error(format!("header of {len} bytes: longer than the {MAX_NPY_HEADER} read")));
        }
        let at = input.pos;
        let mut text = vec![0; len as usize];
        let got = input.read_full(&mut text)?;
        if got < text.len() {
            return Err(input.error(format!("truncated: the header needs {len} bytes from byte {at}, {got} remain")));
        }
        NpyHeader::parse(&text, at, input.pos).map_err(|message| input.error(message))
    }

    /// The header's dictionary, `text` from byte `at`.
    fn parse(text: &[u8], at: u64, start: u64) -> Result<NpyHeader, String> {
        let mut p = Parser { text, i: 0, at };
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        p.expect(b'{', "'{'")?;
        while !p.eat(b'}') {
            let key = p.string()?;
            p.expect(b':', "':'")?;
            let value = p.value()?;
            let slot = match (key.as_str(), value) {
                ("descr", Value::Str(s)) => descr.replace(s).is_some(),
                ("fortran_order", Value::Bool(b)) => fortran.replace(b).is_some(),
                ("shape", Value::Tuple(t)) => shape.replace(t).is_some(),
                ("descr" | "fortran_order" | "shape", v) => {
                    return Err(format!("header: '{key}' is {}, not {}", v.kind(), expected(&key)))
                }
                _ => return Err(format!("header: unknown key {key:?}")),
            };
            if slot {
                return Err(format!("header: '{key}' given twice"));
            }
            if !p.eat(b',') {
                p.expect(b'}', "',' or '}'")?;
                break;
            }
        }
        p.skip_space();
        if p.i < text.len() {
            return Err(format!("header byte {}: {} after the dictionary", p.offset(), p.found()));
        }
        let missing = |key: &str| format!("header has no '{key}'");
        let (descr, shape) = (descr.ok_or_else(|| missing("descr"))?, shape.ok_or_else(|| missing("shape"))?);
        if fortran.ok_or_else(|| missing("fortran_order"))? {
            return Err(
                "fortran_order is True: only C-order arrays are read (numpy.ascontiguousarray makes one)".into()
            );
        }
        let values = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
        if values.and_then(|n| n.checked_mul(8)).is_none() {
            return Err(format!("shape {} has too many values", tuple(&shape)));
        }
        let dtype = Dtype::ALL.into_iter().find(|d| d.descr() == descr);
        Ok(NpyHeader { descr, dtype, shape, start })
    }

    fn shape(&self) -> String {
        tuple(&self.shape)
    }

    /// The rows and columns of a 2-D array.
    fn matrix<R: BufRead>(&self, input: &Input<'_, R>, what: &str) -> Result<[u64; 2]> {
        match self.shape[..] {
            [rows, cols] => Ok([rows, cols]),
            _ => Err(self.rank(input, what, "2 (rows, columns)")),
        }
    }

    fn rank<R: BufRead>(&self, input: &Input<'_, R>, what: &str, expected: &str) -> AnnError {
        let n = self.shape.len();
        input.error(format!("shape {} has {n} dimension{}; {what} need {expected}", self.shape(), plural(n)))
    }

    fn unsupported<R: BufRead>(&self, input: &Input<'_, R>, accepted: &[Dtype]) -> AnnError {
        let expected: Vec<&str> = accepted.iter().map(|d| d.descr()).collect();
        let descr = self.descr.escape_debug();
        input.error(format!("dtype '{descr}' is not supported (expected {})", expected.join(", ")))
    }

    /// Reads all the data, integers of one of the `accepted` dtypes, onto `out` through
    /// `convert` (given each value's index).
    fn integers<R: BufRead>(
        &self,
        input: &mut Input<'_, R>,
        count: u64,
        out: &mut Vec<u32>,
        accepted: &[Dtype],
        convert: impl Fn(u64, i128) -> Result<u32, String>,
    ) -> Result<()> {
        match self.dtype.filter(|d| accepted.contains(d)) {
            Some(Dtype::U1) => self.data(input, count, true, out, |i, v: u8| convert(i, v.into())),
            Some(Dtype::I4) => self.data(input, count, true, out, |i, v: i32| convert(i, i32::from_le(v).into())),
            Some(Dtype::I8) => self.data(input, count, true, out, |i, v: i64| convert(i, i64::from_le(v).into())),
            Some(Dtype::U4) => self.data(input, count, true, out, |i, v: u32| convert(i, u32::from_le(v).into())),
            Some(Dtype::U8) => self.data(input, count, true, out, |i, v: u64| convert(i, u64::from_le(v).into())),
            _ => Err(self.unsupported(input, accepted)),
        }
    }

    /// Reads the first `count` values of the data onto `out` through `convert`; `all`: these
    /// are all the data, after which the input must end.
    fn data<R: BufRead, T: Pod, U>(
        &self,
        input: &mut Input<'_, R>,
        count: u64,
        all: bool,
        out: &mut Vec<U>,
        convert: impl FnMut(u64, T) -> Result<U, String>,
    ) -> Result<()> {
        let size = size_of::<T>() as u64;
        let what = format!("shape {} of {}", self.shape(), self.descr);
        out.reserve_exact(input.capacity(count, size));
        let got = input.read_into(count, out, convert)?;
        if got < count * size {
            return Err(input.error(format!(
                "truncated: {what} needs {} bytes of data from byte {}, {got} remain",
                count * size,
                self.start
            )));
        }
        if all && input.read_full(&mut [0])? > 0 {
            let more = input.remaining().map_or(String::new(), |r| format!(" ({} bytes)", r + 1));
            return Err(input.error(format!(
                "{what} holds {} bytes of data from byte {}, but more follow{more}",
                count * size,
                self.start
            )));
        }
        Ok(())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A Python tuple: `(3, 4)`, `(5,)`, `()`.
fn tuple<T: std::fmt::Display>(items: &[T]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

fn expected(key: &str) -> &'static str {
    match key {
        "descr" => "a string",
        "fortran_order" => "True or False",
        _ => "a tuple of integers",
    }
}

/// A value of a `.npy` header's dictionary.
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Bool(_) => "True or False",
            Value::Tuple(_) => "a tuple",
        }
    }
}

/// The Python literals of a `.npy` header; errors name the byte of the file.
struct Parser<'t> {
    text: &'t [u8],
    i: usize,
    /// Where `text` starts in the file.
    at: u64,
}

impl Parser<'_> {
    fn offset(&self) -> u64 {
        self.at + self.i as u64
    }

    fn skip_space(&mut self) {
        while self.text.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    /// Skips white space, then `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.skip_space();
        let next = self.text.get(self.i) == Some(&c);
        self.i += usize::from(next);
        next
    }

    fn found(&self) -> String {
        match self.text.get(self.i) {
            Some(&c) => format!("{:?}", char::from(c)),
            None => "the end".into(),
        }
    }

    fn unexpected(&self, wanted: &str) -> String {
        format!("header byte {}: expected {wanted}, found {}", self.offset(), self.found())
    }

    fn expect(&mut self, c: u8, shown: &str) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.unexpected(shown))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.skip_space();
        let quote = match self.text.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err(self.unexpected("a string")),
        };
        let start = self.i + 1;
        let Some(len) = self.text[start..].iter().position(|&c| c == quote) else {
            return Err(format!("header byte {}: the string is not closed", self.offset()));
        };
        self.i = start + len + 1;
        Ok(String::from_utf8_lossy(&self.text[start..start + len]).into_owned())
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_space();
        let rest = &self.text[self.i..];
        if rest.starts_with(b"True") {
            self.i += 4;
            Ok(Value::Bool(true))
        } else if rest.starts_with(b"False") {
            self.i += 5;
            Ok(Value::Bool(false))
        } else if rest.starts_with(b"(") {
            self.i += 1;
            self.tuple().map(Value::Tuple)
        } else if rest.starts_with(b"'") || rest.starts_with(b"\"") {
            self.string().map(Value::Str)
        } else {
            Err(self.unexpected("a string, True, False or a tuple"))
        }
    }

    /// Integers up to `)`, separated by commas, with a comma after the last allowed.
    fn tuple(&mut self) -> Result<Vec<u64>, String> {
        let mut items = Vec::new();
        while !self.eat(b')') {
            let start = self.i;
            let len = self.text[start..].iter().take_while(|c| c.is_ascii_digit()).count();
            if len == 0 {
                return Err(self.unexpected("an integer"));
            }
            self.i += len;
            // Python 2's numpy wrote longs as `3L`.
            self.i += usize::from(self.text.get(self.i) == Some(&b'L'));
            let digits = std::str::from_utf8(&self.text[start..start + len]).unwrap_or_default();
            items.push(
                digits.parse().map_err(|_| format!("header byte {}: {digits} is too large", self.at + start as u64))?,
            );
            if !self.eat(b',') {
                self.expect(b')', "',' or ')'")?;
                break;
            }
        }
        Ok(items)
    }
}

/// Writes `vectors` as `.fvecs`.
pub fn write_fvecs(path: impl AsRef<Path>, vectors: &Vectors) -> Result<()> {
    let dim = (vectors.dim() as i32).to_le_bytes();
    write(path.as_ref(), |w, buf| {
        for row in vectors.as_slice().chunks(vectors.dim()) {
            w.write_all(&dim)?;
            write_le(w, buf, row, f32::to_le_bytes)?;
        }
        Ok(())
    })
}

/// Writes rows of `k` ids as `.ivecs`, [`NONE`] as -1; every other id must fit an i32.
pub fn write_ivecs(path: impl AsRef<Path>, k: usize, ids: &[u32]) -> Result<()> {
    let rows = id_rows(k, ids)?;
    if let Some(at) = ids.iter().position(|&id| id != NONE && id > i32::MAX as u32) {
        return Err(AnnError::Parameter(format!(
            "row {}, column {}: id {} is beyond .ivecs' i32",
            at / k,
            at % k,
            ids[at]
        )));
    }
    let count = (k as i32).to_le_bytes();
    write(path.as_ref(), |w, buf| {
        for row in ids.chunks(k).take(rows) {
            w.write_all(&count)?;
            write_le(w, buf, row, |id| (id as i32).to_le_bytes())?;
        }
        Ok(())
    })
}

/// Writes `rows` × `cols` floats, row-major, as a `.npy` array of `<f4`.
pub fn write_npy_f32(path: impl AsRef<Path>, rows: usize, cols: usize, data: &[f32]) -> Result<()> {
    check_shape(rows, cols, data.len())?;
    write(path.as_ref(), |w, buf| {
        w.write_all(&npy_header(Dtype::F4, &[rows, cols]))?;
        write_le(w, buf, data, f32::to_le_bytes)
    })
}

/// Writes `rows` × `cols` ids, row-major, as a `.npy` array of `<i8`, [`NONE`] as -1 (as faiss
/// returns them).
pub fn write_npy_ids(path: impl AsRef<Path>, rows: usize, cols: usize, ids: &[u32]) -> Result<()> {
    check_shape(rows, cols, ids.len())?;
    write(path.as_ref(), |w, buf| {
        w.write_all(&npy_header(Dtype::I8, &[rows, cols]))?;
        write_le(w, buf, ids, |id| if id == NONE { -1 } else { i64::from(id) }.to_le_bytes())
    })
}

fn id_rows(k: usize, ids: &[u32]) -> Result<usize> {
    if k == 0 || k > i32::MAX as usize || !ids.len().is_multiple_of(k) {
        return Err(AnnError::Parameter(format!("{} ids are not whole rows of {k} (1 to {})", ids.len(), i32::MAX)));
    }
    Ok(ids.len() / k)
}

fn check_shape(rows: usize, cols: usize, len: usize) -> Result<()> {
    if rows.checked_mul(cols) != Some(len) {
        return Err(AnnError::Parameter(format!("{len} values are not {rows} rows of {cols}")));
    }
    Ok(())
}

/// Creates `path` and writes it through a buffer with `body`, which is lent a scratch vector.
fn write(path: &Path, body: impl FnOnce(&mut BufWriter<File>, &mut Vec<u8>) -> io::Result<()>) -> Result<()> {
    let file = File::create(path).map_err(|e| AnnError::io(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut buf = Vec::with_capacity(CHUNK);
    body(&mut w, &mut buf).and_then(|()| w.flush()).map_err(|e| AnnError::io(path, e))
}

/// Writes `values` as the bytes `bytes` gives each, a chunk at a time through `buf`.
fn write_le<T: Copy, const N: usize>(
    w: &mut impl Write,
    buf: &mut Vec<u8>,
    values: &[T],
    bytes: impl Fn(T) -> [u8; N],
) -> io::Result<()> {
    for chunk in values.chunks(CHUNK / N) {
        buf.clear();
        buf.extend(chunk.iter().flat_map(|&v| bytes(v)));
        w.write_all(buf)?;
    }
    Ok(())
}

/// A version 1.0 `.npy` header, padded with spaces to a multiple of 64 bytes as numpy does.
fn npy_header(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", dtype.descr(), tuple(shape));
    let len = (10 + dict.len() + 1).next_multiple_of(64) - 10;
    let mut header = NPY_MAGIC.to_vec();
    header.extend_from_slice(&[1, 0]);
    header.extend_from_slice(&(len as u16).to_le_bytes());
    header.extend_from_slice(dict.as_bytes());
    header.resize(10 + len - 1, b' ');
    header.push(b'\n');
    header
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `.fvecs`-style rows: each a count, then its values' bytes.
    fn rows(rows: &[(i32, &[u8])]) -> Vec<u8> {
        rows.iter().flat_map(|(n, bytes)| n.to_le_bytes().into_iter().chain(bytes.iter().copied())).collect()
    }

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// A `.npy` file of `version` whose header is `dict`, then `data`.
    fn npy(version: u8, dict: &str, data: &[u8]) -> Vec<u8> {
        let mut out = NPY_MAGIC.to_vec();
        out.extend_from_slice(&[version, 0]);
        let text = format!("{dict}\n");
        if version == 1 {
            out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(data);
        out
    }

    fn dict(descr: &str, shape: &str) -> String {
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}")
    }

    fn name(format: Format) -> PathBuf {
        PathBuf::from(format!("x{}", if format == Format::Text { ".txt" } else { format.name() }))
    }

    fn vectors_of(bytes: &[u8], format: Format) -> Result<Vectors> {
        decode_vectors(bytes, format, &name(format), None)
    }

    /// The message of the error `decode` gives.
    fn err<T: std::fmt::Debug>(result: Result<T>) -> String {
        result.unwrap_err().to_string()
    }

    use std::path::PathBuf;

    #[test]
    fn fvecs_and_npy_vectors_write_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let v = Vectors::new(3, vec![1.5, -2.0, 0.0, 3.25, 1e-7, -1e30, 7.0, 8.0, 9.0]).unwrap();
        let f = dir.path().join("v.fvecs");
        write_fvecs(&f, &v).unwrap();
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 3 * (4 + 12));
        assert_eq!(read_vectors(&f, None).unwrap(), v);
        assert_eq!(read_vectors(&f, Some(2)).unwrap().as_slice(), &v.as_slice()[..6]);
        assert_eq!(read_vectors(&f, Some(9)).unwrap(), v);
        let n = dir.path().join("v.npy");
        write_npy_f32(&n, 3, 3, v.as_slice()).unwrap();
        assert_eq!(std::fs::metadata(&n).unwrap().len() % 4, 0);
        assert_eq!(read_vectors(&n, None).unwrap(), v);
        assert_eq!(read_vectors(&n, Some(1)).unwrap().as_slice(), v.row(0));
        let header = std::fs::read(&n).unwrap();
        assert_eq!(header[..128].len() % 64, 0);
        assert!(
            header.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3, 3), }")
        );
        assert_eq!(header[127], b'\n');
    }

    #[test]
    fn bvecs_and_other_npy_dtypes_become_floats() {
        let b = rows(&[(2, &[0, 255]), (2, &[7, 1])]);
        assert_eq!(vectors_of(&b, Format::Bvecs).unwrap().as_slice(), &[0.0, 255.0, 7.0, 1.0]);
        let f8: Vec<u8> = [0.5f64, -1.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(vectors_of(&npy(1, &dict("<f8", "(1, 2)"), &f8), Format::Npy).unwrap().as_slice(), &[0.5, -1.0]);
        assert_eq!(vectors_of(&npy(2, &dict("|u1", "(2, 1)"), &[3, 4]), Format::Npy).unwrap().as_slice(), &[3.0, 4.0]);
        let i4: Vec<u8> = [-3i32, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
        let v3 = npy(3, "{\"shape\":(1,2),\"fortran_order\":False,\"descr\":\"<i4\"}", &i4);
        assert_eq!(vectors_of(&v3, Format::Npy).unwrap().as_slice(), &[-3.0, 9.0]);
        // Python 2's numpy wrote longs.
        let long = npy(1, &dict("<f4", "(1L, 2L)"), &floats(&[1.0, 2.0]));
        assert_eq!(vectors_of(&long, Format::Npy).unwrap().dim(), 2);
    }

    #[test]
    fn ids_write_and_read_back_with_none_as_minus_one() {
        let dir = tempfile::tempdir().unwrap();
        let ids = vec![3, 1, NONE, 0, 2_000_000_000, 5];
        let f = dir.path().join("gt.ivecs");
        write_ivecs(&f, 3, &ids).unwrap();
        let bytes = std::fs::read(&f).unwrap();
        assert_eq!(bytes[12..16], (-1i32).to_le_bytes());
        let back = read_ids(&f).unwrap();
        assert_eq!((back.k, back.len(), back.row(1)), (3, 2, &[0, 2_000_000_000, 5][..]));
        assert_eq!(back.ids, ids);
        let n = dir.path().join("gt.npy");
        write_npy_ids(&n, 2, 3, &ids).unwrap();
        assert_eq!(read_ids(&n).unwrap(), back);
        let bytes = std::fs::read(&n).unwrap();
        assert!(bytes.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }"));
        assert_eq!(bytes[128 + 16..128 + 24], (-1i64).to_le_bytes());
        for (descr, data) in [
            ("<i4", [1i32, -1].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()),
            ("<u4", [1u32, u32::MAX].iter().flat_map(|v| v.to_le_bytes()).collect()),
            ("<u8", [1u64, u64::from(u32::MAX)].iter().flat_map(|v| v.to_le_bytes()).collect()),
        ] {
            let rows = decode_ids(&npy(1, &dict(descr, "(1, 2)"), &data)[..], Format::Npy, Path::new("x.npy")).unwrap();
            assert_eq!(rows, IdRows { k: 2, ids: vec![1, NONE] }, "{descr}");
        }
        assert_eq!(err(write_ivecs(&f, 2, &[1, 2, 3])), "3 ids are not whole rows of 2 (1 to 2147483647)");
        assert_eq!(
            err(write_ivecs(&f, 2, &[1, 3_000_000_000])),
            "row 0, column 1: id 3000000000 is beyond .ivecs' i32"
        );
        assert_eq!(err(write_npy_ids(&n, 2, 2, &[1, 2, 3])), "3 values are not 2 rows of 2");
    }

    #[test]
    fn labels_are_text_lines_or_a_1d_npy() {
        let text = |s: &str| decode_labels(s.as_bytes(), Format::Text, Path::new("labels.txt"));
        assert_eq!(text("3\n0\r\n 7 \n4294967295\n\n  \n").unwrap(), vec![3, 0, 7, u32::MAX]);
        assert_eq!(err(text("1\n2\n3\n4\nabc\n")), r#"labels.txt: line 5: "abc" is not a non-negative integer"#);
        assert_eq!(err(text("-1\n")), r#"labels.txt: line 1: "-1" is not a non-negative integer"#);
        assert_eq!(err(text("4294967296\n")), r#"labels.txt: line 1: "4294967296" is larger than 4294967295"#);
        assert_eq!(err(text("1\n\n2\n")), "labels.txt: line 2 is blank, yet line 3 has a label");
        assert_eq!(err(text("\n\n")), "labels.txt: holds no labels");
        let l8: Vec<u8> = [5i64, 0, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        let labels = |b: &[u8]| decode_labels(b, Format::Npy, Path::new("l.npy"));
        assert_eq!(labels(&npy(1, &dict("<i8", "(3,)"), &l8)).unwrap(), vec![5, 0, 2]);
        assert_eq!(labels(&npy(1, &dict("|u1", "(2,)"), &[9, 1])).unwrap(), vec![9, 1]);
        let neg: Vec<u8> = [1i32, -4].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(err(labels(&npy(1, &dict("<i4", "(2,)"), &neg))), "l.npy: label 1: -4 is not 0 to 4294967295");
        assert_eq!(
            err(labels(&npy(1, &dict("<i8", "(3, 1)"), &l8))),
            "l.npy: shape (3, 1) has 2 dimensions; labels need 1 (one label a vector)"
        );
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("labels");
        std::fs::write(&f, "2\n1\n").unwrap();
        assert_eq!(read_labels(&f).unwrap(), vec![2, 1]);
        assert_eq!(
            err(decode_labels(&b"1"[..], Format::Fvecs, Path::new("l.fvecs"))),
            "l.fvecs: labels are read from .npy or text, not .fvecs"
        );
    }

    #[test]
    fn bad_rows_are_one_line_each() {
        let row = floats(&[1.0; 128]);
        let mut truncated = rows(&[(128, &row), (128, &row), (128, &row)]);
        truncated.extend_from_slice(&128i32.to_le_bytes());
        truncated.extend_from_slice(&row[..196]);
        assert_eq!(err(vectors_of(&truncated, Format::Fvecs)), "x.fvecs: truncated: row 3 needs 516 bytes, 200 remain");
        assert_eq!(
            err(vectors_of(&[1, 0], Format::Fvecs)),
            "x.fvecs: truncated: row 0 needs 4 bytes for its dimension, 2 remain"
        );
        assert_eq!(err(vectors_of(&rows(&[(0, &[])]), Format::Fvecs)), "x.fvecs: row 0 has dimension 0");
        assert_eq!(err(vectors_of(&rows(&[(-5, &[])]), Format::Bvecs)), "x.bvecs: row 0 has a negative dimension, -5");
        assert_eq!(
            err(vectors_of(&rows(&[(5000, &[])]), Format::Fvecs)),
            "x.fvecs: row 0 has dimension 5000, more than 4096"
        );
        let mixed = rows(&[(2, &floats(&[1.0, 2.0])), (3, &floats(&[1.0, 2.0, 3.0]))]);
        assert_eq!(err(vectors_of(&mixed, Format::Fvecs)), "x.fvecs: row 1 has dimension 3, row 0 has 2");
        let nan = rows(&[(2, &floats(&[1.0, 2.0])), (2, &floats(&[f32::NAN, 2.0]))]);
        assert_eq!(err(vectors_of(&nan, Format::Fvecs)), "x.fvecs: row 1, column 0: NaN is not a finite number");
        assert_eq!(err(vectors_of(&[], Format::Fvecs)), "x.fvecs: holds no vectors");
        let negative = rows(&[(2, &[7, 0, 0, 0, 254, 255, 255, 255])]);
        let e = err(decode_ids(&negative[..], Format::Ivecs, Path::new("gt.ivecs")));
        assert_eq!(e, "gt.ivecs: row 0, column 1: -2 is not an id (0 to 4294967294, or -1 for none)");
        assert_eq!(
            err(decode_vectors(&b""[..], Format::Ivecs, Path::new("x.ivecs"), None)),
            "x.ivecs: vectors are read from .fvecs, .bvecs or .npy, not .ivecs"
        );
        assert_eq!(
            err(decode_vectors(&b""[..], Format::Fvecs, Path::new("x"), Some(0))),
            "max_rows 0: read at least one row"
        );
    }

    #[test]
    fn bad_npy_files_are_one_line_each() {
        let data = floats(&[1.0, 2.0, 3.0, 4.0]);
        let v = |dict: &str, data: &[u8]| err(vectors_of(&npy(1, dict, data), Format::Npy));
        assert_eq!(
            err(vectors_of(b"PK\x03\x04 a zip", Format::Npy)),
            "x.npy: not a .npy file: it does not start with \\x93NUMPY"
        );
        assert_eq!(
            err(vectors_of(b"\x93NUMPY\x01", Format::Npy)),
            "x.npy: truncated: no format version after the magic string"
        );
        assert_eq!(
            err(vectors_of(b"\x93NUMPY\x04\x00\x00\x00", Format::Npy)),
            "x.npy: format version 4.0 is not supported (expected 1.0, 2.0 or 3.0)"
        );
        assert_eq!(
            err(vectors_of(b"\x93NUMPY\x01\x00\x10\x00{", Format::Npy)),
            "x.npy: truncated: the header needs 16 bytes from byte 10, 1 remain"
        );
        assert_eq!(
            err(vectors_of(b"\x93NUMPY\x02\x00\x00\x00\x00\x01", Format::Npy)),
            "x.npy: header of 16777216 bytes: longer than the 65536 read"
        );
        assert_eq!(
            v("{'descr': '<f4' 'fortran_order': False, 'shape': (2, 2), }", &data),
            "x.npy: header byte 26: expected ',' or '}', found '\\''"
        );
        assert_eq!(v("{'descr': '<f4', 'shape': (2, 2), }", &data), "x.npy: header has no 'fortran_order'");
        assert_eq!(
            v("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 2), }", &data),
            "x.npy: header byte 44: expected a string, True, False or a tuple, found '0'"
        );
        assert_eq!(
            v("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 'y'}", &data),
            "x.npy: header: unknown key \"x\""
        );
        assert_eq!(
            v("{'descr': (2,), 'fortran_order': False, 'shape': (2, 2)}", &data),
            "x.npy: header: 'descr' is a tuple, not a string"
        );
        assert_eq!(
            v("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)} x", &data),
            "x.npy: header byte 68: 'x' after the dictionary"
        );
        assert_eq!(
            v("{'descr': '<f4, 'fortran_order': False, 'shape': (2, 2)}", &data),
            "x.npy: header byte 27: expected ',' or '}', found 'f'"
        );
        assert_eq!(
            v("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 2)}", &data),
            "x.npy: header byte 61: 99999999999999999999 is too large"
        );
        assert_eq!(
            v("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", &data),
            "x.npy: fortran_order is True: only C-order arrays are read (numpy.ascontiguousarray makes one)"
        );
        assert_eq!(
            v(&dict(">f4", "(2, 2)"), &data),
            "x.npy: dtype '>f4' is not supported (expected <f4, <f8, |u1, <i4)"
        );
        let e = v(&dict("<f4\n", "(2, 2)"), &data);
        assert_eq!(e, "x.npy: dtype '<f4\\n' is not supported (expected <f4, <f8, |u1, <i4)");
        assert_eq!(v(&dict("<f4", "(4,)"), &data), "x.npy: shape (4,) has 1 dimension; vectors need 2 (rows, columns)");
        assert_eq!(v(&dict("<f4", "(1, 0)"), &data), "x.npy: shape (1, 0): dimension 0: must be 1 to 4096");
        assert_eq!(
            v(&dict("<f4", "(4294967296, 4294967296, 2)"), &data),
            "x.npy: shape (4294967296, 4294967296, 2) has too many values"
        );
        assert_eq!(
            v(&dict("<f4", "(3, 2)"), &data),
            "x.npy: truncated: shape (3, 2) of <f4 needs 24 bytes of data from byte 70, 16 remain"
        );
        assert_eq!(
            v(&dict("<f4", "(1, 2)"), &data),
            "x.npy: shape (1, 2) of <f4 holds 8 bytes of data from byte 70, but more follow"
        );
        assert_eq!(v(&dict("<f4", "(0, 2)"), &[]), "x.npy: holds no vectors");
        // Only the rows asked for are read: a file cut after them reads.
        let cut = npy(1, &dict("<f4", "(3, 2)"), &data);
        assert_eq!(decode_vectors(&cut[..], Format::Npy, Path::new("x.npy"), Some(2)).unwrap().len(), 2);
        let e = err(decode_ids(&npy(1, &dict("<f4", "(2, 2)"), &data)[..], Format::Npy, Path::new("gt.npy")));
        assert_eq!(e, "gt.npy: dtype '<f4' is not supported (expected <i4, <i8, <u4, <u8)");
        let big: Vec<u8> = [1i64, 1 << 32].iter().flat_map(|v| v.to_le_bytes()).collect();
        let e = err(decode_ids(&npy(1, &dict("<i8", "(1, 2)"), &big)[..], Format::Npy, Path::new("gt.npy")));
        assert_eq!(e, "gt.npy: row 0, column 1: 4294967296 is not an id (0 to 4294967294, or -1 for none)");
    }

    #[test]
    fn files_are_known_by_their_extension() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            err(read_vectors(dir.path().join("x.csv"), None)),
            format!("{}: vectors are read from .fvecs, .bvecs or .npy, not .csv", dir.path().join("x.csv").display())
        );
        assert!(err(read_vectors("base", None))
            .ends_with("vectors are read from .fvecs, .bvecs or .npy, not a name without an extension"));
        assert_eq!(err(read_ids("gt.fvecs")), "gt.fvecs: ids are read from .ivecs or .npy, not .fvecs");
        let missing = dir.path().join("missing.FVECS");
        let e = read_vectors(&missing, None).unwrap_err();
        assert!(matches!(e, AnnError::Io { .. }), "{e}");
        assert!(e.to_string().starts_with(&format!("{}: ", missing.display())), "{e}");
        // A file's length bounds what is reserved; a stream's claims do not.
        let f = dir.path().join("x.npy");
        std::fs::write(&f, npy(1, &dict("<f4", "(1000000000, 4)"), &floats(&[1.0; 4]))).unwrap();
        assert!(err(read_vectors(&f, None)).contains("truncated: shape (1000000000, 4) of <f4 needs 16000000000 bytes"));
    }

    /// Valid files of every format, for the decoders to be fed damaged.
    fn samples() -> Vec<(Format, Vec<u8>)> {
        let ids: Vec<u8> = [1i32, -1, 4, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
        vec![
            (Format::Fvecs, rows(&[(2, &floats(&[1.0, 2.0])), (2, &floats(&[3.0, 4.0]))])),
            (Format::Bvecs, rows(&[(3, &[1, 2, 3]), (3, &[4, 5, 6])])),
            (Format::Ivecs, rows(&[(2, &ids[..8]), (2, &ids[8..])])),
            (Format::Npy, npy(1, &dict("<f4", "(2, 2)"), &floats(&[1.0, 2.0, 3.0, 4.0]))),
            (Format::Npy, npy(2, &dict("<i4", "(2, 2)"), &ids)),
            (Format::Npy, npy(3, &dict("<i4", "(2,)"), &ids[8..])),
            (Format::Text, b"1\n2\n0\n".to_vec()),
        ]
    }

    /// Every decoder, in every format: errors are one line.
    fn decode_all(bytes: &[u8]) {
        fn one_line<T>(result: Result<T>) {
            if let Err(e) = result {
                assert!(!e.to_string().contains('\n'), "{e}");
            }
        }
        for format in [Format::Fvecs, Format::Bvecs, Format::Ivecs, Format::Npy, Format::Text] {
            let name = name(format);
            one_line(decode_vectors(bytes, format, &name, None));
            one_line(decode_vectors(bytes, format, &name, Some(1)));
            one_line(decode_ids(bytes, format, &name));
            one_line(decode_labels(bytes, format, &name));
        }
    }

    #[test]
    fn samples_decode() {
        for (format, bytes) in samples() {
            let name = name(format);
            let ok = decode_vectors(&bytes[..], format, &name, None).is_ok()
                || decode_ids(&bytes[..], format, &name).is_ok()
                || decode_labels(&bytes[..], format, &name).is_ok();
            assert!(ok, "{format:?}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
            decode_all(&bytes);
            let mut npy = NPY_MAGIC.to_vec();
            npy.extend_from_slice(&bytes);
            decode_all(&npy);
        }

        #[test]
        fn damaged_files_never_panic(
            which in 0..7usize,
            edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            cut in any::<prop::sample::Index>(),
        ) {
            let (_, mut bytes) = samples().swap_remove(which);
            for (at, byte) in edits {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
            let len = cut.index(bytes.len() + 1);
            decode_all(&bytes);
            decode_all(&bytes[..len]);
        }
    }
}
