//! Line and token scanning shared by the text readers: every error carries file and line.

use crate::error::Error;
use std::path::Path;

/// Fewest bytes a vertex record takes in the text formats (`v 0 0` and a line end; the last
/// line may lack its end).
pub(crate) const MIN_VERTEX_RECORD: u64 = 6;

/// Lines of a text file with their 1-based numbers; blank lines and comment lines (`#`, `%`)
/// are skipped when `comments` is set, blank lines always.
pub(crate) struct Lines<'a> {
    file: &'a Path,
    data: &'a [u8],
    pos: usize,
    line: u64,
    comments: bool,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(file: &'a Path, data: &'a [u8], comments: bool) -> Self {
        Lines { file, data, pos: 0, line: 0, comments }
    }

    /// The next non-blank line as its fields.
    pub(crate) fn next_fields(&mut self) -> Option<Fields<'a>> {
        while self.pos < self.data.len() {
            let rest = &self.data[self.pos..];
            let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            let text = &rest[..end];
            self.pos += end + 1;
            self.line += 1;
            let trimmed = text.trim_ascii();
            if trimmed.is_empty() || (self.comments && matches!(trimmed[0], b'#' | b'%')) {
                continue;
            }
            return Some(Fields { file: self.file, line: self.line, text: trimmed, pos: 0 });
        }
        None
    }

    /// The number of the last line read (0 before the first).
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    pub(crate) fn error(&self, line: u64, msg: impl Into<String>) -> Error {
        Error::Parse { file: self.file.to_path_buf(), line, msg: msg.into() }
    }
}

/// The whitespace-separated tokens of one line.
pub(crate) struct Fields<'a> {
    pub(crate) file: &'a Path,
    pub(crate) line: u64,
    text: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    pub(crate) fn error(&self, msg: impl Into<String>) -> Error {
        Error::Parse { file: self.file.to_path_buf(), line: self.line, msg: msg.into() }
    }

    /// The next token, or None at the end of the line.
    pub(crate) fn token(&mut self) -> Option<&'a [u8]> {
        let t = self.text;
        while self.pos < t.len() && t[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if self.pos == t.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < t.len() && !t[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        Some(&t[start..self.pos])
    }

    /// The next token, which must be present: `what` names it in the error.
    pub(crate) fn expect(&mut self, what: &str) -> Result<&'a [u8], Error> {
        self.token().ok_or_else(|| self.error(format!("missing {what}")))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, Error> {
        let tok = self.expect(what)?;
        parse_u64(tok).ok_or_else(|| self.error(format!("bad {what} '{}'", show(tok))))
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, Error> {
        let tok = self.expect(what)?;
        parse_u64(tok)
            .and_then(|x| u32::try_from(x).ok())
            .ok_or_else(|| self.error(format!("bad {what} '{}' (an integer 0..=4294967295)", show(tok))))
    }

    /// An optional trailing u32 (absent: None).
    pub(crate) fn opt_u32(&mut self, what: &str) -> Result<Option<u32>, Error> {
        match self.token() {
            None => Ok(None),
            Some(tok) => parse_u64(tok)
                .and_then(|x| u32::try_from(x).ok())
                .map(Some)
                .ok_or_else(|| self.error(format!("bad {what} '{}'", show(tok)))),
        }
    }

    /// Checks a vertex count `n` that this (header) line declared against the length `len` of
    /// its file: every vertex takes a record of at least [`MIN_VERTEX_RECORD`] bytes, so a count
    /// the file cannot hold is an error here, before anything is allocated for it.
    pub(crate) fn vertex_count(&self, n: u64, len: usize) -> Result<usize, Error> {
        if n > u32::MAX as u64 {
            return Err(self.error(format!("{n} vertices exceed the 2^32 - 1 supported")));
        }
        let most = (len as u64 + 1) / MIN_VERTEX_RECORD;
        if n > most {
            return Err(self.error(format!(
                "the header declares {n} vertices, but a file of {len} bytes holds at most {most} vertex records"
            )));
        }
        Ok(n as usize)
    }

    /// A vertex id below `n`.
    pub(crate) fn vertex(&mut self, what: &str, n: usize) -> Result<u32, Error> {
        let tok = self.expect(what)?;
        match parse_u64(tok) {
            Some(x) if (x as usize) < n => Ok(x as u32),
            Some(x) => Err(self.error(format!("{what} {x} out of range (the graph has {n} vertices)"))),
            None => Err(self.error(format!("bad {what} '{}'", show(tok)))),
        }
    }

    /// Fails if tokens remain.
    pub(crate) fn end(&mut self) -> Result<(), Error> {
        match self.token() {
            None => Ok(()),
            Some(tok) => Err(self.error(format!("unexpected token '{}'", show(tok)))),
        }
    }
}

pub(crate) fn parse_u64(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() || tok.len() > 20 {
        return None;
    }
    let mut x: u64 = 0;
    for &c in tok {
        if !c.is_ascii_digit() {
            return None;
        }
        x = x.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(x)
}

/// A token as printable text, cut to 40 characters.
pub(crate) fn show(tok: &[u8]) -> String {
    let s: String = String::from_utf8_lossy(tok).chars().take(40).collect();
    s.escape_default().to_string()
}

/// Fails with a clear message on content that is not text.
pub(crate) fn check_text(file: &Path, data: &[u8]) -> Result<(), Error> {
    if let Some(i) = memchr::memchr(0, data) {
        let line = 1 + memchr::memchr_iter(b'\n', &data[..i]).count() as u64;
        return Err(Error::Parse {
            file: file.to_path_buf(),
            line,
            msg: "binary data (a NUL byte) in a text graph file".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_numbers_and_errors() {
        let p = Path::new("x");
        let data = b"\n# c\n  v 1 2  \n% d\ne 99999999999 x\n";
        let mut lines = Lines::new(p, data, true);
        let mut f = lines.next_fields().unwrap();
        assert_eq!(f.line, 3);
        assert_eq!(f.token(), Some(&b"v"[..]));
        assert_eq!(f.u32("id").unwrap(), 1);
        assert_eq!(f.vertex("v", 3).unwrap(), 2);
        assert!(f.end().is_ok());
        let mut f = lines.next_fields().unwrap();
        assert_eq!(f.line, 5);
        f.token();
        let e = f.u32("id").unwrap_err().to_string();
        assert_eq!(e, "x:5: bad id '99999999999' (an integer 0..=4294967295)");
        let e = f.u64("count").unwrap_err().to_string();
        assert_eq!(e, "x:5: bad count 'x'");
        assert!(lines.next_fields().is_none());
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
    }
}
