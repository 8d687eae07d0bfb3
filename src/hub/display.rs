//! How answers look on the hub's screen. The hub's display queue merges notifications of the same
//! title within 5 s (keeping only the newest body), shows at most 10 a minute, at least 1 s apart,
//! and drops normal ones when more than 20 wait. So the plugin paces its own notifications below
//! that rate and never reuses a title within the merge window: an answer goes out at once when a
//! slot is free, under the settings' title (or, if that was used moments ago, a title made from
//! the request); answers that come faster wait for the next slot and go out together as one
//! notification listing each request with its answer's gist — at most [`LIST_MAX_ITEMS`], every
//! one named; the rest wait for the slot after. A notification goes under an id the hub still
//! knows ([`HubMemory`]). Plain decisions, no I/O: the processor asks, sends what it is given, and
//! wakes the pacer when told.

use std::collections::VecDeque;

use super::bodies::{answer_body, list_body};
use super::frames::{notification_frame, shorten_to_plain_text, Priority};
use super::memory::HubMemory;
use crate::host_types::Millis;

/// The hub's window for merging notifications of the same title (5 s), with a margin.
pub(crate) const TITLE_REUSE_MS: Millis = 6_000;
/// At most this many notifications in any minute (the hub shows 10).
const PER_MINUTE: usize = 10;
/// Never two closer than this (the hub shows one a second).
const MIN_GAP_MS: Millis = 1_200;
/// In a burst, one notification per this much time: ten a minute, evenly, so a long burst never
/// fills the hub's queue and each notification carries a few answers rather than many.
pub(crate) const BURST_SPACING_MS: Millis = 6_500;
/// Most answers one notification lists, each by name; the rest wait for the next slot.
pub(crate) const LIST_MAX_ITEMS: usize = 20;
/// While no id the hub knows can carry a notification yet (a message's ack is about to go out),
/// try again after this long…
const HOLD_RETRY_MS: Millis = 500;
/// …for at most this long; then it goes under its own id.
const HOLD_MAX_MS: Millis = 10_000;

/// An answer (or question, or error) waiting for its notification.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub(crate) message_id: String,
    /// The user's request, as sent (Markdown or plain).
    pub(crate) request: String,
    /// What to tell (Markdown).
    pub(crate) text: String,
    pub(crate) priority: Priority,
    /// When the message was sent (for how long the hub still knows its id).
    pub(crate) message_at: Millis,
}

/// A notification ready to send: the frame, and the message whose id it goes under.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ready {
    pub(crate) message_id: String,
    pub(crate) message_at: Millis,
    pub(crate) frame: String,
    /// How many answers it carries.
    pub(crate) answers: usize,
}

/// What to do with an answer offered to the pacer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Paced {
    /// Send this now.
    Now(Ready),
    /// It waits; call [`Pacer::due`] at this time.
    WakeAt(Millis),
    /// It joins answers that already wait for a wake-up.
    Waiting,
}

/// The plugin's side of the hub's display limits.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    /// When notifications went out, the last minute's.
    sent: VecDeque<Millis>,
    /// Titles used lately, with when.
    titles: VecDeque<(String, Millis)>,
    waiting: Vec<Answer>,
    /// Since when the answers waiting have been held for an id to go under.
    held_since: Option<Millis>,
}

impl Pacer {
    /// The earliest time at or after `now` a notification may go out.
    pub(crate) fn next_slot(&self, now: Millis) -> Millis {
        let mut at = now;
        let n = self.sent.len();
        if let Some(&last) = self.sent.back() {
            at = at.max(last + MIN_GAP_MS);
            let second = if n >= 2 { self.sent[n - 2] + 2 * BURST_SPACING_MS } else { 0 };
            if at < last + BURST_SPACING_MS && at < second {
                at = (last + BURST_SPACING_MS).min(second);
            }
        }
        if n >= PER_MINUTE {
            at = at.max(self.sent[n - PER_MINUTE] + 60_001);
        }
        at
    }

    /// An answer to show on the hub, with `title` the settings' notification title.
    pub(crate) fn offer(&mut self, answer: Answer, title: &str, now: Millis, memory: &HubMemory) -> Paced {
        let had_waiting = !self.waiting.is_empty();
        self.waiting.push(answer);
        if had_waiting {
            return Paced::Waiting;
        }
        let slot = self.next_slot(now);
        if slot > now {
            return Paced::WakeAt(slot);
        }
        match self.take(title, now, memory) {
            Ok(Some(ready)) => Paced::Now(ready),
            Ok(None) => Paced::Waiting,
            Err(at) => Paced::WakeAt(at),
        }
    }

