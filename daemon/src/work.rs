//! `cookd work DIR`: one task of a Slurm job array (see
//! [`crate::executor`]). It reads the task folder the submitting cookd
//! wrote, searches its share of the proof game's work items and writes
//! what it found to `DIR/share-I.json`, whole (a `.part` file renamed); in
//! a batch of whole files (`batch.json`), it judges file I and writes its
//! verdicts to `DIR/verdicts-I.json`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use solvers::problem;
use solvers::proofgame::{ItemKey, ItemResult, Ledger};
use solvers::stage::{self, Resources, Stage};
use solvers::verdict::Verdict;
use solvers::Stipulation;

use crate::config::{Config, Threads};
use crate::executor::{self, Batch, FileVerdicts, ItemRow, Rendered, ShareResult, Task};
use crate::pipeline;
use crate::report::{self, Format};

/// Test hook: shares listed here (`1` or `0,2`) exit with status 3 the first
/// time they run, as a task killed on its node would leave no result: the
/// submitter must submit them again.
const FAIL_ONCE: &str = "COOKD_WORK_FAIL_ONCE";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The share to search (default: `SLURM_ARRAY_TASK_ID`).
    #[arg(long)]
    share: Option<usize>,
    /// Solver threads (default: the task configuration's `threads:`).
    #[arg(long)]
    threads: Option<u32>,
    /// The task folder on the shared spool.
    dir: PathBuf,
}

/// One share's items: this task searches those whose index is `share`
/// modulo `tasks`, and keeps what it finds.
#[derive(Debug)]
struct Share {
    share: usize,
    tasks: usize,
    found: Mutex<Vec<ItemRow>>,
}

impl Ledger for Share {
    fn known(&self, _: &ItemKey) -> Option<ItemResult> {
        None
    }
    fn mine(&self, item: &ItemKey) -> bool {
        item.index % self.tasks == self.share
    }
    fn record(&self, item: &ItemKey, result: &ItemResult) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.push(ItemRow::new(item, result));
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let started = Instant::now();
    let dir = &args.dir;
    let share = match args.share {
        Some(share) => share,
        None => std::env::var("SLURM_ARRAY_TASK_ID")
            .context("no --share and no SLURM_ARRAY_TASK_ID")?
            .parse()
            .context("SLURM_ARRAY_TASK_ID")?,
    };
    if dir.join(executor::BATCH_FILE).exists() {
        return judge_file(&args, share);
    }
    let task: Task = read_description(dir, executor::TASK_FILE, "task", |t: &Task| &t.version)?;
    if share >= task.tasks {
        bail!("share {share}: the task has {} shares", task.tasks);
    }
    if fails_once(&args.dir, share)? {
        eprintln!("cookd work: share {share}: failing on purpose ({FAIL_ONCE})");
        return Ok(ExitCode::from(3));
    }
    let config = task_config(&args, &task.fingerprint)?;
    let content = std::fs::read(dir.join(executor::PROBLEM_FILE))
        .with_context(|| format!("cannot read the problem in {}", dir.display()))?;
    let problem = problem::parse(&task.file, &content)
        .into_iter()
        .nth(task.index)
        .with_context(|| format!("{}: no problem {}", task.file, task.index))?
        .map_err(|e| anyhow::anyhow!("{}: {e}", task.file))?;
    let Stipulation::ProofGame { plies } = problem.stipulation else {
        bail!("{}: problem {} is not a proof game", task.file, task.index);
    };
    let Some(options) = config.stages.iter().find_map(|s| match s {
        Stage::Solve(options) => Some(options),
        _ => None,
    }) else {
        bail!("the task's configuration has no solve stage");
    };
    let ledger = Share {
        share,
        tasks: task.tasks,
        found: Mutex::new(Vec::new()),
    };
    let pool = pipeline::solver_pool(&config)?;
    let mut verdict = Verdict::for_problem(&problem);
    let hooks = stage::proofgame::Hooks {
        progress: None,
        ledger: Some(&ledger as &dyn Ledger),
    };
    pool.install(|| {
        stage::proofgame::run(
            &problem,
            plies,
            options,
            &Resources::default(),
            hooks,
            &mut verdict,
        )
    });
    let mut items = ledger.found.into_inner().unwrap_or_else(|e| e.into_inner());
    items.sort_by_key(|r| (r.goal, r.plies, r.index));
    let result = ShareResult {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        fingerprint: task.fingerprint.clone(),
        index: task.index,
        share,
        tasks: task.tasks,
        host: hostname(),
        seconds: started.elapsed().as_secs_f64(),
        items,
    };
    executor::write_whole(
        &executor::result_path(dir, share),
        &serde_json::to_vec(&result)?,
    )?;
    eprintln!(
        "cookd work: {} {}: share {share} of {}: {} work items in {:.1} s on {}",
        task.file,
        verdict.id,
        task.tasks,
        result.items.len(),
        result.seconds,
        result.host
    );
    Ok(ExitCode::SUCCESS)
}

