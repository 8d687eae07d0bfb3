//! The fake host's state, shared by its clones: the clock and timers, the `.smarthole/` files,
//! the vault, the script of HTTP answers, and everything recorded for assertions.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::task::Waker;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use crate::event::Event;
use crate::host_types::{LogLevel, Millis};
use crate::mcp::{McpError, McpServer};
use crate::vault::VaultEntry;

use super::replies::{RecordedRequest, Reply};

/// Longest file name the fake disk takes, in bytes (ext4, APFS, NTFS: 255).
pub(super) const MAX_NAME_BYTES: usize = 255 - 20;

/// Virtual time when a `FakeHost` starts: 2026-02-05T10:00:00Z.
pub const START_MS: Millis = 1_770_285_600_000;

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
pub(super) type CrashPoint = Box<dyn FnMut(&Event) -> bool>;

#[derive(Default)]
pub(super) struct Timers {
    pub(super) next_id: u64,
    /// id → deadline.
    pub(super) pending: BTreeMap<u64, Millis>,
    pub(super) wakers: BTreeMap<u64, Waker>,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) now: Cell<Millis>,
    /// Virtual time each reading of the clock by the core costs (a slow machine), 0 by default.
    pub(super) clock_step: Cell<Millis>,
    /// Virtual time listing the vault takes (a big vault on a slow disk), 0 by default.
    pub(super) list_ms: Cell<Millis>,
    /// Virtual time a listing takes to arrive after it was made, others running meanwhile (the
    /// vault may change under it), 0 by default.
    pub(super) list_arrives_ms: Cell<Millis>,
    pub(super) rng: Cell<u64>,
    pub(super) timers: RefCell<Timers>,
    pub(super) files: RefCell<BTreeMap<String, String>>,
    /// Files of `.smarthole/` written as bytes (`write_file_atomic_bytes`), apart from the text ones.
    pub(super) byte_files: RefCell<BTreeMap<String, Vec<u8>>>,
    pub(super) script: RefCell<VecDeque<Reply>>,
    /// Replies kept for requests whose body contains a text, used before the queue.
    pub(super) matching: RefCell<Vec<(String, Reply)>>,
    /// Replies given to every request whose body contains the first text and not the second.
    pub(super) until: RefCell<Vec<(String, String, Reply)>>,
    pub(super) requests: RefCell<Vec<RecordedRequest>>,
    /// The scripted embedding server (embedder.rs).
    pub(super) embedder: RefCell<super::replies::Embedder>,
    pub(super) hub: RefCell<Vec<Value>>,
    /// Hub sockets asked for: (socket, url, still open).
    pub(super) hub_sockets: RefCell<Vec<(u64, String, bool)>>,
    pub(super) events: RefCell<Vec<Event>>,
    pub(super) logs: RefCell<Vec<(LogLevel, String)>>,
    pub(super) failing: RefCell<Vec<(FileOp, String)>>,
    pub(super) file_ops: Cell<u64>,
    pub(super) reads: RefCell<Vec<String>>,
    /// Paths of `.smarthole/` that are not regular files (a FIFO…), with their kind.
    pub(super) special: RefCell<BTreeMap<String, String>>,
    /// Sizes a test claims for files (a 600 MB file without 600 MB of memory).
    pub(super) sizes: RefCell<BTreeMap<String, u64>>,
    /// The vault: notes (path → text, created, modified), folders, the trash, the open note.
    pub(super) vault: RefCell<BTreeMap<String, (String, Millis, Millis)>>,
    pub(super) folders: RefCell<Vec<String>>,
    /// Files that are not text (images, PDFs): listed with the notes, read only as bytes.
    pub(super) binary: RefCell<BTreeMap<String, Vec<u8>>>,
    /// The exact bytes of notes that are not valid UTF-8 (their text in `vault` is the lossy
    /// decoding a host gives, U+FFFD for each bad sequence), until a write replaces them.
    pub(super) raw: RefCell<BTreeMap<String, Vec<u8>>>,
    /// Whether a note's text leaves out a leading byte order mark (Obsidian's `Vault.read`).
    pub(super) strips_bom: Cell<bool>,
    pub(super) trash: RefCell<Vec<(String, String)>>,
    pub(super) active: RefCell<Option<String>>,
    /// What `scale_image` answers (none: a host that cannot scale), and what it was asked:
    /// (media type, longest side, most bytes).
    pub(super) scaled_image: RefCell<Option<Vec<u8>>>,
    pub(super) scale_requests: RefCell<Vec<(String, u32, u64)>>,
    /// Links and special files (with the text a followed linked file reads as), and every
    /// operation the core asked on or through one of them.
    pub(super) unusual: RefCell<Vec<(VaultEntry, Option<String>)>>,
    pub(super) unusual_touches: RefCell<Vec<String>>,
    /// Host calls that read notes' bytes: one at a time (`vault_read_bytes`), several at once
    /// (`vault_read_many_bytes`).
    pub(super) byte_reads: Cell<(usize, usize)>,
    /// Whether several notes' reads answer later, as a host reading on another thread does (the
    /// core then asks ahead), and the most of them under way at once.
    pub(super) reads_elsewhere: Cell<bool>,
    pub(super) reads_under_way: Cell<(usize, usize)>,
    /// Whether the last listing was asked to follow folders linked from outside.
    pub(super) followed: Cell<bool>,
    /// The user's time zone (UTC unless a test sets one).
    pub(super) time_zone: RefCell<Option<String>>,
    /// The vault's configuration folder (`.obsidian` unless a test sets one).
    pub(super) config_folder: RefCell<Option<String>>,
    /// MCP servers, the scripted answers of their tools ("server/tool" → answers in order), and
    /// the calls made.
    pub(super) mcp: RefCell<Vec<McpServer>>,
    /// Servers still connecting: each as it will be once connected, and when.
    pub(super) mcp_connecting: RefCell<Vec<(Millis, McpServer)>>,
    pub(super) mcp_replies: RefCell<Vec<(String, Result<Value, McpError>)>>,
    pub(super) mcp_calls: RefCell<Vec<(String, String, Value)>>,
    /// Set when a crash point is reached: from then on nothing reaches disk, network or hub,
    /// as after a SIGKILL, until the test "restarts".
    pub(super) frozen: Cell<bool>,
    pub(super) crash_at: RefCell<Option<CrashPoint>>,
    /// The scripted ACP agent (agent.rs).
    pub(super) agent: super::agent::AgentSlot,
    /// Background tasks (`Host::spawn`), polled with the main future.
    pub(super) tasks: RefCell<Vec<LocalBoxFuture<'static, ()>>>,
    pub(super) spawned: RefCell<Vec<LocalBoxFuture<'static, ()>>>,
}

/// How far virtual time may run in one `run` before it counts as a hang.
pub const MAX_RUN_MS: Millis = 7 * 24 * 3_600_000;

/// The in-memory host. Clones share everything (a "restart" builds a new processor over a
/// clone, keeping the files).
#[derive(Clone)]
pub struct FakeHost {
    pub(super) state: Rc<State>,
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
}
