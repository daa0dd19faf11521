//! Errors: what a request is answered with when it fails ([`ApiError`], a JSON object of a
//! stable `code` and a message, with its HTTP status), and why the server could not start or a
//! graph could not be loaded ([`ServerError`]).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::path::PathBuf;

/// Every error code a response may carry, with its status: the stable list the OpenAPI file
/// documents.
pub const CODES: &[(&str, u16)] = &[
    ("bad_json", 400),
    ("bad_request", 400),
    ("bad_pattern", 400),
    ("bad_query", 400),
    ("unauthorized", 401),
    ("forbidden", 403),
    ("unknown_graph", 404),
    ("not_found", 404),
    ("method_not_allowed", 405),
    ("reload_in_progress", 409),
    ("not_supervised", 409),
    ("body_too_large", 413),
    ("engine_error", 500),
    ("reload_failed", 500),
    ("internal", 500),
    ("busy", 503),
    ("shutting_down", 503),
    ("device_fault", 503),
];

/// A failed request: its status, stable code and message, and for `busy` and `device_fault`
/// the seconds after which to try again.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub code: &'static str,
    pub message: String,
    pub retry_after: Option<u64>,
}

/// The error code a response carried, for the metrics (set on every error response).
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

#[derive(Serialize)]
struct Body<'a> {
    code: &'a str,
    message: &'a str,
}

impl ApiError {
    /// An error of `code` (one of [`CODES`]).
    pub fn new(code: &'static str, message: impl Into<String>) -> ApiError {
        debug_assert!(CODES.iter().any(|c| c.0 == code), "unlisted error code {code}");
        ApiError { code, message: message.into(), retry_after: None }
    }

    /// The HTTP status of the code.
    pub fn status(&self) -> StatusCode {
        let status = CODES.iter().find(|c| c.0 == self.code).map_or(500, |c| c.1);
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The JSON object of the error, as a response body or a stream's last line.
    pub fn json(&self) -> String {
        serde_json::to_string(&Body { code: self.code, message: &self.message }).expect("strings serialize")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), [(header::CONTENT_TYPE, "application/json")], self.json()).into_response();
        if let Some(secs) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response.extensions_mut().insert(ErrorCode(self.code));
        response
    }
}

/// Why the server could not start, or a graph could not be (re)loaded.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("{file}:{line}: {message}", file = file.display())]
    TokenFile { file: PathBuf, line: usize, message: String },
    #[error("{}: {source}", file.display())]
    Read { file: PathBuf, source: std::io::Error },
    #[error("{file}:{line}: {message}", file = file.display())]
    Config { file: PathBuf, line: usize, message: String },
    #[error("{0}")]
    Settings(String),
    #[error("TLS: {}: {message}", file.display())]
    Tls { file: PathBuf, message: String },
    #[error("graph {name}: {message}")]
    Load { name: String, message: String },
    #[error("graph {name} is named twice")]
    DuplicateGraph { name: String },
    #[error("listening on {addr}: {source}")]
    Listen { addr: String, source: std::io::Error },
    #[error("serving: {0}")]
    Serve(std::io::Error),
}
