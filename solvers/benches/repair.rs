//! Cook repair against a known answer: the corpus' `-minus-` rows of `#2`
//! and `#3` are sound problems with one unit removed (the `origin` names
//! the parent), so the parent itself is a repair of one change.
//!
//! `cargo bench -p solvers --bench repair [-- --budget SECONDS] [--threads N] [--only ID,ID..] [--max-changes N]`
//!
//! For each row: whether a sound, legal repair was found (each one checked
//! again by the plain solver: exactly one key, of the stipulated length,
//! the parent's), with how many changes, whether the parent is among the
//! top 3, the wall time and the candidates checked; then the rates. The
//! intended key is the parent's (the derived problem's `solution`). One
//! thread and 10 s per row by default (issue 27's targets).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, Color, FromSetup, Role, Setup, Square};
use solvers::mate::repair::{repair, Aim, Request};
use solvers::mate::tree::{self, Limits};
use solvers::mate::{quality, Found, Solver};
use solvers::testing::{data, keys_uci, read_csv};
use solvers::{legality, Stipulation};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let budget: f64 = arg("--budget").map_or(10.0, |b| b.parse().expect("--budget SECONDS"));
    let threads: usize = arg("--threads").map_or(1, |t| t.parse().expect("--threads N"));
    let max_changes: u32 = arg("--max-changes").map_or(2, |t| t.parse().expect("--max-changes N"));
    let only: Option<Vec<String>> =
        arg("--only").map(|o| o.split(',').map(str::to_owned).collect());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");

    let rows = read_csv(&data("mate.csv"));
    let by_id: HashMap<&str, &HashMap<String, String>> =
        rows.iter().map(|r| (r["id"].as_str(), r)).collect();
    println!(
        "{:<20} {:>3} {:<12} {:>6} {:>7} {:>6} {:>9} {:>8} {:>8}  best",
        "id", "n", "verdict", "sound", "changes", "parent", "parent_ok", "secs", "checked"
    );
    let (mut total, mut sound, mut parent_top3, mut within) = (0, 0, 0, 0);
    let mut parents_ok = 0;
    let mut times = Vec::new();
    for row in &rows {
        let id = row["id"].as_str();
        let Some((parent_id, _)) = id.split_once("-minus-") else {
            continue;
        };
        let stipulation = row["stipulation"].as_str();
        let n: u32 = match stipulation {
            "#2" => 2,
            "#3" => 3,
            _ => continue,
        };
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == id)) {
            continue;
        }
        let setup = row["fen"].parse::<Fen>().expect("fen").into_setup();
        let (parent_fen, key) = parent_of(row, &setup);
        let parent_board = board(&parent_fen);
        if let Some(listed) = by_id.get(parent_id) {
            // The corpus holds some parents: the reconstruction must agree.
            assert_eq!(board(&listed["fen"]), parent_board, "{id}");
            assert!(keys_uci(listed).contains(&key), "{id}");
        }
        let started = Instant::now();
        let outcome = pool.install(|| {
            repair(&Request {
                setup: &setup,
                moves: n,
                key: Some(&key),
                deadline: started + Duration::from_secs_f64(budget),
                max_changes,
                limit: 3,
                aim: Aim::Repair,
            })
        });
        let secs = started.elapsed().as_secs_f64();
        // Every repair re-checked by the plain solver.
        let all_sound = !outcome.repairs.is_empty()
            && outcome
                .repairs
                .iter()
                .all(|r| plainly_sound(&r.fen, n, &key));
        let has_parent = outcome
            .repairs
            .iter()
            .any(|r| board(&r.fen) == parent_board);
        // Whether the parent itself passes: sound by the plain solver and
        // no flaw found by the legality check (some parents are not).
        let parent_ok = plainly_sound(&parent_fen, n, &key)
            && legality::check(&parent_fen.parse::<Fen>().expect("fen").into_setup()).status
                != legality::Status::Illegal;
        parents_ok += usize::from(parent_ok);
        total += 1;
        sound += usize::from(all_sound);
        parent_top3 += usize::from(has_parent);
        within += usize::from(all_sound && secs <= budget + 0.5);
        times.push(secs);
        let best = outcome.repairs.first();
        println!(
            "{id:<20} {n:>3} {:<12} {:>6} {:>7} {:>6} {:>9} {secs:>8.2} {:>8}  {}",
            row["verdict"],
            if all_sound { "yes" } else { "no" },
            best.map_or("-".to_owned(), |r| r.changes.len().to_string()),
            if has_parent { "yes" } else { "no" },
            if parent_ok { "yes" } else { "no" },
            outcome.examined,
            best.map_or(String::new(), |r| format!(
                "{} (1.{}, score {:.1})",
                r.changes.join(" "),
                r.key,
                r.score
            )),
        );
        if !has_parent && parent_ok {
            let scores: Vec<String> = outcome
                .repairs
                .iter()
                .map(|r| format!("{} {:.1}", r.changes.join(" "), r.score))
                .collect();
            println!(
                "{:>24} parent's score {:.1}; top 3: {}",
                "",
                parent_score(&parent_fen, &setup, n, &key),
                scores.join(", ")
            );
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |k: usize| 100.0 * k as f64 / total.max(1) as f64;
    println!(
        "\n{total} derived #2/#3 rows, {threads} thread(s), {budget} s budget, up to {max_changes} change(s)"
    );
    println!(
        "sound legal repair: {sound}/{total} ({:.0} %); within the budget: {within}/{total} ({:.0} %)",
        pct(sound),
        pct(within)
    );
    println!(
        "parent among the top 3: {parent_top3}/{total} ({:.0} %)",
        pct(parent_top3)
    );
    println!(
        "parents sound and legal by cookd's own checks: {parents_ok}/{total}; parent among the top 3 of those: {:.0} %",
        100.0 * parent_top3 as f64 / parents_ok.max(1) as f64
    );
    if let (Some(median), Some(max)) = (times.get(times.len() / 2), times.last()) {
        println!("time per row: median {median:.2} s, max {max:.2} s");
    }
}

