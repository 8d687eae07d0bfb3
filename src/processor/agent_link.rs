//! The processor's side of the agent process: the host's reports (`agent_output`,
//! `agent_exited`) fed to the connection's state machine (`acp::client`), its actions carried
//! out through the host, its deliveries handed to the turn listening — or, with no turn, a
//! permission request refused and a failure logged (the side sessions of background prompts see
//! each delivery first, `acp::aside`). Also which agent a turn uses, its launch, and its start,
//! shared by a turn and a background prompt.

use std::collections::BTreeMap;

use serde_json::json;

use super::handle::MessageProcessor;
use crate::acp::aside::AsideEnd;
use crate::acp::client::{AcpAction, Delivery};
use crate::acp::error::AcpError;
use crate::acp::launch::{launch, AgentKind, Launch, LaunchInput};
use crate::acp::own_tools::switch_off;
use crate::event::{Event, NoticeLevel};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::platform::platform_features;
use crate::settings::Settings;

impl<H: Host + 'static> MessageProcessor<H> {
    /// Agent process `process` wrote `chunk` on its standard output (any split; the host decodes
    /// UTF-8 with a streaming decoder).
    pub fn agent_output(&self, process: u64, chunk: &str) {
        let (actions, deliveries) = self.inner.acp.client.borrow_mut().on_output(process, chunk);
        self.acp_apply(actions, deliveries);
    }

    /// Agent process `process` ended with `code` or `signal`, or never started (`error`: ENOENT,
    /// EACCES…); `stderr_tail` is the end of what it wrote on stderr.
    pub fn agent_exited(
        &self,
        process: u64,
        code: Option<i32>,
        signal: Option<&str>,
        error: Option<&str>,
        stderr_tail: &str,
    ) {
        let deliveries = self.inner.acp.client.borrow_mut().on_exit(process, code, signal, error, stderr_tail);
        self.acp_apply(Vec::new(), deliveries);
    }

    /// Does what the connection decided. Each delivery is shown to the side sessions first
    /// (`acp::aside`): what is theirs never reaches the turn listening.
    pub(super) fn acp_apply(&self, actions: Vec<AcpAction>, deliveries: Vec<Delivery>) {
        let host = &self.inner.host;
        let mut stopped = false;
        for action in actions {
            match action {
                AcpAction::Start { process, launch } => {
                    host.log(
                        LogLevel::Info,
                        &format!("starting agent process {process}: {} {}", launch.command, launch.args.join(" ")),
                    );
                    host.agent_start(process, &launch.command, &launch.args, &launch.env, &launch.cwd);
                }
                AcpAction::Write { process, line } => host.agent_write(process, &line),
                AcpAction::Stop { process } => {
                    host.agent_stop(process);
                    stopped = true;
                }
            }
        }
        for delivery in deliveries {
            let routed = {
                let mut client = self.inner.acp.client.borrow_mut();
                self.inner.acp.asides.borrow_mut().route(&mut client, delivery)
            };
            self.asides_ended(routed.ended);
            self.acp_apply(routed.actions, Vec::new());
            let Some(delivery) = routed.pass else { continue };
            match self.inner.acp.deliver(delivery) {
                None => {}
                // Nobody waits on the agent: it may not act on its own.
                Some(Delivery::Permission { id, request }) => {
                    let answer = crate::acp::permission::rejected(&request);
                    let actions = self.inner.acp.client.borrow_mut().answer(&id, &answer);
                    self.acp_apply(actions, Vec::new());
                }
                Some(Delivery::Failed(error)) => {
                    host.log(LogLevel::Info, &format!("agent: {error}"));
                    self.stopped_turn_heard(&Delivery::Failed(error));
                }
                // The answer to a prompt the user stopped: the session's next prompt need not wait.
                Some(reply @ Delivery::Reply { .. }) => {
                    self.stopped_turn_heard(&reply);
                    let Delivery::Reply { id, .. } = reply else { continue };
                    let mut cancelled = self.inner.acp.cancelled.borrow_mut();
                    if cancelled.as_ref().is_some_and(|(stopped, _)| *stopped == id) {
                        *cancelled = None;
                    }
                }
                // A stopped prompt's last usage reports.
                Some(other) => self.stopped_turn_heard(&other),
            }
        }
        // After the deliveries, so a side session ended by a failure is told that failure.
        if stopped && !self.inner.acp.asides.borrow().is_empty() {
            let label = self.inner.acp.client.borrow().label();
            let ended = self.inner.acp.asides.borrow_mut().stopped(label);
            self.asides_ended(ended);
        }
    }

    /// Hands the side sessions that ended to whoever waits on them.
    fn asides_ended(&self, ended: Vec<AsideEnd>) {
        for (key, result) in ended {
            if let Some(waiter) = self.inner.acp.aside_waiters.borrow_mut().remove(key) {
                let _ = waiter.send(result);
            }
        }
    }

    /// Starts the agent as `launch` unless it runs so already or is starting so (a turn and a
    /// background prompt arriving together share one process). `Ok(true)`: it is ready now;
    /// `Ok(false)`: its handshake is to come (`Delivery::Ready`).
    pub(super) async fn acp_bring_up(
        &self,
        kind: AgentKind,
        launch: Launch,
        port: Option<u16>,
    ) -> Result<bool, AcpError> {
        let _starting = self.inner.acp.start_lock.lock().await;
        if self.acp_ready_as(kind, &launch, port) {
            return Ok(true);
        }
        // A process given another port for its note tools than the listener's now starts anew.
        if self.inner.acp.client.borrow().starting_as(kind, &launch) && self.inner.acp.mcp_port.get() == port {
            return Ok(false);
        }
        // A new process: a turn stopped in the old one is counted with what it reported.
        self.inner.acp.cancelled.borrow_mut().take();
        self.count_stopped_turn(None);
        self.new_mcp_token();
        self.inner.acp.server_reach.borrow_mut().new_process();
        self.inner.acp.mcp_port.set(port);
        self.acp_write_files(&launch).await?;
        let actions = self.inner.acp.client.borrow_mut().start(kind, launch);
        self.acp_apply(actions, Vec::new());
        Ok(false)
    }

    /// Whether the agent runs, past its handshake, as `launch` for `kind` with its note tools
    /// at `port` (a process given another port is not the one wanted).
    pub(super) fn acp_ready_as(&self, kind: AgentKind, launch: &Launch, port: Option<u16>) -> bool {
        self.inner.acp.client.borrow().ready_as(kind, launch) && self.inner.acp.mcp_port.get() == port
    }

    /// Sends a request to the agent; returns its id.
    pub(super) fn acp_request(&self, method: &str, params: &serde_json::Value) -> u64 {
        let (id, actions) = self.inner.acp.client.borrow_mut().request(method, params);
        self.acp_apply(actions, Vec::new());
        id
    }

    /// The agent a turn uses with these settings, and the folder it works in: `None` for the
    /// built-in agent, and where this device cannot start one (`platform.rs` decides; the user
    /// is told once) or the vault has no folder on disk.
    pub(super) fn acp_agent(&self, settings: &Settings) -> Option<(AgentKind, String)> {
        if settings.agent == AgentKind::Builtin {
            return None;
        }
        let host = &self.inner.host;
        let available = platform_features(self.inner.config.platform()).own_agent.available;
        match host.agent_folder().filter(|_| available) {
            Some(folder) => Some((settings.agent, folder)),
            None => {
                if !self.inner.acp.told_unavailable.replace(true) {
                    host.emit(&Event::Notice {
                        level: NoticeLevel::Warning,
                        text: format!(
                            "{} runs only on the desktop (it starts a program); the built-in agent answers here.",
                            settings.agent.label()
                        ),
                    });
                }
                None
            }
        }
    }

    /// How the agent is started with these settings in `folder` (its own write and shell tools
    /// off unless agentOwnTools).
    pub(super) fn acp_launch(&self, settings: &Settings, kind: AgentKind, folder: &str) -> Result<Launch, AcpError> {
        let environment: BTreeMap<String, String> = self.inner.host.environment();
        let mut secrets = self.inner.config.secrets().values();
        secrets.extend(settings.mcp_servers.iter().flat_map(|s| s.env.values().cloned()));
        let input = LaunchInput {
            kind,
            command: &settings.agent_command,
            environment: &environment,
            secrets: &secrets,
            hidden: &settings.agent_env_hidden,
            cwd: folder,
        };
        let mut launch = launch(&input).map_err(|problem| AcpError::Unavailable(problem.to_string()))?;
        if !settings.agent_own_tools {
            switch_off(kind, &mut launch).map_err(|problem| AcpError::Unavailable(problem.to_string()))?;
        }
        Ok(launch)
    }

    /// Writes the files the agent's start needs (Gemini CLI's policy) in the data folder.
    pub(super) async fn acp_write_files(&self, launch: &Launch) -> Result<(), AcpError> {
        for (path, text) in &launch.files {
            self.inner.host.write_file_atomic(path, text).await.map_err(|e| {
                AcpError::Unavailable(format!("{} could not be prepared: .smarthole/{path}: {e}", launch.command))
            })?;
        }
        Ok(())
    }

    /// Stops the agent process, if one runs (the processor is disposed, the agent changed).
    pub fn stop_agent(&self) {
        let actions = self.inner.acp.client.borrow_mut().stop();
        self.acp_apply(actions, Vec::new());
        self.count_stopped_turn(None);
    }

    /// Answers every open permission request cancelled and tells the agent to cancel the
    /// session's prompt (Stop).
    pub(super) fn acp_cancel(&self, session: &str) {
        let mut client = self.inner.acp.client.borrow_mut();
        let mut actions = client.cancel_permissions();
        actions.extend(client.notify("session/cancel", &json!(crate::acp::session::cancel_params(session))));
        drop(client);
        self.acp_apply(actions, Vec::new());
    }
}
