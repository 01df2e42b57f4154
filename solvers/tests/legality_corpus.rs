//! The legality stage judged on the corpus (tests/data/legality.csv).
//!
//! Every `illegal` row must come out illegal with a reason whose code is one
//! that tests/data/legality_codes.csv lists for the row (the codes naming the
//! same flaw as the corpus's `reason` column). Every `legal`/`legal?` row must
//! not come out illegal (undecided is fine: cookd says legal only with a
//! proof game). Illegal rows the analyses cannot decide yet carry the reason
//! in the `known_gap` column of legality_codes.csv; the test checks they are
//! still undecided, so the column has to be cleared the day one is fixed.

use std::collections::HashMap;

use shakmaty::fen::Fen;
use solvers::legality::{self, Status};

mod common;
use common::{data, read_csv};

struct Row {
    id: String,
    expected: String,
    got: Status,
    codes: Vec<String>,
    wanted: Vec<String>,
}

impl Row {
    fn passes(&self) -> bool {
        match self.expected.as_str() {
            "illegal" => {
                self.got == Status::Illegal && self.codes.iter().any(|c| self.wanted.contains(c))
            }
            _ => self.got != Status::Illegal,
        }
    }
}

fn judge() -> Vec<Row> {
    let wanted: HashMap<String, Vec<String>> = read_csv(&data("legality_codes.csv"))
        .into_iter()
        .map(|r| {
            (
                r["id"].clone(),
                r["codes"].split(';').map(str::to_string).collect(),
            )
        })
        .collect();
    read_csv(&data("legality.csv"))
        .into_iter()
        .map(|r| {
            let setup = r["fen"]
                .parse::<Fen>()
                .unwrap_or_else(|e| panic!("{}: {e}", r["id"]))
                .into_setup();
            let report = legality::check(&setup);
            Row {
                id: r["id"].clone(),
                expected: r["expected"].clone(),
                got: report.status,
                codes: report
                    .reasons
                    .iter()
                    .map(|x| x.flaw.code().to_string())
                    .collect(),
                wanted: wanted.get(&r["id"]).cloned().unwrap_or_default(),
            }
        })
        .collect()
}

#[test]
fn legality_corpus() {
    let rows = judge();
    let gaps: HashMap<String, String> = read_csv(&data("legality_codes.csv"))
        .into_iter()
        .filter(|r| !r["known_gap"].is_empty())
        .map(|r| (r["id"].clone(), r["known_gap"].clone()))
        .collect();
    println!("{:<8} {:<8} {:<10} codes", "id", "expected", "got");
    for r in &rows {
        let mark = match (r.passes(), gaps.contains_key(r.id.as_str())) {
            (true, _) => "",
            (false, true) => "  (known gap)",
            (false, false) => "  <-- not as expected",
        };
        println!(
            "{:<8} {:<8} {:<10} {}{mark}",
            r.id,
            r.expected,
            format!("{:?}", r.got).to_lowercase(),
            r.codes.join(";")
        );
    }
    let mut failures = Vec::new();
    for r in &rows {
        match (r.passes(), gaps.get(r.id.as_str())) {
            (true, None) => {}
            (false, Some(_)) if r.got == Status::Undecided => {}
            (true, Some(why)) => failures.push(format!(
                "{} is fixed (was a known gap: {why}); clear its known_gap in legality_codes.csv",
                r.id
            )),
            (false, Some(_)) => failures.push(format!(
                "{} (known gap) is no longer undecided: {:?}",
                r.id, r.got
            )),
            (false, None) => failures.push(format!(
                "{}: expected {}, got {:?} {:?}",
                r.id, r.expected, r.got, r.codes
            )),
        }
    }
    for r in rows.iter().filter(|r| r.expected == "illegal") {
        assert!(
            !r.wanted.is_empty(),
            "{} has no codes in legality_codes.csv",
            r.id
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
