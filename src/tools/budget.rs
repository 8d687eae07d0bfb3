//! A tool call's time budget (DESIGN.md §6: a tool call on hostile input is answered within
//! 10 s) and its manners while it works: the core is single-threaded, so a long scan that never
//! gives the event loop a turn freezes chat, hub, agent API and Stop alike. A scan calls
//! [`Budget::pace`] between pieces of work: every few milliseconds of host time it sleeps for
//! 0 ms (a real turn of the host's event loop, where Stop and other messages arrive), every few
//! pieces it yields once to the executor (what the FakeHost and `join!`ed futures need), and
//! once the budget is spent it says so, and the scan returns what it has.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::host::Host;
use crate::host_types::Millis;

/// How long one tool call may work before it returns what it has.
pub(crate) const TOOL_BUDGET_MS: Millis = 10_000;
/// Host time between two turns of the event loop while a tool call works.
const YIELD_EVERY_MS: Millis = 16;
/// The same for background work (the search index's build, load and save): shorter, so that a
/// tool call running beside it still leaves the event loop a turn every ~20 ms, not every 32.
const BACKGROUND_YIELD_EVERY_MS: Millis = 4;
/// Pieces of work between two yields to the executor.
const YIELD_EVERY_STEPS: u32 = 32;

/// The clock and the manners of one tool call.
pub(crate) struct Budget<'h, H: Host> {
    host: &'h H,
    started: Millis,
    deadline: Millis,
    last_yield: Millis,
    yield_every: Millis,
    steps: u32,
}

impl<'h, H: Host> Budget<'h, H> {
    /// Starts the budget now.
    pub(crate) fn start(host: &'h H) -> Self {
        Self::with(host, TOOL_BUDGET_MS, YIELD_EVERY_MS)
    }

    /// Politer manners without a deadline: background work (the search index's build, load and
    /// save) that must never hold the event loop, least of all while a tool call works beside it.
    pub(crate) fn unbounded(host: &'h H) -> Self {
        Self::with(host, Millis::MAX, BACKGROUND_YIELD_EVERY_MS)
    }

    fn with(host: &'h H, budget_ms: Millis, yield_every: Millis) -> Self {
        let now = host.now_ms();
        Budget { host, started: now, deadline: now.saturating_add(budget_ms), last_yield: now, yield_every, steps: 0 }
    }

    /// Whole seconds since the start, at least 1 (for "stopped after 10 s").
    pub(crate) fn elapsed_s(&self) -> u64 {
        (self.host.now_ms().saturating_sub(self.started) / 1000).max(1)
    }

    /// Between two pieces of work: lets the host breathe now and then; `false` once the budget is
    /// spent (the caller stops and says so).
    pub(crate) async fn pace(&mut self) -> bool {
        self.steps = self.steps.wrapping_add(1);
        let now = self.host.now_ms();
        if now >= self.deadline {
            return false;
        }
        if now.saturating_sub(self.last_yield) >= self.yield_every {
            self.host.sleep(0).await;
            YieldOnce(false).await;
            self.last_yield = self.host.now_ms();
        } else if self.steps % YIELD_EVERY_STEPS == 0 {
            YieldOnce(false).await;
        }
        true
    }
}

/// Runs the futures together and gives their outputs in order: several reads asked of the host
/// at once overlap. (`futures::future::join_all` does the same, with a second strategy for long
/// lists that costs the bundle kilobytes; the lists here are a few dozen at most.)
pub(crate) async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<Option<Pin<Box<F>>>> = futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut out: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut done = true;
        for (slot, result) in pending.iter_mut().zip(out.iter_mut()) {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *result = Some(v);
                        *slot = None;
                    }
                    Poll::Pending => done = false,
                }
            }
        }
        if done {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

/// Pending once, waking itself: the executor polls whatever else is ready first.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// `12345` → `12,345`, for counts the model and the user read.
pub(crate) fn thousands(n: usize) -> String {
    crate::lean::thousands(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234), "1,234");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
