//! Error tests: each mistake gives one message at a precise line and column.

use crate::*;

/// The error of `text`, checked to be at `column` (line 1) and to contain `message`.
fn err(text: &str, column: usize, message: &str) -> PatternError {
    let e = match parse(text) {
        Ok(p) => panic!("{text:?} parsed: {p:?}"),
        Err(e) => e,
    };
    assert_eq!((e.line, e.column), (1, column), "{text:?}: {e}");
    assert!(e.message.contains(message), "{text:?}: {:?} lacks {message:?}", e.message);
    e
}

#[test]
fn the_documented_example() {
    let e = err("MATCH (a:Person -[:knows]->(b)", 17, "expected ')' or '{' after the node label, found '-'");
    assert_eq!(
        e.to_string(),
        "pattern, line 1, column 17: expected ')' or '{' after the node label, found '-'\n  \
         MATCH (a:Person -[:knows]->(b)\n                  ^"
    );
}

#[test]
fn unexpected_tokens() {
    err("", 1, "expected MATCH or '(' to start the pattern, found end of input");
    err("MATCH", 6, "expected '(' to start a node, found end of input");
    err("MATCH a", 7, "expected '(' to start a node, found 'a'");
    err("MATCH (a", 9, "expected ':', '{' or ')' after the node variable, found end of input");
    err("MATCH (", 8, "expected a variable, ':', '{' or ')' after '(', found end of input");
    err("MATCH (a {x: 1]", 15, "expected ',' or '}' in the property map, found ']'");
    err("MATCH (a {x 1})", 13, "expected ':' after the property name, found '1'");
    err("MATCH (a {: 1})", 11, "expected a property name or '}', found ':'");
    err(
        "MATCH (a) (b)",
        11,
        "expected '-' or '<-' for a relationship, ',', WHERE, RETURN, ';' or end of input, found '('",
    );
    err("MATCH (a)-(b)", 11, "expected '[' or '-' to continue the relationship, found '('");
    err("MATCH (a)<(b)", 11, "expected '-' after '<', found '('");
    err("MATCH (a)-[:r(b)", 14, "expected ']' after the relationship label, found '('");
    err("MATCH (a)-[:r]>(b)", 15, "expected '-' after ']', found '>'");
    err("MATCH (a)-->", 13, "expected '(' to start a node, found end of input");
    err("MATCH (a), ", 12, "expected '(' to start a node, found end of input");
    err("MATCH (a:)", 10, "expected a label name or a non-negative integer after ':', found ')'");
    err("MATCH (a:-1)", 10, "expected a label name or a non-negative integer after ':', found '-'");
    err("MATCH (a) RETURN a;;", 20, "expected end of input after ';', found ';'");
}

#[test]
fn unknown_keywords() {
    err(
        "MATCH (a) RETRUN a",
        11,
        "expected '-' or '<-' for a relationship, ',', WHERE, RETURN, ';' or end of input, found 'RETRUN'",
    );
    err("MATCH (a) WHER a.x = 1", 11, "found 'WHER'");
    err("MATCH (a) WHERE a.x = 1 RETURNS a", 25, "expected AND, RETURN, ';' or end of input, found 'RETURNS'");
    err("MATCH (a) RETURN a LIMT 1", 20, "expected LIMIT, ';' or end of input, found 'LIMT'");
    err("MATCH (a) RETURN a LIMIT 1 SKIP 2", 28, "SKIP is not supported");
    err("MATCH (a) RETURN DISTINCTa", 18, "variable 'DISTINCTa' is not defined in MATCH");
    err("MATCHX (a)", 1, "expected MATCH or '(' to start the pattern, found 'MATCHX'");
}

#[test]
fn lexical_errors() {
    err("MATCH (a {name: \"Ann})", 17, "unterminated string: no closing \"");
    err("MATCH (a {name: 'Ann\\q'})", 21, "unknown escape '\\q'");
    err("MATCH (a:`Per", 10, "unterminated name");
    err("MATCH (a) # x", 11, "unexpected character '#'");
    err("MATCH (a {x: 12ab})", 16, "unexpected 'a' after a number");
    err("MATCH (a) WHERE a.x != 1", 21, "'!=' is not an operator; write '<>'");
    err("MATCH (a) WHERE a.x = $v", 23, "parameters");
    err("MATCH (a) /* never closed", 11, "unterminated comment");
    // The first error in the text wins, lexical or not.
    err("MATCH (a (b) WHERE a.x = \"open", 10, "expected ':', '{' or ')'");
}

#[test]
fn numbers_out_of_range() {
    err("MATCH (a {x: 9223372036854775808})", 14, "integer 9223372036854775808 does not fit in 64 bits");
    err("MATCH (a {x: -9223372036854775809})", 14, "integer -9223372036854775809 does not fit");
    err("MATCH (a {x: 1e400})", 14, "float 1e400 is out of range");
    err("MATCH (a {x: -1e400})", 14, "float -1e400 is out of range");
    err("MATCH (a:4294967296)", 10, "label id 4294967296 is larger than 4294967295");
    err("MATCH ()-[:99999999999]->()", 12, "label id 99999999999 is larger");
    err("MATCH (a) RETURN a LIMIT 18446744073709551616", 26, "LIMIT 18446744073709551616 does not fit");
    err("MATCH (a) RETURN a LIMIT -1", 26, "expected a non-negative integer after LIMIT, found '-'");
    err("MATCH (a) RETURN a LIMIT 1.5", 26, "expected a non-negative integer after LIMIT, found '1.5'");
}

