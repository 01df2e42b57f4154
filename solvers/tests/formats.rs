//! The four problem input formats, read from the example files under
//! `tests/data/formats/`: every field of every problem, the writers' round
//! trip, and the errors (kind, line, column) for broken files.

use std::path::PathBuf;

use shakmaty::fen::Fen;
use solvers::problem::{
    parse, to_fenline, to_popeye, to_stelvio, to_yaml, ParseError, ParseErrorKind, Problem,
};
use solvers::stipulation::ParseStipulationError;
use solvers::Stipulation;

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every problem of a file that must read without error.
fn problems(name: &str) -> Vec<Problem> {
    parse(name, &data(name))
        .into_iter()
        .map(|result| result.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The entries of a file, errors included.
fn entries(name: &str) -> Vec<Result<Problem, ParseError>> {
    parse(name, &data(name))
}

fn fen(problem: &Problem) -> String {
    Fen::try_from_setup(problem.setup.clone())
        .unwrap()
        .to_string()
}

fn stip(text: &str) -> Stipulation {
    text.parse().unwrap()
}

/// Reads back what a writer wrote and compares all but the origin.
fn assert_round_trip(problem: &Problem, text: &str) {
    let mut back = parse("round-trip", text.as_bytes());
    assert_eq!(back.len(), 1, "one problem expected in:\n{text}");
    let back = back
        .remove(0)
        .unwrap_or_else(|e| panic!("{e}\nin:\n{text}"));
    let mut expected = problem.clone();
    expected.origin = back.origin.clone();
    // Whether the rights were stated or left to the format's default is
    // carried only as far as the format can say it (a Stelvio file never
    // states them; Popeye states castling only by denying a right); the
    // rights themselves are compared with the setup.
    expected.stated = back.stated;
    assert_eq!(back, expected, "after writing:\n{text}");
}

/// Which formats state castling rights and en passant (what a proof game's
/// last position must match), and which leave them to their defaults.
#[test]
fn formats_say_whether_they_state_the_rights() {
    use solvers::problem::Stated;
    let stated = |text: &str| parse("s", text.as_bytes())[0].clone().unwrap().stated;
    let board = "r1b1kbnr/ppp1pppp/8/3p4/7n/5P2/PPPPP1PP/RNBQKBNR";
    let none = Stated::default();
    let castling = Stated {
        castling: true,
        en_passant: false,
    };
    let en_passant = Stated {
        castling: false,
        en_passant: true,
    };
    assert_eq!(stated(&format!("{board}\n15\n")), none);
    assert_eq!(
        stated(&format!("{board} w kq - 0 1 ; dia7.5\n")),
        Stated::BOTH
    );
    assert_eq!(
        stated(&format!("{board} w KQkq - 0 1 ; dia7.5\n")),
        Stated::BOTH
    );
    assert_eq!(stated(&format!("{board} ; dia7.5\n")), none);
    // Popeye writes knights as S.
    let forsyth = board.replace('n', "s").replace('N', "S");
    let pop = |option: &str| {
        format!("beginproblem\nforsyth {forsyth}\nstipulation dia7.5\n{option}endproblem\n")
    };
    assert_eq!(stated(&pop("")), none);
    assert_eq!(stated(&pop("option nocastling e1\n")), castling);
    assert_eq!(stated(&pop("option enpassant d7d6d5\n")), en_passant);
    let yaml = |position: &str| format!("stipulation: \"dia7.5\"\n{position}\n");
    assert_eq!(
        stated(&yaml(&format!("fen: \"{board} w kq - 0 1\""))),
        Stated::BOTH
    );
    assert_eq!(stated(&yaml(&format!("fen: \"{board}\""))), none);
    assert_eq!(
        stated(&yaml(&format!(
            "fen: \"{board}\"\noptions: [nocastling e1]"
        ))),
        castling
    );
}

/// The one error of a one-problem file, as (kind, line, column).
fn only_error(name: &str) -> (ParseErrorKind, usize, usize) {
    let mut results = entries(name);
    assert_eq!(results.len(), 1, "{name}: {results:?}");
    let e = results.remove(0).unwrap_err();
    (e.kind, e.location.line, e.location.column)
}

const ALL_FILES: &[&str] = &[
    "yacpdb-entry.yaml",
    "collection.yaml",
    "three.pop",
    "blocks.pop",
    "problems.txt",
    "lines.fen",
    "positions.epd",
];

// ----------------------------------------------------------------- YAML ----

#[test]
fn yacpdb_entry_reads_every_field() {
    let [p] = problems("yacpdb-entry.yaml").try_into().unwrap();
    assert_eq!(p.id.as_deref(), Some("dm001"));
    assert_eq!(p.authors, ["Schöpfer, G."]);
    assert_eq!(p.source.as_deref(), Some("Neue Leipziger Zeitung, 1927"));
    assert_eq!(p.stipulation, stip("#2"));
    // Castling: king and rook on their home squares (Popeye's default).
    assert_eq!(fen(&p), "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1");
    assert_eq!(
        p.solution.as_deref(),
        Some("1.Qa7-f2! zugzwang\n1...Kc1-b1 2.Qf2-b2#\n")
    );
    assert_eq!(p.intended_solutions, None);
    assert!(p.options.is_empty());
    assert_eq!((p.origin.line, p.origin.index), (4, 0));
}

#[test]
fn yaml_collection_reads_lists_and_documents() {
    let [hm001, hm013, sm001, hm012] = problems("collection.yaml").try_into().unwrap();

    assert_eq!(hm001.authors, ["Hoitsma, A.", "Hoitsma, J."]);
    assert_eq!(hm001.source.as_deref(), Some("STERN 29/79, 12.07.1979"));
    assert_eq!(hm001.stipulation, stip("h#2"));
    assert_eq!(fen(&hm001), "B1k5/p1q5/8/6p1/7b/6p1/7B/4K2R b K - 0 1");
    assert_eq!(hm001.options, ["setplay"]);
    assert_eq!(hm001.intended_solutions, Some(1));
    assert_eq!(hm001.origin.line, 2);

    // A full FEN gives side to move, castling and en passant itself.
    assert_eq!(hm013.authors, ["Werner Kuntsche"]);
    assert_eq!(hm013.source.as_deref(), Some("Schach, 1969-05"));
    assert_eq!(
        fen(&hm013),
        "8/8/8/1pn4b/2kPpppR/2q1rB1p/1p4r1/3K4 b - d3 0 1"
    );
    assert_eq!(hm013.origin.line, 14);

    assert_eq!(sm001.authors, ["Loyd, Samuel"]);
    assert_eq!(sm001.stipulation, stip("s#1"));
    assert_eq!(fen(&sm001), "8/8/1Q6/8/krR5/bp3p1p/qr3PpP/R3K1n1 w Q - 0 1");
    assert_eq!(sm001.options, ["variations", "maxsolutions 2"]);

    // WhiteToPlay on h#4 is Popeye's h#3.5; knights may be written N.
    assert_eq!(hm012.stipulation, stip("h#3.5"));
    assert_eq!(fen(&hm012), "q3k2r/8/5p2/5N2/5K2/8/8/8 w k - 0 1");
    assert!(hm012.options.is_empty());
    assert_eq!((hm012.origin.line, hm012.origin.index), (26, 3));
}

// --------------------------------------------------------------- Popeye ----

#[test]
fn popeye_problems_joined_by_next() {
    let [dm001, hm012, hm013] = problems("three.pop").try_into().unwrap();

    assert_eq!(dm001.id.as_deref(), Some("dm001"));
    assert_eq!(dm001.authors, ["G. Schöpfer"]);
    assert_eq!(
        dm001.source.as_deref(),
        Some("Neue Leipziger Zeitung, 1927")
    );
    assert_eq!(dm001.stipulation, stip("#2"));
    assert_eq!(fen(&dm001), "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1");
    assert_eq!(dm001.options, ["variations", "threat 1"]);
    assert_eq!((dm001.origin.line, dm001.origin.index), (1, 0));

    // WhiteToPlay: White begins, one half-move fewer.
    assert_eq!(hm012.authors, ["Jozsef Szentgyörgy", "Laszlo Czako"]);
    assert_eq!(hm012.stipulation, stip("h#3.5"));
    assert_eq!(fen(&hm012), "q3k2r/8/5p2/5N2/5K2/8/8/8 w k - 0 1");
    assert_eq!(hm012.options, ["intelligent"]);
    assert_eq!((hm012.origin.line, hm012.origin.index), (10, 1));

    // Forsyth with S for knights; enpassant d2d3d4 makes d3 the e.p. square.
    assert_eq!(hm013.stipulation, stip("h#2"));
    assert_eq!(
        fen(&hm013),
        "8/8/8/1pn4b/2kPpppR/2q1rB1p/1p4r1/3K4 b - d3 0 1"
    );
    assert!(hm013.options.is_empty());
    assert_eq!((hm013.origin.line, hm013.origin.index), (18, 2));
}

#[test]
fn popeye_blocks_and_abbreviations() {
    let [first, spg] = problems("blocks.pop").try_into().unwrap();
    assert_eq!(first.id.as_deref(), Some("blocks-1"));
    assert_eq!(first.stipulation, stip("#3"));
    // `pa2b3` and `s d4e5`: one letter, several squares.
    assert_eq!(fen(&first), "6k1/ppp5/8/4N3/3N4/1P6/P7/R5K1 w - - 0 1");
    assert_eq!(first.options, ["try"]);

    assert_eq!(spg.authors, ["Klaus Kiesow"]);
    assert_eq!(spg.stipulation, Stipulation::ProofGame { plies: 7 });
    assert_eq!(
        fen(&spg),
        "rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!((spg.origin.line, spg.origin.index), (8, 1));
}

// -------------------------------------------------------------- Stelvio ----

#[test]
fn stelvio_pairs_are_proof_games() {
    let [spg010, spg019, spg021] = problems("problems.txt").try_into().unwrap();
    // Side to move from the parity; no castling rights, no e.p. square.
    assert_eq!(spg010.stipulation, Stipulation::ProofGame { plies: 5 });
    assert_eq!(
        fen(&spg010),
        "rnbqkbnr/p1pppppQ/1p6/8/4P3/8/PPPP1PPP/RNB1KBNR b - - 0 1"
    );
    assert_eq!(spg019.stipulation, Stipulation::ProofGame { plies: 6 });
    assert_eq!(
        fen(&spg019),
        "rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR w - - 0 1"
    );
    assert_eq!(spg021.stipulation, Stipulation::ProofGame { plies: 7 });
    assert_eq!(
        fen(&spg021),
        "rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1"
    );
    let lines: Vec<usize> = [&spg010, &spg019, &spg021]
        .iter()
        .map(|p| p.origin.line)
        .collect();
    assert_eq!(lines, [1, 4, 7]);
}

// ------------------------------------------------------------ FEN lines ----

#[test]
fn fen_lines_full_and_board_only() {
    let [dm001, hm001, sm001, hm012] = problems("lines.fen").try_into().unwrap();
    assert_eq!(dm001.stipulation, stip("#2"));
    assert_eq!(fen(&dm001), "8/Q7/8/8/8/8/8/2k1K2R w K - 0 1");
    assert_eq!(dm001.origin.line, 2);
    // Board only: Black begins an h#2, castling by Popeye's default.
    assert_eq!(fen(&hm001), "B1k5/p1q5/8/6p1/7b/6p1/7B/4K2R b K - 0 1");
    assert_eq!(sm001.stipulation, stip("s#1"));
    assert_eq!(
        fen(&sm001),
        "8/8/1Q6/8/krR5/bp3p1p/qr3PpP/R3K1n1 w Q - 3 40"
    );
    assert_eq!(sm001.origin.line, 5);
    assert_eq!(hm012.stipulation, stip("h#3.5"));
    assert_eq!(fen(&hm012), "q3k2r/8/5p2/5N2/5K2/8/8/8 w k - 0 1");
}

#[test]
fn epd_lines_with_stip_and_id() {
    let [hm013, sm003, kqk] = problems("positions.epd").try_into().unwrap();
    assert_eq!(hm013.id.as_deref(), Some("hm013"));
    assert_eq!(hm013.stipulation, stip("h#2"));
    assert_eq!(
        fen(&hm013),
        "8/8/8/1pn4b/2kPpppR/2q1rB1p/1p4r1/3K4 b - d3 0 1"
    );
    assert_eq!(sm003.id.as_deref(), Some("sm003"));
    assert_eq!(sm003.stipulation, stip("s#6"));
    assert_eq!(
        fen(&sm003),
        "KR2N3/4P1P1/6QB/3N1pPB/n6P/rP6/ppkPP2P/3R4 w - f6 0 1"
    );
    assert_eq!(kqk.stipulation, stip("#10"));
    assert_eq!(kqk.id, None);
    assert_eq!(kqk.origin.line, 4);
}

// ------------------------------------------------------------ writers ----

#[test]
fn every_format_round_trips_through_its_writer() {
    for p in problems("yacpdb-entry.yaml")
        .iter()
        .chain(&problems("collection.yaml"))
    {
        assert_round_trip(p, &to_yaml(p));
    }
    for p in problems("three.pop").iter().chain(&problems("blocks.pop")) {
        assert_round_trip(p, &to_popeye(p));
    }
    for p in problems("problems.txt") {
        assert_round_trip(&p, &to_stelvio(&p).unwrap());
    }
    for p in problems("lines.fen")
        .iter()
        .chain(&problems("positions.epd"))
    {
        assert_round_trip(p, &to_fenline(p));
    }
}

#[test]
fn yaml_writer_carries_every_problem() {
    for file in ALL_FILES {
        for p in problems(file) {
            assert_round_trip(&p, &to_yaml(&p));
        }
    }
}

#[test]
fn writers_write_what_their_readers_expect() {
    let [dm001, hm012, hm013] = problems("three.pop").try_into().unwrap();
    let pop = to_popeye(&dm001);
    assert!(
        pop.contains("pieces white Ke1 Qa7 Rh1 black Kc1\n"),
        "{pop}"
    );
    assert!(pop.contains("stipulation #2\n"), "{pop}");
    assert!(pop.contains("option variations threat 1\n"), "{pop}");
    assert!(to_popeye(&hm012).contains("stipulation h#3.5\n"));
    assert!(to_popeye(&hm013).contains("option enpassant d2d3d4\n"));
    assert!(
        to_yaml(&dm001).contains("stipulation: '#2'"),
        "{}",
        to_yaml(&dm001)
    );
    assert_eq!(
        to_fenline(&hm013),
        "8/8/8/1pn4b/2kPpppR/2q1rB1p/1p4r1/3K4 b - d3 0 1 ; h#2\n"
    );
    // An identifier needs EPD.
    assert_eq!(
        to_fenline(&dm001),
        "8/Q7/8/8/8/8/8/2k1K2R w K - stip \"#2\"; id \"dm001\";\n"
    );
    assert_eq!(to_stelvio(&dm001), None);
    let spg = problems("problems.txt");
    assert_eq!(
        to_stelvio(&spg[0]).unwrap(),
        "rnbqkbnr/p1pppppQ/1p6/8/4P3/8/PPPP1PPP/RNB1KBNR\n5\n"
    );
}

// ---------------------------------------------------------- bad inputs ----

#[test]
fn empty_and_binary_files() {
    assert_eq!(only_error("bad/empty.yaml"), (ParseErrorKind::Empty, 1, 1));
    assert_eq!(
        only_error("bad/garbage.png"),
        (ParseErrorKind::Binary { byte: 0x89 }, 1, 1)
    );
}

#[test]
fn unquoted_yaml_stipulation_says_to_quote_it() {
    let (kind, line, column) = only_error("bad/unquoted-stipulation.yaml");
    assert_eq!(
        (kind.clone(), line, column),
        (ParseErrorKind::StipulationIsNull, 2, 14)
    );
    assert!(kind.to_string().contains("stipulation: \"#2\""), "{kind}");
}

#[test]
fn unknown_yaml_key_is_named() {
    let e = entries("bad/unknown-key.yaml").remove(0).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnknownKey("autor".into()));
    assert_eq!((e.location.line, e.location.column), (3, 1));
    let shown = e.to_string();
    assert!(
        shown.starts_with("bad/unknown-key.yaml:3:1: unknown key \"autor\""),
        "{shown}"
    );
    assert!(shown.contains("authors"), "{shown}");
}

#[test]
fn popeye_without_endproblem() {
    assert_eq!(
        only_error("bad/unterminated.pop"),
        (
            ParseErrorKind::UnexpectedEnd("endproblem (or next) to close the problem"),
            4,
            1
        )
    );
}

#[test]
fn one_broken_popeye_problem_leaves_the_others() {
    let results = entries("bad/second-broken.pop");
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].as_ref().unwrap().stipulation, stip("#1"));
    let e = results[1].as_ref().unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!((e.location.line, e.location.column), (5, 19));
    assert_eq!(
        e.kind,
        ParseErrorKind::Syntax(
            "expected squares like e4 after piece letter q, found \"z9\"".into()
        )
    );
    let third = results[2].as_ref().unwrap();
    assert_eq!((third.origin.index, third.origin.line), (2, 8));
    assert_eq!(fen(third), "8/8/8/8/8/8/8/k1KR4 w - - 0 1");
}

