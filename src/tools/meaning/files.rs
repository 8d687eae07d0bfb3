//! The meaning index's files (`vault::meaning::saved`'s format) read at start and written as it
//! changes: appended to, rewritten only when a file must be, a piece at a time with the event
//! loop turning between.

use super::{Meaning, MAX_FILE_BYTES, NOTES_PER_STEP};
use crate::bounded::{read_bounded, Bounded};
use crate::host::Host;
use crate::host_types::LogLevel;
use crate::tools::budget::Budget;
use crate::vault::meaning::index::MeaningIndex;
use crate::vault::meaning::saved;

impl Meaning {
    /// Reads the persisted index: the notes' file, then each shard. A damaged file is left out
    /// (what it held is cut or embedded again) and the log says so.
    pub(super) async fn load<H: Host>(&self, host: &H) {
        let Ok(Bounded::Text(text)) = read_bounded(host, saved::NOTES_FILE, MAX_FILE_BYTES).await else { return };
        let mut pace = Budget::unbounded(host);
        let read = match saved::NotesReader::new(&text) {
            Ok(mut reader) => loop {
                match reader.step(NOTES_PER_STEP) {
                    Ok(true) => break Ok(reader.finish()),
                    Ok(false) => {
                        pace.pace().await;
                    }
                    Err(e) => break Err(e),
                }
            },
            Err(e) => Err(e),
        };
        let read = match read {
            Ok(read) => read,
            Err(e) => {
                host.log(
                    LogLevel::Warn,
                    &format!("the meaning index's notes file is damaged ({e}); the meaning index is rebuilt"),
                );
                return;
            }
        };
        drop(text);
        let mut unsaved = saved::Unsaved {
            rewrite_notes: read.torn,
            note_lines: read.lines,
            header: Some(read.made.clone()),
            ..Default::default()
        };
        unsaved.rewrite_shards.clear();
        for (n, (path, note)) in read.notes.into_iter().enumerate() {
            if n % NOTES_PER_STEP == 0 {
                pace.pace().await;
            }
            self.index.borrow_mut().set_note(&path, note);
        }
        for shard in 0..saved::SHARDS {
            pace.pace().await;
            let file = saved::shard_file(shard);
            let Ok(Bounded::Text(text)) = read_bounded(host, &file, MAX_FILE_BYTES).await else {
                unsaved.rewrite_shards.insert(shard);
                continue;
            };
            match saved::read_shard(&text, shard, read.made.dims) {
                Ok((vectors, torn)) => {
                    let mut index = self.index.borrow_mut();
                    unsaved.shard_lines[shard] = vectors.len();
                    for (key, q) in vectors {
                        // A vector no note names (dropped since it was written) is a dead line.
                        if !matches!(index.add_quantized(key, &q), Ok(true)) {
                            unsaved.shard_dead[shard] += 1;
                        }
                    }
                    if torn {
                        unsaved.rewrite_shards.insert(shard);
                    }
                }
                Err(e) => {
                    host.log(LogLevel::Warn, &format!("{file} is damaged ({e}); its vectors are embedded again"));
                    unsaved.rewrite_shards.insert(shard);
                }
            }
        }
        *self.unsaved.borrow_mut() = unsaved;
        *self.made.borrow_mut() = Some(read.made);
    }

    /// Writes what changed since last written: each shard's new vectors appended (or the shard
    /// rewritten, when it must be), then the notes' changed lines likewise.
    pub(crate) async fn save<H: Host>(&self, host: &H) {
        let made = self.made.borrow().clone();
        let Some(mut made) = made else { return };
        made.dims = self.with(|i| i.dims()).unwrap_or(made.dims);
        if self.unsaved.borrow().is_empty(&made) {
            return;
        }
        let mut pace = Budget::unbounded(host);
        let keys = std::mem::take(&mut self.unsaved.borrow_mut().vectors);
        for shard in 0..saved::SHARDS {
            let rewrite = self.unsaved.borrow().rewrites_shard(shard);
            let written = if rewrite {
                pace.pace().await;
                let (text, lines) = self.with(|i| saved::shard_text(i, shard));
                let result = host.write_file_atomic(&saved::shard_file(shard), &text).await;
                if result.is_ok() {
                    let mut unsaved = self.unsaved.borrow_mut();
                    unsaved.rewrite_shards.remove(shard);
                    unsaved.shard_lines[shard] = lines;
                    unsaved.shard_dead[shard] = 0;
                }
                result
            } else {
                let (text, lines) = self.with(|index| {
                    let mut text = String::new();
                    let mut lines = 0;
                    for &key in keys.iter().filter(|&&k| saved::shard_of(k) == shard) {
                        if let Some(q) = index.vector_of(key) {
                            text.push_str(&saved::vector_line(key, q));
                            lines += 1;
                        }
                    }
                    (text, lines)
                });
                if lines == 0 {
                    continue;
                }
                let result = host.append_file(&saved::shard_file(shard), &text).await;
                if result.is_ok() {
                    self.unsaved.borrow_mut().shard_lines[shard] += lines;
                }
                result
            };
            if let Err(e) = written {
                // Whatever reached the file, a rewrite makes it right.
                self.unsaved.borrow_mut().rewrite_shards.insert(shard);
                host.log(LogLevel::Warn, &format!("could not write the meaning index: {e}"));
            }
        }
        let live = self.with(MeaningIndex::notes);
        let paths = std::mem::take(&mut self.unsaved.borrow_mut().notes);
        let rewrite = self.unsaved.borrow().rewrites_notes(live, &made);
        let (text, lines) = if rewrite {
            (self.with(|i| saved::notes_text(&made, i)), live)
        } else {
            let text: String = self.with(|i| paths.iter().map(|p| saved::note_line(p, i.note(p))).collect());
            (text, paths.len())
        };
        if lines == 0 && !rewrite {
            return;
        }
        let written = if rewrite {
            host.write_file_atomic(saved::NOTES_FILE, &text).await
        } else {
            host.append_file(saved::NOTES_FILE, &text).await
        };
        let mut unsaved = self.unsaved.borrow_mut();
        match written {
            Ok(()) if rewrite => {
                unsaved.rewrite_notes = false;
                unsaved.note_lines = lines;
                unsaved.header = Some(made);
            }
            Ok(()) => unsaved.note_lines += lines,
            Err(e) => {
                unsaved.rewrite_notes = true;
                host.log(LogLevel::Warn, &format!("could not write the meaning index: {e}"));
            }
        }
    }
}