    /// A wake-up: the answers that waited (the oldest [`LIST_MAX_ITEMS`]), as one notification,
    /// if their slot has come; else when to try again. Call [`Pacer::next_wake`] after it.
    pub(crate) fn due(&mut self, title: &str, now: Millis, memory: &HubMemory) -> Result<Option<Ready>, Millis> {
        if self.waiting.is_empty() {
            return Ok(None);
        }
        let slot = self.next_slot(now);
        if slot > now {
            return Err(slot);
        }
        self.take(title, now, memory)
    }

    /// When to wake for the answers still waiting, if any do.
    pub(crate) fn next_wake(&self, now: Millis) -> Option<Millis> {
        (!self.waiting.is_empty()).then(|| self.next_slot(now))
    }

    /// Every answer still waiting, taken out (the connection was lost: they are told another way).
    pub(crate) fn take_waiting(&mut self) -> Vec<Answer> {
        std::mem::take(&mut self.waiting)
    }

    /// Answers still waiting for a slot.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Builds the notification for the oldest answers waiting, at most [`LIST_MAX_ITEMS`], and
    /// counts it as sent; or, while no id the hub knows can carry it yet, when to try again.
    fn take(&mut self, base_title: &str, now: Millis, memory: &HubMemory) -> Result<Option<Ready>, Millis> {
        let count = self.waiting.len().min(LIST_MAX_ITEMS);
        let ids: Vec<&str> = self.waiting[..count].iter().map(|a| a.message_id.as_str()).collect();
        let message_id = match memory.id_for(&ids) {
            Some(id) => id.to_owned(),
            None => {
                let since = *self.held_since.get_or_insert(now);
                if now.saturating_sub(since) < HOLD_MAX_MS {
                    return Err(now + HOLD_RETRY_MS);
                }
                ids.last().map(|id| (*id).to_owned()).unwrap_or_default()
            }
        };
        self.held_since = None;
        let answers: Vec<Answer> = self.waiting.drain(..count).collect();
        let Some(newest) = answers.last().cloned() else { return Ok(None) };
        self.titles.retain(|(_, at)| now.saturating_sub(*at) < TITLE_REUSE_MS);
        while self.sent.front().is_some_and(|at| now.saturating_sub(*at) > 60_000) {
            self.sent.pop_front();
        }
        let priority =
            if answers.iter().any(|a| a.priority == Priority::High) { Priority::High } else { Priority::Normal };
        let (title, body) = if answers.len() == 1 {
            (self.single_title(base_title, &newest.request), answer_body(&newest.text))
        } else {
            let items: Vec<(&str, &str)> = answers.iter().map(|a| (a.request.as_str(), a.text.as_str())).collect();
            (self.unused(format!("{base_title}: {} answers", answers.len())), list_body(&items))
        };
        self.titles.push_back((title.clone(), now));
        self.sent.push_back(now);
        Ok(Some(Ready {
            frame: notification_frame(&message_id, &title, &body, priority),
            message_id,
            message_at: newest.message_at,
            answers: answers.len(),
        }))
    }

    /// The settings' title, or — used moments ago, so the hub would merge the two — one made
    /// from the request.
    fn single_title(&self, base: &str, request: &str) -> String {
        if !self.used(base) {
            return base.to_owned();
        }
        let gist = shorten_to_plain_text(request, 40);
        if gist.is_empty() {
            return self.unused(base.to_owned());
        }
        self.unused(format!("{base}: {gist}"))
    }

    fn used(&self, title: &str) -> bool {
        self.titles.iter().any(|(t, _)| t == title)
    }

