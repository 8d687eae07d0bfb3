//! The fake host's executor and clock: `run` drives a future with the background tasks, and
//! whenever nothing can make progress moves virtual time to the next timer (a deadlock panics
//! with what was pending); `run_until` stops at a crash point and freezes the host as a killed
//! process would leave it; `Sleep` is a virtual-time timer.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::state::{FakeHost, MAX_RUN_MS};
use crate::event::Event;
use crate::host::Host;
use crate::host_types::Millis;

impl FakeHost {
    /// The current virtual time.
    pub fn now(&self) -> Millis {
        self.state.now.get()
    }

    /// Makes every reading of the clock through `Host::now_ms` move it `ms` forward: the core's
    /// own work then takes virtual time, as on a slow machine (deadlines inside a tool call).
    pub fn set_clock_step(&self, ms: Millis) {
        self.state.clock_step.set(ms);
    }

    /// Moves the clock forward, firing due timers.
    pub fn advance(&self, ms: Millis) {
        self.state.now.set(self.state.now.get() + ms);
        self.fire_due();
    }

    pub(super) fn fire_due(&self) {
        let now = self.state.now.get();
        let mut timers = self.state.timers.borrow_mut();
        let due: Vec<u64> = timers.pending.iter().filter(|(_, at)| **at <= now).map(|(id, _)| *id).collect();
        for id in due {
            timers.pending.remove(&id);
            if let Some(waker) = timers.wakers.remove(&id) {
                waker.wake();
            }
        }
    }

    /// Runs a future to completion in virtual time (background tasks run alongside it).
    pub fn run<F: Future>(&self, fut: F) -> F::Output {
        self.run_until(fut, |_| false).expect("the future was stopped though no event could stop it")
    }

    /// Lets `ms` of virtual time pass, running background tasks.
    pub fn run_for(&self, ms: Millis) {
        self.run(self.sleep(ms));
    }

    /// Background tasks not finished yet.
    pub fn background_tasks(&self) -> usize {
        self.state.tasks.borrow().len() + self.state.spawned.borrow().len()
    }

    /// Polls every background task once; finished ones are dropped.
    pub(super) fn poll_tasks(&self, cx: &mut Context<'_>) {
        let mut tasks = std::mem::take(&mut *self.state.tasks.borrow_mut());
        tasks.append(&mut self.state.spawned.borrow_mut());
        tasks.retain_mut(|task| task.as_mut().poll(cx).is_pending());
        let mut slot = self.state.tasks.borrow_mut();
        tasks.append(&mut slot);
        *slot = tasks;
    }

    /// Runs a future until it completes (`Some`) or until an emitted event matches `crash_at`
    /// (`None`). At that event the host freezes — no file, network, hub or timer operation
    /// completes after it, as if the process were killed right there — and the future and every
    /// background task are dropped. The host is usable again afterwards, with the files as the
    /// crash left them.
    pub fn run_until<F: Future>(&self, fut: F, crash_at: impl FnMut(&Event) -> bool + 'static) -> Option<F::Output> {
        struct Flag(AtomicBool);
        impl Wake for Flag {
            fn wake(self: Arc<Self>) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        *self.state.crash_at.borrow_mut() = Some(Box::new(crash_at));
        let flag = Arc::new(Flag(AtomicBool::new(true)));
        let waker = Waker::from(flag.clone());
        let mut cx = Context::from_waker(&waker);
        let mut fut = Box::pin(fut);
        let started = self.now();
        let outcome = loop {
            if flag.0.swap(false, Ordering::SeqCst) {
                if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
                    break Some(out);
                }
                self.poll_tasks(&mut cx);
            }
            if self.state.frozen.get() {
                break None;
            }
            if flag.0.load(Ordering::SeqCst) || !self.state.spawned.borrow().is_empty() {
                flag.0.store(true, Ordering::SeqCst);
                continue;
            }
            let next = self.state.timers.borrow().pending.values().min().copied();
            match next {
                Some(at) => {
                    assert!(at - started <= MAX_RUN_MS, "virtual time ran for a week without the future finishing");
                    if at > self.state.now.get() {
                        self.state.now.set(at);
                    }
                    self.fire_due();
                }
                None => {
                    panic!("deadlock: the future is pending with no timer left (script left: {})", self.script_left())
                }
            }
        };
        drop(fut);
        self.state.crash_at.borrow_mut().take();
        if self.state.frozen.get() {
            // The process is gone: so is everything it was doing.
            self.state.tasks.borrow_mut().clear();
            self.state.spawned.borrow_mut().clear();
            self.state.timers.borrow_mut().pending.clear();
            self.state.frozen.set(false);
        }
        outcome
    }

    /// After a crash point nothing completes.
    pub(super) async fn alive(&self) {
        if self.state.frozen.get() {
            std::future::pending::<()>().await;
        }
    }
}

/// A virtual-time sleep.
pub struct Sleep {
    pub(super) host: FakeHost,
    pub(super) deadline: Millis,
    pub(super) id: Option<u64>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.host.now() >= self.deadline {
            return Poll::Ready(());
        }
        let host = self.host.clone();
        let mut timers = host.state.timers.borrow_mut();
        let id = match self.id {
            Some(id) => id,
            None => {
                let id = timers.next_id;
                timers.next_id += 1;
                timers.pending.insert(id, self.deadline);
                self.id = Some(id);
                id
            }
        };
        timers.wakers.insert(id, cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let mut timers = self.host.state.timers.borrow_mut();
            timers.pending.remove(&id);
            timers.wakers.remove(&id);
        }
    }
}
