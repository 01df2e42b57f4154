//! The Slurm executor: a long proof-game search spread over a cluster as a
//! job array, each task running `cookd work` on one share of its work items
//! (see [`solvers::proofgame::Ledger::mine`]).
//!
//! The submitting cookd writes a task folder on the shared spool (the
//! problem file, the configuration, `task.json`), submits the array with
//! `sbatch`, and watches the folder for the tasks' results (`share-I.json`,
//! written whole by a rename) and `squeue` for the array's end. Shares that
//! left no result (a task that failed, was killed or ran past its time
//! limit) are submitted again, up to `retries` times. The results then
//! serve as a ledger the ordinary search takes its items from ([`Spooled`]):
//! the count, the games listed and the verdict are those of a local run,
//! and an item no task delivered is searched here.
//!
//! With `whole_files`, `cookd solve` of several files sends each file
//! whole to a task of one array ([`Slurm::judge_files`]): the task judges
//! it as `cookd solve` would and writes its verdicts rendered
//! (`verdicts-K.json`). `cookd run` sends each file it claims as an array
//! of one, and reads the verdicts back from their JSON. Both kinds of
//! array go through the same rounds of submitting, watching and
//! submitting again.
//!
//! The library only names items and counts shares; spawning `sbatch` and
//! reading files happen here, in the binary.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use solvers::proofgame::{ItemKey, ItemResult, Ledger};

use crate::config::{Config, Executor, ExecutorKind};
use crate::outbox::write_atomic;

/// The task description a task folder holds, beside `problem` (the file's
/// content) and `pipeline.yaml` (the stages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// cookd's version: a node running another build refuses the task.
    pub version: String,
    /// The stages' fingerprint ([`Config::fingerprint`]), checked again by
    /// the task against the configuration it reads.
    pub fingerprint: String,
    /// The problem file's name, as the submitter knows it.
    pub file: String,
    /// The problem's place in the file.
    pub index: usize,
    /// Shares: task `i` searches the items whose index is `i` modulo this.
    pub tasks: usize,
}

/// What one task found: every item of its share it searched to the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareResult {
    pub version: String,
    pub fingerprint: String,
    pub index: usize,
    pub share: usize,
    pub tasks: usize,
    /// The node it ran on, and the seconds it took.
    pub host: String,
    pub seconds: f64,
    pub items: Vec<ItemRow>,
}

/// One finished work item ([`ItemKey`] and [`ItemResult`] as JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemRow {
    pub goal: usize,
    pub plies: u32,
    pub index: usize,
    pub of: usize,
    pub count: u64,
    pub listed: bool,
    pub games: Vec<String>,
}

impl ItemRow {
    pub fn new(key: &ItemKey, result: &ItemResult) -> ItemRow {
        ItemRow {
            goal: key.goal,
            plies: key.plies,
            index: key.index,
            of: key.of,
            count: result.count,
            listed: result.listed,
            games: result.games.clone(),
        }
    }

    pub fn key(&self) -> ItemKey {
        ItemKey {
            goal: self.goal,
            plies: self.plies,
            index: self.index,
            of: self.of,
        }
    }

    pub fn result(&self) -> ItemResult {
        ItemResult {
            count: self.count,
            listed: self.listed,
            games: self.games.clone(),
        }
    }
}

/// A batch of whole files, one task each (`whole_files: true`), beside
/// `file-K` (the files' contents) and `pipeline.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub version: String,
    pub fingerprint: String,
    /// The files' names, as the submitter knows them.
    pub files: Vec<String>,
}

/// What one task of a batch wrote: its file's verdicts, rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileVerdicts {
    pub version: String,
    pub fingerprint: String,
    pub file: usize,
    pub verdicts: Vec<Rendered>,
    /// The text report's closing lines for the file (`report::entries`).
    pub entries: String,
}

/// One verdict in each of `cookd solve`'s formats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rendered {
    /// The verdict word (`error` makes `cookd solve` exit 1).
    pub verdict: String,
    pub text: String,
    pub yaml: String,
    pub json: String,
}

pub const BATCH_FILE: &str = "batch.json";
pub const TASK_FILE: &str = "task.json";
pub const CONFIG_FILE: &str = "pipeline.yaml";
pub const PROBLEM_FILE: &str = "problem";
/// The batch script every task runs.
const SCRIPT_FILE: &str = "task.sh";

