//! The Slurm executor on a real (one-node) cluster: a proof game of many
//! work items judged with `executor: {kind: slurm}` gets the verdict of a
//! local run, though one of its tasks fails and is submitted again.
//!
//! `.ci/slurm-up` installs Debian's slurmctld, slurmd and munge and starts
//! the cluster on localhost. Without `sinfo` answering, the test says it
//! was skipped, unless `COOKD_REQUIRE_SLURM` is set (as CI sets it).

use std::path::Path;
use std::process::{Command, Output};
use std::time::Instant;

use serde_json::Value;

#[path = "support/spool.rs"]
mod spool;
use spool::{MailTo, Spool};

/// spg225 of the corpus (unique in 31 plies): some 8,900 work items, about
/// 3 s of one core's time (as in tests/resume.rs).
const LONG: &str = "8/5k2/8/8/8/8/3K4/6Nb b - - 0 1 ; SPG 15.5\n";

/// spg189 of the corpus (cooked: two games of 22 plies), a Stelvio file.
const SHORT: &str = "rn1qkbnr/pp2pppp/1N6/8/1KP5/RQ6/q2PPPPP/1bB2B1R\n22\n";

const STAGES: &str = "database: journal.sqlite\nthreads: 2\n\
    stages:\n  - legality: {}\n  - solve: {budget_s: 120, hash_mb: 64}\n";

fn slurm_is_up() -> bool {
    Command::new("sinfo")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `cookd solve --format json` of `long.fen` under `config`, with its
/// verdicts (timings left out) and the seconds it took.
fn solve(dir: &Path, config: &str, env: &[(&str, &str)]) -> (Output, Vec<Value>, f64) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["solve", "--resume", "--format", "json", "--config", config])
        .arg("long.fen")
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = spool::verdicts_without_timings(&out.stdout);
    (out, verdicts, seconds)
}

