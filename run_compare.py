#!/usr/bin/env python3
# PYTHON_ARGCOMPLETE_OK
"""Entry point: ``python run_compare.py --help``. The logic lives in ``compare/``."""
import sys

from compare.cli import entry_point

if __name__ == "__main__":
    sys.exit(entry_point())
