"""The operator's everyday words, rewritten into the instruction grammar's canonical clauses.

Operators type "set the mem fraction to 0.8", "disable cuda graphs", "use port 30001 instead",
"relaunch with NCCL_P2P_DISABLE=1" or "use 4 GPUs"; the grammar (`agent.hearing.instructions`) reads
"--mem-fraction-static 0.8", "--disable-cuda-graph", "port 30001", "relaunch" + "NCCL_P2P_DISABLE=1",
"tp 4". `canonical` makes that rewrite for a clause the grammar did not read, so the report can
say how each was read. A rewrite covers the whole clause or none of it: a misread instruction is
worse than one answered "I did not understand".
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.hearing import forms, not_taken
from agent.hearing.flag_vocabulary import flag_named as _flag_named
from agent.hearing.flag_vocabulary import is_value as _is_value
from agent.hearing.flag_vocabulary import sglang_flags as _sglang_flags
from agent.hearing.flag_vocabulary import takes_a_number
from agent.hearing.normalise import NEGATED_LIST as _NEGATED_LIST

# Words around an instruction that change nothing about it.
# when the operator wants it done: "after the restart please benchmark again", "before signing off could you ..."
_WHEN = (
    r"(?:after|once)\s+(?:the|a|that)\s+(?:restart|relaunch|bounce)|before\s+sign(?:ing)?\s+(?:it\s+)?off|"
    r"before\s+i\s+sign(?:\s+(?:anything|it|this|off))*|i'?d(?=\s+(?:leave|drop|keep|stick|avoid|skip|disable|turn)\b)"
)
_LEADING = re.compile(
    r"^(?:(?:please\s+to|please|pls|svp|ok(?:ay)?|now|so|but|alright|right|also|then|next(?:\s+launch)?|instead(?!\s+of\b)|actually|honestly|fyi|btw|by\s+the\s+way|"
    r"well|hmm|you\s+can|you\s+may|feel\s+free\s+to|yeah|yep|yes|ya|sure|lgtm|"
    # "first stop the server": when, not what; never "first 4 gpus" (a count of GPUs)
    r"first(?:ly|\s+of\s+all)?(?![\s,]+(?:\d|one|two|three|four|five|six|seven|half|gpus?|cards?)\b)|"
    r"we\s+need(?:\s+to)?|do(?=\s+(?!not\b)(?!#?\d))|"
    r"can\s+you|could\s+you|would\s+you|will\s+you|i\s+want\s+you\s+to|i'?d\s+like\s+you\s+to|"
    r"let'?s|lets|go\s+ahead\s+and|just|from\s+now\s+on|for\s+now|for\s+the\s+next\s+launch|"
    # "tonight, tp 4", "here stick to 4-7" (this host, against another named before)
    r"(?:for\s+)?tonight|here(?=[\s,]+(?:use|stick|do|go|run|set|serve|try|keep|stay)\b)|"
    r"fwiw|ngl|tbh|imo|iirc|afaik|rn|right\s+now|quick(?:ly)?|asap|kindly|whatever\s+you\s+do|no\s+matter\s+what|"
    r"under\s+no\s+circumstances\s+(?=(?:use|touch|pass|set)\b)|i'?d\s+prefer(?:\s+to)?|i\s+prefer\s+that\s+(?:you|we)|i'?d\s+like(?:\s+to)?|i\s+want(?:\s+to)?|"
    # the formal ways to ask ("I would appreciate it if you could ...", "Please ensure that ...")
    r"i\s+would\s+(?:appreciate\s+it|be\s+grateful)\s+if\s+you\s+(?:could|would)|i\s+would\s+ask\s+that\s+you|"
    r"i\s+(?:would|should)\s+like\s+the\s+server\s+to|i'?d\s+like\s+the\s+server\s+to|"
    r"i\s+(?:would|should)\s+like(?:\s+you)?(?:\s+to)?|(?:please\s+)?(?:ensure|make\s+sure)(?:\s+that)?|be\s+so\s+kind\s+as\s+to|"
    r"i\s+would\s+suggest(?:\s+that\s+(?:we|you))?|it\s+would\s+be\s+preferable\s+to|"
    rf"(?:could|would|can)\s+you\s+(?:kindly|possibly)|do\s+one\s+thing|{_WHEN})\b[\s,:]*)+",
    re.I,
)
_TRAILING = re.compile(
    r"(?:[\s,]+(?:please|pls|svp|kindly|would\s+you|i'?m\s+afraid|mate|no\s+wukkas|next\s+time\s+round|for\s+a\s+(?:bit|while|moment)|"
    r"(?:if|when)\s+(?:you|we)\s+(?:re-?launch|restart|bounce)(?:\s+(?:it|again))?|before\s+you\s+hand\s+(?:it\s+)?over|instead|for\s+now|from\s+now\s+on|going\s+forward|now|thanks|thank\s+you|"
    r"on\s+the\s+next\s+(?:launch|run|try)|for\s+the\s+next\s+(?:launch|run|try|go)|"
    r"for\s+tonight(?:'?s?\s+(?:runs?|launch(?:es)?))?|overnight|"
    r"for\s+(?:all\s+)?(?:the\s+)?(?:future\s+|next\s+)?launch(?:es)?|next\s+time|this\s+time|from\s+here\s+on|ever|anymore|"
    r"any\s+more|(?:to|in|into|for|from)\s+(?:the\s+)?(?:launch\s+|server(?:'s)?\s+)?env(?:ironment)?|override|setting|"
    r"(?:for|on)\s+every\s+(?:launch|run|server)|always|everywhere|here|for\s+(?:this|that)(?:\s+one)?|"
    r"period|full\s+stop|end\s+of\s+story|at\s+any\s+cost|only\s+for\s+(?:this|that)(?:\s+one)?|only\s+for\s+(?:the\s+)?(?:next|this)\s+(?:launch|run|deployment)|(?<=\d{4}\s)only|no\s+exceptions|for\s+the\s+bench(?:mark)?(?:\s+run)?|(?-i:per\s+[A-Z][a-z]+)|"
    # a must-not kept until the operator lifts it: "off limits till the RMA ticket closes"
    r"(?:till|until)\s+(?:the\s+)?(?:rma|ticket|repair|fix|maintenance|swap|replacement|vendor|further\s+notice)\b.*|"
    r"(?:till|until)\s+(?:they|someone|ops|infra|facilities|(?:the\s+)?(?:dc|vendor|hw\s+team))\s+(?:swaps?|replaces?|fix(?:es)?|repairs?|rmas?)\b.*|"
    r"(?:until|till|unless)\s+(?:i|we)\s+say\s+(?:so|otherwise)|until\s+(?:we|i|someone)\s+(?:figure|sort|fix|find|know|understand|root[-\s]cause)\b.*|on\s+(?:the\s+rest|the\s+others|those|them)(?:\s+(?:gpus|cards))?|"
    r"but\s+(?:leave|keep)\s+the\s+(?:run|session)\s+(?:up|going|alive|open|running)|"
    r"but\s+(?:don'?t|do\s+not)\s+(?:end|stop|kill)\s+the\s+(?:run|session)|"
    r"before\s+(?:launching|relaunching|the\s+(?:next\s+)?(?:re)?launch|you\s+(?:re-?)?(?:launch|start)(?:\s+it)?)|"
    r"to\s+the\s+(?:args|arguments|command(?:\s+line)?|launch(?:\s+(?:args|command))?|server\s+args)|on\s+it|"
    r"(?-i:NoSchedule|NoExecute|PreferNoSchedule)|"
    r"(?:for|before|on|to|in)\s+the\s+next\s+(?:runs?|launch(?:es)?|tries|attempts?)|altogether|each|on\s+this\s+(?:box|host|machine|node)(?:\s+again)?|flag|"
    r"explicitly|anyway|first|while\s+we'?re\s+at\s+it|so\s+that\b.*|(?:for|in)\s+(?:this|the|that)\s+(?:experiment|test|debug(?:ging)?(?:\s+loop)?|attempt|try|run|one|launch|baseline|ablation|sweep|comparison)|"
    r"\(.*\)|so\s+(?:that\s+)?(?:we|i|you|it|the)\b.*|because\b.*|since\s+(?:we|i|it|the)\b.*|since\s+\S+\s+(?:is|are|was|were|has|have|needs?)\b.*|"
    r"to\s+(?:silence|see|check|debug|get|avoid|rule\s+out|find|reduce|save|free|cut|lower|speed|improve|fit)\b.*|also|itself|"
    r"instead\s+of\s+(?:the\s+)?(?:current\s+|old\s+|existing\s+)?\S+|rather\s+than\s+(?:the\s+)?\S+|"
    r"too|as\s+well|then|next(?:\s+round)?|<-+\s*(?:use|try|set|run)\s+(?:that|this|these|those)|(?:is\s+)?set|"
    r"for\s+(?:the\s+)?server|env(?:ironment)?\s+var(?:iable)?s?|"
    # an SRE's asides and the launch the instruction is for: they change nothing it says
    r"rn|right\s+now|asap|meanwhile|in\s+the\s+meantime|fwiw|ngl|tbh|imo|iirc|afaik|either|today|tonight|for\s+good|pls\s+and\s+thx|"
    r"for\s+anything|at\s+all|while\s+you'?re\s+at\s+it|no\s+matter\s+what|from\s+now(?:\s+on)?|"
    r"for\s+when\s+we\s+do|for\s+later|entirely|together|ever\s+again|both|"
    r"<-+\s*(?:that|this|these|those)(?:\s+(?:set|one|please|pls))?|for\s+the\s+(?:time\s+being|moment)|at\s+present|"
    r"if\s+you\s+would\s+be\s+so\s+kind|from\s+(?:anything|everything|all)\s+(?:you\s+)?launch(?:es)?|"
    r"for\s+this\s+(?:bench(?:mark)?|test|run|sweep)|under\s+any\s+circumstances|for\s+all\s+further\s+launches|"
    r"(?:to|in|into|for|from|on)\s+(?:the\s+)?(?:launch\s+|server(?:'s)?\s+)?env(?:ironment)?|"
    r"with\s+(?:it|that|this(?:\s+one)?)|for\s+next\s+time|on\s+the\s+(?:launch\s+|server\s+)?env(?:ironment)?|"
    r"on\s+this\s+(?:model|build|cluster|setup|run|one|deployment)|"
    r"(?:before|for|on|in|with|at)\s+the\s+(?:next\s+)?(?:launch|restart|relaunch|run|bounce|boot|start|one)|"
    r"(?:for\s+)?the\s+rest\s+of\s+(?:the\s+|this\s+)?(?:run|session|day|night)))+$",
    re.I,
)

# Named knobs of SGLang, as operators say them, and the flag each is.
_KNOBS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"^(?:the\s+)?(?:static\s+)?mem(?:ory)?[-_ ]?frac(?:tion)?(?:[-_ ]static)?$", re.I),
        "--mem-fraction-static",
    ),
    (re.compile(r"^(?:the\s+)?attention(?:[-_ ]backend)?$", re.I), "--attention-backend"),
    (
        re.compile(r"^(?:the\s+)?kv(?:[-_ ]?cache)?(?:[-_ ](?:dtype|data\s*type|type|precision))?$", re.I),
        "--kv-cache-dtype",
    ),
    (re.compile(r"^(?:the\s+)?cuda[-_ ]?graph[-_ ](?:max[-_ ])?(?:bs|batch[-_ ]size)$", re.I), "--cuda-graph-max-bs"),
    (
        re.compile(r"^(?:the\s+)?(?:max(?:imum)?[-_ ])?(?:context|ctx)(?:[-_ ]?(?:length|len|window))?$", re.I),
        "--context-length",
    ),
    (
        re.compile(r"^(?:the\s+)?(?:max(?:imum)?[-_ ])?(?:running|concurrent)[-_ ]req(?:uest)?s$", re.I),
        "--max-running-requests",
    ),
    (re.compile(r"^(?:the\s+)?chunked[-_ ]prefill(?:[-_ ]size)?$", re.I), "--chunked-prefill-size"),
    (re.compile(r"^(?:the\s+)?(?:moe[-_ ]runner(?:[-_ ]backend)?|moe[-_ ]backend)$", re.I), "--moe-runner-backend"),
    (re.compile(r"^(?:the\s+)?nsa[-_ ]decode(?:[-_ ]backend)?$", re.I), "--nsa-decode-backend"),
    (re.compile(r"^(?:the\s+)?dsa[-_ ]decode(?:[-_ ]backend)?$", re.I), "--dsa-decode-backend"),
]
_TP_WORDS = re.compile(r"^(?:the\s+)?(?:tp|tensor[-_ ]parallel(?:ism)?)(?:[-_ ]size)?$", re.I)
_PORT_WORDS = re.compile(r"^(?:the\s+)?(?:server(?:'s)?\s+)?port$", re.I)
# A ticket ("INC0098777", "CHG0041935") is cited, never a variable to set or drop.
_ENV_NAME = re.compile(r"^(?![A-Z]{2,8}\d{3,}$)[A-Z][A-Z0-9_]{2,}$")
_ENV_ASSIGN = re.compile(r"^[A-Z][A-Z0-9_]{2,}=[^\s?]+$")
_VALUE = r"(?P<val>[A-Za-z0-9_.+-]+)"

# "set X to V", "lower the mem fraction to 0.8", "change the attention backend to triton"
_SET_TO = re.compile(
    r"^(?:set|change|make|put|lower|raise|bump(?:\s+up)?|increase|decrease|reduce|drop|move|switch|turn|"
    r"adjust|update|use|cap|limit|pin|keep|bring|take|knock|dial)\s+(?P<what>.+?)(?:\s+(?:down|up|back))?\s+(?:to|=|at|of|in)\s+"
    + _VALUE
    + r"$",
    re.I,
)
_VALUE_FOR = re.compile(r"^(?:(?:use|try|set|pick|choose)\s+)?" + _VALUE + r"\s+(?:for|as)\s+(?P<what>.+)$", re.I)
_KNOB_VALUE = re.compile(
    r"^(?P<what>.+?)\s*(?:=|:|\s+in|\s+at|\s+of|\s+as)?\s+" + _VALUE + r"(?:\s+only)?$", re.I
)  # "mem fraction 0.8"
_KV_VALUES = {"fp8": "fp8_e4m3", "fp8e4m3": "fp8_e4m3", "e4m3": "fp8_e4m3", "fp8e5m2": "fp8_e5m2", "e5m2": "fp8_e5m2"}

_FEATURES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(?:the\s+)?cuda[-_ ]?graphs?(?:\s+capture)?$", re.I), "--disable-cuda-graph"),
    (re.compile(r"^(?:the\s+)?custom[-_ ]?all[-_ ]?reduce$", re.I), "--disable-custom-all-reduce"),
    (
        re.compile(r"^(?:the\s+)?(?:prefix[-_ ]cach(?:e|ing)|radix[-_ ]?cache|prefix\s+reuse)$", re.I),
        "--disable-radix-cache",
    ),
]
_ENABLE_FEATURES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(?:the\s+)?(?:dp|data[-_ ]parallel)[-_ ]attention$", re.I), "--enable-dp-attention"),
    (re.compile(r"^(?:the\s+)?torch[-_ .]?compile$", re.I), "--enable-torch-compile"),
]
_OFF = re.compile(
    r"^(?:disable|turn\s+off|switch\s+off|no\s+more|no|without|skip|leave\s+out|(?:don'?t|never|do\s+not|not)\s+(?:use|set|pass|add|export|put)|"
    r"(?:stop|quit|cease)\s+(?:using|setting|passing|adding|exporting|forcing)|refrain\s+from\s+(?:passing|using|setting|adding)|"
    r"unexport|unset|drop|rm|lose|take\s+out|"
    r"remove|kill|get\s+rid\s+of|rip\s+out|yank|pull\s+out)\s+(?:the\s+)?(?P<what>.+?)(?:\s+(?:off|anymore|any\s+more))?$"
    # "take NCCL_P2P_LEVEL out (of the launch env)", "leave the cuda graph max bs flag out entirely"
    r"|^(?:take|leave|keep|pull|strip|rip|yank|get)\s+(?:the\s+)?(?P<out>.+?)\s+out(?:\s+of\s+(?:the\s+)?(?:launch\s+|server\s+)?"
    r"(?:env(?:ironment)?(?:\s+block)?|command(?:\s+line)?|cmdline|launch|args))?(?:\s+entirely|\s+completely|\s+for\s+good)?$",
    re.I,
)
_ON = re.compile(
    r"^(?:enable|re-?enable|turn\s+on|switch\s+on|turn\s+back\s+on|bring\s+back|use|try|put\s+back|add|pass|force|go\s+with|"
    r"set|export|put|pin)\s+(?P<what>.+?)"
    r"(?:\s+(?:back\s+on|on|again|back))?$",
    re.I,
)
_OFF_AFTER = re.compile(  # "turn cuda graphs off", "cuda graphs disabled"
    r"^(?:(?:(?:turn|switch|shut)\s+)?(?P<what>.+?)\s+off"
    r"|(?:with\s+)?(?P<state>.+?)\s+(?:disabled|turned\s+off|switched\s+off))$",
    re.I,
)
_ON_AFTER = re.compile(
    r"^(?:(?:turn|switch)\s+)?(?P<what>.+?)\s+(?:(?:back\s+)?on(?:\s+again)?|enabled|re-?enabled)$", re.I
)
_P2P = re.compile(r"^(?:the\s+)?(?:nccl\s+)?(?:gpu\s+)?p2p(?:\s+transport)?$", re.I)

# "use the triton attention backend", "try fa3 attention", "an fp8 kv cache"
_NAMED_BACKEND = re.compile(
    r"^(?:(?:use|try|switch\s+to|go\s+with|launch\s+with|with)\s+)?(?:the\s+|an?\s+)?(?P<val>[a-z0-9_]+)\s+"
    r"(?P<kind>attention|kv[-_ ]?cache|moe(?:[-_ ]runner)?|(?=backend$))(?:\s*(?:backend|dtype|runner))?$",
    re.I,
)
_GPU_COUNT = re.compile(
    r"^(?:(?:use|try|do|(?:run|serve|launch)(?:\s+(?:it|the\s+model|the\s+server))?\s+(?:on|across|over)|spread\s+(?:it\s+)?(?:over|across)|go\s+(?:to|with)|"
    r"on|across)\s+)?"
    r"(?:only\s+|just\s+|(?P<all>all\s+))?(?P<n>\d{1,2})\s+(?:of\s+the\s+)?gpus?(?P<tp>\s+with\s+(?:tensor[-\s]parallel(?:ism)?|tp))?$",
    re.I,
)
_PORT_MOVE = re.compile(
    r"^(?:move|switch|change|bind|listen|serve|put|go\s+with)(?:\s+(?:the\s+)?(?:server|it|sglang))?(?:\s+over)?(?:\s+(?:to|on))?\s+(?:port\s+(\d{2,5})|(\d{4,5}))$",
    re.I,
)
_GPU_AVOID = re.compile(
    r"^(?:keep(?=\s+(?:the\s+)?gpus?\s+\S+(?:\s*(?:,|and)\s*\S+)*\s+out\b)|stay\s+off|keep\s+off|leave|exclude|skip|keep\s+(?:well\s+|far\s+)?away\s+from|stay\s+(?:well\s+|far\s+)?away\s+from|no\s+more|stop\s+using|"
    r"quit\s+using|never\s+use|drop|keep\s+clear\s+of|stay\s+clear\s+of|fence\s+off|cordon(?:\s+off)?|drain|taint|blacklist|blocklist|denylist|ban|steer\s+clear\s+of|(?:keep\s+(?:your\s+)?)?hands\s+off(?:\s+of)?|"
    r"never\s+(?:schedule|launch|run|serve)\s+on|(?:never|don'?t|do\s+not)\s+(?:schedule|put|run|place|land|launch|start)\s+(?:anything|stuff|something|"
    r"any\s+(?:work|jobs?|workloads?)|jobs?|workloads?|it|the\s+server)\s+on|keep\s+(?:everything|stuff|things|it|"
    r"the\s+server|workloads?)\s+off(?:\s+of)?|nothing\s+(?:goes\s+)?on)\s+(?P<what>(?:the\s+)?gpus?\s+.+?)"
    r"(?:\s+alone|\s+untouched|\s+out(?:\s+of\s+(?:it|this|the\s+launch|(?:every|any|all)\s+(?:future\s+)?launch(?:es)?))?)?$",
    re.I,
)
_THROUGH = re.compile(r"(\d)\s+(?:through|thru)\s+(\d)", re.I)
_RELAUNCH_WITH = re.compile(
    r"^(?:re-?launch|restart|relaunch\s+the\s+server|restart\s+the\s+server|launch\s+again|start\s+again|bounce|cycle)\s+"
    r"(?:it\s+|sglang\s+|the\s+server\s+)?(?P<with>with(?:out)?)\s+(?P<rest>.+)$",
    re.I,
)
_WITH = re.compile(r"^(?:run|serve|start|go|launch)\s+(?:it\s+|sglang\s+|the\s+server\s+)?with\s+(?P<rest>.+)$", re.I)
_RELAUNCH_WORDS = re.compile(
    r"^(?:re-?launch|restart|re-?start|bring\s+up|start|launch|spin\s+up|boot|bounce|cycle)\s+(?:the\s+|my\s+)?(?:sglang\s+)?"
    r"(?:server|it|sglang)(?:\s+(?:again|back\s+up|up\s+again|now))?$"
    r"|^bring\s+(?:the\s+server|it|sglang)\s+back(?:\s+up)?(?:\s+again)?$",
    re.I,
)
_STOP_WORDS = re.compile(
    r"^(?:(?:shut|turn|switch)\s+(?:the\s+)?(?:sglang\s+)?(?:server|it|sglang)\s+off)$|"
    r"^(?:stop|kill|shut\s*down|terminate|take\s+down|bring\s+down|tear\s+down|nuke|kill\s+off)\s+(?:the\s+|my\s+|your\s+|that\s+)?"
    r"(?:running\s+|current\s+|old\s+)?(?:sglang\s+)?(?:server|sglang|it|instance)(?:\s+on\s+:?(?:port\s+)?\d{4,5})?"
    r"(?:\s+(?:down|now))?$|^(?:shut|take|bring|tear)\s+(?:the\s+)?(?:sglang\s+)?"
    r"(?:server|it|sglang)\s+down$",
    re.I,
)
_MEASURE_AGAIN = re.compile(
    # "after you relaunch the benchmark", "you bench again after": a French speaker's "relancer le benchmark"
    r"^(?:after(?:wards)?\s+)?(?:you\s+)?(?:(?:re-?run|re-?launch|run|do|repeat|redo|take)\s+(?:the\s+|a\s+|another\s+|one\s+more\s+|that\s+)?"
    r"(?:bench(?:mark)?|bench_serving|sglang\.bench_serving|measurement|perf(?:ormance)?\s+test|throughput\s+test|"
    r"load\s+test)(?:\s+run)?s?"
    r"|re-?run|re-?measure(?:\s+(?:it|that|the\s+throughput))?|re-?bench(?:mark)?(?:\s+it)?(?:\s+the\s+(?:running\s+)?server)?"
    r"|(?:measure|bench(?:mark)?)\s+(?:it\s+|that\s+|the\s+throughput\s+)?(?:again|once\s+more|one\s+more\s+time)"
    r"|(?:(?:do|run)\s+)?(?:another|one\s+more)\s+(?:bench(?:mark)?|measurement)(?:\s+(?:run|pass|round))?(?:\s+please)?)"
    r"(?:\s+(?:again|once\s+more|one\s+more\s+time))?(?:\s+(?:on|against)\s+(?:the\s+|this\s+)?(?:running\s+|current\s+|same\s+|live\s+)?"
    r"(?:server|sglang|setup|config(?:uration)?)|\s+(?:on|against)\s+what'?s\s+(?:up|running|live|there)(?:\s+now)?)?"
    r"(?:\s+(?:at|with|on)\s+the\s+same\s+(?:settings|config(?:uration)?|flags|setup))?"
    r"(?:\s+(?:once|when|after)\s+(?:it'?s|it\s+is|the\s+server\s+is)\s+(?:up|ready|fired\s+up|serving|healthy))?"
    r"(?:\s+as\s+(?:it\s+stands|it\s+is|is)|\s+(?:the\s+)?current(?:\s+(?:one|server|setup|config))?)?"
    r"(?:\s+at\s+the\s+same\s+(?:concurrency|load|settings|rate))?(?:\s+after(?:wards)?)?"
    r"(?:\s+(?:before|so)\s+.+)?$",
    re.I,
)


# "park it": stop the server and launch nothing until told
_PARK = re.compile(r"^park\s+(?:it|the\s+server|sglang)(?:\s+for\s+now)?$", re.I)
_ENV_ASSIGNS = re.compile(r"^[A-Z][A-Z0-9_]{2,}=\S+(?:\s+[A-Z][A-Z0-9_]{2,}=\S+)+$")  # "A=1 B=2", as a shell line
_COURTESY = re.compile(
    r"^(?:thanks|thank\s+you|thx|cheers(?:\s+mate)?|please|pls|ta|btw|fyi|lol|haha|bitte|danke|my\s+bad|apologies|"
    r"mate|no\s+wukkas|no\s+worries|i'?m\s+afraid|kindly\s+note|(?:ok\s+)?na\?*|"
    r"(?:just\s+)?(?:to\s+be\s+(?:safe|sure)|in\s+case)|"
    r"sorry(?:\s+sorry)*(?:\s+(?:for|about)\s+(?:the|all\s+the|that|this)(?:\s+\w+)?(?:\s+(?:wait|delay|changes|noise|churn|back\s+and\s+forth)))?)[\s!.]*$",
    re.I,
)


def is_courtesy(clause: str) -> bool:
    """A clause that only thanks or asks nicely: no instruction, and nothing to say it was not understood."""
    return bool(_COURTESY.match(clause.strip()))


_PORT_LIST = r"(?P<ports>\d{4,5}(?:\s*(?:,|and|or|-|to|&|/)\s*\d{4,5})*)"
_PORT_USE = re.compile(
    r"^(?:(?:serve|bind|listen|run|put\s+it|launch|start|bring\s+it\s+up)(?:\s+(?:it|the\s+server|sglang))?\s+(?:on|to|at)|use|go|"
    r"(?:the\s+)?(?:next\s+)?launch\s+(?:goes|runs|serves|listens)\s+on|(?:the\s+)?next\s+server\s+(?:goes|runs|serves|listens)\s+on)\s+"
    # a bare number is a port, never a size ("use 4096" after "chunked prefill ... like 4096")
    r"(?:(?:the\s+)?port\s+|(?!(?:1024|2048|4096|8192|16384|32768|65536)$))(?P<port>\d{4,5})$",
    re.I,
)
_PORT_AVOID = re.compile(
    r"^(?:stay\s+(?:away\s+from|off)|keep\s+(?:away\s+from|off)|(?:don'?t|do\s+not)\s+(?:bind(?:\s+to)?|use|touch|"
    r"(?:listen|serve|run|launch|start)\s+on)|avoid|never(?:\s+(?:use|touch|bind(?:\s+to)?|serve\s+on|put\s+anything\s+on))?|"
    r"stop\s+using|skip|leave|not|never\s+(?:take|grab|listen\s+on|run\s+on|start\s+on|on)|blacklist|blocklist|denylist|ban|block)\s+(?:the\s+)?(?:ports?\s+)?"
    + _PORT_LIST
    + r"(?:\s+alone|\s+again)?$",
    re.I,
)
_PORT_BARRED = re.compile(
    r"^(?:the\s+)?ports?\s+" + _PORT_LIST + r"\s+(?:is|are)\s+(?:off[-\s]limits|forbidden|out\s+of\s+bounds|reserved)$",
    re.I,
)
_GPU_USE = re.compile(
    r"^(?:only\s+use|use\s+only|(?:only\s+)?launch\s+on|(?:only\s+)?run(?:\s+it)?\s+on|serve\s+on|pin(?:\s+it)?\s+to|put\s+it\s+on|"
    r"(?:restrict|limit|keep|confine)(?:\s+(?:it|this|things|us|the\s+server|everything))?\s+to|stick\s+(?:to|with)|stay\s+on|only\s+on|keep\s+(?:it|this|the\s+server|everything)\s+on|(?:scale|shrink)(?:\s+(?:it|down|back))*\s+to|take|"
    r"(?:schedule|place)(?:\s+it)?\s+on|(?:move|switch|shift)(?:\s+it)?(?:\s+over)?\s+to)\s+"
    r"(?:exactly\s+|just\s+)?(?P<what>(?:the\s+)?gpus?\s+.+?)(?:\s+only)?$",
    re.I,
)
_GPU_WORDS = re.compile(r"\b(?:gpus?\s+(?:ids?|indices|indexes|numbers?)|(?:cuda\s+)?devices?)\b(?=\s*\d)", re.I)
# "GPU 0 and GPU 1" -> "GPU 0 and 1" (only after a GPU mention: "port 30100, GPUs 2" stays two)
_GPU_AGAIN = re.compile(r"(\bgpus?\s+\d+(?:\s*(?:,|and|&|\.\.)\s*\d+)*)\s*(,|and|&|\.\.)?\s*gpus?\s+(?=\d)", re.I)
_SPACED_IDS = re.compile(r"(?<=\d)\s+(?=\d)")
_HOLD = re.compile(
    r"^(?:leave|keep)\s+(?:it|the\s+server|sglang)\s+(?:down|stopped|off)(?:\s+(?:for\s+now|after\s+.+))?$|"
    r"^(?:don'?t|do\s+not|never|no\s+more|no\s+new|hold\s+off(?:\s+on)?|stop|pause)\s+"
    r"(?:any\s+(?:further|more|new)\s+)?(?:re-?launch(?:ing|es)?|launch(?:ing|es)?|re-?start(?:ing)?|start(?:ing)?|spin(?:ning)?\s+up)"
    r"(?:\s+(?:it|the\s+server|sglang|a\s+server|anything|any\s+server|new\s+servers?|new|again|anymore|any\s+more|yet))*"
    r"(?:\s+(?:until|till|untill|til|unless|before)\s+.+)?$|"
    r"^wait\s+for\s+me\s+before\s+(?:any|a|the\s+next|another)\s+(?:re-?launch|restart|launch)$|"
    r"^(?:don'?t|do\s+not|never)\s+(?:(?:bring|spin|start)\s+(?:a\s+new|another|any|the)\s+server\s+(?:back\s+)?up|"
    r"(?:bring|spin|start)\s+up\s+(?:a\s+new|another|any|the)\s+server)"
    r"(?:\s+(?:until|till|untill|til)\s+.+)?$|"
    r"^wait\s+for\s+my\s+(?:ok|okay|go(?:-ahead)?|word|signal)(?:\s+before\s+.+)?$|"
    r"^(?:park|hold|pause|shelve)\s+(?:(?:with|on|off)\s+)?(?:the|any|all)\s+(?:next\s+)?(?:re-?launch(?:es)?|restarts?|launch(?:es)?)"
    r"(?:\s+(?:until|till|untill|til)\s+.+)?$",
    re.I,
)
_RELAUNCH_ON = re.compile(
    r"^(?:(?:re-?launch|restart)(?:\s+(?:it|the\s+server|sglang))?|(?:bring|spin|start)\s+(?:it|the\s+server|sglang)\s+"
    r"(?:back\s+)?up)\s+(?P<rest>on\s+.+)$",
    re.I,
)
_SAME = re.compile(
    r"^(?:the\s+)?same\s+(?:settings|config(?:uration)?|flags|args|arguments|setup)(?:\s+as\s+before)?$", re.I
)
_TP_PART = re.compile(
    r"(?:\btp|tensor[-\s]parallel(?:ism)?(?:\s+(?:size|degree))?(?:\s+of)?)\s*[=:-]?\s*(?P<n>\d+)\b"
    r"|\b(?P<m>\d+)[-\s]way\s+(?:tensor[-\s]parallel(?:ism)?|tp)\b",
    re.I,
)
_DP_PART = re.compile(
    r"(?:\bdp|data[-\s]parallel(?:ism)?(?:\s+(?:size|degree))?(?:\s+of)?)\s*[=:]?\s*(?P<n>\d+)\b"
    r"|\b(?P<m>\d+)\s+(?:tp\s*\d+\s+)?(?:data[-\s]parallel\s+)?(?:replicas|copies)\b|\b(?P<k>\d+)[-\s]way\s+(?:data[-\s]parallel|dp)\b"
    r"|\b(?P<one>one|a\s+single|single)\s+(?:replica|copy)\b(?!\s+(?:per|on\s+each|for\s+each|each))",
    re.I,
)
_LAYOUT_FILLER = re.compile(
    r"\b(?:go|for|try|run|use|it|with|a|an|the|layout|on|of|by|and|x|times|plus|switch|to|serve|launch|relaunch|i\.e|"
    r"make|set|do|please|model|over|across|all|whole|box|node|host|machine|gpus?|eight|four|two|sixteen|"
    r"restart|setup|config(?:uration)?|instead|as|full|entire|top|at|back|single|instance|configure|deployment|laid|"
    r"out|put|split|into|replica|sharding|plain|those|them|there)\b|[,+*×/]",
    re.I,
)


_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "sixteen": 16,
}  # fmt: skip
_COUNTED = re.compile(
    r"\b("
    + "|".join(_NUMBER_WORDS)
    + r")(?=[-\s]+(?:tp\s*\d+\s+)?(?:data[-\s]parallel\s+)?(?:gpus?|replicas|copies|way)\b)",
    re.I,
)
_ON_GPUS = re.compile(r"^(?P<first>.+?)\s+on\s+(?P<gpus>(?:the\s+)?gpus?\s+[\d,\s-]+)$", re.I)
_JOINED = re.compile(r"^(?P<first>.+?)\s+with\s+(?P<second>.+)$", re.I)
_FLAG_SEQ = re.compile(
    r"^--[a-z0-9][a-z0-9-]*(?:\s+[^\s-]\S*)?(?:\s*(?:,|and|&)\s*--[a-z0-9][a-z0-9-]*(?:\s+[^\s-]\S*)?)+$", re.I
)
_FLAG_LIST = re.compile(r"^--[a-z0-9][a-z0-9-]*(?:\s*(?:,|and|or|&)\s*--[a-z0-9][a-z0-9-]*)*$", re.I)
_ENV_LIST = re.compile(r"^[A-Z][A-Z0-9_]{2,}(?:\s*(?:,|and|&)\s*[A-Z][A-Z0-9_]{2,})+$")


def _ports(text: str) -> list[int]:
    ports: list[int] = []
    for part in re.split(r"\s*(?:,|&|/|\band\b|\bor\b)\s*", text):
        bounds = [int(p) for p in re.split(r"\s*(?:-|to)\s*", part) if p]
        low, high = bounds[0], bounds[-1]
        if high - low > 64:  # a range this wide is no operator's port list
            return []
        ports += range(low, high + 1)
    return ports


def _layout(text: str) -> list[str] | None:
    """ "go tp 8", "TP=4 with 2 data-parallel replicas", "4-way tensor parallel": the layout, when that is all."""
    tp, dp = _TP_PART.search(text), _DP_PART.search(text)
    if tp is None:
        return None
    rest = _DP_PART.sub(" ", _TP_PART.sub(" ", text))
    if _LAYOUT_FILLER.sub(" ", rest).strip():
        return None
    tp_n = int(tp.group("n") or tp.group("m"))
    # No DP said: none read either ("tp 4", not "tp 4 dp 1"), so that the reading said back keeps the
    # DP an earlier clause gave ("two replicas of TP4, i.e. ... tensor parallel 4"), as `hear` does.
    dp_n = next((g for g in dp.groups() if g), "") if dp is not None else ""
    dp_part = f" dp {1 if dp is not None and dp.group('one') else dp_n}" if dp is not None else ""
    # "relaunch tp4 dp2" after "stop the server": the relaunch is said, and lifts the stop's hold
    again = ["relaunch"] if re.search(r"\b(?:re-?launch|restart)\b", text, re.I) else []
    return [*again, f"tp {tp_n}{dp_part}"]


_REQUEST = re.compile(r"^(?:please\s+)?(?:can|could|would|will)\s+you\b", re.I)
_AFTER_COLON = re.compile(r"^[^:]{3,}:\s+(?P<said>\S.*)$")
_TYPOS = {
    "dont": "don't", "prt": "port", "srv": "server", "svr": "server", "plz": "please", "u": "you", "w/": "with",
    "attn": "attention", "cards": "GPUs", "card": "GPU", "w/o": "without", "disbale": "disable",
    "grpah": "graph", "grpahs": "graphs", "cuda-graph": "cuda graph", "lets": "let's",
    "modle": "model", "mdoel": "model", "moel": "model", "kil": "kill", "runing": "running", "teh": "the",
    "w": "with",
    "reqs": "requests", "req": "request", "cahce": "cache", "chache": "cache", "contxt": "context",
    "conext": "context", "contex": "context", "svc": "service", "onyl": "only", "rst": "restart",
}  # fmt: skip
_TYPO = re.compile(r"(?<![\w-])(" + "|".join(re.escape(t) for t in _TYPOS) + r")(?![\w-])", re.I)


def _strip(clause: str) -> str:
    text = _TYPO.sub(lambda m: _TYPOS[m.group(1).lower()], clause.strip())
    text = re.sub(r"(?<=[a-z])\s+(?:zero\s+)?point\s+(\d{1,3})\b", r" 0.\1", text, flags=re.I)  # dictated "point 85"
    if text.endswith("?"):  # a question: read only when it asks for an instruction
        if not _REQUEST.match(re.sub(rf"^(?:{_WHEN})[\s,]+", "", text, flags=re.I)):
            return ""
        text = text.rstrip("? ")
    text = _named_flag(text)
    if (m := _AFTER_COLON.match(text)) is not None:
        before = text[: text.index(":")].strip()
        # "halve it: tensor parallel 4", "be explicit: pass --x"; but "attention backend: triton" names the knob
        text = f"{before} {m.group('said')}" if _knob(before) is not None else m.group("said")
    text = _LEADING.sub("", text).strip()
    return _TRAILING.sub("", text).strip()


def _named_flag(text: str) -> str:
    """ "rip out the allreduce fusion (--enable-flashinfer-allreduce-fusion)" -> "rip out
    --enable-flashinfer-allreduce-fusion": a switch named in brackets replaces the words before it
    that name it (each a part of the flag's name), and only those."""
    match = re.search(r"\s*\((--[a-z0-9][a-z0-9-]*)\)$", text, re.I)
    if match is None:
        return text
    flag = match.group(1).lower()
    known = _sglang_flags().get(flag)
    if known is None or known.takes_value or flag.startswith("--disable-"):
        # "turn off cuda graph (--disable-cuda-graph)" turns the feature off by using the flag: words
        # about a feature are not words about a flag that disables it
        return text
    name = flag.replace("-", "")
    words = text[: match.start()].split()
    cut = len(words)
    parts = flag.removeprefix("--").split("-")
    while cut > 0 and (
        (len(word := words[cut - 1].lower().replace("-", "")) >= 3 and word in name) or word in parts  # "dp"
    ):
        cut -= 1
    if cut == len(words):
        return text  # no words of the flag's name before it: not a naming of it
    if cut > 0 and words[cut - 1].lower() == "the":
        cut -= 1
    return " ".join([*words[:cut], flag])


def _knob(what: str) -> str | None:
    named = next((flag for pattern, flag in _KNOBS if pattern.match(what.strip())), None)
    if named is not None:
        return named
    flag = _flag_named(what)
    if flag is None or not _sglang_flags()[flag].takes_value:
        return None
    known = _sglang_flags()[flag]
    if flag.count("-") < 3 and not known.choices:
        return None  # one word ("the model", "host") is too loose a name, unless its values are named ("quantization")
    # Only numbers and named choices: a free-text flag (a path, a model name, JSON) is never
    # set from a sentence ("keep the model at NVFP4" is not --model NVFP4).
    return flag if known.choices or known.kind in ("int", "float", "human_readable_int") else None


# Flags counted in tokens: "8k" there is 8192, as context windows are said
_TOKEN_FLAGS = frozenset({"--context-length", "--chunked-prefill-size", "--max-total-tokens", "--max-prefill-tokens"})


def value_of(flag: str, value: str) -> str:
    if flag in _TOKEN_FLAGS and (k := re.fullmatch(r"(\d{1,4})[kK]", value)) is not None:
        return str(int(k.group(1)) * 1024)
    if flag == "--kv-cache-dtype":
        return _KV_VALUES.get(value.lower(), value)
    choices = _sglang_flags()[flag].choices if flag in _sglang_flags() else frozenset()
    return value.lower() if value not in choices and value.lower() in choices else value  # "LPM" is lpm


# a variable's value said with no "=": a word in capitals, a number, a path or interface, a yes or no
_LOOSE_ENV_VALUE = re.compile(
    r"(?-i:[A-Z0-9_.:/,-]+)|\S*[\d/.:]\S*|(?i:true|false|on|off|yes|no|zero|one|two|three|four|eight|sixteen)"
)


def _set(what: str, value: str, loose: bool = False) -> list[str] | None:
    """A named setting to a value, as canonical clauses. `loose`: said with no verb and no "=" ("mem
    fraction 0.8"), where a capitalised word then a word is as often a remark ("ECC errors")."""
    what = what.strip()
    value = f"0{value}" if re.fullmatch(r"\.\d+", value) else value  # ".75" is how people write 0.75
    if _ENV_NAME.match(what):
        if loose and "_" not in what:
            return None  # "ECC errors", "NCCL noise": an acronym and a word, not NAME=value
        if loose and not _LOOSE_ENV_VALUE.fullmatch(value):
            return None  # "CUDA_LAUNCH_BLOCKING ubery" ("take it out", in Ukrainian): a word, never its value
        return [f"{what}={value}"]
    if what.startswith("--") and re.fullmatch(r"--[a-z0-9][a-z0-9-]*", what, re.I):
        return [f"use {what} {value}"]
    if _PORT_WORDS.match(what) and value.isdigit():
        return [f"use port {value}"]
    if _TP_WORDS.match(what) and value.isdigit():
        return [f"tp {value}"]
    # "use chunked prefill 4096": the verb is no part of the knob's name
    flag = _knob(what) or _knob(re.sub(r"^(?:use|set|try|with)\s+(?:the\s+|a\s+)?(?=\w)", "", what, flags=re.I))
    if flag is None or not _is_value(flag, value_of(flag, value)):
        return None
    return [f"use {flag} {value_of(flag, value)}"]


# Knobs SGLang turns off with a value, not by leaving the flag out: "chunked prefill off" is -1.
_OFF_VALUES = {"--chunked-prefill-size": "-1"}


_LOWER_OR_LEAVE_OUT = re.compile(r"^(?:drop|cut)\b", re.I)


def toggle(clause: str) -> list[str] | None:
    """Switching a feature on or off, whichever way SGLang's flag is phrased."""
    off, on = _OFF_AFTER.match(clause) or _OFF.match(clause), _ON_AFTER.match(clause) or _ON.match(clause)
    for match, enable in ((off, False), (on, True)):
        if match is None:
            continue
        what = next(g for g in (match.groupdict().get(k) for k in ("what", "state", "out")) if g)
        named_as_a_flag = re.search(r"\s(?:flag|arg(?:ument)?|option|override)$", what, re.I) is not None
        what = re.sub(r"\s+flag$", "", what, flags=re.I)  # "the cuda graph max bs flag": the flag named
        for pattern, flag in _FEATURES:  # flags that disable: "disable X" uses the flag
            if pattern.match(what):
                return [f"use {flag}"] if not enable else [f"don't use {flag}"]
        for pattern, flag in _ENABLE_FEATURES:  # flags that enable: "disable X" avoids the flag
            if pattern.match(what):
                return [f"use {flag}"] if enable else [f"don't use {flag}"]
        if _P2P.match(what):
            return ["unset NCCL_P2P_DISABLE"] if enable else ["NCCL_P2P_DISABLE=1"]
        if (
            enable and (used := _flags_used(what)) is not None
        ):  # "add --disable-cuda-graph and --mem-fraction-static 0.75"
            return used
        if enable and re.fullmatch(
            r"--[a-z0-9][a-z0-9-]*(?:[ =][^\s-]\S*)?", what, re.I
        ):  # "add --cuda-graph-max-bs 256"
            return [f"use {what}"]
        if not enable and (knob := _knob(what)) is not None:  # "stop forcing the attention backend"
            if _LOWER_OR_LEAVE_OUT.match(clause) and takes_a_number(knob) and not named_as_a_flag:
                return None  # "drop the mem fraction": lower it, or leave the flag out? Not a guess to make
            return [f"use {knob} {_OFF_VALUES[knob]}"] if knob in _OFF_VALUES else [f"don't use {knob}"]
        if enable and (named := _named_backend(f"use {what}")) is not None:  # "turn on the fp8 kv cache"
            return named
        if not enable and (named := _named_backend(f"use {what}")) is not None:  # "stop using the triton attention"
            return [f"don't use {named[0].split()[1]}"]
        if _FLAG_LIST.match(what) and not (enable and re.search(r"\bor\b", what)):  # "use --x or --y": which?
            names = re.split(r"\s*(?:,|&|\band\b|\bor\b)\s*", what)
            return [f"use {name}" if enable else f"don't use {name}" for name in names]
        if not enable and _ENV_LIST.match(what):
            return [f"unset {name}" for name in re.split(r"\s*(?:,|&|\band\b)\s*", what)]
        switch = _switch_flag(what, enable)
        if switch is not None:
            return [switch]
        if not enable and _ENV_NAME.match(what) and "_" in what:  # "no NCCL_DEBUG"; never "no ACK", "not LGTM"
            return [f"unset {what}"]
        if enable and _ENV_ASSIGN.match(what):
            return [what]
    return None


def _switch_flag(what: str, enable: bool) -> str | None:
    """A feature SGLang switches with a flag of no value: "disable radix cache" is --disable-radix-cache,
    "enable torch compile" and "turn torch compile off" are --enable-torch-compile and its absence."""
    flags = _sglang_flags()
    words = re.sub(r"^(?:the\s+)?", "", what.strip().lower())
    for prefix, uses in (("disable-", not enable), ("enable-", enable), ("", enable)):
        flag = _flag_named(prefix + words)
        if flag is not None and not flags[flag].takes_value:
            return f"use {flag}" if uses else f"don't use {flag}"
    return None


def _flags_used(text: str) -> list[str] | None:
    """ "--disable-cuda-graph and --mem-fraction-static 0.75": each flag of a pasted list, used."""
    if not _FLAG_SEQ.match(text):
        return None
    return [f"use {part}" for part in re.split(r"\s*(?:,|&|\band\b)\s*(?=--)", text)]


def backend_named_alone(clause: str) -> str | None:
    """ "flashinfer backend": an attention backend's name that another backend flag also takes (sampling, MoE),
    said with no word for which; only ever asked back as the attention's."""
    said = clause.strip().rstrip(".!")
    match = _NAMED_BACKEND.match(said)
    if match is None or match.group("kind") or _named_backend(said) is not None:
        return None
    value = value_of("--attention-backend", match.group("val"))
    return value if _is_value("--attention-backend", value) else None


def _named_backend(clause: str) -> list[str] | None:
    match = _NAMED_BACKEND.match(clause)
    if match is None:
        return None
    kind, value = match.group("kind").lower(), match.group("val")
    if not kind:  # "fa3 backend": a backend named alone is the attention's only where no other takes it
        others = ("--moe-runner-backend", "--sampling-backend", "--grammar-backend")
        if any(_is_value(other, value) for other in others if other in _sglang_flags()):
            return None
        kind = "attention"
    flag = (
        "--attention-backend" if kind.startswith("attention") else "--kv-cache-dtype" if kind.startswith("kv") else None
    )
    flag = flag or "--moe-runner-backend"
    value = value_of(flag, value)
    return [f"use {flag} {value}"] if _is_value(flag, value) else None  # "dp attention" is a feature


def _simple(clause: str) -> list[str] | None:
    if _MEASURE_AGAIN.match(clause):
        return ["measure again"]
    if _HOLD.match(clause):
        return ["don't relaunch"]
    if (m := _PORT_USE.match(clause)) is not None:
        return [f"use port {m.group('port')}"]
    if (m := _PORT_AVOID.match(clause) or _PORT_BARRED.match(clause)) is not None:
        return [f"avoid port {p}" for p in _ports(m.group("ports"))] or None
    if (m := _GPU_USE.match(clause)) is not None:
        return [f"use {m.group('what')}"]
    if _STOP_WORDS.match(clause) or _PARK.match(clause):
        return ["stop the server"]  # which holds new launches too, until "relaunch"
    if _ENV_ASSIGNS.match(clause):
        return clause.split()
    if _RELAUNCH_WORDS.match(clause):
        return ["relaunch"]
    if (m := _GPU_COUNT.match(clause)) is not None and int(m.group("n")) > 0 and m.group("tp"):
        return [f"tp {int(m.group('n'))}"]  # "4 GPUs with tensor parallelism": the layout is said
    if (m := _PORT_MOVE.match(clause)) is not None:
        return [f"use port {m.group(1) or m.group(2)}"]
    if (m := _GPU_AVOID.match(clause)) is not None:
        return [f"don't use {m.group('what')}"]
    return None


_READERS: list[Callable[[str], list[str] | None]] = [_simple, toggle, _named_backend, _layout]


_VERB = re.compile(
    r"^(?:(?:please\s+)?(?:don'?t|do\s+not|never|not)\s+(?:use|set|pass|add|export|touch)|stop\s+(?:using|setting|passing)|"
    r"drop|remove|unset|disable|enable|turn\s+off|turn\s+on|avoid|skip|use|set|add|pass|export|stay\s+off|keep\s+off)\b",
    re.I,
)


def without_courtesy(clause: str) -> str:
    """The clause less the words around an instruction that change nothing ("please", "can you")."""
    return _LEADING.sub("", clause.strip()).strip()


def verb_of(clause: str) -> str | None:
    """The instruction's verb ("drop", "don't use"), to carry to the next clause of a list."""
    match = _VERB.match(without_courtesy(clause))
    return match.group(0) if match is not None else None


_JOINER = {",": ",", "and": " and", "&": " and", "..": ".."}


def join_gpu_mentions(text: str) -> str:
    """ "GPU 0, GPU 1 and GPU 2" -> "GPU 0, 1 and 2", before the text is split into clauses."""
    previous = None
    while previous != text:  # one join per pass: "GPU 0, GPU 1, GPU 2" needs two
        previous, text = (
            text,
            _GPU_AGAIN.sub(lambda m: f"{m.group(1)}{_JOINER.get(m.group(2), ',')} ".replace(".. ", ".."), text),
        )
    return text


def _count(text: str) -> list[str] | None:
    """ "only two gpus", "run it on 2 gpus": a bare count, no ids and no layout word. One writer means
    TP2, another any two GPUs; so it is only ever asked back (`counts=True`), never taken silently."""
    m = _GPU_COUNT.match(text)
    if m is not None and m.group("all") and not m.group("tp") and int(m.group("n")) > 1:
        return [f"use GPUs 0-{int(m.group('n')) - 1}"]  # "use all eight GPUs": every GPU, no layout said
    return [f"tp {int(m.group('n'))}"] if m is not None and int(m.group("n")) > 0 else None


def held(text: str) -> list[str] | None:
    """ "port 8000 is already taken by grafana", "GPU 0 and 1 are out": what is said to be held by something
    else or out of use is kept off; a state said, not an order, so only ever asked back (`counts=True`),
    and only when it is all the message says (beside an instruction it is that instruction's reason)."""
    text = _strip(text).strip(" .")
    if (m := forms.PORTS_HELD.match(text)) is not None:
        return [f"avoid port {port}" for port in _ports(m.group("ports").replace("/", ","))] or None
    if (m := forms.GPUS_HELD.match(text)) is not None:
        return [f"don't use GPUs {m.group('ids')}"]
    return None


def canonical(clause: str, reads: Callable[[str], bool], *, counts: bool = False) -> list[str] | None:
    """The canonical clauses that say what `clause` says, each accepted by `reads` (the grammar),
    or None when no reading covers the whole clause. With `counts`, a bare GPU count reads as a
    layout too (for a reading asked back)."""
    text = _THROUGH.sub(r"\1-\2", _strip(clause))  # (ids in words were put in digits with the clauses)
    text = _COUNTED.sub(lambda m: str(_NUMBER_WORDS[m.group(1).lower()]), text)
    text = join_gpu_mentions(_GPU_WORDS.sub("GPUs", text))
    if re.search(r"\bgpus?\b", text, re.I):
        text = _SPACED_IDS.sub(",", text)  # "gpus 4 5 6 7"
    if not text:
        return None
    for pattern, said in forms.FORMAL:
        if (m := pattern.match(text)) is not None:
            plain = said.format(x=m.group("x").strip())
            found = [plain] if reads(plain) else canonical(plain, reads)
            if found is not None:
                return found
    if (m := forms.GPUS_BARRED.match(text)) is not None:
        what = m.group("what").strip()
        barred = f"don't use {what}" if what[0].isalpha() else f"don't use GPUs {what}"
        if reads(barred):
            return [barred]
    if (m := forms.ALL_PORTS_BUT.match(text)) is not None:
        return [f"avoid port {port}" for port in _ports(m.group("ports").replace("/", ","))] or None
    if (m := forms.ALL_BUT_OK.match(text)) is not None:
        ids = (m.group("ids") or m.group("ids2") or m.group("ids3") or m.group("ids4")).strip()
        return [f"don't use GPUs {ids}"] if reads(f"don't use GPUs {ids}") else None
    if (m := forms.LEAVE_OFF.match(text)) is not None:
        return [f"don't use {m.group('flag')}"]
    if (m := forms.JUDGED.match(text) or forms.JUDGED_THAT.match(text)) is not None:
        judged = m.group("what") or m.group("what2")
        setting = _read_part(judged, reads) or (None if judged.startswith("--") else _read_part(f"use {judged}", reads))
        if setting is not None and all(part.startswith(("use --", "--")) for part in setting):
            return setting  # only a flag's value: "gpu 2 is fine" is no instruction
    knob_to = forms.KNOB_TO.match(text)
    found = _set(knob_to.group("what"), knob_to.group("val")) if knob_to is not None else None
    if knob_to is not None and found and all(reads(p) for p in found) and not _ENV_NAME.match(knob_to.group("what")):
        return found
    if _NEGATED_LIST.match(text):  # "don't touch gpu 2 or 5": after a "not", "or" leaves out both
        text = re.sub(r"(\d)\s+(?:or|nor)\s+(?=(?:gpus?\s+|ports?\s+)?\d)", r"\1 and ", text)
    if (m := forms.MODEL_WITH.match(text)) is not None and reads(f"serve {m.group('path')}"):
        rest = _read_part(m.group("rest"), reads)  # "/models/X at tp8": the model, and how to serve it
        return [f"serve {m.group('path')}", *rest] if rest is not None else None
    if (m := _RELAUNCH_WITH.match(text)) is not None:
        if _SAME.match(m.group("rest")):
            return ["relaunch"]
        if m.group("with").lower() == "without":  # "relaunch without NCCL_DEBUG"
            rest_said = _read_part(f"without {m.group('rest')}", reads)
            return ["relaunch", *rest_said] if rest_said is not None else None
        rest = (
            canonical(m.group("rest"), reads, counts=counts)
            or ([m.group("rest")] if reads(m.group("rest")) else None)
            or (canonical(f"use {m.group('rest')}", reads) if m.group("rest").startswith("--") else None)
        )
        return ["relaunch", *rest] if rest is not None else None
    on_gpus = forms.ON_GPUS_AS.match(text)
    # "tp4 on gpus 0-3 with NCCL_P2P_DISABLE=1", "relaunch on GPUs 0-3 as TP4": the GPUs, and the rest
    layout = (
        (_layout(on_gpus.group("layout")) or _read_part(f"use {on_gpus.group('layout')}", reads)) if on_gpus else None
    )
    if (m := on_gpus) is not None and layout is not None:
        first = (
            []
            if not m.group("first")
            or re.fullmatch(
                r"(?:the\s+server|it|sglang|(?:move|switch|shift|put|run|serve|launch|start|schedule|place|pin)"
                r"(?:\s+it)?(?:\s+over)?)",
                m.group("first"),
                re.I,
            )
            else (_read_part(m.group("first"), reads) or canonical(f"{m.group('first')} it", reads))
        )
        if first is not None and not_taken.refuses(first):
            return None  # "don't relaunch on GPUs 0-3 as tp4": those GPUs refused, or wanted? Not a guess
        if first is not None and reads(f"use {m.group('gpus')}") and all(reads(part) for part in layout):
            return [*first, f"use {m.group('gpus')}", *layout]
    if (m := _ON_GPUS.match(text)) is not None and not _GPU_USE.match(text):
        first = canonical(m.group("first"), reads, counts=counts) or (
            [m.group("first")] if reads(m.group("first")) else None
        )
        if first is not None and not_taken.refuses(first):
            return None  # "don't relaunch on GPU 3": never "use GPU 3"
        if first is not None and reads(f"use {m.group('gpus')}"):
            return [*first, f"use {m.group('gpus')}"]
        # else "never schedule anything on GPU 3": no instruction before "on", read as a whole below
    if (m := _RELAUNCH_ON.match(text)) is not None:
        rest = canonical(f"serve {m.group('rest')}", reads, counts=counts)
        return ["relaunch", *rest] if rest is not None else None
    candidates: list[list[str]] = []
    if (m := _WITH.match(text)) is not None:
        text = m.group("rest")
    if (used := _flags_used(text)) is not None:  # "--enable-torch-compile and --cuda-graph-max-bs 128", "go with ..."
        return used
    if text != clause.strip():
        candidates.append([text])
    for reader in [*_READERS, _count, held] if counts else _READERS:
        found = reader(text)
        if found is not None:
            candidates.append(found)
    if (m := _SET_TO.match(text)) is not None and (found := _set(m.group("what"), m.group("val"))) is not None:
        candidates.append(found)
    if (m := _VALUE_FOR.match(text)) is not None and (found := _set(m.group("what"), m.group("val"))) is not None:
        candidates.append(found)
    if (m := _KNOB_VALUE.match(text)) is not None and (found := _set(m.group("what"), m.group("val"), loose=True)):
        candidates.append(found)
    found = next((c for c in candidates if all(reads(part) for part in c)), None)
    return found if found is not None else _combined(text, reads)


def _read_part(text: str, reads: Callable[[str], bool]) -> list[str] | None:
    return [text] if reads(text) else canonical(text, reads)


def _combined(text: str, reads: Callable[[str], bool]) -> list[str] | None:
    """ "relaunch on port 30005 with the triton attention backend": two readings joined by "with"."""
    match = _JOINED.match(text)
    if match is None:
        return None
    first = _read_part(match.group("first"), reads)
    if first is None or not_taken.refuses(first):
        return None  # "don't relaunch with --x 8192": is --x the thing refused, or wanted? Not a guess to make
    second = _read_part(f"use {match.group('second')}", reads) or _read_part(match.group("second"), reads)
    return [*first, *second] if second is not None else None