#[test]
fn a_proof_game_on_slurm_equals_a_local_run_and_failed_tasks_are_resubmitted() {
    if !slurm_is_up() {
        assert!(
            std::env::var_os("COOKD_REQUIRE_SLURM").is_none(),
            "COOKD_REQUIRE_SLURM is set but sinfo does not answer (run .ci/slurm-up)"
        );
        println!("skipped: no Slurm cluster answers sinfo (.ci/slurm-up starts one)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("long.fen"), LONG).unwrap();
    std::fs::write(dir.path().join("local.yaml"), STAGES).unwrap();
    // Four shares, two running at once (the cluster has two cores here),
    // every proof game to the cluster however small.
    let slurm = format!(
        "{STAGES}executor: {{kind: slurm, spool: spool, tasks: 4, max_array: 2, \
         min_seconds: 0, time_limit: '10:00', retries: 2}}\n"
    );
    std::fs::write(dir.path().join("slurm.yaml"), slurm).unwrap();

    let (_, local, local_s) = solve(dir.path(), "local.yaml", &[]);
    assert_eq!(local[0]["verdict"], "sound", "{local:?}");
    // Share 1's first task exits non-zero without a result.
    let (out, on_slurm, slurm_s) =
        solve(dir.path(), "slurm.yaml", &[("COOKD_WORK_FAIL_ONCE", "1")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(on_slurm, local, "{stderr}");
    says(
        &stderr,
        &[
            ": 4 task(s) of 4 in ",
            "task(s) 1 left no result; submitted again (1 of 2)",
            ": 1 task(s) of 4 in ",
            "4 of 4 task(s) done on the cluster",
        ],
    );
    // The verdict is final: the task folder and the journal's items are
    // dropped.
    spool_is_empty(dir.path());
    println!("local run {local_s:.1} s; on Slurm (4 tasks, one submitted twice) {slurm_s:.1} s");
    println!("{stderr}");

    // An array none of whose tasks starts within queue_limit_s (held
    // with --begin) is cancelled, and the search done here.
    std::fs::write(dir.path().join("long.fen"), SHORT).unwrap();
    let (_, local_short, _) = solve(dir.path(), "local.yaml", &[]);
    let held = format!(
        "{STAGES}executor: {{kind: slurm, spool: spool, tasks: 2, min_seconds: 0, \
         queue_limit_s: 2, sbatch_args: ['--begin=now+600']}}\n"
    );
    std::fs::write(dir.path().join("held.yaml"), held).unwrap();
    let (out, here, held_s) = solve(dir.path(), "held.yaml", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(here, local_short, "{stderr}");
    says(
        &stderr,
        &[
            "cancelled: no task started within queue_limit_s",
            "0 of 2 task(s) done on the cluster",
            "; the rest is done here",
        ],
    );
    let job: String = stderr
        .split("Slurm job ")
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let queued = Command::new("squeue")
        .args(["--noheader", "--jobs", &job])
        .output()
        .unwrap();
    assert!(queued.stdout.is_empty(), "{queued:?}");
    println!("held in the queue past queue_limit_s (2 s): judged here in {held_s:.1} s");

    // The daemon sends proof games to the cluster the same way (spg189:
    // cooked, two games of 22 plies; quicker).
    let mut spool = Spool::new(MailTo::Nobody, 2);
    std::fs::write(spool.path("short.txt"), SHORT).unwrap();
    let local = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["solve", "--format", "json", "--config"])
        .arg(spool.path("pipeline.yaml"))
        .arg(spool.path("short.txt"))
        .output()
        .unwrap();
    let mut local: Value = serde_json::from_slice(&local.stdout).unwrap();
    let config = spool.path("pipeline.yaml");
    let plain = std::fs::read_to_string(&config).unwrap();
    let executor = "executor: {kind: slurm, spool: slurm-spool, tasks: 2, min_seconds: 0, \
                    time_limit: '10:00'";
    // First its array is held in the queue (--begin) and the daemon is
    // stopped while it waits: the array is cancelled, the file kept for
    // the next start.
    std::fs::write(
        &config,
        format!("{plain}{executor}, sbatch_args: ['--begin=now+600']}}\n"),
    )
    .unwrap();
    spool.start();
    spool.rename_in("short.txt", SHORT);
    spool::wait_for("the array submitted", || spool.log().contains("Slurm job"));
    let stopping = Instant::now();
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
    let stop_s = stopping.elapsed().as_secs_f64();
    let log = spool.log();
    let job: String = log
        .split("stopping: Slurm job ")
        .nth(1)
        .unwrap_or_else(|| panic!("no stop in {log}"))
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let queued = Command::new("squeue")
        .args(["--noheader", "--jobs", &job])
        .output()
        .unwrap();
    assert!(queued.stdout.is_empty(), "{queued:?}");
    assert!(spool.path("inbox/.processing/short.txt").exists(), "{log}");
    std::fs::write(&config, format!("{plain}{executor}}}\n")).unwrap();
    let started = Instant::now();
    spool.start();
    let mut verdict = spool.wait_verdict("short", 0);
    let daemon_s = started.elapsed().as_secs_f64();
    for v in [&mut verdict, &mut local] {
        let v = v.as_object_mut().unwrap();
        v.remove("timings_ms");
        v.remove("file");
    }
    assert_eq!(verdict["verdict"], "cooked", "{verdict}");
    assert_eq!(verdict, local);
    let log = spool.log();
    assert!(
        log.contains(": 2 task(s) of 2 in ") && log.contains("2 of 2 task(s) done on the cluster"),
        "{log}"
    );
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
    println!(
        "cookd run on Slurm (2 tasks): stopped while waiting in {stop_s:.1} s; \
         after the restart, the verdict in {daemon_s:.1} s"
    );
}

/// Under `min_seconds` (by the estimate) a proof game is searched here:
/// no Slurm needed, none asked.
#[test]
fn a_proof_game_estimated_under_min_seconds_is_searched_here() {
    let dir = tempfile::tempdir().unwrap();
    // spg019 of the corpus: unique in 6 plies, a few milliseconds.
    std::fs::write(
        dir.path().join("long.fen"),
        "rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR w kq - 0 1 ; SPG 3\n",
    )
    .unwrap();
    let slurm = format!(
        "{STAGES}executor: {{kind: slurm, spool: spool, min_seconds: 5, \
         sbatch_args: [--this-option-does-not-exist]}}\n"
    );
    std::fs::write(dir.path().join("slurm.yaml"), slurm).unwrap();
    let (out, verdicts, _) = solve(dir.path(), "slurm.yaml", &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(verdicts[0]["verdict"], "sound", "{stderr}");
    assert!(
        !stderr.contains("Slurm") && !stderr.contains("cluster"),
        "{stderr}"
    );
    assert!(!dir.path().join("spool").exists());
}

/// The executor's whole way (task folder, `cookd work` per share, a share
/// failing and submitted again, the merge) on any machine: `sbatch` and
/// `squeue` are stand-ins (tests/data/fake-sbatch runs the tasks here, one
/// after another). spg189 of the corpus: cooked, two games of 22 plies.
#[test]
fn the_executor_with_stand_ins_for_slurm_equals_a_local_run() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    for name in ["sbatch", "squeue"] {
        std::os::unix::fs::symlink(data.join(format!("fake-{name}")), bin.join(name)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::fs::write(dir.path().join("long.fen"), SHORT).unwrap();
    std::fs::write(dir.path().join("local.yaml"), STAGES).unwrap();
    let slurm =
        format!("{STAGES}executor: {{kind: slurm, spool: spool, tasks: 3, min_seconds: 0}}\n");
    std::fs::write(dir.path().join("slurm.yaml"), slurm).unwrap();
    let (_, local, _) = solve(dir.path(), "local.yaml", &[]);
    assert_eq!(local[0]["verdict"], "cooked", "{local:?}");
    assert_eq!(local[0]["n_solutions"], 2, "{local:?}");
    let env = [("PATH", path.as_str()), ("COOKD_WORK_FAIL_ONCE", "1")];
    let (out, on_slurm, _) = solve(dir.path(), "slurm.yaml", &env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(on_slurm, local, "{stderr}");
    says(
        &stderr,
        &[
            "Slurm job 42: 3 task(s) of 3 in ",
            "task(s) 1 left no result; submitted again (1 of 2)",
            "Slurm job 42: 1 task(s) of 3 in ",
            "3 of 3 task(s) done on the cluster",
        ],
    );
    // A cluster that refuses the array: searched here, the same verdict.
    let refused = format!(
        "{STAGES}executor: {{kind: slurm, spool: spool, min_seconds: 0, \
         sbatch_args: [--refuse]}}\n"
    );
    std::fs::write(dir.path().join("refused.yaml"), refused).unwrap();
    let (out, here, _) = solve(dir.path(), "refused.yaml", &env[..1]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(here, local, "{stderr}");
    says(
        &stderr,
        &[
            "sbatch refused the job array: sbatch: error: Batch job submission failed",
            "0 of 16 task(s) done on the cluster",
            "; the rest is done here",
            "0 work items from the cluster",
        ],
    );
}

/// A tourney's entries: a sound #2, a proof game and an unreadable file.
const ENTRIES: [(&str, &str); 3] = [
    ("a.fen", "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n"),
    (
        "b.txt",
        "rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR\n6\n",
    ),
    ("c.fen", "this is not a problem\n"),
];

/// `cookd solve --format json entries/` under `config` in `dir`: its exit
/// status, its verdicts (timings left out) and its stderr.
fn solve_entries(dir: &Path, config: &str, env: &[(&str, &str)]) -> (i32, Vec<Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["solve", "--format", "json", "--config", config, "entries"])
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let verdicts = spool::verdicts_without_timings(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap(), verdicts, stderr)
}

/// With `whole_files: true`, `cookd solve` of several files sends each
/// whole to a task of one array; the verdicts (and the exit status) are a
/// local run's, though task 1 fails once. Run with stand-ins for Slurm, or
/// on the cluster when `sinfo` answers.
#[test]
fn whole_files_on_the_cluster_equal_a_local_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("entries")).unwrap();
    for (name, text) in ENTRIES {
        std::fs::write(dir.path().join("entries").join(name), text).unwrap();
    }
    let mut env = vec![("COOKD_WORK_FAIL_ONCE", "1".to_owned())];
    if !slurm_is_up() {
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
        for name in ["sbatch", "squeue"] {
            std::os::unix::fs::symlink(data.join(format!("fake-{name}")), bin.join(name)).unwrap();
        }
        let path = std::env::var("PATH").unwrap_or_default();
        env.push(("PATH", format!("{}:{path}", bin.display())));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    std::fs::write(dir.path().join("local.yaml"), STAGES).unwrap();
    let slurm = format!(
        "{STAGES}executor: {{kind: slurm, spool: spool, whole_files: true, \
         time_limit: '10:00'}}\n"
    );
    std::fs::write(dir.path().join("slurm.yaml"), slurm).unwrap();
    let (status, local, _) = solve_entries(dir.path(), "local.yaml", &[]);
    assert_eq!(status, 1, "the unreadable file");
    let words: Vec<_> = local.iter().map(|v| v["verdict"].clone()).collect();
    assert_eq!(words, ["sound", "sound", "error"], "{local:?}");
    let started = Instant::now();
    let (status, on_slurm, stderr) = solve_entries(dir.path(), "slurm.yaml", &env);
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!((status, &on_slurm), (1, &local), "{stderr}");
    says(
        &stderr,
        &[
            ": 3 task(s) of 3 in ",
            "task(s) 1 left no result; submitted again (1 of 2)",
            "3 of 3 task(s) done on the cluster",
            "entries/c.fen: 1 problem(s) judged on the cluster",
        ],
    );
    // Every file judged: the task folder is gone.
    spool_is_empty(dir.path());
    println!("three files, one task each (one submitted twice): {seconds:.1} s\n{stderr}");

    // `cookd run` sends each file it claims to the cluster whole the same
    // way, each file's first task failing once: the verdicts in its outbox
    // are a local run's of the same files.
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let mut names = Vec::new();
    for (name, text) in ENTRIES {
        std::fs::write(plain.join(name), text).unwrap();
        names.push(name);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["solve", "--format", "json", "--config"])
        .arg(dir.path().join("local.yaml"))
        .args(&names)
        .current_dir(&plain)
        .output()
        .unwrap();
    let local = spool::verdicts_without_timings(&out.stdout);
    let mut daemon = Spool::new(MailTo::Nobody, 2);
    let config = daemon.path("pipeline.yaml");
    let plain_config = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{plain_config}executor: {{kind: slurm, spool: slurm-spool, whole_files: true, \
             time_limit: '10:00'}}\n"
        ),
    )
    .unwrap();
    let mut wrapper = vec!["env".to_owned(), "COOKD_WORK_FAIL_ONCE=0".to_owned()];
    wrapper.extend(
        env.iter()
            .filter(|(k, _)| *k == "PATH")
            .map(|(k, v)| format!("{k}={v}")),
    );
    let wrapper: Vec<&str> = wrapper.iter().map(String::as_str).collect();
    let started = Instant::now();
    daemon.start_with(&wrapper);
    for (name, text) in ENTRIES {
        daemon.rename_in(name, text);
    }
    for (name, want) in names.iter().zip(&local) {
        let stem = name.split('.').next().unwrap();
        let mut got = daemon.wait_verdict(stem, 0);
        got.as_object_mut().unwrap().remove("timings_ms");
        assert_eq!(&got, want, "{}", daemon.log());
    }
    let daemon_s = started.elapsed().as_secs_f64();
    let log = daemon.log();
    for part in [
        "a.fen: 1 of 1 task(s) done on the cluster",
        "b.txt: 1 of 1 task(s) done on the cluster",
        "c.fen: 1 of 1 task(s) done on the cluster",
        "task(s) 0 left no result; submitted again (1 of 2)",
    ] {
        assert!(log.contains(part), "{part}: {log}");
    }
    daemon.signal("TERM");
    assert!(daemon.wait_exit().success());
    let left: Vec<_> = std::fs::read_dir(daemon.path("slurm-spool"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
    println!("cookd run, three files sent whole (each task failing once): {daemon_s:.1} s");
}

/// `cookd work` refuses a task another cookd wrote (a node with another
/// build would count differently) and a share the task does not have.
#[test]
fn work_refuses_another_builds_task_and_shares_out_of_range() {
    let dir = tempfile::tempdir().unwrap();
    let work = |share: &str| {
        Command::new(env!("CARGO_BIN_EXE_cookd"))
            .args(["work", "--share", share])
            .arg(dir.path())
            .output()
            .unwrap()
    };
    let task = |version: &str| {
        format!(
            "{{\"version\": \"{version}\", \"fingerprint\": \"f\", \"file\": \"p.fen\", \
             \"index\": 0, \"tasks\": 2}}"
        )
    };
    std::fs::write(dir.path().join("task.json"), task("0.0.0-other")).unwrap();
    let out = work("0");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the task was written by cookd 0.0.0-other, this is cookd ")
            && stderr.contains("every node needs the submitter's cookd"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("task.json"),
        task(env!("CARGO_PKG_VERSION")),
    )
    .unwrap();
    let out = work("2");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("share 2: the task has 2 shares"),
        "{stderr}"
    );
    assert!(!dir.path().join("share-2.json").exists());
}

/// Every one of `parts` is in `stderr`.
fn says(stderr: &str, parts: &[&str]) {
    for part in parts {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
}

/// The verdict is final: the task folders on the spool are gone.
fn spool_is_empty(dir: &std::path::Path) {
    let left: Vec<_> = std::fs::read_dir(dir.join("spool")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}
