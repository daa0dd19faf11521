//! The recursive-descent parser of the pattern language (openCypher's MATCH syntax, a subset; the
//! grammar is in the crate documentation). It works over the lexer's token list without
//! recursion — paths, maps, AND chains and parentheses are loops — so no input can exhaust the
//! stack, and it stops at the first error, naming what it expected there.

use std::collections::{HashMap, HashSet};

use crate::error::PatternError;
use crate::lexer::{is_reserved, tokenize, Tok, Token};
use crate::pattern::{CompareOp, Direction, LabelRef, Pattern, PatternEdge, PatternVertex, Predicate, Return, Value};

/// The longest pattern text [`parse`](crate::parse) accepts, in bytes: 1 MiB.
pub const MAX_PATTERN_LEN: usize = 1 << 20;
/// The most vertices, edges and property tests a pattern may have: [`parse`](crate::parse)
/// refuses one more at its position, before any work is done on the pattern.
pub const MAX_PATTERN_VERTICES: usize = 1024;
pub const MAX_PATTERN_EDGES: usize = 4096;
pub const MAX_PATTERN_PREDICATES: usize = 4096;

/// openCypher clauses that may follow a MATCH but are not supported.
const CLAUSES: &[&str] = &[
    "CALL", "CREATE", "DELETE", "DETACH", "MERGE", "OPTIONAL", "ORDER", "REMOVE", "SET", "SKIP", "UNION", "UNWIND",
    "WITH",
];

type Parsed<T> = Result<T, PatternError>;

/// What a variable names.
enum Var {
    Vertex(usize),
    Edge,
}

/// One side of a comparison.
enum Operand {
    Property { vertex: usize, key: String },
    Value(Value),
}

