//! Background prompts answered by the user's own agent (a conversation's title and summary, the
//! retrospection), sans I/O: each in a side session of the agent process the turns use
//! (`session/new` with no MCP servers, so it has no `smarthole` tools), never in a
//! conversation's own session. [`Asides`] sees every delivery before the turn does: it takes
//! what belongs to a side session (the answers to its requests, its session's updates) and
//! rejects that session's permission requests, and passes on the rest, so a turn in flight
//! never sees any of it. Its answer is the text of the session's `agent_message_chunk`s.

use serde_json::Value;

use super::client::{AcpAction, AcpClient, Delivery};
use super::codec::{RpcError, AUTH_REQUIRED};
use super::error::AcpError;
use super::launch::AgentKind;
use super::messages;
use super::permission;
use super::progress::{AgentUsage, TurnProgress};
use super::session;

/// What a side session answered: its text, and the usage the agent reported for it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct AsideAnswer {
    pub text: String,
    pub usage: Option<AgentUsage>,
}

/// A side session that ended: its key (from [`Asides::begin`]) and its answer or failure.
pub(crate) type AsideEnd = (u64, Result<AsideAnswer, AcpError>);

/// What [`Asides::route`] made of one delivery.
#[derive(Debug, Default)]
pub(crate) struct Routed {
    /// Lines for the agent (the next request of a side session, a rejected permission).
    pub actions: Vec<AcpAction>,
    /// Side sessions that ended.
    pub ended: Vec<AsideEnd>,
    /// The delivery when it is not (only) a side session's: for the turn.
    pub pass: Option<Delivery>,
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Waits for the process's handshake.
    AwaitReady,
    /// `session/new` sent as request `id`.
    Opening { id: u64 },
    /// `session/set_mode` sent in `session` as request `id`.
    SettingMode { session: String, id: u64 },
    /// `session/prompt` sent in `session` as request `id`.
    Prompting { session: String, id: u64 },
    /// Given up by whoever asked (too slow); its session and request stay claimed, so nothing
    /// of it ever reaches a turn.
    Abandoned { session: Option<String>, id: u64 },
}

#[derive(Debug)]
struct Aside {
    key: u64,
    kind: AgentKind,
    /// `session/new`'s params.
    open: Value,
    /// The prompt's text.
    text: String,
    phase: Phase,
    progress: TurnProgress,
}

/// The side sessions in flight on the agent process.
#[derive(Debug, Default)]
pub(crate) struct Asides {
    next_key: u64,
    open: Vec<Aside>,
}

/// A background prompt for a side session of agent `kind`, working in `cwd`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AsidePrompt<'a> {
    pub kind: AgentKind,
    pub cwd: &'a str,
    /// What it is asked to do, and what that applies to (a transcript).
    pub instructions: &'a str,
    pub prompt: &'a str,
}

impl Asides {
    /// Begins a side session for `asked`: at once when the process is `ready`, else at its
    /// handshake. Its `session/new` gives no MCP servers (so no `smarthole` tools) and, for
    /// Claude Code, its own write and shell tools off even where the user lets turns use them
    /// (a side session only writes text); a session that starts in a mode that asks nothing is
    /// set to `default` first (`session::mode_to_set`), so every permission request comes here
    /// to be rejected. Its prompt is the instructions, then what they apply to. Returns its key
    /// and what to write.
    pub(crate) fn begin(&mut self, client: &mut AcpClient, ready: bool, asked: &AsidePrompt) -> (u64, Vec<AcpAction>) {
        self.next_key += 1;
        let key = self.next_key;
        let open = session::new_session_params(asked.kind, asked.cwd, false, None);
        let text = format!("{}\n\n{}", asked.instructions, asked.prompt);
        let phase = Phase::AwaitReady;
        let mut aside = Aside { key, kind: asked.kind, open, text, phase, progress: TurnProgress::default() };
        let actions = if ready { aside.open_session(client) } else { Vec::new() };
        self.open.push(aside);
        (key, actions)
    }

    /// Whether any side session is in flight (abandoned ones included).
    pub(crate) fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Takes what belongs to a side session and passes on the rest.
    pub(crate) fn route(&mut self, client: &mut AcpClient, delivery: Delivery) -> Routed {
        let mut routed = Routed::default();
        match delivery {
            Delivery::Ready => {
                for aside in self.open.iter_mut().filter(|a| a.phase == Phase::AwaitReady) {
                    routed.actions.extend(aside.open_session(client));
                }
                routed.pass = Some(Delivery::Ready);
            }
            Delivery::Reply { id, outcome } => match self.open.iter().position(|a| a.request() == Some(id)) {
                Some(at) => self.on_reply(at, client, outcome, &mut routed),
                None => routed.pass = Some(Delivery::Reply { id, outcome }),
            },
            Delivery::Update(update) => match self.open.iter_mut().find(|a| a.session() == Some(&update.session_id)) {
                Some(aside) => {
                    if matches!(aside.phase, Phase::Prompting { .. }) {
                        aside.progress.apply(update.update);
                    }
                }
                None => routed.pass = Some(Delivery::Update(update)),
            },
            Delivery::Permission { id, request } => {
                if self.open.iter().any(|a| a.session() == Some(&request.session_id)) {
                    // A side session may do nothing: it only writes text.
                    routed.actions.extend(client.answer(&id, &permission::rejected(&request)));
                } else {
                    routed.pass = Some(Delivery::Permission { id, request });
                }
            }
            Delivery::Failed(error) => {
                routed.ended = self.end_all(|| error.clone());
                routed.pass = Some(Delivery::Failed(error));
            }
        }
        routed
    }

