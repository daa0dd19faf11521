//! The error of [`parse`](crate::parse): one message saying what was expected, at a 1-based
//! line and character column of the pattern text, displayed with the offending line and a caret
//! under the column (a window of the line when it is long).

/// The widest part of a line an error shows; longer lines are cut around the column.
const WINDOW: usize = 100;

/// A pattern that does not parse. `line` and `column` are 1-based; `column` counts characters
/// (not bytes) from the start of the line, and is at most the line's length + 1 (one past its
/// end, for "found end of input" or "found end of line").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pattern, line {line}, column {column}: {message}\n{}", snippet(.line_text, .column))]
pub struct PatternError {
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based character column of the error in its line.
    pub column: usize,
    /// Byte offset of the error in the pattern text.
    pub offset: usize,
    /// What was expected (and what was found), or what is not supported.
    pub message: String,
    /// The text of the offending line, without its line break.
    pub line_text: String,
}

impl PatternError {
    /// An error at byte `offset` of `text` (rounded down to a character boundary, clamped to
    /// the text's length).
    pub(crate) fn new(text: &str, offset: usize, message: impl Into<String>) -> PatternError {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = 1 + before.bytes().filter(|&b| b == b'\n').count();
        let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
        let mut line_text = &text[line_start..line_end];
        // In a "\r\n" line break the '\r' is not part of the line: an error on it (or on the '\n')
        // is one past the line's end.
        if line_end < text.len() {
            line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
        }
        let column = (1 + text[line_start..offset].chars().count()).min(1 + line_text.chars().count());
        // One line: control characters (a newline in a name, say) are escaped.
        let message: String = message.into().chars().flat_map(escape_control).collect();
        PatternError { line, column, offset, message, line_text: line_text.to_string() }
    }
}

/// `c`, or its escape if it is a control character.
fn escape_control(c: char) -> Vec<char> {
    if c.is_control() {
        c.escape_debug().collect()
    } else {
        vec![c]
    }
}

/// The offending line (control characters shown as '?'), indented by two spaces, and a caret
/// under `column`; a long line is cut to a window around the column, marked with "...".
fn snippet(line_text: &str, column: &usize) -> String {
    let chars: Vec<char> = line_text.chars().map(|c| if c.is_control() && c != '\t' { '?' } else { c }).collect();
    let col = column.saturating_sub(1).min(chars.len());
    let (start, end) = if chars.len() <= WINDOW {
        (0, chars.len())
    } else {
        let start = col.saturating_sub(WINDOW * 3 / 5).min(chars.len() - WINDOW);
        (start, start + WINDOW)
    };
    let mut shown = String::new();
    if start > 0 {
        shown.push_str("...");
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push_str("...");
    }
    let mut caret: String = if start > 0 { "   ".to_string() } else { String::new() };
    caret.extend(chars[start..col].iter().map(|&c| if c == '\t' { '\t' } else { ' ' }));
    format!("  {shown}\n  {caret}^")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters() {
        let e = PatternError::new("MATCH (é:A)\n  (b) x", 19, "boom");
        assert_eq!((e.line, e.column, e.offset), (2, 7, 19));
        assert_eq!(e.line_text, "  (b) x");
        assert_eq!(e.to_string(), "pattern, line 2, column 7: boom\n    (b) x\n        ^");
    }

    #[test]
    fn offset_inside_a_character_rounds_down() {
        let e = PatternError::new("(é)", 2, "x");
        assert_eq!((e.column, e.offset), (2, 1));
    }

    #[test]
    fn end_of_input_is_one_past_the_line() {
        let e = PatternError::new("MATCH (a", 8, "expected ')'");
        assert_eq!((e.line, e.column), (1, 9));
        assert!(e.to_string().ends_with("  MATCH (a\n          ^"), "{e}");
    }

    #[test]
    fn crlf_line_breaks_are_not_shown() {
        let e = PatternError::new("MATCH\r\n(a) x\r\n", 11, "x");
        assert_eq!((e.line, e.column, e.line_text.as_str()), (2, 5, "(a) x"));
        // On the '\r' or the '\n': one past the end.
        for offset in [12, 13] {
            let e = PatternError::new("MATCH\r\n(a) x\r\n", offset, "x");
            assert_eq!((e.line, e.column, e.line_text.as_str()), (2, 6, "(a) x"));
        }
        // A lone '\r' at the end of the text is part of its line.
        let e = PatternError::new("(a\r", 3, "x");
        assert_eq!((e.column, e.line_text.as_str()), (4, "(a\r"));
    }

    #[test]
    fn tabs_are_kept_under_the_caret_and_controls_hidden() {
        let e = PatternError::new("\t(a)\u{0}x", 5, "x");
        assert_eq!(e.column, 6);
        assert!(e.to_string().ends_with("  \t(a)?x\n  \t    ^"), "{e:?}");
    }

    #[test]
    fn long_lines_show_a_window() {
        let text = format!("{}X{}", "a".repeat(500), "b".repeat(500));
        let e = PatternError::new(&text, 500, "here");
        assert_eq!(e.column, 501);
        let shown = e.to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert!(lines[1].starts_with("  ...a") && lines[1].ends_with("b..."), "{shown}");
        assert!(lines[1].chars().count() < 120);
        let caret = lines[2].chars().count() - 1;
        assert_eq!(lines[1].chars().nth(caret), Some('X'), "{shown}");
        // Near the end of a long line the window ends at the line's end.
        let e = PatternError::new(&text, text.len(), "end");
        let shown = e.to_string();
        let lines: Vec<&str> = shown.lines().collect();
        assert!(lines[1].ends_with('b') && lines[2].ends_with('^'));
        assert_eq!(lines[2].chars().count(), lines[1].chars().count() + 1);
    }
}
