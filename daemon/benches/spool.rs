//! The daemon's own overhead, end to end: `cookd run` on a temporary spool.
//!
//! * latency: one trivial problem renamed into the inbox until its verdict
//!   file appears in the outbox (target < 100 ms; the solve itself takes
//!   well under a millisecond and is reported separately);
//! * throughput: a thousand trivial problems renamed in at once until the
//!   last verdict appears (target >= 100 problems/s on 2 cores).
//!
//! `cargo bench -p cookd --bench spool [-- COUNT]`. Verdict files are noticed
//! through inotify, like the daemon notices problem files, so the
//! measurement does not steal CPU from the daemon by polling.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

const PROBLEM: &str = "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n";

fn main() {
    let count: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("pipeline.yaml"),
        "inbox: inbox\noutbox: outbox\ndatabase: journal.sqlite\nthreads: auto\n\
         stages:\n  - legality: {}\n  - solve: {budget_s: 60, hash_mb: 64}\n\
         mail:\n  transport: file\n  dir: outbox/mail\n\
         \x20 smtp: {host: localhost, port: 25, security: starttls, credentials_file: null}\n\
         \x20 from: cookd@localhost\n  to: [judge@example.org]\n  on: [cooked]\n",
    )
    .unwrap();
    let mut daemon = start(root);

    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            for path in event.paths {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".verdict.json") && !name.starts_with('.') {
                    let _ = tx.send(name);
                }
            }
        }
    })
    .unwrap();
    watcher
        .watch(&root.join("outbox"), RecursiveMode::NonRecursive)
        .unwrap();

    // Latency, one file at a time.
    let mut latencies = Vec::new();
    let mut solve_ms = Vec::new();
    for i in 0..50 {
        let name = format!("lat{i}");
        let part = root.join(format!("inbox/{name}.fen.part"));
        std::fs::write(&part, format!("% {i}\n{PROBLEM}")).unwrap();
        let started = Instant::now();
        std::fs::rename(&part, root.join(format!("inbox/{name}.fen"))).unwrap();
        wait(&rx, &format!("{name}.0.verdict.json"));
        latencies.push(started.elapsed().as_secs_f64() * 1e3);
        let verdict: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(format!("outbox/{name}.0.verdict.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(verdict["verdict"], "sound");
        let stages: f64 = verdict["timings_ms"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        solve_ms.push(stages);
    }
    latencies.sort_by(f64::total_cmp);
    solve_ms.sort_by(f64::total_cmp);
    let pct = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    println!(
        "latency file -> verdict (50 files, one at a time): p50 {:.2} ms, p90 {:.2} ms, p95 {:.2} ms, \
         p99 {:.2} ms, max {:.2} ms (of which stages: median {:.3} ms)",
        pct(&latencies, 0.5),
        pct(&latencies, 0.9),
        pct(&latencies, 0.95),
        pct(&latencies, 0.99),
        latencies[latencies.len() - 1],
        pct(&solve_ms, 0.5)
    );

    // Throughput: everything prepared as .part, then renamed in at once.
    for i in 0..count {
        std::fs::write(
            root.join(format!("inbox/tp{i}.fen.part")),
            format!("% throughput {i}\n{PROBLEM}"),
        )
        .unwrap();
    }
    let started = Instant::now();
    for i in 0..count {
        std::fs::rename(
            root.join(format!("inbox/tp{i}.fen.part")),
            root.join(format!("inbox/tp{i}.fen")),
        )
        .unwrap();
    }
    let mut seen = 0;
    while seen < count {
        let name = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("verdicts keep coming");
        if name.starts_with("tp") {
            seen += 1;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "throughput: {count} problems in {elapsed:.2} s = {:.0} problems/s",
        count as f64 / elapsed
    );

    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let status = daemon.wait().unwrap();
    assert!(status.success(), "cookd run exited with {status}");
}

fn start(root: &Path) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_cookd"))
        .args(["run", "--config"])
        .arg(root.join("pipeline.yaml"))
        .env("COOKD_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("cookd starts");
    let started = Instant::now();
    // The daemon creates the outbox before it watches the inbox.
    while !root.join("inbox/.processing").is_dir() || !root.join("outbox/done").is_dir() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "cookd did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    child
}

fn wait(rx: &mpsc::Receiver<String>, name: &str) {
    loop {
        let got = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no {name} within 30 s"));
        if got == name {
            return;
        }
    }
}
