//! Problem diagrams: the board as SVG in the usual problem-diagram look, and
//! a PNG rendering of it for mail (many mail clients block SVG).
//!
//! Everything is drawn as paths: the pieces (simple shapes of cookd's own
//! drawing, Staunton-like silhouettes) and the caption under the board (the
//! stipulation on the left, the material count such as `(3+2)` on the
//! right, in a small stroke font). The SVG therefore looks the same in every
//! browser and in the rasteriser, which is built without text support (no
//! fonts to find or ship).

use std::fmt::Write;

use anyhow::{Context, Result};
use shakmaty::fen::Fen;
use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

use solvers::verdict::Verdict;

/// Side of a square, in SVG user units (pixels at scale 1).
const SQUARE: f32 = 48.0;
/// Space around the board's frame.
pub const MARGIN: f32 = 10.0;
/// Height of the caption row under the board.
const CAPTION: f32 = 34.0;
/// Width of the board's frame line.
const FRAME: f32 = 2.0;

/// Square colours: light squares nearly white, dark squares a mid grey (the
/// printed diagram's hatching, as a flat tone that survives scaling).
pub const LIGHT: [u8; 3] = [0xf4, 0xf4, 0xf4];
pub const DARK: [u8; 3] = [0xb4, 0xb4, 0xb4];

/// Width and height of the diagram, in SVG user units.
pub fn size() -> (f32, f32) {
    let board = 8.0 * SQUARE + 2.0 * FRAME;
    (board + 2.0 * MARGIN, board + 2.0 * MARGIN + CAPTION)
}

/// The pixel at the centre of `square` in the PNG rendered at `scale`:
/// where a test (or a screenshot check) finds the square's colour or piece.
#[cfg(test)]
pub fn square_centre(square: Square, scale: f32) -> (u32, u32) {
    let (x, y) = square_origin(square);
    (
        ((x + SQUARE / 2.0) * scale) as u32,
        ((y + SQUARE / 2.0) * scale) as u32,
    )
}

/// Top-left corner of `square`, White at the bottom.
fn square_origin(square: Square) -> (f32, f32) {
    let file = u32::from(square.file()) as f32;
    let rank = 7.0 - u32::from(square.rank()) as f32;
    (
        MARGIN + FRAME + file * SQUARE,
        MARGIN + FRAME + rank * SQUARE,
    )
}

fn hex(rgb: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

/// The diagram of `board` with `stipulation` (as written in the verdict,
/// e.g. `#2`, `h#2.5`, `SPG 12`) and the material count under it.
pub fn svg(board: &Board, stipulation: &str) -> String {
    let (width, height) = size();
    let white = board.by_color(Color::White).count();
    let black = board.by_color(Color::Black).count();
    let count = format!("({white}+{black})");
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\">\n<title>{} {count}</title>\n",
        escape(stipulation)
    );
    let _ = writeln!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );
    // The board: light squares as one rectangle, the dark ones over it.
    let side = 8.0 * SQUARE;
    let inner = MARGIN + FRAME;
    let _ = writeln!(
        out,
        "<rect x=\"{inner}\" y=\"{inner}\" width=\"{side}\" height=\"{side}\" fill=\"{}\"/>",
        hex(LIGHT)
    );
    let mut dark = String::new();
    for square in Square::ALL {
        if square.is_dark() {
            let (x, y) = square_origin(square);
            let _ = write!(dark, "M{x} {y}h{SQUARE}v{SQUARE}h-{SQUARE}z");
        }
    }
    let _ = writeln!(out, "<path d=\"{dark}\" fill=\"{}\"/>", hex(DARK));
    let frame = MARGIN + FRAME / 2.0;
    let _ = writeln!(
        out,
        "<rect x=\"{frame}\" y=\"{frame}\" width=\"{}\" height=\"{}\" fill=\"none\" \
         stroke=\"#000000\" stroke-width=\"{FRAME}\"/>",
        side + FRAME,
        side + FRAME
    );
    for rank in Rank::ALL.into_iter().rev() {
        for file in File::ALL {
            let square = Square::from_coords(file, rank);
            if let Some(piece) = board.piece_at(square) {
                let (x, y) = square_origin(square);
                piece_svg(&mut out, piece, x, y);
            }
        }
    }
    // The caption: stipulation left, material count right, as in print.
    let baseline = MARGIN + 2.0 * FRAME + side + 8.0;
    caption(&mut out, stipulation, MARGIN + 2.0, baseline, Align::Left);
    caption(
        &mut out,
        &count,
        width - MARGIN - 2.0,
        baseline,
        Align::Right,
    );
    out.push_str("</svg>\n");
    out
}