/// Where share `share`'s result lands in a task folder.
pub fn result_path(dir: &Path, share: usize) -> PathBuf {
    dir.join(format!("share-{share}.json"))
}

/// Writes `bytes` to `path` whole or not at all (a `.part` file renamed):
/// readers on other nodes never see half a file.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut temp = path.as_os_str().to_owned();
    temp.push(".part");
    write_atomic(Path::new(&temp), path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Where task `k` of a batch writes its file's verdicts.
pub fn verdicts_path(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("verdicts-{k}.json"))
}

/// The verdicts of file `k` of `batch` in `dir`, when they are there and
/// belong to it.
pub fn read_verdicts(dir: &Path, k: usize, batch: &Batch) -> Option<FileVerdicts> {
    let text = std::fs::read(verdicts_path(dir, k)).ok()?;
    let result: FileVerdicts = serde_json::from_slice(&text).ok()?;
    (result.version == batch.version && result.fingerprint == batch.fingerprint && result.file == k)
        .then_some(result)
}

/// The result of `share` in `dir`, when it is there and belongs to `task`
/// (a file from another build or another split is not used).
pub fn read_result(dir: &Path, share: usize, task: &Task) -> Option<ShareResult> {
    let text = std::fs::read(result_path(dir, share)).ok()?;
    let result: ShareResult = serde_json::from_slice(&text).ok()?;
    (result.version == task.version
        && result.fingerprint == task.fingerprint
        && result.index == task.index
        && result.share == share
        && result.tasks == task.tasks)
        .then_some(result)
}

/// The `sbatch --array` value for `shares`: runs of consecutive shares as
/// ranges, at most `max_array` running at once (`0-15%4`, `1,5-6%4`).
pub fn array_spec(shares: &[usize], max_array: u32) -> String {
    format!("{}%{max_array}", ranges(shares))
}

