//! `cookd run`: the daemon.
//!
//! One tokio task (the dispatcher) owns the queue: it learns of files from
//! the watcher and from scans, claims them while fewer than `in_flight` jobs
//! are under way (the bounded queue: everything else waits, unclaimed, in
//! the inbox), and reacts to signals and timers. Each job reads its file on
//! tokio's blocking pool, solves on the rayon pool, and records and writes
//! its verdicts on the blocking pool again. Between events the process
//! sleeps: there is no polling loop, only the periodic rescan (and the
//! watchdog ping when systemd asks for one).
//!
//! Order of effects for one job, chosen so that a crash at any point loses
//! nothing and solves nothing twice: claim (into `.processing/`), solve,
//! commit verdicts and queued mail to the journal, write the outbox files,
//! move the file out of `.processing/`. A file found in `.processing/` at
//! start whose job is in the journal is finished from the journal.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch, Notify, OwnedMutexGuard, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{interval_at, Interval, MissedTickBehavior};

use solvers::problem::{Location, ParseError, ParseErrorKind, MAX_FILE_BYTES};
use solvers::verdict::{Kind, Verdict};

use crate::config::Config;
use crate::inbox::{Claim, Inbox, Notice, SETTLE};
use crate::journal::{self, unix_now, Journal, StoredVerdict};
use crate::outbox::{Outbox, VerdictFiles};
use crate::service::{self, Request, Signals};
use crate::{mail, pipeline, report};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Configuration file (default: the built-in pipeline.yaml, with folders
    /// relative to the current directory).
    #[arg(long)]
    config: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let config = Config::load_or_builtin(args.config.as_deref())?;
    service::init_logging(&config.log)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_name("cookd-io")
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(daemon(args.config, config));
    // After a forced stop, solver and I/O threads may still be busy; their
    // files stay in `.processing/` and are judged at the next start.
    runtime.shutdown_background();
    if let Err(error) = &result {
        tracing::error!("{error:#}");
    }
    result.map(|()| ExitCode::SUCCESS)
}

/// What every job shares.
#[derive(Debug)]
struct Daemon {
    inbox: Inbox,
    outbox: Outbox,
    journal: Arc<Journal>,
    pool: rayon::ThreadPool,
    /// Search tables every job shares.
    tables: pipeline::Tables,
    config: watch::Sender<Arc<Settings>>,
    /// Set on SIGTERM: jobs that have not started solving leave their file
    /// in `.processing/` for the next start instead.
    stopping: AtomicBool,
    keys: KeyLocks,
    /// Wakes the mailer when a job queued mail.
    mail_wake: Arc<Notify>,
}

/// A configuration with its fingerprint, computed once.
#[derive(Debug)]
struct Settings {
    config: Arc<Config>,
    fingerprint: String,
}

impl Settings {
    fn new(config: Config) -> Settings {
        Settings {
            fingerprint: config.fingerprint(),
            config: Arc::new(config),
        }
    }
}

/// A claimed file.
#[derive(Debug)]
struct Job {
    name: OsString,
    /// In `.processing/`.
    path: PathBuf,
}

#[derive(Debug)]
enum Outcome {
    Judged(Vec<Kind>),
    /// The journal had the verdicts already (same content, same stages).
    Reused(usize),
    Quarantined(String),
    /// Left in `.processing/` because the daemon is stopping.
    Requeued,
}

/// The queue of files waiting for a slot, in arrival order, each once.
#[derive(Debug, Default)]
struct Queue {
    order: VecDeque<Waiting>,
    names: HashSet<OsString>,
    /// Names that could not be claimed because a file of that name is being
    /// judged; they go back in the queue when any job ends.
    blocked: Vec<OsString>,
    /// Young files with a second look pending: one timer each, however many
    /// scans find them young.
    settling: HashSet<OsString>,
}

#[derive(Debug)]
enum Waiting {
    /// In the inbox: claim first.
    Inbox(OsString),
    /// Already in `.processing/` (left over from an earlier run).
    Claimed(Job),
}

impl Queue {
    fn push(&mut self, name: OsString) {
        if self.names.insert(name.clone()) {
            self.order.push_back(Waiting::Inbox(name));
        }
    }

    fn pop(&mut self) -> Option<Waiting> {
        let item = self.order.pop_front()?;
        if let Waiting::Inbox(name) = &item {
            self.names.remove(name);
        }
        Some(item)
    }

