//! The configured secrets — API keys, the agent API token, MCP header values — kept out of
//! every text the plugin shows, logs or sends to the hub. A server may echo a key back in an
//! error body; a note the agent reads may hold one. [`Masking`] wraps the host the processor
//! talks to, so every log line, UI event and hub frame passes through [`Secrets::mask`] on its
//! way out, whichever module wrote it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;

use futures::future::LocalBoxFuture;

use crate::event::Event;
use crate::host::Host;
use crate::host_types::{HostError, HttpRequest, HttpResponse, LogLevel, Millis, NoteEdit};
use crate::mcp::{McpError, McpServer};
use crate::settings::Settings;
use crate::vault::VaultEntry;

/// Shorter values are not masked: hiding every "abc" in the chat would mangle it, and a value
/// that short is no secret worth the name (the agent API's token must have 32 characters).
const MIN_SECRET_CHARS: usize = 8;

/// The secrets of the current settings, each with the name it is shown by.
#[derive(Debug, Default)]
pub(crate) struct Secrets {
    list: RefCell<Vec<(String, &'static str)>>,
    /// Secrets the core made itself (an agent process's MCP token), kept across settings.
    made: RefCell<Vec<(String, &'static str)>>,
}

impl Secrets {
    /// Takes the secrets of `settings`, replacing the previous ones.
    pub(crate) fn set_from(&self, settings: &Settings) {
        let mut list: Vec<(String, &'static str)> = Vec::new();
        let mut add = |value: &str, name: &'static str| {
            let value = value.trim();
            if value.chars().count() >= MIN_SECRET_CHARS && !list.iter().any(|(v, _)| v == value) {
                list.push((value.to_owned(), name));
            }
        };
        add(&settings.api_key, "API key");
        add(&settings.background_api_key, "API key");
        add(&settings.embeddings_api_key, "API key");
        add(&settings.agent_api_token, "agent API token");
        for server in &settings.mcp_servers {
            for value in server.headers.values() {
                add(value, "header");
                // `Bearer <token>`: the token alone may be echoed too.
                if let Some((_, token)) = value.split_once(' ') {
                    add(token, "header");
                }
            }
        }
        for (value, name) in self.made.borrow().iter() {
            add(value, name);
        }
        // The longest first, so a secret that contains another is hidden whole.
        crate::lean::sort_by_key(&mut list, |(value, _)| std::cmp::Reverse(value.len()));
        *self.list.borrow_mut() = list;
    }

    /// Adds a secret the core made (the last few are kept: older ones may still be echoed).
    pub(crate) fn add_made(&self, value: &str, name: &'static str) {
        let mut made = self.made.borrow_mut();
        if made.len() >= 4 {
            made.remove(0);
        }
        made.push((value.to_owned(), name));
        drop(made);
        let mut list = self.list.borrow_mut();
        if value.chars().count() >= MIN_SECRET_CHARS && !list.iter().any(|(v, _)| v == value) {
            list.push((value.to_owned(), name));
            crate::lean::sort_by_key(&mut list, |(value, _)| std::cmp::Reverse(value.len()));
        }
    }

    /// The secrets' values (an agent's environment never holds one).
    pub(crate) fn values(&self) -> Vec<String> {
        self.list.borrow().iter().map(|(value, _)| value.clone()).collect()
    }

    /// `text` with every secret replaced by `[hidden <name>]`.
    pub(crate) fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.mask_but(text, &[])
    }

    /// What the agent process is sent: every secret hidden but the ones the core made for it
    /// (its MCP token goes in `session/new`).
    pub(crate) fn mask_for_agent<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let made: Vec<String> = self.made.borrow().iter().map(|(v, _)| v.clone()).collect();
        self.mask_but(text, &made)
    }

    fn mask_but<'a>(&self, text: &'a str, kept: &[String]) -> Cow<'a, str> {
        let list = self.list.borrow();
        let mut text = Cow::Borrowed(text);
        for (value, name) in list.iter().filter(|(v, _)| !kept.contains(v)) {
            if text.contains(value.as_str()) {
                text = Cow::Owned(text.replace(value.as_str(), &format!("[hidden {name}]")));
            }
        }
        text
    }

    /// Masks `text` where it stands.
    pub(crate) fn mask_in_place(&self, text: &mut String) {
        if let Cow::Owned(masked) = self.mask(text) {
            *text = masked;
        }
    }

    fn is_empty(&self) -> bool {
        self.list.borrow().is_empty()
    }
}

/// The host as the processor sees it: the real one, with every text leaving through it masked.
pub(crate) struct Masking<H> {
    pub(crate) inner: H,
    pub(crate) secrets: std::rc::Rc<Secrets>,
}

impl<H: Host> Host for Masking<H> {
    type Body = H::Body;

