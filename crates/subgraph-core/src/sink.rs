//! Where matches go and when enumeration stops: the count, a limit (first N), a deadline,
//! Ctrl-C, progress, and the streamed embedding writer (text, CSV, JSON lines).

use crate::decimal;
use crate::graph::{Id, VertexIds};
use std::io::IoSlice;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The longest time limit a query may be given, in seconds (about 31.7 years): a deadline
/// further away could not be represented on every platform.
pub const MAX_TIMEOUT_SECS: f64 = 1e9;

/// A time limit of `secs` seconds, or why it is not one (it must be positive, and at most
/// [`MAX_TIMEOUT_SECS`]: not NaN nor infinite). A positive limit under a nanosecond is one
/// nanosecond, never zero.
pub fn timeout(secs: f64) -> Result<std::time::Duration, String> {
    if secs > 0.0 && secs <= MAX_TIMEOUT_SECS {
        Ok(std::time::Duration::from_secs_f64(secs).max(std::time::Duration::from_nanos(1)))
    } else {
        Err(format!("a time limit must be a positive number of seconds, at most {MAX_TIMEOUT_SECS:e}"))
    }
}

/// Why enumeration ended before it was complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stopped {
    Limit,
    Timeout,
    Interrupted,
}

/// Stop signals shared by all workers of one query, and its progress counter.
#[derive(Debug)]
pub struct Control {
    deadline: Option<Instant>,
    /// A trial's budget, which its progress toward a limit may extend (up to `deadline`).
    budget: Option<Budget>,
    interrupt: Arc<AtomicBool>,
    stop: AtomicBool,
    reason: AtomicU8,
    /// Embeddings found so far (updated in batches; for progress display).
    pub found: AtomicU64,
    /// The first position's candidates (roots) the CPU engine has begun, of `roots_total`
    /// (updated in batches; a trial's progress where no limit is set).
    pub roots: AtomicU64,
    pub roots_total: AtomicU64,
}

/// The end of a trial that heads for its end (the limit, or else its last root): when it
/// comes, the trial goes on (once) as long as its progress so far (the share of the limit
/// found, or of the roots begun, whichever is larger) projects it finishing, with a quarter
/// to spare, before the control's deadline.
#[derive(Debug)]
struct Budget {
    start: Instant,
    /// Nanoseconds after `start`.
    end: AtomicU64,
    limit: Option<u64>,
    /// Whether the budget was extended; held while a thread decides.
    extended: Mutex<bool>,
}

impl Budget {
    /// Whether the budget has run out at `now`, after extending it once where the progress
    /// allows, up to `hard`.
    fn spent(&self, now: Instant, control: &Control, hard: Option<Instant>) -> bool {
        let elapsed = now.duration_since(self.start);
        let before = |end: &AtomicU64| elapsed.as_nanos() < end.load(Ordering::Acquire) as u128;
        if before(&self.end) {
            return false;
        }
        let mut extended = self.extended.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread may have extended it meanwhile.
        if before(&self.end) {
            return false;
        }
        let done = self.progress(control);
        if done < 0.5 || *extended {
            return true;
        }
        *extended = true;
        let projected = elapsed.mul_f64(1.25 / done);
        if hard.is_some_and(|h| self.start + projected > h) {
            return true;
        }
        self.end.store(projected.as_nanos().min(u64::MAX as u128) as u64, Ordering::Release);
        false
    }

    /// The share of the trial done, 0 to 1: of the limit found, or of the roots begun.
    fn progress(&self, control: &Control) -> f64 {
        let share = |part: u64, whole: u64| if whole == 0 { 0.0 } else { (part as f64 / whole as f64).min(1.0) };
        let found = self.limit.map_or(0.0, |l| share(control.found.load(Ordering::Relaxed), l));
        found.max(share(control.roots.load(Ordering::Relaxed), control.roots_total.load(Ordering::Relaxed)))
    }
}

impl Control {
    /// `interrupt` is set from outside (Ctrl-C) to stop every query.
    pub fn new(deadline: Option<Instant>, interrupt: Arc<AtomicBool>) -> Control {
        Control {
            deadline,
            budget: None,
            interrupt,
            stop: AtomicBool::new(false),
            reason: AtomicU8::new(0),
            found: AtomicU64::new(0),
            roots: AtomicU64::new(0),
            roots_total: AtomicU64::new(0),
        }
    }

