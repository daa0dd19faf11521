//! The decoders of the text formats: lines read one at a time from a buffer into
//! [`RawRatings`], each field checked, each fault one error naming the file, the line and the
//! field.

use std::io::BufRead;
use std::path::Path;

use super::format::Format;
use crate::error::{MfError, Result};
use crate::ratings::RawRatings;

/// Ratings reserved for ahead of a Matrix Market size line's count, at most.
const RESERVE: u64 = 1 << 20;

/// The ratings of `input`, in `format`, named `name` in errors.
pub(super) fn decode(input: impl BufRead, format: Format, name: &Path) -> Result<RawRatings> {
    let mut lines = Lines { input, name, no: 0, buf: Vec::new() };
    let mut out = RawRatings::default();
    match format {
        Format::MovieLens => separated(&mut lines, &mut out, Sep::Space, 4)?,
        Format::MovieLensDat => separated(&mut lines, &mut out, Sep::Colons, 4)?,
        Format::MovieLensCsv => separated(&mut lines, &mut out, Sep::Comma, 4)?,
        Format::Libmf => separated(&mut lines, &mut out, Sep::Space, 3)?,
        Format::Netflix => netflix(&mut lines, &mut out)?,
        Format::MatrixMarket => matrix_market(&mut lines, &mut out)?,
    }
    if out.is_empty() {
        return Err(MfError::file(name, format!("no ratings (read as {format})")));
    }
    for v in [&mut out.users, &mut out.items] {
        v.shrink_to_fit();
    }
    out.values.shrink_to_fit();
    Ok(out)
}

/// The lines of an input, without their `\n` or `\r\n`, numbered from 1.
struct Lines<'a, R> {
    input: R,
    name: &'a Path,
    no: u64,
    buf: Vec<u8>,
}

/// One line: its number and text, and how to name it in an error.
struct Line<'a> {
    name: &'a Path,
    no: u64,
    text: &'a [u8],
}

impl<R: BufRead> Lines<'_, R> {
    fn next(&mut self) -> Result<Option<Line<'_>>> {
        self.buf.clear();
        let n = self.input.read_until(b'\n', &mut self.buf).map_err(|e| MfError::io(self.name, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.no += 1;
        let mut text = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if self.no == 1 {
            text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
        }
        Ok(Some(Line { name: self.name, no: self.no, text }))
    }

    /// An error about the end of the input, after the last line.
    fn end_error(&self, message: impl std::fmt::Display) -> MfError {
        MfError::file(self.name, format!("line {}: {message}", self.no))
    }
}

impl Line<'_> {
    fn error(&self, message: impl std::fmt::Display) -> MfError {
        MfError::file(self.name, format!("line {}: {message}", self.no))
    }

    fn is_blank(&self) -> bool {
        self.text.trim_ascii().is_empty()
    }

    /// An unsigned integer field (`what`: "user id", "item id", "timestamp"…).
    fn unsigned(&self, what: &str, field: &[u8]) -> Result<u64> {
        let f = field.trim_ascii();
        if f.is_empty() {
            return Err(self.error(format_args!("the {what} is empty")));
        }
        if f.iter().all(u8::is_ascii_digit) {
            let mut v = 0u64;
            for &c in f {
                v = v.checked_mul(10).and_then(|v| v.checked_add(u64::from(c - b'0'))).ok_or_else(|| {
                    self.error(format_args!("{what} {} is larger than {}, the largest id", show(f), u64::MAX))
                })?;
            }
            return Ok(v);
        }
        if f.len() > 1 && f[0] == b'-' && f[1..].iter().all(u8::is_ascii_digit) {
            return Err(self.error(format_args!("{what} {} is negative: ids are unsigned integers", show(f))));
        }
        Err(self.error(format_args!("{what} '{}' is not an unsigned integer", show(f))))
    }

    /// A rating: a finite number, or with `integer` an integer.
    fn rating(&self, field: &[u8], integer: bool) -> Result<f32> {
        let f = field.trim_ascii();
        if f.is_empty() {
            return Err(self.error("the rating is empty"));
        }
        let parsed = std::str::from_utf8(f).ok().and_then(|s| {
            if integer {
                s.parse::<i64>().ok().map(|v| v as f32)
            } else {
                s.parse::<f32>().ok()
            }
        });
        match parsed {
            Some(v) if v.is_finite() => Ok(v),
            Some(_) => Err(self.error(format_args!("rating '{}' is not a finite number", show(f)))),
            None if integer => {
                Err(self.error(format_args!("rating '{}' is not an integer (the field is 'integer')", show(f))))
            }
            None => Err(self.error(format_args!("rating '{}' is not a number", show(f)))),
        }
    }
}

