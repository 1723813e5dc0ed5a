"""Write the JSON Schemas of suite and examples files that ship in absa_checks/schemas/, from the registries
(absa_checks/suites/schema.py). Run it after adding a strategy, a strategy parameter or a gate key, and commit the
result; tests/suites/test_schema.py fails while the shipped files differ from what it writes.

    python scripts/build_schemas.py [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from absa_checks.common import outputs  # noqa: E402
from absa_checks.suites import schema  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=str(schema.SCHEMAS_DIR),
                        help="where to write them (default: absa_checks/schemas)")
    args = parser.parse_args(argv)
    folder = Path(args.out_dir)
    if not folder.is_dir():
        print(f"--out-dir {folder}: not a folder; create it or name another", file=sys.stderr)
        return 2
    for name, text in schema.shipped().items():
        try:
            out = outputs.write_text(outputs.Named("--out-dir", folder / name), text)  # atomic
        except outputs.OutputError as err:
            print(err, file=sys.stderr)
            return 1
        print(f"wrote {out} ({len(text.encode('utf-8')):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