/// The task folder's configuration, checked against the fingerprint its
/// description names, with `--threads`.
fn task_config(args: &Args, fingerprint: &str) -> Result<Config> {
    let mut config = Config::load(&args.dir.join(executor::CONFIG_FILE))?;
    if config.fingerprint() != fingerprint {
        bail!("the task's stages differ from those its configuration names");
    }
    if let Some(threads) = args.threads {
        config.threads = Threads::Count(threads.max(1));
    }
    Ok(config)
}

/// Reads the description `file` (a task or a batch, `what`) in `dir`,
/// refusing one another cookd wrote: a node with another build would
/// count differently.
fn read_description<T: serde::de::DeserializeOwned>(
    dir: &Path,
    file: &str,
    what: &str,
    version: impl Fn(&T) -> &str,
) -> Result<T> {
    let description: T = serde_json::from_slice(
        &std::fs::read(dir.join(file))
            .with_context(|| format!("cannot read the {what} in {}", dir.display()))?,
    )
    .with_context(|| format!("the {what} description"))?;
    let ours = env!("CARGO_PKG_VERSION");
    let theirs = version(&description);
    if theirs != ours {
        bail!(
            "the {what} was written by cookd {theirs}, this is cookd {ours}: every node needs \
             the submitter's cookd"
        );
    }
    Ok(description)
}

/// One task of a batch of whole files: judges file `k` as `cookd solve`
/// does and writes its verdicts, rendered in every format, to
/// `verdicts-K.json`.
fn judge_file(args: &Args, k: usize) -> Result<ExitCode> {
    let dir = &args.dir;
    let batch: Batch =
        read_description(dir, executor::BATCH_FILE, "batch", |b: &Batch| &b.version)?;
    let name = batch
        .files
        .get(k)
        .with_context(|| format!("task {k}: the batch has {} files", batch.files.len()))?;
    if fails_once(dir, k)? {
        eprintln!("cookd work: task {k}: failing on purpose ({FAIL_ONCE})");
        return Ok(ExitCode::from(3));
    }
    let config = task_config(args, &batch.fingerprint)?;
    let content = std::fs::read(dir.join(format!("file-{k}")))
        .with_context(|| format!("cannot read file {k} in {}", dir.display()))?;
    let pool = pipeline::solver_pool(&config)?;
    let resources = Resources::default();
    let verdicts = pool.install(|| {
        pipeline::judge_file_with(name, &content, &config.stages, &resources, None, None)
    });
    let mut rendered = Vec::new();
    for v in &verdicts {
        rendered.push(Rendered {
            verdict: v.verdict.as_str().to_owned(),
            text: report::render(v, Format::Text)?,
            yaml: report::render(v, Format::Yaml)?,
            json: report::render(v, Format::Json)?,
        });
    }
    let result = FileVerdicts {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        fingerprint: batch.fingerprint.clone(),
        file: k,
        verdicts: rendered,
        entries: report::entries(&verdicts),
    };
    executor::write_whole(
        &executor::verdicts_path(dir, k),
        &serde_json::to_vec(&result)?,
    )?;
    eprintln!("cookd work: {name}: {} problem(s) judged", verdicts.len());
    Ok(ExitCode::SUCCESS)
}

/// Whether this run of `share` fails on purpose ([`FAIL_ONCE`]): the first
/// one does, and leaves a mark in the task folder so that the next does not.
fn fails_once(dir: &std::path::Path, share: usize) -> Result<bool> {
    let Ok(list) = std::env::var(FAIL_ONCE) else {
        return Ok(false);
    };
    if !list.split(',').any(|s| s.trim().parse() == Ok(share)) {
        return Ok(false);
    }
    let mark = dir.join(format!("failed-once-{share}"));
    if mark.exists() {
        return Ok(false);
    }
    std::fs::write(&mark, b"").with_context(|| format!("cannot write {}", mark.display()))?;
    Ok(true)
}

/// This node's name, for the result (which node did what).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
}
