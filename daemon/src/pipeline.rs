//! The pipeline driver: a problem file in, one verdict per problem out.
//!
//! The stages ([`solvers::stage`]) are functions of the problem and the
//! long-lived resources; this module only sequences them as the
//! configuration lists them, times them, turns a panic into an `error`
//! verdict, and adds the note for a problem no solver looked at.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use anyhow::{Context, Result};

use solvers::problem::{self, Problem};
use solvers::proofgame::{Ledger, Progress};
use solvers::stage::{self, Resources, Stage};
use solvers::verdict::{Kind, Verdict};
use solvers::Stipulation;

use crate::config::{Config, SolveOptions};
use crate::estimate;
use crate::executor::{ShareResult, Slurm, Spooled};
use crate::ledger::Checkpoints;

/// The solver pool: `threads:` threads (default: one per core), which each
/// problem's search is split over.
pub fn solver_pool(config: &Config) -> Result<rayon::ThreadPool> {
    pool_builder(config)
        .build()
        .context("cannot start the solver pool")
}

/// [`solver_pool`] for a run that only waits while the pool works (`cookd
/// solve`): the calling thread is one of the pool's threads. A one-shot
/// solve of a small problem spent a sixth of its CPU starting one more
/// thread, and the memory arena it allocates in. (A thread that waits for
/// anything else, as the service's does, must not be one: the pool's work
/// would wait with it.)
pub fn oneshot_pool(config: &Config) -> Result<rayon::ThreadPool> {
    pool_builder(config)
        .use_current_thread()
        .build()
        .context("cannot start the solver pool")
}

fn pool_builder(config: &Config) -> rayon::ThreadPoolBuilder {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads.get(cores))
        .thread_name(|i| format!("cookd-solve-{i}"))
}

/// [`judge_file_with`] with fresh resources.
#[cfg(test)]
pub fn judge_file(name: &str, content: &[u8], stages: &[Stage]) -> Vec<Verdict> {
    judge_file_with(name, content, stages, &Resources::default(), None, None)
}

/// Judges every problem of one file's content; `name` identifies the file.
/// The stages use `resources`, which may serve other problems too; long
/// proof-game searches record their finished work items in `checkpoints`
/// and take those recorded before from there, and with `slurm` those over
/// its size threshold run on the cluster first.
pub fn judge_file_with(
    name: &str,
    content: &[u8],
    stages: &[Stage],
    resources: &Resources,
    checkpoints: Option<Checkpoints>,
    slurm: Option<&Slurm>,
) -> Vec<Verdict> {
    problem::parse(name, content)
        .into_iter()
        .enumerate()
        .map(|(index, parsed)| match parsed {
            Ok(problem) => {
                let place = Place {
                    name,
                    content,
                    index,
                    checkpoints,
                    slurm,
                };
                judge(&problem, stages, resources, place)
            }
            Err(error) => Verdict::for_error(&error),
        })
        .collect()
}

/// Where a problem comes from, and where its long searches may keep and
/// send their work.
#[derive(Clone, Copy)]
struct Place<'a> {
    name: &'a str,
    content: &'a [u8],
    /// The problem's place in the file.
    index: usize,
    checkpoints: Option<Checkpoints<'a>>,
    slurm: Option<&'a Slurm<'a>>,
}

