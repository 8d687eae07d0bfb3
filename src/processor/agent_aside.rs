//! Who answers the background prompts (a conversation's title and summary, the retrospection):
//! the built-in model's provider, or — when the chosen agent is the user's own and this device
//! can run it — that agent, in a side session of the process the turns use (`acp::aside`),
//! started as a turn starts it when it is not running. The conversation's own session never
//! sees these prompts, and a turn in flight never sees their updates. A failure is the caller's
//! to log, as a failed model call is.

use futures::channel::oneshot;
use futures::future::{select, Either};

use super::agent_turn::AGENT_SETUP_MS;
use super::handle::MessageProcessor;
use crate::acp::aside::{AsideAnswer, AsidePrompt};
use crate::acp::error::AcpError;
use crate::host::Host;
use crate::llm::{ErrorKind, LlmError, Usage};
use crate::settings::Settings;
use crate::summary::{background_text, BackgroundWriter};
use crate::usage::CallPurpose;

/// The longest a background prompt waits for the agent's answer (its start included); then
/// the side session is cancelled, or a start that never finished its handshake is stopped.
pub(crate) const ASIDE_MS: u64 = 5 * 60_000;

/// The background writer of the chosen agent, with the settings in force.
pub(super) struct ChosenWriter<'a, H: Host + 'static> {
    processor: &'a MessageProcessor<H>,
    settings: &'a Settings,
}

impl<H: Host + 'static> MessageProcessor<H> {
    /// Who answers background prompts with these settings.
    pub(super) fn background_writer<'a>(&'a self, settings: &'a Settings) -> ChosenWriter<'a, H> {
        ChosenWriter { processor: self, settings }
    }

    /// A background prompt in a side session of the agent (started if it is not running);
    /// its usage goes to the ledger as a background model call's does.
    async fn aside_text(
        &self,
        settings: &Settings,
        asked: &AsidePrompt<'_>,
        purpose: CallPurpose,
    ) -> Result<String, AcpError> {
        let launch = self.acp_launch(settings, asked.kind, asked.cwd)?;
        // The same process serves the turns: it is started with their note tools' port.
        let port = self.tools_port(asked.kind).await?;
        let ready = self.acp_bring_up(asked.kind, launch.clone(), port).await?;
        let (sender, answer) = oneshot::channel();
        let (key, actions) = {
            let mut client = self.inner.acp.client.borrow_mut();
            self.inner.acp.asides.borrow_mut().begin(&mut client, ready, asked)
        };
        self.inner.acp.aside_waiters.borrow_mut().insert(key, sender);
        self.acp_apply(actions, Vec::new());
        let timer = Box::pin(self.inner.host.sleep(ASIDE_MS));
        let answer: AsideAnswer = match select(answer, timer).await {
            Either::Left((Ok(result), _)) => result?,
            Either::Left((Err(_), _)) => return Err(AcpError::Unavailable("the agent's connection closed".into())),
            Either::Right(_) => return Err(self.aside_timed_out(asked, &launch, key)),
        };
        let usage = answer.usage.unwrap_or_default();
        // A side session is new, so its cumulative cost is all its own.
        let usage = Usage {
            model: asked.kind.label().to_owned(),
            context_tokens: usage.used,
            context_window: usage.size,
            cost_usd: usage.cost_usd,
            ..Usage::default()
        };
        crate::usage::record_agent_call(&self.inner.host, purpose, &usage).await;
        Ok(answer.text)
    }

    /// Gives up a side session that took too long: a process that never finished its handshake
    /// is stopped (as a turn's start is), else the side session's prompt is cancelled.
    fn aside_timed_out(&self, asked: &AsidePrompt<'_>, launch: &crate::acp::launch::Launch, key: u64) -> AcpError {
        self.inner.acp.aside_waiters.borrow_mut().remove(key);
        let mut client = self.inner.acp.client.borrow_mut();
        if client.starting_as(asked.kind, launch) {
            let (actions, error) = client.silent("initialize", AGENT_SETUP_MS / 1000);
            drop(client);
            self.acp_apply(actions, Vec::new());
            return error;
        }
        let actions = self.inner.acp.asides.borrow_mut().abandon(&mut client, key);
        drop(client);
        self.acp_apply(actions, Vec::new());
        let minutes = ASIDE_MS / 60_000;
        AcpError::Unavailable(format!(
            "{} did not answer a background prompt within {minutes} minutes",
            asked.kind.label()
        ))
    }
}

impl<H: Host + 'static> BackgroundWriter for ChosenWriter<'_, H> {
    async fn text(
        &self,
        purpose: CallPurpose,
        max_tokens: u32,
        instructions: &str,
        prompt: String,
    ) -> Result<String, LlmError> {
        let (processor, settings) = (self.processor, self.settings);
        let Some((kind, folder)) = processor.acp_agent(settings) else {
            return background_text(&processor.inner.host, settings, purpose, max_tokens, instructions, prompt).await;
        };
        let asked = AsidePrompt { kind, cwd: &folder, instructions, prompt: &prompt };
        processor
            .aside_text(settings, &asked, purpose)
            .await
            .map_err(|error| LlmError::new(ErrorKind::Agent, error.to_string()))
    }
}
