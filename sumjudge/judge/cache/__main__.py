"""``python -m sumjudge.judge.cache stats|verify|prune|export`` (sumjudge.judge.cache_cli)."""
import sys

from sumjudge.judge.cache_cli import main

sys.exit(main())
