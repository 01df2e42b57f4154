//! The Popeye parser's tests (a module of their own: the parser is long).

use super::*;

/// Found by fuzzing (AFL, 474,712 executions into the run after the
/// languages and twins came in): a piece token with a non-ASCII letter
/// (`K5/I\u{c0}`) panicked; it must be refused as an error.
#[test]
fn fuzz_found_non_ascii_piece_token_is_an_error() {
    let text = "Begi  DcpvlKiAfjogYohancj\nAuthor    Dj\nOrigin   f0726\nPieces White Kf1 Rf6 Rh1 Black K5/I\u{c0}\nNjyyxpqY '9\nLegz\nAuthor    Xcubk\tTszxn\nRigjro    OJCJnfbw Vf9 Wd8 Xf9 Kff8\nIrszkgesnfuhlp !6\nBeginProblem\nAuthor    Fj\nOrigin    Ufodbu-Bhpjyrdt,Ktuitdz- GH/1479\nPieces Whit";
    let results = parse("fuzz", text);
    assert!(results.iter().any(Result::is_err), "{results:?}");
}

fn words(text: &str) -> Vec<(String, usize, usize)> {
    let mut lexer = Lexer::new(text);
    std::iter::from_fn(|| lexer.next_word())
        .map(|w| (w.text.to_owned(), w.at.line, w.at.column))
        .collect()
}

