//! `FakeHost`: the host for native tests. Files live in memory, time is virtual (a 1 s + 2 s +
//! 4 s backoff takes no real time), HTTP answers come from a script and every request, hub frame,
//! event and log line is recorded for assertions.
//!
//! [`FakeHost::run`] drives a future to completion: it polls, and whenever nothing can make
//! progress it moves the clock to the next timer. Nothing to run and no timer left is a deadlock
//! and panics with what was pending.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use crate::event::Event;
use crate::host::Host;
use crate::host_types::{HostError, HttpBody, HttpRequest, HttpResponse, LogLevel, Millis};
use crate::lean::fold_case;
use crate::llm::ContentBlock;
use crate::mcp::{McpError, McpServer, McpState};
use crate::vault::VaultEntry;

/// The core's parts that tests, fuzz targets and benches exercise directly (parsers, plans,
/// limits), beyond the API in the crate root. Only with the `testing` feature.
pub mod internals {
    pub use crate::api::config::{listeners, Listener};
    pub use crate::api::BODY_LIMIT;
    pub use crate::approval::{APPROVAL_TIMEOUT_MS, SESSION_GRANT_MS};
    pub use crate::bounded::{MAX_INBOX_BYTES, MAX_INDEX_BYTES, MAX_LOG_BYTES};
    pub use crate::conversation::log::parse_log;
    pub use crate::conversation::metadata::{
        log_path, parse_index, ConversationIndex, Quarantined, INDEX_PATH, QUARANTINE_PATH,
    };
    pub use crate::hub::frames::{parse_inbound, Inbound};
    pub use crate::llm::sse::{SseError, SseEvent, SseParser};
    pub use crate::message::parse_routed;
    pub use crate::schedule::{plan, ScheduleRequest};
    pub use crate::time::{format_iso, parse_iso};
    pub use crate::tools::args::Args;
    pub use crate::tools::ToolRegistry;
    pub use crate::vault::diff::content_hash;
    pub use crate::vault::path::{is_protected, normalize, protected_folders, PathError};
    pub use crate::vault::real::{locate, Access};
}

/// Longest file name the fake disk takes, in bytes (ext4, APFS, NTFS: 255).
const MAX_NAME_BYTES: usize = 255 - 20;

/// Virtual time when a `FakeHost` starts: 2026-02-05T10:00:00Z.
pub const START_MS: Millis = 1_770_285_600_000;

/// How a scripted response body ends.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyEnd {
    /// Normally.
    Close,
    /// The connection breaks (a read error).
    Reset,
    /// It never ends.
    Hang,
    /// Its last chunk comes again and again, for ever (a server that never ends its answer).
    RepeatLast,
}

/// One scripted answer to an HTTP request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A model answer, rendered as SSE when the request streams and as JSON otherwise.
    Answer { blocks: Vec<ContentBlock>, stop_reason: String, delta_delay_ms: Millis },
    /// An HTTP error with an Anthropic error body.
    Error { status: u16, error_type: String, headers: Vec<(String, String)> },
    /// A streamed text answer that sends `deltas` deltas of `text` and then breaks.
    ResetAfter { text: String, deltas: usize },
    /// A stream whose body is exactly these chunks.
    Raw { status: u16, chunks: Vec<String>, end: BodyEnd },
    /// The request fails before any response (refused, DNS).
    NetworkError,
    /// The request is never answered.
    Hang,
    /// A redirect (`status` 301/302/307/308) to `location`, with no body.
    Redirect { status: u16, location: String },
    /// An HTTP error whose body is exactly `body` (a server echoing what it was sent).
    ErrorBody { status: u16, body: String },
}

impl Reply {
    /// A streamed text answer that never ends: `piece` again and again.
    pub fn endless(piece: &str) -> Self {
        let mut chunks = answer_events(&[ContentBlock::text(piece)], "end_turn");
        chunks.truncate(3);
        Reply::Raw { status: 200, chunks, end: BodyEnd::RepeatLast }
    }

    /// A text answer.
    pub fn text(text: &str) -> Self {
        Reply::Answer { blocks: vec![ContentBlock::text(text)], stop_reason: "end_turn".into(), delta_delay_ms: 0 }
    }

    /// A text answer streamed slowly: `delay_ms` before each delta.
    pub fn slow_text(text: &str, delay_ms: Millis) -> Self {
        Reply::Answer {
            blocks: vec![ContentBlock::text(text)],
            stop_reason: "end_turn".into(),
            delta_delay_ms: delay_ms,
        }
    }

    /// An answer that calls tools (`(id, name, input)`), optionally after some text.
    pub fn tools(text: &str, calls: &[(&str, &str, Value)]) -> Self {
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(ContentBlock::text(text));
        }
        for (id, name, input) in calls {
            blocks.push(ContentBlock::ToolUse { id: (*id).into(), name: (*name).into(), input: input.clone() });
        }
        Reply::Answer { blocks, stop_reason: "tool_use".into(), delta_delay_ms: 0 }
    }

    /// An answer with the given stop reason.
    pub fn with_stop(blocks: Vec<ContentBlock>, stop_reason: &str) -> Self {
        Reply::Answer { blocks, stop_reason: stop_reason.into(), delta_delay_ms: 0 }
    }

    /// A request that is never answered.
    pub fn hang() -> Self {
        Reply::Hang
    }

    /// An HTTP error.
    pub fn error(status: u16, error_type: &str) -> Self {
        Reply::Error { status, error_type: error_type.into(), headers: Vec::new() }
    }

    /// An HTTP error with headers (`retry-after`…).
    pub fn error_with(status: u16, error_type: &str, headers: &[(&str, &str)]) -> Self {
        Reply::Error {
            status,
            error_type: error_type.into(),
            headers: headers.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect(),
        }
    }
}

