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
    let verdicts = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("timings_ms");
            v
        })
        .collect();
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
    for part in [
        ": 4 task(s) of 4 in ",
        "share(s) 1 left no result; submitted again (1 of 2)",
        ": 1 task(s) of 4 in ",
        "4 of 4 share(s) done on the cluster",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    // The verdict is final: the task folder and the journal's items are
    // dropped.
    let left: Vec<_> = std::fs::read_dir(dir.path().join("spool"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
    println!("local run {local_s:.1} s; on Slurm (4 tasks, one submitted twice) {slurm_s:.1} s");
    println!("{stderr}");

    // The daemon sends it to the cluster the same way.
    let mut spool = Spool::new(MailTo::Nobody, 2);
    let config = spool.path("pipeline.yaml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(
        "executor: {kind: slurm, spool: slurm-spool, tasks: 2, min_seconds: 0, \
         time_limit: '10:00'}\n",
    );
    std::fs::write(&config, text).unwrap();
    let started = Instant::now();
    spool.start();
    spool.rename_in("long.fen", LONG);
    let mut verdict = spool.wait_verdict("long", 0);
    let daemon_s = started.elapsed().as_secs_f64();
    let mut local = local[0].clone();
    for v in [&mut verdict, &mut local] {
        let v = v.as_object_mut().unwrap();
        v.remove("timings_ms");
        v.remove("file");
    }
    assert_eq!(verdict, local);
    let log = spool.log();
    assert!(
        log.contains(": 2 task(s) of 2 in ") && log.contains("2 of 2 share(s) done on the cluster"),
        "{log}"
    );
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
    println!("cookd run on Slurm (2 tasks): verdict in {daemon_s:.1} s");
}
