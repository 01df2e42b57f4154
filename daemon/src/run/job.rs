//! One job: read the claimed file, solve it (or find it in the journal),
//! and settle it: journal, outbox, and the file out of `.processing/`.

use super::*;
use crate::config::ExecutorKind;
use crate::executor::Slurm;
use crate::ledger::Checkpoints;

/// A claimed file.
#[derive(Debug)]
pub(super) struct Job {
    pub(super) name: OsString,
    /// In `.processing/`.
    pub(super) path: PathBuf,
}

#[derive(Debug)]
pub(super) enum Outcome {
    Judged(Vec<Kind>),
    /// The journal had the verdicts already (same content, same stages).
    Reused(usize),
    Quarantined(String),
    /// Left in `.processing/` because the daemon is stopping.
    Requeued,
}

pub(super) async fn process(d: Arc<Daemon>, job: Job) -> Result<Outcome> {
    let settings = d.config.borrow().clone();
    let started = unix_now();
    let path = job.path.clone();
    let content = blocking(move || Ok(intake::read(&path))).await?;
    let bytes = match content {
        Ok(bytes) => bytes,
        Err(kind) => {
            return blocking(move || quarantine_unread(&d, &settings, &job, kind, started)).await;
        }
    };
    let key = format!("{:x}", Sha256::digest(&bytes));
    // Kept for the journal (the web view shows what was submitted).
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // Two files with the same content in flight at once: the second waits
    // for the first and is then served from the journal.
    let _key_guard = d.keys.lock(&key).await;
    let (j, k, f) = (d.journal.clone(), key.clone(), settings.fingerprint.clone());
    if let Some(stored) = blocking(move || j.find_judged(&k, &f)).await? {
        let d = d.clone();
        return blocking(move || reuse(&d, &settings, &job, &key, &text, stored, started)).await;
    }
    if d.stopping.load(Ordering::SeqCst) {
        return Ok(Outcome::Requeued);
    }
    // With `whole_files`, the file goes to the cluster whole; the wait is
    // no solver's: it runs beside the pool, not on it.
    let executor = &settings.config.executor;
    let remote = if executor.kind == ExecutorKind::Slurm && executor.whole_files {
        let (d, settings, name, bytes) = (
            d.clone(),
            settings.clone(),
            job.name.to_string_lossy().into_owned(),
            bytes.clone(),
        );
        blocking(move || Ok(on_cluster(&d, &settings, &name, &bytes))).await?
    } else {
        Remote::Here
    };
    match remote {
        Remote::Judged(verdicts) => {
            let d = d.clone();
            return blocking(move || {
                record_judged(&d, &settings, &job, &key, &text, &verdicts, started)
            })
            .await;
        }
        Remote::Interrupted => return Ok(Outcome::Requeued),
        Remote::Here => {}
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    {
        let (d, settings) = (d.clone(), settings.clone());
        let name = job.name.to_string_lossy().into_owned();
        let key = key.clone();
        d.clone().pool.spawn(move || {
            if d.stopping.load(Ordering::SeqCst) {
                let _ = tx.send(None);
                return;
            }
            // judge() catches panics per problem; this also covers parsing.
            // A panic escaping a rayon job would abort the whole daemon.
            let judged = catch_unwind(AssertUnwindSafe(|| {
                // Long proof games record their work items as they go: a
                // file judged again after a crash goes on from there.
                let checkpoints = Checkpoints {
                    journal: &d.journal,
                    job: &key,
                    config: &settings.fingerprint,
                    file: &name,
                };
                // Long proof games over the threshold go to the cluster
                // when the configuration says so; a stop ends the wait.
                let slurm = Slurm::from_config(&settings.config, Some(&d.stopping))
                    .inspect_err(|e| tracing::warn!("executor: {e:#}; searching here"))
                    .ok()
                    .flatten();
                let verdicts = pipeline::judge_file_with(
                    &name,
                    &bytes,
                    &settings.config.stages,
                    &d.resources,
                    Some(checkpoints),
                    slurm.as_ref(),
                );
                (verdicts, slurm.as_ref().is_some_and(Slurm::interrupted))
            }));
            let _ = tx.send(match judged {
                // Cut short by the stop: left in .processing/ for the next
                // start, which takes the cluster's results written by then.
                Ok((_, true)) => None,
                Ok((verdicts, false)) => Some(Ok(verdicts)),
                Err(_) => Some(Err("internal error while reading this file".to_owned())),
            });
        });
    }
    let verdicts = match rx.await.context("the solver pool dropped a job")? {
        None => return Ok(Outcome::Requeued),
        Some(Ok(verdicts)) => verdicts,
        Some(Err(why)) => vec![intake::file_error(
            &job.name.to_string_lossy(),
            ParseErrorKind::Syntax(why),
        )],
    };
    let d2 = d.clone();
    let outcome =
        blocking(move || record_judged(&d2, &settings, &job, &key, &text, &verdicts, started))
            .await?;
    Ok(outcome)
}

/// What the cluster did with a whole file.
enum Remote {
    /// Its verdicts, as a task judged them.
    Judged(Vec<Verdict>),
    /// The daemon is stopping: the file waits for the next start, which
    /// takes the task's result if it has landed by then.
    Interrupted,
    /// No cluster for whole files, or no task judged it: judged here.
    Here,
}

/// Sends the file to the cluster (the configuration says Slurm with
/// `whole_files`); a file whose task leaves no verdicts it can read is
/// judged here, as `cookd solve` does.
fn on_cluster(d: &Daemon, settings: &Settings, name: &str, bytes: &[u8]) -> Remote {
    let slurm = match Slurm::from_config(&settings.config, Some(&d.stopping)) {
        Ok(Some(slurm)) => slurm,
        Ok(None) => return Remote::Here,
        Err(e) => {
            tracing::warn!("{name}: executor: {e:#}; judged here");
            return Remote::Here;
        }
    };
    let say = |text: &str| tracing::info!("{name}: {text}");
    let judged = match slurm.judge_files(&[(name.to_owned(), bytes.to_vec())], &say) {
        Ok(mut judged) => judged.pop().flatten(),
        Err(e) => {
            tracing::warn!("{name}: {e:#}; judged here");
            None
        }
    };
    let Some(judged) = judged else {
        return match slurm.interrupted() {
            true => Remote::Interrupted,
            false => Remote::Here,
        };
    };
    let verdicts: Result<Vec<Verdict>, _> = judged
        .verdicts
        .iter()
        .map(|v| serde_json::from_str(&v.json))
        .collect();
    match verdicts {
        Ok(verdicts) => Remote::Judged(verdicts),
        Err(e) => {
            tracing::warn!("{name}: the cluster's verdicts do not read back ({e}); judged here");
            Remote::Here
        }
    }
}

pub(super) fn stem(name: &OsString) -> String {
    Path::new(name)
        .file_stem()
        .unwrap_or(name)
        .to_string_lossy()
        .into_owned()
}

pub(super) fn stored(v: &Verdict) -> Result<StoredVerdict> {
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

pub(super) fn files(stored: &[StoredVerdict]) -> Vec<VerdictFiles<'_>> {
    stored
        .iter()
        .map(|s| VerdictFiles {
            index: s.index,
            json: &s.json,
            report: &s.report,
        })
        .collect()
}

/// Which of the two records a job writes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// The journal, then the outbox: the order of the module comment, so
    /// that a crash between them finishes the file from the journal.
    JournalFirst,
    /// The outbox, then the journal: for verdicts already in the journal,
    /// so that a retry after a full outbox adds no second journal row (a
    /// crash between them only means writing the same files again).
    OutboxFirst,
}

