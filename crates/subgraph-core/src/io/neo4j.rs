//! Neo4j's bulk-import CSV, node files and relationship files as `neo4j-admin database import`
//! takes them with its default options, following the Neo4j Operations Manual (Import, and its
//! "CSV header format"): a header row of `name:type` entries, then one row per node or
//! relationship; `,` between fields, `"` around them, `""` a quote inside one.
//!
//! Node files: one `:ID` column (named, `personId:ID`, it is a string property too; in an ID
//! space, `:ID(Person)`), any `:LABEL` columns (labels split at `;`, several per node, none
//! allowed), property columns `name` or `name:type` and `:IGNORE` columns. Relationship files:
//! `:START_ID`, `:END_ID` (in an ID space where the nodes are, `:START_ID(Person)`) and `:TYPE`;
//! their property columns are not kept yet (one note says how many). The graph is directed;
//! vertices are the nodes, named by their ids (`SPACE:id` in a named ID space) and numbered in
//! the names' byte order; labels and types are label names (byte order; a node without a label
//! has the label named "0", as elsewhere); a node of several labels has their set label
//! (`graph::sets`), as has a pair joined by relationships of several types, and relationships
//! that repeat one of the same type between the same nodes are merged by the builder (counted
//! as its duplicates).
//!
//! Property types (case-insensitive): `int`, `long`, `short`, `byte` are integers (checked
//! against their bounds), `float` (rounded to 32 bits, as Neo4j keeps it) and `double` floats
//! (finite), `string` (the default) and `char` (one character) strings; an empty field is no
//! value. `boolean`, the temporal and spatial types and arrays (`int[]`) have no exact value
//! here: a node file's column of them is refused with one line naming the file, the column and
//! the type (`name:string` reads the text, `name:IGNORE` drops it). Header options in braces
//! (`{...}`), a row of another field count than its header, a duplicate node id in an ID space,
//! and a relationship whose end is no node are errors naming the file and line.

use super::remap::{Dictionary, MAX_NAME_LEN};
use super::text::show;
use crate::error::Error;
use crate::graph::{Column, GraphBuilder, LabelNames, Properties, Values, VertexIds};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Between the labels of a `:LABEL` field (Neo4j's default `--array-delimiter`).
const LABEL_DELIMITER: char = ';';
/// The label of a node without one, as a vertex without a label has among names elsewhere.
const NO_LABEL: &str = "0";

/// A property's kind of value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Str,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Int => "integer",
            Kind::Float => "float",
            Kind::Str => "string",
        }
    }
}

/// A property column's type, as its header entry names it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Type {
    /// `byte`, `short`, `int`, `long`: an integer within the bounds.
    Int {
        name: &'static str,
        min: i64,
        max: i64,
    },
    /// `float`: rounded to 32 bits.
    Float,
    /// `double`.
    Double,
    String,
    /// `char`: one character.
    Char,
}

impl Type {
    /// The type a header names (lower case), Err(true) for one subgraph cannot hold, Err(false)
    /// for one Neo4j does not know either.
    fn from_name(name: &str) -> Result<Type, bool> {
        let int = |name, min, max| Ok(Type::Int { name, min, max });
        match name {
            "byte" => int("byte", i8::MIN as i64, i8::MAX as i64),
            "short" => int("short", i16::MIN as i64, i16::MAX as i64),
            "int" => int("int", i32::MIN as i64, i32::MAX as i64),
            "long" => int("long", i64::MIN, i64::MAX),
            "float" => Ok(Type::Float),
            "double" => Ok(Type::Double),
            "string" => Ok(Type::String),
            "char" => Ok(Type::Char),
            "boolean" | "point" | "date" | "localtime" | "time" | "localdatetime" | "datetime" | "duration"
            | "vector" => Err(true),
            _ => match name.strip_suffix("[]").map(Type::from_name) {
                Some(Ok(_) | Err(true)) => Err(true),
                _ => Err(false),
            },
        }
    }

    fn kind(self) -> Kind {
        match self {
            Type::Int { .. } => Kind::Int,
            Type::Float | Type::Double => Kind::Float,
            Type::String | Type::Char => Kind::Str,
        }
    }
}

/// What one column of a header is.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// The node's id, in ID space `space`, and the property it is also kept as when named.
    Id {
        space: u32,
        property: Option<usize>,
    },
    Label,
    Property {
        property: usize,
        ty: Type,
    },
    Ignore,
    Start {
        space: u32,
    },
    End {
        space: u32,
    },
    RelType,
    /// A relationship's property: not kept yet.
    Dropped,
}

/// One vertex property: its values, in the vertices' first-seen numbers.
struct Property {
    name: String,
    kind: Kind,
    /// Where its kind was first given: the file and the header entry.
    declared: (usize, String),
    /// The last file whose header has it.
    last_file: usize,
    entries: Entries,
}

enum Entries {
    Int(Vec<(u32, i64)>),
    Float(Vec<(u32, f64)>),
    Str(Vec<(u32, String)>),
}

/// Node and relationship files as they are read: node files first, then relationship files
/// (whose ends must be nodes already read), then [`Reader::finish`].
#[derive(Default)]
pub(crate) struct Reader {
    files: Vec<PathBuf>,
    /// ID spaces by name, the global one `""` (number 0) once a node file uses it.
    spaces: Dictionary,
    /// Per ID space, its ids and their vertices (first-seen numbers).
    ids: Vec<HashMap<Box<str>, u32>>,
    /// Per vertex, where it was given: file and line.
    given_at: Vec<(u32, u64)>,
    labels: Dictionary,
    labelled: Vec<(u32, u32)>,
    types: Dictionary,
    edges: Vec<(u32, u32, u32)>,
    properties: Vec<Property>,
    property_index: HashMap<String, usize>,
    /// Relationship property columns met, as `name (file)`.
    dropped: Vec<String>,
}