    fn now_ms(&self) -> Millis {
        self.inner.now_ms()
    }
    fn sleep(&self, ms: Millis) -> impl Future<Output = ()> {
        self.inner.sleep(ms)
    }
    fn random_u64(&self) -> u64 {
        self.inner.random_u64()
    }
    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        self.inner.spawn(task)
    }
    async fn read_file(&self, path: &str) -> Result<Option<String>, HostError> {
        self.inner.read_file(path).await
    }
    async fn write_file_atomic(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.inner.write_file_atomic(path, text).await
    }
    async fn read_file_bytes(&self, path: &str) -> Result<Option<Vec<u8>>, HostError> {
        self.inner.read_file_bytes(path).await
    }
    async fn write_file_atomic_bytes(&self, path: &str, bytes: &[u8]) -> Result<(), HostError> {
        self.inner.write_file_atomic_bytes(path, bytes).await
    }
    async fn append_file(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.inner.append_file(path, text).await
    }
    async fn list_dir(&self, dir: &str) -> Result<Vec<String>, HostError> {
        self.inner.list_dir(dir).await
    }
    async fn remove_file(&self, path: &str) -> Result<(), HostError> {
        self.inner.remove_file(path).await
    }
    async fn rename_file(&self, from: &str, to: &str) -> Result<(), HostError> {
        self.inner.rename_file(from, to).await
    }
    async fn file_size(&self, path: &str) -> Result<Option<u64>, HostError> {
        self.inner.file_size(path).await
    }
    async fn vault_list(&self, follow_linked_folders: bool) -> Result<Vec<VaultEntry>, HostError> {
        self.inner.vault_list(follow_linked_folders).await
    }
    async fn vault_read(&self, path: &str) -> Result<String, HostError> {
        self.inner.vault_read(path).await
    }
    async fn vault_read_bytes(&self, path: &str) -> Result<Vec<u8>, HostError> {
        self.inner.vault_read_bytes(path).await
    }
    async fn vault_read_many_bytes(&self, paths: &[String]) -> Vec<Result<Vec<u8>, HostError>> {
        self.inner.vault_read_many_bytes(paths).await
    }
    async fn vault_create(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.inner.vault_create(path, text).await
    }
    async fn vault_process(&self, path: &str, edit: NoteEdit) -> Result<bool, HostError> {
        self.inner.vault_process(path, edit).await
    }
    async fn vault_append(&self, path: &str, text: &str) -> Result<(), HostError> {
        self.inner.vault_append(path, text).await
    }
    async fn vault_create_folder(&self, path: &str) -> Result<(), HostError> {
        self.inner.vault_create_folder(path).await
    }
    async fn vault_trash(&self, path: &str) -> Result<(), HostError> {
        self.inner.vault_trash(path).await
    }
    async fn vault_rename(&self, from: &str, to: &str) -> Result<(), HostError> {
        self.inner.vault_rename(from, to).await
    }
    async fn active_note(&self) -> Option<String> {
        self.inner.active_note().await
    }
    async fn scale_image(
        &self,
        bytes: &[u8],
        media_type: &str,
        max_side: u32,
        max_bytes: u64,
    ) -> Result<Option<Vec<u8>>, HostError> {
        self.inner.scale_image(bytes, media_type, max_side, max_bytes).await
    }
    fn cron_next(&self, expression: &str, time_zone: &str, after_ms: Millis) -> Result<Option<Millis>, String> {
        self.inner.cron_next(expression, time_zone, after_ms)
    }
    fn time_zone(&self) -> String {
        self.inner.time_zone()
    }
    fn config_folder(&self) -> String {
        self.inner.config_folder()
    }
    async fn mcp_servers(&self, wait_ms: Millis) -> Vec<McpServer> {
        self.inner.mcp_servers(wait_ms).await
    }
    async fn mcp_call(
        &self,
        server: &str,
        tool: &str,
        input: &serde_json::Value,
    ) -> Result<serde_json::Value, McpError> {
        self.inner.mcp_call(server, tool, input).await
    }
    async fn http(&self, request: HttpRequest) -> Result<HttpResponse<Self::Body>, HostError> {
        self.inner.http(request).await
    }
    fn hub_connect(&self, socket: u64, url: &str) {
        self.inner.hub_connect(socket, url)
    }
    fn hub_disconnect(&self, socket: u64) {
        self.inner.hub_disconnect(socket)
    }
    fn hub_send(&self, socket: u64, frame: String) {
        let frame = match self.secrets.mask(&frame) {
            Cow::Borrowed(_) => frame,
            Cow::Owned(masked) => masked,
        };
        self.inner.hub_send(socket, frame)
    }
    fn agent_start(&self, process: u64, command: &str, args: &[String], env: &BTreeMap<String, String>, cwd: &str) {
        self.inner.agent_start(process, command, args, env, cwd)
    }
    fn agent_write(&self, process: u64, text: &str) {
        self.inner.agent_write(process, &self.secrets.mask_for_agent(text))
    }
    fn agent_stop(&self, process: u64) {
        self.inner.agent_stop(process)
    }
    fn environment(&self) -> BTreeMap<String, String> {
        self.inner.environment()
    }
    fn agent_folder(&self) -> Option<String> {
        self.inner.agent_folder()
    }
    fn emit(&self, event: &Event) {
        if self.secrets.is_empty() {
            return self.inner.emit(event);
        }
        let mut masked = event.clone();
        masked.mask_texts(&|text| self.secrets.mask_in_place(text));
        self.inner.emit(&masked)
    }
    fn log(&self, level: LogLevel, message: &str) {
        self.inner.log(level, &self.secrets.mask(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::McpServerConfig;

    #[test]
    fn every_configured_secret_is_hidden_by_name_and_short_values_are_left() {
        let secrets = Secrets::default();
        let mut settings =
            Settings { api_key: "sk-ant-0123456789".into(), agent_api_token: "short".into(), ..Settings::default() };
        let mut server = McpServerConfig { name: "remote".into(), ..McpServerConfig::default() };
        server.headers.insert("Authorization".into(), "Bearer tok-abcdefgh".into());
        settings.mcp_servers.push(server);
        secrets.set_from(&settings);
        assert_eq!(
            secrets.mask("key sk-ant-0123456789 short, auth Bearer tok-abcdefgh and tok-abcdefgh"),
            "key [hidden API key] short, auth [hidden header] and [hidden header]"
        );
        assert!(matches!(secrets.mask("nothing here"), Cow::Borrowed(_)));
        secrets.set_from(&Settings::default());
        assert_eq!(secrets.mask("sk-ant-0123456789"), "sk-ant-0123456789", "a removed key is no longer looked for");
    }
}
