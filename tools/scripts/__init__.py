"""Scripts opsagent sends to a target and runs there (package data; standard library + torch)."""