    /// A control with no deadline and no interrupt.
    pub fn unlimited() -> Control {
        Control::new(None, Arc::new(AtomicBool::new(false)))
    }

    /// A control for a trial run of at most `budget`: this one's interrupt, and its deadline
    /// or `budget` from now, whichever comes first.
    pub fn trial(&self, budget: std::time::Duration) -> Control {
        let end = Instant::now() + budget;
        Control::new(Some(self.deadline.map_or(end, |d| d.min(end))), self.interrupt.clone())
    }

    /// A trial of `budget` that heads for its end, `limit` embeddings or its last root: when
    /// the budget runs out, it goes on if its progress so far projects finishing within `reach`
    /// of its start (and within this control's deadline).
    pub fn trial_toward(&self, budget: std::time::Duration, limit: Option<u64>, reach: std::time::Duration) -> Control {
        let start = Instant::now();
        let mut c = self.trial(reach.max(budget));
        let end = budget.as_nanos().min(u64::MAX as u128) as u64;
        c.budget = Some(Budget { start, end: AtomicU64::new(end), limit, extended: Mutex::new(false) });
        c
    }

    /// Records the first reason and raises the flag.
    pub fn stop(&self, why: Stopped) {
        let code = match why {
            Stopped::Limit => 1,
            Stopped::Timeout => 2,
            Stopped::Interrupted => 3,
        };
        let _ = self.reason.compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed);
        self.stop.store(true, Ordering::Release);
    }

    /// Whether to stop now; checks the interrupt and the deadline.
    pub fn should_stop(&self) -> bool {
        if self.stop.load(Ordering::Acquire) {
            return true;
        }
        if self.interrupt.load(Ordering::Relaxed) {
            self.stop(Stopped::Interrupted);
            return true;
        }
        if self.deadline.is_none() {
            return false;
        }
        let now = Instant::now();
        let over = self.deadline.is_some_and(|d| now >= d)
            || self.budget.as_ref().is_some_and(|b| b.spent(now, self, self.deadline));
        if over {
            self.stop(Stopped::Timeout);
        }
        over
    }

    pub fn stopped(&self) -> Option<Stopped> {
        match self.reason.load(Ordering::Relaxed) {
            1 => Some(Stopped::Limit),
            2 => Some(Stopped::Timeout),
            3 => Some(Stopped::Interrupted),
            _ => None,
        }
    }
}

/// How embeddings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// `# query PATH` then one line per embedding: data vertex ids in query vertex order.
    Text,
    /// A header `query,u0,u1,...` per query, then `PATH,v0,v1,...` rows.
    Csv,
    /// `{"query":"PATH","embedding":[v0,v1,...]}` per line.
    Jsonl,
    /// Data vertex numbers (not original ids) as little-endian u32 words, one per query vertex
    /// in query vertex order, no header: for programs that read matches in memory (the Python
    /// binding's arrays), not among the command line's formats.
    Words,
    /// Packed rows in framed sections (README, "Binary output"): per query a `SGMQ` section
    /// (columns, id width, the query's and the columns' names), then `SGMR` sections of rows
    /// of little-endian ids (u32 vertex numbers, or u64 original numeric ids), and `SGMC` for a
    /// pattern's `count(*)`.
    Binary,
}

/// Tags of the binary output's sections; each is followed by a u32 byte length.
pub const BINARY_QUERY: [u8; 4] = *b"SGMQ";
pub const BINARY_ROWS: [u8; 4] = *b"SGMR";
pub const BINARY_COUNT: [u8; 4] = *b"SGMC";
/// The binary output's version, in each query section.
pub const BINARY_VERSION: u32 = 1;

impl OutputFormat {
    pub const NAMES: &'static [&'static str] = &["text", "csv", "jsonl", "binary"];

    pub fn from_name(name: &str) -> Option<OutputFormat> {
        match name {
            "text" => Some(OutputFormat::Text),
            "csv" => Some(OutputFormat::Csv),
            "jsonl" => Some(OutputFormat::Jsonl),
            "binary" => Some(OutputFormat::Binary),
            _ => None,
        }
    }
}

