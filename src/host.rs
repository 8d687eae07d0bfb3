//! The `Host` trait: the only door between the core and the outside world.
//!
//! The core decides; the host does. Every file, clock reading, network request, hub frame and UI
//! event goes through this trait, so the whole pipeline can run natively against `FakeHost`
//! (virtual time, in-memory files, scripted HTTP) and in WebAssembly against the JS-backed host.

use std::collections::BTreeMap;
use std::future::Future;

use futures::future::LocalBoxFuture;

use crate::event::Event;
use crate::host_types::{HostError, HttpBody, HttpRequest, HttpResponse, LogLevel, Millis, NoteEdit};
use crate::mcp::{McpError, McpServer};
use crate::vault::VaultEntry;

/// Everything the core needs from its environment.
///
/// Paths are relative to the plugin's data folder (`.smarthole/` in the vault) and use `/`.
/// The core is single-threaded: futures need not be `Send`.
#[allow(async_fn_in_trait)]
pub trait Host {
    /// The response body type of [`Host::http`].
    type Body: HttpBody;

    /// Wall-clock time.
    fn now_ms(&self) -> Millis;
    /// Resolves once `ms` milliseconds have passed by [`Host::now_ms`] (never a moment early:
    /// callers compare deadlines with that clock after waking); dropping it cancels the timer.
    /// `sleep(0)` is one turn of the host's event loop, after it has looked for input and I/O
    /// (what long work yields for, so Stop and sockets are heard).
    fn sleep(&self, ms: Millis) -> impl Future<Output = ()>;
    /// Fresh random bits for ids (the host's cryptographic source where it has one).
    fn random_u64(&self) -> u64;
    /// Runs a task in the background (conversation summaries, retrospection, periodic cleanup):
    /// never awaited by the message that started it.
    fn spawn(&self, task: LocalBoxFuture<'static, ()>);

    /// The file's text, `None` when it does not exist. What is not a regular file is never
    /// opened (an error; the host opens without blocking and checks what it opened).
    async fn read_file(&self, path: &str) -> Result<Option<String>, HostError>;
    /// Writes the whole file so that a crash leaves either the old or the new content
    /// (temporary file, flush, rename). Creates missing folders.
    async fn write_file_atomic(&self, path: &str, text: &str) -> Result<(), HostError>;
    /// The file's bytes, `None` when it does not exist; as [`Host::read_file`], never opened when
    /// it is not a regular file. For data that is not text (the search index's pieces): no
    /// base64, and no JS string for the host's garbage collector, on the way in.
    async fn read_file_bytes(&self, path: &str) -> Result<Option<Vec<u8>>, HostError>;
    /// Writes the whole file from bytes as [`Host::write_file_atomic`] does from text.
    async fn write_file_atomic_bytes(&self, path: &str, bytes: &[u8]) -> Result<(), HostError>;
    /// Appends to the file (created if missing) and flushes it to disk; what is not a regular
    /// file is never written to (an error, as for `read_file`).
    async fn append_file(&self, path: &str, text: &str) -> Result<(), HostError>;
    /// Names of the files directly inside a folder; empty when the folder does not exist.
    async fn list_dir(&self, dir: &str) -> Result<Vec<String>, HostError>;
    /// Removes a file; removing a missing file is not an error.
    async fn remove_file(&self, path: &str) -> Result<(), HostError>;
    /// Renames a file, replacing the target. Creates missing folders.
    async fn rename_file(&self, from: &str, to: &str) -> Result<(), HostError>;
    /// The file's size in bytes, `None` when it does not exist: asked before a read, so no file
    /// of `.smarthole/` (a 600 MB one a sync tool left) is ever loaded whole into memory.
    /// [`HostError::NotAFile`] when the path is a FIFO, socket, device or folder (never opened:
    /// the core sets it aside, `bounded.rs`).
    async fn file_size(&self, path: &str) -> Result<Option<u64>, HostError>;

    /// Every file and folder of the vault (the host's own hidden folders left out). Paths given
    /// to the `vault_*` operations are vault-relative and already checked by the core.
    ///
    /// Each entry says what it really is (`VaultEntry::kind`, `real_path`): links are reported,
    /// not walked through (a link to a folder inside the vault is one entry with its real path;
    /// a dangling or looping link, a FIFO, socket or device is one entry of its kind), so the core
    /// decides what the agent may reach. The content of folders linked from outside the vault is
    /// listed (as `Linked`) only when `follow_linked_folders`. As defence in depth, every
    /// `vault_*` operation also refuses a path whose real location leaves the vault or enters a
    /// hidden folder, and never opens what is not a regular file.
    async fn vault_list(&self, follow_linked_folders: bool) -> Result<Vec<VaultEntry>, HostError>;
    /// A note's text.
    async fn vault_read(&self, path: &str) -> Result<String, HostError>;
    /// A file's bytes (an image or PDF the user attached; the core checked its size first).
    async fn vault_read_bytes(&self, path: &str) -> Result<Vec<u8>, HostError>;
    /// Several files' bytes in one call, a result per path in order, each read with the checks
    /// [`Host::vault_read_bytes`] makes: a search reads thousands of notes, and one host call
    /// each cost more than the reading (issue 37). The core keeps a call's notes few and small
    /// enough that the host may read them all at once (synchronously on Node).
    async fn vault_read_many_bytes(&self, paths: &[String]) -> Vec<Result<Vec<u8>, HostError>>;
    /// Creates a note that does not exist yet (its folders too).
    async fn vault_create(&self, path: &str, text: &str) -> Result<(), HostError>;
    /// Changes a note atomically (Obsidian's `Vault.process`): `edit` gets the current text and
    /// returns the new one, or `None` to leave it as it is. Returns whether it was written.
    async fn vault_process(&self, path: &str, edit: NoteEdit) -> Result<bool, HostError>;
    /// Adds text at the end of an existing note (Obsidian's `Vault.append`): what is there is
    /// never read back or rewritten (a conversation's Markdown copy grows a turn at a time).
    async fn vault_append(&self, path: &str, text: &str) -> Result<(), HostError>;
    /// Creates a folder (and its parents).
    async fn vault_create_folder(&self, path: &str) -> Result<(), HostError>;
    /// Moves a file to the trash, as the user's settings say (`fileManager.trashFile`).
    async fn vault_trash(&self, path: &str) -> Result<(), HostError>;
    /// Renames or moves a file, updating links to it (`fileManager.renameFile`).
    async fn vault_rename(&self, from: &str, to: &str) -> Result<(), HostError>;
    /// The note open in the editor, if any.
    async fn active_note(&self) -> Option<String>;
    /// An image scaled down so its longest side is at most `max_side` pixels and it is at most
    /// `max_bytes` (a PNG stays PNG where that fits, others become JPEG). `None` where the
    /// platform cannot decode images (the Node host) or this one would not decode: the core
    /// then checks the original against the API's limits.
    async fn scale_image(
        &self,
        bytes: &[u8],
        media_type: &str,
        max_side: u32,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, HostError>;

    /// The next time a 5-field cron expression fires strictly after `after_ms`, its times read
    /// in the IANA zone `time_zone` (croner in the shim); `Ok(None)` when it never fires again,
    /// `Err` with the reason when the expression or the zone is not valid.
    fn cron_next(&self, expression: &str, time_zone: &str, after_ms: Millis) -> Result<Option<Millis>, String>;
    /// The user's IANA time zone (`Europe/Paris`).
    fn time_zone(&self) -> String;
    /// The vault's configuration folder (Obsidian's `Vault#configDir`: `.obsidian` unless the
    /// user named another), a fact the core adds to the folders the agent never reaches.
    fn config_folder(&self) -> String;
    /// The user's MCP servers, with their state and tools, once the connections under way are
    /// made or `wait_ms` has passed (the core decides how long: a server still connecting then
    /// is reported as connecting).
    async fn mcp_servers(&self, wait_ms: Millis) -> Vec<McpServer>;
    /// Calls a tool of a connected server; resolves with the raw `tools/call` result. Dropping
    /// the future cancels the call.
    async fn mcp_call(
        &self,
        server: &str,
        tool: &str,
        input: &serde_json::Value,
    ) -> Result<serde_json::Value, McpError>;

    /// Sends a request; resolves once the status and headers are known.
    async fn http(&self, request: HttpRequest) -> Result<HttpResponse<Self::Body>, HostError>;

    /// Opens WebSocket `socket` to the SmartHole hub at `url` (the core numbers its sockets so
    /// events from an older one are told apart). Its events come back through the processor's
    /// `hub_opened` / `hub_frame` / `hub_closed`.
    fn hub_connect(&self, socket: u64, url: &str);
    /// Closes socket `socket` (no error if it is already closed).
    fn hub_disconnect(&self, socket: u64);
    /// Sends one text frame on socket `socket`.
    fn hub_send(&self, socket: u64, frame: String);
    /// Starts agent process `process` (the core numbers its processes, as its hub sockets):
    /// `command` run directly (no shell) with `args`, with exactly `env` (nothing inherited: the
    /// core chose the variables), in `cwd`, in a process group of its own, stdin and stdout
    /// piped, the last 8 KB of stderr kept. Its output comes back through the processor's
    /// `agent_output`, its end — or a failure to start (ENOENT, EACCES), never thrown — through
    /// `agent_exited`.
    fn agent_start(&self, process: u64, command: &str, args: &[String], env: &BTreeMap<String, String>, cwd: &str);
    /// Writes whole lines (each ends with `\n`) to the process's stdin.
    fn agent_write(&self, process: u64, text: &str);
    /// Ends the process's whole group: SIGTERM, SIGKILL after 2 s if still alive; a no-op once
    /// it ended.
    fn agent_stop(&self, process: u64);
    /// The host's environment variables (a fact: the core picks what an agent gets); `{}` on a
    /// phone.
    fn environment(&self) -> BTreeMap<String, String>;
    /// The folder an agent works in — the vault's absolute path — or `None` where this host
    /// cannot start programs (a phone): the core then uses the built-in agent and says why.
    fn agent_folder(&self) -> Option<String>;
    /// Tells the UI something happened. Must not call back into the core synchronously.
    fn emit(&self, event: &Event);
    /// A diagnostic line.
    fn log(&self, level: LogLevel, message: &str);
}
