//! Links `cookd` as a position-dependent executable: a position-independent
//! one has its pointers in static data fixed up at every start, page by
//! page, and a one-shot `cookd solve` of a small problem spent a tenth of
//! its page faults (about 10 µs each on a virtual machine) there.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
