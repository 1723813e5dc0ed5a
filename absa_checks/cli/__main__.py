"""`python -m absa_checks.cli`: the `absa-checks` command."""

import sys

from absa_checks.cli import main

sys.exit(main())
