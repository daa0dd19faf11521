//! The parsed pattern: a small graph of pattern vertices and edges, property predicates on the
//! vertices, and what to return — the structure [`parse`](crate::parse) builds from openCypher's
//! MATCH syntax (a subset), and the helpers an engine needs to evaluate it.

use std::cmp::Ordering;

/// A parsed pattern. Vertices are numbered by first appearance in the text; every edge and
/// predicate refers to vertices by that number.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// The pattern's vertices; the index is the pattern vertex id, in first-appearance order.
    pub vertices: Vec<PatternVertex>,
    /// The edges in appearance order; an edge given twice (same from, to, direction and label)
    /// is kept once. A self-loop `(a)-->(a)` is kept: the engine decides what it means.
    pub edges: Vec<PatternEdge>,
    /// Property predicates: those of the inline maps in the order they appear, then WHERE's.
    pub predicates: Vec<Predicate>,
    /// What RETURN returns.
    pub returns: Return,
    /// `RETURN DISTINCT`.
    pub distinct: bool,
    /// `LIMIT n`.
    pub limit: Option<u64>,
    /// The text that was parsed.
    pub text: String,
}

/// A pattern vertex.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatternVertex {
    /// The variable, or `None` for an anonymous node `()`; each anonymous node is a vertex of its
    /// own.
    pub name: Option<String>,
    /// The vertex label (the first written), or `None` for any label.
    pub label: Option<LabelRef>,
    /// Its other labels (`(a:Person:Employee)`, or `(a:Person), (a:Employee)`): a data vertex
    /// matches only if it has all of them, as Cypher's node with several labels; in the order
    /// written, none twice and none equal to `label`.
    pub more_labels: Vec<LabelRef>,
}

/// A vertex or edge label: by name (`:Person`, `` :`two words` ``) or by number (`:3`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LabelRef {
    /// A label name, to be looked up in the data graph's label names.
    Name(String),
    /// A numeric label id, as the data graph stores it.
    Id(u32),
}

/// A pattern edge.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatternEdge {
    /// Source vertex (`Out`), or the vertex written on the left (`Either`).
    pub from: usize,
    /// Target vertex (`Out`), or the vertex written on the right (`Either`).
    pub to: usize,
    /// `Out` for `-->` and `<--` (stored with from and to swapped); `Either` for `--` (and
    /// `<-->`).
    pub direction: Direction,
    /// The edge label, or `None` for any label.
    pub label: Option<LabelRef>,
}

/// The direction of a pattern edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From `from` to `to`.
    Out,
    /// Either direction (`-[...]-`): in an undirected data graph, the plain edge.
    Either,
}

/// `vertex.key op value`: a property comparison on one pattern vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicate {
    /// The pattern vertex whose property is compared.
    pub vertex: usize,
    /// The property name.
    pub key: String,
    /// The comparison, with the property on the left (`5 < a.x` is stored as `a.x > 5`).
    pub op: CompareOp,
    /// The value compared with.
    pub value: Value,
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CompareOp {
    /// Whether `left op right` holds, given `left.cmp(right)`.
    pub fn holds(self, ordering: Ordering) -> bool {
        match self {
            CompareOp::Eq => ordering == Ordering::Equal,
            CompareOp::Ne => ordering != Ordering::Equal,
            CompareOp::Lt => ordering == Ordering::Less,
            CompareOp::Le => ordering != Ordering::Greater,
            CompareOp::Gt => ordering == Ordering::Greater,
            CompareOp::Ge => ordering != Ordering::Less,
        }
    }

    /// The operator with its operands swapped: `x op y` is `y op.flipped() x`.
    pub fn flipped(self) -> CompareOp {
        match self {
            CompareOp::Lt => CompareOp::Gt,
            CompareOp::Le => CompareOp::Ge,
            CompareOp::Gt => CompareOp::Lt,
            CompareOp::Ge => CompareOp::Le,
            op => op,
        }
    }

    /// The operator as written: `=`, `<>`, `<`, `<=`, `>` or `>=`.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::Ne => "<>",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

/// A property value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A finite float (the parser refuses literals that overflow to infinity).
    Float(f64),
    /// A string.
    Str(String),
}

impl Value {
    /// Compares two values as openCypher does: integers and floats numerically (exactly, with no
    /// rounding of the integer), strings by their characters' code points, anything else
    /// (a string with a number, or a NaN float) not at all: `None`, where every comparison is
    /// false — `<>` included, as Cypher's null.
    pub fn compare(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
            (Value::Float(a), Value::Float(b)) => a.partial_cmp(b),
            (Value::Int(a), Value::Float(b)) => cmp_int_float(*a, *b),
            (Value::Float(a), Value::Int(b)) => cmp_int_float(*b, *a).map(Ordering::reverse),
            (Value::Str(a), Value::Str(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }
}

/// `i` compared with `f`, exactly.
fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        return None;
    }
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    // Now -2^63 <= f < 2^63: its integer part is an exact i64.
    let whole = f.trunc();
    Some(i.cmp(&(whole as i64)).then(if f > whole {
        Ordering::Less
    } else if f < whole {
        Ordering::Greater
    } else {
        Ordering::Equal
    }))
}