/// The diagram of a verdict's position, when it has one.
pub fn of_verdict(v: &Verdict) -> Option<String> {
    let board = v.fen.as_deref()?.parse::<Fen>().ok()?.into_setup().board;
    Some(svg(&board, v.stipulation.as_deref().unwrap_or("")))
}

/// Text for inside SVG or HTML: the five characters that could open markup
/// or end an attribute, escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The PNG of an SVG diagram at `scale` (1.0: one pixel per user unit).
pub fn png(svg: &str, scale: f32) -> Result<Vec<u8>> {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .context("diagram SVG not readable")?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .context("diagram size out of range")?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .context("diagram size out of range")?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().context("encoding the diagram as PNG")
}

/// One piece on the square whose top-left corner is (`x`, `y`). The shapes
/// are drawn in a 100×100 box: the outline in black, white pieces filled
/// white, black pieces filled black with their inner lines in white.
fn piece_svg(out: &mut String, piece: Piece, x: f32, y: f32) {
    let (fill, detail) = match piece.color {
        Color::White => ("#ffffff", "#000000"),
        Color::Black => ("#000000", "#ffffff"),
    };
    let (body, lines) = shape(piece.role);
    // The shapes span about 84 units; at 1.1 they fill the square as
    // printed pieces do, centred on the box's (50, 48).
    let scale = SQUARE / 100.0 * 1.1;
    let (x, y) = (
        x + SQUARE / 2.0 - 50.0 * scale,
        y + SQUARE / 2.0 - 48.0 * scale,
    );
    let _ = writeln!(
        out,
        "<g transform=\"translate({x} {y}) scale({scale})\" stroke-linejoin=\"round\" \
         stroke-linecap=\"round\"><path d=\"{body}\" fill=\"{fill}\" stroke=\"#000000\" \
         stroke-width=\"4\"/><path d=\"{lines}\" fill=\"none\" stroke=\"{detail}\" \
         stroke-width=\"3\"/></g>"
    );
}

/// The base every piece stands on.
const BASE: &str = "M22 78h56a3 3 0 0 1 3 3v6a3 3 0 0 1-3 3H22a3 3 0 0 1-3-3v-6a3 3 0 0 1 3-3z";

