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

use solvers::problem::ParseErrorKind;
use solvers::verdict::{Kind, Verdict};

use crate::config::Config;
use crate::inbox::{Claim, Inbox, Notice, SETTLE};
use crate::journal::{self, unix_now, Journal, StoredVerdict};
use crate::outbox::{Outbox, VerdictFiles};
use crate::service::{self, Request, Signals};
use crate::{intake, mail, pipeline, report};

mod job;
mod locks;
mod queue;
use job::*;
use locks::*;
use queue::*;

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
    /// The stages' long-lived resources every job shares.
    resources: solvers::stage::Resources,
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
    let pool = pipeline::solver_pool(&config)?;
    let threads = pool.current_num_threads();
    let in_flight = config.in_flight.get(4 * threads);
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
    // The web view (a `serve:` section) reads the journal just migrated; a
    // port in use stops the start here, before any file is claimed.
    let (stop_web, stop_web_rx) = watch::channel(false);
    let web = match &config.serve {
        Some(serve) => {
            let db = config.path(&config.database);
            let listener = crate::serve::bind(serve.listen, &db).await?;
            let mut stop = stop_web_rx;
            Some(tokio::spawn(crate::serve::serve(
                listener,
                db,
                async move {
                    let _ = stop.wait_for(|stop| *stop).await;
                },
            )))
        }
        None => None,
    };
    let (config_tx, _) = watch::channel(Arc::new(Settings::new(config)));
    let daemon = Arc::new(Daemon {
        inbox,
        outbox,
        journal,
        pool,
        resources: solvers::stage::Resources::default(),
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
    let _ = stop_web.send(true);
    if let Some(mut web) = web {
        // Requests under way finish; a client that holds its connection
        // open does not hold up the stop for long.
        match tokio::time::timeout(Duration::from_secs(5), &mut web).await {
            Ok(Ok(Err(error))) => tracing::error!("{error:#}"),
            Ok(_) => {}
            Err(_) => web.abort(),
        }
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
        ("serve", old.serve != new.serve),
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