/// A shared writer of embeddings; workers format into their own buffers and hand over batches.
pub struct Output {
    inner: Mutex<(Box<dyn Write + Send>, Option<std::io::Error>)>,
    format: OutputFormat,
    /// The data graph's original ids, written instead of vertex numbers.
    ids: Option<Arc<VertexIds>>,
    /// Heads are not written: a query's expansions after its first (`Output::hold_heads`).
    heads_held: std::sync::atomic::AtomicBool,
}

/// Appends `words` to `buf` as little-endian u32s.
fn put_words(buf: &mut Vec<u8>, words: &[u32]) {
    buf.reserve(4 * words.len());
    words.iter().for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
}

/// What [`Output::format_gathered`] keeps from one embedding to the next: the embedding
/// gathered for the formats that take it whole, and each column's digits.
#[derive(Debug, Clone, Default)]
pub struct Gathering {
    embedding: Vec<u32>,
    columns: decimal::Columns,
}

/// Bytes a worker buffers before it writes a batch.
pub const OUTPUT_BATCH: usize = 1 << 16;

impl Output {
    pub fn new(w: Box<dyn Write + Send>, format: OutputFormat) -> Output {
        Output { inner: Mutex::new((w, None)), format, ids: None, heads_held: Default::default() }
    }

    /// While `hold` is true, [`Output::begin_query`] and [`Output::begin_rows`] write nothing:
    /// the queries a query file expands into on data with label sets write their rows under the
    /// first one's head, as one query.
    pub fn hold_heads(&self, hold: bool) {
        self.heads_held.store(hold, std::sync::atomic::Ordering::Relaxed);
    }

    /// Writes the data graph's original ids (`Graph::ids`) instead of its vertex numbers.
    pub fn with_ids(mut self, ids: Option<Arc<VertexIds>>) -> Output {
        self.ids = ids;
        self
    }

    /// Appends data vertex v as the output names it: its original id, quoted as the format
    /// needs when it is a name.
    fn vertex(&self, v: u32, buf: &mut Vec<u8>) {
        match self.ids.as_deref().map(|ids| ids.get(v)) {
            None => decimal::push_u32(buf, v),
            Some(Id::Number(x)) => decimal::push_u64(buf, x),
            Some(Id::Name(s)) => match self.format {
                OutputFormat::Text | OutputFormat::Words | OutputFormat::Binary => buf.extend_from_slice(s.as_bytes()),
                OutputFormat::Csv => buf.extend_from_slice(csv_field(s).as_bytes()),
                OutputFormat::Jsonl => push_json_string(buf, s),
            },
        }
    }

    /// Writes what starts a query's section.
    pub fn begin_query(&self, query: &str, n: usize) {
        if self.heads_held.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let mut head = Vec::new();
        match self.format {
            OutputFormat::Text => {
                let _ = writeln!(head, "# query {query}");
            }
            OutputFormat::Csv => {
                head.extend_from_slice(b"query");
                (0..n).for_each(|u| {
                    let _ = write!(head, ",u{u}");
                });
                head.push(b'\n');
            }
            OutputFormat::Binary => {
                let names: Vec<String> = (0..n).map(|u| format!("u{u}")).collect();
                self.binary_header(&mut head, query, &names);
            }
            OutputFormat::Jsonl | OutputFormat::Words => {}
        }
        self.write_raw(&head);
    }

    /// Whether [`Output::format`] writes an embedding as its data vertex numbers, each a
    /// little-endian u32 and nothing else (binary rows without original ids, and `Words`): what
    /// a writer may then put in a batch itself.
    pub fn writes_words(&self) -> bool {
        match self.format {
            OutputFormat::Words => true,
            OutputFormat::Binary => self.ids.is_none(),
            _ => false,
        }
    }

    /// Bytes per id in binary rows: 8 where the data graph's original ids are numbers, else 4
    /// (vertex numbers; the command line refuses binary output of named ids).
    fn id_bytes(&self) -> usize {
        match self.ids.as_deref() {
            Some(ids) if ids.are_wide_numbers() => 8,
            _ => 4,
        }
    }

    /// A binary query section: version, columns, id width, then the query's name and each
    /// column's, each as a u32 length and UTF-8 bytes, zero-padded to a multiple of 4.
    fn binary_header(&self, head: &mut Vec<u8>, query: &str, names: &[String]) {
        let mut body = Vec::new();
        for x in [BINARY_VERSION, names.len() as u32, self.id_bytes() as u32] {
            body.extend_from_slice(&x.to_le_bytes());
        }
        for name in std::iter::once(query).chain(names.iter().map(String::as_str)) {
            body.extend_from_slice(&(name.len() as u32).to_le_bytes());
            body.extend_from_slice(name.as_bytes());
        }
        body.resize(body.len().next_multiple_of(4), 0);
        frame(head, BINARY_QUERY, &body);
    }

