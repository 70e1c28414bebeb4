"""English as an operator writes it in a second language, put in the grammar's word order before it
is read: "put the mem fraction on 0.8", "attention backend make it triton", "for gpu 7 don't touching",
"gpu 2 and 5 not use", "not pass --x never", "the port 8080 never use it", "run again the benchmark",
"do restart of the server", "use gpu 0 until 3", "is possible restart with port 30001?". Each form is
one whose meaning is plain from its words; anything else is left as written (and then unread)."""

from __future__ import annotations

import re
from collections.abc import Callable

# a setting's name as an operator says it, before the value it is given
_SETTING = (
    r"(?:the\s+)?(?:attention\s+backend|chunked\s+prefill(?:\s+size)?|context\s+length|mem(?:ory)?\s+fraction(?:\s+static)?|"
    r"max\s+running\s+requests?|cuda\s+graph\s+max\s+bs|kv\s+cache(?:\s+dtype)?|quantization|port|schedule\s+policy|(?-i:(?!GPUS?\b)[A-Z][A-Z0-9_]{2,}))"
)
_IDS = r"\d{1,2}(?:\s*(?:,|and|&|-)\s*\d{1,2})*"
_IDS_SPACED = r"\d{1,2}(?:\s*(?:,|and|&|-|\s)\s*\d{1,2})*"
_PLZ = r"(?:\s+(?:plz|pls|please))?$"  # a clause's polite end


def _range_less(found: re.Match[str]) -> str:
    """ "0-3 except 2" -> "0, 1, 3": a range said with the ids it leaves out."""
    named = range(int(found.group("low")), int(found.group("high")) + 1)
    left_out = {int(n) for n in re.findall(r"\d+", found.group("out"))}
    kept = [str(n) for n in named if n not in left_out]
    return ", ".join(kept) if kept and left_out <= set(named) else found.group(0)


