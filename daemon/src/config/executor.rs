//! The `executor:` section of `pipeline.yaml`: where proof-game searches
//! run (this machine, or Slurm job arrays), and its checks.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::checked_map;

/// The `executor:` section: where proof-game searches run.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Executor {
    #[serde(default)]
    pub kind: ExecutorKind,
    /// Slurm: the folder every node sees (a shared filesystem) where task
    /// descriptions and results are written; relative to the
    /// configuration's folder. Required with `kind: slurm`.
    #[serde(default)]
    pub spool: Option<PathBuf>,
    /// Slurm partition (`sbatch --partition`); none: the cluster's default.
    #[serde(default)]
    pub partition: Option<String>,
    /// Wall-clock limit of each task (`sbatch --time`: `MM`, `MM:SS`,
    /// `HH:MM:SS`, `D-HH`, `D-HH:MM`, `D-HH:MM:SS`).
    #[serde(default = "default_time_limit")]
    pub time_limit: String,
    /// Tasks of one array running at once (`--array=...%max_array`).
    #[serde(default = "default_max_array")]
    pub max_array: u32,
    /// Shares a search is split into: task `i` of `tasks` searches the
    /// work items whose index is `i` modulo `tasks`.
    #[serde(default = "default_tasks")]
    pub tasks: u32,
    /// Cores per task (`--cpus-per-task`), the task's solver threads.
    #[serde(default = "default_cpus_per_task")]
    pub cpus_per_task: u32,
    /// Proof games estimated to take at least this many seconds here go
    /// to the cluster; 0 sends every proof game without an estimate.
    #[serde(default = "default_min_seconds")]
    pub min_seconds: f64,
    /// Times a share whose task left no result (failed, killed, timed
    /// out) is submitted again; what is still missing is searched here.
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// The cookd binary on the nodes (default: this binary's own path,
    /// which must then be the same on every node).
    #[serde(default)]
    pub cookd: Option<PathBuf>,
    /// More `sbatch` options, as they are (`--account=...`, `--mem=4G`).
    #[serde(default)]
    pub sbatch_args: Vec<String>,
    /// Each file judged whole by a task of its own: `cookd solve` of
    /// several files submits one array of a task per file (a tourney's
    /// entries at once); `cookd run` submits each file as it claims it.
    #[serde(default)]
    pub whole_files: bool,
    /// Seconds an array may wait with none of its tasks started before it
    /// is cancelled and its work done here; none: as long as it takes.
    #[serde(default)]
    pub queue_limit_s: Option<f64>,
}

