"""vLLM's words for what SGLang names otherwise, said by an operator who ran vLLM before: "--max-model-len
32768", "enforce eager", "--max-num-seqs 64". Each is SGLang's flag of the same meaning, but it is what
the operator typed in another engine's terms, so it is only asked back ("I read: --context-length 32768.
You gave vLLM's flag ...: right?"), never taken. A vLLM flag with no flag of exactly its meaning in SGLang
("--gpu-memory-utilization": SGLang's --mem-fraction-static counts memory differently) is not read."""

from __future__ import annotations

import re

# vLLM's name (as a flag or in words) -> SGLang's flag of the same meaning
_SAME_MEANING = {
    "max-model-len": "--context-length",
    "max-num-seqs": "--max-running-requests",
    "enforce-eager": "--disable-cuda-graph",
}
_VERB = r"(?:(?:use|set|add|pass|try|with|launch\s+with|relaunch\s+with)\s+)?"
_AFTER = r"(?:\s+(?:pls|please|for\s+now|this\s+time|for\s+this\s+run))*"  # "--enforce-eager for now": nothing more
_SETTING = re.compile(
    rf"^{_VERB}(?:--)?(?P<name>max[-\s]model[-\s]len|max[-\s]num[-\s]seqs)\s*(?:=|\s+to\s+|\s+at\s+|\s)\s*(?P<value>\d+)(?P<k>k)?{_AFTER}$",
    re.I,
)
_SWITCH = re.compile(rf"^{_VERB}(?:--)?(?P<name>enforce[-\s]eager)(?:\s+mode)?(?:\s+on)?{_AFTER}$", re.I)


_NOT = r"(?:no|(?:don'?t|do\s+not|never)\s+(?:use|set|pass|add)|remove|drop|disable|without)"
# "don't use --enforce-eager" (keep CUDA graphs), "no --max-model-len": SGLang's flag kept out instead
_KEPT_OUT = re.compile(
    rf"^{_NOT}\s+(?:--)?(?P<name>max[-\s]model[-\s]len|max[-\s]num[-\s]seqs|enforce[-\s]eager)(?:\s+\d+k?)?$"
    r"|^(?:--)?(?P<off>enforce[-\s]eager)\s+off$",
    re.I,
)
# every vLLM flag an operator brings along that no SGLang release has: a clause naming one is never read
# as written (a rule on a flag no launch has would do nothing), only asked back in SGLang's terms
_VLLM_ONLY = re.compile(
    r"(?<![\w-])(?:--)?(?:max[-\s]model[-\s]len|max[-\s]num[-\s](?:seqs|batched[-\s]tokens)|enforce[-\s]eager|"
    r"gpu[-\s]memory[-\s]utili[sz]ation|swap[-\s]space|enable[-\s](?:prefix[-\s]caching|chunked[-\s]prefill))(?![\w-])",
    re.I,
)


def names_one(clause: str) -> bool:
    """Whether a clause names a flag only vLLM has ("--max-model-len", "enforce eager")."""
    return bool(_VLLM_ONLY.search(clause))


def sglang_reading(clause: str) -> list[str] | None:
    """ "--max-model-len 32768" -> ["use --context-length 32768"]: the clause in SGLang's flags, or None."""
    if (kept_out := _KEPT_OUT.match(clause.strip())) is not None:
        name = re.sub(r"[\s-]+", "-", (kept_out.group("name") or kept_out.group("off")).lower())
        return [f"don't use {_SAME_MEANING[name]}"]
    if (setting := _SETTING.match(clause.strip())) is not None:
        value = int(setting.group("value")) * (1024 if setting.group("k") else 1)
        return [f"use {_SAME_MEANING[_name(setting)]} {value}"]
    if (switch := _SWITCH.match(clause.strip())) is not None:
        return [f"use {_SAME_MEANING[_name(switch)]}"]
    return None


def _name(match: re.Match[str]) -> str:
    return re.sub(r"[\s-]+", "-", match.group("name").lower())


def said_in_vllm_terms(clause: str) -> bool:
    """Whether a clause gave a vLLM name that `sglang_reading` put in SGLang's terms."""
    return sglang_reading(clause) is not None
