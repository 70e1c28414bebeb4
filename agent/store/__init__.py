"""Where runs live between processes: run records and state locations (`records`), the SQLite
store (`sqlite`) and the Postgres one (`postgres`), chosen by `open.open_store`; leases that give
a run one driver (`lease`), secrets scrubbed at rest (`at_rest`, `checkpoint_serde`) and the web
accounts (`users`).

May import transcript (its scrubber), state and tools; nothing of the loop, hearing or deciders.
"""
