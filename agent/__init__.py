"""opsagent's mind: state, graph, deciders, policy gate, continue-or-ask, transcripts, CLI."""
