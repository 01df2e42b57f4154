//! DTM generation speed: generates the 3- and 4-unit tables (or the
//! materials named on the command line, with their sub-tables) into a
//! fresh folder and prints per-table slots, file size and time, then the
//! total wall and CPU time of the process.
//!
//! `cargo bench -p solvers --bench tablebase [-- KRBvKR KRPvKR ...]`
//! (`COOKD_BENCH_DIR` keeps the tables in that folder instead).

use std::path::PathBuf;
use std::time::Instant;

use solvers::tablebase::tables::{all_materials, DtmTables};
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

fn main() {
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
    let dir = std::env::var_os("COOKD_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("cookd-tb-bench-{}", std::process::id()))
        });
    let tables = DtmTables::new(&dir);
    println!(
        "threads {}  dir {}",
        rayon::current_num_threads(),
        dir.display()
    );
    println!(
        "{:<10} {:>12} {:>12} {:>9} {:>8}",
        "table", "slots", "bytes", "seconds", "max_win"
    );
    let started = Instant::now();
    let (mut slots, mut bytes) = (0u64, 0u64);
    for m in &materials {
        for g in tables.ensure(m, &|_| {}).expect("generation") {
            println!(
                "{:<10} {:>12} {:>12} {:>9.2} {:>8}",
                g.material.to_string(),
                g.slots,
                g.file_bytes,
                g.elapsed.as_secs_f64(),
                g.longest_win
            );
            slots += g.slots;
            bytes += g.file_bytes;
        }
    }
    println!(
        "total: {slots} slots, {bytes} bytes, {:.1} s wall, {} s CPU",
        started.elapsed().as_secs_f64(),
        cpu_seconds().map_or("?".into(), |c| format!("{c:.1}"))
    );
    if std::env::var_os("COOKD_BENCH_DIR").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
