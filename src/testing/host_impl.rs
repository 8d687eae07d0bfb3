//! `Host` for `FakeHost`: every capability of the trait over the in-memory state, each call
//! recorded, none completing after a crash point.

use std::collections::BTreeMap;
use std::future::Future;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::executor::Sleep;
use super::http::FakeBody;
use super::state::{FakeHost, FileOp};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::{HostError, HttpRequest, HttpResponse, LogLevel, Millis};
use crate::mcp::{McpError, McpServer, McpState};
use crate::vault::VaultEntry;

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
        let bytes = self.state.byte_files.borrow().get(path).map(|b| String::from_utf8_lossy(b).into_owned());
        Ok(bytes.or_else(|| self.file(path)))
    }

    async fn read_file_bytes(&self, path: &str) -> Result<Option<Vec<u8>>, HostError> {
        self.check(FileOp::Read, path).await?;
        self.open_regular("read", path)?;
        self.state.reads.borrow_mut().push(path.to_owned());
        Ok(self.file_bytes(path))
    }

    async fn write_file_atomic_bytes(&self, path: &str, bytes: &[u8]) -> Result<(), HostError> {
        self.check(FileOp::WriteAtomic, path).await?;
        self.state.sizes.borrow_mut().remove(path);
        self.state.special.borrow_mut().remove(path);
        self.put_file_bytes(path, bytes);
        Ok(())
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
            .paths()
            .iter()
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter(|rest| !rest.contains('/'))
            .map(str::to_owned)
            .collect())
    }

    async fn remove_file(&self, path: &str) -> Result<(), HostError> {
        self.check(FileOp::Remove, path).await?;
        self.state.files.borrow_mut().remove(path);
        self.state.byte_files.borrow_mut().remove(path);
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
        let bytes = self.state.byte_files.borrow_mut().remove(from);
        if let Some(bytes) = bytes {
            self.put_file_bytes(to, &bytes);
        } else {
            let mut files = self.state.files.borrow_mut();
            let text = files.remove(from).ok_or_else(|| HostError::Io(format!("{from} does not exist")))?;
            self.state.byte_files.borrow_mut().remove(to);
            files.insert(to.to_owned(), text);
        }
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
        let Some(bytes) = self.file_bytes(path) else { return Ok(None) };
        Ok(Some(self.state.sizes.borrow().get(path).copied().unwrap_or(bytes.len() as u64)))
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
        let (one, many) = self.state.byte_reads.get();
        self.state.byte_reads.set((one + 1, many));
        self.read_bytes_now(path)
    }

    async fn vault_read_many_bytes(&self, paths: &[String]) -> Vec<Result<Vec<u8>, HostError>> {
        self.alive().await;
        let (one, many) = self.state.byte_reads.get();
        self.state.byte_reads.set((one, many + 1));
        if !self.state.reads_elsewhere.get() {
            return paths.iter().map(|path| self.read_bytes_now(path)).collect();
        }
        let (now, most) = self.state.reads_under_way.get();
        self.state.reads_under_way.set((now + 1, most.max(now + 1)));
        // Answered on a later poll; the notes as they are then.
        let mut polled = false;
        std::future::poll_fn(|cx| {
            if std::mem::replace(&mut polled, true) {
                return std::task::Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        })
        .await;
        let (now, most) = self.state.reads_under_way.get();
        self.state.reads_under_way.set((now - 1, most));
        paths.iter().map(|path| self.read_bytes_now(path)).collect()
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

    fn config_folder(&self) -> String {
        self.state.config_folder.borrow().clone().unwrap_or_else(|| ".obsidian".to_owned())
    }

    async fn mcp_servers(&self, wait_ms: Millis) -> Vec<McpServer> {
        self.alive().await;
        // As the shim does: wait for the connections under way, at most `wait_ms`.
        if let Some(wait) = self.mcp_connect_wait(self.now_ms(), wait_ms) {
            self.sleep(wait).await;
        }
        self.mcp_connected_by(self.now_ms());
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
        self.answer_http(&request).await
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

    fn agent_start(&self, process: u64, command: &str, args: &[String], env: &BTreeMap<String, String>, cwd: &str) {
        self.fake_agent_start(process, command, args, env, cwd)
    }
    fn agent_write(&self, process: u64, text: &str) {
        self.fake_agent_write(process, text)
    }
    fn agent_stop(&self, process: u64) {
        self.fake_agent_stop(process)
    }
    fn environment(&self) -> BTreeMap<String, String> {
        self.state.agent.borrow().environment.clone()
    }
    fn agent_folder(&self) -> Option<String> {
        self.state.agent.borrow().folder.clone()
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