#[test]
fn lexer_tracks_lines_and_columns() {
    let found = words("begin\n  pieces  white ka1\r\nend");
    let expected = [
        ("begin", 1, 1),
        ("pieces", 2, 3),
        ("white", 2, 11),
        ("ka1", 2, 17),
        ("end", 3, 1),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(t, l, c)| (t.to_string(), *l, *c))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn keywords_abbreviate_to_any_unambiguous_prefix() {
    let en = &ENGLISH;
    assert_eq!(en.keyword("STIP"), Lookup::Found(Keyword::Stipulation));
    assert_eq!(en.keyword("begi"), Lookup::Found(Keyword::BeginProblem));
    // Popeye reads `st` as stipulation (sstipulation starts with ss).
    assert_eq!(en.keyword("st"), Lookup::Found(Keyword::Stipulation));
    assert_eq!(en.keyword("latex"), Lookup::Found(Keyword::LaTeX));
    assert!(matches!(en.keyword("lat"), Lookup::Ambiguous(_)));
    // The diagram's commands are looked up first: `t` is title, not twin.
    assert_eq!(en.keyword("t"), Lookup::Found(Keyword::Title));
    assert_eq!(en.keyword("tw"), Lookup::Found(Keyword::Twin));
    assert_eq!(en.keyword("quelle"), Lookup::NotFound);
    assert_eq!(
        lookup(en.option_table(), "whi"),
        Lookup::Found(WHITE_TO_PLAY)
    );
    let de = &GERMAN;
    assert_eq!(de.keyword("anfa"), Lookup::Found(Keyword::BeginProblem));
    assert_eq!(de.keyword("quel"), Lookup::Found(Keyword::Origin));
    assert_eq!(de.keyword("ford"), Lookup::Found(Keyword::Stipulation));
    assert_eq!(de.keyword("stei"), Lookup::Found(Keyword::Pieces));
    assert_eq!(de.keyword("weiter"), Lookup::Found(Keyword::NextProblem));
    assert_eq!(de.keyword("ende"), Lookup::Found(Keyword::EndProblem));
    assert_eq!(de.keyword("zwilling"), Lookup::Found(Keyword::Twin));
    // `auto` fits Autor only; `au` fits Autor and Auszeichnung.
    assert_eq!(de.keyword("auto"), Lookup::Found(Keyword::Author));
    assert!(matches!(de.keyword("au"), Lookup::Ambiguous(_)));
    let vari = lookup(de.option_table(), "vari");
    assert!(matches!(vari, Lookup::Found(spec) if spec == SPECS[3]));
    let fr = &FRENCH;
    assert_eq!(fr.keyword("enonce"), Lookup::Found(Keyword::Stipulation));
    assert_eq!(fr.keyword("asuivre"), Lookup::Found(Keyword::NextProblem));
    assert_eq!(Language::of_begin("debut"), Some(&FRENCH));
    assert_eq!(Language::of_begin("anf"), Some(&GERMAN));
    assert_eq!(Language::of_begin("an"), None);
}

#[test]
fn piece_words_follow_popeye() {
    let en = &ENGLISH;
    assert_eq!(
        piece_word("pa2b3", en, false),
        PieceWord::Pieces {
            walk: "p",
            squares: vec![Square::A2, Square::B3]
        }
    );
    assert_eq!(
        piece_word("gra1", en, false),
        PieceWord::Pieces {
            walk: "gr",
            squares: vec![Square::A1]
        }
    );
    assert_eq!(piece_word("S", en, true), PieceWord::Walk("S"));
    assert_eq!(piece_word("Kz9", en, false), PieceWord::Other);
    assert_eq!(
        piece_word("bla", en, false),
        PieceWord::Colour(Colour::Black)
    );
    assert_eq!(
        piece_word("wh", en, false),
        PieceWord::Colour(Colour::White)
    );
    // A lone letter before squares is a piece, though it abbreviates black.
    assert_eq!(piece_word("b", en, true), PieceWord::Walk("b"));
    assert_eq!(piece_word("b", en, false), PieceWord::Colour(Colour::Black));
    assert_eq!(
        piece_word("schw", &GERMAN, false),
        PieceWord::Colour(Colour::Black)
    );
    assert_eq!(piece_word("stipulation", en, false), PieceWord::Other);
    assert_eq!(popeye_role("t", &GERMAN), Ok(Role::Rook));
    assert_eq!(popeye_role("c", &FRENCH), Ok(Role::Knight));
    assert!(
        popeye_role("s", &FRENCH).is_err(),
        "French s is the grasshopper"
    );
}

#[test]
fn forsyth_reads_popeye_notation() {
    let en = &ENGLISH;
    let board = parse_forsyth("8/8/8/8/8/8/8/K1k5", en).unwrap();
    assert_eq!(board.to_string(), "8/8/8/8/8/8/8/K1k5");
    let board = parse_forsyth("16s15+k", en).unwrap();
    assert_eq!(
        board.piece_at(Square::A6),
        Some(Role::Knight.of(Color::Black))
    );
    assert_eq!(
        board.piece_at(Square::A4),
        Some(Role::King.of(Color::White))
    );
    // Digits run across ranks and `/` only marks them: ranks may be short.
    let board = parse_forsyth("56/BK4bk/", en).unwrap();
    assert_eq!(board.to_string(), "8/8/8/8/8/8/8/BK4bk");
    let board = parse_forsyth("s7/16/+k", en).unwrap();
    assert_eq!(
        board.piece_at(Square::A5),
        Some(Role::King.of(Color::White))
    );
    assert!(matches!(
        parse_forsyth("n7", en).unwrap_err().1,
        ParseErrorKind::Unsupported(_)
    ));
    // German letters in a German file.
    let board = parse_forsyth("k7/8/8/8/8/8/8/T3K3", &GERMAN).unwrap();
    assert_eq!(board.to_string(), "k7/8/8/8/8/8/8/R3K3");
    // Squares skipped past h1 are harmless, a piece there is not.
    assert!(parse_forsyth("9/8/8/8/8/8/8/8", en).is_ok());
    assert_eq!(parse_forsyth("64K", en).unwrap_err().0, 2);
}

#[test]
fn options_apply_popeye_rules() {
    let mut words = TextWords::new("nocastling a1e8 enpassant d7d6d5 var maxsol 2");
    let mut rules = Rules::default();
    let at = Location { line: 1, column: 1 };
    while let Some(effect) = read_option(&mut words, &ENGLISH).unwrap() {
        rules.add(effect, at);
    }
    assert_eq!(
        rules.kept,
        vec!["variations".to_owned(), "maxsolutions 2".to_owned()]
    );
    assert_eq!(
        rules.no_castling,
        Bitboard::from(Square::A1) | Square::A8 | Square::H8
    );
    assert_eq!(rules.ep_square, Some(Square::D6));
    let mut words = TextWords::new("enpassant d5");
    assert!(read_option(&mut words, &ENGLISH).is_err());
}

#[test]
fn white_to_play_shortens_helpmates() {
    let rules = Rules {
        white_to_play: Some(Location { line: 1, column: 1 }),
        ..Rules::default()
    };
    let h2: Stipulation = "h#2".parse().unwrap();
    assert_eq!(rules.stipulation(h2).unwrap(), "h#1.5".parse().unwrap());
    assert!(rules.stipulation("h#2.5".parse().unwrap()).is_err());
}

fn read_all(text: &str) -> Vec<Result<Problem, ParseError>> {
    crate::problem::parse("t.inp", text.as_bytes())
}

fn fen(problem: &Problem) -> String {
    problem.setup.board.to_string()
}

#[test]
fn german_and_french_input_read_as_english() {
    let english = "beginproblem\nauthor A. B.\npieces white ke1 qd1 rh1 bc1 sb1 pa2 black ke8\nstipulation #2\noption variations\nendproblem\n";
    let german =
        "anfa\nauto A. B.\nstei weis ke1 dd1 th1 lc1 sb1 ba2 schw ke8\nford #2\nopti vari\nende\n";
    let french = "debutprobleme\nauteur A. B.\npieces blanc re1 dd1 th1 fc1 cb1 pa2 noir re8\nenonce #2\noption variantes\nfinprobleme\n";
    let read = |text: &str| read_all(text).remove(0).unwrap();
    let reference = read(english);
    for text in [german, french] {
        let problem = read(text);
        assert_eq!(fen(&problem), fen(&reference), "{text}");
        assert_eq!(problem.stipulation, reference.stipulation);
        assert_eq!(problem.options, vec!["variations".to_owned()]);
        assert_eq!(problem.authors, reference.authors);
        // Writers keep English.
        assert!(to_popeye(&problem).starts_with("beginproblem\n"));
    }
    // `pieces wh kc6 sc5 pa6`: colours abbreviate too.
    let short = read("begin\npieces wh kc6 sc5 pa6 bl ka8\nstip #1\nend\n");
    assert_eq!(fen(&short), "k7/8/P1K5/2N5/8/8/8/8");
    // A German file's English keyword is an error naming the language.
    let mixed = read_all("anfangproblem\npieces white ke1\nende\n").remove(0);
    let message = mixed.unwrap_err().to_string();
    assert!(message.contains("German keywords"), "{message}");
}

#[test]
fn latin1_files_are_read() {
    let mut bytes = b"anfangproblem\nautor Torsten Lin".to_vec();
    bytes.push(0xe9); // é in Latin-1
    bytes.extend_from_slice(b"\nforderung #1\nsteine weiss kc1 tb8 schwarz ka1\nende\n");
    let problem = crate::problem::parse("latin1.inp", &bytes)
        .remove(0)
        .unwrap();
    assert_eq!(problem.authors, vec!["Torsten Lin\u{e9}".to_owned()]);
}

#[test]
fn twins_derive_from_the_diagram_or_the_twin_before() {
    let text = "anfangproblem\nforderung h#2\nsteine weiss kc1 tb4 sd3 schwarz ka3 da6 ba4\n\
                zwilling versetze c1 c2\nzwilling ferner tausche b4 d3\n\
                zwilling hinzufuegen schwarz ta6\nzwilling entferne a4 forderung h#1\n\
                zwilling drehung 90\nzwilling spiegelung a1<-->h1\n\
                zwilling verschiebung a3 b3\nzwilling farbwechsel\nzwilling ersetze t l\nende\n";
    let problems: Vec<Problem> = read_all(text).into_iter().map(Result::unwrap).collect();
    let twins: Vec<(String, String, String)> = problems
        .iter()
        .map(|p| {
            let twin = p.twin.clone().unwrap();
            (twin.heading(), fen(p), p.stipulation.to_string())
        })
        .collect();
    let expected = [
        ("a) diagram", "8/8/q7/8/pR6/k2N4/8/2K5", "h#2"),
        ("b) wKc1-->c2", "8/8/q7/8/pR6/k2N4/2K5/8", "h#2"),
        // Continued: on b), the knight and rook swap.
        ("+c) wRb4<-->wSd3", "8/8/q7/8/pN6/k2R4/2K5/8", "h#2"),
        // `add` replaces the queen: Popeye overwrites.
        ("d) +bRa6", "8/8/r7/8/pR6/k2N4/8/2K5", "h#2"),
        ("e) -bPa4 h#1", "8/8/q7/8/1R6/k2N4/8/2K5", "h#1"),
        // Popeye's rotation by 90 takes a1 to h1 and h1 to h8 (c1 to h3).
        ("f) rotate 90", "8/8/8/8/5N2/7K/4R3/2q1pk2", "h#2"),
        ("g) mirror a1<-->h1", "8/8/7q/8/6Rp/4N2k/8/5K2", "h#2"),
        ("h) shift a3 b3", "8/8/1q6/8/1pR5/1k2N3/8/3K4", "h#2"),
        ("i) PolishType", "8/8/Q7/8/Pr6/K2n4/8/2k5", "h#2"),
        ("j) R ==> B", "8/8/q7/8/pB6/k2N4/8/2K5", "h#2"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(h, f, s)| (h.to_string(), f.to_string(), s.to_string()))
        .collect();
    assert_eq!(twins, expected);
    assert!(problems.iter().all(|p| p.origin.entry == 0));
    let indices: Vec<usize> = problems.iter().map(|p| p.origin.index).collect();
    assert_eq!(indices, (0..10).collect::<Vec<_>>());
}

#[test]
fn twin_faults_are_placed_and_fairy_twins_refused() {
    let text = "beginproblem\nstipulation #2\npieces white kc1 rb4 black ka3\n\
                twin move d5 d6\ntwin condition circe\ntwin substitute r g\nendproblem\n\
                beginproblem\nstipulation #2\npieces white kc1 black ka3\nendproblem\n";
    let results = read_all(text);
    assert_eq!(results.len(), 5);
    assert!(results[0].is_ok());
    let error = |i: usize| results[i].clone().unwrap_err();
    assert_eq!(error(1).location, Location { line: 4, column: 6 });
    assert!(
        error(1).kind.to_string().contains("d5 is empty"),
        "{}",
        error(1)
    );
    assert_eq!(
        error(2).kind,
        ParseErrorKind::Unsupported("twin by condition circe".into())
    );
    assert_eq!(
        error(2).location,
        Location {
            line: 5,
            column: 16
        }
    );
    assert_eq!(
        error(3).kind,
        ParseErrorKind::Unsupported("fairy piece g".into())
    );
    let next = results[4].clone().unwrap();
    assert_eq!(
        (next.origin.entry, next.origin.index, next.twin),
        (1, 4, None)
    );
}

#[test]
fn zero_position_is_not_a_twin() {
    let text = "beginproblem\nstipulation #2\npieces white kc1 rb4 black ka3\n\
                zeroposition move b4 b5\ntwin move b4 b6\nendproblem\n";
    let problems: Vec<Problem> = read_all(text).into_iter().map(Result::unwrap).collect();
    let headings: Vec<String> = problems
        .iter()
        .map(|p| p.twin.clone().unwrap().heading())
        .collect();
    assert_eq!(headings, ["a) wRb4-->b5", "b) wRb4-->b6"]);
}

#[test]
fn an_unknown_condition_does_not_end_the_problem_early() {
    // `n` abbreviates `nextproblem`, but here it is the condition's argument.
    let text = "beginproblem\nforsyth 8/8/8/8/8/8/8/K1k5\nstip h#4\ncond vault n\n\nnext\n\
                forsyth 56/BK4bk/\nstip h#2\nend\n";
    let results = read_all(text);
    assert_eq!(results.len(), 2);
    assert!(matches!(
        results[0].clone().unwrap_err().kind,
        ParseErrorKind::Unsupported(_)
    ));
    assert_eq!(fen(results[1].as_ref().unwrap()), "8/8/8/8/8/8/8/BK4bk");
}