/// How a format separates its fields.
#[derive(Clone, Copy)]
enum Sep {
    /// Runs of spaces and tabs.
    Space,
    /// `::`.
    Colons,
    /// `,`.
    Comma,
}

/// Up to `N` fields of `text` and how many there were (more than `N` counted to `N` + 1).
fn split<const N: usize>(text: &[u8], sep: Sep) -> ([&[u8]; N], usize) {
    let mut fields: [&[u8]; N] = [&[]; N];
    let mut count = 0;
    let mut put = |f| {
        if count < N {
            fields[count] = f;
        }
        count += 1;
        count <= N
    };
    match sep {
        Sep::Space => {
            for f in text.split(|&c| c == b' ' || c == b'\t').filter(|f| !f.is_empty()) {
                if !put(f) {
                    break;
                }
            }
        }
        Sep::Comma => {
            for f in text.split(|&c| c == b',') {
                if !put(f) {
                    break;
                }
            }
        }
        Sep::Colons => {
            let mut rest = text;
            loop {
                match rest.windows(2).position(|w| w == b"::") {
                    Some(i) => {
                        if !put(&rest[..i]) {
                            break;
                        }
                        rest = &rest[i + 2..];
                    }
                    None => {
                        put(rest);
                        break;
                    }
                }
            }
        }
    }
    (fields, count.min(N + 1))
}

/// MovieLens (`fields` = 4: user, item, rating, timestamp) and LIBMF text (3: user, item,
/// rating): one rating a line; blank lines skipped, `#` comments too in LIBMF text, and in
/// `ratings.csv` a first line starting with a letter (the header).
fn separated<R: BufRead>(lines: &mut Lines<'_, R>, out: &mut RawRatings, sep: Sep, fields: usize) -> Result<()> {
    let (comments, header) = match (sep, fields) {
        (Sep::Space, 3) => (true, false),
        (Sep::Comma, _) => (false, true),
        _ => (false, false),
    };
    let layout = match (sep, fields) {
        (Sep::Space, 3) => "'user item rating'",
        (Sep::Space, _) => "'user item rating timestamp' (tab separated)",
        (Sep::Colons, _) => "'user::item::rating::timestamp'",
        (Sep::Comma, _) => "'user,item,rating,timestamp'",
    };
    while let Some(line) = lines.next()? {
        if line.is_blank() || (comments && line.text.trim_ascii_start().starts_with(b"#")) {
            continue;
        }
        if header && line.no == 1 && line.text.trim_ascii_start().first().is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let (f, n) = split::<4>(line.text, sep);
        if n != fields {
            let found = if n > fields { "more".to_string() } else { n.to_string() };
            return Err(line.error(format_args!("expected {fields} fields {layout}, found {found}")));
        }
        let user = line.unsigned("user id", f[0])?;
        let item = line.unsigned("item id", f[1])?;
        let rating = line.rating(f[2], false)?;
        if fields == 4 {
            line.unsigned("timestamp", f[3])?;
        }
        out.push(user, item, rating);
    }
    Ok(())
}

