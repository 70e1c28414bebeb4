"""The `opsagent` command: one module per command group (`main` is the entry point and the run
commands; `inbox`, `reply`-side helpers, `policy`, `lab`, `eval`, `transcript`, `serve`, `user`,
`sandbox`, `doctor`, `notify`), the exit codes, and the one-line errors every bad input gets.

The top layer: it may import every other package of `agent` and `tools`; nothing imports it.
"""
