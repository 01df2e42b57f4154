//! `cookd work DIR`: one task of a Slurm job array (see
//! [`crate::executor`]). It reads the task folder the submitting cookd
//! wrote, searches its share of the proof game's work items and writes
//! what it found to `DIR/share-I.json`, whole (a `.part` file renamed).

use std::path::PathBuf;
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
use crate::executor::{self, ItemRow, ShareResult, Task};
use crate::pipeline;

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
    let task: Task = serde_json::from_slice(
        &std::fs::read(dir.join(executor::TASK_FILE))
            .with_context(|| format!("cannot read the task in {}", dir.display()))?,
    )
    .context("the task description")?;
    let version = env!("CARGO_PKG_VERSION");
    if task.version != version {
        bail!(
            "the task was written by cookd {}, this is cookd {version}: every node needs the \
             submitter's cookd",
            task.version
        );
    }
    let share = match args.share {
        Some(share) => share,
        None => std::env::var("SLURM_ARRAY_TASK_ID")
            .context("no --share and no SLURM_ARRAY_TASK_ID")?
            .parse()
            .context("SLURM_ARRAY_TASK_ID")?,
    };
    if share >= task.tasks {
        bail!("share {share}: the task has {} shares", task.tasks);
    }
    if fails_once(&args.dir, share)? {
        eprintln!("cookd work: share {share}: failing on purpose ({FAIL_ONCE})");
        return Ok(ExitCode::from(3));
    }
    let mut config = Config::load(&dir.join(executor::CONFIG_FILE))?;
    if config.fingerprint() != task.fingerprint {
        bail!("the task's stages differ from those its configuration names");
    }
    if let Some(threads) = args.threads {
        config.threads = Threads::Count(threads.max(1));
    }
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
        version: version.to_owned(),
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
