//! The inbox: watching for problem files, claiming them, quarantining
//! poison.
//!
//! A file is claimed by moving it into `.processing/` (same filesystem, so
//! the move is atomic); whatever is there when the daemon starts was claimed
//! by an earlier run that did not finish, and is judged again. Files that
//! cannot be judged at all go to `.failed/` beside a `<name>.error.txt`.
//!
//! Only close-write and moved-in events trigger a claim: a file that was
//! merely created may still be being written. The periodic scan, which has
//! no such event, leaves files younger than [`SETTLE`] for a second look.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use notify::event::{AccessKind, AccessMode, ModifyKind, RenameMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::intake::is_candidate;

/// A file found by a scan is claimed only when it has not been modified for
/// this long; a younger one may still be open for writing (its close-write
/// event will claim it, or the scan's second look will).
pub const SETTLE: Duration = Duration::from_secs(1);

#[derive(Debug)]
pub struct Inbox {
    dir: PathBuf,
    processing: PathBuf,
    failed: PathBuf,
}

/// What the watcher tells the daemon.
#[derive(Debug)]
pub enum Notice {
    /// A file was closed after writing or moved in: claim it now.
    Ready(OsString),
    /// Events were lost (kernel queue overflow, watcher error): scan.
    Rescan,
    /// A scan found this file young: claim it once it has settled.
    Settle(OsString),
}

/// The outcome of trying to claim a file.
#[derive(Debug)]
pub enum Claim {
    /// Now ours, at this path in `.processing/`.
    Claimed(PathBuf),
    /// Not there any more (claimed already, removed, not a regular file).
    Gone,
    /// A file of the same name is still being judged: try again later.
    Busy,
}

/// Files an inbox scan found.
#[derive(Debug, Default)]
pub struct Scan {
    /// Ready to claim.
    pub ready: Vec<OsString>,
    /// Modified within [`SETTLE`]: look again after it.
    pub young: Vec<OsString>,
}

