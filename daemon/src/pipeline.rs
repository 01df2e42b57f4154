//! The pipeline driver: a problem file in, one verdict per problem out.
//!
//! Stages are pure functions of the problem; this module only sequences them,
//! times them, turns a panic into an `error` verdict, and derives the final
//! verdict word.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, FromSetup, Position};

use solvers::legality::{self, Status};
use solvers::mate::tree::{self, Limits};
use solvers::mate::{Found, Solver};
use solvers::problem::{self, Problem};
use solvers::search::Table;
use solvers::verdict::{Kind, Verdict};
use solvers::Stipulation;

use crate::config::{CooksOptions, SolveOptions, Stage, TablebaseOptions};

/// The search table kept from one problem to the next (several problems,
/// mates and proof games alike, may use it at once: each keys its entries
/// apart): its memory is mapped once, where a fresh table pays a page
/// fault for each page it touches, and threads faulting pages in at once
/// slow each other down.
#[derive(Debug, Default)]
pub struct Tables {
    table: OnceLock<Arc<Table>>,
}

impl Tables {
    /// The table, of `hash_mb` megabytes when first asked for.
    fn get(&self, hash_mb: u64) -> &Arc<Table> {
        self.table
            .get_or_init(|| Arc::new(Table::sized(hash_mb, u32::MAX)))
    }
}

/// [`judge_file_with`] with fresh tables.
#[cfg(test)]
pub fn judge_file(name: &str, content: &[u8], stages: &[Stage]) -> Vec<Verdict> {
    judge_file_with(name, content, stages, &Tables::default())
}

/// Judges every problem of one file's content; `name` identifies the file.
/// Searches use `tables`, which may serve other problems too.
pub fn judge_file_with(
    name: &str,
    content: &[u8],
    stages: &[Stage],
    tables: &Tables,
) -> Vec<Verdict> {
    problem::parse(name, content)
        .into_iter()
        .map(|parsed| match parsed {
            Ok(problem) => judge(&problem, stages, tables),
            Err(error) => Verdict::for_error(&error),
        })
        .collect()
}

/// Runs the configured stages on one problem. A panic inside a stage becomes
/// an `error` verdict for this problem only.
fn judge(problem: &Problem, stages: &[Stage], tables: &Tables) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| run_stages(problem, stages, tables))) {
        Ok(verdict) => verdict,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let mut verdict = Verdict::for_problem(problem);
            verdict.verdict = Kind::Error;
            verdict.error = Some(format!("internal error while judging this problem: {what}"));
            verdict
        }
    }
}

fn run_stages(problem: &Problem, stages: &[Stage], tables: &Tables) -> Verdict {
    let mut verdict = Verdict::for_problem(problem);
    // A solver that ran out of budget explains itself; the note below is for
    // problems no solver looked at.
    let mut solver_ran = false;
    let cooks = stages.iter().find_map(|stage| match stage {
        Stage::Cooks(options) => Some(options),
        _ => None,
    });
    for stage in stages {
        let started = Instant::now();
        match stage {
            Stage::Legality(_) => {
                let mut report = legality::check(&problem.setup);
                crate::spg::prove_legal(&problem.setup, &mut report);
                if report.status == Status::Illegal {
                    verdict.verdict = Kind::Illegal;
                }
                verdict.legality = Some(report.into());
            }
            Stage::Solve(options) if is_mate(problem.stipulation) => {
                solve_mate(problem, (options, cooks), tables, &mut verdict);
                solver_ran = true;
            }
            Stage::Solve(options) => match problem.stipulation {
                Stipulation::ProofGame { plies } => {
                    let table = tables.get(options.hash_mb);
                    crate::spg::solve(problem, plies, options, table, &mut verdict);
                    solver_ran = true;
                }
                // Studies: the tablebase stage judges those it can.
                _ => continue,
            },
            Stage::Tablebase(options) => tablebase_stage(problem, options, &mut verdict),
            // The solve stage looks for tries and duals as it builds the
            // solution tree, as this stage's options say; the second keys,
            // short solutions and extra games are in its complete count.
            Stage::Cooks(_) => continue,
        }
        let ms = started.elapsed().as_secs_f64() * 1e3;
        verdict.timings_ms.insert(stage.name().to_owned(), ms);
        if verdict.verdict == Kind::Illegal {
            break;
        }
    }
    if verdict.verdict == Kind::Unsolved && !solver_ran {
        let note = if matches!(problem.stipulation, Stipulation::Win | Stipulation::Draw) {
            "studies are judged only by the tablebase stage, within its max_pieces; this one was not solved (engine findings are suspicions, never a verdict)"
        } else {
            "no solving stage is configured"
        };
        verdict.notes.push(note.to_owned());
    }
    verdict
}

