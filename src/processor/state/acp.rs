//! The agent process as the pipeline keeps it across turns: the connection's state machine
//! (`acp::client`), and the turn listening to it (one at a time, as the FIFO gate runs them).

use std::cell::{Cell, RefCell};

use futures::channel::mpsc::UnboundedSender;
use futures::channel::oneshot;
use futures::lock::Mutex;
use serde_json::Value;

use crate::acp::aside::{AsideAnswer, Asides};
use crate::acp::client::{AcpClient, Delivery};
use crate::acp::error::AcpError;
use crate::acp::launch::AgentKind;
use crate::acp::progress::AgentUsage;
use crate::tools::ToolOutput;

pub(crate) use super::tools_listener::{ListenerState, ToolsListener};

/// A call of one of the `smarthole` tools, handed from the MCP server to the turn whose prompt
/// is in flight; the turn runs it and answers on `reply`.
pub(crate) struct ServedCall {
    pub(crate) name: String,
    pub(crate) input: Value,
    pub(crate) reply: oneshot::Sender<ToolOutput>,
}

/// The ACP agent's connection and who listens to it.
#[derive(Default)]
pub(crate) struct AcpLink {
    pub(crate) client: RefCell<AcpClient>,
    listener: RefCell<Option<UnboundedSender<Delivery>>>,
    /// The user was told this device cannot start agents (once a session).
    pub(crate) told_unavailable: Cell<bool>,
    /// A prompt the user stopped whose answer has not come yet: its request id and session (the
    /// session's next prompt waits for it, so none of its late updates is taken for the next
    /// answer).
    pub(crate) cancelled: RefCell<Option<(u64, String)>>,
    /// The bearer token of the running agent process's `smarthole` MCP server (new for each
    /// process; a secret, masked in logs).
    pub(crate) mcp_token: RefCell<Option<String>>,
    /// The port of the `smarthole` server the running agent process was given (its sessions
    /// reach the server there; a new port starts a new process).
    pub(crate) mcp_port: Cell<Option<u16>>,
    /// The `smarthole` server's own listener, as the host reports it.
    pub(crate) tools_listener: ToolsListener,
    /// The turn whose prompt is in flight, taking the `smarthole` tool calls.
    tool_calls: RefCell<Option<UnboundedSender<ServedCall>>>,
    /// Whether the running agent process reached the `smarthole` server it was given
    /// (`acp::server_reach`: the notice when it never did).
    pub(crate) server_reach: RefCell<crate::acp::server_reach::ServerReach>,
    /// Each session's cumulative cost as the usage ledger last counted it (`agent_usage.rs`).
    pub(crate) counted_costs: RefCell<Vec<(String, f64)>>,
    /// Background prompts in side sessions of the process (`acp::aside`), and who waits on
    /// each (by key).
    pub(crate) asides: RefCell<Asides>,
    pub(crate) aside_waiters: RefCell<crate::lean::IdMap<oneshot::Sender<Result<AsideAnswer, AcpError>>>>,
    /// Held while deciding to start the process and starting it, so a turn and a background
    /// prompt arriving together start one process, not two.
    pub(crate) start_lock: Mutex<()>,
    /// The turn the user stopped, until its prompt's end is known: counted in the ledger then.
    pub(crate) stopped_spend: RefCell<Option<StoppedSpend>>,
}

/// What a stopped turn spent as the agent reported it, kept from the stop until its prompt's
/// answer (or the agent's end), when it goes to the usage ledger once (`agent_usage.rs`).
#[derive(Debug, Clone)]
pub(crate) struct StoppedSpend {
    /// The stopped prompt's request id.
    pub(crate) prompt: u64,
    pub(crate) session: String,
    /// The agent (its label is the ledger line's model).
    pub(crate) kind: AgentKind,
    /// Its last report of the session's context and cost.
    pub(crate) reported: Option<AgentUsage>,
}

impl AcpLink {
    /// Makes `sender` the turn hearing the agent until the guard is dropped.
    pub(crate) fn listen(&self, sender: UnboundedSender<Delivery>) -> ListenGuard<'_> {
        *self.listener.borrow_mut() = Some(sender);
        ListenGuard { link: self }
    }

    /// Hands a delivery to the turn listening; gives it back when none is.
    pub(crate) fn deliver(&self, delivery: Delivery) -> Option<Delivery> {
        match self.listener.borrow().as_ref() {
            Some(sender) => sender.unbounded_send(delivery).err().map(|e| e.into_inner()),
            None => Some(delivery),
        }
    }
}

impl AcpLink {
    /// Makes `sender` the turn running the `smarthole` tool calls until the guard is dropped.
    pub(crate) fn serve_tools(&self, sender: UnboundedSender<ServedCall>) -> ServeGuard<'_> {
        *self.tool_calls.borrow_mut() = Some(sender);
        ServeGuard { link: self }
    }

    /// Hands a tool call to the turn whose prompt is in flight; gives it back when none is.
    pub(crate) fn serve(&self, call: ServedCall) -> Result<(), ServedCall> {
        match self.tool_calls.borrow().as_ref() {
            Some(sender) => sender.unbounded_send(call).map_err(|e| e.into_inner()),
            None => Err(call),
        }
    }
}

/// Stops a turn taking tool calls, however its prompt ends.
pub(crate) struct ServeGuard<'a> {
    link: &'a AcpLink,
}

impl Drop for ServeGuard<'_> {
    fn drop(&mut self) {
        self.link.tool_calls.borrow_mut().take();
    }
}

/// Stops a turn hearing the agent, however the turn ends.
pub(crate) struct ListenGuard<'a> {
    link: &'a AcpLink,
}

impl Drop for ListenGuard<'_> {
    fn drop(&mut self) {
        self.link.listener.borrow_mut().take();
    }
}
