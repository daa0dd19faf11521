//! The lexer of the pattern language (openCypher's MATCH syntax, a subset): splits the text into
//! tokens with their byte ranges, skipping whitespace and `//` and `/* */` comments. Keywords are
//! ordinary identifiers here; the parser matches them case-insensitively. The first bad
//! character, string or number ends the token list with an [`Tok::Error`] token at its
//! position, so the parser reports whichever error comes first in the text.
//!
//! What a bare name may be lives here too: identifier characters and the reserved words
//! ([`RESERVED`]), for the parser that refuses them as variables and for `Display`
//! (`display`) that backquotes them.

/// A token's kind (and, for names and strings, its decoded text).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// An identifier or keyword: `(letter | _) (letter | digit | _)*`.
    Ident(String),
    /// A name in backquotes, with ``` `` ``` decoded to `` ` ``.
    Quoted(String),
    /// Decimal digits (the text is the token's range).
    Int,
    /// Digits with a fraction and/or an exponent (the text is the token's range).
    Float,
    /// A string literal, with its escapes decoded.
    Str(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Colon,
    Comma,
    Dot,
    Semi,
    Star,
    Pipe,
    Amp,
    Bang,
    Minus,
    Lt,
    Gt,
    Le,
    Ge,
    Ne,
    Eq,
    /// The end of the text.
    Eof,
    /// A lexical error: the message; the token's start is its position. Always the last token.
    Error(String),
}

/// A token and its byte range in the text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

/// Words that cannot be a bare variable (write them in backquotes): the keywords of this
/// language and the openCypher clauses and operators it refuses.
pub(crate) const RESERVED: &[&str] = &[
    "AND", "AS", "CALL", "CREATE", "DELETE", "DETACH", "DISTINCT", "FALSE", "LIMIT", "MATCH", "MERGE", "NOT", "NULL",
    "OPTIONAL", "OR", "ORDER", "REMOVE", "RETURN", "SET", "SKIP", "TRUE", "UNION", "UNWIND", "WHERE", "WITH", "XOR",
];

/// Whether `word` is reserved, in any case.
pub(crate) fn is_reserved(word: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(word))
}

/// Whether `c` may start an identifier.
pub(crate) fn ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

/// Whether `c` may continue an identifier.
pub(crate) fn ident_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The tokens of `text`, ending with `Eof` or, at the first lexical error, `Error`.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let mut lexer = Lexer { text, pos: 0 };
    let mut out = Vec::new();
    loop {
        match lexer.next_token() {
            Ok(token) => {
                let eof = token.tok == Tok::Eof;
                out.push(token);
                if eof {
                    return out;
                }
            }
            Err((at, message)) => {
                out.push(Token { tok: Tok::Error(message), start: at, end: at });
                return out;
            }
        }
    }
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

