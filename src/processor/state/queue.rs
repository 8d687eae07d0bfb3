//! A first-in, first-out gate: messages from every source run one at a time, in the order they
//! arrived. A ticket is taken synchronously on arrival (so arrival order is call order), waited
//! on, and releases the gate when dropped — even if its message is abandoned mid-way.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct State {
    next: u64,
    waiting: VecDeque<u64>,
    running: Option<u64>,
    wakers: crate::lean::IdMap<Waker>,
}

impl State {
    fn wake_front(&mut self) {
        if self.running.is_none() {
            if let Some(front) = self.waiting.front() {
                if let Some(waker) = self.wakers.remove(*front) {
                    waker.wake();
                }
            }
        }
    }
}

/// The gate.
#[derive(Default)]
pub(crate) struct FifoQueue {
    state: RefCell<State>,
}

impl FifoQueue {
    /// A place in line.
    pub(crate) fn ticket(self: &Rc<Self>) -> Ticket {
        let mut state = self.state.borrow_mut();
        let id = state.next;
        state.next += 1;
        state.waiting.push_back(id);
        Ticket { queue: Rc::clone(self), id }
    }

    /// Messages waiting, the running one excluded.
    pub(crate) fn waiting(&self) -> usize {
        self.state.borrow().waiting.len()
    }
}

/// A place in line; dropping it leaves the line or releases the gate.
pub(crate) struct Ticket {
    queue: Rc<FifoQueue>,
    id: u64,
}

impl Ticket {
    /// Resolves when this ticket holds the gate.
    pub(crate) fn wait(&self) -> TicketWait<'_> {
        TicketWait { ticket: self }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut state = self.queue.state.borrow_mut();
        if state.running == Some(self.id) {
            state.running = None;
        } else {
            state.waiting.retain(|id| *id != self.id);
            state.wakers.remove(self.id);
        }
        state.wake_front();
    }
}

/// The future of [`Ticket::wait`].
pub(crate) struct TicketWait<'a> {
    ticket: &'a Ticket,
}

impl Future for TicketWait<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let id = self.ticket.id;
        let mut state = self.ticket.queue.state.borrow_mut();
        if state.running == Some(id) {
            return Poll::Ready(());
        }
        if state.running.is_none() && state.waiting.front() == Some(&id) {
            state.waiting.pop_front();
            state.running = Some(id);
            return Poll::Ready(());
        }
        state.wakers.insert(id, cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;

    #[test]
    fn tickets_run_in_order_one_at_a_time_and_abandoned_ones_step_aside() {
        let queue = Rc::new(FifoQueue::default());
        let log = Rc::new(RefCell::new(Vec::new()));
        let mut pool = LocalPool::new();
        let t0 = queue.ticket();
        let t1 = queue.ticket();
        let t2 = queue.ticket();
        drop(t1);
        for (name, ticket) in [("a", t0), ("c", t2)] {
            let log = log.clone();
            pool.spawner()
                .spawn_local(async move {
                    ticket.wait().await;
                    log.borrow_mut().push(format!("{name} start"));
                    futures::future::ready(()).await;
                    log.borrow_mut().push(format!("{name} end"));
                })
                .unwrap();
        }
        pool.run();
        assert_eq!(*log.borrow(), ["a start", "a end", "c start", "c end"]);
        assert_eq!(queue.waiting(), 0);
    }
}