/// Runs the configured stages on one problem. A panic inside a stage
/// becomes an `error` verdict for this problem only.
fn judge(problem: &Problem, stages: &[Stage], resources: &Resources, place: Place) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| {
        run_stages(problem, stages, resources, place)
    })) {
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

fn run_stages(problem: &Problem, stages: &[Stage], resources: &Resources, place: Place) -> Verdict {
    let mut verdict = Verdict::for_problem(problem);
    // A solver that ran out of budget explains itself; the note below is for
    // problems no solver looked at.
    let mut solver_ran = false;
    let cooks = stages.iter().find_map(|stage| match stage {
        Stage::Cooks(options) => Some(options),
        _ => None,
    });
    // The mate search's recognizers read smaller tables from its folder.
    let tables = stages.iter().find_map(|stage| match stage {
        Stage::Tablebase(options) => Some(options),
        _ => None,
    });
    for stage in stages {
        let started = Instant::now();
        match stage {
            Stage::Legality(_) => stage::legality::run(problem, &mut verdict),
            Stage::Solve(options) if stage::mate::solves(problem.stipulation) => {
                stage::mate::run(problem, (options, cooks, tables), resources, &mut verdict);
                solver_ran = true;
            }
            Stage::Solve(options) => match problem.stipulation {
                Stipulation::ProofGame { plies } => {
                    let progress = progress_on_stderr(verdict.id.clone());
                    let journal = place
                        .checkpoints
                        .map(|c| c.ledger(place.index, &verdict.id));
                    let journal = journal.as_ref().map(|l| l as &dyn Ledger);
                    // The items a job array found, when the search went to
                    // the cluster; the search below takes them as it takes
                    // checkpoints, so its verdict is a local run's.
                    let spooled = place.slurm.and_then(|slurm| {
                        on_cluster(slurm, problem, plies, options, resources, place, journal)
                    });
                    let ledger = spooled.as_ref().map_or(journal, |s| Some(s as &dyn Ledger));
                    // A wait on the cluster cut short by a stop: nothing
                    // is searched here (the file is judged again at the
                    // next start), and a budget of nothing says so.
                    let stopped;
                    let options = match place.slurm.is_some_and(Slurm::interrupted) {
                        true => {
                            stopped = SolveOptions {
                                budget_s: 0.0,
                                ..options.clone()
                            };
                            &stopped
                        }
                        false => options,
                    };
                    let hooks = stage::proofgame::Hooks {
                        progress: Some(&progress),
                        ledger,
                    };
                    stage::proofgame::run(problem, plies, options, resources, hooks, &mut verdict);
                    if let (Some(slurm), Some(_)) = (place.slurm, &spooled) {
                        // Unsolved keeps the cluster's results for the
                        // next try, as the journal keeps its checkpoints.
                        if verdict.verdict != Kind::Unsolved {
                            let dir = slurm.task_dir(place.content, place.index);
                            if let Err(e) = std::fs::remove_dir_all(&dir) {
                                tracing::warn!("cannot remove {}: {e}", dir.display());
                            }
                        }
                    }
                    solver_ran = true;
                }
                // Studies: the tablebase stage judges those it can.
                _ => continue,
            },
            Stage::Tablebase(options) => {
                stage::tablebase::run(problem, options, resources, &mut verdict)
            }
            // The solve stage looks for tries and duals as it builds the
            // solution tree, as this stage's options say; the second keys,
            // short solutions and extra games are in its complete count.
            // This stage adds the quality score and the repairs.
            Stage::Cooks(options) => stage::cooks::run(problem, options, &mut verdict),
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

/// Runs the proof game's search on the cluster when it is large enough
/// (estimated at `min_seconds` or more here), recording each share's items
/// in the journal as they land. `None`: searched here only (too small,
/// decided without a search, or the cluster failed, which is logged).
fn on_cluster<'a>(
    slurm: &Slurm,
    problem: &Problem,
    plies: u32,
    options: &SolveOptions,
    resources: &Resources,
    place: Place,
    journal: Option<&'a dyn Ledger>,
) -> Option<Spooled<'a>> {
    let id = Verdict::for_problem(problem).id;
    let say = |text: &str| {
        eprintln!("cookd: {} {id}: {text}", place.name);
    };
    let min = slurm.options.min_seconds;
    if min > 0.0 {
        let seconds = estimate::seconds(problem, plies, options, resources)?;
        if seconds < min {
            return None;
        }
        say(&format!(
            "estimated {seconds:.0} s here (min_seconds {min}): to the cluster"
        ));
    }
    let arrived = |result: &ShareResult| {
        if let Some(journal) = journal {
            for row in &result.items {
                journal.record(&row.key(), &row.result());
            }
        }
    };
    match slurm.run(
        (place.name, place.content, place.index),
        &id,
        &arrived,
        &say,
    ) {
        Ok(results) => Some(Spooled {
            results,
            inner: journal,
        }),
        Err(e) => {
            say(&format!("the cluster failed ({e:#}); searched here"));
            None
        }
    }
}

/// Progress of a long proof-game search, on stderr.
fn progress_on_stderr(id: String) -> impl Fn(&Progress) + Sync {
    move |p: &Progress| {
        eprintln!(
            "cookd: {id}: proof games of {} plies: {} nodes, {} solution(s) so far, {:.1} s",
            p.plies,
            p.nodes,
            p.solutions,
            p.elapsed.as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CooksOptions, LegalityOptions, TablebaseOptions};

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

    /// The built-in stages with the solve stage's budget set.
    fn stages_with_budget(budget_s: f64) -> Vec<Stage> {
        let mut stages = crate::config::Config::builtin().stages;
        for stage in &mut stages {
            if let Stage::Solve(options) = stage {
                options.budget_s = budget_s;
            }
        }
        stages
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
            repair: None,
        }));
        let tries = all.tries.expect("tries looked for");
        assert!(tries
            .iter()
            .any(|t| t.san == "Qh7" && t.refutation_san == "Kb2"));
        assert!(all.duals.is_some());
        let no_tries = judged(Some(CooksOptions {
            tries: false,
            duals: true,
            repair: None,
        }));
        assert!(no_tries.tries.is_none() && no_tries.tree.unwrap().tries.is_empty());
        assert!(no_tries.duals.is_some());
        let none = judged(None);
        assert!(none.tries.is_none() && none.duals.is_none());
    }

    /// The cooks stage with its default `repair`: the cooked dm012 without
    /// its pawn g7 (tests/support/spool.rs's COOKED) gets its parent back
    /// among the repairs, in the JSON and the text report; the sound
    /// Schöpfer #2 gets its quality (17, checked by hand in
    /// solvers/tests/quality_repair.rs) and no repairs; an illegal diagram
    /// gets neither key, so older verdicts keep their shape.
    #[test]
    fn cooks_stage_scores_sound_mates_and_repairs_cooked_ones() {
        let stages = default_stages();
        // The solution names the key to keep; without one any key will do.
        let entry = b"stipulation: \"#2\"\n\
            fen: \"nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1\"\nsolution: \"1.Rf1!\"\n";
        let cooked = judge_file("c.yaml", entry, &stages).remove(0);
        assert_eq!(
            cooked.fen.as_deref(),
            Some("nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1")
        );
        assert_eq!(cooked.verdict, Kind::Cooked);
        assert!(cooked.quality.is_none());
        assert!(
            cooked.repairs.iter().any(|r| r.changes == ["+bPg7"]
                && r.fen.starts_with("nk6/brpp2p1/brp4p/1p6/8/8/8/4K2R w")
                && r.key == "Rf1"),
            "{:?}",
            cooked.repairs
        );
        assert!(cooked.repairs.len() <= 3);
        let json = serde_json::to_value(&cooked).unwrap();
        let first = &json["repairs"][0];
        for key in ["changes", "fen", "key", "score"] {
            assert!(first.get(key).is_some(), "{key}: {json}");
        }
        assert!(json.get("quality").is_none(), "{json}");
        let text = crate::report::text(&cooked);
        assert!(text.contains("\nRepair: +bPg7: 1.Rf1! score "), "{text}");
        assert!(
            text.contains("Note: repair: 3 found (keeping the intended key h1f1; "),
            "{text}"
        );

        let sound =
            judge_file("s.fen", b"8/Q7/8/8/8/8/8/2k1K2R w K - 0 1 ; #2\n", &stages).remove(0);
        assert_eq!(sound.verdict, Kind::Sound);
        assert!(sound.repairs.is_empty());
        let quality = sound.quality.as_ref().expect("a sound #2 is scored");
        assert_eq!(quality.score, 17.0, "{quality:?}");
        let json = serde_json::to_value(&sound).unwrap();
        assert_eq!(json["quality"]["score"], 17.0, "{json}");
        assert!(json.get("repairs").is_none(), "{json}");
        assert!(crate::report::text(&sound).contains("\nQuality: 17.0 ("));

        let illegal =
            judge_file("i.fen", b"7P/8/8/8/8/8/8/4K2k w - - 0 1 ; #2\n", &stages).remove(0);
        let json = serde_json::to_value(&illegal).unwrap();
        assert!(json.get("quality").is_none() && json.get("repairs").is_none());

        // repair: null switches the search off.
        let mut off = default_stages();
        for stage in &mut off {
            if let Stage::Cooks(options) = stage {
                options.repair = None;
            }
        }
        let v = judge_file(
            "c.fen",
            b"nk6/brpp4/brp4p/1p6/8/8/8/4K2R w - - 0 1 ; #2\n",
            &off,
        )
        .remove(0);
        assert!(v.repairs.is_empty() && !v.notes.iter().any(|n| n.starts_with("repair")));
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
        let stages = stages_with_budget(0.0);
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

    // The proof-game stage.

    #[test]
    fn proof_game_verdict_lists_the_game() {
        // solvers/tests/data/spg.csv spg019: unique in 6 plies.
        let file = b"rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR\n6\n";
        let verdict = &judge_file("p.txt", file, &stages_with_budget(60.0))[0];
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
        let verdict = &judge_file("p.txt", file, &stages_with_budget(60.0))[0];
        assert_eq!(verdict.verdict, Kind::Sound, "{verdict:?}");
        let legality = verdict.legality.as_ref().unwrap();
        assert_eq!(legality.legal, Some(true), "{legality:?}");
        let game = "1.c4 Nf6 2.Qa4 Ne4 3.Qc6 Nxd2 4.e4 Nb3 5.Bh6 Na6 6.Nd2 Nb4 \
                    7.Rc1 Nd5 8.Rc3 Nf6 9.Rf3 Ng8 10.Rf6 Nc5 11.f4 Na6 12.Ngf3 Nb8";
        assert!(legality.evidence[0].ends_with(game), "{legality:?}");
        // Without the solve stage it stays undecided.
        let legality_only: Vec<_> = stages_with_budget(60.0)
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
        let verdict = &judge_file("p.fen", fen.as_bytes(), &stages_with_budget(60.0))[0];
        assert_eq!(verdict.verdict, Kind::Sound, "{verdict:?}");
        assert_eq!(verdict.n_solutions, Some(1));
        let stelvio = format!("{board}\n15\n");
        let verdict = &judge_file("p.txt", stelvio.as_bytes(), &stages_with_budget(60.0))[0];
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
        let verdict = &judge_file("p.txt", file, &stages_with_budget(0.0))[0];
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
