//! The plain values the host boundary speaks: timestamps, log levels, host errors, HTTP requests
//! and responses, note edits. A leaf: it imports nothing from the crate, so every module can use
//! them (`approval`, `time`, `hub::client`…) without depending on the `Host` trait and, through
//! it, on `event` and everything the events carry.

use thiserror::Error;

/// A read-modify-write of a note's text: the new text, or `None` to leave it unchanged.
pub type NoteEdit = Box<dyn Fn(&str) -> Option<String>>;

/// Milliseconds since the Unix epoch, as every timestamp in the core is kept.
pub type Millis = u64;

/// Why a host operation failed. Kept coarse: the core only needs to know what to tell the user
/// and whether a retry can help.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HostError {
    /// A file or folder operation failed (disk full, permissions, a vanished folder).
    #[error("file operation failed: {0}")]
    Io(String),
    /// The request never got a complete answer: refused, reset, timed out, DNS.
    #[error("network failure: {0}")]
    Network(String),
    /// The operation was aborted by the core (cancel, shutdown).
    #[error("aborted")]
    Aborted,
    /// A path of `.smarthole/` is not a regular file (a FIFO, socket, device or folder): the host
    /// never opens one (a FIFO would block the read for good); the core sets it aside.
    #[error("{path} is {what}, not a regular file; it was not opened")]
    NotAFile { path: String, what: String },
}

impl HostError {
    /// The error for a path that is not a regular file, from the kind the host reports (`fifo`,
    /// `socket`, `device`, `folder`; anything else is a special file).
    pub fn not_a_file(path: &str, kind: &str) -> Self {
        let what = match kind {
            "fifo" => "a FIFO (named pipe)",
            "socket" => "a socket",
            "device" => "a device",
            "folder" => "a folder",
            _ => "a special file",
        };
        HostError::NotAFile { path: path.to_owned(), what: what.to_owned() }
    }
}

/// One HTTP request, already fully decided by the core (URL, headers, body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// True when the core will read the body incrementally (SSE); lets a host that cannot stream
    /// (Obsidian's `requestUrl`) know it must buffer.
    pub stream: bool,
}

/// Status line and headers of a response, with a body still to be read.
pub struct HttpResponse<B> {
    pub status: u16,
    /// Header names lower-cased by the host.
    pub headers: Vec<(String, String)>,
    pub body: B,
}

impl<B> HttpResponse<B> {
    /// The first value of a header, by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A response body read chunk by chunk. Dropping it must abort the underlying request, which is
/// how a cancel reaches the network.
#[allow(async_fn_in_trait)]
pub trait HttpBody {
    /// The next chunk, `None` at the end of the body.
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HostError>;
}

/// Severity of a log line; the host decides where it goes (console, file, nowhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    /// Lower-case name, as the JS host receives it.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }
}
