//! Long proof games survive kill -9: `cookd solve --resume` and `cookd run`
//! record each finished work item in the journal and go on where they
//! stopped, and the verdict equals an uninterrupted run's; `cookd estimate`
//! sizes the search first.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/spool.rs"]
mod spool;
use spool::{MailTo, Spool};

/// spg225 of the corpus (unique in 31 plies): some 8,900 work items, about
/// 3 s of one core's time (release and test builds alike: the solvers are
/// optimised in both), most of it in a few items.
const LONG: &str = "8/5k2/8/8/8/8/3K4/6Nb b - - 0 1 ; SPG 15.5\n";

const TIMEOUT: Duration = Duration::from_secs(120);

fn cookd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cookd"))
}

/// Work items in the journal: (goal, plies, index) → finished_at.
fn items(spool: &Spool) -> BTreeMap<(i64, i64, i64), f64> {
    let Ok(conn) = rusqlite::Connection::open(spool.path("journal.sqlite")) else {
        return BTreeMap::new();
    };
    let Ok(mut stmt) = conn.prepare("SELECT goal, plies, idx, finished_at FROM work_items") else {
        return BTreeMap::new();
    };
    stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?, r.get(2)?), r.get(3)?)))
        .map(|rows| rows.filter_map(Result::ok).collect())
        .unwrap_or_default()
}

/// The search's progress row: (items done, items) of the length counted.
fn progress(spool: &Spool) -> Option<(i64, i64)> {
    let conn = rusqlite::Connection::open(spool.path("journal.sqlite")).ok()?;
    conn.query_row("SELECT done, items FROM progress", [], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
    .ok()
}

/// Waits until `child`'s search has done `fraction` of its items (or more),
/// then kills it with SIGKILL. False when it finished first.
fn kill_at(child: &mut Child, spool: &Spool, fraction: f64) -> bool {
    let start = Instant::now();
    loop {
        assert!(start.elapsed() < TIMEOUT, "no progress");
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if let Some((done, all)) = progress(spool) {
            if done as f64 >= fraction * all as f64 {
                child.kill().unwrap();
                child.wait().unwrap();
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The items recorded before a restart are taken from the journal, not
/// searched again (their rows keep their time).
fn assert_kept(before: &BTreeMap<(i64, i64, i64), f64>, after: &BTreeMap<(i64, i64, i64), f64>) {
    for (key, at) in before {
        assert_eq!(after.get(key), Some(at), "item {key:?} searched again");
    }
    assert!(after.len() > before.len(), "no item done since the restart");
}

#[test]
fn solve_resume_after_kill_9_equals_an_uninterrupted_run() {
    let spool = Spool::new(MailTo::Nobody, 2);
    std::fs::write(spool.path("long.fen"), LONG).unwrap();
    let config = spool.path("pipeline.yaml");
    let plain = cookd()
        .args(["solve", "--format", "json", "--config"])
        .arg(&config)
        .arg(spool.path("long.fen"))
        .output()
        .unwrap();
    assert!(plain.status.success());
    let plain = spool::verdicts_without_timings(&plain.stdout);
    assert_eq!(plain[0]["verdict"], "sound", "{plain:?}");

    let resume = || {
        cookd()
            .args(["solve", "--resume", "--format", "json", "--config"])
            .arg(&config)
            .arg(spool.path("long.fen"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut before = BTreeMap::new();
    let mut kills = 0;
    for fraction in [0.2, 0.5, 0.8] {
        let mut child = resume();
        if !kill_at(&mut child, &spool, fraction) {
            break;
        }
        kills += 1;
        // `cookd history` tells where the search stopped.
        let history = cookd()
            .args(["history", "--config"])
            .arg(&config)
            .output()
            .unwrap();
        let history = String::from_utf8_lossy(&history.stdout);
        assert!(
            history.contains("in progress: ") && history.contains("proof games of 31 plies"),
            "{history}"
        );
        let after = items(&spool);
        assert_kept(&before, &after);
        before = after;
    }
    assert_eq!(kills, 3, "the search finished before it could be killed");
    let last = resume().wait_with_output().unwrap();
    assert!(last.status.success());
    assert_eq!(spool::verdicts_without_timings(&last.stdout), plain);
    // Done: the checkpoints are dropped.
    assert!(items(&spool).is_empty());
}

#[test]
fn run_goes_on_after_kill_9_and_its_verdict_equals_an_uninterrupted_run() {
    let mut spool = Spool::new(MailTo::Nobody, 2);
    std::fs::write(spool.path("long.fen"), LONG).unwrap();
    let plain = cookd()
        .args(["solve", "--format", "json", "--config"])
        .arg(spool.path("pipeline.yaml"))
        .arg(spool.path("long.fen"))
        .output()
        .unwrap();
    let mut plain = spool::verdicts_without_timings(&plain.stdout).remove(0);
    spool.start();
    spool.rename_in("long.fen", LONG);
    let mut before = BTreeMap::new();
    for fraction in [0.3, 0.7] {
        let mut daemon = spool.daemon.take().unwrap();
        assert!(
            kill_at(&mut daemon, &spool, fraction),
            "the search finished before it could be killed"
        );
        let after = items(&spool);
        assert_kept(&before, &after);
        before = after;
        spool.start();
    }
    let mut verdict = spool.wait_verdict("long", 0);
    for v in [&mut verdict, &mut plain] {
        let v = v.as_object_mut().unwrap();
        v.remove("timings_ms");
        v.remove("file");
    }
    assert_eq!(verdict, plain);
    spool::wait_for("the checkpoints dropped", || items(&spool).is_empty());
    spool.signal("TERM");
    assert!(spool.wait_exit().success());
}

#[test]
fn estimate_prints_items_by_free_moves_and_a_time_range() {
    let spool = Spool::new(MailTo::Nobody, 1);
    std::fs::write(spool.path("long.fen"), LONG).unwrap();
    let out = cookd()
        .args(["estimate", "--format", "json", "--config"])
        .arg(spool.path("pipeline.yaml"))
        .arg(spool.path("long.fen"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let [e]: [Value; 1] = spool::verdicts_without_timings(&out.stdout)
        .try_into()
        .unwrap();
    let number = |key: &str| e[key].as_f64().unwrap_or_else(|| panic!("no {key} in {e}"));
    assert!(number("nodes") > 0.0, "{e}");
    assert!(number("low_seconds") <= number("seconds"), "{e}");
    assert!(number("seconds") <= number("high_seconds"), "{e}");
    // spg225 (9.3 M nodes) is under the nodes counted: its own size.
    assert_eq!(e["extrapolated"], false, "{e}");
    assert_eq!(number("low_nodes"), number("high_nodes"), "{e}");
    // Every item is in one free-moves class.
    let histogram = e["histogram"].as_array().unwrap();
    let sum: f64 = histogram.iter().map(|h| h["items"].as_f64().unwrap()).sum();
    assert_eq!(sum, number("items"), "{e}");
}
