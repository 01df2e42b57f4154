//! The solve stage for proof games (`SPG n`): runs the proof-game search and
//! turns its outcome into the verdict's `solutions`, `n_solutions` and verdict
//! word. Progress of long searches goes to stderr.

use std::time::{Duration, Instant};

use shakmaty::Setup;
use solvers::legality::{Report, Status};
use solvers::problem::Problem;
use solvers::proofgame::{self, Judgement, Options, Progress, Rights};
use solvers::search::Table;
use solvers::verdict::{Kind, Verdict};

use crate::config::SolveOptions;

/// Fills `verdict` for the proof game `problem` of `plies` half-moves,
/// searching with `table` (which may hold earlier problems' entries).
pub fn solve(
    problem: &Problem,
    plies: u32,
    options: &SolveOptions,
    table: &Table,
    verdict: &mut Verdict,
) {
    let id = verdict.id.clone();
    let report = move |p: &Progress| {
        eprintln!(
            "cookd: {id}: proof games of {} plies: {} nodes, {} solution(s) so far, {:.1} s",
            p.plies,
            p.nodes,
            p.solutions,
            p.elapsed.as_secs_f64()
        );
    };
    let search = Options {
        deadline: Some(Instant::now() + Duration::from_secs_f64(options.budget_s.max(0.0))),
        hash_mb: options.hash_mb,
        table: Some(table),
        sync_depth: options.spg_sync_depth,
        progress: Some(&report),
        rights: stated_rights(problem),
        ..Options::default()
    };
    let outcome = match proofgame::solve(&problem.setup.board, plies, &search) {
        Ok(outcome) => outcome,
        Err(e) => {
            verdict.notes.push(format!("proof game not searched: {e}"));
            return;
        }
    };
    let mut lines = outcome.exact.lines.clone();
    let mut count = outcome.exact.count;
    for short in &outcome.short {
        lines.extend(short.lines.iter().cloned());
        count += short.count;
    }
    verdict.verdict = match outcome.judgement {
        Judgement::Sound => Kind::Sound,
        Judgement::Cooked => Kind::Cooked,
        Judgement::NoSolution => Kind::NoSolution,
        Judgement::Illegal => Kind::Illegal,
        Judgement::Unsolved => Kind::Unsolved,
    };
    if outcome.judgement != Judgement::Illegal {
        verdict.n_solutions = Some(count as usize);
        verdict.solutions = Some(lines);
    }
    let listed = verdict.solutions.as_ref().map_or(0, Vec::len);
    let complete = outcome.exact.complete && outcome.short.iter().all(|g| g.complete);
    if !complete && count > 0 {
        verdict.notes.push(format!(
            "at least {count} proof games (not all were counted); \
             the first {listed} found are listed"
        ));
    } else if count as usize > listed {
        verdict.notes.push(format!(
            "{count} proof games in all; the first {listed} are listed"
        ));
    }
    verdict.notes.extend(outcome.notes);
    settle_legality(verdict);
}

/// The final rights `problem` states (see [`solvers::problem::Stated`]).
fn stated_rights(problem: &Problem) -> Rights {
    let (setup, stated) = (&problem.setup, problem.stated);
    Rights {
        castling: stated.castling.then_some(setup.castling_rights),
        en_passant: stated.en_passant.then_some(setup.ep_square),
    }
}

/// A game the search found proves the diagram legal when the legality stage
/// left it undecided. A proof-game diagram is a board and, by the length's
/// parity, the side to move, which every game found reaches; castling
/// rights and en passant are not part of it (the search's goal leaves them
/// open too).
fn settle_legality(verdict: &mut Verdict) {
    let game = verdict.solutions.iter().flatten().next();
    if let (Some(legality), Some(game)) = (verdict.legality.as_mut(), game) {
        if legality.status == Status::Undecided {
            legality.status = Status::Legal;
            legality.legal = Some(true);
            legality.evidence = vec![format!(
                "proof game of {} half-moves (found by the solve stage): {}",
                game.uci.len(),
                game.san
            )];
        }
    }
}

/// Longest proof game the legality stage looks for.
const PROOF_PLIES: u32 = 12;
/// Time the legality stage spends looking for one: a diagram the static
/// layers leave undecided costs at most this much latency.
const PROOF_TIME: Duration = Duration::from_millis(300);