/// Where a claimed file goes once its verdicts are recorded.
#[derive(Debug)]
pub(super) enum Leave {
    /// Out of `.processing/` as `processed:` says.
    Finished,
    /// To `.failed/`, with why.
    Failed(String),
}

/// The one way every job ends: its run (and any cook reports) in the
/// journal and its verdict files in the outbox, in `order`, then the file
/// out of `.processing/` (see the module comment for why in this order).
pub(super) fn settle(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    run: &journal::Run<'_>,
    mails: &[journal::Mail],
    order: Order,
    leave: &Leave,
) -> Result<()> {
    let write_outbox = || {
        d.outbox
            .write_verdicts(&stem(&job.name), &files(run.verdicts))
    };
    if order == Order::OutboxFirst {
        write_outbox()?;
    }
    d.journal.record(run, mails)?;
    if !mails.is_empty() {
        d.mail_wake.notify_one();
    }
    if order == Order::JournalFirst {
        write_outbox()?;
    }
    match leave {
        Leave::Finished => d.outbox.finish(
            &job.path,
            &job.name.to_string_lossy(),
            settings.config.processed,
        ),
        Leave::Failed(why) => d.inbox.quarantine(&job.path, &job.name, why),
    }
}

/// A file judged now: cook reports composed for its verdicts; a file in
/// which nothing could be read is poison, and goes to `.failed/`.
pub(super) fn record_judged(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    key: &str,
    text: &str,
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
    let run = journal::Run {
        job: key,
        config: &settings.fingerprint,
        file: &name,
        status: if unreadable { "failed" } else { "judged" },
        started_at: started,
        error: why.as_deref(),
        verdicts: &stored,
        text: Some(text),
    };
    let leave = why.clone().map_or(Leave::Finished, Leave::Failed);
    settle(d, settings, job, &run, &mails, Order::JournalFirst, &leave)?;
    // The verdicts are in the journal: the checkpoints of the searches
    // that led to them are done with.
    let checkpoints = format!("{key}:{}:", settings.fingerprint);
    if let Err(e) = d.journal.forget_work_items(&checkpoints) {
        tracing::warn!("{name}: {e:#}");
    }
    Ok(match why {
        Some(why) => Outcome::Quarantined(why),
        None => Outcome::Judged(verdicts.iter().map(|v| v.verdict).collect()),
    })
}

