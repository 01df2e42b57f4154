//! One-shot solves as a user times them: `cookd solve FILE`, one process
//! per problem, its user + system CPU (the kernel's page handling, the
//! binary's start and every stage included), against the reference
//! solver's figure for the same problem on this machine.
//!
//! `cargo bench -p cookd --bench oneshot [-- help|all] [--only ID,ID..]
//! [--threads N]`
//!
//! The solver pool has one thread unless `--threads` says otherwise (the
//! reference's figures are single-threaded; the default configuration's
//! `threads: auto` would give every core of the machine).
//!
//! `help` (the default): every helpmate of the mate corpus with the
//! reference's intelligent-mode time (`ref_intelligent_cpu_s`); the bar is
//! 3x on each row the reference needs 0.05 s or more for, 5x in total.
//! `all`: every mate corpus row against the reference's plain time.

use std::process::{Command, Stdio};

use solvers::testing::{data, read_csv};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let all = args.iter().any(|a| a == "all");
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(String::from).collect());
    let ref_col = if all {
        "ref_cpu_s"
    } else {
        "ref_intelligent_cpu_s"
    };
    let threads: usize = args
        .iter()
        .position(|a| a == "--threads")
        .and_then(|i| args.get(i + 1))
        .map_or(1, |s| s.parse().expect("--threads N"));
    let dir = tempfile::tempdir().expect("temporary folder");
    let config = dir.path().join("pipeline.yaml");
    std::fs::write(&config, format!("threads: {threads}\n")).expect("configuration");
    println!("{threads} solver thread(s)");
    println!(
        "{:<20} {:<7} {:>8} {:>8} {:>8} {:>7}  verdict",
        "id", "stip", "user s", "sys s", "ref s", "ratio"
    );
    let (mut total, mut total_ref, mut under) = (0.0, 0.0, Vec::new());
    for row in read_csv(&data("mate.csv")) {
        let Ok(ref_s) = row[ref_col].parse::<f64>() else {
            continue;
        };
        if only.as_ref().is_some_and(|o| !o.contains(&row["id"])) {
            continue;
        }
        let file = dir.path().join(format!("{}.fen", row["id"]));
        std::fs::write(&file, format!("{} ; {}\n", row["fen"], row["stipulation"]))
            .expect("problem file");
        let before = children_cpu();
        let out = Command::new(env!("CARGO_BIN_EXE_cookd"))
            .arg("solve")
            .arg("--config")
            .arg(&config)
            .arg(&file)
            .stderr(Stdio::null())
            .output()
            .expect("cookd solve");
        let after = children_cpu();
        let (user, sys) = (after.0 - before.0, after.1 - before.1);
        let text = String::from_utf8_lossy(&out.stdout);
        let verdict = text
            .lines()
            .find_map(|l| l.strip_prefix("Verdict: "))
            .unwrap_or("?");
        let ratio = ref_s / (user + sys);
        if ratio < 3.0 && ref_s >= 0.05 {
            under.push(row["id"].clone());
        }
        total += user + sys;
        total_ref += ref_s;
        println!(
            "{:<20} {:<7} {user:>8.3} {sys:>8.3} {ref_s:>8.3} {ratio:>7.2}  {verdict}",
            row["id"], row["stipulation"]
        );
    }
    println!(
        "\ntotal: cookd {total:.2} s, reference {total_ref:.2} s ({:.2}x); \
         under 3x of the rows the reference needs 0.05 s or more for: {} {under:?}",
        total_ref / total,
        under.len()
    );
}

/// User and system CPU seconds of the children waited for so far.
fn children_cpu() -> (f64, f64) {
    use nix::sys::resource::{getrusage, UsageWho};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    (secs(usage.user_time()), secs(usage.system_time()))
}
