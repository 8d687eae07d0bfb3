//! The fake `.smarthole/` folder: files in memory, failures injected by operation and prefix,
//! special files (a FIFO…), sizes claimed without the bytes, and every read recorded.

use super::state::{FakeHost, FileOp, MAX_NAME_BYTES};
use crate::host_types::HostError;

impl FakeHost {
    /// A file's text.
    pub fn file(&self, path: &str) -> Option<String> {
        self.state.files.borrow().get(path).cloned()
    }

    /// Every file path (text or bytes), sorted.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.state.files.borrow().keys().cloned().collect();
        paths.extend(self.state.byte_files.borrow().keys().cloned());
        paths.sort();
        paths
    }

    /// A file's bytes, as written by `write_file_atomic_bytes` (a text file's too).
    pub fn file_bytes(&self, path: &str) -> Option<Vec<u8>> {
        let bytes = self.state.byte_files.borrow().get(path).cloned();
        bytes.or_else(|| self.file(path).map(String::into_bytes))
    }

    /// Writes a file of bytes directly (test setup).
    pub fn put_file_bytes(&self, path: &str, bytes: &[u8]) {
        self.state.files.borrow_mut().remove(path);
        self.state.byte_files.borrow_mut().insert(path.to_owned(), bytes.to_vec());
    }

    /// Paths under a folder.
    pub fn paths_under(&self, dir: &str) -> Vec<String> {
        let prefix = format!("{dir}/");
        self.paths().into_iter().filter(|p| p.starts_with(&prefix)).collect()
    }

    /// Writes a file directly (test setup).
    pub fn put_file(&self, path: &str, text: &str) {
        self.state.byte_files.borrow_mut().remove(path);
        self.state.files.borrow_mut().insert(path.to_owned(), text.to_owned());
    }

    /// Makes the next operations of a kind on paths starting with `prefix` fail until cleared.
    pub fn fail_files(&self, op: FileOp, prefix: &str) {
        self.state.failing.borrow_mut().push((op, prefix.to_owned()));
    }

    /// Ends what [`FakeHost::fail_files`] began: every file operation works again.
    pub fn clear_file_failures(&self) {
        self.state.failing.borrow_mut().clear();
    }

    /// File operations performed so far.
    pub fn file_ops(&self) -> u64 {
        self.state.file_ops.get()
    }

    /// Makes `path` (under `.smarthole/`) something that is not a regular file, of `kind`
    /// (`fifo`, `socket`, `device`, `folder`): its size is answered with [`HostError::NotAFile`],
    /// as the real hosts do; reading or appending to it is recorded in
    /// [`FakeHost::unusual_touches`] and refused, as a FIFO would block. Renaming moves it.
    pub fn put_special_file(&self, path: &str, kind: &str) {
        self.state.special.borrow_mut().insert(path.to_owned(), kind.to_owned());
    }

    /// The kind of the special file at `path` under `.smarthole/`, if one is there.
    pub fn special_file(&self, path: &str) -> Option<String> {
        self.state.special.borrow().get(path).cloned()
    }

    /// Every special file under `.smarthole/`: (path, kind).
    pub fn special_files(&self) -> Vec<(String, String)> {
        self.state.special.borrow().iter().map(|(p, k)| (p.clone(), k.clone())).collect()
    }

    /// Refuses to open a special file (recorded), as a real host opening without blocking.
    pub(super) fn open_regular(&self, op: &str, path: &str) -> Result<(), HostError> {
        if self.special_file(path).is_none() {
            return Ok(());
        }
        self.state.unusual_touches.borrow_mut().push(format!("{op} {path}"));
        Err(HostError::Io(format!("{path}: not a regular file; the host refuses to {op} it")))
    }

    /// Makes `path` exist with `text` but report `bytes` as its size, as a huge file would: a
    /// core that reads it anyway shows up in [`FakeHost::reads`].
    pub fn put_sized_file(&self, path: &str, text: &str, bytes: u64) {
        self.put_file(path, text);
        self.state.sizes.borrow_mut().insert(path.to_owned(), bytes);
    }

    /// Paths read so far, in order (tests check what start-up reads).
    pub fn reads(&self) -> Vec<String> {
        self.state.reads.borrow().clone()
    }

    pub(super) async fn check(&self, op: FileOp, path: &str) -> Result<(), HostError> {
        self.alive().await;
        self.state.file_ops.set(self.state.file_ops.get() + 1);
        if self.state.failing.borrow().iter().any(|(o, p)| *o == op && path.starts_with(p.as_str())) {
            return Err(HostError::Io(format!("injected {op:?} failure on {path}")));
        }
        // As a real disk: a name over 255 bytes cannot be made (the temporary name of an atomic
        // write is some twenty bytes longer than the file's).
        if path.split('/').any(|name| name.len() > MAX_NAME_BYTES) {
            return Err(HostError::Io(format!("File name too long: {path}")));
        }
        Ok(())
    }
}
