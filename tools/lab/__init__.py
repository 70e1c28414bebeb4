"""The lab: a deterministic simulated multi-GPU host implementing the `Target` interface.

    from tools.lab.target import LabTarget
    t = LabTarget.from_name("p2p-corruption", seed=0)
    t.run("nvidia-smi topo -p2p r").stdout

Scenarios live in `tools/lab/scenarios/*.yaml` (schema: tools/lab/SCHEMA.md).

Modules: scenario (schema, loader), clock (virtual time), host (files, processes, ports, kernel
log), sysfs (/sys, /proc, lspci, dmesg), parse + shell (command lines, wrappers, redirections,
forbidden-rule checks), commands (the handler table), nvidia (nvidia-smi), pyexec (python3 -c, -m
sglang.*, the P2P script), sglang_flags (launch_server's argparse per version), launch (a launch's
configuration and `when` conditions), sglang_sim (a server's log over time, faults, endpoints),
curl, perf + bench_sim (throughput model, bench_serving output), target (`LabTarget`), drill (the
standard deployment sequence used by benchmarks/bench_lab.py). Broken hosts (SCHEMA.md): hostspec
(their schema), gpuhealth (what a broken GPU, NVML or torch show), breakage (what a launch meets),
diskfs + diskcmds (capacities, df, free), smi_query (`nvidia-smi -q`).
"""
