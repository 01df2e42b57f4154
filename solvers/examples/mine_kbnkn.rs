//! Mines the KBNKN draw buckets (`solvers::recognizer::kbnkn_buckets`)
//! from cookd's KBNvKN table: every position's bucket with its draws and
//! non-draws, then the buckets with no non-draw at all, largest first,
//! until they hold `FRACTION` of the table's draws; writes their keys.
//!
//! `cargo run --release -p solvers --example mine_kbnkn -- TABLES_DIR
//! [FRACTION (0.4)] [OUT (solvers/src/recognizer/kbnkn_draws.bin)]`
//!
//! The table comes from `cookd tb generate --dir TABLES_DIR KBNvKN`. About
//! four minutes on two cores (670 MB); the result is then checked over every
//! position in both orientations by `cookd tb verify kbnkn`.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;
use shakmaty::Color;
use solvers::recognizer::kbnkn_buckets::{encode, key};
use solvers::recognizer::verify::{enumerate_chunk, CHUNKS};
use solvers::tablebase::{DtmTables, Material, Wdl, WdlOracle};

/// Per bucket key: (draws, non-draws).
type Histogram = HashMap<u32, (u64, u64)>;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: mine_kbnkn TABLES_DIR [FRACTION] [OUT]");
        std::process::exit(2);
    };
    let fraction: f64 = args.get(2).map_or(0.4, |s| s.parse().expect("FRACTION"));
    let out = args
        .get(3)
        .map_or("solvers/src/recognizer/kbnkn_draws.bin", String::as_str);
    let material: Material = "KBNvKN".parse().expect("a material");
    let table = DtmTables::new(Path::new(dir))
        .load(&material)
        .unwrap_or_else(|e| panic!("the KBNvKN table in {dir}: {e}"));
    let histogram = (0..CHUNKS)
        .into_par_iter()
        .map(|chunk| {
            let mut h = Histogram::new();
            enumerate_chunk(&material, chunk, &mut |pos| {
                let k = key(pos, Color::White).expect("KBNvKN has a bucket");
                let wdl = table.wdl(pos).expect("the table answers");
                let entry = h.entry(k).or_default();
                match wdl {
                    Wdl::Draw => entry.0 += 1,
                    _ => entry.1 += 1,
                }
            });
            h
        })
        .reduce(Histogram::new, |mut a, b| {
            for (k, (d, n)) in b {
                let e = a.entry(k).or_default();
                e.0 += d;
                e.1 += n;
            }
            a
        });
    let draws: u64 = histogram.values().map(|v| v.0).sum();
    // Pure buckets, most draws first (the larger key first on a tie).
    let mut pure: Vec<(u64, u32)> = histogram
        .iter()
        .filter(|(_, &(d, n))| n == 0 && d > 0)
        .map(|(&k, &(d, _))| (d, k))
        .collect();
    pure.sort_unstable_by(|a, b| b.cmp(a));
    let mut covered = 0u64;
    let mut keys = Vec::new();
    for (d, k) in &pure {
        if covered as f64 >= fraction * draws as f64 {
            break;
        }
        covered += d;
        keys.push(*k);
    }
    keys.sort_unstable();
    std::fs::write(out, encode(&keys)).unwrap_or_else(|e| panic!("writing {out}: {e}"));
    println!(
        "{} buckets, {} without a non-draw; kept {} holding {covered} of {draws} draws ({:.2} %) in {out}",
        histogram.len(),
        pure.len(),
        keys.len(),
        100.0 * covered as f64 / draws as f64
    );
}