#[test]
fn unsupported_features() {
    err("MATCH (a) WHERE a.x = 1 OR a.y = 2", 25, "OR is not supported: only AND is supported");
    err("MATCH (a) WHERE a.x = 1 xor a.y = 2", 25, "XOR is not supported: only AND");
    err("MATCH (a) WHERE NOT a.x = 1", 17, "NOT is not supported: only AND");
    err("MATCH (a) WHERE (a.x = 1 OR a.y = 2)", 26, "OR is not supported");
    err("MATCH (a) WHERE (a.x = 1 AND a.y = 2)", 26, "expected ')' (parentheses hold one comparison), found 'AND'");
    err("MATCH (a)-[*]->(b)", 12, "variable-length relationships ('*') are not supported");
    err("MATCH (a)-[:r*1..3]->(b)", 14, "variable-length");
    err("MATCH (a)-[:r|s]->(b)", 14, "multiple relationship types ('|') are not supported");
    err("MATCH (a)-[e {w: 1}]->(b)", 14, "relationship properties are not supported");
    err("MATCH (a)-[:r:s]->(b)", 14, "one label per relationship");
    err("MATCH (a:A|B)", 11, "labels combined by '|' or '&' are not supported: write (a:A:B)");
    err("MATCH (a:A:B&C)", 13, "labels combined by '|' or '&' are not supported");
    err("MATCH (a {x: true})", 14, "booleans are not supported");
    err("MATCH (a) WHERE a.x = NULL", 23, "null is not supported");
    err("MATCH (a {x: [1]})", 14, "lists are not supported");
    err("MATCH (a), (b) WHERE a.x = b.x", 28, "comparing two properties is not supported");
    err("MATCH (a) WHERE 1 = 2", 17, "a comparison needs a property");
    err("MATCH (a) RETURN a.x", 19, "returning properties is not supported");
    err("MATCH (a) RETURN a AS b", 20, "aliases (AS) are not supported");
    err("MATCH (a) RETURN count(a)", 24, "expected '*': only count(*) is supported, found 'a'");
    err("MATCH (a) MATCH (b)", 11, "only one MATCH clause is supported");
    err("MATCH (a) OPTIONAL MATCH (b)", 11, "OPTIONAL is not supported");
    err("MATCH (a) RETURN a ORDER BY a", 20, "ORDER is not supported");
    err("MATCH (a) WITH a", 11, "WITH is not supported");
    err("CREATE (a)", 1, "CREATE is not supported");
}

#[test]
fn variables() {
    err("MATCH (a) WHERE b.x = 1", 17, "variable 'b' is not defined in MATCH");
    err("MATCH (a) RETURN a, b", 21, "variable 'b' is not defined in MATCH");
    err("MATCH (a) RETURN a, a", 21, "'a' is returned twice");
    err("MATCH (a)-[e]->(b) RETURN e", 27, "'e' is a relationship variable; relationships cannot be used in RETURN");
    err("MATCH (a)-[e]->(b) WHERE e.w = 1", 26, "relationships cannot be used in WHERE");
    err("MATCH (a)-[e]->(b)-[e]->(c)", 21, "relationship variable 'e' is used twice");
    err("MATCH (a)-[a]->(b)", 12, "'a' is a node variable");
    err("MATCH (a)-[e]->(e)", 17, "'e' is a relationship variable, not a node's");
    err("MATCH (limit)", 8, "'limit' is a reserved word; write `limit` (in backquotes)");
    err("MATCH (a) WHERE a = 1", 19, "expected '.' and a property name after 'a' (variable.key), found '='");
    err("MATCH (a) WHERE a. = 1", 20, "expected a property name after '.', found '='");
    err("MATCH (a) WHERE a.x 1", 21, "expected a comparison operator (=, <>, <, <=, >, >=), found '1'");
    err("MATCH (a) WHERE a.x IS NULL", 21, "expected a comparison operator");
    err("MATCH (a) WHERE AND a.x = 1", 17, "expected a property (variable.key) or a value, found 'AND'");
    err("MATCH (a) RETURN", 17, "expected '*', count(*) or a variable after RETURN, found end of input");
    err("MATCH (a) RETURN a,", 20, "expected a variable after ',', found end of input");
}

#[test]
fn lines_and_columns_on_later_lines() {
    let e = parse("MATCH (a:Person)\n  -[:knows]->(b),\n\t(b)-[:x|y]->(c)").unwrap_err();
    assert_eq!((e.line, e.column), (3, 9));
    assert_eq!(e.line_text, "\t(b)-[:x|y]->(c)");
    assert!(e.to_string().ends_with("\n  \t(b)-[:x|y]->(c)\n  \t       ^"), "{e}");
    let e = parse("MATCH (é:Ünïcødé)\r\nRETURN z").unwrap_err();
    assert_eq!((e.line, e.column, e.message.as_str()), (2, 8, "variable 'z' is not defined in MATCH"));
    assert!(parse("MATCH (a)\n").is_ok());
}

#[test]
fn too_long() {
    let text = format!("MATCH (a) // {}", "x".repeat(MAX_PATTERN_LEN));
    let e = parse(&text).unwrap_err();
    assert!(e.message.contains("at most 1048576 (1 MiB)"), "{}", e.message);
    assert_eq!((e.line, e.column, e.offset), (1, MAX_PATTERN_LEN + 1, MAX_PATTERN_LEN));
    assert!(e.to_string().lines().nth(1).unwrap().len() < 120);
    // Just under the limit parses.
    let text = format!("MATCH (a) //{}", "x".repeat(MAX_PATTERN_LEN - 12));
    assert_eq!(text.len(), MAX_PATTERN_LEN);
    assert!(parse(&text).is_ok());
}
