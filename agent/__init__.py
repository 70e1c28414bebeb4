"""opsagent's mind. Packages, from the top layer down (each may import only those below it;
`pyproject.toml`'s import-linter contracts check it, `make lint` runs them):

- `cli`: the `opsagent` command;
- `web`: `opsagent serve`, the team's inbox, live view and audit pages;
- `loop`: the observe - decide - act graph, runs, workers, the situation report;
- `notify`: webhooks when a question waits;
- `deciders`: runbook, llm, scripted and replay deciders, and the llm's context;
- `hearing`: the operator's goal, instructions and replies;
- `evidence`: attempts and findings;
- `store`: SQLite and Postgres state, leases, secrets at rest, accounts;
- `transcript`: the hash-chained transcript, its blobs, replay and audit exports;
- `policy`: the gate;
- beside them: `state` (the run's typed state), `verdict`, `config`, `llm_config`, `diagnostics`
  and the `prompts` templates.
"""
