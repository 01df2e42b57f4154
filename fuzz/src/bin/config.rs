//! pipeline.yaml: the daemon's configuration parser (its own file, included
//! by path: the daemon is a binary crate), then printing the effective
//! configuration and reading it back, which must succeed.
#![allow(dead_code, unused_imports)]

#[path = "../../../daemon/src/config/mod.rs"]
mod config;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        let base = std::path::Path::new("/spool");
        if let Ok(parsed) = config::Config::from_yaml(text, "fuzz.yaml", base) {
            let printed = yaml_serde::to_string(&parsed).expect("a parsed configuration prints");
            if let Err(e) = config::Config::from_yaml(&printed, "printed", base) {
                panic!("printed configuration refused: {e:#}\n{printed}");
            }
        }
    });
}