fn is_mate(stipulation: Stipulation) -> bool {
    matches!(
        stipulation,
        Stipulation::Direct { .. } | Stipulation::SelfMate { .. } | Stipulation::Help { .. }
    )
}

/// The verdict word for a count of keys or solutions.
fn count_verdict(found: usize, intended: usize) -> Kind {
    match found {
        0 => Kind::NoSolution,
        n if n == intended => Kind::Sound,
        n if n > intended => Kind::Cooked,
        _ => Kind::Incomplete,
    }
}

/// The solve stage for #n, s#n and h#n: every key or solution within the
/// budget; `unsolved` with what was found when the budget runs out. The
/// cooks stage's options, when it is configured, decide whether a sound
/// problem's tree comes with tries and duals (neither without it).
fn solve_mate(
    problem: &Problem,
    (options, cooks): (&SolveOptions, Option<&CooksOptions>),
    tables: &Tables,
    verdict: &mut Verdict,
) {
    let pos = match Chess::from_setup(problem.setup.clone(), CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(e) => {
            verdict
                .notes
                .push(format!("not solved: the position is not playable ({e})"));
            return;
        }
    };
    if pos.legal_moves().is_empty() {
        let state = if pos.is_check() {
            "checkmated"
        } else {
            "stalemated"
        };
        verdict.notes.push(format!(
            "the side to move is already {state} in the diagram: nothing can be played"
        ));
    }
    let deadline = Instant::now() + Duration::from_secs_f64(options.budget_s.max(0.0));
    let mut solver = Solver::with_hash(Some(deadline), options.hash_mb)
        .with_table(Arc::clone(tables.get(options.hash_mb)))
        .with_parallelism(options.parallel.to_solver());
    let (found, unfinished) = match solver.solve(&pos, problem.stipulation) {
        Ok(Ok(found)) => (found, None),
        Ok(Err(partial)) => (partial.found.clone(), Some(partial)),
        Err(e) => {
            verdict.verdict = Kind::Error;
            verdict.error = Some(format!("{}: {e}", verdict.file));
            return;
        }
    };
    let count = match found {
        Found::Keys(keys) => {
            let n = keys.len();
            verdict.keys = Some(keys);
            n
        }
        Found::Lines(lines) => {
            let n = lines.len();
            verdict.solutions = Some(lines);
            verdict.n_solutions = Some(n);
            n
        }
    };
    let intended = match problem.stipulation {
        Stipulation::Help { .. } => problem.intended_solutions.unwrap_or(1) as usize,
        _ => 1,
    };
    verdict.verdict = match unfinished {
        None => count_verdict(count, intended),
        Some(partial) => {
            verdict.notes.push(format!(
                "budget of {} s ran out: {} of {} first moves examined, {count} found so far",
                options.budget_s, partial.examined, partial.total
            ));
            Kind::Unsolved
        }
    };
    if verdict.verdict == Kind::Sound && !matches!(problem.stipulation, Stipulation::Help { .. }) {
        add_tree(&mut solver, &pos, problem, cooks, verdict);
    }
}

