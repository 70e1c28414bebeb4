"""opsagent's hands: targets (local, SSH, lab) and typed tools. Imports nothing from `agent`."""
