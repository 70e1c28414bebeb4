"""What an operator says at length around an order, put in the grammar's plain words: where it must not
run ("move it off 7"), the loose word then the exact flag, a model described then named, why a value or a
measurement ("to win the memory back", "for a cleaner number"), a wish for where it runs ("I'd like it on
GPUs 0-3"), a measurement asked for ("... and compare?", "see if it still clears 1000", "again without GPU 7"),
the stop said of the server ("it has to come down") and the port named beside its number ("the prod port 8443")."""

from __future__ import annotations

import re
from collections.abc import Callable

_PLAIN: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    # "keep it off that one": the server kept off a GPU, never kept down (the hold is "keep it off" alone)
    (re.compile(r"\bkeep\s+it\s+(?=off\s+(?:that|those|these|them|gpus?|cards?|\d))", re.I), "keep "),
    # an aside of emphasis between commas changes nothing: "shut it down and, importantly, don't start it again"
    (
        re.compile(
            r",\s*(?:(?:more|most)\s+)?(?:importantly|crucially|critically|above\s+all|obviously|of\s+course|naturally)"
            r"\s*,\s*",
            re.I,
        ),
        " ",
    ),
    # "the server must go down now", "it has to come down": the stop, said of the server
    (
        re.compile(
            r"\b(?:the\s+server|sglang|it)\s+(?:must|should|needs\s+to|has\s+to)\s+(?:go|come)\s+down(?:\s+now)?\b",
            re.I,
        ),
        "stop the server",
    ),
    # "drain the server" (a platform engineer's word): stop it; "leave it down": no launch until told
    (re.compile(r"\bdrain\s+(?:the\s+server|sglang|it)\b", re.I), "stop the server"),
    (
        re.compile(
            r"\b(?:leave|keep)\s+(?:it|the\s+server)\s+down(?:\s+(?:till|until|for)\b[^,.;!?]*)?(?=\s*[,.;!?]|\s*$)",
            re.I,
        ),
        "don't relaunch",
    ),
    # "relaunch it as is", "just bounce the server dont change anything": the relaunch, nothing changed
    (
        re.compile(
            r"\b((?:re-?launch|restart|bounce)(?:\s+(?:it|the\s+server|sglang))?)(?:\s+once)?(?:\s+(?:as[\s-]is|unchanged|as\s+it\s+(?:is|was))|"
            r"[\s,]+(?:(?:but|and)\s+)?(?:(?:don'?t|dont|do\s+not)\s+change\s+anything(?:\s+else)?|change\s+nothing|no\s+changes|"
            r"nothing\s+(?:to|else\s+to)\s+change))"
            r"(?=\s*[,.;!?]|\s+and\b|\s*$)",
            re.I,
        ),
        r"\1",
    ),
    # "and once it's up rerun the bench": when to measure, which is after the launch anyway
    (
        re.compile(
            r"\b(?:once|when|after)\s+(?:it'?s|it\s+is|the\s+server\s+is|it\s+comes)\s+(?:back\s+)?(?:up|ready|healthy)[,\s]+"
            r"(?=(?:re-?run|re-?bench|bench|measure|run\s+the\s+bench))",
            re.I,
        ),
        "",
    ),
    # "..., nothing else changed": said after an order, what the order already says
    (
        re.compile(
            r"[,;]\s*(?:and\s+)?(?:nothing\s+else\s+(?:changed|changes|different)|everything\s+else\s+(?:the\s+)?(?:same|unchanged|as\s+is))"
            r"(?=\s*[.!]?\s*$)",
            re.I,
        ),
        "",
    ),
    # "dont launch anything on gpu 3": the GPU kept out, never every launch held
    (
        re.compile(
            r"\b(don'?t|do\s+not|never)\s+(?:launch|run|start|put|schedule)\s+anything\s+on\s+"
            r"(?=(?:gpus?|cards?)\s*\d)",
            re.I,
        ),
        r"\1 use ",
    ),
    # "swap in --attention-backend fa3 + --mem-fraction-static 0.82": the flags put in, each
    (re.compile(r"\bswap\s+in\s+(?=--[a-z])", re.I), "use "),
    (re.compile(r"(--[a-z][\w-]*(?:[ =][^\s+]+)?)\s+\+\s+(?=--[a-z])"), r"\1 and "),  # flag + flag only
    # "take off the --quantization flag", "take --x off": the flag left out
    (re.compile(r"\btake\s+off\s+(?=(?:the\s+)?--[a-z])", re.I), "drop "),
    (re.compile(r"\btake\s+((?:the\s+)?--[a-z0-9-]+(?:\s+flag)?)\s+off\b", re.I), r"drop \1"),
    # "model change (karo) to Qwen/Qwen3-32B": the change of model said noun first
    (
        re.compile(r"\bmodel\s+change(?:\s+(?:karo|kar\s+do))?\s+to\b|\bswap\s+(?:the\s+)?model\s+(?:to|for)\b", re.I),
        "change the model to",
    ),
    # "show me the number again": another measurement
    (
        re.compile(r"\b(?:show|give)\s+me\s+(?:the\s+)?(?:number|numbers|throughput|tok/s)\s+again\b", re.I),
        "measure again",
    ),
    # "redo it without gpu 5 before i sign anything": when, not what (the run is not signed off meanwhile)
    (re.compile(r"\s+before\s+(?:i|we)\s+sign\s+(?:anything|off|it(?:\s+off)?)(?=\s*[,.;!?]|\s*$)", re.I), ""),
    # "redo the run without gpu 5", "rerun it on gpus 0-3 with tp 4": the change, then the measurement again
    (
        re.compile(
            # "redo it with X" stays a relaunch with X (normalise): "it" measures again only said with where
            r"(?:^|(?<=[,;.!]\s))(?:re-?do|re-?run)\s+(?:(?:it|that)\s+(?=on\s)|the\s+(?:run|bench(?:mark)?|test)\s+)"
            # never "on what's up now": the server as it runs, no change
            r"((?:on\s+(?=(?:gpus?|cards?|devices?|\d))|with(?:out)?\s+)[^.;!?]+?)(?=\s*[.;!?]|\s*$)",
            re.I,
        ),
        r"relaunch \1; measure again",
    ),
    # "run it on the prod port 8443": which port it is, said beside its number
    (
        re.compile(
            r"\bthe\s+(?:prod(?:uction)?|default|usual|standard|public|internal|new|old|usual)\s+port\s+(?=\d{2,5}\b)",
            re.I,
        ),
        "port ",
    ),
    # "I'll sign after one more run w/ --x 128": the change, then the run it is measured in
    (
        re.compile(
            r"\b(?:i'?ll|i\s+will|i\s+can|happy\s+to)\s+sign(?:\s+off)?\s+(?:after|once\s+you\s+do)\s+(?:one\s+more|another)\s+"
            r"(?:run|bench(?:mark)?)\s+((?:with(?:out)?\s+|w/o?\s*)[^,.;!?—–]+?)(?=\s*[,.;!?—–]|\s*$)",
            re.I,
        ),
        r"\1; measure again",
    ),
    # "redo without gpu 3"
    (
        re.compile(
            r"\bredo(?:\s+it)?\s+(?=without\b)",
            re.I,
        ),
        "relaunch ",
    ),
    # "move it off 7", "I'd want it off GPU 5", "get the server off port 30000": where it must not run
    (
        re.compile(
            r"\b(?:(?:move|get|take|pull|shift)\s+(?:(?:it|the\s+server|sglang|everything)\s+)?|(?:i'?d\s+|i\s+)?(?:want|need)\s+"
            r"(?:it|the\s+server)\s+)off(?:\s+of)?\s+(?=(?:gpus?\s*|cards?\s+|ports?\s+|devices?\s+)?\d)",
            re.I,
        ),
        "stay off ",
    ),
    (
        re.compile(
            r"\bout\s+of\s+the\s+(?:set|mix|rotation|pool)\b",
            re.I,
        ),
        "out of every launch",
    ),
    # "the fp8 KV cache here, specifically --kv-cache-dtype fp8_e5m2": the setting said loosely, then exactly;
    # the exact one is what is meant (never both, which is one setting given two values)
    (
        re.compile(
            r"(?:^|\b(?P<verb>trying|try|use|using|enable|with|want|add|set|pass)\s+)(?:the\s+)?[\w\s-]{2,40}?,?\s+"
            r"(?:specifically|namely|i\.e\.?,?|concretely|precisely|to\s+be\s+(?:exact|precise),?)\s+(?=--[a-z])",
            re.I,
        ),
        lambda m: f"{m.group('verb')} " if m.group("verb") else "",
    ),
    # "switch to the AWQ checkpoint, Qwen/Qwen2.5-72B-Instruct-AWQ": the model described, then named
    (
        re.compile(
            r"\b(?P<verb>switch\s+to|use|try|serve|load|go\s+with)\s+the\s+[\w\s.-]{1,30}?(?:checkpoint|model|weights|variant|quant)"
            r"(?:\s+instead)?\s*[,:]\s*(?=[a-z][\w.-]*/[\w.-]+|/)",
            re.I,
        ),
        r"\g<verb> ",
    ),
    # "I'd disable it with --disable-radix-cache": the flag that does it is the instruction
    (
        re.compile(
            r"\b(?:i'?d\s+|let'?s\s+|please\s+)?(?:disable|enable|turn\s+(?:off|on)|switch\s+(?:off|on)|set|cap|limit)\s+(?:it|them|that)\s+"
            r"(?:with|via|using)\s+(?=--[a-z])",
            re.I,
        ),
        "use ",
    ),
    # "measure again for a cleaner number": why it is measured again changes nothing of it
    (
        re.compile(
            r"\b(measure\s+again|bench(?:mark)?\s+again|re-?measure|re-?bench(?:mark)?)\s+(?:for|to\s+get)\s+an?\s+(?:[\w-]+\s+){0,2}"
            r"(?:number|figure|comparison|baseline|read(?:ing)?|result|measurement|data\s+point)\b",
            re.I,
        ),
        r"\1",
    ),
    # "Restart it and benchmark.", "then bench it": the benchmark run again, said as a bare verb
    (
        re.compile(
            r"(?:^|(?<=[,;.!]\s)|(?<=\band\s)|(?<=\bthen\s))(?:re-?)?bench(?:mark)?(?:\s+(?:it|that|this|the\s+server))?(?=\s*[.;!?]|\s*$)",
            re.I | re.M,
        ),
        "measure again",
    ),
    # "stop it. i'll tell you when to bring it back": a hold until the operator says, no remark
    (
        re.compile(
            r"\bi(?:'?ll|\s+will)\s+(?:tell|let)\s+you(?:\s+know)?\s+when\s+(?:to\s+|you\s+can\s+)?(?:bring\s+it\s+back(?:\s+up)?|"
            r"(?:re-?start|re-?launch|start)\s+(?:it|the\s+server)(?:\s+(?:again|back\s+up))?|(?:re-?start|re-?launch))\b",
            re.I,
        ),
        "don't relaunch",
    ),
    # "one more data point before signing", "same setup, but relaunched with X": another measurement, a change
    (
        re.compile(
            r"\b(?:i'?d\s+like|i\s+want|i'?d\s+want|i\s+need|let'?s\s+(?:get|have))\s+one\s+more\s+(?:data\s+point|run|measurement|number)\b|"
            # "one more run pls, looks too good": the whole clause, nothing after it
            r"(?:^|(?<=[,;.!]\s))(?:just\s+)?(?:one|1)\s+more\s+(?:run|bench(?:mark)?(?:\s+run)?|measurement|pass)"
            r"(?:\s+(?:pls|plz|please))?(?=\s*[,.;!?]|\s*$)",
            re.I,
        ),
        "measure again",
    ),
    (
        re.compile(
            r"\bsame\s+(?:setup|config(?:uration)?|settings|everything),?\s+but\s+(?:re-?launched|restarted|run|bounced)?\s*(?=with(?:out)?\s)",
            re.I,
        ),
        "relaunch ",
    ),
    # "I want to see it serving on port 30010": where it is to run, said as what to see
    (
        re.compile(
            r"\b(?:i'?d\s+like|i\s+want|i'?d\s+want|i\s+need)\s+to\s+see\s+(?:it|the\s+server|sglang)\s+(?:serving|running|listening|up)\s+(?=on\s)",
            re.I,
        ),
        "run it ",
    ),
    # "lower --mem-fraction-static to 0.85 to win the memory back": what the value is for changes nothing of it
    (
        re.compile(
            r"(--[a-z][a-z0-9-]+\s+(?:to\s+)?[\d.]+k?)\s+to\s+(?:win|get|claw|free|gain|buy|make|keep|save|avoid|stop|give|leave)\b[^.;,!?]*",
            re.I,
        ),
        r"\1",
    ),
    # "I'd like it on GPUs 0-3 only", "I want the server on port 30010": where it is to run, said as a wish
    (
        re.compile(
            r"\b(?:i'?d\s+(?:like|want|prefer)|i\s+(?:want|need)|let'?s\s+(?:have|keep|put))\s+(?:it|the\s+server|this|sglang)\s+"
            r"(?=on\s+(?:the\s+)?(?:gpus?|cards?|port)\s*\d)",
            re.I,
        ),
        "run it ",
    ),
    # "keep it out of whatever you launch", "leave them in peace": a GPU named before kept off, never the hold
    (
        re.compile(
            r"\bkeep\s+(it|them)\s+out\s+of\s+(?:whatever|anything|any|every|all)\s+(?:(?:the\s+)?launch(?:es)?|you\s+launch)\b",
            re.I,
        ),
        r"stay off \1",
    ),
    (re.compile(r"\bleave\s+(it|them)\s+in\s+peace\b", re.I), r"leave \1 alone"),
    # "pull NCCL_DEBUG back out", "take the NCCL_DEBUG away again": the variable unset
    (
        re.compile(
            r"\b(?:pull|take)\s+(?:the\s+)?([A-Z][A-Z0-9_]{2,})\s+(?:back\s+)?(?:out|away)(?:\s+again)?\b", re.I
        ),
        r"unset \1",
    ),
    # "spin it back up", "make the server new" (German "neu machen"): the relaunch
    (re.compile(r"\bspin\s+(it|the\s+server|sglang)\s+(?:back\s+)?up\b", re.I), r"bring \1 back up"),
    (re.compile(r"\bmake\s+(?:the\s+server|it)\s+new\b", re.I), "restart it"),
    # "cap concurrency with --max-running-requests 128", "load it with --quantization fp8": the flag is the order
    (
        re.compile(
            r"^(?:cap|limit|bound)\s+(?:the\s+)?[a-z][a-z\s-]{0,30}?\s+(?:with|via|using)\s+(?=--[a-z])", re.I | re.M
        ),
        "use ",
    ),
    (re.compile(r"\bload\s+it\s+(?=(?:with|using)\s+--[a-z])", re.I), "run it "),
    # "make tp 8, one replica only", "tp 4 dp 2 only": a layout is the whole launch's, "only" adds nothing
    (re.compile(r"^make\s+(?=tp\s*\d)", re.I | re.M), ""),
    (re.compile(r"\b((?:tp|dp)\s*\d+|(?:one|1|a\s+single|single)\s+replica)\s+only\b", re.I), r"\1"),
    # "confine yourself to GPUs 4-7", "keep the server on port 30000": where it runs, as an order
    (
        re.compile(r"\b(?:confine|restrict)\s+(?:yourself|it|the\s+server|sglang)\s+to\s+(?=(?:the\s+)?gpus?\b)", re.I),
        "use ",
    ),
    (re.compile(r"\bkeep\s+(?:the\s+server|it|sglang)\s+on\s+(?=port\s+\d{4,5}\b)", re.I), "serve on "),
    # "NCCL_DEBUG=INFO is drowning the log, get rid of it": the variable named, then "it"
    (
        re.compile(
            r"^([A-Z][A-Z0-9_]{2,})(?:=\S+)?\s+(?:is|was|'s)\s+[^,.;]+[,.;]\s*(?:so\s+)?(?:(?:please|pls|kindly)\s+)?(?:get\s+rid\s+of|unset|drop|remove)\s+it\b"
            r"(?:\s+from\s+the\s+env(?:ironment)?)?",
            re.M,
        ),
        r"unset \1",
    ),
    # "restart it, and this time with --x": the change the relaunch makes
    (re.compile(r",?\s+(?:and\s+)?this\s+time\s+(?=with\s+--)", re.I), " "),
    # "with --trust-remote-code or the tokenizer won't load": what happens without it, a reason of its own
    (
        re.compile(
            r"\s+or\s+(?:else\s+)?(?=(?:the|it|we|sglang|you)\s+(?:\w+\s+)?(?:won'?t|will\s+not|can'?t|cannot|fails?|breaks?|crash\w*|oom\w*)\b)",
            re.I,
        ),
        "; otherwise ",
    ),
    # "two things: never use 30000 ..., and serve on 31000": a count of what follows says nothing itself
    (re.compile(r"^(?:(?:two|three|a\s+couple\s+of|2|3)\s+things|a\s+few\s+things)\s*:\s*", re.I | re.M), ""),
    # "stop only the server, not the run": the server
    (re.compile(r"\bstop\s+only\s+the\s+server\b", re.I), "stop the server"),
    # "put the 70B on 4-7": the model named by its size is the server
    (re.compile(r"\b(put|run|serve|load)\s+the\s+\d+(?:\.\d+)?b\b(?=\s+on\b)", re.I), r"\1 it"),
    # "swap to the fp8 ckpt: Qwen/Qwen3-32B-FP8": a label before the model's hub id
    (
        re.compile(
            r"\b(to|use|serve|load|try)\s+(?:the\s+)?(?:[\w.-]+\s+)?(?:ckpt|checkpoint|model|weights)\s*:\s*(?=[a-z][\w.-]*/[\w.-]+)",
            re.I,
        ),
        r"\1 ",
    ),
    # "tp 8 and compare?", "redo it on those and measure?", "and see if it still clears 1000": a measurement asked for
    (
        re.compile(
            r"(?:,?\s*(?:\band(?:\s+then)?|\bthen)\s+|,\s*)(?:re-?measure|measure|compare|re-?bench|bench)(?:\s+(?:it|again))?\s*(?=[?.!;]|$)",
            re.I | re.M,
        ),
        "; measure again",
    ),
    (
        re.compile(
            r"(?:,\s*|\s+)and\s+see\s+(?:if|whether)\s+it\s+(?:(?:still|also|now)\s+)?(?:clears|holds|hits|reaches|beats|makes)\b[^.;?!]*",
            re.I,
        ),
        "; measure again",
    ),
    # "then again benchmark": the order of another language's words
    (
        re.compile(
            r"\bagain\s+(?:bench(?:mark)?|measure)\b",
            re.I,
        ),
        "measure again",
    ),
    # "again without GPU 7", "do it with tp 4 dp 2 one more time": the change, then the measurement again
    (
        re.compile(
            r"(?:^|(?<=[.;!?,]\s))(?:please\s+)?(?:(?:do|run|redo|try|bench)\s+it\s+)?(?:again|once\s+more|one\s+more\s+time)\s+"
            r"(with(?:out)?\s+[^,.;!?]+?)(?=\s*[,.;!?]|\s*$)",
            re.I | re.M,
        ),
        r"\1; measure again",
    ),
    (
        re.compile(
            r"(?:^|(?<=[.;!?,]\s))(?:please\s+)?(?:(?:do|run|redo|try|bench)\s+it\s+)?(with(?:out)?\s+[^,.;!?]+?)\s+"
            r"(?:again|once\s+more|one\s+more\s+time)(?=\s*[,.;!?]|\s*$)",
            re.I | re.M,
        ),
        r"\1; measure again",
    ),
]


def plain(text: str) -> str:
    """`text` with each longer way of saying an order put in the words the grammar reads."""
    for pattern, said in _PLAIN:
        text = pattern.sub(said, text)
    return text