    /// Appends one embedding (data vertex per query vertex) to `buf`.
    pub fn format(&self, query: &str, embedding: &[u32], buf: &mut Vec<u8>) {
        let sep = |buf: &mut Vec<u8>, i: usize, s: u8| {
            if i > 0 {
                buf.push(s)
            }
        };
        match self.format {
            OutputFormat::Text => {
                for (i, &v) in embedding.iter().enumerate() {
                    sep(buf, i, b' ');
                    self.vertex(v, buf);
                }
                buf.push(b'\n');
            }
            OutputFormat::Csv => {
                buf.extend_from_slice(csv_field(query).as_bytes());
                for &v in embedding {
                    buf.push(b',');
                    self.vertex(v, buf);
                }
                buf.push(b'\n');
            }
            OutputFormat::Words => put_words(buf, embedding),
            OutputFormat::Binary => match self.ids.as_deref() {
                Some(VertexIds::Numbers(ids)) => {
                    embedding.iter().for_each(|&v| buf.extend_from_slice(&ids[v as usize].to_le_bytes()))
                }
                Some(ids @ VertexIds::Renumbered { .. }) => {
                    let wide = ids.are_wide_numbers();
                    for &v in embedding {
                        let Id::Number(x) = ids.get(v) else { unreachable!("binary output is refused for names") };
                        match wide {
                            true => buf.extend_from_slice(&x.to_le_bytes()),
                            false => buf.extend_from_slice(&(x as u32).to_le_bytes()),
                        }
                    }
                }
                _ => put_words(buf, embedding),
            },
            OutputFormat::Jsonl => {
                buf.extend_from_slice(b"{\"query\":");
                push_json_string(buf, query);
                buf.extend_from_slice(b",\"embedding\":[");
                for (i, &v) in embedding.iter().enumerate() {
                    sep(buf, i, b',');
                    self.vertex(v, buf);
                }
                buf.extend_from_slice(b"]}\n");
            }
        }
    }

    /// Appends the embedding whose data vertex of query vertex u is `row[columns[u]]`, as
    /// [`Output::format`] would: text and CSV lines and u32 words of vertex numbers straight
    /// from the row (text digits kept from the row before where a column's number is the same,
    /// in `scratch`), anything else through the embedding gathered in `scratch`.
    pub fn format_gathered(
        &self,
        query: &str,
        row: &[u32],
        columns: &[usize],
        scratch: &mut Gathering,
        buf: &mut Vec<u8>,
    ) {
        match (self.format, self.ids.is_none()) {
            (OutputFormat::Text, true) => scratch.columns.push_row(row, columns, b' ', buf),
            (OutputFormat::Csv, true) => {
                buf.extend_from_slice(csv_field(query).as_bytes());
                if !columns.is_empty() {
                    buf.push(b',');
                }
                scratch.columns.push_row(row, columns, b',', buf);
            }
            _ if self.writes_words() => columns.iter().for_each(|&c| buf.extend_from_slice(&row[c].to_le_bytes())),
            _ => {
                scratch.embedding.clear();
                scratch.embedding.extend(columns.iter().map(|&c| row[c]));
                self.format(query, &scratch.embedding, buf);
            }
        }
    }

    /// Writes what starts a pattern's rows: the query and the columns' names (a header line
    /// for text and CSV; JSON lines name them in each row).
    pub fn begin_rows(&self, query: &str, names: &[String]) {
        if self.heads_held.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let mut head = Vec::new();
        match self.format {
            OutputFormat::Text => {
                let _ = writeln!(head, "# query {query}");
                let _ = writeln!(head, "# {}", names.join(" "));
            }
            OutputFormat::Csv => {
                head.extend_from_slice(b"query");
                names.iter().for_each(|n| {
                    let _ = write!(head, ",{}", csv_field(n));
                });
                head.push(b'\n');
            }
            OutputFormat::Binary => self.binary_header(&mut head, query, names),
            OutputFormat::Jsonl | OutputFormat::Words => {}
        }
        self.write_raw(&head);
    }

