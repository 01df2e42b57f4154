//! The Syzygy bridge answers like the published tables: values checked on
//! positions whose outcome is textbook knowledge.

mod common;

use solvers::tablebase::syzygy::SyzygyTables;
use solvers::tablebase::{ProbeError, Wdl, WdlOracle};

use solvers::testing::position;

#[test]
fn syzygy_values_of_textbook_positions() {
    let (tables, count) = SyzygyTables::open(&common::syzygy_dir()).unwrap();
    assert_eq!(
        count, 70,
        "the complete 3-4-piece set has 35 WDL and 35 DTZ files"
    );
    assert_eq!(tables.max_pieces(), 4);
    let cases = [
        // KQ v K, White to move: a win; Black to move: a loss.
        ("8/8/8/4k3/8/8/8/3QK3 w - - 0 1", Wdl::Win),
        ("8/8/8/4k3/8/8/8/3QK3 b - - 0 1", Wdl::Loss),
        // A lone bishop or knight cannot win.
        ("8/8/8/4k3/8/8/8/3BK3 w - - 0 1", Wdl::Draw),
        ("8/8/8/4k3/8/8/8/3NK3 b - - 0 1", Wdl::Draw),
        // KBN v K is won (the DTZ example of shakmaty-syzygy's docs).
        ("8/8/8/8/B7/N7/K2k4/8 b - - 0 1", Wdl::Loss),
        // KP v K with the defending king in front of a rook pawn: a draw.
        ("k7/8/8/8/8/8/P7/K7 w - - 0 1", Wdl::Draw),
        // KQ v KR is won for the queen's side.
        ("8/8/8/3k4/8/8/3r4/KQ6 w - - 0 1", Wdl::Win),
    ];
    for (fen, expected) in cases {
        assert_eq!(tables.wdl(&position(fen)).unwrap(), expected, "{fen}");
    }
}

#[test]
fn syzygy_refuses_what_it_cannot_answer() {
    let (tables, _) = SyzygyTables::open(&common::syzygy_dir()).unwrap();
    let five = position("8/8/8/3k4/8/8/2rr4/KQQ5 w - - 0 1");
    assert!(matches!(
        tables.wdl(&five),
        Err(ProbeError::Unsupported { .. } | ProbeError::MissingTable { .. })
    ));
    let castling = position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert!(matches!(
        tables.wdl(&castling),
        Err(ProbeError::Unsupported { .. })
    ));
}

#[test]
fn missing_folder_is_an_error() {
    let error = SyzygyTables::open(std::path::Path::new("/nonexistent/syzygy")).unwrap_err();
    assert!(error.to_string().contains("/nonexistent/syzygy"), "{error}");
}
