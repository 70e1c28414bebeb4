"""The operator's questions to the agent ("why did it OOM?", "what's using GPU 3?", "what did you
try?"), answered from the evidence the waiting question carries (agent/evidence/asked.py), by
topic, quoting the tools' own lines; what the evidence does not hold is said plainly, never
guessed. A question asked is no reply: every answer ends saying the run still waits on its own.
A question stored before questions carried evidence is answered from its report's lines."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.state import AttemptSeen, FailureSeen, Question, QuestionEvidence
from tools.sglang.diagnosis import DESCRIPTIONS as PLACED
from tools.sglang.failures import DESCRIPTIONS as CLASSES

_ASKS = re.compile(
    r"^(?:why|what|what'?s|which|who|how|where|when|is|are|was|were|did|does|do|has|have|can\s+you\s+(?:tell|show|explain)|"
    r"could\s+you\s+(?:tell|show|explain))\b.*\?\s*$",
    re.I,
)
_STOP = frozenset(
    {
        "why", "what", "whats", "what's", "which", "who", "how", "where", "when", "is", "are", "was", "were",
        "did", "does", "do", "has", "have", "the", "a", "an", "it", "its", "it's", "this", "that", "there",
        "you", "your", "my", "on", "of", "to", "in", "for", "with", "be", "been", "being", "can", "could",
        "tell", "show", "explain", "me", "us", "about", "any", "so", "up", "anything", "else", "use", "used",
    }
)  # fmt: skip
# the words an operator uses for a class of evidence, and the words the report uses for it
_TOPICS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"\boom|out\s+of\s+memory|memory", re.I), re.compile(r"oom|out of memory|memory|GiB", re.I)),
    (
        re.compile(r"fail|crash|die|died|break|broke|error|wrong|happen", re.I),
        re.compile(r"fail|did not come up|error|crash|cuda_|nan|refused|timeout", re.I),
    ),
    (re.compile(r"tried|try|attempt|configs?|configurations?", re.I), re.compile(r"^\|?\s*A\d+\b|tried|attempt", re.I)),
    (re.compile(r"slow|fast|throughput|tok/?s|speed|number", re.I), re.compile(r"tok/s|ttft|throughput", re.I)),
    (re.compile(r"p2p|nvlink|topology|nccl", re.I), re.compile(r"p2p|nvlink|nccl|topo", re.I)),
]
_OOM = re.compile(r"\boom|out\s+of\s+memory|\bmemory\b|\bvram\b|\bkv\b|\bmem\b", re.I)
_FAILED = re.compile(r"fail|crash|\bdie|died|dead|break|broke|error|wrong|happen|went|exit|refus", re.I)
_USING = re.compile(r"\busing\b|\bholds?\b|holding|occup|\bprocess|\bpids?\b|who'?s\s+on|what'?s\s+on|\bbusy\b", re.I)
_TRIED = re.compile(r"tried|\btry\b|attempt|configs?\b|configurations?|flags?\b|command|launch|\bA\d+\b", re.I)
_PORT = re.compile(r"\bports?\b|listen|\bbind|socket", re.I)
_TOPO = re.compile(r"p2p|nvlink|topolog|interconnect|nccl|pcie|\blinks?\b|iommu|virtuali|bare\s*metal", re.I)
_NUMBERS = re.compile(
    r"slow|fast|throughput|tok/?s|tokens|speed|numbers?|ttft|latency|perf|benchmark|measure|best", re.I
)
_HOST = re.compile(r"kernel|dmesg|\bxid|disk|space|\becc\b|shard|weight\s+files?", re.I)
_GPU_IDS = re.compile(r"\bgpus?\s*#?(\d+(?:\s*(?:,|and|&|or)\s*\d+)*)", re.I)  # "gpu 3", "GPUs 2 and 3"
_PORT_IDS = re.compile(r"\bport\s*:?\s*(\d{2,5})\b|:(\d{4,5})\b", re.I)
_OOM_CLASSES = {"weights_oom", "cuda_graph_oom", "kv_too_small", "host_oom", "gpu_held"}
_LAUNCH = "python3 -m sglang.launch_server "
_MOST = 16  # lines in one answer: the first screen holds it

Section = tuple[list[str], str | None]  # the lines found, or what the evidence holds nothing on


def is_question(text: str) -> bool:
    return bool(_ASKS.match(text.strip()))


# "is possible use gpu 3?", "port 30000 ok?", "gpu 6 free?": whether a GPU or port may be used, asked; answered
# from what holds it, never taken as an order to use it
_USABLE = re.compile(
    r"^(?:is\s+(?:it\s+)?possible\s+(?:to\s+)?use\s+(?:the\s+)?(?:gpus?|ports?)\s*#?\d[\d\s,&-]*|"
    r"(?:the\s+)?(?:gpus?|ports?)\s*#?\d[\d\s,&-]*\s+(?:is\s+|are\s+)?(?:ok(?:ay)?|free|fine|available|usable|"
    r"can(?:\s+or\s+not)?|(?:still\s+)?(?:in\s+use|busy|taken)))\s*\?+$",
    re.I,
)


def asks_if_usable(text: str) -> bool:
    return bool(_USABLE.match(text.strip()))


def answer(text: str, question: Question, limit: int = 6) -> str:
    """What the question's evidence holds on `text`, and that the run still waits."""
    waits = f"The run still waits on my question: {question.question}"
    asked = text.strip()
    if question.evidence is None:
        return _from_report(asked, question, waits, limit)
    lines, nothing = _from_evidence(asked, question.evidence, question)
    if not lines:
        return f"I have nothing in this run's evidence on {nothing or repr(asked)}. {waits}"
    if nothing:  # said first: what is missing is the answer's first news
        lines.insert(0, f"I have nothing in this run's evidence on {nothing}.")
    shown = "\n".join(f"  {line}" if line.startswith("    ") else f"  - {line}" for line in lines[:_MOST])
    return f"You asked {asked!r}. From this run's evidence:\n{shown}\n{waits}"