/// The SSE text of one event.
pub fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// Renders a scripted answer as the events of a stream.
fn answer_events(blocks: &[ContentBlock], stop_reason: &str) -> Vec<String> {
    let mut events = vec![sse(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": "fake"}}),
    )];
    for (index, block) in blocks.iter().enumerate() {
        match block {
            ContentBlock::Text { text } => {
                events.push(sse("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                let chars: Vec<char> = text.chars().collect();
                for piece in chars.chunks(5) {
                    let piece: String = piece.iter().collect();
                    events.push(sse("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}})));
                }
            }
            ContentBlock::ToolUse { id, name, input } => {
                events.push(sse("content_block_start", &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}})));
                let json_text = input.to_string();
                let mut half = json_text.len() / 2;
                while !json_text.is_char_boundary(half) {
                    half += 1;
                }
                let (a, b) = json_text.split_at(half);
                for piece in ["", a, b] {
                    events.push(sse("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})));
                }
            }
            ContentBlock::ToolResult { .. }
            | ContentBlock::Image { .. }
            | ContentBlock::Document { .. }
            | ContentBlock::Attachment { .. } => continue,
        }
        events.push(sse("content_block_stop", &json!({"type": "content_block_stop", "index": index})));
    }
    events.push(sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 5}}),
    ));
    events.push(sse("message_stop", &json!({"type": "message_stop"})));
    events
}

