//! Generates the empty-board distance tables the helpmate tests read
//! (`src/mate/tablegen.rs`) into the build's output folder, from where
//! the library includes them: a one-shot solve then pays nothing to
//! build them.

#[path = "src/mate/tablegen.rs"]
mod tablegen;

fn main() {
    println!("cargo::rerun-if-changed=src/mate/tablegen.rs");
    let dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let path = std::path::Path::new(&dir).join("distances.bin");
    std::fs::write(&path, tablegen::bytes()).expect("writing the distance tables");
}
