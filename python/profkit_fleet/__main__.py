"""`python3 -m profkit_fleet ...` is the same as `profkit-fleet ...`."""

import sys

from profkit_fleet.cli import main

sys.exit(main(sys.argv[1:]))