    /// Appends one result row of a pattern (data vertices, named by `names` in JSON lines).
    pub fn format_row(&self, query: &str, names: &[String], row: &[u32], buf: &mut Vec<u8>) {
        match self.format {
            OutputFormat::Jsonl => {
                buf.extend_from_slice(b"{\"query\":");
                push_json_string(buf, query);
                buf.extend_from_slice(b",\"row\":{");
                for (i, (&v, name)) in row.iter().zip(names).enumerate() {
                    if i > 0 {
                        buf.push(b',');
                    }
                    push_json_string(buf, name);
                    buf.push(b':');
                    self.vertex(v, buf);
                }
                buf.extend_from_slice(b"}}\n");
            }
            _ => self.format(query, row, buf),
        }
    }

    /// Writes a pattern's `count(*)` row, named `name`.
    pub fn write_count(&self, query: &str, name: &str, count: u128) {
        let mut buf = Vec::new();
        let _ = match self.format {
            OutputFormat::Text => writeln!(buf, "{count}"),
            OutputFormat::Csv => writeln!(buf, "{},{count}", csv_field(query)),
            OutputFormat::Jsonl => {
                writeln!(buf, "{{\"query\":{},\"row\":{{{}:{count}}}}}", json_string(query), json_string(name))
            }
            OutputFormat::Binary => {
                frame(&mut buf, BINARY_COUNT, &count.to_le_bytes());
                Ok(())
            }
            OutputFormat::Words => Ok(()),
        };
        self.write_raw(&buf);
    }

    /// Writes a batch of rows made by [`Output::format`] or [`Output::format_row`] (in binary
    /// output, as one rows section); the first I/O error is kept for [`Output::finish`].
    pub fn write_batch(&self, buf: &[u8]) {
        match self.format {
            OutputFormat::Binary if buf.is_empty() => {}
            OutputFormat::Binary => {
                let mut head = Vec::with_capacity(8);
                head.extend_from_slice(&BINARY_ROWS);
                head.extend_from_slice(&(buf.len() as u32).to_le_bytes());
                self.write_parts(&[&head, buf]);
            }
            _ => self.write_raw(buf),
        }
    }

    fn write_raw(&self, buf: &[u8]) {
        self.write_parts(&[buf]);
    }

    /// Writes `parts` in order, together (no other batch between them), in one vectored write
    /// where the writer takes them whole (a buffered writer passes a batch at least its capacity
    /// straight through, uncopied).
    fn write_parts(&self, parts: &[&[u8]]) {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.1.is_some() {
            return;
        }
        let mut slices: Vec<IoSlice> = parts.iter().filter(|p| !p.is_empty()).map(|p| IoSlice::new(p)).collect();
        let mut rest = &mut slices[..];
        while !rest.is_empty() {
            match g.0.write_vectored(rest) {
                Ok(0) => {
                    g.1 = Some(std::io::ErrorKind::WriteZero.into());
                    return;
                }
                Ok(n) => IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    g.1 = Some(e);
                    return;
                }
            }
        }
    }

    /// Flushes and reports the first write error.
    pub fn finish(&self) -> std::io::Result<()> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = g.1.take() {
            return Err(e);
        }
        g.0.flush()
    }
}

/// Appends a binary section: its tag, the body's length (u32), the body.
fn frame(buf: &mut Vec<u8>, tag: [u8; 4], body: &[u8]) {
    buf.extend_from_slice(&tag);
    buf.extend_from_slice(&(body.len() as u32).to_le_bytes());
    buf.extend_from_slice(body);
}

fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    String::from_utf8(out).expect("escaping keeps UTF-8 whole")
}

/// Appends `s` to `buf` as a JSON string, quoted and escaped: the quote, the backslash and the
/// control characters, ASCII bytes that no multi-byte UTF-8 sequence contains.
fn push_json_string(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        buf.extend_from_slice(s.as_bytes());
    } else {
        for b in s.bytes() {
            match b {
                b'"' => buf.extend_from_slice(b"\\\""),
                b'\\' => buf.extend_from_slice(b"\\\\"),
                b if b < 0x20 => {
                    let _ = write!(buf, "\\u{b:04x}");
                }
                b => buf.push(b),
            }
        }
    }
    buf.push(b'"');
}