/// Renders a scripted answer in the OpenAI Chat Completions format: streamed chunks ending in
/// `[DONE]` (text in pieces, each tool call's arguments in two), or one JSON body.
fn chat_completion(blocks: &[ContentBlock], stop_reason: &str, stream: bool) -> Vec<String> {
    let finish = match stop_reason {
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        _ => "stop",
    };
    let text: String = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let calls: Vec<(&str, &str, String)> = blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input.to_string())),
            _ => None,
        })
        .collect();
    let usage = json!({"prompt_tokens": 0, "completion_tokens": 5});
    if !stream {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(
                |(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}),
            )
            .collect();
        let mut message = json!({"role": "assistant", "content": text});
        if !tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(tool_calls);
        }
        let body = json!({"id": "chatcmpl-fake", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage});
        return vec![body.to_string()];
    }
    let data = |chunk: Value| format!("data: {chunk}\n\n");
    let delta = |d: Value| {
        data(
            json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d, "finish_reason": null}]}),
        )
    };
    let mut out = vec![delta(json!({"role": "assistant", "content": ""}))];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(5) {
        out.push(delta(json!({"content": piece.iter().collect::<String>()})));
    }
    for (index, (id, name, args)) in calls.iter().enumerate() {
        let mut half = args.len() / 2;
        while !args.is_char_boundary(half) {
            half += 1;
        }
        let (a, b) = args.split_at(half);
        out.push(delta(json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": a}}]})));
        out.push(delta(json!({"tool_calls": [{"index": index, "function": {"arguments": b}}]})));
    }
    out.push(data(json!({"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})));
    out.push(data(json!({"id": "chatcmpl-fake", "choices": [], "usage": usage})));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

/// A request the host received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub at_ms: Millis,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl RecordedRequest {
    /// A header value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// File operations that can be made to fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    Read,
    WriteAtomic,
    Append,
    Remove,
    Rename,
    List,
}

/// Decides, event by event, whether the simulated crash happens now.
type CrashPoint = Box<dyn FnMut(&Event) -> bool>;

#[derive(Default)]
struct Timers {
    next_id: u64,
    /// id → deadline.
    pending: BTreeMap<u64, Millis>,
    wakers: BTreeMap<u64, Waker>,
}

#[derive(Default)]
struct State {
    now: Cell<Millis>,
    /// Virtual time each reading of the clock by the core costs (a slow machine), 0 by default.
    clock_step: Cell<Millis>,
    /// Virtual time listing the vault takes (a big vault on a slow disk), 0 by default.
    list_ms: Cell<Millis>,
    /// Virtual time a listing takes to arrive after it was made, others running meanwhile (the
    /// vault may change under it), 0 by default.
    list_arrives_ms: Cell<Millis>,
    rng: Cell<u64>,
    timers: RefCell<Timers>,
    files: RefCell<BTreeMap<String, String>>,
    script: RefCell<VecDeque<Reply>>,
    /// Replies kept for requests whose body contains a text, used before the queue.
    matching: RefCell<Vec<(String, Reply)>>,
    /// Replies given to every request whose body contains the first text and not the second.
    until: RefCell<Vec<(String, String, Reply)>>,
    requests: RefCell<Vec<RecordedRequest>>,
    hub: RefCell<Vec<Value>>,
    /// Hub sockets asked for: (socket, url, still open).
    hub_sockets: RefCell<Vec<(u64, String, bool)>>,
    events: RefCell<Vec<Event>>,
    logs: RefCell<Vec<(LogLevel, String)>>,
    failing: RefCell<Vec<(FileOp, String)>>,
    file_ops: Cell<u64>,
    reads: RefCell<Vec<String>>,
    /// Paths of `.smarthole/` that are not regular files (a FIFO…), with their kind.
    special: RefCell<BTreeMap<String, String>>,
    /// Sizes a test claims for files (a 600 MB file without 600 MB of memory).
    sizes: RefCell<BTreeMap<String, u64>>,
    /// The vault: notes (path → text, created, modified), folders, the trash, the open note.
    vault: RefCell<BTreeMap<String, (String, Millis, Millis)>>,
    folders: RefCell<Vec<String>>,
    /// Files that are not text (images, PDFs): listed with the notes, read only as bytes.
    binary: RefCell<BTreeMap<String, Vec<u8>>>,
    /// The exact bytes of notes that are not valid UTF-8 (their text in `vault` is the lossy
    /// decoding a host gives, U+FFFD for each bad sequence), until a write replaces them.
    raw: RefCell<BTreeMap<String, Vec<u8>>>,
    /// Whether a note's text leaves out a leading byte order mark (Obsidian's `Vault.read`).
    strips_bom: Cell<bool>,
    trash: RefCell<Vec<(String, String)>>,
    active: RefCell<Option<String>>,
    /// What `scale_image` answers (none: a host that cannot scale), and what it was asked:
    /// (media type, longest side, most bytes).
    scaled_image: RefCell<Option<Vec<u8>>>,
    scale_requests: RefCell<Vec<(String, u32, u64)>>,
    /// Links and special files (with the text a followed linked file reads as), and every
    /// operation the core asked on or through one of them.
    unusual: RefCell<Vec<(VaultEntry, Option<String>)>>,
    unusual_touches: RefCell<Vec<String>>,
    /// Whether the last listing was asked to follow folders linked from outside.
    followed: Cell<bool>,
    /// The user's time zone (UTC unless a test sets one).
    time_zone: RefCell<Option<String>>,
    /// MCP servers, the scripted answers of their tools ("server/tool" → answers in order), and
    /// the calls made.
    mcp: RefCell<Vec<McpServer>>,
    mcp_replies: RefCell<Vec<(String, Result<Value, McpError>)>>,
    mcp_calls: RefCell<Vec<(String, String, Value)>>,
    /// Set when a crash point is reached: from then on nothing reaches disk, network or hub,
    /// as after a SIGKILL, until the test "restarts".
    frozen: Cell<bool>,
    crash_at: RefCell<Option<CrashPoint>>,
    /// Background tasks (`Host::spawn`), polled with the main future.
    tasks: RefCell<Vec<LocalBoxFuture<'static, ()>>>,
    spawned: RefCell<Vec<LocalBoxFuture<'static, ()>>>,
}

/// How far virtual time may run in one `run` before it counts as a hang.
pub const MAX_RUN_MS: Millis = 7 * 24 * 3_600_000;

/// The in-memory host. Clones share everything (a "restart" builds a new processor over a
/// clone, keeping the files).
#[derive(Clone)]
pub struct FakeHost {
    state: Rc<State>,
}

impl Default for FakeHost {
    fn default() -> Self {
        FakeHost::new()
    }
}

impl FakeHost {
    /// A host at [`START_MS`] with no files.
    pub fn new() -> Self {
        let state = State::default();
        state.now.set(START_MS);
        state.rng.set(0x9E37_79B9_7F4A_7C15);
        FakeHost { state: Rc::new(state) }
    }

    /// Queues scripted HTTP answers, used in order.
    pub fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        self.state.script.borrow_mut().extend(replies);
    }

    /// A reply for the next request whose body contains `needle` (a summary call, a
    /// retrospection), taken before the queue so background calls never steal queued replies.
    pub fn script_matching(&self, needle: &str, reply: Reply) {
        self.state.matching.borrow_mut().push((needle.to_owned(), reply));
    }

    /// Answers every request whose body contains `needle` but not `unless` with `reply`, as
    /// often as it comes: a model that asks for a tool until it sees that tool's result, so a
    /// turn that forgot a tool already ran would run it again (and a test would see it).
    pub fn script_until(&self, needle: &str, unless: &str, reply: Reply) {
        self.state.until.borrow_mut().push((needle.to_owned(), unless.to_owned(), reply));
    }

    /// Whether a crash point was reached and the test has not "restarted" yet.
    pub fn is_frozen(&self) -> bool {
        self.state.frozen.get()
    }

    /// Requests whose body contains `needle`.
    pub fn requests_matching(&self, needle: &str) -> Vec<RecordedRequest> {
        self.requests().into_iter().filter(|r| r.body.to_string().contains(needle)).collect()
    }

    /// Scripted answers not used yet.
    pub fn script_left(&self) -> usize {
        self.state.script.borrow().len()
    }

    /// The current virtual time.
    pub fn now(&self) -> Millis {
        self.state.now.get()
    }

    /// Makes every reading of the clock through `Host::now_ms` move it `ms` forward: the core's
    /// own work then takes virtual time, as on a slow machine (deadlines inside a tool call).
    pub fn set_clock_step(&self, ms: Millis) {
        self.state.clock_step.set(ms);
    }

    /// The vault as a listing shows it now.
    fn listing(&self, follow_linked_folders: bool) -> Vec<VaultEntry> {
        let vault = self.state.vault.borrow();
        let binary = self.state.binary.borrow();
        let raw = self.state.raw.borrow();
        let mut folders: Vec<String> = self.state.folders.borrow().clone();
        for path in vault.keys().chain(binary.keys()) {
            let mut parent = path.as_str();
            while let Some((p, _)) = parent.rsplit_once('/') {
                folders.push(p.to_owned());
                parent = p;
            }
        }
        folders.sort();
        folders.dedup();
        let mut out: Vec<VaultEntry> =
            folders.into_iter().map(|path| VaultEntry { path, is_folder: true, ..VaultEntry::default() }).collect();
        out.extend(vault.iter().map(|(path, (text, created, modified))| VaultEntry {
            path: path.clone(),
            is_folder: false,
            size: raw.get(path).map_or(text.len(), Vec::len) as u64,
            created_ms: *created,
            modified_ms: *modified,
            ..VaultEntry::default()
        }));
        out.extend(binary.iter().map(|(path, bytes)| VaultEntry {
            path: path.clone(),
            size: bytes.len() as u64,
            ..VaultEntry::default()
        }));
        out.extend(
            self.state
                .unusual
                .borrow()
                .iter()
                .filter(|(e, _)| follow_linked_folders || e.kind != crate::vault::EntryKind::Linked)
                .map(|(e, _)| e.clone()),
        );
        out
    }

    /// Makes every listing of the vault take `ms` of virtual time (100,000 notes on a slow disk).
    pub fn set_list_ms(&self, ms: Millis) {
        self.state.list_ms.set(ms);
    }

    /// Makes each vault listing arrive `ms` of virtual time after it was made; other work runs,
    /// and the vault may change, meanwhile.
    pub fn set_list_arrives_ms(&self, ms: Millis) {
        self.state.list_arrives_ms.set(ms);
    }

    /// Moves the clock forward, firing due timers.
    pub fn advance(&self, ms: Millis) {
        self.state.now.set(self.state.now.get() + ms);
        self.fire_due();
    }

    fn fire_due(&self) {
        let now = self.state.now.get();
        let mut timers = self.state.timers.borrow_mut();
        let due: Vec<u64> = timers.pending.iter().filter(|(_, at)| **at <= now).map(|(id, _)| *id).collect();
        for id in due {
            timers.pending.remove(&id);
            if let Some(waker) = timers.wakers.remove(&id) {
                waker.wake();
            }
        }
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests.borrow().clone()
    }

    /// Hub sockets the core asked to open, newest last: (socket, url, not closed since).
    pub fn hub_sockets(&self) -> Vec<(u64, String, bool)> {
        self.state.hub_sockets.borrow().clone()
    }

    /// The newest hub socket.
    pub fn last_hub_socket(&self) -> Option<u64> {
        self.state.hub_sockets.borrow().last().map(|(s, _, _)| *s)
    }

    /// Hub frames sent so far, parsed — registrations left out (see `hub_registrations`).
    pub fn hub_frames(&self) -> Vec<Value> {
        self.state.hub.borrow().iter().filter(|f| f["type"] != "registration").cloned().collect()
    }

    /// Registration frames sent so far.
    pub fn hub_registrations(&self) -> Vec<Value> {
        self.state.hub.borrow().iter().filter(|f| f["type"] == "registration").cloned().collect()
    }

    /// Hub responses of one type (`ack`, `reject`, `notification`).
    pub fn hub_responses(&self, kind: &str) -> Vec<Value> {
        self.hub_frames().into_iter().filter(|f| f["payload"]["type"] == kind).collect()
    }

    /// Events emitted so far.
    pub fn events(&self) -> Vec<Event> {
        self.state.events.borrow().clone()
    }

    /// Log lines so far.
    pub fn logs(&self) -> Vec<(LogLevel, String)> {
        self.state.logs.borrow().clone()
    }

    /// Forgets recorded requests, frames, events and logs (not files or the script).
    pub fn clear_records(&self) {
        self.state.requests.borrow_mut().clear();
        self.state.hub.borrow_mut().clear();
        self.state.events.borrow_mut().clear();
        self.state.logs.borrow_mut().clear();
    }

    /// A file's text.
    pub fn file(&self, path: &str) -> Option<String> {
        self.state.files.borrow().get(path).cloned()
    }

    /// Every file path, sorted.
    pub fn paths(&self) -> Vec<String> {
        self.state.files.borrow().keys().cloned().collect()
    }

    /// Paths under a folder.
    pub fn paths_under(&self, dir: &str) -> Vec<String> {
        let prefix = format!("{dir}/");
        self.paths().into_iter().filter(|p| p.starts_with(&prefix)).collect()
    }

    /// Writes a file directly (test setup).
    pub fn put_file(&self, path: &str, text: &str) {
        self.state.files.borrow_mut().insert(path.to_owned(), text.to_owned());
    }

    /// Makes the next operations of a kind on paths starting with `prefix` fail until cleared.
    pub fn fail_files(&self, op: FileOp, prefix: &str) {
        self.state.failing.borrow_mut().push((op, prefix.to_owned()));
    }

    /// File operations performed so far.
    pub fn file_ops(&self) -> u64 {
        self.state.file_ops.get()
    }

    /// Puts a note in the vault (test setup).
    pub fn put_note(&self, path: &str, text: &str) {
        let now = self.now();
        self.state.vault.borrow_mut().insert(path.to_owned(), (text.to_owned(), now, now));
    }

    /// Puts a note whose bytes need not be UTF-8 (test setup): read as text it decodes lossily,
    /// as a host that cannot tell would give it, and `vault_process` writes back what the edit
    /// makes of that text; read as bytes it is exact. [`FakeHost::note_bytes`] tells what is on
    /// disk.
    pub fn put_note_bytes(&self, path: &str, bytes: &[u8]) {
        self.put_note(path, &String::from_utf8_lossy(bytes));
        self.state.raw.borrow_mut().insert(path.to_owned(), bytes.to_vec());
    }

    /// Makes the notes' text (`vault_read`, `vault_process`) leave out a leading byte order mark,
    /// as Obsidian's `Vault.read` does; their bytes keep it.
    pub fn strip_bom_from_text(&self) {
        self.state.strips_bom.set(true);
    }

    /// A note's text as the host gives it.
    fn text_of<'a>(&self, text: &'a str) -> &'a str {
        if self.state.strips_bom.get() {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        }
    }

    /// A note's bytes as they are on disk.
    pub fn note_bytes(&self, path: &str) -> Option<Vec<u8>> {
        let raw = self.state.raw.borrow().get(path).cloned();
        raw.or_else(|| self.note(path).map(String::into_bytes))
    }

    /// Puts a file that is not text (an image, a PDF) in the vault (test setup).
    pub fn put_binary(&self, path: &str, bytes: &[u8]) {
        self.state.binary.borrow_mut().insert(path.to_owned(), bytes.to_vec());
    }

    /// Puts a link or a special file in the vault (test setup): `entry` is what the host lists
    /// (its kind, its real path for a link inside the vault); `text` is what a file inside a
    /// folder linked from outside reads as. Entries of kind `Linked` are listed only when the
    /// core asks to follow linked folders. The core must never hand the host a path on or under
    /// such an entry, except to read a `Linked` one: each time it does is recorded
    /// ([`FakeHost::unusual_touches`]) and answered with an error, as a FIFO would hang.
    pub fn put_unusual(&self, entry: VaultEntry, text: Option<&str>) {
        self.state.unusual.borrow_mut().push((entry, text.map(str::to_owned)));
    }

    /// The operations (`op path`) the core asked on or through a link or special file.
    pub fn unusual_touches(&self) -> Vec<String> {
        self.state.unusual_touches.borrow().clone()
    }

    /// Whether the last `vault_list` was asked to follow folders linked from outside.
    pub fn listed_following(&self) -> bool {
        self.state.followed.get()
    }

    /// Checks a `vault_*` operation against the links and special files: `Ok(Some(text))` for a
    /// read the core may do (a file in a followed linked folder), an error for anything else on
    /// or under one of them (recorded).
    fn through_unusual(&self, op: &str, path: &str) -> Result<Option<String>, HostError> {
        let lower = fold_case(path);
        let unusual = self.state.unusual.borrow();
        let hit = unusual
            .iter()
            .find(|(e, _)| fold_case(&e.path) == lower)
            .or_else(|| unusual.iter().find(|(e, _)| lower.starts_with(&format!("{}/", fold_case(&e.path)))));
        let Some((entry, text)) = hit else { return Ok(None) };
        if op == "read" && entry.kind == crate::vault::EntryKind::Linked && fold_case(&entry.path) == lower {
            if let Some(text) = text {
                return Ok(Some(text.clone()));
            }
        }
        self.state.unusual_touches.borrow_mut().push(format!("{op} {path}"));
        Err(HostError::Io(format!("{path}: the host refuses to {op} through a link or special file")))
    }

    /// Removes a note, as a user or a sync tool would (test setup; no event is sent).
    pub fn remove_note(&self, path: &str) -> bool {
        self.state.raw.borrow_mut().remove(path);
        self.state.vault.borrow_mut().remove(path).is_some()
    }

    /// Renames a note, keeping its dates, as a user would (test setup; no event is sent).
    pub fn rename_note(&self, from: &str, to: &str) -> bool {
        self.move_raw(from, to);
        let mut vault = self.state.vault.borrow_mut();
        match vault.remove(from) {
            Some(note) => {
                vault.insert(to.to_owned(), note);
                true
            }
            None => false,
        }
    }

    /// Carries a note's exact bytes along with a rename.
    fn move_raw(&self, from: &str, to: &str) {
        let mut raw = self.state.raw.borrow_mut();
        if let Some(bytes) = raw.remove(from) {
            raw.insert(to.to_owned(), bytes);
        }
    }

    /// A note's text.
    pub fn note(&self, path: &str) -> Option<String> {
        self.state.vault.borrow().get(path).map(|(t, _, _)| t.clone())
    }

    /// Every note path.
    pub fn notes(&self) -> Vec<String> {
        self.state.vault.borrow().keys().cloned().collect()
    }

    /// What went to the trash: (original path, text).
    pub fn trashed(&self) -> Vec<(String, String)> {
        self.state.trash.borrow().clone()
    }

    /// Folders created.
    pub fn folders(&self) -> Vec<String> {
        self.state.folders.borrow().clone()
    }

    /// Sets the note open in the editor.
    /// Makes the host scale images: every image it is asked to scale becomes `scaled` (a test
    /// gives the picture a real scaler would make).
    pub fn scale_images_to(&self, scaled: &[u8]) {
        *self.state.scaled_image.borrow_mut() = Some(scaled.to_vec());
    }

    /// The images the core asked the host to scale: (media type, longest side, most bytes).
    pub fn scale_requests(&self) -> Vec<(String, u32, u64)> {
        self.state.scale_requests.borrow().clone()
    }

    pub fn set_active_note(&self, path: Option<&str>) {
        *self.state.active.borrow_mut() = path.map(str::to_owned);
    }

    /// Sets the user's IANA time zone.
    pub fn set_time_zone(&self, zone: &str) {
        *self.state.time_zone.borrow_mut() = Some(zone.to_owned());
    }

    /// Adds (or replaces) an MCP server as the shim would report it.
    pub fn put_mcp_server(&self, server: McpServer) {
        let mut servers = self.state.mcp.borrow_mut();
        servers.retain(|s| s.name != server.name);
        servers.push(server);
    }

    /// Queues an answer for the next call of `server`'s `tool`.
    pub fn script_mcp(&self, server: &str, tool: &str, reply: Result<Value, McpError>) {
        self.state.mcp_replies.borrow_mut().push((format!("{server}/{tool}"), reply));
    }

    /// MCP calls made: (server, tool, input).
    pub fn mcp_calls(&self) -> Vec<(String, String, Value)> {
        self.state.mcp_calls.borrow().clone()
    }

    /// Makes `path` (under `.smarthole/`) something that is not a regular file, of `kind`
    /// (`fifo`, `socket`, `device`, `folder`): its size is answered with [`HostError::NotAFile`],
    /// as the real hosts do; reading or appending to it is recorded in
    /// [`FakeHost::unusual_touches`] and refused, as a FIFO would block. Renaming moves it.
    pub fn put_special_file(&self, path: &str, kind: &str) {
        self.state.special.borrow_mut().insert(path.to_owned(), kind.to_owned());
    }

    /// The kind of the special file at `path` under `.smarthole/`, if one is there.
    pub fn special_file(&self, path: &str) -> Option<String> {
        self.state.special.borrow().get(path).cloned()
    }

    /// Every special file under `.smarthole/`: (path, kind).
    pub fn special_files(&self) -> Vec<(String, String)> {
        self.state.special.borrow().iter().map(|(p, k)| (p.clone(), k.clone())).collect()
    }

    /// Refuses to open a special file (recorded), as a real host opening without blocking.
    fn open_regular(&self, op: &str, path: &str) -> Result<(), HostError> {
        if self.special_file(path).is_none() {
            return Ok(());
        }
        self.state.unusual_touches.borrow_mut().push(format!("{op} {path}"));
        Err(HostError::Io(format!("{path}: not a regular file; the host refuses to {op} it")))
    }

    /// Makes `path` exist with `text` but report `bytes` as its size, as a huge file would: a
    /// core that reads it anyway shows up in [`FakeHost::reads`].
    pub fn put_sized_file(&self, path: &str, text: &str, bytes: u64) {
        self.put_file(path, text);
        self.state.sizes.borrow_mut().insert(path.to_owned(), bytes);
    }

    /// Paths read so far, in order (tests check what start-up reads).
    pub fn reads(&self) -> Vec<String> {
        self.state.reads.borrow().clone()
    }

    async fn check(&self, op: FileOp, path: &str) -> Result<(), HostError> {
        self.alive().await;
        self.state.file_ops.set(self.state.file_ops.get() + 1);
        if self.state.failing.borrow().iter().any(|(o, p)| *o == op && path.starts_with(p.as_str())) {
            return Err(HostError::Io(format!("injected {op:?} failure on {path}")));
        }
        // As a real disk: a name over 255 bytes cannot be made (the temporary name of an atomic
        // write is some twenty bytes longer than the file's).
        if path.split('/').any(|name| name.len() > MAX_NAME_BYTES) {
            return Err(HostError::Io(format!("File name too long: {path}")));
        }
        Ok(())
    }

    /// Runs a future to completion in virtual time (background tasks run alongside it).
    pub fn run<F: Future>(&self, fut: F) -> F::Output {
        self.run_until(fut, |_| false).expect("the future was stopped though no event could stop it")
    }

    /// Lets `ms` of virtual time pass, running background tasks.
    pub fn run_for(&self, ms: Millis) {
        self.run(self.sleep(ms));
    }

    /// Background tasks not finished yet.
    pub fn background_tasks(&self) -> usize {
        self.state.tasks.borrow().len() + self.state.spawned.borrow().len()
    }

    /// Polls every background task once; finished ones are dropped.
    fn poll_tasks(&self, cx: &mut Context<'_>) {
        let mut tasks = std::mem::take(&mut *self.state.tasks.borrow_mut());
        tasks.append(&mut self.state.spawned.borrow_mut());
        tasks.retain_mut(|task| task.as_mut().poll(cx).is_pending());
        let mut slot = self.state.tasks.borrow_mut();
        tasks.append(&mut slot);
        *slot = tasks;
    }

    /// Runs a future until it completes (`Some`) or until an emitted event matches `crash_at`
    /// (`None`). At that event the host freezes — no file, network, hub or timer operation
    /// completes after it, as if the process were killed right there — and the future and every
    /// background task are dropped. The host is usable again afterwards, with the files as the
    /// crash left them.
    pub fn run_until<F: Future>(&self, fut: F, crash_at: impl FnMut(&Event) -> bool + 'static) -> Option<F::Output> {
        struct Flag(AtomicBool);
        impl Wake for Flag {
            fn wake(self: Arc<Self>) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        *self.state.crash_at.borrow_mut() = Some(Box::new(crash_at));
        let flag = Arc::new(Flag(AtomicBool::new(true)));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let mut fut = Box::pin(fut);
        let started = self.now();
        let outcome = loop {
            if flag.0.swap(false, Ordering::SeqCst) {
                if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                    break Some(out);
                }
                self.poll_tasks(&mut cx);
            }
            if self.state.frozen.get() {
                break None;
            }
            if flag.0.load(Ordering::SeqCst) || !self.state.spawned.borrow().is_empty() {
                flag.0.store(true, Ordering::SeqCst);
                continue;
            }
            let next = self.state.timers.borrow().pending.values().min().copied();
            match next {
                Some(at) => {
                    assert!(at - started <= MAX_RUN_MS, "virtual time ran for a week without the future finishing");
                    if at > self.state.now.get() {
                        self.state.now.set(at);
                    }
                    self.fire_due();
                }
                None => {
                    panic!("deadlock: the future is pending with no timer left (script left: {})", self.script_left())
                }
            }
        };
        drop(fut);
        self.state.crash_at.borrow_mut().take();
        if self.state.frozen.get() {
            // The process is gone: so is everything it was doing.
            self.state.tasks.borrow_mut().clear();
            self.state.spawned.borrow_mut().clear();
            self.state.timers.borrow_mut().pending.clear();
            self.state.frozen.set(false);
        }
        outcome
    }

    /// After a crash point nothing completes.
    async fn alive(&self) {
        if self.state.frozen.get() {
            std::future::pending::<()>().await;
        }
    }

    fn next_reply(&self, request: &HttpRequest) -> Reply {
        let body = serde_json::from_str(&request.body).unwrap_or(Value::Null);
        self.state.requests.borrow_mut().push(RecordedRequest {
            at_ms: self.now(),
            url: request.url.clone(),
            headers: request.headers.clone(),
            body,
        });
        let until = self.state.until.borrow();
        let standing =
            until.iter().find(|(needle, unless, _)| request.body.contains(needle) && !request.body.contains(unless));
        if let Some((_, _, reply)) = standing {
            return reply.clone();
        }
        drop(until);
        let mut matching = self.state.matching.borrow_mut();
        if let Some(i) = matching.iter().position(|(needle, _)| request.body.contains(needle.as_str())) {
            return matching.remove(i).1;
        }
        drop(matching);
        self.state.script.borrow_mut().pop_front().unwrap_or_else(|| Reply::text("(no scripted reply left)"))
    }
}

/// A virtual-time sleep.
pub struct Sleep {
    host: FakeHost,
    deadline: Millis,
    id: Option<u64>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.host.now() >= self.deadline {
            return Poll::Ready(());
        }
        let host = self.host.clone();
        let mut timers = host.state.timers.borrow_mut();
        let id = match self.id {
            Some(id) => id,
            None => {
                let id = timers.next_id;
                timers.next_id += 1;
                timers.pending.insert(id, self.deadline);
                self.id = Some(id);
                id
            }
        };
        timers.wakers.insert(id, cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let mut timers = self.host.state.timers.borrow_mut();
            timers.pending.remove(&id);
            timers.wakers.remove(&id);
        }
    }
}

/// A scripted response body.
pub struct FakeBody {
    host: FakeHost,
    chunks: VecDeque<Vec<u8>>,
    delay_ms: Millis,
    end: BodyEnd,
}

impl HttpBody for FakeBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, HostError> {
        self.host.alive().await;
        if self.end == BodyEnd::RepeatLast && self.chunks.len() == 1 {
            return Ok(self.chunks.front().cloned());
        }
        match self.chunks.pop_front() {
            Some(chunk) => {
                if self.delay_ms > 0 {
                    self.host.sleep(self.delay_ms).await;
                }
                Ok(Some(chunk))
            }
            None => match self.end {
                BodyEnd::Close => Ok(None),
                BodyEnd::Reset => Err(HostError::Network("connection reset by peer".into())),
                BodyEnd::Hang | BodyEnd::RepeatLast => std::future::pending().await,
            },
        }
    }
}