def _from_evidence(text: str, ev: QuestionEvidence, question: Question) -> tuple[list[str], str | None]:
    gpus = [int(g) for m in _GPU_IDS.finditer(text) for g in re.findall(r"\d+", m.group(1))]
    ports = [int(a or b) for a, b in _PORT_IDS.findall(text)]
    named = re.findall(r"\bA(\d+)\b", text)
    sections: list[Callable[[], Section]] = []
    if gpus or (_USING.search(text) and re.search(r"\bgpus?\b", text, re.I)):
        sections.append(lambda: _gpu_section(ev, sorted(set(gpus))))
    if _OOM.search(text):
        sections.append(lambda: _oom_section(ev))
    elif _FAILED.search(text):
        sections.append(lambda: _failure_section(ev, None))
    if named or _TRIED.search(text):
        sections.append(lambda: _attempt_section(ev, [f"A{n}" for n in named]))
    if ports or _PORT.search(text):
        sections.append(lambda: _port_section(ev, ports))
    if _TOPO.search(text):
        sections.append(
            lambda: (ev.interconnect, None if ev.interconnect else "the interconnect (no topology was read)")
        )
    if _NUMBERS.search(text) and not (named or _TRIED.search(text)):
        sections.append(lambda: _numbers_section(ev))
    if _HOST.search(text):
        sections.append(lambda: (ev.host, None if ev.host else "the host's kernel log or disks"))
    if not sections:
        return _by_words(text, ev, question), None
    lines: list[str] = []
    nothing: list[str] = []
    for section in sections:
        found, missing = section()
        lines += [line for line in found if line not in lines]
        if missing:
            nothing.append(missing)
    return lines, "; ".join(nothing) or None


def _oom_section(ev: QuestionEvidence) -> Section:
    ooms = [f for f in ev.failures if _is_oom(f)]
    lines = _failure_lines(ev, ooms)
    if ooms:  # what came up after the last one: what the out-of-memory was fixed by
        after = [a for a in ev.attempts if a.step > ooms[-1].step and a.failure_class is None]
        if after:
            lines.append(f"{after[0].id} ({after[0].change}) came up: {after[0].outcome}.")
    held = [
        f"GPU {g.index} (nvidia-smi, step {g.step}): {p.used_mib} MiB held by pid {p.pid} ({p.name or 'unnamed'}), "
        "not a process of mine"
        for g in ev.gpus
        for p in g.processes
        if p.mine is None and p.used_mib
    ]
    lines += list(dict.fromkeys(held))
    lines += ev.memory
    if ooms:
        return lines, None
    launched = len(ev.attempts)
    missing = f"an out-of-memory: none of my {launched} launch(es) failed that way" if launched else "an out-of-memory"
    return lines, missing


