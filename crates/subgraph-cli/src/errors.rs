//! Errors as the command line prints them: on one line, each cause once (`main`'s last word,
//! and `match`'s line for a query that could not run).

/// The error and its causes on one line, each cause once: a library error that already
/// includes its source (an I/O error after the file name) would otherwise repeat it.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}