impl Inbox {
    /// Opens the inbox, creating it and its working folders.
    pub fn open(dir: &Path) -> Result<Inbox> {
        let inbox = Inbox {
            dir: dir.to_path_buf(),
            processing: dir.join(".processing"),
            failed: dir.join(".failed"),
        };
        for d in [&inbox.dir, &inbox.processing, &inbox.failed] {
            fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        Ok(inbox)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts watching. Notices go to `tx`; when it is full (the daemon is
    /// behind), the notice is replaced by a rescan so nothing is lost.
    ///
    /// At most one rescan is outstanding: `rescan_pending` is set when one
    /// is sent and cleared by the daemon as its scan starts. Ten thousand
    /// files renamed in at once overflow the queue thousands of times, and
    /// a rescan for each (every one a listing of the whole inbox, about 270
    /// of them here) kept the daemon listing instead of judging, and gave
    /// each file still young a timer per listing (peak RSS 213 MiB in one
    /// CI run).
    pub fn watch(
        &self,
        tx: mpsc::Sender<Notice>,
        rescan_pending: Arc<AtomicBool>,
    ) -> Result<RecommendedWatcher> {
        let handler = move |event: notify::Result<Event>| {
            // Blocking here is fine: this is the watcher's own thread.
            let rescan = || {
                if !rescan_pending.swap(true, Ordering::SeqCst) {
                    let _ = tx.blocking_send(Notice::Rescan);
                }
            };
            let name = match event {
                Ok(event) if event.need_rescan() => return rescan(),
                Ok(event) => ready_name(&event),
                Err(error) => {
                    tracing::warn!(%error, "inbox watcher error; rescanning");
                    return rescan();
                }
            };
            if let Some(name) = name {
                if let Err(mpsc::error::TrySendError::Full(_)) = tx.try_send(Notice::Ready(name)) {
                    // The queue is full of notices already; one rescan, sent
                    // as soon as there is room, covers this one and any
                    // dropped after it.
                    rescan();
                }
            }
        };
        let mut watcher =
            notify::recommended_watcher(handler).context("cannot start the inbox watcher")?;
        watcher
            .watch(&self.dir, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", self.dir.display()))?;
        Ok(watcher)
    }

    /// Lists the problem files in the inbox.
    pub fn scan(&self) -> Result<Scan> {
        let now = SystemTime::now();
        let mut scan = Scan::default();
        let entries = fs::read_dir(&self.dir)
            .with_context(|| format!("cannot scan {}", self.dir.display()))?;
        for entry in entries {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name();
            if !is_candidate(&name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let young = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age < SETTLE) || t > now);
            if young {
                scan.young.push(name);
            } else {
                scan.ready.push(name);
            }
        }
        scan.ready.sort();
        Ok(scan)
    }

    /// Whether a file is still being modified (for the scan's second look).
    pub fn is_settled(&self, name: &OsStr) -> bool {
        fs::metadata(self.dir.join(name))
            .and_then(|m| m.modified())
            .is_ok_and(|t| {
                SystemTime::now()
                    .duration_since(t)
                    .is_ok_and(|age| age >= SETTLE)
            })
    }

    /// Files left in `.processing/` by a run that did not finish.
    pub fn leftovers(&self) -> Result<Vec<(OsString, PathBuf)>> {
        let mut found: Vec<_> = fs::read_dir(&self.processing)
            .with_context(|| format!("cannot scan {}", self.processing.display()))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| (e.file_name(), e.path()))
            .filter(|(name, _)| !name.to_string_lossy().starts_with('.'))
            .collect();
        found.sort();
        Ok(found)
    }

    /// Claims a file by moving it into `.processing/`.
    ///
    /// The move is a hard link then an unlink rather than a rename, because a
    /// rename would silently replace a file of the same name that is still
    /// being judged; the link fails instead. A crash between the two steps
    /// leaves the file in both places, which is harmless: the second copy has
    /// the same content, hence the same job, and is not judged again.
    pub fn claim(&self, name: &OsStr) -> Result<Claim> {
        let from = self.dir.join(name);
        let to = self.processing.join(name);
        match fs::symlink_metadata(&from) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => return Ok(Claim::Gone),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Claim::Gone),
            Err(e) => return Err(e).with_context(|| format!("cannot claim {}", from.display())),
        }
        match fs::hard_link(&from, &to) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(Claim::Busy),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Claim::Gone),
            Err(e) => return Err(e).with_context(|| format!("cannot claim {}", from.display())),
        }
        match fs::remove_file(&from) {
            Ok(()) => Ok(Claim::Claimed(to)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Claim::Claimed(to)),
            Err(e) => {
                let _ = fs::remove_file(&to);
                Err(e).with_context(|| format!("cannot claim {}", from.display()))
            }
        }
    }

    /// Moves a claimed file to `.failed/` with a note saying why.
    pub fn quarantine(&self, claimed: &Path, name: &OsStr, why: &str) -> Result<()> {
        let mut note_name = name.to_os_string();
        note_name.push(".error.txt");
        let note = self.failed.join(&note_name);
        let temp = self
            .failed
            .join(format!(".{}.tmp", note_name.to_string_lossy()));
        crate::outbox::write_atomic(&temp, &note, format!("{why}\n").as_bytes())
            .with_context(|| format!("cannot write {}", note.display()))?;
        let target = self.failed.join(name);
        crate::outbox::move_file(claimed, &target)
            .with_context(|| format!("cannot move {} to {}", claimed.display(), target.display()))
    }
}

/// The problem file an event says is complete, if any.
fn ready_name(event: &Event) -> Option<OsString> {
    let path = match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => event.paths.first(),
        // `Both` carries the old and the new path; the new one is last.
        EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both)) => {
            event.paths.last()
        }
        _ => None,
    }?;
    let name = path.file_name()?;
    is_candidate(name).then(|| name.to_os_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_refuses_to_replace_a_file_being_judged() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::open(dir.path()).unwrap();
        fs::write(dir.path().join("a.fen"), "x").unwrap();
        let Claim::Claimed(path) = inbox.claim(OsStr::new("a.fen")).unwrap() else {
            panic!("not claimed")
        };
        assert_eq!(fs::read_to_string(&path).unwrap(), "x");
        fs::write(dir.path().join("a.fen"), "y").unwrap();
        assert!(matches!(
            inbox.claim(OsStr::new("a.fen")).unwrap(),
            Claim::Busy
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), "x");
        fs::remove_file(&path).unwrap();
        assert!(matches!(
            inbox.claim(OsStr::new("a.fen")).unwrap(),
            Claim::Claimed(_)
        ));
        assert!(matches!(
            inbox.claim(OsStr::new("a.fen")).unwrap(),
            Claim::Gone
        ));
    }
}
