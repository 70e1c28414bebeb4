"""Signs a chat operator types for words, put in those words before a sign is weighed: keycap digits
("2️⃣" is 2), a shrug alone ("🤷": you decide), a restart's arrows ("🔁 on 30002"), the benchmark's chart
("📊 again"), a skull on GPUs ("💀 5 & 7": dead), and signs that only decorate a setting said whole ("mem
frac 0.85 📉", "NCCL_DEBUG=INFO 🐛", "tp4 dp2 ✌️"), which are dropped. Any other sign is left to
agent.hearing.spoken, which keeps a clause with a sign it cannot place unread."""

from __future__ import annotations

from agent.hearing import word_table

_V = "\ufe0f?"  # the variation selector a phone adds after a sign
_SIGNS = word_table.compiled(
    [
        (rf"([0-9]){_V}\u20e3", r"\1"),  # "2️⃣": a keycap digit
        (rf"^\s*🤷[\u200d\u2640\u2642{_V}]*\s*$", "you decide"),
        (rf"🤷[\u200d\u2640\u2642{_V}]*\s*", ""),  # "🤷 mem frac": the shrug beside words, which say the rest
        (r"^\s*👌\s*$", "ok"),
        (rf"^\s*(?:🔁|🔄){_V}", "restart "),  # "🔁", "🔁 on 30002"
        (rf"(?<=[\w.])\s*\+?\s*(?:🔁|🔄){_V}\s*$", ""),  # "mem frac 0.9 + 🔁": the change's relaunch, said again
        (rf"📊{_V}", "run the benchmark "),
        (rf"🔌{_V}\s*server\s+off\b", "stop the server"),
        (rf"💀{_V}\s*(?:gpus?\s*)?(\d(?:\s*(?:,|&|and)\s*\d)*)\b(?!\s+is\b)", r"gpus \1 are dead"),
        (rf"💀{_V}\s*(?=gpus?\s*\d)", ""),  # "💀 gpu 5 is cooked": the words say it
        # signs that only decorate: a chart's trend, a tool, a bug, a llama, a thermometer, a pointer, a v-sign
        (rf"\s*[📈📉🔧💾🐛🎚✌🦙🌡⬆⬇👈👉]{_V}", ""),
    ]
)


def in_words(text: str) -> str:
    """`text` with the signs above put in words, or dropped where they only decorate."""
    return word_table.rewritten(text, _SIGNS).strip() or text