/// A piece's silhouette (closed subpaths, filled) and its inner lines.
fn shape(role: Role) -> (String, &'static str) {
    let (body, lines) = match role {
        Role::Pawn => (
            "M50 18a12 12 0 1 1 0 24a12 12 0 1 1 0-24z\
             M42 42h16c0 10 8 22 12 36H30c4-14 12-26 12-36z",
            "M33 78h34",
        ),
        Role::Rook => (
            "M26 18h10v7h9v-7h10v7h9v-7h10v22h-48z\
             M31 40h38l3 38H28z",
            "M31 40h38M29 72h42",
        ),
        Role::Bishop => (
            "M50 8a5.5 5.5 0 1 1 0 11a5.5 5.5 0 1 1 0-11z\
             M50 19c14 12 18 28 10 42H40c-8-14-4-30 10-42z\
             M37 61h26v8H37z\
             M40 69h20l6 9H34z",
            "M50 30v16M42 38h16M37 61h26M37 69h26",
        ),
        Role::Knight => (
            "M32 78c0-14 6-20 14-26c-6 2-12 4-16 9c-4 5-12 3-12-4c0-8 10-22 22-30\
             l2-9l7 7l4-8l5 9c12 8 16 24 12 52z",
            "M40 34a1 1 0 0 1 1 0M24 58a1 1 0 0 1 1 0M36 78h36",
        ),
        Role::Queen => (
            "M24 68l-8-34l17 18l-1-26l12 23l6-28l6 28l12-23l-1 26l17-18l-8 34z\
             M16 24a5 5 0 1 1 0 10a5 5 0 1 1 0-10z\
             M32 16a5 5 0 1 1 0 10a5 5 0 1 1 0-10z\
             M50 9a5 5 0 1 1 0 10a5 5 0 1 1 0-10z\
             M68 16a5 5 0 1 1 0 10a5 5 0 1 1 0-10z\
             M84 24a5 5 0 1 1 0 10a5 5 0 1 1 0-10z\
             M24 68h52l-3 10H27z",
            "M25 68h50",
        ),
        Role::King => (
            "M47 6h6v6h6v6h-6v8h-6v-8h-6v-6h6z\
             M50 28c7 4 9 12 4 24h-8c-5-12-3-20 4-24z\
             M26 78l-4-18c-4-14 8-22 18-16c4 2 7 5 10 10c3-5 6-8 10-10c10-6 22 2 18 16l-4 18z",
            "M27 66h46M50 54v12",
        ),
    };
    (format!("{body}{BASE}"), lines)
}

#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

/// Caption glyphs: a stroke font in a 6×10 box (baseline at 10), enough
/// for the canonical stipulations (`#2`, `s#3`, `h=2.5`, `SPG 12`, `+`, `=`)
/// and the material count. Returns the path and the advance.
fn glyph(c: char) -> Option<(&'static str, f32)> {
    Some(match c {
        '0' => ("M3 0C0.6 0 0 3 0 5S0.6 10 3 10S6 7 6 5S5.4 0 3 0z", 6.0),
        '1' => ("M1.4 2L3.6 0V10M1.4 10H5.6", 6.0),
        '2' => (
            "M0.4 2C1 0.6 2 0 3 0C4.6 0 5.6 1 5.6 2.6C5.6 4.6 3 6 0.4 10H5.8",
            6.0,
        ),
        '3' => (
            "M0.4 1C1 0.3 2 0 3 0C4.6 0 5.5 1 5.5 2.4S4.4 4.8 2.6 4.8C4.6 4.8 5.8 5.9 5.8 7.3\
             S4.6 10 3 10C1.8 10 0.8 9.5 0.2 8.8",
            6.0,
        ),
        '4' => ("M4.4 10V0L0 7H6", 6.0),
        '5' => (
            "M5.4 0H1L0.6 4.5C1.3 4 2.2 3.8 3 3.8C4.8 3.8 5.8 5 5.8 6.9S4.6 10 2.9 10\
             C1.8 10 0.8 9.6 0.2 8.8",
            6.0,
        ),
        '6' => (
            "M5.2 0.8C4.6 0.2 3.9 0 3.2 0C1 0 0.2 2.5 0.2 5.5S1.3 10 3 10S5.8 8.8 5.8 7\
             S4.7 4.2 3.1 4.2C1.8 4.2 0.8 5 0.2 6",
            6.0,
        ),
        '7' => ("M0.2 0H5.8L2.2 10", 6.0),
        '8' => (
            "M3 4.8C1.4 4.8 0.5 3.8 0.5 2.4S1.4 0 3 0S5.5 1 5.5 2.4S4.6 4.8 3 4.8\
             C1.2 4.8 0.2 5.8 0.2 7.4S1.3 10 3 10S5.8 9 5.8 7.4S4.8 4.8 3 4.8z",
            6.0,
        ),
        '9' => (
            "M0.8 9.2C1.4 9.8 2.1 10 2.8 10C5 10 5.8 7.5 5.8 4.5S4.7 0 3 0S0.2 1.2 0.2 3\
             S1.3 5.8 2.9 5.8C4.2 5.8 5.2 5 5.8 4",
            6.0,
        ),
        '#' => ("M2.2 0.5L1.4 9.5M4.8 0.5L4 9.5M0.3 3.3H6.2M0 6.7H5.9", 6.2),
        '+' => ("M3 2V8M0 5H6", 6.0),
        '=' => ("M0.5 3.5H5.5M0.5 6.5H5.5", 6.0),
        '(' => ("M3.4 -0.6C1 2 1 8 3.4 10.6", 3.6),
        ')' => ("M0.4 -0.6C2.8 2 2.8 8 0.4 10.6", 3.6),
        '.' => ("M1 9.6H1.2", 2.2),
        '-' => ("M0.5 6H4.5", 5.0),
        ' ' => ("", 3.0),
        's' => (
            "M5 4.8C4.5 4.2 3.8 4 3 4C1.6 4 0.8 4.6 0.8 5.5C0.8 7.5 5.3 6.5 5.3 8.5\
             C5.3 9.5 4.4 10 3 10C2 10 1 9.7 0.5 9.2",
            6.0,
        ),
        'h' => (
            "M0.8 0V10M0.8 6C1.4 4.6 2.4 4 3.3 4C4.6 4 5.2 4.8 5.2 6V10",
            6.0,
        ),
        'S' => (
            "M5.3 1.2C4.7 0.4 3.9 0 3 0C1.5 0 0.5 0.9 0.5 2.4C0.5 5.5 5.6 4.4 5.6 7.5\
             C5.6 9.1 4.5 10 3 10C1.8 10 0.9 9.6 0.3 8.7",
            6.0,
        ),
        'P' => ("M0.8 10V0H3.5C5 0 5.8 1 5.8 2.7S5 5.4 3.5 5.4H0.8", 6.0),
        'G' => (
            "M5.6 1.4C5 0.4 4.1 0 3.2 0C1.2 0 0.2 2.2 0.2 5S1.2 10 3.2 10C4.3 10 5.2 9.5 5.8 8.8\
             V5.6H3.4",
            6.0,
        ),
        _ => return None,
    })
}