/// The tablebase stage: the diagram's value when it has at most
/// `max_pieces` units; for studies the claimed result and main line, for
/// direct mates the length. It decides the verdict of studies, and of
/// direct mates no solve stage decided.
fn tablebase_stage(problem: &Problem, options: &TablebaseOptions, verdict: &mut Verdict) {
    use solvers::tablebase::judge::{self, Outcome, Sources};
    use solvers::tablebase::{syzygy::SyzygyTables, DtmTables};
    let Ok(pos) = Chess::from_setup(problem.setup.clone(), CastlingMode::Standard) else {
        return;
    };
    let syzygy = match &options.syzygy {
        Some(dir) => match SyzygyTables::open(dir) {
            Ok((tables, _)) => Some(tables),
            Err(e) => {
                verdict.notes.push(format!("tablebase: {e}"));
                None
            }
        },
        None => None,
    };
    let Some(dir) = options.dir.clone().or_else(|| {
        let env = |name| std::env::var_os(name).map(std::path::PathBuf::from);
        solvers::tablebase::tables::user_cache_dir(
            env("XDG_CACHE_HOME").as_deref(),
            env("HOME").as_deref(),
        )
    }) else {
        verdict
            .notes
            .push("tablebase: no table folder (set dir, or HOME)".into());
        return;
    };
    let dtm = DtmTables::new(&dir);
    let sources = Sources {
        dtm: &dtm,
        syzygy: syzygy.as_ref(),
        generate_up_to: options.generate_up_to,
    };
    let judgement = judge::judge(
        &pos,
        problem.stipulation,
        problem.solution.as_deref(),
        options.max_pieces,
        &sources,
    );
    verdict.notes.extend(judgement.notes);
    verdict.tablebase = judgement.report;
    let study = matches!(problem.stipulation, Stipulation::Win | Stipulation::Draw);
    if study {
        engine_check(&pos, problem, options, &sources, verdict);
    }
    if let Some(outcome) = judgement.outcome {
        if study || verdict.verdict == Kind::Unsolved {
            verdict.verdict = match outcome {
                Outcome::Sound => Kind::Sound,
                Outcome::Cooked => Kind::Cooked,
                Outcome::Unsound => Kind::NoSolution,
            };
        }
    }
}

/// Studies: the engine's suspected findings at the main-line positions
/// the tables do not hold (beyond `max_pieces`, or with no table at hand
/// or made on demand). They go in the verdict's `engine` section and
/// notes, and never change the verdict.
fn engine_check(
    pos: &Chess,
    problem: &Problem,
    options: &TablebaseOptions,
    sources: &solvers::tablebase::judge::Sources<'_>,
    verdict: &mut Verdict,
) {
    use solvers::engine::{self, Limit};
    use solvers::tablebase::judge::{beyond_tables, claimed_result, san_tokens};
    use solvers::tablebase::study::MainLine;
    let Some(solution) = problem.solution.as_deref() else {
        return;
    };
    let (line, _) = MainLine::play(pos, &san_tokens(solution));
    let plies = beyond_tables(&line, sources, options.max_pieces);
    if plies.is_empty() {
        return;
    }
    let Some(opts) = &options.engine else {
        verdict.notes.push(format!(
            "engine: {} main-line position(s) beyond the tables and no engine configured",
            plies.len()
        ));
        return;
    };
    let threads = rayon::current_num_threads() as f64;
    let share_ms = opts.budget_s * 1e3 * threads / plies.len() as f64;
    let limit = Limit {
        depth: opts.depth,
        movetime_ms: opts.movetime_ms.min(share_ms as u64).max(1),
    };
    match engine::check_line(
        &opts.path,
        &line,
        &plies,
        claimed_result(problem.stipulation),
        limit,
    ) {
        Ok(report) => {
            // A study with many alternatives would bury the other notes:
            // the first few here, all of them in `engine`.
            const SHOWN: usize = 10;
            let findings = &report.findings;
            verdict
                .notes
                .extend(findings.iter().take(SHOWN).map(ToString::to_string));
            if findings.len() > SHOWN {
                verdict.notes.push(format!(
                    "engine: {} more suspected finding(s) in the verdict's engine section",
                    findings.len() - SHOWN
                ));
            }
            verdict.engine = Some(report);
        }
        Err(e) => verdict.notes.push(format!(
            "engine: not run ({e}); install Debian's stockfish or set engine.path"
        )),
    }
}