impl Host for FakeHost {
    type Body = FakeBody;

    fn now_ms(&self) -> Millis {
        let step = self.state.clock_step.get();
        if step > 0 {
            self.state.now.set(self.state.now.get() + step);
        }
        self.now()
    }

    fn sleep(&self, ms: Millis) -> impl Future<Output = ()> {
        Sleep { host: self.clone(), deadline: self.now() + ms, id: None }
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        if !self.state.frozen.get() {
            self.state.spawned.borrow_mut().push(task);
        }
    }

    fn random_u64(&self) -> u64 {
        // xorshift64*: deterministic, so test runs repeat exactly.
        let mut x = self.state.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state.rng.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    async fn read_file(&self, path: &str) -> Result<Option<String>, HostError> {
        self.check(FileOp::Read, path).await?;
        self.open_regular("read", path)?;
        self.state.reads.borrow_mut().push(path.to_owned());
        Ok(self.file(path))
    }

    async fn write_file_atomic(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.check(FileOp::WriteAtomic, path).await?;
        self.state.sizes.borrow_mut().remove(path);
        // Renamed over it: a special file there is replaced, never opened.
        self.state.special.borrow_mut().remove(path);
        self.put_file(path, text);
        Ok(())
    }

    async fn append_file(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.check(FileOp::Append, path).await?;
        self.open_regular("append", path)?;
        self.state.files.borrow_mut().entry(path.to_owned()).or_default().push_str(text);
        Ok(())
    }

    async fn list_dir(&self, dir: &str) -> Result<Vec<String>, HostError> {
        self.check(FileOp::List, dir).await?;
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        Ok(self
            .state
            .files
            .borrow()
            .keys()
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_owned)
            .collect())
    }

