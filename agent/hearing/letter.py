"""A message written as a short letter or an e-mail reply: the greeting ("Hi,", "Hello team,"), the
sign-off ("Thanks, Priya", "Best, M.", "-D"), the signature after "-- ", "cc:" and "Ref:" lines and a phone's
"Sent from my iPhone". They address the agent or end the message; none says what to do, so the body is read
alone. (A quote of the question is dropped, and anyone else's kept, by agent.hearing.reply_words.unquoted.)"""

from __future__ import annotations

import re

_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening)|morning)(?:\s+(?:team|all|folks|everyone|there|opsagent|bot))?"
    r"\s*[,!.:]?\s*\n",
    re.I,
)
_SIGN_OFF = re.compile(
    r"\n\s*(?:thanks|thank\s+you|many\s+thanks|thx|best|best\s+regards|regards|kind\s+regards|cheers|br|cordially|sincerely)"
    r"\s*[,!.]?(?:\s*\n?\s*[A-Z][\w.'-]*\.?(?:\s+[A-Z][\w.'-]*\.?)?)?\s*$",
    re.I,
)
# "-- \nDana Okafor\nSRE Lead", "-- Dana (on call)": an e-mail signature, from its delimiter to the end
_SIGNATURE = re.compile(r"\n[ \t]*--[ \t]*(?:\n.*|[ \t][A-Z][^\n]*)\Z", re.S)
_SENT_FROM = re.compile(
    r"\n\s*(?:sent\s+from\s+(?:my\s+)?\w+(?:\s+(?:for\s+)?\w+)?|get\s+outlook\s+for\s+\w+)\s*\.?\s*\Z", re.I
)
# "-D", "D.", "— Dana": the writer's initial or first name alone on the last line, after a blank line
_INITIAL = re.compile(r"\n\s*\n\s*(?:(?:[-–—~]\s*)[A-Z][a-z]*\.?|[A-Z]\.)\s*\Z")
# "cc: Marcus, Priya", "Ref: INC-5120": who else reads it, and the ticket it belongs to, on the last line
_CC_OR_REF = re.compile(
    r"\n\s*(?:b?cc\b\s*:?[ \t]*[^\n]*|(?:ref|ticket|see)\b\s*:?[ \t]*#?[A-Z][A-Z0-9]*-\d+\.?)\s*\Z", re.I
)
# "+Marcus": someone added to the thread, on the first line
_ADDED = re.compile(r"\A\s*\+\s*@?[A-Z][\w.-]*[ \t]*\n")
_ENDINGS = (_SIGNATURE, _SENT_FROM, _CC_OR_REF, _INITIAL)


def _without(text: str, parts: tuple[re.Pattern[str], ...]) -> str:
    """`text` less each of `parts` it has, again and again, while any words are left."""
    while (shorter := next((p.sub("", text) for p in parts if p.search(text)), text)) != text and shorter.strip():
        text = shorter
    return text


def body(text: str) -> str:
    """`text` without a letter's greeting, sign-off, signature, cc and Ref lines; a message that is no
    letter, as it was. "Hi,\n+Marcus\n...\ncc: Priya\nThanks,\nDana\n\nSent from my iPhone": each, in any order."""
    text = _without(text.strip(), (_GREETING, _ADDED))
    return _without("\n" + text, (*_ENDINGS, _SIGN_OFF)).strip()  # the endings' patterns start at a newline
