"""``python -m kpqa``: the ``kpqa`` command."""
import sys

from kpqa.cli import main

sys.exit(main())
