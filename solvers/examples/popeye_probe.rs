//! Reads every `.inp` file under the given folders (Popeye's own BEISPIEL/
//! and EXAMPLES/) and tallies what cookd makes of them: problems and twins
//! read, and the reasons for those refused. A tool for the figures,
//! not a test.
use std::collections::BTreeMap;

fn main() {
    let mut files = 0;
    let mut ok = 0;
    let mut twins = 0;
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut dirs: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    while let Some(dir) = dirs.pop() {
        let paths: Vec<std::path::PathBuf> = if dir.is_dir() {
            let entries = std::fs::read_dir(&dir).expect("a folder");
            entries.map(|e| e.expect("an entry").path()).collect()
        } else {
            vec![dir]
        };
        for path in paths {
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "inp") {
                continue;
            }
            files += 1;
            let bytes = std::fs::read(&path).expect("readable");
            let name = path.display().to_string();
            for result in solvers::parse(&name, &bytes) {
                match result {
                    Ok(problem) => {
                        ok += 1;
                        if problem.twin.is_some() {
                            twins += 1;
                        }
                        if std::env::var_os("SHOW_OK").is_some() {
                            println!("OK {name} {} {}", problem.origin.entry, problem.stipulation);
                        }
                    }
                    Err(e) => {
                        let kind = e.kind.to_string();
                        let reason: String = match &e.kind {
                            solvers::problem::ParseErrorKind::Unsupported(what) => {
                                format!(
                                    "unsupported: {}",
                                    what.split_whitespace()
                                        .take(2)
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                )
                            }
                            _ => kind.chars().take(60).collect(),
                        };
                        if std::env::var_os("SHOW_ERR").is_some() {
                            println!("ERR {e}");
                        }
                        *reasons.entry(reason).or_default() += 1;
                    }
                }
            }
        }
    }
    println!("files {files}, problems read {ok} (of which twins {twins})");
    for (reason, n) in reasons {
        println!("{n:5} {reason}");
    }
}