fn error(file: &Path, line: u64, msg: impl Into<String>) -> Error {
    Error::Parse { file: file.to_path_buf(), line, msg: msg.into() }
}

/// A header entry's name, its type (after the last `:`, lower case; None without one) and its
/// ID space (`:ID(Person)`, `:START_ID(Person)`, `:END_ID(Person)`).
fn split_entry(entry: &str) -> (&str, Option<String>, Option<&str>) {
    if let Some((head, space)) = entry.strip_suffix(')').and_then(|e| e.rsplit_once('(')) {
        if let Some((name, ty)) = head.rsplit_once(':') {
            let ty = ty.to_ascii_lowercase();
            if matches!(ty.as_str(), "id" | "start_id" | "end_id") {
                return (name, Some(ty), Some(space));
            }
        }
    }
    match entry.rsplit_once(':') {
        Some((name, ty)) => (name, Some(ty.trim().to_ascii_lowercase()), None),
        None => (entry, None, None),
    }
}

/// The file's text as UTF-8 (`what` names the field in the error).
fn text<'a>(file: &Path, line: u64, raw: &'a [u8], what: &str) -> Result<&'a str, Error> {
    std::str::from_utf8(raw).map_err(|_| error(file, line, format!("{what}: '{}' is not UTF-8", show(raw))))
}

/// A name (an id, a label, a type, a column): at most [`MAX_NAME_LEN`] bytes.
fn name_len(file: &Path, line: u64, name: &str, what: &str) -> Result<(), Error> {
    if name.len() > MAX_NAME_LEN {
        return Err(error(
            file,
            line,
            format!(
                "{what} '{}...' of {} bytes is longer than the {MAX_NAME_LEN} bytes a name may have",
                show(name.as_bytes()),
                name.len()
            ),
        ));
    }
    Ok(())
}

/// A file's CSV records with their lines. The `csv` crate's own line numbers skip blank lines
/// and count CRLF as one line less, so a record's line is counted here from its byte offset,
/// past the line ends the crate skipped before it.
struct Records<'a> {
    file: &'a Path,
    data: &'a [u8],
    reader: csv::Reader<&'a [u8]>,
    /// A byte offset and the line it is on.
    at: (usize, u64),
}

impl<'a> Records<'a> {
    /// The records of `data` (a UTF-8 byte order mark skipped), after checking that no quoted
    /// field runs to its end (the `csv` crate would take the rest of the file as its value).
    fn new(file: &'a Path, data: &'a [u8]) -> Result<Records<'a>, Error> {
        let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
        if let Some(line) = super::props::unterminated_quote(data) {
            return Err(error(file, line, "a quoted field opened on this line is never closed"));
        }
        let reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(data);
        Ok(Records { file, data, reader, at: (0, 1) })
    }

    /// The line of the record the crate says starts at byte `offset` (or at the line ends
    /// after it).
    fn line(&mut self, offset: u64) -> u64 {
        let mut to = (offset as usize).clamp(self.at.0, self.data.len());
        while matches!(self.data.get(to), Some(b'\r' | b'\n')) {
            to += 1;
        }
        self.at = (to, self.at.1 + memchr::memchr_iter(b'\n', &self.data[self.at.0..to]).count() as u64);
        self.at.1
    }

    /// The next record and its line, None at the end.
    fn next(&mut self, record: &mut csv::ByteRecord) -> Result<Option<u64>, Error> {
        match self.reader.read_byte_record(record) {
            Ok(true) => Ok(Some(self.line(record.position().map_or(0, |p| p.byte())))),
            Ok(false) => Ok(None),
            Err(e) => {
                let line = self.line(e.position().map_or(0, |p| p.byte()));
                Err(error(self.file, line, format!("bad CSV: {e}")))
            }
        }
    }

    /// The header's entries (trimmed), and its line.
    fn header(&mut self, what: &str) -> Result<(Vec<String>, u64), Error> {
        let mut record = csv::ByteRecord::new();
        let Some(line) = self.next(&mut record)? else {
            return Err(error(self.file, 0, format!("empty file: expected a header row ({what})")));
        };
        let entries = record
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                text(self.file, line, raw, &format!("header column {}", i + 1)).map(|s| s.trim().to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((entries, line))
    }
}

impl Reader {
    /// The ID space named `space` (the global one for None).
    fn space(&mut self, space: Option<&str>) -> u32 {
        let s = self.spaces.intern(space.unwrap_or(""));
        if s as usize == self.ids.len() {
            self.ids.push(HashMap::new());
        }
        s
    }

    /// How errors name an id of ID space `s`.
    fn in_space(&self, s: u32) -> String {
        match self.spaces.word(s) {
            "" => String::new(),
            name => format!(" in ID space {name}"),
        }
    }

    /// The property `name` of `kind`, declared by `entry` of the current file.
    fn property(&mut self, file: &Path, line: u64, name: &str, kind: Kind, entry: &str) -> Result<usize, Error> {
        let at = self.files.len() - 1;
        if let Some(&p) = self.property_index.get(name) {
            let prop = &self.properties[p];
            if prop.last_file == at {
                return Err(error(file, line, format!("the header has two columns of property '{name}'")));
            }
            if prop.kind != kind {
                return Err(error(
                    file,
                    line,
                    format!(
                        "column '{entry}': property '{name}' is of {} values in {} (column '{}'); a property has one \
                         type here",
                        prop.kind.name(),
                        self.files[prop.declared.0].display(),
                        prop.declared.1
                    ),
                ));
            }
            self.properties[p].last_file = at;
            return Ok(p);
        }
        let entries = match kind {
            Kind::Int => Entries::Int(Vec::new()),
            Kind::Float => Entries::Float(Vec::new()),
            Kind::Str => Entries::Str(Vec::new()),
        };
        self.properties.push(Property {
            name: name.to_string(),
            kind,
            declared: (at, entry.to_string()),
            last_file: at,
            entries,
        });
        self.property_index.insert(name.to_string(), self.properties.len() - 1);
        Ok(self.properties.len() - 1)
    }

