"""`python -m agent.cli`: the same entry point as the `opsagent` script."""

import os

from agent.cli.main import main

os.environ.setdefault("PYTHONUNBUFFERED", "1")
main()