    fn on_reply(&mut self, at: usize, client: &mut AcpClient, outcome: Result<Value, RpcError>, routed: &mut Routed) {
        let aside = &mut self.open[at];
        let agent = aside.kind.label().to_owned();
        let ended = match (&aside.phase, outcome) {
            (Phase::Abandoned { .. }, _) => None,
            (Phase::Opening { .. }, Ok(value)) => match messages::new_session_id(&value) {
                Ok(session) => {
                    routed.actions.extend(match session::mode_to_set(&value) {
                        Some(mode) => {
                            let (id, actions) =
                                client.request("session/set_mode", &session::set_mode_params(&session, mode));
                            aside.phase = Phase::SettingMode { session, id };
                            actions
                        }
                        None => aside.prompt(client, session),
                    });
                    return;
                }
                Err(what) => Some(Err(AcpError::Malformed {
                    agent,
                    what: format!("session/new's answer: {what}"),
                    command: aside.kind.name().into(),
                })),
            },
            (Phase::Opening { .. }, Err(error)) if error.code == AUTH_REQUIRED => {
                Some(Err(AcpError::Login { agent, login: aside.kind.login_command().to_owned() }))
            }
            (Phase::Opening { .. }, Err(error)) => {
                Some(Err(AcpError::Refused { agent, method: "session/new".into(), message: error.message }))
            }
            (Phase::SettingMode { session, .. }, Ok(_)) => {
                let session = session.clone();
                routed.actions.extend(aside.prompt(client, session));
                return;
            }
            (Phase::SettingMode { .. }, Err(error)) => {
                Some(Err(AcpError::Refused { agent, method: "session/set_mode".into(), message: error.message }))
            }
            (_, Ok(_)) => {
                let progress = std::mem::take(&mut aside.progress);
                Some(Ok(AsideAnswer { text: progress.text, usage: progress.usage }))
            }
            (_, Err(error)) => {
                Some(Err(AcpError::Refused { agent, method: "session/prompt".into(), message: error.message }))
            }
        };
        let aside = self.open.remove(at);
        routed.ended.extend(ended.map(|result| (aside.key, result)));
    }

    /// The caller stopped waiting for side session `key`: its prompt is cancelled, and what the
    /// agent still sends for it is taken and dropped.
    pub(crate) fn abandon(&mut self, client: &mut AcpClient, key: u64) -> Vec<AcpAction> {
        let Some(at) = self.open.iter().position(|a| a.key == key) else { return Vec::new() };
        let aside = &mut self.open[at];
        match aside.phase.clone() {
            Phase::AwaitReady => {
                self.open.remove(at);
                Vec::new()
            }
            Phase::Opening { id } => {
                aside.phase = Phase::Abandoned { session: None, id };
                Vec::new()
            }
            Phase::SettingMode { session, id } => {
                aside.phase = Phase::Abandoned { session: Some(session), id };
                Vec::new()
            }
            Phase::Prompting { session, id } => {
                let actions = client.notify("session/cancel", &session::cancel_params(&session));
                aside.phase = Phase::Abandoned { session: Some(session), id };
                actions
            }
            Phase::Abandoned { .. } => Vec::new(),
        }
    }

    /// The process was stopped: every side session in flight ends with an error.
    pub(crate) fn stopped(&mut self, agent: &str) -> Vec<AsideEnd> {
        self.end_all(|| AcpError::Exited {
            agent: agent.to_owned(),
            during: "before it answered a background prompt".into(),
            how: "stopped by the plugin".into(),
            stderr: String::new(),
        })
    }

    fn end_all(&mut self, error: impl Fn() -> AcpError) -> Vec<AsideEnd> {
        std::mem::take(&mut self.open)
            .into_iter()
            .filter(|a| !matches!(a.phase, Phase::Abandoned { .. }))
            .map(|a| (a.key, Err(error())))
            .collect()
    }
}

impl Aside {
    fn prompt(&mut self, client: &mut AcpClient, session: String) -> Vec<AcpAction> {
        let (id, actions) = client.request("session/prompt", &session::prompt_params(&session, &self.text));
        self.phase = Phase::Prompting { session, id };
        actions
    }

    fn open_session(&mut self, client: &mut AcpClient) -> Vec<AcpAction> {
        let (id, actions) = client.request("session/new", &self.open);
        self.phase = Phase::Opening { id };
        actions
    }

    /// The request whose answer it waits for.
    fn request(&self) -> Option<u64> {
        match &self.phase {
            Phase::AwaitReady => None,
            Phase::Opening { id }
            | Phase::SettingMode { id, .. }
            | Phase::Prompting { id, .. }
            | Phase::Abandoned { id, .. } => Some(*id),
        }
    }

    /// Its session, once made.
    fn session(&self) -> Option<&String> {
        match &self.phase {
            Phase::SettingMode { session, .. }
            | Phase::Prompting { session, .. }
            | Phase::Abandoned { session: Some(session), .. } => Some(session),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
