//! Checkpoints of long proof-game searches in the journal: each finished
//! work item (see [`solvers::proofgame::Ledger`]) is recorded as the search
//! goes, so that after a crash, a kill or a restart the same file judged
//! under the same configuration goes on where it stopped.
//!
//! A search is named by the file's content (its job hash), the stages'
//! fingerprint and the problem's place in the file: the same names as the
//! journal's idempotency uses, so an item is only ever reused for the very
//! same search.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use solvers::proofgame::{ItemKey, ItemResult, Ledger};

use crate::journal::{Journal, Progress};
use crate::service;

/// The ledgers of one file's problems.
#[derive(Debug, Clone, Copy)]
pub struct Checkpoints<'a> {
    pub journal: &'a Journal,
    /// The sha256 of the file's content.
    pub job: &'a str,
    /// The stages' fingerprint.
    pub config: &'a str,
    /// The file's name, for the progress rows.
    pub file: &'a str,
}

impl<'a> Checkpoints<'a> {
    /// The prefix of every search name of this file.
    pub fn prefix(&self) -> String {
        format!("{}:{}:", self.job, self.config)
    }

    /// The ledger of the `index`th problem of the file.
    pub fn ledger(&self, index: usize, problem_id: &str) -> JournalLedger<'a> {
        JournalLedger {
            journal: self.journal,
            search: format!("{}{index}", self.prefix()),
            file: self.file.to_owned(),
            problem_id: problem_id.to_owned(),
            last_status: Mutex::new(None),
            done: Mutex::new(None),
        }
    }
}

/// One problem's finished work items, in the journal.
#[derive(Debug)]
pub struct JournalLedger<'a> {
    journal: &'a Journal,
    search: String,
    file: String,
    problem_id: String,
    /// When the STATUS line last told of this search.
    last_status: Mutex<Option<Instant>>,
    /// The items recorded of the goal and length last recorded, so that
    /// the journal counts them once per length rather than once per item.
    done: Mutex<Option<(Length, u64)>>,
}

/// A goal and length of a search, as its items name it: goal, plies, and
/// how many items it has.
type Length = (usize, u32, usize);

impl JournalLedger<'_> {
    /// Where the search stands, on systemd's STATUS line (at most once a
    /// second: items may finish by the thousand).
    fn tell(&self, item: &ItemKey, done: u64, left: Option<f64>) {
        let mut last = self.last_status.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return;
        }
        *last = Some(Instant::now());
        let left = left.map_or(String::new(), |s| format!(", about {s:.0} s left"));
        service::status(&format!(
            "{} {}: proof games of {} plies: {done} of {} work items{left}",
            self.file, self.problem_id, item.plies, item.of
        ));
    }
}

impl Ledger for JournalLedger<'_> {
    fn known(&self, item: &ItemKey) -> Option<ItemResult> {
        // A journal that cannot be read costs the item's search, no more.
        self.journal
            .work_item(&self.search, item)
            .inspect_err(|e| tracing::warn!("{e:#}"))
            .ok()
            .flatten()
    }

    fn record(&self, item: &ItemKey, result: &ItemResult) {
        let progress = Progress {
            file: &self.file,
            problem_id: &self.problem_id,
        };
        // Held across the journal's write: threads recording at once would
        // each add one to the same count.
        let mut counted = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let length = (item.goal, item.plies, item.of);
        let before = counted.filter(|(l, _)| *l == length).map(|(_, n)| n);
        match self
            .journal
            .record_work_item(&self.search, item, result, &progress, before)
        {
            Ok((done, left)) => {
                *counted = Some((length, done));
                drop(counted);
                self.tell(item, done, left);
            }
            Err(e) => {
                *counted = None;
                tracing::warn!("{e:#}");
            }
        }
    }
}
