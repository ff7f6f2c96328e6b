"""``python -m negtheory`` is the ``negtheory`` command."""

import sys

from negtheory.cli import main

sys.exit(main())