/// Settles an `undecided` legality report with a proof game when a short one
/// exists (the game is the evidence); leaves it undecided otherwise.
pub fn prove_legal(setup: &Setup, report: &mut Report) {
    if report.status != Status::Undecided {
        return;
    }
    if let Some(game) = proofgame::prove(setup, PROOF_PLIES, Instant::now() + PROOF_TIME) {
        report.status = Status::Legal;
        report.evidence = vec![format!(
            "proof game of {} half-moves: {}",
            game.uci.len(),
            game.san
        )];
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, Stage};
    use crate::pipeline::judge_file;
    use solvers::verdict::Kind;

    fn stages(budget_s: f64) -> Vec<Stage> {
        let mut stages = Config::builtin().stages;
        for stage in &mut stages {
            if let Stage::Solve(options) = stage {
                options.budget_s = budget_s;
            }
        }
        stages
    }

    #[test]
    fn proof_game_verdict_lists_the_game() {
        // ../shared/corpus/spg.csv spg019: unique in 6 plies.
        let file = b"rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR\n6\n";
        let verdict = &judge_file("p.txt", file, &stages(60.0))[0];
        assert_eq!(verdict.verdict, Kind::Sound, "{verdict:?}");
        assert_eq!(verdict.n_solutions, Some(1));
        let games = verdict.solutions.as_ref().unwrap();
        assert_eq!(games[0].san, "1.f3 e5 2.Kf2 Qh4+ 3.Ke3 Qd4#");
        assert_eq!(games[0].uci[0], "f2f3");
    }

    #[test]
    fn a_game_found_settles_an_undecided_legality() {
        // spg200 (Heinonen, unique in 24 plies): too long for the legality
        // stage's own proof search, which leaves it undecided.
        let file = b"rnbqkbnr/pppppppp/2Q2R1B/8/2P1PP2/5N2/PP1N2PP/4KB1R\n24\n";
        let verdict = &judge_file("p.txt", file, &stages(60.0))[0];
        assert_eq!(verdict.verdict, Kind::Sound, "{verdict:?}");
        let legality = verdict.legality.as_ref().unwrap();
        assert_eq!(legality.legal, Some(true), "{legality:?}");
        let game = "1.c4 Nf6 2.Qa4 Ne4 3.Qc6 Nxd2 4.e4 Nb3 5.Bh6 Na6 6.Nd2 Nb4 \
                    7.Rc1 Nd5 8.Rc3 Nf6 9.Rf3 Ng8 10.Rf6 Nc5 11.f4 Na6 12.Ngf3 Nb8";
        assert!(legality.evidence[0].ends_with(game), "{legality:?}");
        // Without the solve stage it stays undecided.
        let legality_only: Vec<_> = stages(60.0)
            .into_iter()
            .filter(|s| s.name() == "legality")
            .collect();
        let verdict = &judge_file("p.txt", file, &legality_only)[0];
        assert_eq!(verdict.legality.as_ref().unwrap().legal, None);
    }

    /// Caillaud (Problemist 1995, SPG 7.5), whose point is White's lost
    /// castling rights: a FEN line's castling field states them, and only
    /// the games that lose them count; a Stelvio file cannot, and the
    /// verdict says which rights would make it sound.
    #[test]
    fn stated_castling_rights_decide_a_proof_game() {
        let board = "r1b1kbnr/ppp1pppp/8/3p4/7n/5P2/PPPPP1PP/RNBQKBNR";
        let fen = format!("{board} w kq - 0 1 ; SPG 7.5\n");
        let verdict = &judge_file("p.fen", fen.as_bytes(), &stages(60.0))[0];
        assert_eq!(verdict.verdict, Kind::Sound, "{verdict:?}");
        assert_eq!(verdict.n_solutions, Some(1));
        let stelvio = format!("{board}\n15\n");
        let verdict = &judge_file("p.txt", stelvio.as_bytes(), &stages(60.0))[0];
        assert_eq!(verdict.verdict, Kind::Cooked, "{verdict:?}");
        assert!(
            verdict
                .notes
                .iter()
                .any(|n| n.starts_with("unique if the diagram states castling kq, no en passant")),
            "{verdict:?}"
        );
    }

    #[test]
    fn exhausted_budget_is_unsolved_with_a_note() {
        // spg200, 24 plies: far more than zero seconds of work.
        let file = b"rnbqkbnr/pppppppp/2Q2R1B/8/2P1PP2/5N2/PP1N2PP/4KB1R\n24\n";
        let verdict = &judge_file("p.txt", file, &stages(0.0))[0];
        assert_eq!(verdict.verdict, Kind::Unsolved, "{verdict:?}");
        assert!(
            verdict.notes.iter().any(|n| n.contains("budget ran out")),
            "{verdict:?}"
        );
        assert!(
            !verdict.notes.iter().any(|n| n.contains("not available")),
            "{verdict:?}"
        );
    }
}
