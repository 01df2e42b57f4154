//! The verdict: what cookd says about one problem.
//!
//! The JSON form is a contract other tools rely on: fields are only ever
//! added. Fields a stage did not compute are left out rather than written
//! empty, so an absent `keys` means "not solved", never "no keys".

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;

use crate::legality;
use crate::mate;
use crate::problem::{ParseError, Problem, Twin};
use crate::stipulation::Stipulation;

/// The one-word outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Exactly the intended solution(s).
    Sound,
    /// More solutions than intended (second keys, short solutions, extra games).
    Cooked,
    /// No solution at all.
    NoSolution,
    /// Fewer solutions than intended.
    Incomplete,
    /// The diagram cannot arise in a game.
    Illegal,
    /// The work was not finished (budget, or no solving stage for this genre);
    /// what was found is kept.
    Unsolved,
    /// The input could not be read.
    Error,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Sound => "sound",
            Kind::Cooked => "cooked",
            Kind::NoSolution => "no_solution",
            Kind::Incomplete => "incomplete",
            Kind::Illegal => "illegal",
            Kind::Unsolved => "unsolved",
            Kind::Error => "error",
        }
    }
}

impl Kind {
    /// The word for a complete count of keys or solutions against the
    /// number intended.
    pub fn of_count(found: usize, intended: usize) -> Kind {
        match found {
            0 => Kind::NoSolution,
            n if n == intended => Kind::Sound,
            n if n > intended => Kind::Cooked,
            _ => Kind::Incomplete,
        }
    }
}

impl From<crate::proofgame::Judgement> for Kind {
    fn from(judgement: crate::proofgame::Judgement) -> Kind {
        use crate::proofgame::Judgement;
        match judgement {
            Judgement::Sound => Kind::Sound,
            Judgement::Cooked => Kind::Cooked,
            Judgement::NoSolution => Kind::NoSolution,
            Judgement::Illegal => Kind::Illegal,
            Judgement::Unsolved => Kind::Unsolved,
        }
    }
}

impl From<crate::tablebase::judge::Judgement> for Kind {
    fn from(judgement: crate::tablebase::judge::Judgement) -> Kind {
        use crate::tablebase::judge::Judgement;
        match judgement {
            Judgement::Sound => Kind::Sound,
            Judgement::Cooked => Kind::Cooked,
            Judgement::Unsound => Kind::NoSolution,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The legality part of a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Legality {
    /// `true`, `false`, or `null` when undecided.
    pub legal: Option<bool>,
    pub status: legality::Status,
    pub reasons: Vec<legality::Reason>,
    pub evidence: Vec<String>,
    /// The length in half-moves of the proof game that makes the diagram
    /// `legal`, when a game is the proof (it is also in `evidence`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_plies: Option<u32>,
}

impl From<legality::Report> for Legality {
    fn from(report: legality::Report) -> Legality {
        Legality {
            legal: report.legal(),
            status: report.status,
            reasons: report.reasons,
            evidence: report.evidence,
            proof_plies: None,
        }
    }
}

impl Legality {
    /// Records the proof game that settles an `undecided` diagram as
    /// `legal`; `found_by` says which stage found it.
    pub fn prove_by_game(&mut self, game: &mate::Line, found_by: &str) {
        let plies = game.uci.len() as u32;
        self.status = legality::Status::Legal;
        self.legal = Some(true);
        self.proof_plies = Some(plies);
        self.evidence = vec![format!(
            "proof game of {plies} half-moves{found_by}: {}",
            game.san
        )];
    }

    /// The judge's one line: `legal (proof game of 12 plies)`, `illegal:
    /// <reasons>`, or `no flaw found` (the JSON's `undecided`: no flaw, and
    /// no proof either, as for most published problems).
    pub fn summary(&self) -> String {
        match self.status {
            legality::Status::Legal => match self.proof_plies {
                Some(1) => "legal (proof game of 1 ply)".to_owned(),
                Some(plies) => format!("legal (proof game of {plies} plies)"),
                None => "legal".to_owned(),
            },
            legality::Status::Illegal => {
                let reasons: Vec<_> = self.reasons.iter().map(|r| r.detail.as_str()).collect();
                if reasons.is_empty() {
                    "illegal".to_owned()
                } else {
                    format!("illegal: {}", reasons.join("; "))
                }
            }
            legality::Status::Undecided => "no flaw found".to_owned(),
        }
    }
}

/// Everything cookd says about one problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// `<file stem>.<index>`, or the problem's own id when it has one.
    pub id: String,
    pub file: String,
    /// 0-based position of the problem in its file (each twin counts).
    pub index: usize,
    /// Which twin of its entry this is, and how it was derived; absent for
    /// a problem without twins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twin: Option<Twin>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stipulation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// Proof games: the exact length in half-moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halfmoves: Option<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub verdict: Kind,
    /// For `error`: what is wrong and where (`file:line:col: message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legality: Option<Legality>,
    /// Direct and self mates: every first move forcing the goal in time
    /// (shorter than stipulated = short solution).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<mate::Key>>,
    /// Helpmates: every solution, shorter ones included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solutions: Option<Vec<mate::Line>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_solutions: Option<usize>,
    /// Direct and self mates judged sound: the key's solution tree
    /// (threat, variations, duals, tries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<mate::tree::Tree>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duals: Option<Vec<mate::tree::Dual>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tries: Option<Vec<mate::tree::Try>>,
    /// Sound direct mates: the quality score and its features (the cooks
    /// stage; `docs/quality.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<mate::quality::Quality>,
    /// Cooked or unsolvable `#2`/`#3`: the best corrections found, fewest
    /// changes then best score first (the cooks stage's `repair`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<mate::repair::Repair>,
    /// The tablebase stage: the diagram's value and the main line's checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tablebase: Option<crate::tablebase::judge::Report>,
    /// Studies beyond the tables: a UCI engine's suspected findings, which
    /// never decide the verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<crate::engine::EngineReport>,
    /// Why the verdict is what it is, when that is not obvious (stages that
    /// did not run, budgets that ran out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Milliseconds per stage that ran.
    pub timings_ms: BTreeMap<String, f64>,
}

/// `<file stem>.<index>`: unique within a run, stable across runs. For a
/// twin, `index` is its entry's and the twin's label follows (`x.0b`).
pub fn default_id(file: &str, index: usize) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_owned());
    format!("{stem}.{index}")
}