    /// A one-shot timer, not a poll: one look after the file should have
    /// settled (none if one is pending already).
    fn settle_later(&mut self, name: OsString, tx: &mpsc::Sender<Notice>) {
        if !self.settling.insert(name.clone()) {
            return;
        }
        let tx = tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SETTLE).await;
            let _ = tx.send(Notice::Settle(name)).await;
        });
    }

    fn unblock(&mut self) {
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
struct Retries {
    jobs: Vec<Job>,
    /// When the jobs go back in the queue; `None` with no job waiting.
    at: Option<tokio::time::Instant>,
    wait: Duration,
    /// In a spell of failures: since the first failure, until a job ends
    /// well.
    failing: bool,
}

/// The first wait before a failed job is tried again, and the longest.
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(30);

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
    fn failed(&mut self, job: Job, error: &anyhow::Error) {
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
    fn succeeded(&mut self, name: &OsString) {
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
    async fn due(&self) {
        match self.at {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    }

    /// The waiting jobs, back in the queue ahead of new files.
    fn requeue(&mut self, queue: &mut Queue) {
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
struct ClaimErrors {
    failing: bool,
}

impl ClaimErrors {
    fn failed(&mut self, error: &anyhow::Error) {
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

    fn succeeded(&mut self) {
        if self.failing {
            self.failing = false;
            tracing::info!("recovered: files can be claimed from the inbox again");
        }
    }
}

/// Counters for STATUS= lines and the stop message.
#[derive(Debug, Default)]
struct Counts {
    judged: u64,
    reused: u64,
    quarantined: u64,
    failed: u64,
}

impl Counts {
    fn status(&self, in_flight: usize, waiting: usize) -> String {
        format!(
            "{} file(s) judged, {} reused, {} quarantined, {} failed; {in_flight} in flight, {waiting} waiting",
            self.judged, self.reused, self.quarantined, self.failed
        )
    }
}

async fn daemon(config_path: Option<PathBuf>, config: Config) -> Result<()> {
    let inbox = Inbox::open(&config.path(&config.inbox))?;
    let outbox = Outbox::open(&config.path(&config.outbox))?;
    let journal = Arc::new(Journal::open(&config.path(&config.database))?);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = config.threads.get(cores);
    let in_flight = config.in_flight.get(4 * threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("cookd-solve-{i}"))
        .build()
        .context("cannot start the solver pool")?;
    let rescan_every = Duration::from_secs_f64(config.rescan_s);
    tracing::info!(
        inbox = %inbox.dir().display(),
        outbox = %outbox.dir().display(),
        journal = %config.path(&config.database).display(),
        threads,
        in_flight,
        "cookd {} starting",
        env!("CARGO_PKG_VERSION")
    );
    let (config_tx, _) = watch::channel(Arc::new(Settings::new(config)));
    let daemon = Arc::new(Daemon {
        inbox,
        outbox,
        journal,
        pool,
        tables: pipeline::Tables::default(),
        config: config_tx,
        stopping: AtomicBool::new(false),
        keys: KeyLocks::default(),
        mail_wake: Arc::new(Notify::new()),
    });
    let mut signals = Signals::new()?;

    // The mailer follows the configuration through its own channel of plain
    // configs (it has no use for the fingerprint).
    let (mail_config_tx, mail_config_rx) = watch::channel(daemon.config.borrow().config.clone());
    let (stop_mail, stop_mail_rx) = watch::channel(false);
    let mailer = tokio::spawn(mail::deliver(
        daemon.journal.clone(),
        mail_config_rx,
        daemon.mail_wake.clone(),
        stop_mail_rx,
    ));

    // Watch first, then scan: a file arriving in between is seen by one or
    // the other (or both; a second claim finds it gone).
    let (notice_tx, mut notices) = mpsc::channel(1024);
    let rescan_pending = Arc::new(AtomicBool::new(false));
    let watcher = daemon
        .inbox
        .watch(notice_tx.clone(), rescan_pending.clone())?;
    let mut queue = Queue::default();
    for (name, path) in daemon.inbox.leftovers()? {
        tracing::info!("requeued {} from an earlier run", name.to_string_lossy());
        queue.order.push_back(Waiting::Claimed(Job { name, path }));
    }
    scan(&daemon.inbox, &mut queue, &notice_tx);

    let semaphore = Arc::new(Semaphore::new(in_flight));
    let mut tasks: JoinSet<(Job, Result<Outcome>)> = JoinSet::new();
    let mut counts = Counts::default();
    let mut retries = Retries::default();
    let mut claims = ClaimErrors::default();
    let mut rescan = interval_at(tokio::time::Instant::now() + rescan_every, rescan_every);
    rescan.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut watchdog = service::watchdog_interval().map(tokio::time::interval);
    service::ready(&counts.status(0, queue.order.len()));

    loop {
        tokio::select! {
            request = signals.next() => match request {
                Request::Stop => break,
                Request::Reload => {
                    reload(config_path.as_deref(), &daemon.config, &mail_config_tx);
                    service::ready(&counts.status(tasks.len(), queue.order.len()));
                }
            },
            Some(notice) = notices.recv() => match notice {
                Notice::Ready(name) => queue.push(name),
                Notice::Rescan => {
                    // Cleared before the listing: an event after it starts
                    // asks for another.
                    rescan_pending.store(false, Ordering::SeqCst);
                    scan(&daemon.inbox, &mut queue, &notice_tx);
                }
                Notice::Settle(name) => {
                    queue.settling.remove(&name);
                    if daemon.inbox.is_settled(&name) {
                        queue.push(name);
                    } else if daemon.inbox.dir().join(&name).exists() {
                        queue.settle_later(name, &notice_tx);
                    }
                }
            },
            Some(ended) = tasks.join_next(), if !tasks.is_empty() => {
                match ended {
                    Ok((job, Err(error))) => {
                        counts.failed += 1;
                        retries.failed(job, &error);
                    }
                    Ok((job, outcome)) => {
                        retries.succeeded(&job.name);
                        log_outcome(&job.name, outcome, &mut counts);
                    }
                    Err(error) => {
                        counts.failed += 1;
                        tracing::error!("a job ended abnormally: {error}");
                    }
                }
                queue.unblock();
                service::status(&counts.status(tasks.len(), queue.order.len()));
            },
            _ = rescan.tick() => scan(&daemon.inbox, &mut queue, &notice_tx),
            _ = retries.due() => retries.requeue(&mut queue),
            _ = tick(&mut watchdog) => service::watchdog(),
            permit = semaphore.clone().acquire_owned(), if !queue.order.is_empty() => {
                let permit = permit.context("the job semaphore closed")?;
                let Some(waiting) = queue.pop() else { continue };
                let job = match waiting {
                    Waiting::Claimed(job) => job,
                    // A link and an unlink: quick enough to do right here.
                    Waiting::Inbox(name) => match daemon.inbox.claim(&name) {
                        Ok(Claim::Claimed(path)) => {
                            claims.succeeded();
                            Job { name, path }
                        }
                        Ok(Claim::Gone) => continue,
                        Ok(Claim::Busy) => {
                            queue.blocked.push(name);
                            continue;
                        }
                        Err(error) => {
                            claims.failed(&error);
                            continue;
                        }
                    },
                };
                let d = daemon.clone();
                tasks.spawn(async move {
                    let _permit = permit;
                    let again = Job {
                        name: job.name.clone(),
                        path: job.path.clone(),
                    };
                    (again, process(d, job).await)
                });
            },
        }
    }

    // Drain: claim nothing more, let the jobs under way finish (those not yet
    // solving leave their file for the next start), then stop the mailer.
    drop(watcher);
    daemon.stopping.store(true, Ordering::SeqCst);
    tracing::info!(
        "stopping: {} job(s) in flight; a second SIGTERM/SIGINT stops at once",
        tasks.len()
    );
    service::stopping(&format!("draining {} job(s)", tasks.len()));
    let mut forced = false;
    while !tasks.is_empty() {
        tokio::select! {
            ended = tasks.join_next() => match ended {
                Some(Ok((job, outcome))) => log_outcome(&job.name, outcome, &mut counts),
                Some(Err(error)) => tracing::error!("a job ended abnormally: {error}"),
                None => break,
            },
            request = signals.next() => if request == Request::Stop {
                tracing::warn!(
                    "stopping now; {} unfinished file(s) stay in .processing/ and are judged at the next start",
                    tasks.len()
                );
                forced = true;
                break;
            },
        }
    }
    let _ = stop_mail.send(true);
    if !forced {
        let _ = mailer.await;
    }
    let journal = daemon.journal.clone();
    let queued = blocking(move || {
        journal.checkpoint()?;
        journal.queued_mail()
    })
    .await?;
    tracing::info!(
        "stopped: {}; {queued} mail(s) queued for the next start",
        counts.status(0, 0)
    );
    Ok(())
}

/// Resolves when the watchdog is due; never without a watchdog.
async fn tick(interval: &mut Option<Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// Queues what a scan finds; young files get a second look once settled.
fn scan(inbox: &Inbox, queue: &mut Queue, tx: &mpsc::Sender<Notice>) {
    match inbox.scan() {
        Ok(found) => {
            for name in found.ready {
                queue.push(name);
            }
            for name in found.young {
                queue.settle_later(name, tx);
            }
        }
        Err(error) => tracing::error!("{error:#}"),
    }
}

fn reload(
    path: Option<&Path>,
    current: &watch::Sender<Arc<Settings>>,
    mail: &watch::Sender<Arc<Config>>,
) {
    service::reloading();
    let Some(path) = path else {
        tracing::info!("SIGHUP: running on the built-in configuration, nothing to reload");
        return;
    };
    let new = match Config::load(path) {
        Ok(new) => new,
        Err(error) => {
            tracing::error!("SIGHUP: keeping the running configuration: {error:#}");
            return;
        }
    };
    let old = current.borrow().config.clone();
    let fixed = [
        ("inbox", old.path(&old.inbox) != new.path(&new.inbox)),
        ("outbox", old.path(&old.outbox) != new.path(&new.outbox)),
        (
            "database",
            old.path(&old.database) != new.path(&new.database),
        ),
        ("threads", old.threads != new.threads),
        ("in_flight", old.in_flight != new.in_flight),
        ("rescan_s", old.rescan_s != new.rescan_s),
        ("log", old.log != new.log),
    ];
    for (key, changed) in fixed {
        if changed {
            tracing::warn!("SIGHUP: `{key}` changed; it takes effect at the next start");
        }
    }
    let settings = Settings::new(new);
    let stages_changed = settings.fingerprint != current.borrow().fingerprint;
    mail.send_replace(settings.config.clone());
    current.send_replace(Arc::new(settings));
    tracing::info!(
        stages_changed,
        "SIGHUP: configuration reloaded from {}",
        path.display()
    );
}

fn log_outcome(name: &OsString, outcome: Result<Outcome>, counts: &mut Counts) {
    let name = name.to_string_lossy();
    match outcome {
        Ok(Outcome::Judged(kinds)) => {
            counts.judged += 1;
            let words: Vec<_> = kinds.iter().map(|k| k.as_str()).collect();
            tracing::info!("judged {name}: {}", words.join(", "));
        }
        Ok(Outcome::Reused(n)) => {
            counts.reused += 1;
            tracing::info!(
                "{name}: judged before with these stages; {n} stored verdict(s) written"
            );
        }
        Ok(Outcome::Quarantined(why)) => {
            counts.quarantined += 1;
            tracing::warn!("{name} moved to .failed/: {why}");
        }
        Ok(Outcome::Requeued) => {
            tracing::info!("{name} left in .processing/ for the next start");
        }
        Err(error) => {
            // Not the file's fault (disk full, journal unwritable): it stays
            // in `.processing/`; while running it is retried (`Retries`),
            // when stopping it is judged again at the next start.
            counts.failed += 1;
            tracing::error!("{name}: {error:#}");
        }
    }
}

/// Runs a blocking closure on tokio's blocking pool.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| anyhow!("a blocking task failed: {e}"))?
}

/// A file's content, or why it cannot be judged at all.
enum Content {
    Bytes(Vec<u8>),
    Poison(ParseErrorKind),
}

async fn process(d: Arc<Daemon>, job: Job) -> Result<Outcome> {
    let settings = d.config.borrow().clone();
    let started = unix_now();
    let path = job.path.clone();
    let content = blocking(move || read(&path)).await?;
    let bytes = match content {
        Content::Bytes(bytes) => bytes,
        Content::Poison(kind) => {
            return blocking(move || quarantine_unread(&d, &settings, &job, kind, started)).await;
        }
    };
    let key = format!("{:x}", Sha256::digest(&bytes));
    // Two files with the same content in flight at once: the second waits
    // for the first and is then served from the journal.
    let _key_guard = d.keys.lock(&key).await;
    let (j, k, f) = (d.journal.clone(), key.clone(), settings.fingerprint.clone());
    if let Some(stored) = blocking(move || j.find_judged(&k, &f)).await? {
        let d = d.clone();
        return blocking(move || reuse(&d, &settings, &job, &key, stored, started)).await;
    }
    if d.stopping.load(Ordering::SeqCst) {
        return Ok(Outcome::Requeued);
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    {
        let (d, settings) = (d.clone(), settings.clone());
        let name = job.name.to_string_lossy().into_owned();
        d.clone().pool.spawn(move || {
            if d.stopping.load(Ordering::SeqCst) {
                let _ = tx.send(None);
                return;
            }
            // judge() catches panics per problem; this also covers parsing.
            // A panic escaping a rayon job would abort the whole daemon.
            let verdicts = catch_unwind(AssertUnwindSafe(|| {
                pipeline::judge_file_with(&name, &bytes, &settings.config.stages, &d.tables)
            }))
            .map_err(|_| "internal error while reading this file".to_owned());
            let _ = tx.send(Some(verdicts));
        });
    }
    let verdicts = match rx.await.context("the solver pool dropped a job")? {
        None => return Ok(Outcome::Requeued),
        Some(Ok(verdicts)) => verdicts,
        Some(Err(why)) => vec![Verdict::for_error(&ParseError {
            file: job.name.to_string_lossy().into_owned(),
            location: Location { line: 1, column: 1 },
            index: 0,
            kind: ParseErrorKind::Syntax(why),
        })],
    };
    let d2 = d.clone();
    let outcome =
        blocking(move || record_judged(&d2, &settings, &job, &key, &verdicts, started)).await?;
    Ok(outcome)
}

/// Reads a claimed file, refusing one far larger than any problem file
/// without reading it into memory.
fn read(path: &Path) -> Result<Content> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => {
            return Ok(Content::Poison(ParseErrorKind::Syntax(format!(
                "cannot read file: {e}"
            ))))
        }
    };
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Ok(Content::Poison(ParseErrorKind::TooLarge(
            meta.len() as usize
        )));
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(Content::Bytes(bytes)),
        Err(e) => Ok(Content::Poison(ParseErrorKind::Syntax(format!(
            "cannot read file: {e}"
        )))),
    }
}

fn stem(name: &OsString) -> String {
    Path::new(name)
        .file_stem()
        .unwrap_or(name)
        .to_string_lossy()
        .into_owned()
}

fn stored(v: &Verdict) -> Result<StoredVerdict> {
    Ok(StoredVerdict {
        index: v.index,
        problem_id: v.id.clone(),
        verdict: v.verdict.as_str().to_owned(),
        json: serde_json::to_string(v).context("serialising a verdict")?,
        report: report::text(v),
        timings: v
            .timings_ms
            .iter()
            .map(|(stage, ms)| (stage.clone(), *ms))
            .collect(),
    })
}

fn files(stored: &[StoredVerdict]) -> Vec<VerdictFiles<'_>> {
    stored
        .iter()
        .map(|s| VerdictFiles {
            index: s.index,
            json: &s.json,
            report: &s.report,
        })
        .collect()
}

/// Journal first, then outbox, then the file leaves `.processing/` (see the
/// module comment for why in this order).
fn record_judged(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    key: &str,
    verdicts: &[Verdict],
    started: f64,
) -> Result<Outcome> {
    let name = job.name.to_string_lossy();
    let stored = verdicts.iter().map(stored).collect::<Result<Vec<_>>>()?;
    let mut mails = Vec::new();
    // Without a `mail:` section nothing is mailed.
    let mail_config = settings.config.mail.as_ref();
    for (v, s) in verdicts.iter().zip(&stored) {
        let Some(mail_config) = mail_config else {
            break;
        };
        match mail::compose(mail_config, key, v, &s.json) {
            Ok(m) => mails.extend(m),
            // A bad address in the configuration must not stop judging.
            Err(error) => tracing::error!("{name}: no cook report: {error:#}"),
        }
    }
    // A file in which nothing could be read is poison: it gets its `error`
    // verdict like any other and then goes to `.failed/`.
    let unreadable = verdicts.iter().all(|v| v.verdict == Kind::Error);
    let why = unreadable.then(|| {
        let lines: Vec<_> = verdicts.iter().filter_map(|v| v.error.clone()).collect();
        lines.join("\n")
    });
    d.journal.record(
        &journal::Run {
            job: key,
            config: &settings.fingerprint,
            file: &name,
            status: if unreadable { "failed" } else { "judged" },
            started_at: started,
            error: why.as_deref(),
            verdicts: &stored,
        },
        &mails,
    )?;
    if !mails.is_empty() {
        d.mail_wake.notify_one();
    }
    d.outbox.write_verdicts(&stem(&job.name), &files(&stored))?;
    match why {
        Some(why) => {
            d.inbox.quarantine(&job.path, &job.name, &why)?;
            Ok(Outcome::Quarantined(why))
        }
        None => {
            d.outbox
                .finish(&job.path, &name, settings.config.processed)?;
            Ok(Outcome::Judged(
                verdicts.iter().map(|v| v.verdict).collect(),
            ))
        }
    }
}

/// The same content was judged before under the same stages: its stored
/// verdicts are written under this file's name, and nothing is mailed again.
fn reuse(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    key: &str,
    stored: Vec<StoredVerdict>,
    started: f64,
) -> Result<Outcome> {
    let name = job.name.to_string_lossy();
    // Outbox first: a retry that fails on a full outbox (a file whose
    // verdicts were recorded but not written) then adds no journal row; a
    // crash between the two only means writing the same files again.
    d.outbox.write_verdicts(&stem(&job.name), &files(&stored))?;
    d.journal.record(
        &journal::Run {
            job: key,
            config: &settings.fingerprint,
            file: &name,
            status: "reused",
            started_at: started,
            error: None,
            verdicts: &stored,
        },
        &[],
    )?;
    d.outbox
        .finish(&job.path, &name, settings.config.processed)?;
    Ok(Outcome::Reused(stored.len()))
}

/// A file that could not even be read (too large, I/O error).
fn quarantine_unread(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    kind: ParseErrorKind,
    started: f64,
) -> Result<Outcome> {
    let name = job.name.to_string_lossy().into_owned();
    let verdict = Verdict::for_error(&ParseError {
        file: name.clone(),
        location: Location { line: 1, column: 1 },
        index: 0,
        kind,
    });
    let why = verdict.error.clone().unwrap_or_default();
    let stored = [stored(&verdict)?];
    d.journal.record(
        &journal::Run {
            job: "",
            config: &settings.fingerprint,
            file: &name,
            status: "failed",
            started_at: started,
            error: Some(&why),
            verdicts: &stored,
        },
        &[],
    )?;
    d.outbox.write_verdicts(&stem(&job.name), &files(&stored))?;
    d.inbox.quarantine(&job.path, &job.name, &why)?;
    Ok(Outcome::Quarantined(why))
}

/// One async lock per job key in flight, removed when no one holds or
/// waits for it.
#[derive(Debug, Default)]
struct KeyLocks(std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

struct KeyGuard<'a> {
    locks: &'a KeyLocks,
    key: String,
    mutex: Arc<tokio::sync::Mutex<()>>,
    guard: Option<OwnedMutexGuard<()>>,
}

impl KeyLocks {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<()>>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn lock(&self, key: &str) -> KeyGuard<'_> {
        let mutex = self.map().entry(key.to_owned()).or_default().clone();
        let guard = mutex.clone().lock_owned().await;
        KeyGuard {
            locks: self,
            key: key.to_owned(),
            mutex,
            guard: Some(guard),
        }
    }
}

impl Drop for KeyGuard<'_> {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut map = self.locks.map();
        // Only the map and this guard still hold it: nobody is waiting.
        if Arc::strong_count(&self.mutex) == 2 {
            map.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test(flavor = "current_thread")]
    async fn key_locks_are_removed_when_free() {
        let locks = KeyLocks::default();
        {
            let _a = locks.lock("k").await;
            assert_eq!(locks.map().len(), 1);
        }
        assert!(locks.map().is_empty());
    }

    #[test]
    fn stem_drops_the_last_extension() {
        assert_eq!(stem(&"a.fen".into()), "a");
        assert_eq!(stem(&"a.b.yaml".into()), "a.b");
        assert_eq!(stem(&"plain".into()), "plain");
    }
}
