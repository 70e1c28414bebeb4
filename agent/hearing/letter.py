"""A message written as a short letter: the greeting ("Hi,", "Hello team,") and the sign-off ("Thanks,
Priya", "Best, M.") around what it says. They address the agent and end the message; neither says what
to do, so the body is read alone."""

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


def body(text: str) -> str:
    """`text` without a letter's greeting line and sign-off; a message that is no letter, as it was."""
    return _SIGN_OFF.sub("", _GREETING.sub("", text)).strip() or text.strip()
