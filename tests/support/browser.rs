//! Headless Chromium for the tests that look at pages (the HTML cook report
//! in daemon/src/mail.rs, the web view in tests/web.rs), and the pixel
//! checks of a diagram in a screenshot. Included by path from both.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use resvg::tiny_skia::Pixmap;

/// Debian's `chromium`, when installed. CI installs it and sets
/// `COOKD_REQUIRE_CHROMIUM`, so there a missing browser is a failure;
/// elsewhere the test says why it did nothing.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file());
    if found.is_none() && std::env::var_os("COOKD_REQUIRE_CHROMIUM").is_some() {
        panic!("COOKD_REQUIRE_CHROMIUM is set but no chromium is on PATH");
    }
    found
}

/// Chromium, headless, on `url` with `extra` flags, a profile in `profile`
/// (so that runs share no cache) and a window of `size`; its stdout.
pub fn headless(
    chromium: &Path,
    profile: &Path,
    size: (u32, u32),
    extra: &[&str],
    url: &str,
) -> Vec<u8> {
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--window-size={},{}", size.0, size.1))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    output.stdout
}

pub fn rgb(pixmap: &Pixmap, x: u32, y: u32) -> [u8; 3] {
    let p = pixmap.pixel(x, y).unwrap();
    [p.red(), p.green(), p.blue()]
}

pub fn is_black(c: [u8; 3]) -> bool {
    c.iter().all(|&c| c < 0x40)
}

/// Colours equal but for rounding.
pub fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(&a, b)| a.abs_diff(b) <= 4)
}

/// The top-left corner of the first board frame in a screenshot of a
/// diagram at scale 1: the first run of 380 black pixels (the frame is
/// 8 × 48 + 4 wide).
pub fn board_frame(pixmap: &Pixmap) -> Option<(u32, u32)> {
    (0..pixmap.height()).find_map(|y| {
        let mut run = 0;
        (0..pixmap.width()).find_map(|x| {
            run = if is_black(rgb(pixmap, x, y)) {
                run + 1
            } else {
                0
            };
            (run == 380).then(|| (x + 1 - run, y))
        })
    })
}

/// Black pixels within 18 px of `(x, y)`: a piece's outline on a square
/// whose centre that is (an empty square has none).
pub fn black_around(pixmap: &Pixmap, (x, y): (u32, u32)) -> usize {
    (y - 18..y + 18)
        .flat_map(|y| (x - 18..x + 18).map(move |x| (x, y)))
        .filter(|&(x, y)| is_black(rgb(pixmap, x, y)))
        .count()
}
