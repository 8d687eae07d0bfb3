//! The fake vault: notes (text, bytes, not UTF-8, a byte order mark left out), folders, the
//! trash, links and special files with what touched them, a listing that takes time, the open
//! note and time zone, image scaling, and MCP servers with scripted tools.

use serde_json::Value;

use super::state::FakeHost;
use crate::host_types::{HostError, Millis};
use crate::lean::fold_case;
use crate::mcp::{McpError, McpServer, McpState};
use crate::vault::VaultEntry;

impl FakeHost {
    /// The vault as a listing shows it now.
    pub(super) fn listing(&self, follow_linked_folders: bool) -> Vec<VaultEntry> {
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
    pub(super) fn text_of<'a>(&self, text: &'a str) -> &'a str {
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

    /// A note's bytes as a read of the host gives them, now. Through a link, as `vault_read`:
    /// the file it reaches (a real host's read follows it too).
    pub(super) fn read_bytes_now(&self, path: &str) -> Result<Vec<u8>, HostError> {
        if let Some(text) = self.through_unusual("read", path)? {
            return Ok(text.into_bytes());
        }
        if let Some(bytes) = self.state.binary.borrow().get(path) {
            return Ok(bytes.clone());
        }
        self.note_bytes(path).ok_or_else(|| HostError::Io(format!("{path} does not exist")))
    }

    /// Checks a `vault_*` operation against the links and special files: `Ok(Some(text))` for a
    /// read the core may do (a file in a followed linked folder), an error for anything else on
    /// or under one of them (recorded).
    pub(super) fn through_unusual(&self, op: &str, path: &str) -> Result<Option<String>, HostError> {
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
    pub(super) fn move_raw(&self, from: &str, to: &str) {
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

    /// Names the vault's configuration folder, as Obsidian's `Vault#configDir` would.
    pub fn set_config_folder(&self, folder: &str) {
        *self.state.config_folder.borrow_mut() = Some(folder.to_owned());
    }

    /// Adds (or replaces) an MCP server as the shim would report it.
    pub fn put_mcp_server(&self, server: McpServer) {
        let mut servers = self.state.mcp.borrow_mut();
        servers.retain(|s| s.name != server.name);
        servers.push(server);
    }

    /// Adds an MCP server that is still connecting: reported as connecting (no tools) until
    /// `ready_at` (virtual time), then as `server`.
    pub fn put_mcp_server_connecting(&self, server: McpServer, ready_at: Millis) {
        let connecting = McpServer { state: McpState::Connecting, tools: Vec::new(), ..server.clone() };
        self.put_mcp_server(connecting);
        self.state.mcp_connecting.borrow_mut().push((ready_at, server));
    }

    /// How long a listing waiting at most `wait_ms` from `now` waits for the servers still
    /// connecting (`None`: none is).
    pub(super) fn mcp_connect_wait(&self, now: Millis, wait_ms: Millis) -> Option<Millis> {
        let last = self.state.mcp_connecting.borrow().iter().map(|(at, _)| *at).max()?;
        Some(last.min(now + wait_ms).saturating_sub(now))
    }

    /// The servers whose connection is made by `now` become what they were put as.
    pub(super) fn mcp_connected_by(&self, now: Millis) {
        let ready: Vec<(Millis, McpServer)> = {
            let mut connecting = self.state.mcp_connecting.borrow_mut();
            let (ready, still) = connecting.drain(..).partition(|(at, _)| *at <= now);
            *connecting = still;
            ready
        };
        for (_, server) in ready {
            self.put_mcp_server(server);
        }
    }

    /// Queues an answer for the next call of `server`'s `tool`.
    pub fn script_mcp(&self, server: &str, tool: &str, reply: Result<Value, McpError>) {
        self.state.mcp_replies.borrow_mut().push((format!("{server}/{tool}"), reply));
    }

    /// Host calls made to read notes' bytes: (one note each, several notes each).
    pub fn byte_reads(&self) -> (usize, usize) {
        self.state.byte_reads.get()
    }

    /// Reads of several notes answer on a later poll, as a host reading them on another thread
    /// does.
    pub fn read_elsewhere(&self) {
        self.state.reads_elsewhere.set(true);
    }

    /// The most reads of several notes under way at once.
    pub fn most_reads_under_way(&self) -> usize {
        self.state.reads_under_way.get().1
    }

    /// MCP calls made: (server, tool, input).
    pub fn mcp_calls(&self) -> Vec<(String, String, Value)> {
        self.state.mcp_calls.borrow().clone()
    }
}
