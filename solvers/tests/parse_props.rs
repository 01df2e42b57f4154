//! `problem::parse` on hostile input: random bytes, random text, text that
//! starts like one of the formats, and the example files with random damage.
//! It must never panic, must return at least one entry, and every error must
//! point at a real place in the input (line ≥ 1, column ≥ 1, line at most one
//! past the last line). Whatever it does read must survive the YAML writer.

use proptest::prelude::*;
use solvers::problem::{parse, to_fenline, to_popeye, to_stelvio, to_yaml, Problem};

/// The example files, whose damaged copies reach deep into each parser.
const EXAMPLES: &[&[u8]] = &[
    include_bytes!("data/formats/yacpdb-entry.yaml"),
    include_bytes!("data/formats/collection.yaml"),
    include_bytes!("data/formats/three.pop"),
    include_bytes!("data/formats/blocks.pop"),
    include_bytes!("data/formats/problems.txt"),
    include_bytes!("data/formats/lines.fen"),
    include_bytes!("data/formats/positions.epd"),
];

/// Beginnings that steer random text into one parser or another.
const HEADS: &[&str] = &[
    "",
    "beginproblem\n",
    "beginproblem\npieces white ",
    "beginproblem\nstipulation #2\nforsyth ",
    "- stipulation: \"#2\"\n  ",
    "stipulation: \"h#2\"\nalgebraic:\n  white: [",
    "stipulation: \"#2\"\nfen: ",
    "8/8/8/8/8/8/8/K1k5 w - - ",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\n",
];

fn line_count(input: &[u8]) -> usize {
    String::from_utf8_lossy(input).lines().count()
}

/// The properties every call of `parse` must have.
fn check(input: &[u8]) -> Result<(), TestCaseError> {
    let results = parse("prop", input);
    prop_assert!(!results.is_empty(), "no entry at all");
    let lines = line_count(input);
    for result in &results {
        match result {
            Err(e) => {
                let shown = e.to_string();
                prop_assert!(e.location.line >= 1, "{shown}");
                prop_assert!(e.location.column >= 1, "{shown}");
                prop_assert!(
                    e.location.line <= lines + 1,
                    "{shown}: beyond the {lines} lines of the input"
                );
            }
            Ok(problem) => check_writers(problem)?,
        }
    }
    Ok(())
}

/// Every problem read can be written in every format, and the YAML writer,
/// which carries every field, gives it back unchanged.
fn check_writers(problem: &Problem) -> Result<(), TestCaseError> {
    for text in [to_popeye(problem), to_fenline(problem)]
        .into_iter()
        .chain(to_stelvio(problem))
    {
        let _ = parse("written", text.as_bytes());
    }
    let yaml = to_yaml(problem);
    let mut back = parse("written.yaml", yaml.as_bytes());
    prop_assert_eq!(back.len(), 1, "{}", yaml);
    let back = back.remove(0);
    prop_assert!(back.is_ok(), "{:?} from\n{}", back, yaml);
    if let Ok(back) = back {
        let mut expected = problem.clone();
        expected.origin = back.origin.clone();
        // All but whether the rights were stated: YAML cannot leave a
        // board's rights unstated unless they are Popeye's default (a
        // Stelvio board has none and states none; YAML writes it as a
        // full FEN, which states them). The rights themselves must match.
        expected.stated = back.stated;
        prop_assert_eq!(back, expected, "{}", yaml);
    }
    Ok(())
}

/// One kind of damage to a file.
#[derive(Debug, Clone)]
enum Damage {
    Delete(usize),
    Insert(usize, u8),
    Replace(usize, u8),
    Truncate(usize),
    DuplicateLine(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    // Bytes that matter to the formats come up more often than chance gives.
    let byte = prop_oneof![
        any::<u8>(),
        prop::sample::select(b"#:;\"'-/ \n\t012345678abcdefghKQRBNSPkqrbnsp[]{},.=+wx".to_vec()),
    ];
    let at = any::<prop::sample::Index>();
    prop_oneof![
        at.clone().prop_map(|i| Damage::Delete(i.index(usize::MAX))),
        (at.clone(), byte.clone()).prop_map(|(i, b)| Damage::Insert(i.index(usize::MAX), b)),
        (at.clone(), byte).prop_map(|(i, b)| Damage::Replace(i.index(usize::MAX), b)),
        at.clone()
            .prop_map(|i| Damage::Truncate(i.index(usize::MAX))),
        at.prop_map(|i| Damage::DuplicateLine(i.index(usize::MAX))),
    ]
}

fn apply(mut bytes: Vec<u8>, damage: &Damage) -> Vec<u8> {
    let len = bytes.len();
    match *damage {
        Damage::Delete(i) if len > 0 => {
            bytes.remove(i % len);
        }
        Damage::Insert(i, b) => bytes.insert(i % (len + 1), b),
        Damage::Replace(i, b) if len > 0 => bytes[i % len] = b,
        Damage::Truncate(i) => bytes.truncate(i % (len + 1)),
        Damage::DuplicateLine(i) => {
            let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
            if !lines.is_empty() {
                let k = i % lines.len();
                let mut out = Vec::with_capacity(len + lines[k].len());
                for (j, line) in lines.iter().enumerate() {
                    out.extend_from_slice(line);
                    if j == k {
                        out.extend_from_slice(line);
                    }
                }
                bytes = out;
            }
        }
        _ => {}
    }
    bytes
}

proptest! {
    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check(&bytes)?;
    }

    #[test]
    fn random_text(head in prop::sample::select(HEADS), tail in "(\\PC|\n){0,300}") {
        check(format!("{head}{tail}").as_bytes())?;
    }

    #[test]
    fn damaged_examples(
        file in prop::sample::select(EXAMPLES),
        damages in prop::collection::vec(damage(), 1..6),
    ) {
        let bytes = damages.iter().fold(file.to_vec(), apply);
        check(&bytes)?;
    }
}

#[test]
fn undamaged_examples_pass_too() {
    for file in EXAMPLES {
        check(file).unwrap();
    }
}
