//! cookd's DTM tables against verified data: every 3- and 4-unit table is
//! generated once per run, its WDL compared with the Syzygy tables
//! (obtained by the test setup) and its DTM with the Gaviota test
//! positions (tests/data/endgame-dm-*.epd) and the published longest mates.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use solvers::tablebase::file::TableFile;
use solvers::tablebase::index::Layout;
use solvers::tablebase::syzygy::SyzygyTables;
use solvers::tablebase::tables::{all_materials, DtmTables, Generated};
use solvers::tablebase::{Dtm, Material, ProbeError, Wdl, WdlOracle};

struct Generation {
    dir: PathBuf,
    generated: Vec<Generated>,
}

/// All 3- and 4-unit tables, generated into a fresh folder once per run.
fn generation() -> &'static Generation {
    static ONCE: OnceLock<Generation> = OnceLock::new();
    ONCE.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dtm-tables");
        let dir = root.join(std::process::id().to_string());
        // Folders of earlier runs are stale once the generator changes.
        let _ = std::fs::remove_dir_all(&root);
        let tables = DtmTables::new(&dir);
        let mut generated = Vec::new();
        for m in all_materials(3).into_iter().chain(all_materials(4)) {
            generated.extend(tables.ensure(&m, &|_| {}).expect("generation"));
        }
        Generation { dir, generated }
    })
}

fn material(key: &str) -> Material {
    key.parse().unwrap()
}

/// Compares the WDL of every `stride`-th slot of every table with Syzygy;
/// returns how many positions were compared.
fn compare_with_syzygy(stride: u64) -> u64 {
    let g = generation();
    let (syzygy, count) = SyzygyTables::open(&common::syzygy_dir()).expect("Syzygy folder");
    assert!(
        count >= 30,
        "the complete 3-4-unit Syzygy set, found {count} files"
    );
    assert_eq!(g.generated.len(), 5 + 30, "every 3- and 4-unit table");
    let mut compared = 0;
    for table in &g.generated {
        let m = table.material;
        let layout = Layout::new(m);
        let file = TableFile::open(&g.dir.join(format!("{m}.cdtm")), &m).unwrap();
        let codes = file.read_all().unwrap();
        // Slots in parallel: Syzygy probes are the slow part.
        let (count, mismatches) = (0..layout.size().div_ceil(stride))
            .into_par_iter()
            .map(|i| i * stride)
            .filter_map(|slot| {
                let p = layout.decode(slot).filter(|p| layout.encode(p) == slot)?;
                let pos = layout.position(&p)?;
                let ours = Dtm::from_code(codes[slot as usize]).wdl();
                let theirs = syzygy.wdl(&pos).unwrap();
                Some((ours != theirs).then(|| {
                    format!(
                        "{}: ours {ours}, Syzygy {theirs}",
                        Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    )
                }))
            })
            .fold(
                || (0u64, Vec::new()),
                |(n, mut bad), mismatch| {
                    bad.extend(mismatch.into_iter().take(5));
                    (n + 1, bad)
                },
            )
            .reduce(|| (0, Vec::new()), |a, b| (a.0 + b.0, [a.1, b.1].concat()));
        compared += count;
        assert!(
            mismatches.is_empty(),
            "{m}: {} mismatches, e.g. {:#?}",
            mismatches.len(),
            &mismatches[..mismatches.len().min(5)]
        );
    }
    compared
}

#[test]
fn wdl_agrees_with_syzygy_on_a_spread_of_every_table() {
    // Every 11th slot: millions of positions, every table, every king pair.
    let compared = compare_with_syzygy(11);
    assert!(compared > 5_000_000, "{compared}");
}

/// Every position of every 3- and 4-unit table (about 150 million); a few
/// minutes on two cores.
#[test]
#[ignore = "every position of 35 tables: minutes; the default run checks every 11th slot of each"]
fn wdl_agrees_with_syzygy_everywhere() {
    compare_with_syzygy(1);
}

fn epd_cases(name: &str) -> Vec<(String, Chess, i32)> {
    let text = std::fs::read_to_string(common::data(name)).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (fen, dm) = line.split_once(" dm ").expect("an EPD with dm");
            let dm: i32 = dm.trim_end_matches(';').trim().parse().unwrap();
            let fen = format!("{} 0 1", fen.trim());
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            (fen, pos, dm)
        })
        .collect()
}

#[test]
fn dtm_agrees_with_the_gaviota_test_positions() {
    let tables = DtmTables::new(&generation().dir);
    let cases = epd_cases("endgame-dm-4.epd");
    assert!(cases.len() >= 45);
    for (fen, pos, dm) in cases {
        let dtm = tables.try_probe(&pos).unwrap();
        assert_eq!(dtm.moves(), dm, "{fen}: {dtm}");
    }
}

