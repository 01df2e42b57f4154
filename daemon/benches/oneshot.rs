//! One-shot solves as a user times them: `cookd solve FILE`, one process
//! per problem, its user + system CPU (the kernel's page handling, the
//! binary's start and every stage included), against the reference
//! solver's figure for the same problem on this machine.
//!
//! `cargo bench -p cookd --bench oneshot [-- help|all] [--only ID,ID..]
//! [--threads N] [--min-cpu S] [--reference PATH]`
//!
//! The solver pool has one thread unless `--threads` says otherwise (the
//! reference's figures are single-threaded; the default configuration's
//! `threads: auto` would give every core of the machine).
//!
//! `help` (the default): every helpmate of the mate corpus with the
//! reference's intelligent-mode time (`ref_intelligent_cpu_s`); the bar is
//! 3x on each row the reference needs 0.05 s or more for, 5x in total.
//! `all`: every mate corpus row against the reference's plain time.
//!
//! `--reference PATH` runs the reference solver itself (Popeye, built from
//! its public source, e.g. `make -f makefile.unx` in a scratch folder) on
//! each row, right after cookd, and compares with its time measured here
//! instead of the corpus figure: the corpus figures were taken on one
//! machine on one day, and a machine's speed varies more than the bar's
//! margins (the same Popeye took 2.2x the corpus's seconds on a later
//! day). Helpmates are given to it with `option intelligent`.
//!
//! Each solve is repeated until it has taken `--min-cpu` seconds of CPU
//! (0.2 by default, at most 50 runs; the reference's too) and the mean is
//! shown: the kernel counts a process's CPU time in ticks of a few
//! milliseconds, so a single run of a 15 ms solve reads anywhere from 12
//! to 25 ms. `--min-cpu 0` times one run each.
//!
//! Before timing, every row is solved once untimed: a few-unit problem's
//! first solve on a machine generates the endgame tables its tablebase
//! stage reads (into the user's cache, tens of seconds once), which is
//! not the solve's cost.

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
    let min_cpu: f64 = args
        .iter()
        .position(|a| a == "--min-cpu")
        .and_then(|i| args.get(i + 1))
        .map_or(0.2, |s| s.parse().expect("--min-cpu S"));
    let reference = args
        .iter()
        .position(|a| a == "--reference")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let dir = tempfile::tempdir().expect("temporary folder");
    let config = dir.path().join("pipeline.yaml");
    std::fs::write(&config, format!("threads: {threads}\n")).expect("configuration");
    println!("{threads} solver thread(s)");
    if let Some(path) = &reference {
        println!("reference: {} (measured here)", path.display());
    }
    let rows: Vec<_> = read_csv(&data("mate.csv"))
        .into_iter()
        .filter(|row| row[ref_col].parse::<f64>().is_ok())
        .filter(|row| only.as_ref().is_none_or(|o| o.contains(&row["id"])))
        .collect();
    let solve = |file: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_cookd"))
            .arg("solve")
            .arg("--config")
            .arg(&config)
            .arg(file)
            .stderr(Stdio::null())
            .output()
            .expect("cookd solve")
    };
    for row in &rows {
        let file = dir.path().join(format!("{}.fen", row["id"]));
        std::fs::write(&file, format!("{} ; {}\n", row["fen"], row["stipulation"]))
            .expect("problem file");
        solve(&file);
    }
    println!(
        "{:<20} {:<7} {:>8} {:>8} {:>8} {:>7}  verdict",
        "id", "stip", "user s", "sys s", "ref s", "ratio"
    );
    let (mut total, mut total_ref, mut under) = (0.0, 0.0, Vec::new());
    for row in &rows {
        let mut ref_s: f64 = row[ref_col].parse().expect("filtered above");
        let file = dir.path().join(format!("{}.fen", row["id"]));
        let ((user, sys), out) = mean_cpu(min_cpu, || solve(&file));
        if let Some(path) = &reference {
            let Some(text) = popeye_input(&row["fen"], &row["stipulation"]) else {
                println!("{:<20} side to move not Popeye's: left out", row["id"]);
                continue;
            };
            let input = dir.path().join(format!("{}.inp", row["id"]));
            std::fs::write(&input, text).expect("reference input");
            let ((user, sys), status) = mean_cpu(min_cpu, || {
                Command::new(path)
                    .arg(&input)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("the reference solver")
            });
            assert!(status.success(), "{}: the reference failed", row["id"]);
            ref_s = user + sys;
        }
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
            "{:<20} {:<7} {user:>8.4} {sys:>8.4} {ref_s:>8.4} {ratio:>7.2}  {verdict}",
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

/// Runs `run` until it has taken `min_cpu` seconds of CPU in child
/// processes (once at least, 50 times at most): the mean user and system
/// seconds of a run, and the last run's result.
fn mean_cpu<T>(min_cpu: f64, mut run: impl FnMut() -> T) -> ((f64, f64), T) {
    let before = children_cpu();
    let mut runs = 0;
    loop {
        let out = run();
        runs += 1;
        let after = children_cpu();
        let (user, sys) = (after.0 - before.0, after.1 - before.1);
        if user + sys >= min_cpu || runs == 50 {
            let n = f64::from(runs);
            return ((user / n, sys / n), out);
        }
    }
}

/// The problem as Popeye input (English keywords): its units, its
/// stipulation, and as options `intelligent` for a helpmate, the castlings
/// the FEN takes away from units on their home squares (Popeye assumes
/// them), and the double step an en passant square names. Popeye takes the
/// side to move from the stipulation (White first but in h#n); `None`
/// when the FEN has the other side move.
fn popeye_input(fen: &str, stipulation: &str) -> Option<String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let (board, turn, rights, ep) = (fields[0], fields[1], fields[2], fields[3]);
    let helpmate = stipulation.starts_with('h');
    let white_first = !helpmate || stipulation.ends_with(".5");
    if (turn == "w") != white_first {
        return None;
    }
    let mut squares = std::collections::HashMap::new();
    let (mut white, mut black) = (Vec::new(), Vec::new());
    for (rank, row) in board.split('/').enumerate() {
        let mut file = 0u8;
        for c in row.chars() {
            if let Some(n) = c.to_digit(10) {
                file += n as u8;
                continue;
            }
            let square = format!("{}{}", char::from(b'a' + file), 8 - rank);
            // Popeye's English input names the knight S.
            let letter = match c.to_ascii_lowercase() {
                'n' => 's',
                other => other,
            };
            let unit = format!("{letter}{square}");
            if c.is_ascii_uppercase() {
                white.push(unit);
            } else {
                black.push(unit);
            }
            squares.insert(square, c);
            file += 1;
        }
    }
    let mut options = Vec::new();
    if helpmate {
        options.push("intelligent".to_string());
    }
    let at = |sq: &str| squares.get(sq).copied();
    for (right, king, rook, k, r) in [
        ('K', "e1", "h1", 'K', 'R'),
        ('Q', "e1", "a1", 'K', 'R'),
        ('k', "e8", "h8", 'k', 'r'),
        ('q', "e8", "a8", 'k', 'r'),
    ] {
        if at(king) == Some(k) && at(rook) == Some(r) && !rights.contains(right) {
            options.push(format!("nocastling {rook}"));
        }
    }
    if let [file, rank] = ep.as_bytes() {
        let (file, rank) = (char::from(*file), char::from(*rank));
        let (from, to) = if rank == '3' { ('2', '4') } else { ('7', '5') };
        options.push(format!("enpassant {file}{from}{file}{rank}{file}{to}"));
    }
    let option = if options.is_empty() {
        String::new()
    } else {
        format!("option {}\n", options.join(" "))
    };
    Some(format!(
        "beginproblem\nstipulation {stipulation}\n{option}pieces white {} black {}\nendproblem\n",
        white.join(" "),
        black.join(" ")
    ))
}

/// User and system CPU seconds of the children waited for so far.
fn children_cpu() -> (f64, f64) {
    use nix::sys::resource::{getrusage, UsageWho};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    (secs(usage.user_time()), secs(usage.system_time()))
}