    async fn remove_file(&self, path: &str) -> Result<(), HostError> {
        self.check(FileOp::Remove, path).await?;
        self.state.files.borrow_mut().remove(path);
        self.state.special.borrow_mut().remove(path);
        self.state.sizes.borrow_mut().remove(path);
        Ok(())
    }

    async fn rename_file(&self, from: &str, to: &str) -> Result<(), HostError> {
        self.check(FileOp::Rename, from).await?;
        let special = self.state.special.borrow_mut().remove(from);
        if let Some(kind) = special {
            self.state.special.borrow_mut().insert(to.to_owned(), kind);
            return Ok(());
        }
        let mut files = self.state.files.borrow_mut();
        let text = files.remove(from).ok_or_else(|| HostError::Io(format!("{from} does not exist")))?;
        files.insert(to.to_owned(), text);
        let mut sizes = self.state.sizes.borrow_mut();
        sizes.remove(to);
        if let Some(size) = sizes.remove(from) {
            sizes.insert(to.to_owned(), size);
        }
        Ok(())
    }

    async fn file_size(&self, path: &str) -> Result<Option<u64>, HostError> {
        self.check(FileOp::Read, path).await?;
        if let Some(kind) = self.special_file(path) {
            return Err(HostError::not_a_file(path, &kind));
        }
        let Some(text) = self.file(path) else { return Ok(None) };
        Ok(Some(self.state.sizes.borrow().get(path).copied().unwrap_or(text.len() as u64)))
    }

