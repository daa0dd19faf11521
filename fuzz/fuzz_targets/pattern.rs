//! The inline pattern language (`subgraph_pattern::parse`): any UTF-8 text is an error or a
//! pattern, never a panic or a hang. An error's line and column lie inside the text (the column
//! at most one past its line's end); a pattern prints (`Display`) to a text that parses back to
//! the same pattern.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match subgraph_pattern::parse(text) {
        Ok(p) => {
            let printed = p.to_string();
            let again = subgraph_pattern::parse(&printed)
                .unwrap_or_else(|e| panic!("{text:?} printed as {printed:?}, which does not parse: {e}"));
            assert_eq!(subgraph_pattern::Pattern { text: p.text.clone(), ..again }, p, "printed as {printed:?}");
            let _ = p.column_names();
        }
        Err(e) => {
            let lines: Vec<&str> = text.split('\n').collect();
            assert!(e.line >= 1 && e.line <= lines.len(), "{e:?}");
            let line = lines[e.line - 1];
            let line = if e.line < lines.len() { line.strip_suffix('\r').unwrap_or(line) } else { line };
            assert!(e.column >= 1 && e.column <= line.chars().count() + 1, "{e:?}");
            assert_eq!(e.line_text, line);
            let _ = e.to_string();
        }
    }
});
