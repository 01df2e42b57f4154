//! The popeye parser on any text, whatever format detection would say, so
//! that its paths are reached from every input.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        if let Ok(text) = std::str::from_utf8(data) {
            let _ = solvers::problem::popeye::parse("fuzz", text);
        }
    });
}
