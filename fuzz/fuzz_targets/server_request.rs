//! The query server's request decoder (`subgraph_server::request::check`, what the routes do
//! with a match or explain body): a flag byte (bit 0: the data graph directed), then the body.
//! Any bytes give a prepared request or an error, never a panic or a hang: an error is a `400`
//! of a listed code whose JSON object reads back with that code and message; a prepared
//! request's timeout is positive and at most the server's ceiling.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::time::Duration;
use subgraph_server::error::CODES;
use subgraph_server::request::check;

/// The server's `--query-timeout`.
const CEILING: Duration = Duration::from_secs(60);

fuzz_target!(|data: &[u8]| {
    subgraph_fuzz::init();
    let Some((&flags, body)) = data.split_first() else { return };
    match check(body, flags & 1 == 1, CEILING) {
        Ok(p) => {
            assert!(p.timeout > Duration::ZERO && p.timeout <= CEILING, "{:?}", p.timeout);
        }
        Err(e) => {
            assert!(CODES.contains(&(e.code, 400)), "{} is not a 400 code", e.code);
            assert_eq!(e.status().as_u16(), 400);
            let back: serde_json::Value = serde_json::from_str(&e.json()).expect("the error object is JSON");
            assert_eq!(back["code"], e.code);
            assert_eq!(back["message"].as_str(), Some(e.message.as_str()));
        }
    }
});
