"""A failed launch or measurement, classified by what fixes it.

`wait.py` reads the log's patterns into a cause (cuda_oom, kv_cache_oom, ...); this layer adds
what the cause alone does not say and the remedy depends on: an out-of-memory while the weights
load (a bigger layout is the only fix) is not one during CUDA-graph capture (a lower memory
fraction fixes it); a rejected flag is not an ambiguous one. Refusals of launch_server and
failures of run_benchmark are classified too, so one table drives every remedy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

FailureClass = Literal[
    "weights_oom",
    "cuda_graph_oom",
    "kv_too_small",
    "nan",
    "device_assert",
    "flag_rejected",
    "flag_ambiguous",
    "port_busy",
    "nccl_p2p",
    "load_timeout",
    "child_crash",
    "layout_invalid",
    "model_missing",
    "software_missing",
    "server_died",
    "client_benchmark",
    "link_dropped",
    "unknown",
]

DESCRIPTIONS: dict[str, str] = {
    "weights_oom": "out of memory while loading the weights: the layout is too small for the model",
    "cuda_graph_oom": "out of memory after the weights loaded (KV pool or CUDA-graph capture): the static pool "
    "leaves too little for activations",
    "kv_too_small": "the KV cache does not fit in what the memory fraction leaves",
    "nan": "NaN/inf logits in sampling",
    "device_assert": "a CUDA kernel asserted",
    "flag_rejected": "the installed SGLang rejected a launch flag",
    "flag_ambiguous": "a launch flag is ambiguous in the installed SGLang",
    "port_busy": "the port is held by another process",
    "nccl_p2p": "NCCL failed (often P2P between the GPUs)",
    "load_timeout": "the server did not come up in time",
    "child_crash": "a server process died",
    "layout_invalid": "the layout does not fit the allowed GPUs",
    "model_missing": "the model directory is missing",
    "software_missing": "SGLang or the NVIDIA driver is missing",
    "server_died": "the server stopped answering during the measurement",
    "client_benchmark": "the benchmark client failed while the server was healthy",
    "link_dropped": "a check before the start did not finish (the link dropped it); nothing was started",
    "unknown": "an unclassified failure",
}

_BEFORE_WEIGHTS_LOADED = ("starting", "initialising torch distributed", "loading weights")
_REFUSALS: dict[str, FailureClass] = {
    "port_in_use": "port_busy",
    "tp_exceeds_gpus": "layout_invalid",
    "model_path_missing": "model_missing",
    "sglang_missing": "software_missing",
    "no_nvidia_driver": "software_missing",
    "target_error": "link_dropped",  # launch_server's checks run before anything starts
}
_CAUSES: dict[str, FailureClass] = {
    "nan_in_sampling": "nan",
    "device_assert": "device_assert",
    "kv_cache_oom": "kv_too_small",
    "nccl_error": "nccl_p2p",
    "port_in_use": "port_busy",
    "load_timeout": "load_timeout",
    "child_crash": "child_crash",
}
CLIENT_SIDE = frozenset({"benchmark_failed", "unparseable_output", "timeout", "target_error", "client_error"})


def classify_launch(
    cause: str | None, phase: str | None = None, evidence: Sequence[str] = (), refusal: bool = False
) -> FailureClass:
    """The class of a failed launch: `cause` is wait_server's cause (or launch_server's
    error_kind when `refusal`), `phase` the startup phase the log had reached."""
    text = "\n".join(evidence)
    if cause is None:
        return "unknown"
    if cause == "bad_argument":
        return "flag_ambiguous" if "ambiguous option" in text else "flag_rejected"
    if refusal:
        return _REFUSALS.get(cause, "unknown")
    if cause == "cuda_oom":
        where = (phase or "starting").split(" (")[0]
        return "weights_oom" if where in _BEFORE_WEIGHTS_LOADED else "cuda_graph_oom"
    if "HFValidationError" in text or ("No such file or directory" in text and "config.json" in text):
        return "model_missing"
    return _CAUSES.get(cause, "unknown")


def classify_benchmark(error_kind: str | None) -> FailureClass:
    """run_benchmark failed: the server stopped answering, or only the client failed."""
    if error_kind == "server_down":
        return "server_died"
    return "client_benchmark" if error_kind in CLIENT_SIDE or error_kind is None else "unknown"