#[test]
fn fairy_piece_and_condition_are_unsupported() {
    assert_eq!(
        only_error("bad/fairy-piece.pop"),
        (ParseErrorKind::Unsupported("fairy piece gr".into()), 2, 18)
    );
    assert_eq!(
        only_error("bad/condition.pop"),
        (ParseErrorKind::Unsupported("condition Circe".into()), 4, 11)
    );
}

#[test]
fn fen_with_nine_squares_in_a_rank() {
    assert_eq!(
        only_error("bad/nine-squares.fen"),
        (
            ParseErrorKind::Fen("rank 7 has more than 8 squares: expected 8".into()),
            2,
            13
        )
    );
}

#[test]
fn fen_line_with_bad_stipulation() {
    let results = entries("bad/bad-stipulation.fen");
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert_eq!((e.index, e.location.line, e.location.column), (1, 2, 35));
    assert_eq!(
        e.kind,
        ParseErrorKind::Stipulation(ParseStipulationError::Unknown("mate in 2".into()))
    );
}

#[test]
fn stelvio_count_must_be_digits() {
    let results = entries("bad/missing-count.txt");
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert_eq!((e.index, e.location.line, e.location.column), (1, 4, 1));
    assert!(matches!(e.kind, ParseErrorKind::Syntax(_)), "{e}");
}