def _is_oom(f: FailureSeen) -> bool:
    placed = f.diagnosis.split(":")[0]
    return f.cls in _OOM_CLASSES or placed in _OOM_CLASSES or f.cause in ("cuda_oom", "kv_cache_oom")


def _failure_section(ev: QuestionEvidence, only: list[FailureSeen] | None) -> Section:
    failures = ev.failures if only is None else only
    if failures:
        return _failure_lines(ev, failures), None
    outcomes = ", ".join(f"{a.id} {a.outcome}" for a in ev.attempts)
    return [], "a failure: no launch or measurement failed" + (f" ({outcomes})" if outcomes else "")


def _failure_lines(ev: QuestionEvidence, failures: list[FailureSeen]) -> list[str]:
    changes = {a.id: a.change for a in ev.attempts}
    lines: list[str] = []
    quoted: dict[str, str] = {}
    for f in failures:
        who = f"{f.attempt} ({changes[f.attempt]})" if f.attempt in changes else "a launch"
        what = CLASSES.get(f.cls, f.cls)
        phase = f"; phase: {f.phase}" if f.phase else ""
        lines.append(f"{who} failed at step {f.step} ({f.tool}): {f.cls}, {what}{phase}.")
        if f.diagnosis:
            cls, _, said = f.diagnosis.partition(": ")
            lines.append(f"The host's evidence places it as {cls}: {said or PLACED.get(cls, cls)}.")
        for line in f.lines:
            if line in quoted:
                lines.append(f"    (the same log line as {quoted[line]})")
            else:
                quoted[line] = f.attempt or f"step {f.step}"
                lines.append(f"    log: {line}")
        if f.hint and f"    hint: {f.hint}" not in lines:
            lines.append(f"    hint: {f.hint}")
    return list(dict.fromkeys(lines)) if len(failures) > 1 else lines


def _gpu_section(ev: QuestionEvidence, wanted: list[int]) -> Section:
    seen = sorted({g.index for g in ev.gpus})
    if not ev.gpus:
        return [], "the GPUs (nvidia-smi was not read)"
    looks = [g for g in ev.gpus if g.index in wanted] if wanted else ev.gpus
    lines: list[str] = []
    for g in looks:
        used = f"{g.used_mib}/{g.total_mib} MiB used" if g.used_mib is not None else "memory not listed"
        procs = "; ".join(
            f"pid {p.pid} ({p.name or 'unnamed'}, {p.used_mib} MiB): "
            + (f"my server of {p.mine}" if p.mine else "not a process of mine")
            for p in g.processes
        )
        if wanted or g.processes or g.health or (g.used_mib or 0) > 0:
            lines.append(
                f"GPU {g.index} (nvidia-smi, step {g.step}): {used}; " + (procs or "no processes listed") + "."
            )
        lines += [f"GPU {g.index}: {h}" for h in g.health]
    on: dict[str, set[int]] = {}  # one line for a server over several GPUs
    for g in ev.gpus:
        for run in g.servers if not wanted or g.index in wanted else []:
            on.setdefault(run, set()).add(g.index)
    lines += [f"GPU{'s' if len(ids) > 1 else ''} {_ids(sorted(ids))}: {run}" for run, ids in on.items()]
    if not wanted and not lines:
        lines.append(f"nvidia-smi listed no process and no memory in use on GPUs {_ids(seen)}.")
    missing = [g for g in wanted if g not in seen]
    nothing = f"GPU {_ids(missing)}: the GPUs nvidia-smi listed are {_ids(seen)}" if missing else None
    return list(dict.fromkeys(lines)), nothing


def _attempt_section(ev: QuestionEvidence, named: list[str]) -> Section:
    if not ev.attempts:
        return [], "attempts: no launch was made yet"
    chosen = [a for a in ev.attempts if a.id in named] if named else ev.attempts
    lines: list[str] = []
    for a in chosen:
        lines.append(f"{a.id} (step {a.step}): {a.change} -> {a.outcome}{_numbers(a)}.")
        if named:
            flags = a.command[len(_LAUNCH) :] if a.command.startswith(_LAUNCH) else a.command
            env = " ".join(f"{k}={v}" for k, v in a.env.items())
            lines.append(f"    flags: {flags or 'not recorded'}" + (f" (env {env})" if env else ""))
            lines += [f"    {level}" for level in a.levels]
    missing = [n for n in named if n not in {a.id for a in ev.attempts}]
    nothing = f"{', '.join(missing)}: my attempts are {', '.join(a.id for a in ev.attempts)}" if missing else None
    return lines, nothing


