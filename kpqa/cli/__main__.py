"""``python -m kpqa.cli``: the ``kpqa`` command."""
import sys

from kpqa.cli import main

sys.exit(main())
