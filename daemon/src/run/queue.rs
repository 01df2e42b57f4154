//! The queue of files waiting for a slot, and the claimed files waiting
//! to be tried again after a failure not their own.

use super::*;

/// The queue of files waiting for a slot, in arrival order, each once.
#[derive(Debug, Default)]
pub(super) struct Queue {
    pub(super) order: VecDeque<Waiting>,
    pub(super) names: HashSet<OsString>,
    /// Names that could not be claimed because a file of that name is being
    /// judged; they go back in the queue when any job ends.
    pub(super) blocked: Vec<OsString>,
    /// Young files with a second look pending: one timer each, however many
    /// scans find them young.
    pub(super) settling: HashSet<OsString>,
}

#[derive(Debug)]
pub(super) enum Waiting {
    /// In the inbox: claim first.
    Inbox(OsString),
    /// Already in `.processing/` (left over from an earlier run).
    Claimed(Job),
}

impl Queue {
    pub(super) fn push(&mut self, name: OsString) {
        if self.names.insert(name.clone()) {
            self.order.push_back(Waiting::Inbox(name));
        }
    }

    pub(super) fn pop(&mut self) -> Option<Waiting> {
        let item = self.order.pop_front()?;
        if let Waiting::Inbox(name) = &item {
            self.names.remove(name);
        }
        Some(item)
    }

    /// A one-shot timer, not a poll: one look after the file should have
    /// settled (none if one is pending already).
    pub(super) fn settle_later(&mut self, name: OsString, tx: &mpsc::Sender<Notice>) {
        if !self.settling.insert(name.clone()) {
            return;
        }
        let tx = tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SETTLE).await;
            let _ = tx.send(Notice::Settle(name)).await;
        });
    }

    pub(super) fn unblock(&mut self) {
        for name in std::mem::take(&mut self.blocked) {
            self.push(name);
        }
    }
}

/// Claimed files whose job failed for a reason not their own (a full or
/// unwritable outbox, an unwritable journal): they stay in `.processing/`
/// and go back in the queue after a wait that doubles while they keep
/// failing. Only the first failure of a spell is logged as an error, so a
/// full disk makes one clear line, not one per file per attempt.
#[derive(Debug)]
pub(super) struct Retries {
    pub(super) jobs: Vec<Job>,
    /// When the jobs go back in the queue; `None` with no job waiting.
    pub(super) at: Option<tokio::time::Instant>,
    pub(super) wait: Duration,
    /// In a spell of failures: since the first failure, until a job ends
    /// well.
    pub(super) failing: bool,
}

/// The first wait before a failed job is tried again, and the longest.
pub(super) const RETRY_FIRST: Duration = Duration::from_secs(1);

pub(super) const RETRY_MAX: Duration = Duration::from_secs(30);

impl Default for Retries {
    fn default() -> Retries {
        Retries {
            jobs: Vec::new(),
            at: None,
            wait: RETRY_FIRST,
            failing: false,
        }
    }
}

impl Retries {
    /// A job failed: keep its file for a later attempt.
    pub(super) fn failed(&mut self, job: Job, error: &anyhow::Error) {
        let name = job.name.to_string_lossy().into_owned();
        if self.failing {
            tracing::debug!("{name}: still failing: {error:#}");
        } else {
            self.failing = true;
            tracing::error!(
                "{name}: {error:#}; the file stays claimed in .processing/ and is tried again, \
                 with any other that fails, every {}-{} s until it succeeds \
                 (further failures are logged at debug level until then)",
                RETRY_FIRST.as_secs(),
                RETRY_MAX.as_secs()
            );
        }
        // Only a file still in `.processing/` is tried again: a job that
        // failed after moving its file out is done with it.
        if job.path.exists() {
            self.jobs.push(job);
            self.at
                .get_or_insert_with(|| tokio::time::Instant::now() + self.wait);
        }
    }

    /// A job ended well: a spell of failures is over.
    pub(super) fn succeeded(&mut self, name: &OsString) {
        if self.failing {
            self.failing = false;
            self.wait = RETRY_FIRST;
            tracing::info!(
                "recovered: {} finished; {} file(s) waiting for another attempt",
                name.to_string_lossy(),
                self.jobs.len()
            );
        }
    }

    /// Resolves when the waiting jobs are due; never without one.
    pub(super) async fn due(&self) {
        match self.at {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    }

    /// The waiting jobs, back in the queue ahead of new files.
    pub(super) fn requeue(&mut self, queue: &mut Queue) {
        for job in self.jobs.drain(..).rev() {
            queue.order.push_front(Waiting::Claimed(job));
        }
        self.at = None;
        if self.failing {
            self.wait = (self.wait * 2).min(RETRY_MAX);
        }
    }
}

/// Files that could not be claimed (an inbox the daemon may not write to:
/// the claim's unlink fails) stay in the inbox, untouched, and are tried
/// again at each scan. Only the first failure of a spell is an error line:
/// ten thousand waiting files make one line, not ten thousand per scan.
#[derive(Debug, Default)]
pub(super) struct ClaimErrors {
    failing: bool,
}

impl ClaimErrors {
    pub(super) fn failed(&mut self, error: &anyhow::Error) {
        if self.failing {
            tracing::debug!("still failing: {error:#}");
        } else {
            self.failing = true;
            tracing::error!(
                "{error:#}; the file stays in the inbox and is tried again at each scan, \
                 with any other that cannot be claimed (further failures are logged at \
                 debug level until a claim succeeds)"
            );
        }
    }

    pub(super) fn succeeded(&mut self) {
        if self.failing {
            self.failing = false;
            tracing::info!("recovered: files can be claimed from the inbox again");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each scan of a drop of thousands of files finds the youngest young
    /// again; one timer each, not one per scan.
    #[tokio::test(flavor = "current_thread")]
    async fn a_young_file_gets_one_timer_however_many_scans_find_it() {
        let (tx, _rx) = mpsc::channel(4);
        let mut q = Queue::default();
        for _ in 0..3 {
            q.settle_later("a".into(), &tx);
        }
        assert_eq!(q.settling.len(), 1);
        assert_eq!(tx.strong_count(), 2, "one timer holds a sender");
    }

    #[test]
    fn queue_keeps_order_and_each_name_once() {
        let mut q = Queue::default();
        for n in ["a", "b", "a", "c"] {
            q.push(n.into());
        }
        let mut names = Vec::new();
        while let Some(Waiting::Inbox(n)) = q.pop() {
            names.push(n);
        }
        assert_eq!(names, ["a", "b", "c"]);
        q.push("a".into());
        assert!(q.pop().is_some());
    }
}
