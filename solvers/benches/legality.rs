//! Legality stage on every position of the legality corpus: time per
//! position (median and maximum over the corpus), and the verdict counts.
//!
//! `cargo bench -p solvers --bench legality`

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use solvers::legality::{self, Status};

/// Repeats per position, so sub-microsecond checks are measurable.
const REPEATS: u32 = 200;

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/legality.csv");
    let text = std::fs::read_to_string(path).expect("legality corpus");
    let mut times = Vec::new();
    let (mut legal, mut illegal, mut undecided) = (0, 0, 0);
    println!("{:<8} {:>10} {:>10}  status", "id", "µs/check", "reasons");
    for line in text.lines().skip(1) {
        let mut fields = line.splitn(3, ',');
        let (id, fen) = (fields.next().unwrap(), fields.next().unwrap());
        let setup = fen.parse::<Fen>().expect("corpus FEN").into_setup();
        let started = Instant::now();
        let mut report = legality::check(&setup);
        for _ in 1..REPEATS {
            report = legality::check(std::hint::black_box(&setup));
        }
        let per = started.elapsed() / REPEATS;
        match report.status {
            Status::Legal => legal += 1,
            Status::Illegal => illegal += 1,
            Status::Undecided => undecided += 1,
        }
        println!(
            "{id:<8} {:>10.1} {:>10}  {:?}",
            per.as_secs_f64() * 1e6,
            report.reasons.len(),
            report.status
        );
        times.push(per);
    }
    times.sort();
    let median = times[times.len() / 2];
    let max = times.last().copied().unwrap_or(Duration::ZERO);
    println!(
        "\n{} positions: {legal} legal, {illegal} illegal, {undecided} undecided; \
         median {:.1} µs, max {:.1} µs per position",
        times.len(),
        median.as_secs_f64() * 1e6,
        max.as_secs_f64() * 1e6
    );
}