_Replacement = str | Callable[[re.Match[str]], str]
_SAID: list[tuple[str, _Replacement]] = [
        # "put the mem fraction on 0.8", "put NCCL_DEBUG on INFO": the value a setting is put on
        (rf"\b(?:put|set)\s+({_SETTING})\s+(?:on|in)\s+(?=\S)", r"set \1 to "),
        # "attention backend make it triton", "chunked prefill put 4096", "cuda graph max bs on 64"
        # "mem fraction set 0.85", "the port change to 30001": the verb said after the setting it changes
        (
            rf"^({_SETTING})\s+(?:make\s+it|make|put\s+it(?:\s+in)?|put(?:\s+in)?|set\s+it|set(?:\s+to)?|on|use|change(?:d)?\s+to|"
            r"put\s+to)\s+(?=[\w.-]+(?:\s+(?:pls|please|la|lah))?$|[\w.-]+[,;])",
            r"\1 ",
        ),
        # "model path use /data/x": the model
        (r"^model(?:\s+path)?\s+(?:use|change\s+to|set(?:\s+to)?)\s+(?=/\S+$|[\w.-]+/[\w.-]+$)", "use the model "),
        # "pls help to open the server with tp 4", "close the server la": open is launch, close is stop
        (r"^(?:(?:pls|please|can)\s+)?help\s+(?:me\s+)?(?:to\s+)?(?=\w)", ""),
        (r"^(?:re-?)?open\s+(?:the\s+)?(?:server|sglang)\s+(?=with\b|on\b)|^(?:re-?)?open\s+(?=with\s)", "relaunch "),
        (r"^close\s+(?:the\s+)?(?:server|sglang)(?:\s+first)?(?:\s+(?:pls|please|la|lah))?$", "stop the server"),
        (r"^(?:the\s+)?(bench(?:mark)?)\s+(?:run|do|make)\s+(?:again|one\s+more\s+time)\b", r"rerun the \1"),
        (r"^(?:don'?t|do\s+not)\s+open\s+(?:it\s+|the\s+server\s+)?(?=again\b)", "don't relaunch "),
        # "port 30000 other team using": a state (never "serve on port 30000")
        (
            r"^((?:the\s+)?(?:ports?|gpus?|cards?)\s+\d+(?:\s*(?:,|&|and|-)\s*\d+)*)\s+(?:the\s+)?(?:other|another|some|[\w-]+'s)\s+"
            r"(?:team|job|group|guy|person|people)\s+(?:is\s+|are\s+)?(?:using|use|used)(?:\s+(?:it|them))?(?:\s+now)?$",
            r"\1 is in use",
        ),
        # "Switching model tonight: use org/x", "Model swap for the soak: org/x": the model, under a heading
        (r"^(?:switching|switch|swapping)\s+(?:the\s+)?model\b[^:]{0,30}:\s*(?=use\s)", ""),
        (r"^(?:switching|switch|swapping)\s+(?:the\s+)?model\b[^:]{0,30}:\s*(?=[\w.-]+/[\w.-]+$)", "use "),
        (r"^model\s+(?:swap|change)\b[^:]{0,40}:\s*(?=[\w.-]+/[\w.-]+$)", "use "),
        # "schedule policy lpm not fcfs": the value wanted, against the one not (a word, never a port)
        (rf"^({_SETTING})\s+([a-z][\w.-]*)\s+(?:not|rather\s+than|instead\s+of)\s+[a-z][\w.-]*$", r"\1 \2"),
        # "70B not 8B: meta-llama/Llama-3.1-70B-Instruct": the hub id named by the size it has
        (r"^([\w.]+)\s+not\s+[\w.]+\s*:\s*(?=[\w.-]*/[\w.-]*\1[\w.-]*$)", "use "),
        # Spanish habits: "quit the variable X" (quitar), "launch in the port 30010", "it is not necessary the flag
        # --x" (no hace falta), "is necessary --x", "for see what happens" (para: the why)
        (r"^(?:quit|remove|take\s+out)\s+the\s+variable\s+(?=(?-i:[A-Z][A-Z0-9_]{2,})\b)", "unset "),
        (r"\b(?:in|on)\s+the\s+port\s+(?=\d{4,5}\b)", "on port "),
        (r"^(?:it\s+)?is\s+not\s+necessary\s+(?:the\s+flag\s+)?(?=--[a-z])", "don't use "),
        (r"^(?:it\s+)?is\s+necessary\s+(?:the\s+flag\s+)?(?=--[a-z])", "use "),
        # Russian habits: "is necessary port 30001", "launch without radix cache" (без), "take model org/x",
        # "attention backend must be fa3", "backend triton instead flashinfer"
        (r"^(?:it\s+)?is\s+necessary\s+(?=port\s+\d{4,5}$)", "use "),
        (r"^(?:launch|start|run|relaunch|restart)(?:\s+(?:it|the\s+server))?\s+without\s+(radix\s+cache|cuda\s+graphs?)(?=\s+(?:pls|plz|please)$|$)",
         r"disable \1"),
        (r"^(?:launch|start|run|relaunch|restart)(?:\s+(?:it|the\s+server))?\s+without\s+torch\s+compile(?=\s+(?:pls|plz|please)$|$)",
         "don't use --enable-torch-compile"),
        (r"^take\s+(?:the\s+)?model\s+(?=[\w.-]+/[\w.-]+$)", "use the model "),
        (r"^((?:the\s+)?attention\s+backend)\s+must\s+be\s+(?=[a-z]\w*$)", r"\1 "),
        (r"^(?:attention\s+)?backend\s+([a-z]\w*)\s+instead(?:\s+of)?\s+[a-z]\w*$", r"attention backend \1"),
        # Japanese habits: "it may be a little difficult to use gpu 3": a refusal said politely
        (
            rf"^it\s+(?:may|might|would|will)\s+be\s+(?:a\s+little\s+|a\s+bit\s+|rather\s+|somewhat\s+)?difficult\s+to\s+use\s+"
            rf"(?=(?:gpus?\s+{_IDS}|ports?\s+\d{{4,5}})$)",
            "don't use ",
        ),
        (r"\s+for\s+(?:have|see|get|make|avoid|give|know|test|save)\b.*$", ""),
        # Portuguese habits: "put in 30001" (põe na)
        (r"^put\s+(?:it\s+)?(?:in|on)\s+(?=\d{4,5}$)", "serve on port "),
        # a pager's shorthand: "mfs .85", "sched lpm", "p30001", "tp->4", "-gpu3", "disable radix"
        (r"\bmfs\b", "mem fraction static"),
        (rf"^(?:bump|drop|lower|raise|reduce|make)\s+(?!ports?\b)({_SETTING})\s+(?:to\s+)?(?=\.?\d[\d.]*$)", r"\1 "),
        (r"^sched\s+(?=[a-z]+$)", "schedule policy "),
        (r"^p(\d{4,5})\b", r"port \1"),
        (r"^(tp|dp)\s*-+>\s*(\d+)$", r"\1 \2"),
        (r"^-\s*gpus?\s*(?=\d)", "don't use gpu "),
        (r"\b(disable|enable)\s+radix\b(?!\s*cache)", r"\1 radix cache"),
        # "don't forget --kv-cache-dtype fp8_e5m2", "keep X=1": a reminder to use it
        (
            r"^(?:don'?t|dont|do\s+not|never)\s+forget\s+(?:to\s+(?:use|add|set|pass)\s+)?(?=--[a-z]|(?-i:[A-Z][A-Z0-9_]+)=)",
            "use ",
        ),
        (r"^keep\s+(?=(?-i:[A-Z][A-Z0-9_]{2,})=\S+$)", ""),
        # "leave 4-7 for the training job": GPUs kept for another's work
        (r"^leave\s+((?:gpus?\s+)?\d{1,2}(?:\s*(?:-|,|and)\s*\d{1,2})*)\s+for\s+(?:the\s+)?[\w-]+(?:\s+(?:job|team|run|folks))?$",
         r"don't use gpus \1"),
        # "(I would suggest) serving on port 8080", "(it would be preferable) setting X=1": the order, said as -ing
        (r"^(?:i\s+would\s+suggest\s+)?serving\s+(?=on\s+(?:port\s+)?\d{4,5}\b)", "serve "),
        (
            r"^(?:i\s+would\s+suggest\s+|it\s+would\s+be\s+preferable\s+to\s+)?(?:setting|using|passing|adding)\s+"
            r"(?=--[a-z]|(?-i:[A-Z][A-Z0-9_]{2,})=)",
            "",
        ),
        # cluster words for one server: "kubectl delete pod", "scancel the server", "don't resubmit", "cordon 3"
        (r"^kubectl\s+delete\s+(?:the\s+)?(?:pod|deployment)\b", "stop the server"),
        (r"^s?cancel\s+the\s+(?:server|job)$", "stop the server"),
        (r"^(?:but\s+)?(?:don'?t|do\s+not)\s+re-?submit(?:\s+it)?\b", "don't relaunch"),
        (r"^(?:cordon|drain)\s+(?:gpus?\s+)?(?=\d{1,2}\b)", "don't use gpu "),
        # Korean habits: "that one not use" (the thing named before), "--x remove plz" (the object, then the verb)
        (r"^(?:that|this|it)(?:\s+one)?\s+(?:not|never|don'?t)\s+use\b", "don't use it"),
        (r"^(--[a-z][\w-]+)\s+(?:remove|delete|drop|take\s+out)\b", r"remove \1"),
        # "30001port", "0.85ratio": a unit typed onto its number; "gpu 0-3 use", "gpu 4 to 7 only use", "30010port
        # serve", "server stop first", "org/model use", "that two not touch": the object, then the verb
        # "avoid 0-3 except 2": the range less what it leaves out; "neither 30000 nor 30001": both kept out;
        # "use all of them except 5", "ports: anything but 30000-30002"
        (r"(?<![\d.])(?P<low>\d)\s*-\s*(?P<high>\d)\s+(?:except|but\s+not|apart\s+from)\s+(?P<out>\d(?:\s*(?:,|and)\s*\d)*)(?![\d.])",
         _range_less),
        (r"^neither\s+(?:port\s+)?(\d{4,5})\s+nor\s+(?:port\s+)?(\d{4,5})$", r"don't use ports \1 and \2"),
        (r"^neither\s+gpu\s+(\d)\s+nor\s+(?:gpu\s+)?(\d)$", r"don't use gpus \1 and \2"),
        (r"^use\s+all\s+of\s+them\s+(?=except\s+\d)", "use all gpus "),
        (r"^ports?\s*:\s*anything\s+but\s+(?=\d{4,5}(?:\s*-\s*\d{4,5})?$)", "avoid ports "),
        (r"\b(\d{4,5})\s*port\b", r"port \1"), (r"\b(0?\.\d+)\s*ratio\b", r"\1"),
        # "0.85 too high", "0.9 too much": a value judged, never the one to use
        (r"(?<=\d)\s+(?:way\s+|much\s+)?too\s+(high|low|much|big|small|large)\b", r" is too \1"),
        (rf"^((?:gpus?|cards?)\s+{_IDS}(?:\s+to\s+\d)?)\s+only\s+use{_PLZ}", r"use only \1"),
        (rf"^((?:gpus?|cards?)\s+{_IDS}(?:\s+to\s+\d)?)\s+use{_PLZ}", r"use \1"),
        (rf"^(port\s+\d{{4,5}})\s+(?:serve|use){_PLZ}", r"serve on \1"),
        (rf"^(?:the\s+)?server\s+(stop|kill|restart|relaunch)(?:\s+first)?{_PLZ}", r"\1 the server"),
        (rf"^(?:(?:the\s+)?model(?:\s+change)?\s*:?\s*)?([\w.-]+/[\w.-]+)\s+use{_PLZ}", r"use the model \1"),
        (rf"^(?:that|those|these)\s+(?:two|three|four|ones|gpus)\s+(?:not|never|don'?t)\s+(?:use|touch){_PLZ}",
         "don't touch them"),
        (rf"^(?:that|this)\s+gpu\s+(?:exclude|not\s+use){_PLZ}", "don't use it"),
        (r"^not\s+start\s+again\b", "don't relaunch"),
        (rf"^keep\s+((?:gpus?|cards?)\s+{_IDS})\s+(?:free|empty|clear|untouched|alone){_PLZ}", r"don't use \1"),
        # "don't launch on gpu 3", "point it at org/x"
        (r"^(?:don'?t|do\s+not|never)\s+(?:launch|run|serve|start)\s+(?:anything\s+)?on\s+(?=gpus?\s*\d)",
         "don't use "),
        (r"^point\s+(?:it|the\s+server)\s+at\s+(?=[\w.-]+/[\w.-]+$)", "use the model "),
        # Vietnamese habits: "gpu 6 7 avoid", "port 30000 30001 both cannot", "tp 4 dp 2 la ok" (là: "is")
        (rf"^((?:gpus?|cards?)\s+{_IDS_SPACED})\s+(?:avoid|exclude|skip|cannot(?:\s+use)?){_PLZ}", r"avoid \1"),
        (r"^ports?\s+(\d{4,5}(?:\s*(?:,|and|&|\s)\s*\d{4,5})*)\s+(?:both\s+|all\s+)?(?:cannot|can'?t|can\s+not|avoid)(?:\s+use)?$",
         lambda found: "avoid ports " + ", ".join(re.findall(r"\d+", found.group(1)))),
        (r"^((?:(?:tp|dp)\s*\d+[\s,]*){1,2}?)\s*(?:la|là|lah)\s+ok(?:ay)?$", r"\1"),
        (r"^after\s+i\s+check,?\s+i\s+(?:tell|say)(?:\s+(?:to\s+)?you)?(?:\s+to)?\s+restart$",
         "don't relaunch till I say so"),
        (rf"^((?-i:[A-Z][A-Z0-9_]{{2,}}))\s+(\S+)\s+(?:setting|set){_PLZ}", r"\1=\2"),
        # "port change: 8080": the port to serve on
        (r"^port\s+change\s*:?\s*(?=\d{4,5}\b)", "use port "),
        # "no need to use it": a must-not said as no need
        (r"^no\s+need\s+(?:to\s+)?(use|touch)\b", r"don't \1"),
        (r"\bmax\s+running\s+(?:request|req|reqs)\b", "max running requests"),
        # "fa3 as attention backend", "flashinfer for the attention backend": the value, then its setting
        (
            r"^((?:perhaps|maybe)\s+)?(\w+)\s+(?:as|for)\s+(?:the\s+)?(attention\s+backend|kv\s+cache\s+dtype|quantization)"
            r"(?=$|\s*\?$|\s+rather\s+than\s+\w+\??$)",
            r"\1\3 \2",
        ),
        # "radix cache disable": the switch said after what it switches
        (r"^(radix\s+cache|cuda\s+graphs?|torch\s+compile|dp\s+attention)\s+(disable|enable)$", r"\2 \1"),
        (r"^(radix\s+cache|cuda\s+graphs?|torch\s+compile)\s+off$", r"disable \1"),
        # "for gpu 7 don't touching", "don't using": the verb in its plain form, the thing after it
        (r"\b(don'?t|do\s+not|never)\s+(touch|use|pass|launch|restart|relaunch)ing\b", r"\1 \2"),
        (r"^for\s+((?:gpus?|ports?)\s+[\d\s,&and-]+?)\s+(don'?t|do\s+not|never)\s+(touch|use)\b", r"\2 \3 \1"),
        # "gpu 2 and 5 not use", "the port 8080 never use it": the must-not said after what it is about
        (
            rf"^(?:the\s+)?((?:gpus?|ports?)\s+{_IDS})\s+(?:not|never|don'?t|do\s+not)\s+(?:use|"
            rf"touch)(?:\s+(?:it|them))?\b",
            r"never use \1",
        ),
        (
            r"^(?:the\s+)?(ports?\s+\d{4,5}(?:\s*(?:,|and|&)\s*\d{4,5})*)\s+(?:not|never|don'?t|"
            r"do\s+not)\s+(?:use|touch)(?:\s+(?:it|them))?\b",
            r"never use \1",
        ),
        # "not pass --x never", "not give the --x flag", "not use gpu 3": a must-not said with "not" first
        (r"^not\s+(?:pass|give|use|put|add)\s+(?:the\s+)?(--[\w-]+)(?:\s+flag)?(?:\s+never)?\b", r"never pass \1"),
        (r"^not\s+(use|touch)\s+(?=(?:the\s+)?(?:gpus?|ports?)\b)", r"don't \1 "),
        # "run again the benchmark", "make the bench one more time", "do restart of the server"
        (r"^(?:run|do|make)\s+again\s+the\s+(bench(?:mark)?)\b", r"rerun the \1"),
        (r"^(?:make|do|run)\s+the\s+(bench(?:mark)?)\s+(?:one\s+more\s+time|once\s+more|again)\b", r"rerun the \1"),
        (r"^(?:do|make)\s+(?:a\s+)?(restart|relaunch)\s+of\s+the\s+(server|sglang)\b", r"\1 the \2"),
        # "use gpu 0 until 3": a range said with "until"
        (r"(?<=\d)\s+until\s+(?=\d)", "-"),
        (r"\bthe\s+model\s+is\s+need(?:s)?\b", "the model needs"),
        # "you can making tp 4": a request said with "you can"
        (r"^(?:you\s+can|can\s+you)\s+(?:mak|do|put|set)(?:e|ing)?\s+(?=(?:tp|dp)\s*\d|--)", ""),
        # "is possible restart with port 30001?": a request asked as a question
        (
            r"^(?:is\s+(?:it\s+)?possible|it\s+is\s+possible)\s+(?:to\s+)?((?:restart|relaunch|use|"
            r"serve|set)\b[^?]*)\?$",
            r"\1",
        ),
        (r"\bgup(s?)\b", r"gpu\1"),
        # "tp4on0-3": a layout and the GPUs it runs on, typed as one word
        (r"\b(tp|dp)\s*(\d+)\s*on\s*(?=\d)", r"\1 \2 on "),
        # "set nccl debug info": a variable set with no "=" ("NCCL debug" is spelt out before this)
        (r"^set\s+((?-i:[A-Z][A-Z0-9_]{2,}))\s+(?:to\s+)?((?-i:[A-Z0-9_.]+))$", r"\1=\2"),
        # "don't quantize the weights": no --quantization
        (r"^(?:don'?t|do\s+not|never)\s+quantize(?:\s+(?:the\s+)?(?:weights|model|it))?\b", "don't use --quantization"),
]  # fmt: skip
_FORMS = [(re.compile(p, re.I), english) for p, english in _SAID]


def in_plain_order(text: str) -> str:
    """`text` with each second-language form above in the grammar's order; the rest as it was. A clause's
    leading "but"/"and" ("ok but port use 8000") is no part of the form after it."""
    joined = _JOINED.match(text) if not text.rstrip().endswith("?") else None  # "but benchmark run again already?"
    said = text[joined.end() :] if joined else text
    for form, english in _FORMS:
        said = form.sub(english, said)
    return text if joined and said == text[joined.end() :] else said


_JOINED = re.compile(r"^(?:but|and|also|so)\s+", re.I)