    /// `title`, numbered if it was used moments ago.
    fn unused(&self, title: String) -> String {
        if !self.used(&title) {
            return title;
        }
        (2..).map(|n| format!("{title} ({n})")).find(|t| !self.used(t)).unwrap_or(title)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn answer(i: usize) -> Answer {
        Answer {
            message_id: format!("m{i}"),
            request: format!("request number {i}"),
            text: format!("answer number {i}"),
            priority: Priority::Normal,
            message_at: 0,
        }
    }

    /// A hub that routed (and was acked) every answer's message, `m0` to `m{count - 1}`.
    fn knowing(count: usize) -> HubMemory {
        let mut memory = HubMemory::default();
        for i in 0..count {
            memory.routed(&format!("m{i}"));
            memory.answered(&format!("m{i}"));
        }
        memory
    }

    fn payload(ready: &Ready) -> Value {
        let v: Value = serde_json::from_str(&ready.frame).unwrap();
        v["payload"]["payload"].clone()
    }

    /// Offers one answer a second for `count` seconds, waking the pacer when asked; returns
    /// every notification with its time.
    fn burst(count: usize) -> Vec<(Millis, Ready)> {
        let mut pacer = Pacer::default();
        let memory = knowing(count);
        let mut out = Vec::new();
        let mut wake: Option<Millis> = None;
        let mut now = 0;
        let mut offered = 0;
        while offered < count || pacer.waiting() > 0 {
            if let Some(at) = wake.filter(|at| *at <= now) {
                wake = None;
                match pacer.due("Obsidian", at, &memory) {
                    Ok(Some(ready)) => out.push((at, ready)),
                    Ok(None) => {}
                    Err(later) => wake = Some(later),
                }
            }
            if offered < count && now == offered as Millis * 1_000 {
                match pacer.offer(answer(offered), "Obsidian", now, &memory) {
                    Paced::Now(ready) => out.push((now, ready)),
                    Paced::WakeAt(at) => wake = Some(at),
                    Paced::Waiting => {}
                }
                offered += 1;
            }
            now += 100;
        }
        out
    }

    #[test]
    fn a_burst_keeps_to_the_hubs_limits_and_every_answer_is_listed() {
        for count in [5, 20, 100] {
            let sent = burst(count);
            assert_eq!(sent.iter().map(|(_, r)| r.answers).sum::<usize>(), count, "{count}: every answer once");
            for pair in sent.windows(2) {
                assert!(pair[1].0 - pair[0].0 >= MIN_GAP_MS, "{count}: at least 1 s apart");
            }
            for (i, (at, _)) in sent.iter().enumerate() {
                let in_minute = sent[..=i].iter().filter(|(t, _)| at - t < 60_000).count();
                assert!(in_minute <= PER_MINUTE, "{count}: {in_minute} in the minute before {at}");
            }
            for pair in sent.windows(2) {
                let (a, b) = (payload(&pair[0].1), payload(&pair[1].1));
                assert!(pair[1].0 - pair[0].0 >= TITLE_REUSE_MS || a["title"] != b["title"], "{count}: no merge");
            }
            let bodies: String = sent.iter().map(|(_, r)| payload(r)["body"].as_str().unwrap().to_owned()).collect();
            for i in 0..count {
                assert!(bodies.contains(&format!("answer number {i}")), "{count}: answer {i} is shown");
            }
            // Readable: a few answers per notification, never dozens.
            assert!(
                sent.iter().all(|(_, r)| r.answers <= 8),
                "{count}: {:?}",
                sent.iter().map(|(_, r)| r.answers).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_lone_answer_goes_at_once_under_the_settings_title_and_a_close_second_gets_its_own() {
        let mut pacer = Pacer::default();
        let memory = knowing(4);
        let Paced::Now(first) = pacer.offer(answer(1), "Obsidian", 0, &memory) else { panic!("not at once") };
        assert_eq!(payload(&first)["title"], "Obsidian");
        assert_eq!(payload(&first)["body"], "answer number 1");
        let Paced::Now(second) = pacer.offer(answer(2), "Obsidian", 3_000, &memory) else {
            panic!("the second of a pair goes at once")
        };
        assert_eq!(payload(&second)["title"], "Obsidian: request number 2");
        assert_eq!(second.message_id, "m2");
        // Later than the merge window, the plain title again.
        assert_eq!(pacer.offer(answer(3), "Obsidian", 4_000, &memory), Paced::WakeAt(3_000 + BURST_SPACING_MS));
        let ready = pacer.due("Obsidian", 20_000, &memory).unwrap().unwrap();
        assert_eq!(payload(&ready)["title"], "Obsidian");
    }

    #[test]
    fn answers_that_waited_go_as_one_list_under_the_newest_id_with_the_highest_priority() {
        let mut pacer = Pacer::default();
        let memory = knowing(4);
        assert!(matches!(pacer.offer(answer(0), "Obsidian", 0, &memory), Paced::Now(_)));
        assert!(matches!(pacer.offer(answer(1), "Obsidian", 1_200, &memory), Paced::Now(_)));
        assert_eq!(pacer.offer(answer(2), "Obsidian", 2_000, &memory), Paced::WakeAt(1_200 + BURST_SPACING_MS));
        let mut high = answer(3);
        high.priority = Priority::High;
        assert_eq!(pacer.offer(high, "Obsidian", 3_000, &memory), Paced::Waiting);
        assert_eq!(pacer.due("Obsidian", 5_000, &memory), Err(1_200 + BURST_SPACING_MS));
        let ready = pacer.due("Obsidian", 1_200 + BURST_SPACING_MS, &memory).unwrap().unwrap();
        assert_eq!((ready.message_id.as_str(), ready.answers), ("m3", 2));
        let p = payload(&ready);
        assert_eq!(p["title"], "Obsidian: 2 answers");
        assert_eq!(p["priority"], "high");
        assert_eq!(
            p["body"],
            "• request number 2: answer number 2\n• request number 3: answer number 3\nFull answers in Obsidian."
        );
        assert_eq!(pacer.due("Obsidian", 100_000, &memory), Ok(None));
        assert_eq!(pacer.next_wake(100_000), None);
    }

    #[test]
    fn an_answer_the_hub_forgot_waits_for_an_ack_to_go_under_for_a_while_then_goes_under_its_own() {
        let mut memory = HubMemory::default();
        for i in 1..=80 {
            memory.routed(&format!("m{i}"));
        }
        let mut pacer = Pacer::default();
        assert_eq!(pacer.offer(answer(0), "Obsidian", 0, &memory), Paced::WakeAt(HOLD_RETRY_MS));
        assert_eq!(pacer.due("Obsidian", HOLD_RETRY_MS, &memory), Err(2 * HOLD_RETRY_MS));
        memory.answered("m7");
        let ready = pacer.due("Obsidian", 2 * HOLD_RETRY_MS, &memory).unwrap().unwrap();
        assert_eq!(ready.message_id, "m7");
        // No ack ever comes: after a while, under its own id.
        let mut memory = HubMemory::default();
        memory.routed("m1");
        let mut pacer = Pacer::default();
        assert_eq!(pacer.offer(answer(0), "Obsidian", 0, &memory), Paced::WakeAt(HOLD_RETRY_MS));
        assert_eq!(pacer.due("Obsidian", HOLD_MAX_MS - 1, &memory), Err(HOLD_MAX_MS - 1 + HOLD_RETRY_MS));
        assert_eq!(pacer.due("Obsidian", HOLD_MAX_MS, &memory).unwrap().unwrap().message_id, "m0");
    }

    /// Issue 32: 110 answers at once, the first ten of them about messages the hub forgot before
    /// they were answered (it routed all 110 first).
    #[test]
    fn answers_at_once_go_at_most_twenty_a_notification_each_named_under_an_id_the_hub_knows() {
        let mut pacer = Pacer::default();
        let memory = knowing(110);
        let mut sent = Vec::new();
        let mut wake = None;
        for i in 0..110 {
            match pacer.offer(answer(i), "Obsidian", 0, &memory) {
                Paced::Now(ready) => sent.push(ready),
                Paced::WakeAt(at) => wake = Some(at),
                Paced::Waiting => {}
            }
        }
        while let Some(at) = wake.take() {
            sent.push(pacer.due("Obsidian", at, &memory).unwrap().unwrap());
            wake = pacer.next_wake(at);
        }
        assert_eq!(sent.iter().map(|r| r.answers).sum::<usize>(), 110);
        assert!(sent.iter().all(|r| r.answers <= LIST_MAX_ITEMS));
        assert!(
            sent.iter().all(|r| memory.knows(&r.message_id)),
            "{:?}",
            sent.iter().map(|r| &r.message_id).collect::<Vec<_>>()
        );
        assert_eq!(sent[0].message_id, "m109", "the first answer's own id is forgotten: the newest instead");
        let bodies: Vec<String> = sent.iter().map(|r| payload(r)["body"].as_str().unwrap().to_owned()).collect();
        for i in 0..110 {
            let named = format!("answer number {i}");
            assert!(bodies.iter().flat_map(|b| b.lines()).any(|l| l.ends_with(&named)), "answer {i} is named");
        }
    }
}
