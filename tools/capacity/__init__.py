"""The host's arithmetic: what a model weighs, what a layout needs per GPU, what fits.

    modeldir   weight bytes and the architecture, read from a model directory through a Target
               (`cat config.json`, `cat model.safetensors.index.json`, `stat` of the shards,
               `du -sb`), so it works the same on SSH, local and lab targets
    memory     per-GPU memory of a TP/PP/DP/EP layout, KV bytes per token, KV capacity at a
               memory fraction and the concurrency it allows (pure functions)
    layouts    every layout within the agent's GPUs, judged (fits or why not) and ranked by
               expected throughput (pure)
    tool       `plan_layouts`, the typed tool both deciders call

Nothing here imports `agent/`; the runbook and the llm decider both read the same results.
"""
