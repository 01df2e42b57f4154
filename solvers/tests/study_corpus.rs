//! The study corpus (tests/data/studies.csv): published studies with their
//! status from the literature and its source, judged by the tablebase stage
//! with tables generated on demand. Every sound study must come out with no
//! cook, every cooked one with its published cook, every unsound one
//! unsound.

mod common;

use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use solvers::tablebase::judge::{self, Judgement, Sources};
use solvers::tablebase::study::Class;
use solvers::tablebase::DtmTables;
use solvers::Stipulation;

#[test]
fn every_study_has_its_published_status() {
    // Tables of earlier runs are stale once the generator changes: each
    // run generates what the corpus needs afresh (about a minute).
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("study-tables");
    let _ = std::fs::remove_dir_all(&root);
    let tables = DtmTables::new(&root.join(std::process::id().to_string()));
    let sources = Sources {
        dtm: &tables,
        syzygy: None,
        generate_up_to: 4,
    };
    let rows = common::read_csv(&common::data("studies.csv"));
    assert!(rows.len() >= 3, "the corpus is there");
    let mut disagree = Vec::new();
    for row in &rows {
        let id = &row["id"];
        let fen: Fen = row["fen"].parse().unwrap_or_else(|e| panic!("{id}: {e}"));
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let stipulation: Stipulation = row["stipulation"].parse().unwrap();
        let j = judge::judge(&pos, stipulation, Some(&row["solution"]), 5, &sources);
        let report = j
            .report
            .as_ref()
            .unwrap_or_else(|| panic!("{id}: {:?}", j.notes));
        let cooks: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.class == Class::Cook)
            .map(|f| format!("{}.{}", f.move_number, f.alternative))
            .collect();
        let agrees = match row["status"].as_str() {
            "sound" => j.judgement == Some(Judgement::Sound) && cooks.is_empty(),
            "cooked" => {
                j.judgement == Some(Judgement::Cooked)
                    && row["cook"]
                        .split(';')
                        .all(|c| cooks.iter().any(|k| k == c.trim()))
            }
            "unsound" => j.judgement == Some(Judgement::Unsound),
            other => panic!("{id}: unknown status {other}"),
        };
        if !agrees {
            disagree.push(format!(
                "{id}: expected {} {}, got {:?} with cooks {cooks:?}; notes {:?}",
                row["status"], row["cook"], j.judgement, j.notes
            ));
        }
    }
    assert!(disagree.is_empty(), "{disagree:#?}");
}
