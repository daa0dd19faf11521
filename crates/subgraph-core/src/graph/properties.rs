//! Vertex properties, held column-wise: one typed column per property (integers, floats, or
//! strings encoded through a dictionary), each vertex's value present or absent; a column that
//! few vertices have a value of holds those alone. Read from CSV by `io::props`; patterns test
//! them (`subgraph-pattern`).

use std::borrow::Cow;

/// A graph's vertex properties: named columns over its vertices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Properties {
    columns: Vec<Column>,
}

/// One property of every vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub values: Values,
}

/// A column's values by vertex, of one type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Int {
        values: Vec<i64>,
        present: Vec<bool>,
    },
    Float {
        values: Vec<f64>,
        present: Vec<bool>,
    },
    /// `codes[v]` indexes `dictionary` (sorted, distinct); `u32::MAX` where v has no value.
    Str {
        codes: Vec<u32>,
        dictionary: Vec<String>,
    },
    /// A column of `len` vertices, fewer than half of which have a value, held for those alone:
    /// `vertices` (increasing) and, in that order, their values, every one present, in a
    /// column of one of the kinds above (see [`Values::of_vertices`]).
    Sparse {
        len: usize,
        vertices: Vec<u32>,
        values: Box<Values>,
    },
}

/// One vertex's value of a property.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl Properties {
    pub fn new(columns: Vec<Column>) -> Properties {
        Properties { columns }
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Bytes the columns hold: names, values, presence, dictionaries.
    pub fn memory_bytes(&self) -> u64 {
        self.columns
            .iter()
            .map(|c| (c.name.len() + std::mem::size_of::<Column>()) as u64 + c.values.memory_bytes())
            .sum()
    }
}

impl Values {
    /// The column of `len` vertices in which `vertices` (increasing) have `values` (a column
    /// of one of the dense kinds, an entry for each of them, all present): held as it is for
    /// those vertices ([`Values::Sparse`]) when fewer than half the vertices have a value, else
    /// with an entry for every vertex. Either way it takes memory in proportion to the values
    /// it holds.
    pub fn of_vertices(len: usize, vertices: Vec<u32>, values: Values) -> Values {
        let few = 2 * vertices.len() < len;
        let sparse = Values::Sparse { len, vertices, values: Box::new(values) };
        if few {
            sparse
        } else {
            sparse.dense().into_owned()
        }
    }

    /// The values with an entry for every vertex (a sparse column spread out).
    pub fn dense(&self) -> Cow<'_, Values> {
        let Values::Sparse { len, vertices, values } = self else { return Cow::Borrowed(self) };
        let spread = |present: &[bool]| {
            let mut all = vec![false; *len];
            vertices.iter().zip(present).for_each(|(&v, &p)| all[v as usize] = p);
            all
        };
        Cow::Owned(match &**values {
            Values::Int { values, present } => {
                Values::Int { values: spread_values(*len, vertices, values, 0), present: spread(present) }
            }
            Values::Float { values, present } => {
                Values::Float { values: spread_values(*len, vertices, values, 0.0), present: spread(present) }
            }
            Values::Str { codes, dictionary } => {
                Values::Str { codes: spread_values(*len, vertices, codes, u32::MAX), dictionary: dictionary.clone() }
            }
            Values::Sparse { .. } => unreachable!("a sparse column holds a dense one"),
        })
    }

    /// The values' type, as messages name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Values::Int { .. } => "integer",
            Values::Float { .. } => "float",
            Values::Str { .. } => "string",
            Values::Sparse { values, .. } => values.kind(),
        }
    }

    /// Entry i's value, if it has one.
    fn get(&self, i: usize) -> Option<Value<'_>> {
        match self {
            Values::Int { values, present } => present[i].then(|| Value::Int(values[i])),
            Values::Float { values, present } => present[i].then(|| Value::Float(values[i])),
            Values::Str { codes, dictionary } => dictionary.get(codes[i] as usize).map(|s| Value::Str(s)),
            Values::Sparse { vertices, values, .. } => {
                vertices.binary_search(&(i as u32)).ok().and_then(|k| values.get(k))
            }
        }
    }

    fn memory_bytes(&self) -> u64 {
        let bytes = match self {
            Values::Int { values, present } => values.len() * 8 + present.len(),
            Values::Float { values, present } => values.len() * 8 + present.len(),
            Values::Str { codes, dictionary } => {
                codes.len() * 4 + dictionary.iter().map(|s| s.len() + std::mem::size_of::<String>()).sum::<usize>()
            }
            Values::Sparse { vertices, values, .. } => {
                return (vertices.len() * 4 + std::mem::size_of::<Values>()) as u64 + values.memory_bytes()
            }
        };
        bytes as u64
    }
}

/// `values` at `vertices`, `none` elsewhere, in a vector of `len`.
fn spread_values<T: Copy>(len: usize, vertices: &[u32], values: &[T], none: T) -> Vec<T> {
    let mut all = vec![none; len];
    vertices.iter().zip(values).for_each(|(&v, &x)| all[v as usize] = x);
    all
}

impl Column {
    /// The vertices the column has an entry for (each with a value or none).
    pub fn len(&self) -> usize {
        match &self.values {
            Values::Int { present, .. } | Values::Float { present, .. } => present.len(),
            Values::Str { codes, .. } => codes.len(),
            Values::Sparse { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex v's value, if it has one.
    pub fn get(&self, v: u32) -> Option<Value<'_>> {
        self.values.get(v as usize)
    }

    /// The column's type, as messages name it.
    pub fn kind(&self) -> &'static str {
        self.values.kind()
    }
}
