//! Vertex properties, held column-wise: one typed column per property (integers, floats, or
//! strings encoded through a dictionary), each vertex's value present or absent. Read from CSV
//! by `io::props`; patterns test them (`subgraph-pattern`).

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
}

impl Column {
    /// The vertices the column has an entry for (each with a value or none).
    pub fn len(&self) -> usize {
        match &self.values {
            Values::Int { present, .. } | Values::Float { present, .. } => present.len(),
            Values::Str { codes, .. } => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex v's value, if it has one.
    pub fn get(&self, v: u32) -> Option<Value<'_>> {
        let v = v as usize;
        match &self.values {
            Values::Int { values, present } => present[v].then(|| Value::Int(values[v])),
            Values::Float { values, present } => present[v].then(|| Value::Float(values[v])),
            Values::Str { codes, dictionary } => dictionary.get(codes[v] as usize).map(|s| Value::Str(s)),
        }
    }

    /// The column's type, as messages name it.
    pub fn kind(&self) -> &'static str {
        match self.values {
            Values::Int { .. } => "integer",
            Values::Float { .. } => "float",
            Values::Str { .. } => "string",
        }
    }
}
