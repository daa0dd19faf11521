//! Who may ask what: the token file (`NAME TOKEN [GRAPH,GRAPH…] [admin]` a line, `#` comments),
//! and a request's `Authorization: Bearer TOKEN` checked against it in constant time. Tokens
//! are never logged nor shown: errors name the token's line or its holder.

use crate::error::{ApiError, ServerError};
use std::path::Path;
use subtle::{Choice, ConstantTimeEq};

/// One token's holder: its name, the graphs it may query (None: all) and whether it may reload.
#[derive(Debug, Clone)]
pub struct Holder {
    pub name: String,
    token: Vec<u8>,
    pub graphs: Option<Vec<String>>,
    pub admin: bool,
}

impl Holder {
    /// Whether this holder may query `graph`.
    pub fn may_query(&self, graph: &str) -> bool {
        self.graphs.as_ref().is_none_or(|g| g.iter().any(|x| x == graph))
    }
}

/// The tokens of a token file.
#[derive(Debug, Clone)]
pub struct Tokens {
    holders: Vec<Holder>,
}

impl Tokens {
    /// Reads a token file; `graphs` are the served graphs' names, which a scope must name.
    /// A malformed line is an error naming the file and the line.
    pub fn read(path: &Path, graphs: &[&str]) -> Result<Tokens, ServerError> {
        let text = std::fs::read_to_string(path).map_err(|source| ServerError::Read { file: path.into(), source })?;
        Tokens::parse(path, &text, graphs)
    }

    /// [`Tokens::read`] of a file's text (`path` names it in errors).
    pub fn parse(path: &Path, text: &str, graphs: &[&str]) -> Result<Tokens, ServerError> {
        let mut holders: Vec<Holder> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let fail = |message: String| ServerError::TokenFile { file: path.into(), line: i + 1, message };
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (name, token, rest) = match fields[..] {
                [name, token, ref rest @ ..] if rest.len() <= 2 => (name, token, rest),
                [_] => return Err(fail("expected `NAME TOKEN [GRAPH,GRAPH…] [admin]`, found one field".into())),
                _ => return Err(fail(format!("expected at most 4 fields, found {}", fields.len()))),
            };
            let (scope, admin) = match rest {
                [] => (None, false),
                ["admin"] => (None, true),
                [scope] => (Some(*scope), false),
                [scope, "admin"] => (Some(*scope), true),
                [_, other] => return Err(fail(format!("the fourth field may only be `admin`, found `{other}`"))),
                _ => unreachable!("at most two fields after the token"),
            };
            let scope = match scope {
                None => None,
                Some(s) => {
                    let names: Vec<String> = s.split(',').map(str::to_string).collect();
                    if let Some(bad) = names.iter().find(|n| !graphs.contains(&n.as_str())) {
                        return Err(fail(format!("`{bad}` is not a served graph (they are: {})", graphs.join(", "))));
                    }
                    Some(names)
                }
            };
            if holders.iter().any(|h| h.name == name) {
                return Err(fail(format!("the name `{name}` is given twice")));
            }
            if holders.iter().any(|h| h.token == token.as_bytes()) {
                return Err(fail(format!("{name}'s token is another line's too")));
            }
            holders.push(Holder { name: name.to_string(), token: token.as_bytes().to_vec(), graphs: scope, admin });
        }
        if holders.is_empty() {
            return Err(ServerError::TokenFile { file: path.into(), line: 0, message: "no tokens".into() });
        }
        Ok(Tokens { holders })
    }

    /// The holder of the request's `Authorization` header value: `Bearer TOKEN` with a known
    /// token, compared with every token in constant time; else `unauthorized`.
    pub fn holder(&self, authorization: Option<&[u8]>) -> Result<&Holder, ApiError> {
        let Some(value) = authorization else {
            return Err(ApiError::new("unauthorized", "no token: send `Authorization: Bearer TOKEN`"));
        };
        let Some(token) = value.strip_prefix(b"Bearer ") else {
            return Err(ApiError::new("unauthorized", "the Authorization header is not `Bearer TOKEN`"));
        };
        let token = token.trim_ascii();
        let mut found = None;
        for (i, h) in self.holders.iter().enumerate() {
            let same: Choice = h.token.as_slice().ct_eq(token);
            if bool::from(same) {
                found = Some(i);
            }
        }
        found.map(|i| &self.holders[i]).ok_or_else(|| ApiError::new("unauthorized", "unknown token"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Tokens, ServerError> {
        Tokens::parse(Path::new("tokens.txt"), text, &["hprd", "yeast"])
    }

    #[test]
    fn lines_scopes_and_admins() {
        let t = parse("# operators\nalice a1 admin\nbob b2 hprd\n\ncarol c3 hprd,yeast admin # both\n").unwrap();
        let alice = t.holder(Some(b"Bearer a1")).unwrap();
        assert!(alice.admin && alice.may_query("yeast"));
        let bob = t.holder(Some(b"Bearer b2")).unwrap();
        assert!(!bob.admin && bob.may_query("hprd") && !bob.may_query("yeast"));
        assert!(t.holder(Some(b"Bearer c3")).unwrap().admin);
        assert_eq!(t.holder(Some(b"Bearer a")).unwrap_err().code, "unauthorized");
        assert_eq!(t.holder(Some(b"a1")).unwrap_err().code, "unauthorized");
        assert_eq!(t.holder(None).unwrap_err().code, "unauthorized");
    }

    #[test]
    fn a_malformed_line_names_the_file_and_line() {
        for (text, line, says) in [
            ("alice a1\nbob\n", 2, "one field"),
            ("alice a1 hprd admin extra\n", 1, "at most 4"),
            ("alice a1 hprd root\n", 1, "only be `admin`"),
            ("alice a1 web\n", 1, "not a served graph"),
            ("alice a1\nalice a2\n", 2, "given twice"),
            ("alice a1\nbob a1\n", 2, "another line's"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("tokens.txt:{line}: ")), "{e}");
            assert!(e.contains(says), "{e}");
            assert!(!e.contains("a1"), "a token shown: {e}");
        }
        assert!(parse("# nothing\n").unwrap_err().to_string().contains("no tokens"));
    }
}