impl Verdict {
    /// A verdict that says nothing yet about the problem at `file`/`index`.
    fn blank(file: &str, index: usize, verdict: Kind) -> Verdict {
        Verdict {
            id: default_id(file, index),
            file: file.to_owned(),
            index,
            twin: None,
            stipulation: None,
            fen: None,
            halfmoves: None,
            authors: Vec::new(),
            source: None,
            verdict,
            error: None,
            legality: None,
            keys: None,
            solutions: None,
            n_solutions: None,
            tree: None,
            duals: None,
            tries: None,
            quality: None,
            repairs: Vec::new(),
            tablebase: None,
            engine: None,
            notes: Vec::new(),
            timings_ms: BTreeMap::new(),
        }
    }

    /// A verdict for a problem, before any stage ran (`unsolved`).
    pub fn for_problem(problem: &Problem) -> Verdict {
        let origin = &problem.origin;
        let fen = Fen::try_from_setup(problem.setup.clone()).unwrap_or_else(|e| e.ignore());
        let mut verdict = Verdict::blank(&origin.file, origin.index, Kind::Unsolved);
        verdict.id = problem
            .id
            .clone()
            .unwrap_or_else(|| default_id(&origin.file, origin.entry));
        if let Some(twin) = &problem.twin {
            verdict.id.push_str(&twin.label);
            verdict.twin = Some(twin.clone());
        }
        verdict.stipulation = Some(problem.stipulation.to_string());
        verdict.fen = Some(fen.to_string());
        verdict.halfmoves = match problem.stipulation {
            Stipulation::ProofGame { plies } => Some(plies),
            _ => None,
        };
        verdict.authors = problem.authors.clone();
        verdict.source = problem.source.clone();
        verdict
    }

    /// The `error` verdict for input that could not be read.
    pub fn for_error(error: &ParseError) -> Verdict {
        let mut verdict = Verdict::blank(&error.file, error.index, Kind::Error);
        if let Some((entry, label)) = &error.twin {
            verdict.id = format!("{}{label}", default_id(&error.file, *entry));
        }
        verdict.error = Some(error.to_string());
        verdict
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use shakmaty::fen::Fen;

    use super::*;

    fn legality(fen: &str) -> (shakmaty::Setup, Legality) {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        let report = legality::check(&setup);
        (setup, report.into())
    }

    #[test]
    fn the_one_line_says_legal_with_the_games_length_or_no_flaw_found() {
        // After 1.e4 e5: no flaw, and the static layers prove nothing.
        let (setup, mut l) =
            legality("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert_eq!(l.status, legality::Status::Undecided);
        assert_eq!(l.summary(), "no flaw found");
        // The JSON keeps its status word and the evidence list.
        let json = serde_json::to_value(&l).unwrap();
        assert_eq!(json["status"], "undecided");
        assert!(!json["evidence"].as_array().unwrap().is_empty());
        assert!(json.get("proof_plies").is_none());

        let deadline = Instant::now() + Duration::from_secs(10);
        let game = crate::proofgame::prove(&setup, 4, deadline).unwrap();
        l.prove_by_game(&game, "");
        assert_eq!(l.summary(), "legal (proof game of 2 plies)");
        let json = serde_json::to_value(&l).unwrap();
        assert_eq!(json["status"], "legal");
        assert_eq!(json["proof_plies"], 2);
        assert!(json["evidence"][0]
            .as_str()
            .unwrap()
            .starts_with("proof game of 2 half-moves: 1.e4 e5"));
    }

    #[test]
    fn the_one_line_of_an_illegal_diagram_gives_every_reason() {
        // No black king, and a white pawn on h8.
        let (_, l) = legality("7P/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(l.status, legality::Status::Illegal);
        assert!(l.reasons.len() >= 2, "{l:?}");
        let line = l.summary();
        assert!(line.starts_with("illegal: "), "{line}");
        for reason in &l.reasons {
            assert!(line.contains(&reason.detail), "{line}");
        }
    }
}