#[test]
fn popeye_nightrider_is_not_a_knight() {
    let text = "beginproblem\npieces white ke1 nb1 black ke8\nstipulation #2\nendproblem\n";
    let e = parse("n.pop", text.as_bytes()).remove(0).unwrap_err();
    assert!(
        matches!(e.kind, ParseErrorKind::Unsupported(ref m) if m.contains("write")),
        "{e}"
    );
    assert_eq!((e.location.line, e.location.column), (2, 18));
}

#[test]
fn popeye_reads_twins_and_refuses_rule_changing_options() {
    let twin =
        "beginproblem\npieces white ke1 black ke8\nstipulation #2\ntwin move e1 e2\nendproblem\n";
    let twins: Vec<_> = parse("t.pop", twin.as_bytes())
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(twins.len(), 2);
    assert_eq!(twins[1].setup.board.to_string(), "4k3/8/8/8/8/8/4K3/8");
    assert_eq!(twins[1].twin.as_ref().unwrap().heading(), "b) wKe1-->e2");
    let duplex =
        "beginproblem\npieces white ke1 black ke8\nstipulation h#2\noption duplex\nendproblem\n";
    let e = parse("d.pop", duplex.as_bytes()).remove(0).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Unsupported("option duplex".into()));
    assert_eq!((e.location.line, e.location.column), (4, 8));
}

