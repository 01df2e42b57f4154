#!/usr/bin/env python3
"""Obtain the 3- and 4-piece Syzygy tables for cookd's tests.

The complete 3-4-piece WDL/DTZ set ships inside the source package of
python-chess 1.11.2 on PyPI (data/syzygy/regular). This downloads that
package with pip, extracts the tables into DEST, and checks every file
against the SHA256SUMS list committed beside the tests. DEST is filled
through a temporary folder renamed into place, so concurrent callers never
see half a set.

usage: fetch_syzygy.py DEST SHA256SUMS
"""

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile

PACKAGE = "chess==1.11.2"
PREFIX = "chess-1.11.2/data/syzygy/regular/"


def main() -> int:
    dest, sums_path = sys.argv[1], sys.argv[2]
    if os.path.isdir(dest):
        return 0
    expected = {}
    with open(sums_path) as sums:
        for line in sums:
            digest, name = line.split()
            expected[name.lstrip("*")] = digest
    parent = os.path.dirname(os.path.abspath(dest))
    os.makedirs(parent, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=parent) as work:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet",
             "--disable-pip-version-check", "--no-deps", "--no-binary", ":all:",
             "-d", work, PACKAGE],
            check=True,
        )
        archive = os.path.join(work, "chess-1.11.2.tar.gz")
        tables = os.path.join(work, "tables")
        os.makedirs(tables)
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                name = member.name[len(PREFIX):]
                if member.name.startswith(PREFIX) and member.isfile() and "/" not in name:
                    with tar.extractfile(member) as src, open(os.path.join(tables, name), "wb") as out:
                        out.write(src.read())
        for name, digest in expected.items():
            with open(os.path.join(tables, name), "rb") as table:
                actual = hashlib.sha256(table.read()).hexdigest()
            if actual != digest:
                print(f"{name}: sha256 {actual}, expected {digest}", file=sys.stderr)
                return 1
        try:
            os.rename(tables, dest)
        except OSError:
            if not os.path.isdir(dest):
                raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
