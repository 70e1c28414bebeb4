"""A reply's words as read, before their meaning is: another language in English, a gesture dropped
("ship it 🚀"), a chat client's framing taken off, a dictated run-on broken into sentences, and an SRE's
shorthand spelt out ("w/", "thx", "+1")."""

from __future__ import annotations

import re

from agent.hearing import (
    autocorrect,
    chatops,
    checklist,
    foreign,
    formal,
    iac,
    incident,
    letter,
    litotes,
    notation,
    polite,
    references,
    spoken,
    structured,
    time_scope,
)
from agent.hearing.reply_words import DONT_MIND

_EMOJI = re.compile("[\U0001f000-\U0001f44b\U0001f44e-\U0001faff\u2600-\u2704\u2706-\u27bf\ufe0f]")  # not 👍 ✅

# an SRE's shorthand in a reply ("carry on w/ the plan", "fine w/ me"): the words it stands for
_SHORTHAND = {
    "w/o": "without",
    "w/": "with",
    "youve": "you've",
    "thx": "thanks",
    "tmrw": "tomorrow",
    "ur": "your",
    "itt": "it",  # a sticky key: "ya run itt"
    "u": "you",
    "scancel": "cancel",  # Slurm's cancel, as an HPC admin ends a job
    "w/e": "whatever",
    "goin": "going",
    "wfm": "works for me",
}
_SHORT = re.compile(r"(?<!\S)(?:w/o|w/e|w/|youve|thx|tmrw|ur|u|itt|scancel|goin|wfm)(?=[\s,.!]|$)", re.I)
# a reply of only a cross or a thumbs down: a no (a stop sign alone may be a no or the run's end: unread)
_NO_SIGN = re.compile(r"^\s*(?:❌|👎|🚫|✖\ufe0f?|⛔)+\s*$")

_VOTE = re.compile(r"^[+-]1(?=[\s,.;:!]|$)")