    async fn vault_list(&self, follow_linked_folders: bool) -> Result<Vec<VaultEntry>, HostError> {
        self.alive().await;
        self.advance(self.state.list_ms.get());
        self.state.followed.set(follow_linked_folders);
        let out = self.listing(follow_linked_folders);
        let arrives = self.state.list_arrives_ms.get();
        if arrives > 0 {
            self.sleep(arrives).await;
        }
        Ok(out)
    }

    async fn vault_read(&self, path: &str) -> Result<String, HostError> {
        self.alive().await;
        if let Some(text) = self.through_unusual("read", path)? {
            return Ok(text);
        }
        if self.state.binary.borrow().contains_key(path) {
            return Err(HostError::Io(format!("{path} is not a text file")));
        }
        self.note(path)
            .map(|t| self.text_of(&t).to_owned())
            .ok_or_else(|| HostError::Io(format!("{path} does not exist")))
    }

    async fn vault_read_bytes(&self, path: &str) -> Result<Vec<u8>, HostError> {
        self.alive().await;
        self.through_unusual("read", path)?;
        if let Some(bytes) = self.state.binary.borrow().get(path) {
            return Ok(bytes.clone());
        }
        self.note_bytes(path).ok_or_else(|| HostError::Io(format!("{path} does not exist")))
    }

