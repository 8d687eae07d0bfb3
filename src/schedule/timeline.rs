//! The schedules' timeline: background conversations by the time of their next run, so the
//! worker takes the due ones from the front instead of scanning every conversation each tick.

use crate::host_types::Millis;

/// Due runs, ordered by time: the worker takes from the front instead of scanning every
/// conversation.
#[derive(Debug, Default)]
pub(crate) struct Timeline {
    entries: Vec<(Millis, String)>,
}

impl Timeline {
    /// Puts a conversation at its next run (replacing where it was); `None` takes it out.
    pub(crate) fn set(&mut self, conversation: &str, next: Option<Millis>) {
        self.entries.retain(|(_, id)| id != conversation);
        if let Some(at) = next {
            let i = self.entries.partition_point(|(t, id)| (*t, id.as_str()) < (at, conversation));
            self.entries.insert(i, (at, conversation.to_owned()));
        }
    }

    /// The conversations due at `now`, earliest first.
    pub(crate) fn due(&self, now: Millis) -> Vec<String> {
        self.entries.iter().take_while(|(t, _)| *t <= now).map(|(_, id)| id.clone()).collect()
    }

    /// The earliest run.
    #[cfg(test)]
    pub(crate) fn first(&self) -> Option<(Millis, &str)> {
        self.entries.first().map(|(t, id)| (*t, id.as_str()))
    }

    /// Runs waiting.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}