/// One section of binary output, as [`read_binary`] returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BinarySection {
    /// A query's (or pattern's) start: its name, its columns' names, and bytes per id.
    Query { name: String, columns: Vec<String>, id_bytes: u32 },
    /// Rows of the last query, ids widened to u64.
    Rows(Vec<Vec<u64>>),
    /// A pattern's `count(*)`.
    Count(u128),
}

/// Reads binary output (`--output-format binary`) back into its sections; an error says what
/// is wrong where. For programs that consume the format, and the tests of it.
pub fn read_binary(mut data: &[u8]) -> Result<Vec<BinarySection>, String> {
    let mut out = Vec::new();
    let (mut columns, mut id_bytes) = (0usize, 4usize);
    let mut at = 0usize;
    let u32_at = |b: &[u8], i: usize| b.get(i..i + 4).map(|x| u32::from_le_bytes(x.try_into().expect("4 bytes")));
    while !data.is_empty() {
        let (Some(tag), Some(len)) = (data.get(..4), u32_at(data, 4)) else {
            return Err(format!("byte {at}: a truncated section head"));
        };
        let end = 8usize.checked_add(len as usize).filter(|&e| e <= data.len());
        let Some(body) = end.map(|e| &data[8..e]) else {
            return Err(format!("byte {at}: a section of {len} bytes runs past the end"));
        };
        let tag: [u8; 4] = tag.try_into().expect("4 bytes");
        match tag {
            BINARY_QUERY => {
                let field = |i: usize| u32_at(body, i).ok_or(format!("byte {at}: a truncated query section"));
                if field(0)? != BINARY_VERSION {
                    return Err(format!("byte {at}: binary output version {} is not supported", field(0)?));
                }
                (columns, id_bytes) = (field(4)? as usize, field(8)? as usize);
                if id_bytes != 4 && id_bytes != 8 {
                    return Err(format!("byte {at}: ids of {id_bytes} bytes"));
                }
                // Each name takes at least its 4-byte length.
                if columns > body.len() / 4 {
                    return Err(format!("byte {at}: {columns} columns do not fit a {len}-byte section"));
                }
                let mut names = Vec::new();
                let mut i = 12usize;
                for _ in 0..=columns {
                    let k = field(i)? as usize;
                    let span = i.checked_add(4).and_then(|a| Some(a..a.checked_add(k)?));
                    let bytes = span.and_then(|r| body.get(r)).ok_or(format!("byte {at}: a truncated name"))?;
                    names.push(
                        String::from_utf8(bytes.to_vec()).map_err(|_| format!("byte {at}: a name is not UTF-8"))?,
                    );
                    i += 4 + bytes.len();
                }
                let name = names.remove(0);
                out.push(BinarySection::Query { name, columns: names, id_bytes: id_bytes as u32 });
            }
            BINARY_ROWS => {
                let width = columns.checked_mul(id_bytes).unwrap_or(0);
                if width == 0 || body.len() % width != 0 {
                    return Err(format!(
                        "byte {at}: {} bytes of rows of {columns} ids of {id_bytes} bytes",
                        body.len()
                    ));
                }
                let id = |b: &[u8]| match id_bytes {
                    4 => u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64,
                    _ => u64::from_le_bytes(b.try_into().expect("8 bytes")),
                };
                out.push(BinarySection::Rows(
                    body.chunks(width).map(|r| r.chunks(id_bytes).map(id).collect()).collect(),
                ));
            }
            BINARY_COUNT if body.len() == 16 => {
                out.push(BinarySection::Count(u128::from_le_bytes(body.try_into().expect("16 bytes"))))
            }
            BINARY_COUNT => return Err(format!("byte {at}: a count section of {len} bytes")),
            // A section of a later version: skipped, as the format allows.
            _ => {}
        }
        at += 8 + body.len();
        data = &data[8 + body.len()..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_limit_is_positive_and_bounded() {
        use std::time::Duration;
        assert_eq!(timeout(0.5), Ok(Duration::from_millis(500)));
        assert_eq!(timeout(5e-108), Ok(Duration::from_nanos(1)));
        assert_eq!(timeout(MAX_TIMEOUT_SECS), Ok(Duration::from_secs(1_000_000_000)));
        for bad in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, MAX_TIMEOUT_SECS * 2.0] {
            assert!(timeout(bad).is_err(), "{bad}");
        }
    }

    /// Checks that trial `t`, past its budget, was extended, and that the extension ends.
    fn extended_then_stopped(t: &Control) {
        use std::time::Duration;
        assert!(!t.should_stop());
        let start = Instant::now();
        while !t.should_stop() {
            assert!(start.elapsed() < Duration::from_secs(60), "the extension never ended");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert_eq!(t.stopped(), Some(Stopped::Timeout));
    }

    #[test]
    fn a_trial_heading_for_its_limit_goes_on_once() {
        use std::time::Duration;
        let parent = Control::unlimited();
        let ms = Duration::from_millis;
        // Most of the limit found: extended (the projection always lies ahead), then stopped
        // when the extension runs out.
        let t = parent.trial_toward(ms(20), Some(100), Duration::from_secs(3600));
        t.found.store(80, Ordering::Relaxed);
        std::thread::sleep(ms(25));
        extended_then_stopped(&t);
        // Less than half the limit found: stopped at the budget.
        let t = parent.trial_toward(ms(20), Some(100), Duration::from_secs(3600));
        t.found.store(40, Ordering::Relaxed);
        std::thread::sleep(ms(25));
        assert!(t.should_stop());
        // A projection past the reach: stopped at the budget.
        let t = parent.trial_toward(ms(20), Some(100), ms(40));
        t.found.store(60, Ordering::Relaxed);
        std::thread::sleep(ms(22));
        assert!(t.should_stop());
        // Without a limit, matches found do not extend it.
        let t = parent.trial_toward(ms(20), None, Duration::from_secs(3600));
        t.found.store(1000, Ordering::Relaxed);
        std::thread::sleep(ms(25));
        assert!(t.should_stop());
    }

    #[test]
    fn a_trial_past_half_its_roots_goes_on_once() {
        use std::time::Duration;
        let parent = Control::unlimited();
        let ms = Duration::from_millis;
        // Most roots begun: extended, then stopped when the extension runs out.
        let t = parent.trial_toward(ms(20), None, Duration::from_secs(3600));
        t.roots_total.store(1000, Ordering::Relaxed);
        t.roots.store(900, Ordering::Relaxed);
        std::thread::sleep(ms(25));
        extended_then_stopped(&t);
        // Fewer than half begun, or no roots counted: stopped at the budget.
        for (begun, total) in [(400, 1000), (0, 0)] {
            let t = parent.trial_toward(ms(20), None, Duration::from_secs(3600));
            t.roots_total.store(total, Ordering::Relaxed);
            t.roots.store(begun, Ordering::Relaxed);
            std::thread::sleep(ms(25));
            assert!(t.should_stop(), "{begun} of {total}");
        }
        // Under a limit, whichever share is larger: the roots here.
        let t = parent.trial_toward(ms(20), Some(100), Duration::from_secs(3600));
        t.found.store(10, Ordering::Relaxed);
        t.roots_total.store(10, Ordering::Relaxed);
        t.roots.store(8, Ordering::Relaxed);
        std::thread::sleep(ms(25));
        assert!(!t.should_stop());
    }

    #[test]
    fn binary_sections_read_back() {
        let buf = Shared::default();
        let out = Output::new(Box::new(buf.clone()), OutputFormat::Binary);
        out.begin_query("q é", 3);
        let mut b = Vec::new();
        out.format("q é", &[3, 1, 7], &mut b);
        out.format("q é", &[4, 0, u32::MAX], &mut b);
        out.write_batch(&b);
        out.write_batch(&[]);
        out.begin_rows("p", &["a".to_string(), "bb".to_string()]);
        out.write_count("p", "count(*)", 1 << 70);
        out.finish().unwrap();
        let bytes = buf.0.lock().unwrap().clone();
        let cols = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            read_binary(&bytes).unwrap(),
            vec![
                BinarySection::Query { name: "q é".into(), columns: cols(&["u0", "u1", "u2"]), id_bytes: 4 },
                BinarySection::Rows(vec![vec![3, 1, 7], vec![4, 0, u32::MAX as u64]]),
                BinarySection::Query { name: "p".into(), columns: cols(&["a", "bb"]), id_bytes: 4 },
                BinarySection::Count(1 << 70),
            ]
        );
        // Every section is a multiple of 4 bytes, so rows stay aligned.
        assert_eq!(bytes.len() % 4, 0);
        // A cut output reads as a prefix of the sections or, inside one, is an error.
        let all = read_binary(&bytes).unwrap();
        for cut in 1..bytes.len() {
            if let Ok(some) = read_binary(&bytes[..cut]) {
                assert!(some.len() < all.len() && all.starts_with(&some), "cut at {cut}");
            }
        }
        assert!(read_binary(&bytes[..bytes.len() - 1]).is_err());
        // An unknown section is skipped; a crafted column count is an error, not an allocation.
        let mut odd = b"SGMX\x04\0\0\0abcd".to_vec();
        odd.extend_from_slice(&bytes);
        assert_eq!(read_binary(&odd).unwrap(), all);
        let mut huge = b"SGMQ\x0c\0\0\0".to_vec();
        [1u32, u32::MAX, 4].iter().for_each(|x| huge.extend_from_slice(&x.to_le_bytes()));
        assert!(read_binary(&huge).unwrap_err().contains("columns do not fit"));
        // Original numeric ids are written as u64.
        let buf = Shared::default();
        let ids = Arc::new(VertexIds::Numbers(vec![10, 1 << 40, 12]));
        let out = Output::new(Box::new(buf.clone()), OutputFormat::Binary).with_ids(Some(ids));
        out.begin_query("q", 2);
        let mut b = Vec::new();
        out.format("q", &[1, 2], &mut b);
        out.write_batch(&b);
        let sections = read_binary(&buf.0.lock().unwrap()).unwrap();
        assert_eq!(sections[1], BinarySection::Rows(vec![vec![1 << 40, 12]]));
        assert!(matches!(sections[0], BinarySection::Query { id_bytes: 8, .. }));
    }

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn json_strings_escape_quotes_backslashes_and_control_characters_only() {
        assert_eq!(json_string("plain"), "\"plain\"");
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\u000ad\\u0001\"");
        assert_eq!(json_string("été 日本 \u{1F600}"), "\"été 日本 \u{1F600}\"");
        assert_eq!(json_string(""), "\"\"");
    }

    #[test]
    fn formats() {
        for (f, expect) in [
            (OutputFormat::Text, "# query q,1\n3 1\n"),
            (OutputFormat::Csv, "query,u0,u1\n\"q,1\",3,1\n"),
            (OutputFormat::Jsonl, "{\"query\":\"q,1\",\"embedding\":[3,1]}\n"),
            (OutputFormat::Words, "\u{3}\0\0\0\u{1}\0\0\0"),
        ] {
            let buf = Shared::default();
            let out = Output::new(Box::new(buf.clone()), f);
            out.begin_query("q,1", 2);
            let mut b = Vec::new();
            out.format("q,1", &[3, 1], &mut b);
            out.write_batch(&b);
            out.finish().unwrap();
            assert_eq!(String::from_utf8(buf.0.lock().unwrap().clone()).unwrap(), expect);
        }
    }

    #[test]
    fn original_ids_replace_vertex_numbers() {
        let names = Arc::new(VertexIds::names(&["a", "b,\"c"]));
        for (f, ids, expect) in [
            (OutputFormat::Text, VertexIds::Numbers(vec![5, 4_000_000_000]), "5 4000000000\n"),
            (OutputFormat::Csv, (*names).clone(), "q,a,\"b,\"\"c\"\n"),
            (OutputFormat::Jsonl, (*names).clone(), "{\"query\":\"q\",\"embedding\":[\"a\",\"b,\\\"c\"]}\n"),
        ] {
            let out = Output::new(Box::new(std::io::sink()), f).with_ids(Some(Arc::new(ids)));
            let mut b = Vec::new();
            out.format("q", &[0, 1], &mut b);
            assert_eq!(String::from_utf8(b).unwrap(), expect);
        }
    }

    #[test]
    fn control_keeps_first_reason() {
        let c = Control::unlimited();
        assert!(!c.should_stop());
        c.stop(Stopped::Limit);
        c.stop(Stopped::Timeout);
        assert!(c.should_stop());
        assert_eq!(c.stopped(), Some(Stopped::Limit));
        let past = Control::new(Some(Instant::now()), Arc::new(AtomicBool::new(false)));
        assert!(past.should_stop());
        assert_eq!(past.stopped(), Some(Stopped::Timeout));
    }
}