    /// The fields of a header; `nodes` for a node file.
    fn fields(&mut self, file: &Path, line: u64, entries: &[String], nodes: bool) -> Result<Vec<Field>, Error> {
        let kind_of_file = if nodes { "node file (--nodes)" } else { "relationship file (--relationships)" };
        let mut fields = Vec::with_capacity(entries.len());
        for entry in entries {
            let e = |msg: String| error(file, line, format!("column '{entry}': {msg}"));
            name_len(file, line, entry, "header column")?;
            if entry.contains('{') {
                return Err(e("header options in braces ({...}) are not supported".into()));
            }
            let (name, ty, space) = split_entry(entry);
            if space.is_some_and(str::is_empty) {
                return Err(e("an ID space needs a name between the parentheses".into()));
            }
            let upper = ty.as_deref().unwrap_or_default().to_uppercase();
            let field = match ty.as_deref() {
                Some("id" | "label") if !nodes => {
                    return Err(e(format!("a :{upper} column belongs in node files; this is a {kind_of_file}")))
                }
                Some("start_id" | "end_id" | "type") if nodes => {
                    return Err(e(format!("a :{upper} column belongs in relationship files; this is a {kind_of_file}")))
                }
                Some("id") => {
                    let space = self.space(space);
                    let property =
                        if name.is_empty() { None } else { Some(self.property(file, line, name, Kind::Str, entry)?) };
                    Field::Id { space, property }
                }
                Some("label") => Field::Label,
                Some("ignore") => Field::Ignore,
                Some("start_id" | "end_id") => {
                    let s = self.spaces.find(space.unwrap_or(""));
                    let Some(s) = s.filter(|&s| (s as usize) < self.ids.len()) else {
                        return Err(e(match space {
                            Some(name) => format!("no node file has ids in ID space {name} (':ID({name})')"),
                            None => "no node file has ids in the global ID space (':ID' without a name in \
                                     parentheses)"
                                .into(),
                        }));
                    };
                    if upper == "START_ID" {
                        Field::Start { space: s }
                    } else {
                        Field::End { space: s }
                    }
                }
                Some("type") => Field::RelType,
                ty => {
                    if name.is_empty() {
                        return Err(e("a property column needs a name before its ':type'".into()));
                    }
                    let ty = match ty.map_or(Ok(Type::String), Type::from_name) {
                        Ok(ty) => Some(ty),
                        Err(true) if !nodes => None,
                        Err(true) => {
                            return Err(e(format!(
                                "type {} has no exact value here (subgraph keeps integers, floats and strings); \
                                 make it {name}:string to read the text, or {name}:IGNORE",
                                ty.unwrap_or_default()
                            )))
                        }
                        Err(false) => {
                            return Err(e(format!(
                                "unknown type '{}' (int, long, short, byte, float, double, string, char, or ID, \
                                 LABEL, START_ID, END_ID, TYPE, IGNORE)",
                                ty.unwrap_or_default()
                            )))
                        }
                    };
                    match ty {
                        Some(ty) if nodes => {
                            Field::Property { property: self.property(file, line, name, ty.kind(), entry)?, ty }
                        }
                        _ => {
                            self.dropped.push(format!("{name} ({})", file.display()));
                            Field::Dropped
                        }
                    }
                }
            };
            fields.push(field);
        }
        let count = |f: fn(&Field) -> bool| fields.iter().filter(|x| f(x)).count();
        let need = |what: &str, n: usize| match n {
            1 => Ok(()),
            0 => Err(error(file, line, format!("a {kind_of_file} needs a {what} column; the header has none"))),
            _ => Err(error(file, line, format!("the header has {n} {what} columns; a {kind_of_file} has one"))),
        };
        if nodes {
            need(":ID", count(|f| matches!(f, Field::Id { .. })))?;
        } else {
            need(":START_ID", count(|f| matches!(f, Field::Start { .. })))?;
            need(":END_ID", count(|f| matches!(f, Field::End { .. })))?;
            need(":TYPE", count(|f| matches!(f, Field::RelType)))?;
        }
        Ok(fields)
    }