def _numbers(a: AttemptSeen) -> str:
    parts = []
    if a.aggregate_tps is not None:
        parts.append(f"{a.aggregate_tps:,.1f} tok/s aggregate")
    if a.single_stream_tps is not None:
        parts.append(f"{a.single_stream_tps:,.1f} tok/s single stream")
    if a.ttft_ms is not None:
        parts.append(f"median TTFT {a.ttft_ms:,.0f} ms")
    return f" ({', '.join(parts)})" if parts else ""


def _numbers_section(ev: QuestionEvidence) -> Section:
    measured = [a for a in ev.attempts if a.levels or _numbers(a)]
    lines: list[str] = []
    for a in measured:
        lines.append(f"{a.id} ({a.change}){_numbers(a)}.")
        lines += [f"    {level}" for level in a.levels]
    return lines, None if measured else "throughput: nothing was measured yet"


def _port_section(ev: QuestionEvidence, wanted: list[int]) -> Section:
    seen = sorted({p.port for p in ev.ports})
    entries = [p for p in ev.ports if p.port in wanted] if wanted else ev.ports
    lines = [f"port {p.port} (step {p.step}): {p.what}" for p in entries]
    for port in wanted or seen:
        held = any(p.port == port and p.what.startswith("held by") for p in ev.ports)
        if port in seen and not held:
            lines.append(f"No launch of mine found port {port} taken by another process.")
    missing = [p for p in wanted if p not in seen]
    if missing or not seen:
        ports = f"; the ports in my evidence are {', '.join(map(str, seen))}" if seen else ""
        return lines, f"port {', '.join(map(str, missing))}{ports}" if missing else "ports: no launch used one yet"
    return lines, None


def _by_words(text: str, ev: QuestionEvidence, question: Question) -> list[str]:
    """No topic named: the evidence's lines (then the report's) that hold the question's words."""
    words = [w for w in re.findall(r"[a-z0-9_./-]{3,}", text.lower()) if w not in _STOP]
    if not words:
        return []
    pattern = re.compile("|".join(re.escape(w) for w in words), re.I)
    pool = [*_failure_lines(ev, ev.failures), *ev.interconnect, *ev.memory, *ev.host]
    pool += [f"{a.id}: {a.change} -> {a.outcome}{_numbers(a)}" for a in ev.attempts]
    found = [line for line in pool if pattern.search(line)]
    if not found:
        found = [line for line in _report_lines(question) if pattern.search(line)]
    return found[:6]


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids)) or "none"


def _report_lines(question: Question) -> list[str]:
    lines = [_plain(line) for line in (question.report_markdown or question.question).splitlines()]
    return [line for line in lines if line and not line.startswith(("Reply ", "Question:", "reply:"))]


def _from_report(text: str, question: Question, waits: str, limit: int) -> str:
    lines = _report_lines(question)
    wanted: list[re.Pattern[str]] = [look for asks, look in _TOPICS if asks.search(text)]
    for gpu in re.findall(r"\bgpu\s*(\d+)\b", text, re.I):
        wanted.append(re.compile(rf"\bGPUs?\s+(?:\d+,\s*)*{gpu}\b|gpus=\[[^\]]*\b{gpu}\b|\bGPU\s*{gpu}\b", re.I))
    if not wanted:
        words = [w for w in re.findall(r"[a-z0-9_./-]{3,}", text.lower()) if w not in _STOP]
        wanted = [re.compile(re.escape(w), re.I) for w in words]
    found = [line for line in lines if any(p.search(line) for p in wanted)][:limit]
    if not found:
        return f"I have nothing in my evidence on {text!r}. {waits}"
    shown = "\n".join(f"  - {line[:300]}" for line in found)
    return f"You asked {text!r}. From this run's evidence:\n{shown}\n{waits}"


def _plain(line: str) -> str:
    line = re.sub(r"^\s*(?:[-*•]|\d+\.)\s+", "", line.strip())
    line = re.sub(r"\s*\|\s*", " | ", line).strip(" |")
    return "" if set(line) <= set("-|: ") else line.replace("**", "").replace("`", "")
