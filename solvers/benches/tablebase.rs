//! DTM generation speed and memory: generates the 3- and 4-unit tables
//! (or the materials named on the command line, with their sub-tables)
//! into a fresh folder and prints per-table slots, file size, wall and CPU
//! time and peak resident memory, then the totals.
//!
//! Each table is generated in a child process of its own (this program run
//! again with `COOKD_BENCH_ONE` set), so the peak memory printed is that
//! table's alone: the child reads its high-water mark (`VmHWM`) when done.
//!
//! `cargo bench -p solvers --bench tablebase [-- KRBvKR KRPvKR ...]`
//! (`COOKD_BENCH_DIR` keeps the tables in that folder instead).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use solvers::tablebase::tables::{all_materials, closure, DtmTables};
use solvers::tablebase::Material;

fn cpu_seconds() -> Option<f64> {
    // utime and stime, fields 14 and 15 of /proc/self/stat, in clock ticks
    // (100 per second on Linux).
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The process's peak resident memory in MiB, from `VmHWM` (kB).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// In the child: generates one table whose sub-tables are present and
/// prints its line: material, slots, bytes, wall, CPU, peak RSS, longest
/// win.
fn generate_one(dir: &std::path::Path, key: &str) {
    let material: Material = key.parse().expect("a material key such as KRvKN");
    let tables = DtmTables::new(dir);
    for g in tables.ensure(&material, &|_| {}).expect("generation") {
        println!(
            "{:<10} {:>12} {:>12} {:>9.2} {:>9.1} {:>9.1} {:>8}",
            g.material.to_string(),
            g.slots,
            g.file_bytes,
            g.elapsed.as_secs_f64(),
            cpu_seconds().unwrap_or(f64::NAN),
            peak_rss_mib().unwrap_or(f64::NAN),
            g.longest_win
        );
    }
}

fn main() {
    let dir = std::env::var_os("COOKD_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("cookd-tb-bench-{}", std::process::id()))
        });
    if let Ok(key) = std::env::var("COOKD_BENCH_ONE") {
        generate_one(&dir, &key);
        return;
    }
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let materials: Vec<Material> = if args.is_empty() {
        let mut all = all_materials(3);
        all.extend(all_materials(4));
        all
    } else {
        args.iter()
            .map(|a| a.parse().expect("a material key such as KRvKN"))
            .collect()
    };
    let tables = DtmTables::new(&dir);
    println!(
        "threads {}  dir {}",
        rayon::current_num_threads(),
        dir.display()
    );
    println!(
        "{:<10} {:>12} {:>12} {:>9} {:>9} {:>9} {:>8}",
        "table", "slots", "bytes", "seconds", "cpu_s", "peak_MiB", "max_win"
    );
    let started = Instant::now();
    let this = std::env::current_exe().expect("the bench's own path");
    for m in &materials {
        for sub in closure(m) {
            if tables.has(&sub) {
                continue;
            }
            let status = Command::new(&this)
                .env("COOKD_BENCH_DIR", &dir)
                .env("COOKD_BENCH_ONE", sub.to_string())
                .status()
                .expect("the bench runs itself");
            assert!(status.success(), "generating {sub} failed");
        }
    }
    let bytes: u64 = materials
        .iter()
        .flat_map(closure)
        .collect::<std::collections::BTreeSet<_>>()
        .iter()
        .filter_map(|m| std::fs::metadata(tables.path(m)).ok())
        .map(|meta| meta.len())
        .sum();
    println!(
        "total: {bytes} bytes, {:.1} s wall",
        started.elapsed().as_secs_f64()
    );
    if std::env::var_os("COOKD_BENCH_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
