//! A problem file as the daemon reads it: size and encoding checks, format
//! detection, then the detected format's parser.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        let _ = solvers::problem::parse("fuzz.txt", data);
    });
}