type Lexed<T> = Result<T, (usize, String)>;

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        let mut it = self.text[self.pos..].chars();
        it.next();
        it.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Lexed<()> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') if self.peek2() == Some('/') => {
                    self.pos = self.text[self.pos..].find('\n').map_or(self.text.len(), |i| self.pos + i);
                }
                Some('/') if self.peek2() == Some('*') => {
                    let start = self.pos;
                    match self.text[self.pos + 2..].find("*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => return Err((start, "unterminated comment: '/*' without '*/'".to_string())),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn next_token(&mut self) -> Lexed<Token> {
        self.skip_trivia()?;
        let start = self.pos;
        let Some(c) = self.bump() else {
            return Ok(Token { tok: Tok::Eof, start, end: start });
        };
        let tok = match c {
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            '[' => Tok::LBracket,
            ']' => Tok::RBracket,
            '{' => Tok::LBrace,
            '}' => Tok::RBrace,
            ':' => Tok::Colon,
            ',' => Tok::Comma,
            '.' => Tok::Dot,
            ';' => Tok::Semi,
            '*' => Tok::Star,
            '|' => Tok::Pipe,
            '&' => Tok::Amp,
            '-' => Tok::Minus,
            '<' => match self.peek() {
                Some('=') => self.then(Tok::Le),
                Some('>') => self.then(Tok::Ne),
                _ => Tok::Lt,
            },
            '>' => match self.peek() {
                Some('=') => self.then(Tok::Ge),
                _ => Tok::Gt,
            },
            '=' => match self.peek() {
                Some('=') => return Err((start, "'==' is not an operator; compare with '='".to_string())),
                _ => Tok::Eq,
            },
            '!' => match self.peek() {
                Some('=') => return Err((start, "'!=' is not an operator; write '<>' for not equal".to_string())),
                _ => Tok::Bang,
            },
            '"' | '\'' => Tok::Str(self.string(c, start)?),
            '`' => Tok::Quoted(self.quoted(start)?),
            '$' => return Err((start, "parameters ('$name') are not supported; write the value itself".to_string())),
            c if c.is_ascii_digit() => self.number()?,
            c if ident_start(c) => {
                while self.peek().is_some_and(ident_continue) {
                    self.bump();
                }
                Tok::Ident(self.text[start..self.pos].to_string())
            }
            c => return Err((start, format!("unexpected character {c:?}"))),
        };
        Ok(Token { tok, start, end: self.pos })
    }

    fn then(&mut self, tok: Tok) -> Tok {
        self.bump();
        tok
    }

    /// A string after its opening quote `quote` at `start`.
    fn string(&mut self, quote: char, start: usize) -> Lexed<String> {
        let mut out = String::new();
        loop {
            let at = self.pos;
            match self.bump() {
                None => return Err((start, format!("unterminated string: no closing {quote}"))),
                Some(c) if c == quote => return Ok(out),
                Some('\\') => match self.bump() {
                    Some('"') => out.push('"'),
                    Some('\'') => out.push('\''),
                    Some('\\') => out.push('\\'),
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    None => return Err((start, format!("unterminated string: no closing {quote}"))),
                    Some(c) => {
                        return Err((
                            at,
                            format!("unknown escape '\\{c}' in a string; the escapes are \\\" \\' \\\\ \\n \\t \\r"),
                        ))
                    }
                },
                Some(c) => out.push(c),
            }
        }
    }

    /// A backquoted name after its opening backquote at `start`.
    fn quoted(&mut self, start: usize) -> Lexed<String> {
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err((start, "unterminated name: no closing '`'".to_string())),
                Some('`') if self.peek() == Some('`') => {
                    self.bump();
                    out.push('`');
                }
                Some('`') if out.is_empty() => return Err((start, "empty name in backquotes".to_string())),
                Some('`') => return Ok(out),
                Some(c) => out.push(c),
            }
        }
    }

    /// A number after its first digit.
    fn number(&mut self) -> Lexed<Tok> {
        let digits = |lx: &mut Lexer| {
            while lx.peek().is_some_and(|c| c.is_ascii_digit()) {
                lx.bump();
            }
        };
        digits(self);
        let mut tok = Tok::Int;
        if self.peek() == Some('.') && self.peek2().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            digits(self);
            tok = Tok::Float;
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let after = self.text[self.pos + 1..].chars().next();
            let after2 = self.text[self.pos + 1..].chars().nth(1);
            let exponent = match after {
                Some(c) if c.is_ascii_digit() => true,
                Some('+' | '-') => after2.is_some_and(|c| c.is_ascii_digit()),
                _ => false,
            };
            if exponent {
                self.pos += 2;
                digits(self);
                tok = Tok::Float;
            }
        }
        if let Some(c) = self.peek().filter(|&c| ident_continue(c)) {
            return Err((self.pos, format!("unexpected {c:?} after a number")));
        }
        Ok(tok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Tok> {
        tokenize(text).into_iter().map(|t| t.tok).collect()
    }

    fn error(text: &str) -> (usize, String) {
        match tokenize(text).pop() {
            Some(Token { tok: Tok::Error(m), start, .. }) => (start, m),
            other => panic!("no error for {text:?}: {other:?}"),
        }
    }

    #[test]
    fn punctuation_and_operators() {
        use Tok::*;
        assert_eq!(
            kinds("()[]{}:,.;*|&!-<><=>=<>=<-->"),
            [
                LParen, RParen, LBracket, RBracket, LBrace, RBrace, Colon, Comma, Dot, Semi, Star, Pipe, Amp, Bang,
                Minus, Ne, Le, Ge, Ne, Eq, Lt, Minus, Minus, Gt, Eof
            ]
        );
        assert_eq!(kinds("a.x<-1"), [Ident("a".into()), Dot, Ident("x".into()), Lt, Minus, Int, Eof]);
    }

    #[test]
    fn names_and_ranges() {
        let toks = tokenize("  héllo_1 `a``b c` _x");
        assert_eq!(toks[0], Token { tok: Tok::Ident("héllo_1".into()), start: 2, end: 10 });
        assert_eq!(toks[1], Token { tok: Tok::Quoted("a`b c".into()), start: 11, end: 19 });
        assert_eq!(toks[2].tok, Tok::Ident("_x".into()));
    }

    #[test]
    fn numbers() {
        use Tok::*;
        assert_eq!(kinds("0 12 1.5 2e3 2E+3 7e-2 1.5e10"), [Int, Int, Float, Float, Float, Float, Float, Eof]);
        // "1." and "1.x": an integer, then a dot.
        assert_eq!(kinds("1. 3"), [Int, Dot, Int, Eof]);
        assert_eq!(error("12abc"), (2, "unexpected 'a' after a number".into()));
        assert_eq!(error("2e"), (1, "unexpected 'e' after a number".into()));
        assert_eq!(error("0x1f"), (1, "unexpected 'x' after a number".into()));
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(
            kinds(r#""a\"b" 'c\'d' "\\\n\t\r" "it's" '"'"#)[..5],
            [
                Tok::Str("a\"b".into()),
                Tok::Str("c'd".into()),
                Tok::Str("\\\n\t\r".into()),
                Tok::Str("it's".into()),
                Tok::Str("\"".into()),
            ]
        );
        assert_eq!(kinds("\"two\nlines\"")[0], Tok::Str("two\nlines".into()));
        assert_eq!(error("x = \"abc"), (4, "unterminated string: no closing \"".into()));
        assert_eq!(error("x = 'abc\\"), (4, "unterminated string: no closing '".into()));
        assert_eq!(error("'a\\qb'").0, 2);
    }

    #[test]
    fn comments_and_whitespace() {
        use Tok::*;
        assert_eq!(kinds("( // a comment ) (\n ) /* ( \n */ :"), [LParen, RParen, Colon, Eof]);
        assert_eq!(kinds("a//x"), [Ident("a".into()), Eof]);
        assert_eq!(error("( /* open"), (2, "unterminated comment: '/*' without '*/'".into()));
    }

    #[test]
    fn bad_characters() {
        assert_eq!(error("(a) # x"), (4, "unexpected character '#'".into()));
        assert_eq!(error("a != 1").0, 2);
        assert_eq!(error("a == 1").0, 2);
        assert_eq!(error("a = $p").0, 4);
        assert_eq!(error("``").1, "empty name in backquotes");
        assert_eq!(error("(`abc").0, 1);
        assert_eq!(error("\u{0}"), (0, "unexpected character '\\0'".into()));
        assert_eq!(error("/").1, "unexpected character '/'");
    }
}
