//! The tablebase stage: the diagram's value when it has at most
//! `max_pieces` units ([`crate::tablebase::judge`]); for studies the
//! claimed result and main line, for direct mates the length. It decides
//! the verdict of studies, and of direct mates no solve stage decided.
//! Studies beyond the tables also get a UCI engine's suspected findings
//! ([`crate::engine`]), which never decide the verdict.

use shakmaty::{CastlingMode, Chess, FromSetup};

use super::options::TablebaseOptions;
use super::Resources;
use crate::engine::{self, Limit};
use crate::problem::Problem;
use crate::stipulation::Stipulation;
use crate::tablebase::judge::{self, beyond_tables, claimed_result, san_tokens, Sources};
use crate::tablebase::study::MainLine;
use crate::verdict::{Kind, Verdict};

/// Fills in `verdict.tablebase` (and `engine` for studies), and the verdict
/// word of a study, or of a direct mate still `unsolved`.
pub fn run(
    problem: &Problem,
    options: &TablebaseOptions,
    resources: &Resources,
    verdict: &mut Verdict,
) {
    let Ok(pos) = Chess::from_setup(problem.setup.clone(), CastlingMode::Standard) else {
        return;
    };
    let syzygy = match &options.syzygy {
        Some(dir) => match resources.syzygy(dir) {
            Ok(tables) => Some(tables),
            Err(e) => {
                verdict.notes.push(format!("tablebase: {e}"));
                None
            }
        },
        None => None,
    };
    let Some(dir) = options.folder() else {
        verdict
            .notes
            .push("tablebase: no table folder (set dir, or HOME)".into());
        return;
    };
    let dtm = resources.dtm(&dir);
    let sources = Sources {
        dtm: &dtm,
        syzygy: syzygy.as_deref(),
        generate_up_to: options.generate_up_to,
    };
    let outcome = judge::judge(
        &pos,
        problem.stipulation,
        problem.solution.as_deref(),
        options.max_pieces,
        &sources,
    );
    verdict.notes.extend(outcome.notes);
    verdict.tablebase = outcome.report;
    let study = matches!(problem.stipulation, Stipulation::Win | Stipulation::Draw);
    if study {
        engine_check(&pos, problem, options, &sources, resources, verdict);
    }
    if let Some(judgement) = outcome.judgement {
        if study || verdict.verdict == Kind::Unsolved {
            verdict.verdict = Kind::from(judgement);
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
    sources: &Sources<'_>,
    resources: &Resources,
    verdict: &mut Verdict,
) {
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
        Some(&resources.recognizers_in(&resources.dtm(sources.dtm.dir()))),
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