/// The parent's quality as a repair of the derived diagram would score it.
fn parent_score(parent: &str, derived: &Setup, n: u32, key: &str) -> f64 {
    let setup = parent.parse::<Fen>().expect("fen").into_setup();
    let pos = Chess::from_setup(setup, CastlingMode::Standard).expect("parent playable");
    let stipulation: Stipulation = format!("#{n}").parse().expect("stipulation");
    let limits = Limits {
        tries: false,
        ..Limits::default()
    };
    let tree = tree::build(&mut Solver::new(None), &pos, stipulation, key, limits).expect("tree");
    quality::score(&pos, &tree, Some(&derived.board)).score
}

/// A FEN's board field.
fn board(fen: &str) -> String {
    fen.split(' ').next().unwrap_or("").to_owned()
}

/// The parent of a derived row, which the corpus does not always hold:
/// the row's diagram with the removed unit put back (`minus wPc6` in the
/// id), and the parent's first key (named in the notes, in SAN) in UCI.
fn parent_of(row: &HashMap<String, String>, setup: &Setup) -> (String, String) {
    let id = &row["id"];
    let unit = id.split_once("-minus-").expect("derived").1;
    let mut chars = unit.chars();
    let color = match chars.next() {
        Some('w') => Color::White,
        _ => Color::Black,
    };
    // Popeye's S (Springer) for the knight.
    let role = match chars.next() {
        Some('S') => Role::Knight,
        c => c.and_then(Role::from_char).expect("unit"),
    };
    let square: Square = unit[2..].parse().expect("square");
    let mut parent = setup.clone();
    parent.board.set_piece_at(square, role.of(color));
    let san = row["notes"]
        .split("has key(s) ")
        .nth(1)
        .and_then(|rest| rest.split([';', ' ']).next())
        .expect("parent key in the notes")
        .parse::<SanPlus>()
        .expect("key SAN")
        .san;
    let played = |parent: &Setup| {
        let pos = Chess::from_setup(parent.clone(), CastlingMode::Standard).ok()?;
        san.to_move(&pos).ok()
    };
    let m = played(&parent).unwrap_or_else(|| {
        // An en-passant key whose double step the removed pawn made: the
        // parent had the en-passant square.
        if let San::Normal { to, .. } = san {
            parent.ep_square = Some(to);
        }
        played(&parent).expect("parent key legal")
    });
    let fen = Fen::try_from_setup(parent).unwrap_or_else(|e| e.ignore());
    (
        fen.to_string(),
        m.to_uci(CastlingMode::Standard).to_string(),
    )
}

/// The plain solver's word on a repaired diagram: one key, `key`, of
/// exactly `n` moves.
fn plainly_sound(fen: &str, n: u32, key: &str) -> bool {
    let setup = fen.parse::<Fen>().expect("repair fen").into_setup();
    let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard) else {
        return false;
    };
    let stipulation: Stipulation = format!("#{n}").parse().expect("stipulation");
    match Solver::new(None).solve(&pos, stipulation) {
        Ok(Ok(Found::Keys(keys))) => {
            matches!(keys.as_slice(), [only] if only.uci == key && only.length == n)
        }
        _ => false,
    }
}