/// Netflix prize style: `MOVIE:` lines, each followed by `user,rating[,date]` lines.
fn netflix<R: BufRead>(lines: &mut Lines<'_, R>, out: &mut RawRatings) -> Result<()> {
    let mut movie = None;
    while let Some(line) = lines.next()? {
        if line.is_blank() {
            continue;
        }
        let text = line.text.trim_ascii();
        if let Some(id) = text.strip_suffix(b":") {
            movie = Some(line.unsigned("movie id", id)?);
            continue;
        }
        let Some(item) = movie else {
            return Err(line.error("a rating before the first 'MOVIE:' line"));
        };
        let (f, n) = split::<3>(text, Sep::Comma);
        if !(2..=3).contains(&n) {
            let found = if n > 3 { "more".to_string() } else { n.to_string() };
            return Err(line.error(format_args!("expected 'user,rating' or 'user,rating,date', found {found} fields")));
        }
        let user = line.unsigned("user id", f[0])?;
        let rating = line.rating(f[1], false)?;
        if n == 3 && f[2].trim_ascii().is_empty() {
            return Err(line.error("the date is empty"));
        }
        out.push(user, item, rating);
    }
    Ok(())
}

/// Matrix Market coordinate `real` or `integer` `general`, with the size line's bounds and
/// count checked.
fn matrix_market<R: BufRead>(lines: &mut Lines<'_, R>, out: &mut RawRatings) -> Result<()> {
    let Some(banner) = lines.next()? else {
        return Err(MfError::file(lines.name, "empty: no Matrix Market banner"));
    };
    let words: Vec<Vec<u8>> = banner
        .text
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let words: Vec<&[u8]> = words.iter().map(Vec::as_slice).collect();
    let integer = match words.as_slice() {
        [b"%%matrixmarket", b"matrix", b"coordinate", field, b"general"] => match *field {
            b"real" | b"double" => false,
            b"integer" => true,
            b"pattern" => {
                return Err(banner.error("a 'pattern' matrix has no values; ratings need 'real' or 'integer'"))
            }
            f => return Err(banner.error(format_args!("field '{}': ratings need 'real' or 'integer'", show(f)))),
        },
        [b"%%matrixmarket", b"matrix", b"coordinate", _, symmetry] => {
            return Err(banner
                .error(format_args!("symmetry '{}': a rating matrix is 'general' (users × items)", show(symmetry))))
        }
        [b"%%matrixmarket", b"matrix", b"array", ..] => {
            return Err(banner.error("a dense (array) matrix; ratings are a sparse 'coordinate' matrix"))
        }
        _ => return Err(banner.error("expected the banner '%%MatrixMarket matrix coordinate real|integer general'")),
    };
    let skip = |l: &Line<'_>| l.is_blank() || l.text.starts_with(b"%");
    let (rows, cols, nnz) = loop {
        let Some(line) = lines.next()? else {
            return Err(lines.end_error("no size line 'rows columns entries'"));
        };
        if skip(&line) {
            continue;
        }
        let (f, n) = split::<3>(line.text, Sep::Space);
        if n != 3 {
            return Err(line.error("expected the size line 'rows columns entries'"));
        }
        break (
            line.unsigned("row count", f[0])?,
            line.unsigned("column count", f[1])?,
            line.unsigned("entry count", f[2])?,
        );
    };
    let reserve = nnz.min(RESERVE) as usize;
    out.users.reserve(reserve);
    out.items.reserve(reserve);
    out.values.reserve(reserve);
    let mut read = 0u64;
    while let Some(line) = lines.next()? {
        if skip(&line) {
            continue;
        }
        if read == nnz {
            return Err(line.error(format_args!("more entries than the {nnz} the size line declares")));
        }
        let (f, n) = split::<3>(line.text, Sep::Space);
        if n != 3 {
            let found = if n > 3 { "more".to_string() } else { n.to_string() };
            return Err(line.error(format_args!("expected 3 fields 'row column value', found {found}")));
        }
        let row = line.unsigned("row", f[0])?;
        let col = line.unsigned("column", f[1])?;
        if row == 0 || row > rows {
            return Err(line.error(format_args!("row {row} outside 1..={rows}, the size line's")));
        }
        if col == 0 || col > cols {
            return Err(line.error(format_args!("column {col} outside 1..={cols}, the size line's")));
        }
        out.push(row, col, line.rating(f[2], integer)?);
        read += 1;
    }
    if read != nnz {
        return Err(lines.end_error(format_args!("{read} entries; the size line declares {nnz}")));
    }
    Ok(())
}