#[test]
fn yaml_twins_are_read_and_neutral_pieces_unsupported() {
    let twins = "stipulation: \"#2\"\nalgebraic: {white: [Kc1], black: [Ka1]}\n\
                 twins: {b: Move c1 c2, c: Continued Add white Rh8, d: Remove b2}\n";
    let results = parse("t.yaml", twins.as_bytes());
    let boards: Vec<String> = results
        .iter()
        .take(3)
        .map(|r| r.as_ref().unwrap().setup.board.to_string())
        .collect();
    assert_eq!(
        boards,
        [
            "8/8/8/8/8/8/8/k1K5",
            "8/8/8/8/8/8/2K5/k7",
            "7R/8/8/8/8/8/2K5/k7"
        ]
    );
    let e = results[3].as_ref().unwrap_err();
    assert!(e.to_string().contains("square b2 is empty"), "{e}");
    let bad =
        "stipulation: \"#2\"\nalgebraic: {white: [Kc1], black: [Ka1]}\ntwins: {b: Move c1 c2 c3}\n";
    let e = parse("t.yaml", bad.as_bytes()).remove(0).unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::Syntax(_)), "{e}");
    assert_eq!((e.location.line, e.location.column), (3, 17));
    let neutral =
        "stipulation: \"#2\"\nalgebraic:\n  white: [Kc1]\n  black: [Ka1]\n  neutral: [Pb2]\n";
    let e = parse("n.yaml", neutral.as_bytes()).remove(0).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Unsupported("neutral pieces".into()));
    assert_eq!((e.location.line, e.location.column), (5, 3));
}