    async fn vault_create(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.alive().await;
        self.through_unusual("create", path)?;
        if self.state.vault.borrow().contains_key(path) {
            return Err(HostError::Io(format!("{path} already exists")));
        }
        self.put_note(path, text);
        Ok(())
    }

    async fn vault_process(&self, path: &str, edit: crate::host_types::NoteEdit) -> Result<bool, HostError> {
        self.alive().await;
        self.through_unusual("process", path)?;
        let now = self.now();
        let mut vault = self.state.vault.borrow_mut();
        let entry = vault.get_mut(path).ok_or_else(|| HostError::Io(format!("{path} does not exist")))?;
        match edit(self.text_of(&entry.0)) {
            Some(text) => {
                entry.0 = text;
                entry.2 = now;
                self.state.raw.borrow_mut().remove(path);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    async fn vault_append(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.alive().await;
        self.through_unusual("append", path)?;
        let now = self.now();
        let mut vault = self.state.vault.borrow_mut();
        let entry = vault.get_mut(path).ok_or_else(|| HostError::Io(format!("{path} does not exist")))?;
        entry.0.push_str(text);
        entry.2 = now;
        if let Some(bytes) = self.state.raw.borrow_mut().get_mut(path) {
            bytes.extend_from_slice(text.as_bytes());
        }
        Ok(())
    }

    async fn vault_create_folder(&self, path: &str) -> Result<(), HostError> {
        self.alive().await;
        self.through_unusual("create-folder", path)?;
        self.state.folders.borrow_mut().push(path.to_owned());
        Ok(())
    }

    async fn vault_trash(&self, path: &str) -> Result<(), HostError> {
        self.alive().await;
        self.through_unusual("trash", path)?;
        let (text, _, _) = self
            .state
            .vault
            .borrow_mut()
            .remove(path)
            .ok_or_else(|| HostError::Io(format!("{path} does not exist")))?;
        self.state.raw.borrow_mut().remove(path);
        self.state.trash.borrow_mut().push((path.to_owned(), text));
        Ok(())
    }

    async fn vault_rename(&self, from: &str, to: &str) -> Result<(), HostError> {
        self.alive().await;
        self.through_unusual("rename", from)?;
        self.through_unusual("rename", to)?;
        let mut vault = self.state.vault.borrow_mut();
        if vault.contains_key(to) {
            return Err(HostError::Io(format!("{to} already exists")));
        }
        let entry = vault.remove(from).ok_or_else(|| HostError::Io(format!("{from} does not exist")))?;
        vault.insert(to.to_owned(), entry);
        self.move_raw(from, to);
        Ok(())
    }

    async fn active_note(&self) -> Option<String> {
        self.state.active.borrow().clone()
    }

    async fn scale_image(
        &self,
        _bytes: &[u8],
        media_type: &str,
        max_side: u32,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, HostError> {
        self.alive().await;
        self.state.scale_requests.borrow_mut().push((media_type.to_owned(), max_side, max_bytes));
        Ok(self.state.scaled_image.borrow().clone())
    }

    fn cron_next(&self, expression: &str, time_zone: &str, after_ms: Millis) -> Result<Option<Millis>, String> {
        use croner::parser::{CronParser, Seconds};
        let zone: chrono_tz::Tz = time_zone.parse().map_err(|_| format!("unknown time zone {time_zone:?}"))?;
        let parser = CronParser::builder().seconds(Seconds::Disallowed).build();
        let cron = parser.parse(expression).map_err(|e| e.to_string())?;
        let millis = i64::try_from(after_ms).map_err(|_| "time out of range".to_owned())?;
        let start = chrono::DateTime::from_timestamp_millis(millis).ok_or("time out of range")?.with_timezone(&zone);
        match cron.find_next_occurrence(&start, false) {
            Ok(next) => Ok(u64::try_from(next.timestamp_millis()).ok()),
            Err(croner::errors::CronError::TimeSearchLimitExceeded) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    fn time_zone(&self) -> String {
        self.state.time_zone.borrow().clone().unwrap_or_else(|| "UTC".to_owned())
    }

    async fn mcp_servers(&self) -> Vec<McpServer> {
        self.alive().await;
        self.state.mcp.borrow().clone()
    }

    async fn mcp_call(&self, server: &str, tool: &str, input: &Value) -> Result<Value, McpError> {
        self.alive().await;
        self.state.mcp_calls.borrow_mut().push((server.to_owned(), tool.to_owned(), input.clone()));
        let connected = self.state.mcp.borrow().iter().any(|s| s.name == server && s.state == McpState::Connected);
        if !connected {
            return Err(McpError::NotConnected(server.to_owned()));
        }
        let key = format!("{server}/{tool}");
        let mut replies = self.state.mcp_replies.borrow_mut();
        match replies.iter().position(|(k, _)| *k == key) {
            Some(i) => replies.remove(i).1,
            None => Ok(serde_json::json!({"content": [{"type": "text", "text": format!("{tool} ran")}]})),
        }
    }

    async fn http(&self, request: HttpRequest) -> Result<HttpResponse<FakeBody>, HostError> {
        self.alive().await;
        let reply = self.next_reply(&request);
        let body = |chunks: Vec<String>, delay_ms: Millis, end: BodyEnd| FakeBody {
            host: self.clone(),
            chunks: chunks.into_iter().map(String::into_bytes).collect(),
            delay_ms,
            end,
        };
        let ok = |b: FakeBody| HttpResponse {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: b,
        };
        match reply {
            Reply::Answer { blocks, stop_reason, delta_delay_ms } if request.url.ends_with("/chat/completions") => {
                let chunks = chat_completion(&blocks, &stop_reason, request.stream);
                Ok(ok(body(chunks, delta_delay_ms, BodyEnd::Close)))
            }
            Reply::Answer { blocks, stop_reason, delta_delay_ms } => {
                if request.stream {
                    Ok(ok(body(answer_events(&blocks, &stop_reason), delta_delay_ms, BodyEnd::Close)))
                } else {
                    let json = json!({"id": "msg_fake", "type": "message", "role": "assistant", "content": blocks, "stop_reason": stop_reason, "model": "fake", "usage": {"output_tokens": 5}});
                    Ok(HttpResponse {
                        status: 200,
                        headers: Vec::new(),
                        body: body(vec![json.to_string()], delta_delay_ms, BodyEnd::Close),
                    })
                }
            }
            Reply::Error { status, error_type, headers } => {
                let json =
                    json!({"type": "error", "error": {"type": error_type, "message": format!("scripted {status}")}});
                Ok(HttpResponse { status, headers, body: body(vec![json.to_string()], 0, BodyEnd::Close) })
            }
            Reply::ResetAfter { text, deltas } => {
                let events = answer_events(&[ContentBlock::text(text)], "end_turn");
                // message_start, content_block_start, then the deltas.
                Ok(ok(body(events.into_iter().take(2 + deltas).collect(), 0, BodyEnd::Reset)))
            }
            Reply::Raw { status, chunks, end } => {
                Ok(HttpResponse { status, headers: Vec::new(), body: body(chunks, 0, end) })
            }
            Reply::NetworkError => Err(HostError::Network("connection refused".into())),
            Reply::Hang => std::future::pending().await,
            Reply::Redirect { status, location } => Ok(HttpResponse {
                status,
                headers: vec![("location".into(), location)],
                body: body(Vec::new(), 0, BodyEnd::Close),
            }),
            Reply::ErrorBody { status, body: text } => {
                Ok(HttpResponse { status, headers: Vec::new(), body: body(vec![text], 0, BodyEnd::Close) })
            }
        }
    }

    fn hub_connect(&self, socket: u64, url: &str) {
        if !self.state.frozen.get() {
            self.state.hub_sockets.borrow_mut().push((socket, url.to_owned(), true));
        }
    }

    fn hub_disconnect(&self, socket: u64) {
        for entry in self.state.hub_sockets.borrow_mut().iter_mut().filter(|(s, _, _)| *s == socket) {
            entry.2 = false;
        }
    }

    fn hub_send(&self, socket: u64, frame: String) {
        if self.state.frozen.get() {
            return;
        }
        let open = self.state.hub_sockets.borrow().iter().any(|(s, _, open)| *s == socket && *open);
        if !open {
            return self.log(LogLevel::Warn, &format!("frame on closed hub socket {socket} dropped"));
        }
        let value = serde_json::from_str(&frame).unwrap_or(Value::String(frame));
        self.state.hub.borrow_mut().push(value);
    }

    fn emit(&self, event: &Event) {
        if self.state.frozen.get() {
            return;
        }
        self.state.events.borrow_mut().push(event.clone());
        if let Some(crash_at) = self.state.crash_at.borrow_mut().as_mut() {
            if crash_at(event) {
                self.state.frozen.set(true);
            }
        }
    }

    fn log(&self, level: LogLevel, message: &str) {
        if self.state.frozen.get() {
            return;
        }
        self.state.logs.borrow_mut().push((level, message.to_owned()));
    }
}
