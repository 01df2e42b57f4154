#!/usr/bin/env python3
"""Builds tests/data/popeye/ from the reference solver's own examples.

Usage: popeye_examples.py POPEYE_SOURCE PROBE [FILE.inp ...]

POPEYE_SOURCE is a checkout of github.com/thomas-maeder/popeye; PROBE is
the `popeye_probe` example binary of this crate, which tells which problems
cookd reads (`SHOW_OK=1 popeye_probe FILE` prints `OK file entry stip`).

For each example file named (paths relative to POPEYE_SOURCE), the problems
cookd reads are copied verbatim, each headed by a remark naming its source,
into tests/data/popeye/<folder>-<name>.inp, and the reference's expected
output (REGRESSIONTESTS/<name>.out for BEISPIEL/, <name>.ref for EXAMPLES/,
whose problems come in the file's order)
is reduced to the keys or solutions of each twin in expected.csv:

    file,entry,twin,stipulation,first,moves

`first` is "keys" (direct and self mates: the keys the reference marks
with `!`) or "lines" (helpmates and proof games: every solution printed),
and `moves` the sorted moves as UCI, lines as space-separated UCI, `;`
between them.
"""
import csv
import os
import re
import subprocess
import sys

END_WORDS = {"weiteresproblem": "next", "endeproblem": "end",
             "nextproblem": "next", "endproblem": "end",
             "asuivre": "next", "finprobleme": "end"}
PROMOTION = {"D": "q", "T": "r", "L": "b", "S": "n",   # German output
             "Q": "q", "R": "r", "B": "b"}


def end_word(line):
    """`next` or `end` when the line is only a problem separator."""
    words = line.split()
    if len(words) != 1 or len(words[0]) < 3:
        return None
    for name, kind in END_WORDS.items():
        if name.startswith(words[0].lower()):
            return kind
    return None


def blocks(text):
    """The problems of a Popeye file: lists of lines between separators."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.strip()) + 1
    out, current = [], []
    for line in lines[start:]:
        kind = end_word(line)
        if kind:
            out.append(current)
            current = []
            if kind == "end":
                break
        else:
            current.append(line)
    return out


MOVE = re.compile(r"^(?:[A-Z][A-Z0-9]?)?([a-h][1-8])[-*]([a-h][1-8])(?:=([A-Z]))?")


def uci(token, white):
    """A move of the reference's output as UCI; None for what is no move."""
    if token.startswith("0-0-0"):
        return "e1c1" if white else "e8c8"
    if token.startswith("0-0"):
        return "e1g1" if white else "e8g8"
    m = MOVE.match(token)
    if not m:
        return None
    promo = PROMOTION.get(m.group(3), "") if m.group(3) else ""
    return m.group(1) + m.group(2) + promo


def line_moves(line, white_first):
    moves, white = [], white_first
    for token in line.split():
        if re.fullmatch(r"\d+\.(\.\.)?", token):
            continue
        token = re.sub(r"^\d+\.(\.\.)?", "", token)
        move = uci(token, white)
        if move:
            moves.append(move)
            white = not white
    return moves


def sections(out_text):
    """Per problem of an .out file: the stipulation line and its twins'
    text (label -> lines)."""
    lines = out_text.split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith("+---a---b")][::2]
    result = []
    for n, s in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = lines[s:end]
        stip = body[19].split()[0] if len(body) > 19 else ""
        twins, label, stips = {}, "a", {}
        for line in body[20:]:
            m = re.match(r"^\+?([a-z])\) (.*)", line)
            if m:
                label = m.group(1)
                # A stipulation twin names its stipulation (`b) h=2`).
                words = m.group(2).split()
                if words and re.match(r"^(#|h#|s#|=|h=|s=|dia)\d", words[0]):
                    stips[label] = words[0]
                twins[label] = []
                continue
            twins.setdefault(label, []).append(line)
        result.append((stip, twins, stips))
    return result


def expected(stipulation, lines):
    # Helpmates with either goal (h#, h=) and proof games list lines.
    help_play = re.match(r"h[#=]|dia", stipulation) is not None
    if help_play:
        whole = re.fullmatch(r"h[#=]\d+", stipulation) is not None
        # In h#n a line opening with Black's `1...` is set play; in h#n.5
        # the solutions open so (White's first half-move) and `1.` is set
        # play.
        opening = r"^  1\.\.\.\S" if stipulation.startswith("h") and not whole else r"^  1\.[^.]"
        found = [" ".join(line_moves(l, not whole)) for l in lines
                 if re.match(opening, l)]
        return "lines", sorted(found)
    keys = []
    for l in lines:
        m = re.match(r"^   1\.(\S+)(?: ep\.)?(?: [+#=])? !", l)
        if m:
            keys.append(uci(m.group(1), True))
    return "keys", sorted(keys)


def main():
    source, probe = sys.argv[1], sys.argv[2]
    here = os.path.join(os.path.dirname(__file__), "..", "data", "popeye")
    os.makedirs(here, exist_ok=True)
    rows = []
    for rel in sys.argv[3:]:
        path = os.path.join(source, rel)
        raw = open(path, "rb").read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        probe_out = subprocess.run([probe, path], capture_output=True, text=True,
                                   env=dict(os.environ, SHOW_OK="1")).stdout
        ok_entries = sorted({int(l.split()[2]) for l in probe_out.splitlines()
                             if l.startswith("OK ")})
        problems = blocks(text)
        name = os.path.splitext(os.path.basename(rel))[0]
        # BEISPIEL's expected output is <name>.out, EXAMPLES' <name>.ref.
        out_path = os.path.join(source, "REGRESSIONTESTS", name + ".out")
        if rel.startswith("EXAMPLES/"):
            out_path = os.path.join(source, "REGRESSIONTESTS", name + ".ref")
        out_sections = sections(open(out_path, encoding="latin-1").read())
        assert len(out_sections) == len(problems), (rel, len(out_sections), len(problems))
        first_word = text.split()[0]
        separator = "weiteresproblem" if first_word.lower().startswith("anf") else "nextproblem"
        ending = "endeproblem" if separator.startswith("w") else "endproblem"
        remark = "bemerkung" if separator.startswith("w") else "remark"
        data_name = rel.split("/")[0] + "-" + name + ".inp"
        chunks = []
        for n, entry in enumerate(ok_entries):
            head = f"{remark} {rel} problem {entry + 1} (entry {n} here)"
            chunks.append("\n".join([head] + problems[entry]).strip("\n"))
            stip, twins, stips = out_sections[entry]
            current = stip
            for label in sorted(twins):
                # Popeye's twins start again from the diagram's stipulation
                # unless they change it (continued twins keep the last one).
                current = stips.get(label, stip)
                first, moves = expected(current, twins[label])
                rows.append([data_name, n, label, current, first, ";".join(moves)])
        with open(os.path.join(here, data_name), "w", encoding="utf-8") as f:
            f.write(first_word + "\n" + f"\n{separator}\n".join(chunks) + f"\n{ending}\n")
    with open(os.path.join(here, "expected.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "entry", "twin", "stipulation", "first", "moves"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