impl Default for Executor {
    fn default() -> Executor {
        Executor {
            kind: ExecutorKind::Local,
            spool: None,
            partition: None,
            time_limit: default_time_limit(),
            max_array: default_max_array(),
            tasks: default_tasks(),
            cpus_per_task: default_cpus_per_task(),
            min_seconds: default_min_seconds(),
            retries: default_retries(),
            cookd: None,
            sbatch_args: Vec::new(),
            whole_files: false,
            queue_limit_s: None,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecutorKind {
    /// Every search on this machine's solver pool.
    #[default]
    Local,
    /// Long proof games as Slurm job arrays running `cookd work`.
    Slurm,
}

fn default_time_limit() -> String {
    "1:00:00".into()
}

fn default_max_array() -> u32 {
    16
}

fn default_tasks() -> u32 {
    16
}

fn default_cpus_per_task() -> u32 {
    1
}

fn default_min_seconds() -> f64 {
    600.0
}

fn default_retries() -> u32 {
    2
}

/// Whether `text` is a time limit `sbatch --time` takes: `MM`, `MM:SS`,
/// `HH:MM:SS`, `D-HH`, `D-HH:MM`, `D-HH:MM:SS`, or `UNLIMITED`.
fn slurm_time(text: &str) -> bool {
    let number = |s: &str| !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit());
    if text == "UNLIMITED" || text == "INFINITE" {
        return true;
    }
    let (days, rest) = match text.split_once('-') {
        Some((days, rest)) => (Some(days), rest),
        None => (None, text),
    };
    let parts: Vec<&str> = rest.split(':').collect();
    days.is_none_or(number) && parts.iter().all(|p| number(p)) && parts.len() <= 3
}

/// The `executor:` section, checked as a whole (see [`checked_map`]).
pub(super) fn executor_section<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Executor, D::Error> {
    checked_map(d, |e: &Executor| {
        if e.kind == ExecutorKind::Local {
            return Ok(());
        }
        if e.spool.is_none() {
            return Err("`kind: slurm` needs `spool:`, a folder every node sees \
                        (on a shared filesystem)"
                .to_owned());
        }
        if !slurm_time(&e.time_limit) {
            return Err(format!(
                "time_limit: expected a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, \
                 D-HH:MM:SS or UNLIMITED), found {:?}",
                e.time_limit
            ));
        }
        if e.tasks == 0 || e.max_array == 0 || e.cpus_per_task == 0 {
            return Err("tasks, max_array and cpus_per_task: expected at least 1".to_owned());
        }
        if !(e.min_seconds.is_finite() && e.min_seconds >= 0.0) {
            return Err(format!(
                "min_seconds: expected 0 or more (seconds), found {}",
                e.min_seconds
            ));
        }
        if e.queue_limit_s.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
            return Err("queue_limit_s: expected a number of seconds over 0, or null".to_owned());
        }
        if e.partition.as_deref().is_some_and(str::is_empty) {
            return Err("partition: expected a name, or null for the default".to_owned());
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::config::tests::{error, parse};
    use crate::config::Config;

    #[test]
    fn the_executor_section_defaults_to_local_and_checks_slurm_settings() {
        assert_eq!(Config::builtin().executor.kind, ExecutorKind::Local);
        let text = "executor: {kind: slurm, spool: /shared/cookd, partition: long, \
                    time_limit: 2-00:00:00, tasks: 64, max_array: 8}\n";
        let e = parse(text).unwrap().executor;
        assert_eq!(e.kind, ExecutorKind::Slurm);
        assert_eq!(e.spool, Some(PathBuf::from("/shared/cookd")));
        assert_eq!((e.tasks, e.max_array, e.cpus_per_task), (64, 8, 1));
        assert_eq!((e.min_seconds, e.retries), (600.0, 2));
        for (text, part) in [
            ("executor: {kind: slurm}\n", "needs `spool:`"),
            (
                "executor: {kind: slurm, spool: s, time_limit: 1h}\n",
                "time_limit",
            ),
            (
                "executor: {kind: slurm, spool: s, tasks: 0}\n",
                "at least 1",
            ),
            (
                "executor: {kind: slurm, spool: s, min_seconds: -1}\n",
                "min_seconds",
            ),
            (
                "executor: {kind: slurm, spool: s, partitions: x}\n",
                "partitions",
            ),
            ("executor: {kind: pbs}\n", "`slurm`"),
        ] {
            let message = error(&format!("threads: 1\n{text}"));
            for part in [part, "hand.yaml", "executor", "line 2"] {
                assert!(message.contains(part), "{part}: {message}");
            }
        }
        for good in [
            "30",
            "30:00",
            "1:00:00",
            "1-12",
            "1-12:30",
            "1-12:30:00",
            "UNLIMITED",
        ] {
            assert!(slurm_time(good), "{good}");
        }
        for bad in ["", "1h", "1:2:3:4", "-1", "a-1", "1-"] {
            assert!(!slurm_time(bad), "{bad}");
        }
        // Printed by check-config, it reads back the same.
        let config = parse(text).unwrap();
        let printed = yaml_serde::to_string(&config).unwrap();
        let again = Config::from_yaml(&printed, "printed", Path::new("")).unwrap();
        assert_eq!(again.executor, config.executor);
    }
}
