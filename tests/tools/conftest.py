from __future__ import annotations

import sys
from pathlib import Path

# Test modules here import their helpers (tools_testkit, the stand-in server) by module name.
sys.path.insert(0, str(Path(__file__).parent))