/// The solution tree of a sound direct or self mate, from the solver that
/// just solved it (its table is full and its deadline still holds).
fn add_tree(
    solver: &mut Solver,
    pos: &Chess,
    problem: &Problem,
    cooks: Option<&CooksOptions>,
    verdict: &mut Verdict,
) {
    let Some(key) = verdict.keys.as_ref().and_then(|k| k.first()).cloned() else {
        return;
    };
    match tree::build(
        solver,
        pos,
        problem.stipulation,
        &key.uci,
        Limits {
            tries: cooks.is_some_and(|c| c.tries),
            ..Limits::default()
        },
    ) {
        Ok(mut tree) => {
            if cooks.is_some_and(|c| c.duals) {
                verdict.duals = Some(tree.duals.clone());
            } else {
                tree.duals.clear();
                tree.black_duals.clear();
            }
            if cooks.is_some_and(|c| c.tries) {
                verdict.tries = Some(tree.tries.clone());
            }
            verdict.tree = Some(tree);
        }
        Err(e) => verdict.notes.push(format!("no solution tree: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LegalityOptions;

    fn legality_only() -> Vec<Stage> {
        vec![Stage::Legality(LegalityOptions::default())]
    }

    fn tablebase_only(dir: &std::path::Path) -> Vec<Stage> {
        vec![Stage::Tablebase(TablebaseOptions {
            max_pieces: 5,
            dir: Some(dir.to_owned()),
            syzygy: None,
            generate_up_to: 4,
            engine: None,
        })]
    }

    fn judge_tb(dir: &std::path::Path, text: &str) -> Verdict {
        judge_file("t.fen", text.as_bytes(), &tablebase_only(dir)).remove(0)
    }

    #[test]
    fn tablebase_stage_checks_direct_mate_length_and_study_claims() {
        let dir = tempfile::tempdir().unwrap();
        // Gaviota test position: KRRK, mate in 7 (tests/data/endgame-dm-4.epd).
        let fen = "8/8/8/8/8/3k4/2R5/KR6 w - - 0 1";
        let v = judge_tb(dir.path(), &format!("{fen} ; #7\n"));
        assert_eq!(v.verdict, Kind::Sound, "{v:?}");
        let tb = v.tablebase.as_ref().unwrap();
        assert_eq!((tb.material.as_str(), tb.dtm), ("KRRvK", Some(13)));
        assert!(v.notes.iter().any(|n| n.contains("generated")), "{v:?}");
        assert_eq!(
            judge_tb(dir.path(), &format!("{fen} ; #8\n")).verdict,
            Kind::Cooked
        );
        assert_eq!(
            judge_tb(dir.path(), &format!("{fen} ; #6\n")).verdict,
            Kind::NoSolution
        );
        // A win claimed as a draw is unsound; as a win it holds.
        assert_eq!(
            judge_tb(dir.path(), &format!("{fen} ; =\n")).verdict,
            Kind::NoSolution
        );
        assert_eq!(
            judge_tb(dir.path(), &format!("{fen} ; +\n")).verdict,
            Kind::Sound
        );
        // KNvK is a draw whatever the claim says.
        let v = judge_tb(dir.path(), "8/8/8/8/8/3k4/2N5/K7 w - - 0 1 ; +\n");
        assert_eq!(v.verdict, Kind::NoSolution);
        assert_eq!(v.tablebase.unwrap().wdl, solvers::tablebase::Wdl::Draw);
    }

    #[test]
    fn tablebase_stage_finds_cooks_in_a_main_line() {
        let dir = tempfile::tempdir().unwrap();
        // KQK, mate in 10: the queen has several ways to start, so a main
        // line naming one of them is cooked at move 1.
        let yaml =
            "stipulation: \"+\"\nfen: 8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\nsolution: \"1.Qb5+ Ke4\"\n";
        let v = judge_file("s.yaml", yaml.as_bytes(), &tablebase_only(dir.path())).remove(0);
        let tb = v.tablebase.as_ref().expect("a value");
        assert_eq!(tb.dtm, Some(19));
        assert!(!tb.findings.is_empty(), "{v:?}");
        // A move that gives the win away: 1.Qb1+?? is fine, 1.Qf2+?? loses the queen? No:
        // instead a plain blunder, the queen en prise to the king.
        let yaml =
            "stipulation: \"+\"\nfen: 8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\nsolution: \"1.Qf6+ Kxf6\"\n";
        let v = judge_file("s.yaml", yaml.as_bytes(), &tablebase_only(dir.path())).remove(0);
        assert_eq!(v.verdict, Kind::NoSolution, "{v:?}");
    }

    #[test]
    fn where_the_main_line_enters_the_tables_they_decide() {
        let dir = tempfile::tempdir().unwrap();
        let mut stages = tablebase_only(dir.path());
        if let Stage::Tablebase(options) = &mut stages[0] {
            options.max_pieces = 3;
        }
        let study = |solution: &str| {
            let yaml = format!(
                "stipulation: \"+\"\nfen: 4k3/6p1/8/8/8/8/1Q6/4K3 w - - 0 1\nsolution: \"{solution}\"\n"
            );
            judge_file("s.yaml", yaml.as_bytes(), &stages).remove(0)
        };
        // Four units, then KQvK after the capture: the tables check the
        // rest but cannot call the study sound (move 1 is theirs only from
        // the position after it).
        let v = study("1.Qxg7 Kd8 2.Kd2");
        assert_eq!(v.verdict, Kind::Unsolved, "{v:?}");
        let tb = v.tablebase.as_ref().expect("the tables judged the tail");
        assert_eq!(tb.material, "KQvK");
        assert!(tb.findings.iter().all(|f| f.move_number == 2), "{tb:?}");
        assert!(v.notes.iter().any(|n| n.contains("enters the tables")));
        // A main line that gives the queen away fails in the tables.
        let v = study("1.Qxg7 Kd8 2.Qe7+ Kxe7");
        assert_eq!(v.verdict, Kind::NoSolution, "{v:?}");
        assert!(v
            .notes
            .iter()
            .any(|n| n.contains("2.Qe7 does not keep the win")));
    }

    #[test]
    fn a_study_beyond_the_tables_without_its_engine_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let mut stages = tablebase_only(dir.path());
        if let Stage::Tablebase(options) = &mut stages[0] {
            options.max_pieces = 3;
            options.engine = Some(crate::config::EngineOptions {
                path: dir.path().join("no-such-engine"),
                depth: 5,
                movetime_ms: 100,
                budget_s: 1.0,
            });
        }
        let yaml =
            "stipulation: \"+\"\nfen: 8/8/1KP5/3r4/8/8/8/k7 w - - 0 1\nsolution: \"1.c7 Rd6+\"\n";
        let v = judge_file("s.yaml", yaml.as_bytes(), &stages).remove(0);
        assert_eq!(v.verdict, Kind::Unsolved, "{v:?}");
        assert!(v.engine.is_none());
        assert!(
            v.notes
                .iter()
                .any(|n| n.starts_with("engine: not run") && n.contains("no-such-engine")),
            "{v:?}"
        );
    }

    #[test]
    fn tablebase_stage_says_how_to_get_a_missing_table() {
        // Generation on demand switched off: the judge is told how.
        let dir = tempfile::tempdir().unwrap();
        let mut stages = tablebase_only(dir.path());
        if let Stage::Tablebase(options) = &mut stages[0] {
            options.generate_up_to = 0;
        }
        let text = "8/8/8/8/8/3k4/2R5/KR6 w - - 0 1 ; #7\n";
        let v = judge_file("t.fen", text.as_bytes(), &stages).remove(0);
        assert!(v.tablebase.is_none());
        assert_eq!(dir.path().read_dir().unwrap().count(), 0);
        assert!(
            v.notes
                .iter()
                .any(|n| n.contains("cookd tb generate") && n.contains("KRRvK")),
            "{v:?}"
        );
    }

    #[test]
    fn illegal_problem_gets_illegal_verdict() {
        let verdicts = judge_file(
            "x.fen",
            b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w KQkq - 0 1 ; #2\n",
            &legality_only(),
        );
        assert_eq!(verdicts.len(), 1);
        assert_eq!(verdicts[0].verdict, Kind::Illegal);
        assert!(verdicts[0].timings_ms.contains_key("legality"));
    }

    fn default_stages() -> Vec<Stage> {
        crate::config::Config::builtin().stages
    }

    /// dm001 (Schöpfer, #2, key 1.Qf2) has the try 1.Qh7? but 1...Kb2!
    /// (solvers/tests/tree.rs checks it by hand): the cooks stage's options
    /// decide whether it is looked for, and the solution tree is there
    /// either way.
    #[test]
    fn cooks_stage_options_decide_tries_and_duals() {
        let text = b"8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n";
        let judged = |cooks: Option<CooksOptions>| {
            let mut stages = default_stages();
            stages.retain(|s| !matches!(s, Stage::Cooks(_)));
            stages.extend(cooks.map(Stage::Cooks));
            let verdict = judge_file("s.fen", text, &stages).remove(0);
            assert_eq!(verdict.verdict, Kind::Sound, "{verdict:?}");
            assert!(verdict.tree.is_some(), "{verdict:?}");
            verdict
        };
        let all = judged(Some(CooksOptions {
            tries: true,
            duals: true,
        }));
        let tries = all.tries.expect("tries looked for");
        assert!(tries
            .iter()
            .any(|t| t.san == "Qh7" && t.refutation_san == "Kb2"));
        assert!(all.duals.is_some());
        let no_tries = judged(Some(CooksOptions {
            tries: false,
            duals: true,
        }));
        assert!(no_tries.tries.is_none() && no_tries.tree.unwrap().tries.is_empty());
        assert!(no_tries.duals.is_some());
        let none = judged(None);
        assert!(none.tries.is_none() && none.duals.is_none());
    }

    #[test]
    fn mated_side_to_move_is_no_solution_with_a_note() {
        // Fool's mate: White to move is checkmated.
        let fen = b"rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3 ; #2\n";
        let verdict = &judge_file("m.fen", fen, &default_stages())[0];
        assert_eq!(verdict.verdict, Kind::NoSolution);
        assert!(
            verdict.notes.iter().any(|n| n.contains("checkmated")),
            "{verdict:?}"
        );
    }

    #[test]
    fn exhausted_budget_is_unsolved_with_progress() {
        let mut stages = default_stages();
        for stage in &mut stages {
            if let Stage::Solve(options) = stage {
                options.budget_s = 0.0;
            }
        }
        // Wenda #6 (corpus dm009): far more than zero seconds of work.
        let fen = b"4k3/1pp2pp1/8/b1B1pB2/rp6/p5N1/3R4/R2bK3 w Q - 0 1 ; #6\n";
        let verdict = &judge_file("w.fen", fen, &stages)[0];
        assert_eq!(verdict.verdict, Kind::Unsolved);
        assert!(
            verdict
                .notes
                .iter()
                .any(|n| n.contains("first moves examined")),
            "{verdict:?}"
        );
    }

    #[test]
    fn unreadable_file_gets_error_verdict() {
        let verdicts = judge_file("x.bin", b"\x00\x01garbage", &legality_only());
        assert_eq!(verdicts[0].verdict, Kind::Error);
        assert!(verdicts[0]
            .error
            .as_deref()
            .unwrap()
            .starts_with("x.bin:1:1"));
    }
}