    /// Reads a node file.
    pub(crate) fn nodes(&mut self, file: &Path, data: &[u8]) -> Result<(), Error> {
        self.files.push(file.to_path_buf());
        let file_at = (self.files.len() - 1) as u32;
        let mut r = Records::new(file, data)?;
        let (entries, line) = r.header("a node file's ':ID', ':LABEL' and property columns")?;
        let fields = self.fields(file, line, &entries, true)?;
        let id_at = fields.iter().position(|f| matches!(f, Field::Id { .. })).expect("one :ID column");
        let mut record = csv::ByteRecord::new();
        while let Some(line) = r.next(&mut record)? {
            if record.len() != fields.len() {
                return Err(error(file, line, format!("{} fields, the header has {}", record.len(), fields.len())));
            }
            let Field::Id { space, property } = fields[id_at] else { unreachable!("the :ID column") };
            let id = text(file, line, &record[id_at], &format!("column '{}'", entries[id_at]))?;
            let v = self.add_node(file, line, file_at, space, id)?;
            if let Some(p) = property {
                if let Entries::Str(e) = &mut self.properties[p].entries {
                    e.push((v, id.to_string()));
                }
            }
            for (k, field) in fields.iter().enumerate() {
                let raw = &record[k];
                match *field {
                    Field::Label => {
                        let labels = text(file, line, raw, &format!("column '{}'", entries[k]))?;
                        for label in labels.split(LABEL_DELIMITER).filter(|l| !l.is_empty()) {
                            name_len(file, line, label, "label")?;
                            let l = self.labels.intern(label);
                            self.labelled.push((v, l));
                        }
                    }
                    Field::Property { property, ty } if !raw.is_empty() => {
                        let value = text(file, line, raw, &format!("column '{}'", entries[k]))?;
                        let bad = |what: &str| {
                            error(file, line, format!("column '{}': '{}' is not {what}", entries[k], show(raw)))
                        };
                        if ty == Type::Char && value.chars().count() != 1 {
                            return Err(bad("one character (type char)"));
                        }
                        match (&mut self.properties[property].entries, ty) {
                            (Entries::Int(e), Type::Int { name, min, max }) => {
                                let x = value.trim().parse::<i64>().ok().filter(|x| (min..=max).contains(x));
                                let article = if name == "int" { "an" } else { "a" };
                                e.push((v, x.ok_or_else(|| bad(&format!("{article} {name} ({min}..={max})")))?));
                            }
                            (Entries::Float(e), Type::Float | Type::Double) => {
                                let x = match ty {
                                    Type::Float => value.trim().parse::<f32>().map(f64::from).ok(),
                                    _ => value.trim().parse::<f64>().ok(),
                                };
                                e.push((v, x.filter(|x| x.is_finite()).ok_or_else(|| bad("a finite number"))?));
                            }
                            (Entries::Str(e), _) => e.push((v, value.to_string())),
                            _ => unreachable!("a property's entries are of its kind"),
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// A new node of id `id` in ID space `space`, given at `line` of file number `file_at`.
    fn add_node(&mut self, file: &Path, line: u64, file_at: u32, space: u32, id: &str) -> Result<u32, Error> {
        if id.is_empty() {
            return Err(error(file, line, "a node without an id (its :ID field is empty)"));
        }
        name_len(file, line, id, "node id")?;
        if let Some(&v) = self.ids[space as usize].get(id) {
            let (f, l) = self.given_at[v as usize];
            return Err(error(
                file,
                line,
                format!(
                    "node id '{}'{} is given again (first at {}:{l})",
                    show(id.as_bytes()),
                    self.in_space(space),
                    self.files[f as usize].display()
                ),
            ));
        }
        let v = self.given_at.len();
        if v >= u32::MAX as usize {
            return Err(error(file, line, "more than 2^32 - 1 nodes"));
        }
        self.ids[space as usize].insert(id.into(), v as u32);
        self.given_at.push((file_at, line));
        Ok(v as u32)
    }

    /// Reads a relationship file: every node file must have been read.
    pub(crate) fn relationships(&mut self, file: &Path, data: &[u8]) -> Result<(), Error> {
        self.files.push(file.to_path_buf());
        let mut r = Records::new(file, data)?;
        let (entries, line) = r.header("a relationship file's ':START_ID', ':END_ID' and ':TYPE' columns")?;
        let fields = self.fields(file, line, &entries, false)?;
        let at = |f: fn(&Field) -> bool| fields.iter().position(f).expect("checked by fields");
        let (start_at, end_at, type_at) = (
            at(|f| matches!(f, Field::Start { .. })),
            at(|f| matches!(f, Field::End { .. })),
            at(|f| matches!(f, Field::RelType)),
        );
        let (Field::Start { space: start_space }, Field::End { space: end_space }) = (fields[start_at], fields[end_at])
        else {
            unreachable!("the :START_ID and :END_ID columns")
        };
        let mut record = csv::ByteRecord::new();
        while let Some(line) = r.next(&mut record)? {
            if record.len() != fields.len() {
                return Err(error(file, line, format!("{} fields, the header has {}", record.len(), fields.len())));
            }
            let u = self.end(file, line, &record[start_at], start_space, ":START_ID")?;
            let v = self.end(file, line, &record[end_at], end_space, ":END_ID")?;
            let ty = text(file, line, &record[type_at], "the :TYPE field")?;
            if ty.is_empty() {
                return Err(error(file, line, "a relationship without a type (its :TYPE field is empty)"));
            }
            name_len(file, line, ty, "relationship type")?;
            let t = self.types.intern(ty);
            self.edges.push((u, v, t));
        }
        Ok(())
    }

    /// The vertex of a relationship's end (`what`: its column).
    fn end(&self, file: &Path, line: u64, raw: &[u8], space: u32, what: &str) -> Result<u32, Error> {
        let id = text(file, line, raw, &format!("the {what} field"))?;
        if id.is_empty() {
            return Err(error(file, line, format!("a relationship without an end (its {what} field is empty)")));
        }
        self.ids[space as usize].get(id).copied().ok_or_else(|| {
            error(file, line, format!("{what} '{}' is not the id of a node{}", show(raw), self.in_space(space)))
        })
    }

    /// The graph's builder and the notes for the user; `first` (the first node file) is named
    /// where no node was found.
    pub(crate) fn finish(self, first: &Path) -> Result<(GraphBuilder, Vec<String>), Error> {
        let Reader { files, spaces, ids, given_at, mut labels, labelled, types, edges, properties, dropped, .. } = self;
        let n = given_at.len();
        if n == 0 {
            return Err(error(first, 0, "no node found: the node files hold no rows"));
        }
        // Names: the id, qualified by its ID space where it has one, in byte order.
        let mut names: Vec<(String, u32)> = Vec::with_capacity(n);
        for (s, map) in ids.into_iter().enumerate() {
            let space = spaces.word(s as u32);
            names.extend(map.into_iter().map(|(id, v)| match space {
                "" => (String::from(id), v),
                _ => (format!("{space}:{id}"), v),
            }));
        }
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0].0 == w[1].0) {
            let at = |v: u32| {
                let (f, l) = given_at[v as usize];
                format!("{}:{l}", files[f as usize].display())
            };
            return Err(error(
                first,
                0,
                format!(
                    "the nodes of {} and {} would both be named '{}' (a node of a named ID space is named \
                     SPACE:id)",
                    at(w[0].1),
                    at(w[1].1),
                    show(w[0].0.as_bytes())
                ),
            ));
        }
        let mut rank = vec![0u32; n];
        names.iter().enumerate().for_each(|(r, &(_, v))| rank[v as usize] = r as u32);
        let names: Vec<String> = names.into_iter().map(|(name, _)| name).collect();

        // Labels: each node's first, then the rest as the builder's extra labels.
        let mut has_label = vec![false; n];
        labelled.iter().for_each(|&(v, _)| has_label[v as usize] = true);
        let unlabelled = has_label.iter().any(|&h| !h).then(|| labels.intern(NO_LABEL));
        let (label_names, lrank) = labels.sorted();
        let mut first_label = vec![unlabelled.map_or(0, |l| lrank[l as usize]); n];
        let mut more = Vec::new();
        let mut seen = vec![false; n];
        for (v, l) in labelled {
            let (v, l) = (rank[v as usize], lrank[l as usize]);
            if std::mem::replace(&mut seen[v as usize], true) {
                more.push((v, l));
            } else {
                first_label[v as usize] = l;
            }
        }
        let (type_names, trank) = types.sorted();
        let edges: Vec<(u32, u32, u32)> =
            edges.into_iter().map(|(u, v, t)| (rank[u as usize], rank[v as usize], trank[t as usize])).collect();

        let columns: Vec<Column> =
            properties.into_iter().map(|p| Column { name: p.name, values: values(n, p.entries, &rank) }).collect();
        let mut b = GraphBuilder::from_parts(first_label, edges, true);
        more.into_iter().for_each(|(v, l)| b.add_label(v, l));
        b.set_ids(VertexIds::names(&names));
        b.set_label_names(LabelNames { vertex: label_names, edge: type_names });
        if !columns.is_empty() {
            b.set_properties(Properties::new(columns));
        }
        let mut notes = Vec::new();
        if !dropped.is_empty() {
            notes.push(format!(
                "relationship properties are not kept yet: {} columns ignored ({})",
                dropped.len(),
                dropped.join(", ")
            ));
        }
        Ok((b, notes))
    }
}

/// A property's column over `n` vertices from its entries in first-seen vertex numbers
/// (`rank`: each one's vertex).
fn values(n: usize, entries: Entries, rank: &[u32]) -> Values {
    fn sorted<T>(mut e: Vec<(u32, T)>, rank: &[u32]) -> (Vec<u32>, Vec<T>) {
        e.iter_mut().for_each(|x| x.0 = rank[x.0 as usize]);
        e.sort_unstable_by_key(|x| x.0);
        e.into_iter().unzip()
    }
    match entries {
        Entries::Int(e) => {
            let (vertices, values) = sorted(e, rank);
            let present = vec![true; values.len()];
            Values::of_vertices(n, vertices, Values::Int { values, present })
        }
        Entries::Float(e) => {
            let (vertices, values) = sorted(e, rank);
            let present = vec![true; values.len()];
            Values::of_vertices(n, vertices, Values::Float { values, present })
        }
        Entries::Str(e) => {
            let (vertices, values) = sorted(e, rank);
            let mut dictionary = values.clone();
            dictionary.sort_unstable();
            dictionary.dedup();
            let codes = values.iter().map(|s| dictionary.binary_search(s).expect("in the dictionary") as u32).collect();
            Values::of_vertices(n, vertices, Values::Str { codes, dictionary })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_neo4j, read_neo4j, Loaded, ReadOptions};
    use super::*;
    use crate::graph::{BuildStats, Graph, Value};

    fn load(nodes: &[(&str, &str)], rels: &[(&str, &str)]) -> Result<Loaded, Error> {
        let n: Vec<(&Path, &[u8])> = nodes.iter().map(|(f, d)| (Path::new(*f), d.as_bytes())).collect();
        let r: Vec<(&Path, &[u8])> = rels.iter().map(|(f, d)| (Path::new(*f), d.as_bytes())).collect();
        parse_neo4j(&n, &r)
    }

    fn err(nodes: &[(&str, &str)], rels: &[(&str, &str)]) -> String {
        match load(nodes, rels) {
            Ok(_) => panic!("loaded: {nodes:?} {rels:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn vertex(g: &Graph, name: &str) -> u32 {
        g.ids().unwrap().find(crate::graph::Id::Name(name)).unwrap_or_else(|| panic!("no vertex {name}"))
    }

    /// The names of the labels vertex `v` has.
    fn labels_of(g: &Graph, v: u32) -> Vec<&str> {
        let names = &g.label_names().unwrap().vertex;
        g.vertex_label_members(&g.label(v)).iter().map(|&l| names[l as usize].as_str()).collect()
    }

    const PEOPLE: &str = "personId:ID,name,born:int,:LABEL\n\
                          ada,Ada Lovelace,1815,Person;Employee\n\
                          alan,\"Turing, Alan\",1912,Person\n\
                          grace,\"Grace \"\"Amazing\"\" Hopper\",,Employee;Person;\n\
                          bob,Bob,1970,\n";
    const KNOWS: &str = ":START_ID,:END_ID,:TYPE,since:int\n\
                         ada,alan,KNOWS,1840\n\
                         alan,ada,KNOWS,\n\
                         ada,alan,WORKS_WITH,\n\
                         ada,alan,KNOWS,1841\n\
                         grace,grace,KNOWS,\n";

    #[test]
    fn labels_are_sets_types_edge_labels_and_repeats_merged() {
        let l = load(&[("people.csv", PEOPLE)], &[("knows.csv", KNOWS)]).unwrap();
        let g = &l.graph;
        assert!(g.is_directed());
        assert_eq!(g.num_vertices(), 4);
        let names: Vec<String> = (0..4).map(|v| g.original_id(v).to_string()).collect();
        assert_eq!(names, ["ada", "alan", "bob", "grace"], "named by their ids, in byte order");
        let n = g.label_names().unwrap();
        assert_eq!(n.vertex, ["0", "Employee", "Person"], "bob has no label: the label named 0");
        assert_eq!(n.edge, ["KNOWS", "WORKS_WITH"]);
        let (ada, alan, bob, grace) = (vertex(g, "ada"), vertex(g, "alan"), vertex(g, "bob"), vertex(g, "grace"));
        assert_eq!(labels_of(g, ada), ["Employee", "Person"]);
        assert_eq!(g.label(ada), g.label(grace), "one set, one label");
        assert_eq!((labels_of(g, alan), labels_of(g, bob)), (vec!["Person"], vec!["0"]));
        let pair = g.edge_label(ada, alan).unwrap();
        assert_eq!(g.edge_label_members(&pair), &[0, 1], "KNOWS and WORKS_WITH join ada to alan");
        assert_eq!(g.edge_label(alan, ada), Some(0));
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.loops(), &[(grace, 0)]);
        assert_eq!(l.stats, BuildStats { self_loops: 1, duplicates: 1 });
        assert_eq!((g.multi_labelled_vertices(), g.multi_edge_pairs()), (2, 1));
        assert_eq!(
            l.notes,
            [
                "relationship properties are not kept yet: 1 columns ignored (since (knows.csv))",
                "1 relationships repeat one of the same type between the same two nodes and were merged into it \
                 (Neo4j would keep each, and Cypher count each)"
            ]
        );
        let p = g.properties().unwrap();
        let kinds: Vec<(&str, &str)> = p.columns().iter().map(|c| (c.name.as_str(), c.kind())).collect();
        assert_eq!(kinds, [("personId", "string"), ("name", "string"), ("born", "integer")]);
        assert_eq!(p.column("personId").unwrap().get(alan), Some(Value::Str("alan")), "a named :ID is a property");
        assert_eq!(p.column("name").unwrap().get(alan), Some(Value::Str("Turing, Alan")));
        assert_eq!(p.column("name").unwrap().get(grace), Some(Value::Str("Grace \"Amazing\" Hopper")));
        assert_eq!(p.column("born").unwrap().get(ada), Some(Value::Int(1815)));
        assert_eq!(p.column("born").unwrap().get(grace), None, "an empty field is no value");
    }

    #[test]
    fn properties_take_the_headers_types() {
        let nodes =
            ":ID,code,small:byte,mid:short,big:long,ratio:float,exact:DOUBLE,letter:char,skip:IGNORE,note:string\n\
                     a,007,-128,32767,9223372036854775807,0.1,0.1,é,x y,\n\
                     b,12, 5 ,,,1e3,-2.5,z,,\"\"\n";
        let l = load(&[("n.csv", nodes)], &[]).unwrap();
        let p = l.graph.properties().unwrap();
        let names: Vec<&str> = p.columns().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["code", "small", "mid", "big", "ratio", "exact", "letter", "note"], "no IGNORE, no :ID");
        let get = |c: &str, v: u32| p.column(c).unwrap().get(v);
        assert_eq!(
            (get("code", 0), get("code", 1)),
            (Some(Value::Str("007")), Some(Value::Str("12"))),
            "untyped: string"
        );
        assert_eq!((get("small", 0), get("small", 1)), (Some(Value::Int(-128)), Some(Value::Int(5))));
        assert_eq!((get("mid", 0), get("mid", 1)), (Some(Value::Int(32767)), None));
        assert_eq!(get("big", 0), Some(Value::Int(i64::MAX)));
        assert_eq!(get("ratio", 0), Some(Value::Float(0.1f32 as f64)), "a float is 32 bits, as Neo4j keeps it");
        assert_eq!((get("exact", 0), get("ratio", 1)), (Some(Value::Float(0.1)), Some(Value::Float(1000.0))));
        assert_eq!(get("letter", 0), Some(Value::Str("é")));
        assert_eq!((get("note", 0), get("note", 1)), (None, None), "empty, quoted or not: no value");
        assert!(l.graph.label_names().unwrap().edge.is_empty());
        assert_eq!(l.graph.num_edges(), 0);

        let e = |header: &str, row: &str| err(&[("n.csv", &format!("{header}\n{row}\n"))], &[]);
        assert_eq!(e(":ID,x:byte", "a,128"), "n.csv:2: column 'x:byte': '128' is not a byte (-128..=127)");
        assert_eq!(
            e(":ID,x:int", "a,2147483648"),
            "n.csv:2: column 'x:int': '2147483648' is not an int (-2147483648..=2147483647)"
        );
        assert_eq!(
            e(":ID,x:long", "a,1.5"),
            "n.csv:2: column 'x:long': '1.5' is not a long (-9223372036854775808..=9223372036854775807)"
        );
        assert_eq!(e(":ID,x:double", "a,NaN"), "n.csv:2: column 'x:double': 'NaN' is not a finite number");
        assert_eq!(e(":ID,x:float", "a,1e39"), "n.csv:2: column 'x:float': '1e39' is not a finite number");
        assert_eq!(e(":ID,x:char", "a,ab"), "n.csv:2: column 'x:char': 'ab' is not one character (type char)");
    }

    #[test]
    fn types_without_an_exact_value_are_refused_in_node_files_and_dropped_in_relationship_files() {
        let e = |header: &str| err(&[("n.csv", &format!("{header}\na,x\n"))], &[]);
        assert_eq!(
            e(":ID,active:boolean"),
            "n.csv:1: column 'active:boolean': type boolean has no exact value here (subgraph keeps integers, \
             floats and strings); make it active:string to read the text, or active:IGNORE"
        );
        assert!(e(":ID,born:date").starts_with("n.csv:1: column 'born:date': type date has no exact value"));
        assert!(e(":ID,tags:string[]").starts_with("n.csv:1: column 'tags:string[]': type string[] has no exact"));
        assert!(e(":ID,at:Point").contains("type point has no exact value"));
        assert_eq!(
            e(":ID,x:integer"),
            "n.csv:1: column 'x:integer': unknown type 'integer' (int, long, short, byte, float, double, string, \
             char, or ID, LABEL, START_ID, END_ID, TYPE, IGNORE)"
        );
        assert_eq!(e(":ID,x:foo[]"), e(":ID,x:foo[]"));
        assert!(e(":ID,x:foo[]").contains("unknown type 'foo[]'"));
        assert_eq!(
            e(":ID,at:point{crs:WGS-84}"),
            "n.csv:1: column 'at:point{crs:WGS-84}': header options in braces ({...}) are not supported"
        );
        assert_eq!(e(":ID,:int"), "n.csv:1: column ':int': a property column needs a name before its ':type'");
        // Relationship properties are dropped whatever their type, with one note.
        let rels = ":START_ID,:END_ID,:TYPE,since:date,tags:int[],w:IGNORE\na,a,T,2020-01-01,1;2,x\n";
        let l = load(&[("n.csv", ":ID\na\n")], &[("r.csv", rels)]).unwrap();
        assert_eq!(
            l.notes,
            ["relationship properties are not kept yet: 2 columns ignored (since (r.csv), tags (r.csv))"]
        );
    }

    #[test]
    fn id_spaces_keep_equal_ids_apart_and_name_them_by_space() {
        let movies =
            "movieId:ID(Movie-ID),title,year:int,:LABEL\n1,The Matrix,1999,Movie\n2,Reloaded,2003,Movie;Sequel\n";
        let actors = "personId:ID(Actor-ID),name,:LABEL\n1,Keanu Reeves,Actor\n2,Carrie-Anne Moss,Actor\n";
        let others = ":ID,:LABEL\n1,Thing\n";
        let roles = ":START_ID(Actor-ID),role,:END_ID(Movie-ID),:TYPE\n1,Neo,1,ACTED_IN\n2,Trinity,2,ACTED_IN\n";
        let l = load(&[("movies.csv", movies), ("actors.csv", actors), ("o.csv", others)], &[("roles.csv", roles)])
            .unwrap();
        let g = &l.graph;
        let names: Vec<String> = (0..5).map(|v| g.original_id(v).to_string()).collect();
        assert_eq!(names, ["1", "Actor-ID:1", "Actor-ID:2", "Movie-ID:1", "Movie-ID:2"]);
        assert_eq!(g.edge_label(vertex(g, "Actor-ID:1"), vertex(g, "Movie-ID:1")), Some(0));
        assert_eq!(g.edge_label(vertex(g, "Actor-ID:2"), vertex(g, "Movie-ID:2")), Some(0));
        assert_eq!(g.num_edges(), 2);
        let p = g.properties().unwrap();
        assert_eq!(p.column("movieId").unwrap().get(vertex(g, "Movie-ID:2")), Some(Value::Str("2")));
        assert_eq!(labels_of(g, vertex(g, "Movie-ID:2")), ["Movie", "Sequel"]);

        let e = |rels: &str| err(&[("movies.csv", movies)], &[("r.csv", rels)]);
        assert_eq!(
            e(":START_ID(Actor-ID),:END_ID(Movie-ID),:TYPE\n"),
            "r.csv:1: column ':START_ID(Actor-ID)': no node file has ids in ID space Actor-ID (':ID(Actor-ID)')"
        );
        assert_eq!(
            e(":START_ID,:END_ID(Movie-ID),:TYPE\n"),
            "r.csv:1: column ':START_ID': no node file has ids in the global ID space (':ID' without a name in \
             parentheses)"
        );
        assert_eq!(
            e(":START_ID(Movie-ID),:END_ID(Movie-ID),:TYPE\n1,3,SEQUEL_OF\n"),
            "r.csv:2: :END_ID '3' is not the id of a node in ID space Movie-ID"
        );
        assert_eq!(
            err(&[("m.csv", ":ID()\n1\n")], &[]),
            "m.csv:1: column ':ID()': an ID space needs a name between the parentheses"
        );
        // Equal ids in one space are one node given twice; a global id may not take a qualified name.
        assert_eq!(
            err(&[("a.csv", ":ID(P)\n1\n"), ("b.csv", "x,:ID(P)\ny,1\n")], &[]),
            "b.csv:2: node id '1' in ID space P is given again (first at a.csv:2)"
        );
        assert_eq!(
            err(&[("a.csv", ":ID(P)\n1\n"), ("b.csv", ":ID\nP:1\n")], &[]),
            "a.csv:0: the nodes of a.csv:2 and b.csv:2 would both be named 'P:1' (a node of a named ID space is \
             named SPACE:id)"
        );
    }

    #[test]
    fn mistakes_name_the_file_and_line() {
        let nodes = ":ID,:LABEL\na,A\nb,B\n";
        let n = |data: &str| err(&[("p.csv", nodes), ("n.csv", data)], &[]);
        let r = |data: &str| err(&[("p.csv", nodes)], &[("r.csv", data)]);
        assert_eq!(
            n(""),
            "n.csv:0: empty file: expected a header row (a node file's ':ID', ':LABEL' and property columns)"
        );
        assert_eq!(n("name,:LABEL\nx,A\n"), "n.csv:1: a node file (--nodes) needs a :ID column; the header has none");
        assert_eq!(n(":ID,x:ID\n"), "n.csv:1: the header has 2 :ID columns; a node file (--nodes) has one");
        assert_eq!(
            n(":ID,:START_ID\n"),
            "n.csv:1: column ':START_ID': a :START_ID column belongs in relationship files; this is a node file \
             (--nodes)"
        );
        assert_eq!(n(":ID,x,x:int\n"), "n.csv:1: the header has two columns of property 'x'");
        assert_eq!(
            err(&[("a.csv", ":ID,x:int\n1,2\n"), ("b.csv", ":ID,x\n2,y\n")], &[]),
            "b.csv:1: column 'x': property 'x' is of integer values in a.csv (column 'x:int'); a property has one \
             type here"
        );
        assert_eq!(n(":ID,:LABEL\nc,C\nd\n"), "n.csv:3: 1 fields, the header has 2");
        assert_eq!(n(":ID,:LABEL\nc,C,D\n"), "n.csv:2: 3 fields, the header has 2");
        assert_eq!(n(":ID,:LABEL\n,C\n"), "n.csv:2: a node without an id (its :ID field is empty)");
        assert_eq!(n(":ID\nc\na\n"), "n.csv:3: node id 'a' is given again (first at p.csv:2)");
        assert_eq!(n(":ID,name\nc,\"x\nd,y\n"), "n.csv:2: a quoted field opened on this line is never closed");
        let bad = parse_neo4j(&[(Path::new("n.csv"), b":ID,:LABEL\nc,\"two\nlines\"\nd,\xff\n")], &[]);
        assert_eq!(bad.unwrap_err().to_string(), "n.csv:4: column ':LABEL': '\\u{fffd}' is not UTF-8");
        let long = "x".repeat(MAX_NAME_LEN + 1);
        assert!(n(&format!(":ID,:LABEL\nc,{long}\n")).starts_with("n.csv:2: label 'xxxx"));
        assert!(n(&format!(":ID\n{long}\n")).contains("bytes is longer than the 65536 bytes a name may have"));
        assert_eq!(err(&[("n.csv", ":ID,:LABEL\n")], &[]), "n.csv:0: no node found: the node files hold no rows");

        assert_eq!(
            r(":START_ID,:END_ID\n"),
            "r.csv:1: a relationship file (--relationships) needs a :TYPE column; the header has none"
        );
        assert_eq!(
            r(":START_ID,:END_ID,:TYPE,:LABEL\n"),
            "r.csv:1: column ':LABEL': a :LABEL column belongs in node files; this is a relationship file \
             (--relationships)"
        );
        assert_eq!(r(":START_ID,:END_ID,:TYPE\na,c,T\n"), "r.csv:2: :END_ID 'c' is not the id of a node");
        assert_eq!(
            r(":START_ID,:END_ID,:TYPE\na,b,T\n\nb,,T\n"),
            "r.csv:4: a relationship without an end (its :END_ID field is empty)"
        );
        assert_eq!(
            r(":START_ID,:END_ID,:TYPE\na,b,\n"),
            "r.csv:2: a relationship without a type (its :TYPE field is empty)"
        );
        assert_eq!(r(":START_ID,:END_ID,:TYPE\r\na,b\r\n"), "r.csv:2: 2 fields, the header has 3");
        assert_eq!(
            r(""),
            "r.csv:0: empty file: expected a header row (a relationship file's ':START_ID', ':END_ID' and ':TYPE' \
             columns)"
        );
        assert_eq!(
            err(&[], &[("r.csv", ":START_ID,:END_ID,:TYPE\n")]),
            "r.csv:1: column ':START_ID': no node file has ids in the global ID space (':ID' without a name in \
             parentheses)"
        );
        assert_eq!(parse_neo4j(&[], &[]).unwrap_err().to_string(), "--nodes:0: no node file given");
    }

    #[test]
    fn a_byte_order_mark_blank_lines_and_crlf_are_read_as_neo4j_reads_them() {
        let l = load(
            &[("n.csv", "\u{feff}:ID,:LABEL\r\n\r\na,A\r\n\r\nb,\r\n")],
            &[("r.csv", ":START_ID,:END_ID,:TYPE\na,b,T\n")],
        )
        .unwrap();
        assert_eq!(l.graph.num_vertices(), 2);
        assert_eq!(l.graph.label_names().unwrap().vertex, ["0", "A"]);
        assert_eq!(l.graph.edge_label(0, 1), Some(0));
        // Lines are counted as an editor counts them, blank lines and CR LF included (the csv
        // crate's own numbers skip both).
        assert_eq!(
            err(&[("n.csv", "\u{feff}:ID\r\n\r\na\r\n\r\n\r\na\r\n")], &[]),
            "n.csv:6: node id 'a' is given again (first at n.csv:3)"
        );
        assert_eq!(err(&[("n.csv", "\n\n:ID,x:date\n")], &[]).split(": column").next(), Some("n.csv:3"));
        assert_eq!(
            err(&[("n.csv", ":ID,x\na,\"1\n2\n3\"\n\nb,\"\"\"\"\n\nc\n")], &[]),
            "n.csv:8: 1 fields, the header has 2"
        );
    }

    #[test]
    fn the_files_together_stay_within_the_byte_cap() {
        let dir = std::env::temp_dir().join(format!("neo4j-cap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (n, r) = (dir.join("n.csv"), dir.join("r.csv"));
        std::fs::write(&n, ":ID\na\nb\n").unwrap();
        std::fs::write(&r, ":START_ID,:END_ID,:TYPE\na,b,T\n").unwrap();
        let read = |cap: u64| {
            read_neo4j(
                std::slice::from_ref(&n),
                std::slice::from_ref(&r),
                &ReadOptions { max_bytes: Some(cap), ..Default::default() },
            )
        };
        assert_eq!(read(40).unwrap().graph.num_edges(), 1);
        assert_eq!(read(4).unwrap_err().to_string(), format!("{}: holds more than --max-memory 4 bytes", n.display()));
        assert_eq!(
            read(20).unwrap_err().to_string(),
            format!("{}: with the node and relationship files before it, more than --max-memory 20 bytes", r.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