/// The five-unit Gaviota test positions whose tables are in the folder
/// `COOKD_DTM5_DIR` names (made with `cookd tb generate KBNvKB ...`; each
/// five-unit table takes minutes, too long for every run).
#[test]
#[ignore = "needs five-unit tables in COOKD_DTM5_DIR"]
fn dtm_agrees_with_the_gaviota_five_unit_positions() {
    let dir = std::env::var_os("COOKD_DTM5_DIR").expect("COOKD_DTM5_DIR");
    let tables = DtmTables::new(Path::new(&dir));
    let mut checked = 0;
    for (fen, pos, dm) in epd_cases("endgame-dm-5.epd") {
        match tables.try_probe(&pos) {
            Ok(dtm) => {
                assert_eq!(dtm.moves(), dm, "{fen}: {dtm}");
                checked += 1;
            }
            Err(ProbeError::MissingTable { .. }) => {}
            Err(e) => panic!("{fen}: {e}"),
        }
    }
    assert!(checked > 0, "no table in {dir:?} holds a test position");
    eprintln!("{checked} five-unit positions agree");
}

#[test]
fn longest_mates_are_the_published_ones() {
    let longest = |key: &str| {
        generation()
            .generated
            .iter()
            .find(|g| g.material == material(key))
            .unwrap()
            .longest_win
    };
    // In moves: KQK 10, KRK 16, KBBK 19, KBNK 33, KQKR 35, KRKN 40.
    for (key, moves) in [
        ("KQvK", 10),
        ("KRvK", 16),
        ("KBBvK", 19),
        ("KBNvK", 33),
        ("KQvKR", 35),
        ("KRvKN", 40),
    ] {
        assert_eq!(longest(key), 2 * moves - 1, "{key}");
    }
    // Two knights cannot force mate; the longest "win" is a mate in one.
    assert_eq!(longest("KNNvK"), 1);
}

#[test]
fn best_moves_keep_the_value() {
    let tables = DtmTables::new(&generation().dir);
    // KRK, mate in 16: every best move leads to a mate in 15 for White.
    let pos: Chess = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let best = tables.best_moves(&pos).unwrap();
    assert!(!best.is_empty());
    for (m, v) in &best {
        assert_eq!(*v, Dtm::Win(31), "{m}");
        let child = shakmaty::Position::play(pos.clone(), *m).unwrap();
        assert_eq!(tables.try_probe(&child).unwrap(), Dtm::Loss(30));
    }
    assert_eq!(tables.wdl(&pos).unwrap(), Wdl::Win);
}

#[test]
fn corrupt_truncated_and_missing_tables_are_reported() {
    let g = generation();
    let scratch = g.dir.with_file_name("scratch");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let original = std::fs::read(g.dir.join("KRvK.cdtm")).unwrap();
    let pos: Chess = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1"
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let tables = DtmTables::new(&scratch);

    // Missing: says which material.
    match tables.try_probe(&pos) {
        Err(ProbeError::MissingTable { material: m, .. }) => assert_eq!(m, material("KRvK")),
        other => panic!("{other:?}"),
    }

    // A flipped byte in the data: the block checksum catches it.
    let mut bad = original.clone();
    let last = bad.len() - 10;
    bad[last] ^= 0x40;
    std::fs::write(scratch.join("KRvK.cdtm"), &bad).unwrap();
    let err = TableFile::open(&scratch.join("KRvK.cdtm"), &material("KRvK"))
        .unwrap()
        .read_all()
        .unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");

    // Truncated: the header's length check refuses to open it.
    std::fs::write(scratch.join("KRvK.cdtm"), &original[..original.len() - 1]).unwrap();
    let tables = DtmTables::new(&scratch);
    match tables.try_probe(&pos) {
        Err(ProbeError::Failed { error, .. }) => assert!(error.contains("corrupt"), "{error}"),
        other => panic!("{other:?}"),
    }

    // A flipped header byte.
    let mut bad = original.clone();
    bad[30] ^= 1;
    std::fs::write(scratch.join("KRvK.cdtm"), &bad).unwrap();
    assert!(TableFile::open(&scratch.join("KRvK.cdtm"), &material("KRvK")).is_err());
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// KRPKR's rule that reads the KRvKR table: with the generated tables at
/// hand it claims the draw of a pawn taken with the kings three steps
/// apart (the KRPvKR table's value; the rule without the table claims
/// nothing there), and keeps out a position where the side without the
/// pawn wins by 1...Rb8 (kings two steps apart: the guard).
#[test]
fn krpkr_reads_the_rook_ending_table_where_it_is_at_hand() {
    use solvers::recognizer::Registry;
    let g = generation();
    let with = Registry::with_tables(std::sync::Arc::new(DtmTables::new(&g.dir)));
    let without = Registry::new();
    let recognize = |registry: &Registry, fen: &str| {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        registry.by_name("krpkr").unwrap().recognize(&pos)
    };
    let taken = "7r/8/8/1Pk5/8/8/3K4/R7 b - - 0 1";
    assert_eq!(recognize(&with, taken), Some(Wdl::Draw));
    assert_eq!(recognize(&without, taken), None);
    // Colours reversed: the same.
    let reversed = "r7/3k4/8/8/1pK5/8/8/7R w - - 0 1";
    assert_eq!(recognize(&with, reversed), Some(Wdl::Draw));
    let wins = "2r5/8/8/8/1KPk4/R7/8/8 b - - 0 1";
    assert_eq!(recognize(&with, wins), None);
}