/// `shares` with runs of consecutive ones as ranges: `0-3`, `1,5-6`.
fn ranges(shares: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < shares.len() {
        let mut j = i;
        while j + 1 < shares.len() && shares[j + 1] == shares[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            shares[i].to_string()
        } else {
            format!("{}-{}", shares[i], shares[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The text inside single quotes for `sh`.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// The Slurm executor of a configuration.
#[derive(Debug)]
pub struct Slurm<'a> {
    pub options: Executor,
    /// The configuration the tasks read (the stages and pool; no mail, no
    /// web view, no executor of their own).
    config: Config,
    fingerprint: String,
    /// The absolute spool folder.
    spool: PathBuf,
    /// cookd on the nodes.
    cookd: PathBuf,
    /// Set when the daemon is stopping: the wait on the cluster ends.
    stop: Option<&'a AtomicBool>,
    /// Whether a wait ended because of `stop` (the file is judged again
    /// at the next start, from the results written by then).
    interrupted: AtomicBool,
}

impl<'a> Slurm<'a> {
    /// The executor `config` asks for; `None` for the local one. A wait
    /// on the cluster ends when `stop` is set.
    pub fn from_config(config: &Config, stop: Option<&'a AtomicBool>) -> Result<Option<Slurm<'a>>> {
        if config.executor.kind == ExecutorKind::Local {
            return Ok(None);
        }
        let options = config.executor.clone();
        let spool = config.path(options.spool.as_deref().unwrap_or(Path::new(".")));
        let spool = std::path::absolute(&spool)
            .with_context(|| format!("executor.spool: {}", spool.display()))?;
        let cookd = match &options.cookd {
            Some(path) => path.clone(),
            None => std::env::current_exe().context("executor: cannot find this cookd's path")?,
        };
        let mut tasks = config.clone();
        tasks.mail = None;
        tasks.serve = None;
        tasks.executor = Executor::default();
        Ok(Some(Slurm {
            options,
            fingerprint: config.fingerprint(),
            config: tasks,
            spool,
            cookd,
            stop,
            interrupted: AtomicBool::new(false),
        }))
    }

    /// Whether a wait on the cluster was cut short by a stop.
    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// The task folder of the `index`th problem of a file with this
    /// content: named by the content, the stages and the split, so that a
    /// run cut short (a restart) finds the results already there.
    pub fn task_dir(&self, content: &[u8], index: usize) -> PathBuf {
        let job = format!("{:x}", Sha256::digest(content));
        self.spool.join(format!(
            "{}-{}-{index}-of{}",
            &job[..16],
            &self.fingerprint[..12],
            self.options.tasks
        ))
    }

    /// Writes the task folder of the `index`th problem of file `name`.
    fn prepare(&self, dir: &Path, name: &str, content: &[u8], index: usize) -> Result<Task> {
        let task = Task {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            fingerprint: self.fingerprint.clone(),
            file: name.to_owned(),
            index,
            tasks: self.options.tasks as usize,
        };
        self.write_task(dir, TASK_FILE, &serde_json::to_vec_pretty(&task)?, |dir| {
            write_whole(&dir.join(PROBLEM_FILE), content)
        })?;
        Ok(task)
    }

    /// Writes a task folder: the configuration, the batch script, what
    /// `inputs` writes, and the description `file` last (a task finding it
    /// finds the rest).
    fn write_task(
        &self,
        dir: &Path,
        file: &str,
        description: &[u8],
        inputs: impl FnOnce(&Path) -> Result<()>,
    ) -> Result<()> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the task folder {}", dir.display()))?;
        inputs(dir)?;
        let yaml = yaml_serde::to_string(&self.config).context("printing the configuration")?;
        write_whole(&dir.join(CONFIG_FILE), yaml.as_bytes())?;
        let script = format!(
            "#!/bin/sh\n# One task of a cookd job array, written by cookd; which one is\n\
             # SLURM_ARRAY_TASK_ID.\nexec {} work --threads {} {}\n",
            quoted(&self.cookd),
            self.options.cpus_per_task,
            quoted(dir)
        );
        write_whole(&dir.join(SCRIPT_FILE), script.as_bytes())?;
        write_whole(&dir.join(file), description)
    }

    /// Submits `shares` of the task in `dir`; returns the array's job id.
    fn submit(&self, dir: &Path, shares: &[usize], id: &str) -> Result<String> {
        let out = self
            .sbatch(dir, shares, id)
            .output()
            .context("cannot run sbatch (is Slurm's client installed?)")?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        // --parsable: `JOB` or `JOB;CLUSTER`.
        let job = stdout.trim().split(';').next().unwrap_or_default();
        if !out.status.success() || job.is_empty() {
            bail!(
                "sbatch refused the job array: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(job.to_owned())
    }

    /// The `sbatch` command submitting `shares` of the task in `dir`.
    pub fn sbatch(&self, dir: &Path, shares: &[usize], id: &str) -> Command {
        let o = &self.options;
        let mut command = Command::new("sbatch");
        command
            .arg("--parsable")
            .arg(format!("--array={}", array_spec(shares, o.max_array)))
            .arg(format!("--job-name=cookd-{id}"))
            .arg(format!("--time={}", o.time_limit))
            .arg(format!("--cpus-per-task={}", o.cpus_per_task))
            .arg("--ntasks=1")
            .arg(format!("--chdir={}", dir.display()))
            .arg(format!("--output={}/slurm-%A_%a.out", dir.display()));
        if let Some(partition) = &o.partition {
            command.arg(format!("--partition={partition}"));
        }
        command.args(&o.sbatch_args).arg(dir.join(SCRIPT_FILE));
        command
    }

    /// Runs the shares of the `index`th problem of file `name` on the
    /// cluster until each has a result or has been submitted `retries + 1`
    /// times; returns every item the tasks found. `arrived` hears of each
    /// result as it lands (the journal records its items), `say` of each
    /// step. Fails only when the task folder cannot be written: a cluster
    /// that refuses the array or stops answering ends the rounds early,
    /// with the results delivered so far.
    pub fn run(
        &self,
        (name, content, index): (&str, &[u8], usize),
        id: &str,
        arrived: &dyn Fn(&ShareResult),
        say: &dyn Fn(&str),
    ) -> Result<HashMap<ItemKey, ItemResult>> {
        let dir = self.task_dir(content, index);
        let task = self.prepare(&dir, name, content, index)?;
        let read = |share| read_result(&dir, share, &task);
        let landed = |share, result: &ShareResult| {
            say(&format!(
                "share {share} of {}: {} work items in {:.1} s on {}",
                task.tasks,
                result.items.len(),
                result.seconds,
                result.host
            ));
            arrived(result);
        };
        let results = self.rounds((&dir, task.tasks, id), &read, &landed, say);
        let items: usize = results.iter().flatten().map(|r| r.items.len()).sum();
        say(&format!("{items} work items from the cluster"));
        Ok(results
            .into_iter()
            .flatten()
            .flat_map(|r| r.items)
            .map(|row| (row.key(), row.result()))
            .collect())
    }

    /// Submits the tasks of `dir` (`tasks` of them, the array's indexes)
    /// whose result `read` does not find, waits for them, and submits
    /// those that left none again, up to `retries` times; `landed` hears
    /// of each result as it is found. Results already there (an earlier
    /// run's) count.
    fn rounds<R>(
        &self,
        (dir, tasks, id): (&Path, usize, &str),
        read: &dyn Fn(usize) -> Option<R>,
        landed: &dyn Fn(usize, &R),
        say: &dyn Fn(&str),
    ) -> Vec<Option<R>> {
        let mut results: Vec<Option<R>> = (0..tasks).map(|_| None).collect();
        let take = |results: &mut Vec<Option<R>>| {
            for (task, slot) in results.iter_mut().enumerate() {
                if slot.is_none() {
                    if let Some(result) = read(task) {
                        landed(task, &result);
                        *slot = Some(result);
                    }
                }
            }
        };
        take(&mut results);
        let started = Instant::now();
        'rounds: for round in 0..=self.options.retries {
            // Stopping (an earlier problem of the file saw it first):
            // nothing more is submitted.
            if self.stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
                self.interrupted.store(true, Ordering::SeqCst);
                break;
            }
            let missing: Vec<usize> = (0..tasks).filter(|&s| results[s].is_none()).collect();
            if missing.is_empty() {
                break;
            }
            if round > 0 {
                say(&format!(
                    "task(s) {} left no result; submitted again ({round} of {})",
                    ranges(&missing),
                    self.options.retries
                ));
            }
            // A cluster that refuses the array ends the rounds: what its
            // tasks delivered is kept, and the rest is done here.
            let job = match self.submit(dir, &missing, id) {
                Ok(job) => job,
                Err(e) => {
                    say(&format!("{e:#}"));
                    break;
                }
            };
            say(&format!(
                "Slurm job {job}: {} task(s) of {tasks} in {}",
                missing.len(),
                dir.display()
            ));
            let submitted = Instant::now();
            let mut seen_running = false;
            let mut unanswered: Option<Instant> = None;
            loop {
                take(&mut results);
                if missing.iter().all(|&s| results[s].is_some()) {
                    break;
                }
                if self.stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
                    // Cancelled rather than left running: the next start
                    // submits the tasks still missing, and no task runs
                    // twice.
                    self.interrupted.store(true, Ordering::SeqCst);
                    cancel(&job);
                    say(&format!(
                        "stopping: Slurm job {job} cancelled; the next start takes the \
                         results written by now and submits the rest"
                    ));
                    break 'rounds;
                }
                let started = missing.iter().any(|&s| results[s].is_some());
                match array_state(&job) {
                    // No task started within the queue limit (a busy or
                    // drained partition): the work is done here instead.
                    Ok(ArrayState::Queued)
                        if !(started || seen_running)
                            && self
                                .options
                                .queue_limit_s
                                .is_some_and(|limit| submitted.elapsed().as_secs_f64() > limit) =>
                    {
                        cancel(&job);
                        say(&format!(
                            "Slurm job {job} cancelled: no task started within queue_limit_s"
                        ));
                        break 'rounds;
                    }
                    Ok(ArrayState::Queued) => unanswered = None,
                    Ok(ArrayState::Running) => {
                        unanswered = None;
                        seen_running = true;
                    }
                    Ok(ArrayState::Ended) => {
                        // A task may have written its result just before
                        // the array's end was seen.
                        take(&mut results);
                        break;
                    }
                    // A controller restarting or busy for a moment: the
                    // tasks go on, and so does the wait.
                    Err(e)
                        if unanswered.get_or_insert_with(Instant::now).elapsed()
                            < SQUEUE_PATIENCE =>
                    {
                        tracing::debug!("{e:#}");
                    }
                    Err(e) => {
                        say(&format!(
                            "{e:#} for {} s; no longer waiting",
                            SQUEUE_PATIENCE.as_secs()
                        ));
                        break 'rounds;
                    }
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        }
        let done = results.iter().flatten().count();
        say(&format!(
            "{done} of {tasks} task(s) done on the cluster in {:.1} s{}",
            started.elapsed().as_secs_f64(),
            if self.interrupted() {
                "; the rest at the next start"
            } else if done < tasks {
                "; the rest is done here"
            } else {
                ""
            }
        ));
        results
    }

    /// Judges whole files on the cluster, one task each (`cookd solve`
    /// with `whole_files: true`): returns each file's verdicts as the task
    /// rendered them, or `None` for a file no task judged (it is judged
    /// here). Fails only when the task folder cannot be written.
    pub fn judge_files(
        &self,
        files: &[(String, Vec<u8>)],
        say: &dyn Fn(&str),
    ) -> Result<Vec<Option<FileVerdicts>>> {
        let mut hash = Sha256::new();
        for (name, content) in files {
            hash.update(Sha256::digest(name.as_bytes()));
            hash.update(Sha256::digest(content));
        }
        let dir = self.spool.join(format!(
            "files-{}-{}",
            &format!("{:x}", hash.finalize())[..16],
            &self.fingerprint[..12]
        ));
        let batch = Batch {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            fingerprint: self.fingerprint.clone(),
            files: files.iter().map(|(name, _)| name.clone()).collect(),
        };
        self.write_task(
            &dir,
            BATCH_FILE,
            &serde_json::to_vec_pretty(&batch)?,
            |dir| {
                for (k, (_, content)) in files.iter().enumerate() {
                    write_whole(&dir.join(format!("file-{k}")), content)?;
                }
                Ok(())
            },
        )?;
        let read = |k| read_verdicts(&dir, k, &batch);
        let landed = |k: usize, _: &FileVerdicts| say(&format!("{}: judged", batch.files[k]));
        let results = self.rounds((&dir, files.len(), "files"), &read, &landed, say);
        if results.iter().all(Option::is_some) {
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                tracing::warn!("cannot remove {}: {e}", dir.display());
            }
        }
        Ok(results)
    }
}

/// Cancels job array `job` (what is left of it).
fn cancel(job: &str) {
    match Command::new("scancel").arg(job).output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => tracing::warn!(
            "scancel {job}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => tracing::warn!("cannot run scancel: {e}"),
    }
}

/// How long `squeue` may fail in a row before the wait ends.
const SQUEUE_PATIENCE: Duration = Duration::from_secs(120);

/// Where a job array stands, as `squeue` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArrayState {
    /// Every task left is pending.
    Queued,
    /// Some task is running (or configuring, completing, ...).
    Running,
    /// No task is left.
    Ended,
}

/// Where job array `job` stands.
fn array_state(job: &str) -> Result<ArrayState> {
    let out = Command::new("squeue")
        .args(["--noheader", "--array", "--jobs", job, "--format=%T"])
        .output()
        .context("cannot run squeue")?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Gone from the controller's memory: long finished.
        if stderr.contains("Invalid job id") {
            return Ok(ArrayState::Ended);
        }
        bail!("squeue failed: {}", stderr.trim());
    }
    Ok(state_of(&String::from_utf8_lossy(&out.stdout)))
}

/// The state of an array from `squeue --array --format=%T`'s lines, one
/// task each.
fn state_of(lines: &str) -> ArrayState {
    const ENDED: [&str; 9] = [
        "COMPLETED",
        "FAILED",
        "CANCELLED",
        "TIMEOUT",
        "NODE_FAIL",
        "OUT_OF_MEMORY",
        "BOOT_FAIL",
        "DEADLINE",
        "PREEMPTED",
    ];
    let left: Vec<&str> = lines
        .lines()
        .map(str::trim)
        .filter(|state| !state.is_empty() && !ENDED.contains(state))
        .collect();
    if left.is_empty() {
        ArrayState::Ended
    } else if left.iter().all(|&state| state == "PENDING") {
        ArrayState::Queued
    } else {
        ArrayState::Running
    }
}

/// A ledger that knows the items a job array found, and otherwise asks
/// (and tells) the journal's, when there is one.
pub struct Spooled<'a> {
    pub results: HashMap<ItemKey, ItemResult>,
    pub inner: Option<&'a dyn Ledger>,
}

impl std::fmt::Debug for Spooled<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spooled")
            .field("results", &self.results.len())
            .field("inner", &self.inner.is_some())
            .finish()
    }
}