/// What RETURN returns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Return {
    /// `RETURN *`, or no RETURN: every named vertex, in appearance order.
    All,
    /// `RETURN a, b`: these named vertices, in this order (no vertex twice).
    Vertices(Vec<usize>),
    /// `RETURN count(*)`: one row, the number of matches.
    CountStar,
}

impl Pattern {
    /// The pattern vertex of variable `name`.
    pub fn vertex_by_name(&self, name: &str) -> Option<usize> {
        self.vertices.iter().position(|v| v.name.as_deref() == Some(name))
    }

    /// The vertices whose matches are returned, in column order (empty for `count(*)`).
    pub fn returned_vertices(&self) -> Vec<usize> {
        match &self.returns {
            Return::All => (0..self.vertices.len()).filter(|&v| self.vertices[v].name.is_some()).collect(),
            Return::Vertices(vs) => vs.clone(),
            Return::CountStar => Vec::new(),
        }
    }

    /// The names of the RETURN columns: the returned variables, or `count(*)`.
    pub fn column_names(&self) -> Vec<String> {
        match &self.returns {
            Return::CountStar => vec!["count(*)".to_string()],
            _ => self
                .returned_vertices()
                .into_iter()
                .map(|v| self.vertices.get(v).and_then(|v| v.name.clone()).unwrap_or_default())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    #[test]
    fn holds_and_flipped() {
        let all = [CompareOp::Eq, CompareOp::Ne, CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge];
        let truth = |op: CompareOp| [Less, Equal, Greater].map(|o| op.holds(o));
        assert_eq!(truth(CompareOp::Eq), [false, true, false]);
        assert_eq!(truth(CompareOp::Ne), [true, false, true]);
        assert_eq!(truth(CompareOp::Lt), [true, false, false]);
        assert_eq!(truth(CompareOp::Le), [true, true, false]);
        assert_eq!(truth(CompareOp::Gt), [false, false, true]);
        assert_eq!(truth(CompareOp::Ge), [false, true, true]);
        for op in all {
            for (a, b) in [(1, 2), (2, 2), (3, 2)] {
                let o: Ordering = a.cmp(&b);
                assert_eq!(op.holds(o), op.flipped().holds(o.reverse()), "{op:?} {a} {b}");
            }
            assert_eq!(op.flipped().flipped(), op);
        }
        assert_eq!(all.map(CompareOp::symbol), ["=", "<>", "<", "<=", ">", ">="]);
    }

    #[test]
    fn values_compare_like_cypher() {
        let (i, f, s) = (Value::Int, Value::Float, |x: &str| Value::Str(x.to_string()));
        assert_eq!(i(3).compare(&i(4)), Some(Less));
        assert_eq!(i(3).compare(&f(3.0)), Some(Equal));
        assert_eq!(i(3).compare(&f(2.5)), Some(Greater));
        assert_eq!(f(-2.5).compare(&i(-2)), Some(Less));
        assert_eq!(i(-3).compare(&f(-2.5)), Some(Less));
        // No rounding: 2^53 + 1 is not 2^53 as a float.
        assert_eq!(i((1 << 53) + 1).compare(&f((1u64 << 53) as f64)), Some(Greater));
        assert_eq!(i(i64::MAX).compare(&f(9.3e18)), Some(Less));
        assert_eq!(i(i64::MIN).compare(&f(-9.3e18)), Some(Greater));
        assert_eq!(i(i64::MIN).compare(&f(-9_223_372_036_854_775_808.0)), Some(Equal));
        assert_eq!(i(0).compare(&f(f64::NAN)), None);
        assert_eq!(f(f64::NAN).compare(&f(1.0)), None);
        assert_eq!(s("a").compare(&s("b")), Some(Less));
        assert_eq!(s("1").compare(&i(1)), None);
        assert_eq!(f(1.0).compare(&s("1")), None);
    }

    #[test]
    fn columns_and_returned_vertices() {
        let v =
            |name: Option<&str>| PatternVertex { name: name.map(str::to_string), label: None, more_labels: Vec::new() };
        let mut p = Pattern {
            vertices: vec![v(Some("a")), v(None), v(Some("c"))],
            edges: vec![],
            predicates: vec![],
            returns: Return::All,
            distinct: false,
            limit: None,
            text: String::new(),
        };
        assert_eq!(p.returned_vertices(), [0, 2]);
        assert_eq!(p.column_names(), ["a", "c"]);
        p.returns = Return::Vertices(vec![2, 0]);
        assert_eq!(p.column_names(), ["c", "a"]);
        p.returns = Return::CountStar;
        assert_eq!(p.column_names(), ["count(*)"]);
        assert!(p.returned_vertices().is_empty());
        assert_eq!(p.vertex_by_name("c"), Some(2));
        assert_eq!(p.vertex_by_name("b"), None);
    }
}