def normalised(text: str) -> str:
    """The words of a reply as read: shorthand spelt out ("w/"), a gesture dropped ("ship it 🚀")."""
    # a letter's greeting and sign-off; "No don’t bother" (autocorrect); "nein", "はい、お願いします。"
    text = checklist.ticked(text)  # "- [x] approve\n- [ ] also bump mem frac": only what is ticked
    text = structured.plain(
        chatops.replies(
            iac.replies(formal.plain(foreign.in_english(autocorrect.corrected(incident.plain(letter.body(text))))))
        )
    )
    text = notation.plain(text)  # "¬. topology is known": a logician's no
    text = re.sub(r"^\s*[✓✔☑]\ufe0f?\s*$", "yes", text)  # a tick alone is a yes
    text = re.sub(r"^((?:do|pick|take|go\s+with|run)\s+)\((\d)\)[\s.!]*$", r"\1\2", text, flags=re.I)  # "do (2)"
    text = polite.untagged(_NO_SIGN.sub("no", text))  # "don't relaunch, ok?": the order, its tag dropped
    # "not that, do 3 instead, ok?": the proposal refused for a step picked, and a tag asking agreement
    text = re.sub(
        r"^(?:no+[,.]?\s+)?not\s+(?:that|this)(?:\s+one)?\s*[,.;:—-]+\s*(?=(?:do|run|take|pick|go\s+with)\s+"
        r"(?:#|step\s+|option\s+|number\s+)?\d\b[^?]*\?*$)",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"^((?:do|run|take|pick|go\s+with)\s+(?:#|step\s+|option\s+|number\s+)?\d\b.*?)[,\s]+(?:ok|okay|yeah|right)\?+$",
        r"\1",
        text,
        flags=re.I,
    )
    # "stop. the server, I mean": the stop said, then what it stops (never the run)
    text = re.sub(
        r"^stop[.!,]?\s+(?:just\s+)?the\s+server(?:,?\s+i\s+mean)?[.!,]?",
        "stop the server.",
        text,
        flags=re.I,
    )
    # Slack's codes for its gestures: ":+1:" is the thumbs-up, ":shipit:" the squirrel that says "ship it"
    text = re.sub(r"(?<!\S):(?:\+1|thumbsup|thumbs_up|white_check_mark|heavy_check_mark):(?!\S)", "👍", text)
    text = re.sub(r"^\s*:(?:shipit|ship_it|ship-it):\s*$", "ship it", text)  # alone; after words, a gesture
    # an Australian's "nah yeah" is a yes and "yeah nah" a no: the last word is the answer
    text = re.sub(r"^(?:nah|nah\s+nah),?\s+(yeah|yep|yea)\b", r"\1", text, flags=re.I)
    text = re.sub(r"^(?:yeah|yea),?\s+nah\b", "nah", text, flags=re.I)
    text = re.sub(r"(?<=\w)\s*(?:✅|👍)\s+(?=[a-z])(?!again\b)", ". ", text)  # "approved ✅ topo -m is safe": a pause
    # "^C. the whole run": a shell's interrupt is a stop; "EOF." before more words is only its end
    text = re.sub(r"^\s*(?:\^c|ctrl[-+]c)\b[.!]?", "stop.", re.sub(r"^\s*EOF[.!]\s+(?=\S)", "", text), flags=re.I)
    words = _EMOJI.sub("", spoken.marks(text)).strip() or text.strip()  # "gpu 3 ✗" is "not gpu 3", no gesture
    words = spoken.chat_framing(words) or words  # ":shrug:", "# a comment", "@bot"
    words = spoken.homophones(spoken.dictated_breaks(words))  # "let's do option won", a dictated run-on
    # "Negative do not sign off": a radio operator's no, said before the refusal with no comma
    words = re.sub(r"^negative\s+(?=(?:don'?t|do\s+not|not)\b)", "no, ", words, flags=re.I)
    # "end the whole run now, not just the server": what the stop is not only, said to make it plain
    if re.search(r"\b(?:whole|entire)\s+run\b|\brun\s+too\b|\beverything\b", words, re.I):
        words = re.sub(r"[,;]?\s*not\s+(?:just|only)\s+(?:the\s+)?(?:server|sglang|engine)\b", "", words, flags=re.I)
    words = re.sub(r"^only\s+(?=#\d)", "", words, flags=re.I)  # "only #2": the step, marked as one
    # "no don't worry about gpu 0, go ahead": the "no" is the reassurance's, never a refusal
    words = re.sub(r"^(?:no|nah|nope)[\s,]+(?=don'?t\s+worry\b)", "", words, flags=re.I)
    # "nah I don't mind, run it": the "no" answers "do you mind?", and a go-ahead follows; never a refusal
    words = re.sub(rf"^(?:no|nah|nope)[\s,]+(?={DONT_MIND}\b)", "", words, flags=re.I)
    # "only now seeing this. no, leave it", "saw this late - no": why the answer is late, said before it
    words = re.sub(
        r"^(?:sorry[,.]?\s+)?(?:(?:i'?m\s+)?only\s+(?:now\s+)?(?:just\s+)?seeing\s+this(?:\s+now)?|(?:i\s+)?(?:just\s+)?saw\s+this"
        r"(?:\s+(?:late|just\s+now|now))?|(?:i\s+)?was\s+(?:offline|afk|away)|late\s+reply|sorry\s+for\s+the\s+(?:delay|late\s+reply))"
        r"\s*(?:[.,!:;—–-]+\s*)+(?=\S)",
        "",
        words,
        flags=re.I,
    )
    # "hold on - no. don't run that.": a pause said before the no, which answers
    words = re.sub(r"^(?:wait|hang\s+on|hold\s+on)\s*(?:[-—–,.!]+\s*)+(?=(?:no|nope|nah)\b)", "", words, flags=re.I)
    # "No I don't want you reading the log": a dictated no, its comma never said
    words = re.sub(
        r"^(no|nope|nah)\s+(?=i\s+(?:don'?t|do\s+not|won'?t|can'?t)\s+(?!mind|care|see\s+why\s+not|worry|think\s+(?:that'?s|it'?s)\s+(?:a\s+)?(?:problem|an\s+issue))\w)",
        r"\1, ",
        words,
        flags=re.I,
    )
    # "stop everything were done": a stop, then its reason with no comma (never "ok we're done ...")
    words = re.sub(
        r"^(?P<stop>.*\b(?:stop|end|kill|shut|cancel|halt|abort)\w*\b.*?\w)\s+(?=we(?:'?re|re|\s+are)\s+done\b)",
        r"\g<stop>, ",
        words,
        flags=re.I,
    )
    # a second language's forms: "do the number 2 one", "you can continuing with your plan, not need to wait me"
    words = re.sub(r"\bthe\s+number\s+(\d)\s+one\b", r"number \1", words, flags=re.I)
    words = re.sub(r"^you\s+can\s+(?:continu(?:e|ing)|going\s+on|go\s+on)\b", "continue", words, flags=re.I)
    words = re.sub(
        r"\bnot\s+need\s+to\s+(wait|ask)\s+(?:for\s+|to\s+)?me\b", r"no need to \1 for me", words, flags=re.I
    )
    # "could you do number 2 please, the one that lists the cards?": the step, then what it is
    words = re.sub(
        r"\b((?:number|step|option)\s\d(?:\s+please)?),\s+the\s+one\s+(?:that|which)\s+[^?,;]+\?$",
        r"\1?",
        words,
        flags=re.I,
    )
    # "fire away on that one": that one is the action asked about
    words = re.sub(r"\s+on\s+(?:that|this)\s+one\b", "", words, flags=re.I)
    words = _VOTE.sub(lambda m: "approve" if m.group(0) == "+1" else "no", words)  # a code review's vote
    # "stop everything for tonight", "keep going till the morning", "go ahead, same as you did before"
    words = references.reply_plain(time_scope.reply_plain(words))
    # "can't hurt", "I wouldn't say no"
    return litotes.plain(_SHORT.sub(lambda m: _SHORTHAND[m.group(0).lower()], words))