/// Caption text in the stroke font, 15 units tall, its baseline at `top` +
/// 15. A character the font lacks is drawn as an empty box, so nothing is
/// silently dropped (the `<title>` has the text itself).
fn caption(out: &mut String, text: &str, x: f32, top: f32, align: Align) {
    const SCALE: f32 = 1.5;
    const GAP: f32 = 1.6;
    const MISSING: (&str, f32) = ("M0.5 0H5.5V10H0.5z", 6.0);
    let glyphs: Vec<_> = text.chars().map(|c| glyph(c).unwrap_or(MISSING)).collect();
    let width: f32 = glyphs.iter().map(|(_, w)| w + GAP).sum::<f32>() * SCALE;
    let mut pen = match align {
        Align::Left => x,
        Align::Right => x - width,
    };
    let mut path = String::new();
    for (d, advance) in glyphs {
        if !d.is_empty() {
            let _ = write!(
                path,
                "<path transform=\"translate({pen} {top}) scale({SCALE})\" d=\"{d}\"/>"
            );
        }
        pen += (advance + GAP) * SCALE;
    }
    let _ = writeln!(
        out,
        "<g fill=\"none\" stroke=\"#000000\" stroke-width=\"1.2\" stroke-linecap=\"round\" \
         stroke-linejoin=\"round\">{path}</g>"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().into_setup().board
    }

    fn rgb(pixmap: &resvg::tiny_skia::Pixmap, (x, y): (u32, u32)) -> [u8; 3] {
        let p = pixmap.pixel(x, y).unwrap().demultiply();
        [p.red(), p.green(), p.blue()]
    }

    /// Pixels of the square's area at scale 1 (its edge left out) whose
    /// colour passes `test`.
    fn count(
        pixmap: &resvg::tiny_skia::Pixmap,
        square: Square,
        test: impl Fn([u8; 3]) -> bool,
    ) -> usize {
        let (cx, cy) = square_centre(square, 1.0);
        let half = (SQUARE / 2.0) as u32 - 2;
        let mut n = 0;
        for y in cy - half..cy + half {
            for x in cx - half..cx + half {
                n += usize::from(test(rgb(pixmap, (x, y))));
            }
        }
        n
    }

    /// Near black: an outline, or a black piece's body.
    fn black(c: [u8; 3]) -> bool {
        c.iter().all(|&c| c < 0x40)
    }

    /// Whiter than the light squares: a white piece's body, or a black
    /// piece's inner lines.
    fn white(c: [u8; 3]) -> bool {
        c.iter().all(|&c| c > 0xfa)
    }

    #[test]
    fn the_png_shows_the_squares_and_the_pieces_where_the_fen_puts_them() {
        // Kh1 Qd1 Sb5 v ke8 Bf5 pg7 (3+3): a white piece on a light square
        // (d1), on a dark one (h1), black pieces on both.
        let board = board("4k3/6p1/8/1N3b2/8/8/8/3Q3K w - - 0 1");
        let svg = svg(&board, "#2");
        assert!(svg.contains("<title>#2 (3+3)</title>"), "{svg}");
        let png = png(&svg, 1.0).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
        let (w, h) = size();
        assert_eq!((pixmap.width(), pixmap.height()), (w as u32, h as u32));
        // Empty squares: a1 dark, b1 light, e4 light, d4 dark; a corner of a
        // square is never under a piece.
        for (name, colour) in [("a1", DARK), ("b1", LIGHT), ("e4", LIGHT), ("d4", DARK)] {
            let sq: Square = name.parse().unwrap();
            assert_eq!(rgb(&pixmap, square_centre(sq, 1.0)), colour, "{name}");
        }
        // Occupied squares keep their colour at the corner, and show the
        // piece: white pieces mostly white inside a black outline, black
        // pieces mostly black with a few white inner lines. Empty squares
        // have neither.
        for (name, is_white) in [
            ("h1", true),
            ("d1", true),
            ("b5", true),
            ("e8", false),
            ("f5", false),
            ("g7", false),
        ] {
            let sq: Square = name.parse().unwrap();
            let (cx, cy) = square_centre(sq, 1.0);
            let corner = (cx - 22, cy - 22);
            let colour = if sq.is_dark() { DARK } else { LIGHT };
            assert_eq!(rgb(&pixmap, corner), colour, "{name} corner");
            let (b, w) = (count(&pixmap, sq, black), count(&pixmap, sq, white));
            assert!(b > 80, "{name}: {b} black pixels, no piece drawn");
            if is_white {
                assert!(w > 300, "{name}: white {w}, black {b}");
            } else {
                assert!(b > 300 && b > 4 * w, "{name}: white {w}, black {b}");
            }
        }
        for name in ["a1", "b1", "e4", "d4", "h8", "c6"] {
            let sq: Square = name.parse().unwrap();
            assert_eq!(count(&pixmap, sq, black), 0, "{name} should be empty");
            assert_eq!(count(&pixmap, sq, white), 0, "{name} should be empty");
        }
    }

    #[test]
    fn the_caption_has_the_stipulation_and_the_material_and_escapes_text() {
        let board = board("8/8/8/8/8/8/8/K6k w - - 0 1");
        let svg = svg(&board, "h#2.5 <x>");
        assert!(
            svg.contains("<title>h#2.5 &lt;x&gt; (1+1)</title>"),
            "{svg}"
        );
        // Every character of the canonical stipulations has a glyph.
        for c in "0123456789#+=().- shSPG".chars() {
            assert!(glyph(c).is_some(), "{c:?}");
        }
        // The caption is drawn: dark pixels in the strip under the board.
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png(&svg, 1.0).unwrap()).unwrap();
        let top = (MARGIN + 2.0 * FRAME + 8.0 * SQUARE) as u32 + 4;
        let dark = (top..pixmap.height())
            .flat_map(|y| (0..pixmap.width()).map(move |x| (x, y)))
            .filter(|&p| rgb(&pixmap, p).iter().all(|&c| c < 0x80))
            .count();
        assert!(dark > 100, "{dark} dark pixels in the caption");
    }
}