impl Ledger for Spooled<'_> {
    fn known(&self, item: &ItemKey) -> Option<ItemResult> {
        self.results
            .get(item)
            .cloned()
            .or_else(|| self.inner.and_then(|l| l.known(item)))
    }

    fn record(&self, item: &ItemKey, result: &ItemResult) {
        if let Some(inner) = self.inner {
            inner.record(item, result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_lines_say_queued_running_or_ended() {
        assert_eq!(state_of(""), ArrayState::Ended);
        assert_eq!(state_of("COMPLETED\nFAILED\n"), ArrayState::Ended);
        assert_eq!(state_of("PENDING\nPENDING\n"), ArrayState::Queued);
        assert_eq!(state_of("COMPLETED\nPENDING\n"), ArrayState::Queued);
        assert_eq!(state_of("PENDING\nRUNNING\n"), ArrayState::Running);
        assert_eq!(state_of("COMPLETING\n"), ArrayState::Running);
    }

    #[test]
    fn array_specs_run_consecutive_shares_together() {
        assert_eq!(array_spec(&[0, 1, 2, 3], 2), "0-3%2");
        assert_eq!(array_spec(&[1], 16), "1%16");
        assert_eq!(array_spec(&[0, 2, 3, 4, 7], 4), "0,2-4,7%4");
    }

    #[test]
    fn results_of_another_split_or_build_are_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let task = Task {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            fingerprint: "f".into(),
            file: "p.fen".into(),
            index: 0,
            tasks: 3,
        };
        let result = |tasks, version: &str| ShareResult {
            version: version.to_owned(),
            fingerprint: "f".into(),
            index: 0,
            share: 1,
            tasks,
            host: "node".into(),
            seconds: 1.0,
            items: vec![ItemRow {
                goal: 0,
                plies: 4,
                index: 1,
                of: 3,
                count: 2,
                listed: true,
                games: vec!["e2e4 e7e5".into()],
            }],
        };
        let write = |r: &ShareResult| {
            write_whole(&result_path(dir.path(), 1), &serde_json::to_vec(r).unwrap()).unwrap()
        };
        assert_eq!(read_result(dir.path(), 1, &task), None);
        write(&result(3, env!("CARGO_PKG_VERSION")));
        let read = read_result(dir.path(), 1, &task).unwrap();
        assert_eq!(read.items[0].key().of, 3);
        assert_eq!(read.items[0].result().games, ["e2e4 e7e5"]);
        write(&result(4, env!("CARGO_PKG_VERSION")));
        assert_eq!(read_result(dir.path(), 1, &task), None);
        write(&result(3, "0.0.0-other"));
        assert_eq!(read_result(dir.path(), 1, &task), None);
        // No half file is left behind.
        assert!(!dir.path().join("share-1.json.part").exists());
    }

    #[test]
    fn sbatch_names_the_array_limits_and_script() {
        let mut config = Config::builtin();
        config.executor.kind = ExecutorKind::Slurm;
        config.executor.spool = Some("/shared/spool".into());
        config.executor.partition = Some("long".into());
        config.executor.sbatch_args = vec!["--mem=2G".into()];
        let slurm = Slurm::from_config(&config, None).unwrap().unwrap();
        let dir = slurm.task_dir(b"x", 0);
        assert!(dir.starts_with("/shared/spool"), "{}", dir.display());
        let command = slurm.sbatch(&dir, &[0, 1, 2], "spg1");
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for arg in [
            "--parsable",
            "--array=0-2%16",
            "--time=1:00:00",
            "--partition=long",
            "--mem=2G",
            "--cpus-per-task=1",
        ] {
            assert!(args.iter().any(|a| a == arg), "{arg}: {args:?}");
        }
        assert!(args.last().unwrap().ends_with("task.sh"));
        assert!(Slurm::from_config(&Config::builtin(), None)
            .unwrap()
            .is_none());
    }
}