/// The same content was judged before under the same stages: its stored
/// verdicts are written under this file's name, and nothing is mailed again.
pub(super) fn reuse(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    key: &str,
    text: &str,
    stored: Vec<StoredVerdict>,
    started: f64,
) -> Result<Outcome> {
    let name = job.name.to_string_lossy();
    let run = journal::Run {
        job: key,
        config: &settings.fingerprint,
        file: &name,
        status: "reused",
        started_at: started,
        error: None,
        verdicts: &stored,
        // A journal older than the submissions table lacks it still.
        text: Some(text),
    };
    settle(
        d,
        settings,
        job,
        &run,
        &[],
        Order::OutboxFirst,
        &Leave::Finished,
    )?;
    Ok(Outcome::Reused(stored.len()))
}

/// A file that could not even be read (too large, I/O error).
pub(super) fn quarantine_unread(
    d: &Daemon,
    settings: &Settings,
    job: &Job,
    kind: ParseErrorKind,
    started: f64,
) -> Result<Outcome> {
    let name = job.name.to_string_lossy().into_owned();
    let verdict = intake::file_error(&name, kind);
    let why = verdict.error.clone().unwrap_or_default();
    let stored = [stored(&verdict)?];
    let run = journal::Run {
        job: "",
        config: &settings.fingerprint,
        file: &name,
        status: "failed",
        started_at: started,
        error: Some(&why),
        verdicts: &stored,
        text: None,
    };
    let leave = Leave::Failed(why.clone());
    settle(d, settings, job, &run, &[], Order::JournalFirst, &leave)?;
    Ok(Outcome::Quarantined(why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stem_drops_the_last_extension() {
        assert_eq!(stem(&"a.fen".into()), "a");
        assert_eq!(stem(&"a.b.yaml".into()), "a.b");
        assert_eq!(stem(&"plain".into()), "plain");
    }
}