/// A field as an error shows it: printable, on one line, at most 40 characters.
fn show(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    let mut shown: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().nth(40).is_some() {
        shown.push('…');
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(format: Format, text: &str) -> Result<RawRatings> {
        decode(text.as_bytes(), format, Path::new("r.txt"))
    }

    fn triples(raw: &RawRatings) -> Vec<(u64, u64, f32)> {
        (0..raw.len()).map(|i| (raw.users[i], raw.items[i], raw.values[i])).collect()
    }

    fn err(format: Format, text: &str) -> String {
        let e = read(format, text).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn every_format_reads_its_sample() {
        let want = vec![(196, 242, 3.0), (186, 302, 3.5), (u64::MAX, 1 << 40, 1.0)];
        let max = u64::MAX;
        let samples = [
            (Format::MovieLens, format!("196\t242\t3\t881250949\r\n186\t302\t3.5\t891717742\n\n{max}\t{}\t1\t0", 1u64 << 40)),
            (Format::MovieLensDat, format!("196::242::3::881250949\n186::302::3.5::891717742\r\n{max}::1099511627776::1::0\n")),
            (Format::MovieLensCsv, format!("userId,movieId,rating,timestamp\r\n196,242,3.0,881250949\n186,302,3.5,891717742\n{max},1099511627776,1,0\n")),
            (Format::Libmf, format!("\u{feff}# a comment\n196 242 3\n  186\t302  3.5  \n\n   # indented\n{max} 1099511627776 1e0\n")),
            (Format::MatrixMarket, format!("%%MatrixMarket matrix coordinate real general\n% made by hand\n{max} {max} 3\n196 242 3\n% between\n186 302 3.5\r\n{max} 1099511627776 1\n")),
        ];
        for (format, text) in samples {
            assert_eq!(triples(&read(format, &text).unwrap()), want, "{format}");
        }
        let netflix = "1:\r\n1488844,3,2005-09-06\n822109,5\n\n2:\n1488844,4,2005-01-01\n";
        assert_eq!(
            triples(&read(Format::Netflix, netflix).unwrap()),
            vec![(1488844, 1, 3.0), (822109, 1, 5.0), (1488844, 2, 4.0)]
        );
        let ints = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 -4\n";
        assert_eq!(triples(&read(Format::MatrixMarket, ints).unwrap()), vec![(2, 1, -4.0)]);
    }

    #[test]
    fn each_bad_field_is_one_error_naming_its_line() {
        use Format::*;
        let cases: &[(Format, &str, &str)] = &[
            (Libmf, "1 2 3\n-3 2 1\n", "r.txt: line 2: user id -3 is negative: ids are unsigned integers"),
            (Libmf, "1 2.5 3\n", "r.txt: line 1: item id '2.5' is not an unsigned integer"),
            (
                Libmf,
                "18446744073709551616 1 1\n",
                "r.txt: line 1: user id 18446744073709551616 is larger than 18446744073709551615, the largest id",
            ),
            (Libmf, "1 2\n", "r.txt: line 1: expected 3 fields 'user item rating', found 2"),
            (Libmf, "1 2 3 4\n", "r.txt: line 1: expected 3 fields 'user item rating', found more"),
            (Libmf, "1 2 NaN\n", "r.txt: line 1: rating 'NaN' is not a finite number"),
            (Libmf, "1 2 inf\n", "r.txt: line 1: rating 'inf' is not a finite number"),
            (Libmf, "1 2 1e39\n", "r.txt: line 1: rating '1e39' is not a finite number"),
            (Libmf, "1 2 three\n", "r.txt: line 1: rating 'three' is not a number"),
            (Libmf, "1 2 \u{7}x\u{1b}\n", "r.txt: line 1: rating '\\u{7}x\\u{1b}' is not a number"),
            (Libmf, "", "r.txt: no ratings (read as libmf)"),
            (Libmf, "# only\n\n", "r.txt: no ratings (read as libmf)"),
            (
                MovieLens,
                "1\t2\t3\n",
                "r.txt: line 1: expected 4 fields 'user item rating timestamp' (tab separated), found 3",
            ),
            (MovieLens, "1\t2\t3\t-5\n", "r.txt: line 1: timestamp -5 is negative: ids are unsigned integers"),
            (MovieLensDat, "1::2::3\n", "r.txt: line 1: expected 4 fields 'user::item::rating::timestamp', found 3"),
            (MovieLensDat, "1::2:::3::4\n", "r.txt: line 1: rating ':3' is not a number"),
            (MovieLensCsv, "userId,movieId,rating,timestamp\n1,,3,4\n", "r.txt: line 2: the item id is empty"),
            (MovieLensCsv, "userId,movieId,rating,timestamp\n", "r.txt: no ratings (read as ratings.csv)"),
            (MovieLensCsv, "1,2,3,4\nu,2,3,4\n", "r.txt: line 2: user id 'u' is not an unsigned integer"),
            (Netflix, "1488844,3,2005-09-06\n", "r.txt: line 1: a rating before the first 'MOVIE:' line"),
            (Netflix, "x:\n", "r.txt: line 1: movie id 'x' is not an unsigned integer"),
            (Netflix, "1:\n5\n", "r.txt: line 2: expected 'user,rating' or 'user,rating,date', found 1 fields"),
            (Netflix, "1:\n5,3,\n", "r.txt: line 2: the date is empty"),
            (Netflix, "1:\n2:\n", "r.txt: no ratings (read as netflix)"),
        ];
        for (format, text, want) in cases {
            assert_eq!(err(*format, text), *want, "{format} {text:?}");
        }
    }

    #[test]
    fn matrix_market_checks_its_banner_sizes_and_count() {
        let head = "%%MatrixMarket matrix coordinate real general\n";
        let e = |body: &str| err(Format::MatrixMarket, &format!("{head}{body}"));
        assert_eq!(e("3 4 1\n4 1 1\n"), "r.txt: line 3: row 4 outside 1..=3, the size line's");
        assert_eq!(e("3 4 1\n1 0 1\n"), "r.txt: line 3: column 0 outside 1..=4, the size line's");
        assert_eq!(e("3 4 1\n1 1 1\n2 2 2\n"), "r.txt: line 4: more entries than the 1 the size line declares");
        assert_eq!(e("3 4 3\n1 1 1\n2 2 2\n"), "r.txt: line 4: 2 entries; the size line declares 3");
        assert_eq!(e("3 4 0\n"), "r.txt: no ratings (read as mm)");
        assert_eq!(e("% only comments\n"), "r.txt: line 2: no size line 'rows columns entries'");
        assert_eq!(e("3 4\n"), "r.txt: line 2: expected the size line 'rows columns entries'");
        assert_eq!(e("3 4 1\n1 1\n"), "r.txt: line 3: expected 3 fields 'row column value', found 2");
        let m = |text: &str| err(Format::MatrixMarket, text);
        assert_eq!(m(""), "r.txt: empty: no Matrix Market banner");
        assert_eq!(
            m("%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n"),
            "r.txt: line 1: a 'pattern' matrix has no values; ratings need 'real' or 'integer'"
        );
        assert_eq!(
            m("%%MatrixMarket matrix coordinate real symmetric\n"),
            "r.txt: line 1: symmetry 'symmetric': a rating matrix is 'general' (users × items)"
        );
        assert_eq!(
            m("%%MatrixMarket matrix array real general\n"),
            "r.txt: line 1: a dense (array) matrix; ratings are a sparse 'coordinate' matrix"
        );
        assert_eq!(
            m("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n"),
            "r.txt: line 3: rating '2.5' is not an integer (the field is 'integer')"
        );
        assert_eq!(
            m("1 2 3\n"),
            "r.txt: line 1: expected the banner '%%MatrixMarket matrix coordinate real|integer general'"
        );
        // A huge declared count reserves no more than RESERVE ahead.
        let huge = format!("{head}9 9 18446744073709551615\n1 1 1\n");
        assert!(m(&huge).ends_with("1 entries; the size line declares 18446744073709551615"));
    }

    #[test]
    fn long_fields_are_cut_short_in_errors() {
        let long = "9".repeat(100);
        let e = err(Format::Libmf, &format!("{long}x 1 1\n"));
        assert_eq!(e, format!("r.txt: line 1: user id '{}…' is not an unsigned integer", "9".repeat(40)));
    }
}