pub(crate) struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    i: usize,
    vars: HashMap<String, Var>,
    vertices: Vec<PatternVertex>,
    edges: Vec<PatternEdge>,
    edge_set: HashSet<PatternEdge>,
    predicates: Vec<Predicate>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            toks: tokenize(text),
            i: 0,
            vars: HashMap::new(),
            vertices: Vec::new(),
            edges: Vec::new(),
            edge_set: HashSet::new(),
            predicates: Vec::new(),
        }
    }

    // ---- tokens ----

    fn peek(&self) -> &Token {
        &self.toks[self.i]
    }

    fn at(&self, tok: &Tok) -> bool {
        &self.peek().tok == tok
    }

    fn advance(&mut self) -> Token {
        let t = self.toks[self.i].clone();
        if !matches!(t.tok, Tok::Eof | Tok::Error(_)) {
            self.i += 1;
        }
        t
    }

    /// Consumes `tok` if it is next.
    fn eat(&mut self, tok: &Tok) -> bool {
        let found = self.at(tok);
        if found {
            self.advance();
        }
        found
    }

    /// Whether the next token is the keyword `word` (any case, not in backquotes).
    fn at_kw(&self, word: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s) if s.eq_ignore_ascii_case(word))
    }

    fn eat_kw(&mut self, word: &str) -> bool {
        let found = self.at_kw(word);
        if found {
            self.advance();
        }
        found
    }

    fn expect(&mut self, tok: &Tok, expected: &str) -> Parsed<Token> {
        if self.at(tok) {
            Ok(self.advance())
        } else {
            Err(self.unexpected(expected))
        }
    }

    // ---- errors ----

    fn err_at(&self, offset: usize, message: impl Into<String>) -> PatternError {
        PatternError::new(self.text, offset, message)
    }

    /// How an error message names a token.
    fn describe(&self, t: &Token) -> String {
        match &t.tok {
            Tok::Eof => "end of input".to_string(),
            Tok::Str(_) => "a string".to_string(),
            _ => {
                // At most 24 characters, and no line break.
                let s = &self.text[t.start..t.end];
                let cut = s.char_indices().position(|(_, c)| c == '\n' || c == '\r').unwrap_or(usize::MAX).min(24);
                match s.char_indices().nth(cut) {
                    Some((i, _)) => format!("'{}...'", &s[..i]),
                    None => format!("'{s}'"),
                }
            }
        }
    }

    /// "expected X, found Y" at the next token; the lexer's error if the next token is one.
    fn unexpected(&self, expected: &str) -> PatternError {
        let t = self.peek();
        match &t.tok {
            Tok::Error(message) => self.err_at(t.start, message.clone()),
            _ => self.err_at(t.start, format!("expected {expected}, found {}", self.describe(t))),
        }
    }

    /// The error where a clause may end: a clearer message for known but unsupported words.
    fn unexpected_after_clause(&self, expected: &str) -> PatternError {
        let t = self.peek();
        if let Tok::Ident(word) = &t.tok {
            let upper = word.to_ascii_uppercase();
            if upper == "MATCH" {
                return self.err_at(t.start, "only one MATCH clause is supported; separate the paths with ','");
            }
            if upper == "OR" || upper == "XOR" {
                return self.err_at(t.start, format!("{upper} is not supported: only AND is supported in WHERE"));
            }
            if CLAUSES.contains(&upper.as_str()) {
                return self.err_at(
                    t.start,
                    format!("{upper} is not supported: a pattern is MATCH paths [WHERE ...] [RETURN ...]"),
                );
            }
        }
        self.unexpected(expected)
    }

    // ---- the query ----

    pub(crate) fn parse(mut self) -> Parsed<Pattern> {
        if !self.eat_kw("MATCH") && !self.at(&Tok::LParen) {
            return Err(self.unexpected_after_clause("MATCH or '(' to start the pattern"));
        }
        self.path()?;
        while self.eat(&Tok::Comma) {
            self.path()?;
        }
        let mut expected = "'-' or '<-' for a relationship, ',', WHERE, RETURN, ';' or end of input";
        if self.eat_kw("WHERE") {
            self.where_clause()?;
            expected = "AND, RETURN, ';' or end of input";
        }
        let (mut returns, mut distinct, mut limit) = (Return::All, false, None);
        if self.eat_kw("RETURN") {
            (returns, distinct, limit) = self.return_clause()?;
            expected = if limit.is_some() { "';' or end of input" } else { "LIMIT, ';' or end of input" };
        }
        if self.eat(&Tok::Semi) {
            expected = "end of input after ';'";
        }
        if !self.at(&Tok::Eof) {
            return Err(self.unexpected_after_clause(expected));
        }
        Ok(Pattern {
            vertices: self.vertices,
            edges: self.edges,
            predicates: self.predicates,
            returns,
            distinct,
            limit,
            text: self.text.to_string(),
        })
    }

    /// `node (relationship node)*`
    fn path(&mut self) -> Parsed<()> {
        let mut left = self.node()?;
        while self.at(&Tok::Minus) || self.at(&Tok::Lt) {
            let (direction, label) = self.relationship()?;
            let right = self.node()?;
            let (from, to, direction) = match direction {
                Arrow::Right => (left, right, Direction::Out),
                Arrow::Left => (right, left, Direction::Out),
                Arrow::Both => (left, right, Direction::Either),
            };
            let edge = PatternEdge { from, to, direction, label };
            if !self.edge_set.contains(&edge) {
                self.within(self.edges.len(), MAX_PATTERN_EDGES, "edges")?;
                self.edge_set.insert(edge.clone());
                self.edges.push(edge);
            }
            left = right;
        }
        Ok(())
    }

    /// A variable name: an identifier that is not reserved, or a backquoted name.
    fn variable(&mut self) -> Parsed<Option<(String, usize)>> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Ident(word) if is_reserved(&word) => Err(self.err_at(
                t.start,
                format!("'{word}' is a reserved word; write `{word}` (in backquotes) to use it as a variable"),
            )),
            Tok::Ident(name) | Tok::Quoted(name) => {
                self.advance();
                Ok(Some((name, t.start)))
            }
            _ => Ok(None),
        }
    }

    /// A property or label name: any identifier (keywords included) or a backquoted name.
    fn name(&mut self) -> Option<String> {
        match &self.peek().tok {
            Tok::Ident(name) | Tok::Quoted(name) => {
                let name = name.clone();
                self.advance();
                Some(name)
            }
            _ => None,
        }
    }

    /// A label after ':': a name or a u32.
    fn label(&mut self) -> Parsed<(LabelRef, usize)> {
        let t = self.peek().clone();
        if t.tok == Tok::Int {
            self.advance();
            let digits = &self.text[t.start..t.end];
            return match digits.parse::<u32>() {
                Ok(id) => Ok((LabelRef::Id(id), t.start)),
                Err(_) => Err(self.err_at(t.start, format!("label id {digits} is larger than {}", u32::MAX))),
            };
        }
        match self.name() {
            Some(name) => Ok((LabelRef::Name(name), t.start)),
            None => Err(self.unexpected("a label name or a non-negative integer after ':'")),
        }
    }

    /// `'(' variable? (':' label)* map? ')'`: the node's vertex.
    fn node(&mut self) -> Parsed<usize> {
        self.expect(&Tok::LParen, "'(' to start a node")?;
        let var = self.variable()?;
        let mut labels = Vec::new();
        while self.eat(&Tok::Colon) {
            labels.push(self.label()?);
        }
        if !labels.is_empty() && matches!(self.peek().tok, Tok::Pipe | Tok::Amp) {
            return Err(self.err_at(
                self.peek().start,
                "labels combined by '|' or '&' are not supported: write (a:A:B) for a vertex with both labels",
            ));
        }
        let vertex = match &var {
            None => self.new_vertex(None)?,
            Some((name, at)) => match self.vars.get(name) {
                Some(Var::Vertex(v)) => *v,
                Some(Var::Edge) => {
                    return Err(self.err_at(*at, format!("'{name}' is a relationship variable, not a node's")))
                }
                None => {
                    let v = self.new_vertex(Some(name.clone()))?;
                    self.vars.insert(name.clone(), Var::Vertex(v));
                    v
                }
            },
        };
        let labelled = !labels.is_empty();
        // Labels add up wherever the variable stands, as in Cypher: (a:A), (a:B) is (a:A:B).
        for (label, _) in labels {
            let v = &mut self.vertices[vertex];
            match &v.label {
                None => v.label = Some(label),
                Some(old) if *old == label || v.more_labels.contains(&label) => {}
                Some(_) => v.more_labels.push(label),
            }
        }
        let map = self.at(&Tok::LBrace);
        if map {
            self.properties(vertex)?;
        }
        if !self.eat(&Tok::RParen) {
            return Err(self.unexpected(match (&var, labelled, map) {
                (_, _, true) => "')' after the node's properties",
                (_, true, false) => "')' or '{' after the node label",
                (Some(_), false, false) => "':', '{' or ')' after the node variable",
                (None, false, false) => "a variable, ':', '{' or ')' after '('",
            }));
        }
        Ok(vertex)
    }

    /// A new pattern vertex, refused past [`MAX_PATTERN_VERTICES`] (at the current token).
    fn new_vertex(&mut self, name: Option<String>) -> Parsed<usize> {
        self.within(self.vertices.len(), MAX_PATTERN_VERTICES, "vertices")?;
        self.vertices.push(PatternVertex { name, label: None, more_labels: Vec::new() });
        Ok(self.vertices.len() - 1)
    }

    /// Refuses one more of `what` (at the current token) when `count` already has `max`.
    fn within(&self, count: usize, max: usize, what: &str) -> Parsed<()> {
        if count < max {
            return Ok(());
        }
        Err(self
            .err_at(self.peek().start, format!("the pattern has more than {max} {what}, the most a pattern may have")))
    }

    fn push_predicate(&mut self, predicate: Predicate) -> Parsed<()> {
        self.within(self.predicates.len(), MAX_PATTERN_PREDICATES, "property tests")?;
        self.predicates.push(predicate);
        Ok(())
    }

    /// `'{' (key ':' value (',' key ':' value)*)? '}'`: equality predicates on `vertex`.
    fn properties(&mut self, vertex: usize) -> Parsed<()> {
        self.expect(&Tok::LBrace, "'{'")?;
        if self.eat(&Tok::RBrace) {
            return Ok(());
        }
        loop {
            let Some(key) = self.name() else {
                return Err(self.unexpected("a property name or '}'"));
            };
            self.expect(&Tok::Colon, "':' after the property name")?;
            let value = self.value()?;
            self.push_predicate(Predicate { vertex, key, op: CompareOp::Eq, value })?;
            if self.eat(&Tok::RBrace) {
                return Ok(());
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.unexpected("',' or '}' in the property map"));
            }
        }
    }

    /// A literal: `-`? integer, `-`? float, or string.
    fn value(&mut self) -> Parsed<Value> {
        let t = self.peek().clone();
        let negative = t.tok == Tok::Minus;
        if negative {
            self.advance();
        }
        let n = self.peek().clone();
        let number = |digits: &str| if negative { format!("-{digits}") } else { digits.to_string() };
        match &n.tok {
            Tok::Int => {
                self.advance();
                let s = number(&self.text[n.start..n.end]);
                s.parse::<i64>()
                    .map(Value::Int)
                    .map_err(|_| self.err_at(t.start, format!("integer {s} does not fit in 64 bits (i64)")))
            }
            Tok::Float => {
                self.advance();
                let s = number(&self.text[n.start..n.end]);
                match s.parse::<f64>() {
                    Ok(f) if f.is_finite() => Ok(Value::Float(f)),
                    _ => Err(self.err_at(t.start, format!("float {s} is out of range"))),
                }
            }
            Tok::Str(s) if !negative => {
                let s = s.clone();
                self.advance();
                Ok(Value::Str(s))
            }
            Tok::Ident(w) if !negative && (w.eq_ignore_ascii_case("true") || w.eq_ignore_ascii_case("false")) => {
                Err(self.err_at(n.start, "booleans are not supported; a value is an integer, a float or a string"))
            }
            Tok::Ident(w) if !negative && w.eq_ignore_ascii_case("null") => {
                Err(self.err_at(n.start, "null is not supported; a value is an integer, a float or a string"))
            }
            Tok::LBracket if !negative => Err(self.err_at(n.start, "lists are not supported as values")),
            Tok::LBrace if !negative => Err(self.err_at(n.start, "maps are not supported as values")),
            _ if negative => Err(self.unexpected("a number after '-'")),
            _ => Err(self.unexpected("a value (an integer, a float or a string)")),
        }
    }

    /// `'<'? '-' ('[' variable? (':' label)? ']')? '-' '>'?`
    fn relationship(&mut self) -> Parsed<(Arrow, Option<LabelRef>)> {
        let left = self.eat(&Tok::Lt);
        self.expect(&Tok::Minus, "'-' after '<'")?;
        let mut label = None;
        if self.eat(&Tok::LBracket) {
            if let Some((name, at)) = self.variable()? {
                match self.vars.get(&name) {
                    Some(Var::Vertex(_)) => {
                        return Err(self.err_at(at, format!("'{name}' is a node variable, not a relationship's")))
                    }
                    Some(Var::Edge) => {
                        return Err(self.err_at(
                            at,
                            format!("relationship variable '{name}' is used twice; one relationship cannot be two"),
                        ))
                    }
                    None => {
                        self.vars.insert(name, Var::Edge);
                    }
                }
            }
            if self.eat(&Tok::Colon) {
                label = Some(self.label()?.0);
            }
            let t = self.peek().start;
            match self.peek().tok {
                Tok::Star => {
                    return Err(self.err_at(t, "variable-length relationships ('*') are not supported"));
                }
                Tok::Pipe => {
                    return Err(self.err_at(t, "multiple relationship types ('|') are not supported"));
                }
                Tok::Colon | Tok::Amp if label.is_some() => {
                    return Err(self.err_at(t, "one label per relationship: multiple labels are not supported"));
                }
                Tok::LBrace => return Err(self.err_at(t, "relationship properties are not supported")),
                _ => {}
            }
            if !self.eat(&Tok::RBracket) {
                return Err(self.unexpected(if label.is_some() {
                    "']' after the relationship label"
                } else {
                    "a variable, ':' or ']' in the relationship"
                }));
            }
            self.expect(&Tok::Minus, "'-' after ']'")?;
        } else if !self.eat(&Tok::Minus) {
            return Err(self.unexpected("'[' or '-' to continue the relationship"));
        }
        let right = self.eat(&Tok::Gt);
        let arrow = match (left, right) {
            (false, true) => Arrow::Right,
            (true, false) => Arrow::Left,
            _ => Arrow::Both,
        };
        Ok((arrow, label))
    }

    // ---- WHERE ----

    /// `comparison (AND comparison)*`
    fn where_clause(&mut self) -> Parsed<()> {
        loop {
            self.comparison()?;
            if !self.eat_kw("AND") {
                return Ok(());
            }
        }
    }

    /// `'('* operand op operand ')'*`, as many ')' as '('; one side a property.
    fn comparison(&mut self) -> Parsed<()> {
        let mut parens = 0usize;
        while self.eat(&Tok::LParen) {
            parens += 1;
        }
        if self.at_kw("NOT") {
            return Err(self.err_at(self.peek().start, "NOT is not supported: only AND is supported in WHERE"));
        }
        let left_at = self.peek().start;
        let left = self.operand()?;
        let op = match self.peek().tok {
            Tok::Eq => CompareOp::Eq,
            Tok::Ne => CompareOp::Ne,
            Tok::Lt => CompareOp::Lt,
            Tok::Le => CompareOp::Le,
            Tok::Gt => CompareOp::Gt,
            Tok::Ge => CompareOp::Ge,
            _ => return Err(self.unexpected("a comparison operator (=, <>, <, <=, >, >=)")),
        };
        self.advance();
        let right_at = self.peek().start;
        let right = self.operand()?;
        let predicate = match (left, right) {
            (Operand::Property { vertex, key }, Operand::Value(value)) => Predicate { vertex, key, op, value },
            (Operand::Value(value), Operand::Property { vertex, key }) => {
                Predicate { vertex, key, op: op.flipped(), value }
            }
            (Operand::Property { .. }, Operand::Property { .. }) => {
                return Err(
                    self.err_at(right_at, "comparing two properties is not supported; compare a property with a value")
                )
            }
            (Operand::Value(_), Operand::Value(_)) => {
                return Err(self.err_at(left_at, "a comparison needs a property (variable.key) on one side"))
            }
        };
        self.push_predicate(predicate)?;
        for _ in 0..parens {
            if !self.eat(&Tok::RParen) {
                return Err(self.unexpected_after_clause("')' (parentheses hold one comparison)"));
            }
        }
        Ok(())
    }

    /// `variable '.' key` or a value.
    fn operand(&mut self) -> Parsed<Operand> {
        let t = self.peek().clone();
        let name = match &t.tok {
            Tok::Ident(w) if !is_reserved(w) => w.clone(),
            Tok::Quoted(w) => w.clone(),
            Tok::Ident(w) if !["TRUE", "FALSE", "NULL"].iter().any(|k| k.eq_ignore_ascii_case(w)) => {
                return Err(self.unexpected("a property (variable.key) or a value"))
            }
            Tok::Ident(_) | Tok::Str(_) | Tok::Int | Tok::Float | Tok::Minus | Tok::LBracket | Tok::LBrace => {
                return self.value().map(Operand::Value)
            }
            _ => return Err(self.unexpected("a property (variable.key) or a value")),
        };
        self.advance();
        if !self.at(&Tok::Dot) {
            return Err(self.unexpected(&format!("'.' and a property name after '{name}' (variable.key)")));
        }
        let vertex = self.vertex_var(&name, t.start, "WHERE")?;
        self.advance();
        match self.name() {
            Some(key) => Ok(Operand::Property { vertex, key }),
            None => Err(self.unexpected("a property name after '.'")),
        }
    }

    /// The vertex of variable `name` (at `at`), used in `clause`.
    fn vertex_var(&self, name: &str, at: usize, clause: &str) -> Parsed<usize> {
        match self.vars.get(name) {
            Some(Var::Vertex(v)) => Ok(*v),
            Some(Var::Edge) => Err(self
                .err_at(at, format!("'{name}' is a relationship variable; relationships cannot be used in {clause}"))),
            None => Err(self.err_at(at, format!("variable '{name}' is not defined in MATCH"))),
        }
    }

    // ---- RETURN ----

    /// `DISTINCT? ('*' | count(*) | variable (',' variable)*) (LIMIT integer)?`
    fn return_clause(&mut self) -> Parsed<(Return, bool, Option<u64>)> {
        let distinct = self.eat_kw("DISTINCT");
        let returns = if self.eat(&Tok::Star) {
            Return::All
        } else if self.at_kw("count") && self.toks.get(self.i + 1).is_some_and(|t| t.tok == Tok::LParen) {
            self.advance();
            self.advance();
            if !self.eat(&Tok::Star) {
                return Err(self.unexpected("'*': only count(*) is supported"));
            }
            self.expect(&Tok::RParen, "')' after count(*")?;
            Return::CountStar
        } else {
            let (mut vs, mut returned) = (Vec::new(), HashSet::new());
            loop {
                let Some((name, at)) = self.variable()? else {
                    return Err(self.unexpected(if vs.is_empty() {
                        "'*', count(*) or a variable after RETURN"
                    } else {
                        "a variable after ','"
                    }));
                };
                let v = self.vertex_var(&name, at, "RETURN")?;
                if !returned.insert(v) {
                    return Err(self.err_at(at, format!("'{name}' is returned twice")));
                }
                vs.push(v);
                if self.at(&Tok::Dot) {
                    return Err(
                        self.err_at(self.peek().start, "returning properties is not supported; return whole variables")
                    );
                }
                if self.at_kw("AS") {
                    return Err(self.err_at(self.peek().start, "aliases (AS) are not supported"));
                }
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            Return::Vertices(vs)
        };
        let limit = if self.eat_kw("LIMIT") {
            let t = self.peek().clone();
            if t.tok != Tok::Int {
                return Err(self.unexpected("a non-negative integer after LIMIT"));
            }
            self.advance();
            let digits = &self.text[t.start..t.end];
            match digits.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => return Err(self.err_at(t.start, format!("LIMIT {digits} does not fit in 64 bits (u64)"))),
            }
        } else {
            None
        };
        Ok((returns, distinct, limit))
    }
}

/// The arrowheads of a relationship.
enum Arrow {
    /// `-->`
    Right,
    /// `<--`
    Left,
    /// `--` or `<-->`
    Both,
}
