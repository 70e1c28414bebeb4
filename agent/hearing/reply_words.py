"""The words of a reply, as patterns: the courtesies, yeses, approvals, go-ons, stops and refusals an
operator types (`agent.hearing.replies` decides what a reply means with them)."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from agent.hearing import foreign, not_taken
from agent.state import Action, Question

COURTESY = (
    r"(?:thanks|thank\s+you|thx|cheers|ta|please|pls|lah|la|leh|idc|it|that|this|for\s+me|now|then|man|mate|here|rn|right\s+now|asap|"
    r"for\s+(?:this|that)\s+one|on\s+this\s+one|actually|sorry|ty|tyvm|kindly|whatsoever|(?:just\s+)?this\s+once|honestly|tbh|eh|meh|"
    r"would\s+you|will\s+you|lol|haha|heh|svp|itself|only|s'il\s+vous\s+pla[iî]t|merci|sir|madam|ma'?am|"
    r"from\s+my\s+(?:side|end)|(?:but\s+)?(?:quick(?:ly)?|be\s+quick|make\s+it\s+quick|hurry(?:\s+up)?)|"
    r"sorry\s+(?:for|about)\s+(?:the|all\s+the|my)\s+(?:wait|delay|late\s+(?:reply|answer)|slow\s+(?:reply|answer)))"
)
# "(no,) I don't mind": an answer to "do you mind?", a yes; never a "don't"
DONT_MIND = r"i\s+(?:don'?t|do\s+not)\s+mind"
AFFIRM = (
    r"(?:yes|yep|yup|yeah|ya|yea|ok(?:ay)?|sure(?:\s+thing)?|fine|sounds\s+(?:reasonable|good|fine|right)|"
    r"no\s+(?:problem|worries)|np)"
)
APPROVAL = (
    r"(?:looks?\s+(?:good|great|fine)(?:\s+to\s+me)?|lgtm|ship\s*it|sign(?:ed)?\s+(?:it\s+)?off|i\s+sign\s+off|"
    r"approved?|confirmed|i\s+approve|accept(?:ed)?|go\s+ahead(?:\s+with\s+(?:that|it|this))?|do\s+it|sounds\s+good|yes|yep|"
    r"yup|yeah|sure|ok(?:ay)?|ship|affirmative|"
    r"that'?s\s+(?:fine|good|it)|(?:it'?s|its|that'?s|thats)\s+good\s+for\s+me|all\s+good|agreed|works\s+for\s+me|(?:the\s+)?numbers\s+look\s+(?:good|great|fine)|"
    r"signing\s+off|good\s+to\s+go|do\s+the\s+needful|(?:ok|good)\s*2\s*go|g2g|(?:it\s+)?(?:is|looks)\s+good|i\s+approve|from\s+my\s+side|👍|✅|"
    r"fine\s+(?:by|with)\s+me|sgtm|approving|goal\s+met|you\s+may\s+sign\s+off|sign\s+it\s+off|"
    r"(?:that'?s|thats|it'?s|its)\s+(?:ok(?:ay)?|fine|safe)\s+to\s+run|"
    r"(?:please\s+)?(?:proceed|go\s+ahead)\s+with\s+what\s+you\s+(?:proposed|suggested)|"
    r"(?:just\s+)?do\s+(?:the\s+one|the\s+thing|what)\s+you\s+(?:just\s+)?(?:proposed|suggested)|"
    r"(?:i\s+)?(?:don'?t|do\s+not|can'?t|cannot)\s+see\s+why\s+not|that'?ll\s+do(?:\s+nicely)?|fair\s+enough|go\s+on\s+then|"
    r"not\s+a\s+bad\s+idea|i\s+(?:don'?t|do\s+not)\s+see\s+a\s+problem(?:\s+with\s+(?:it|that|this))?|"
    r"(?:i\s+)?can'?t\s+argue\s+with\s+(?:those|the|that|these)\s+numbers|"
    # "can", "can can", "ok can": a yes in Singapore and Malaysian English
    r"(?:ok\s+)?can(?:\s+can)?|validated|i\s+sign(?:\s+(?:it|this))?(?:\s+off)?|"
    r"(?:i\s+have\s+)?no\s+(?:concerns?|objections?)(?:\s+(?:with|about)\s+(?:it|that|this))?(?:\s+whatsoever)?"
    r"(?:\s+(?:from\s+me|here|on\s+my\s+(?:end|side)))?|granted|(?:please\s+)?sign\s+off|"
    r"i\s+am\s+happy\s+to\s+sign\s+(?:it\s+)?off(?:\s+on\s+(?:this|it))?|you\s+have\s+my\s+approval(?:\s+to\s+(?:close\s+(?:this|it)\s+out|proceed|sign\s+off))?)"
)
# Praise that signs off a finished run, but approves no command: "nice" is no answer to "may I run X?"
PRAISE = (
    r"(?:good(?:\s+enough)?|great|perfect|nice|fine|well\s+done|(?:nice|good|great)\s+(?:job|work)(?:\s+(?:tonight|today))?|that'?s\s+great|"
    r"we'?re\s+done(?:\s+here)?|done|excellent|awesome|close\s+(?:it|this|the\s+(?:run|ticket|session))(?:\s+out)?|(?:that'?s|thats|it'?s)\s+a\s+pass|sign\s+it|signed|"
    # "that meets the target, I'll sign", "this is done": the run judged finished, in the operator's words
    r"(?:that|it|this)\s+(?:meets|hits|clears)\s+(?:the\s+)?(?:target|goal|bar)|(?:this|that|it)\s+is\s+done|"
    r"i'?ll\s+sign(?:\s+(?:it|this|that))?(?:\s+off)?)"
)
# what a "don't wait on me for ..." is said about: routine steps, never a condition or an action named
ROUTINE = (
    r"(?:read[-\s]only|each|every|individual|little|small|minor|these|those|this|that|such|the|kind|sort|of|things?|stuff|"
    r"steps?|commands?|checks?|reads?|queries|like|ones?|type|now|safe|harmless|diagnostics?|every\s+step|times?|single|"
    # "stop asking me every 5 seconds": how often it asks, a complaint, no count of anything
    r"every\s+(?:\d+|few|couple\s+of|two|three|five|ten|fifteen)\s+(?:seconds?|secs?|minutes?|mins?))"
)
CONTINUE = (
    r"(?:keep\s+(?:on\s+)?(?:going|at\s+it|trying|working|tuning|testing|digging|pushing|optimi[sz]ing|improving|squeezing)(?:\s+on\s+it)?"
    r"(?:\s+(?:a\s+(?:while|bit|little)\s+)?longer|\s+a\s+(?:bit|little)\s+more)?|(?:carry\s+on|go\s+on|continue|proceed)\s+further|carry\s+on|go\s+on|continue|press\s+on|go\s+for\s+it|"
    r"(?:don'?t|do\s+not)\s+stop(?:\s+(?:now|here|yet|there|at\s+good\s+enough))?(?!\s+(?:it|that|this|the|them)\b)|"
    r"on\s+your\s+own|your\s+call(?:\s+entirely)?|up\s+to\s+you|(?:you|u)\s+decide|skip\s+the\s+question|no\s+need\s+to\s+(?:ask|wait)(?:\s+(?:for|on))?(?:\s+me)?|"
    r"(?:you\s+)?(?:don'?t|do\s+not)\s+(?:need\s+to\s+)?(?:ask|wait\s+(?:on|for))\s+me(?:\s+(?:for|on|about|before)\s+(?:each|every)\s+step)?"
    r"(?:\s+for\s+(?:this|that)(?:\s+one)?)?|"
    r"figure\s+it\s+out(?:\s+(?:yourself|on\s+your\s+own|by\s+yourself))?|"
    r"do\s+whatever\s+is\s+(?:required|needed|necessary)(?:\s+(?:yourself|on\s+your\s+own))?|"
    r"use\s+your\s+(?:own\s+)?judg(?:e)?ment|(?:kindly\s+)?proceed(?:\s+however\s+you\s+see\s+fit)?|"
    r"(?:carry\s+on|keep\s+going|continue|go\s+on|crack\s+on)\s+without\s+me|(?:you\s+)?continue\s+(?:by\s+)?yourself|"
    r"no\s+need\s+(?:to\s+)?ask\s+me(?:\s+every\s+(?:time|step))?|"
    # "carry on with whatever you had planned", "just do whatever you had planned next": its own plan
    r"(?:(?:carry\s+on|keep\s+going|continue|go\s+on|proceed)(?:\s+with)?|(?:just\s+)?do)\s+(?:whatever|however|what)\s+you\s+"
    r"(?:had\s+planned|planned|were\s+(?:going\s+to|planning)(?:\s+(?:do|go))?|had\s+in\s+mind)(?:\s+next)?|"
    rf"stop\s+(?:ask(?:ing)?|bother(?:ing)?|check(?:ing)?\s+(?:in\s+)?with|waiting\s+(?:on|for))\s+me(?:\s+(?:for|on|about|at)?\s*(?:{ROUTINE}\s*)+)?|"
    r"you\s+don'?t\s+have\s+to\s+(?:ask|check\s+with)\s+me(?:\s+(?:before|about|for)\s+(?:each|every)(?:\s+(?:of\s+those|step|one))?)?|"
    r"(?:there\s+is\s+)?(?:really\s+)?no\s+need\s+to\s+(?:consult|ask|check\s+with)\s+me(?:\s+(?:on|about|for)\s+(?:each|every)(?:\s+individual)?\s+step)?|"
    r"(?:don'?t|do\s+not)\s+wait\s+on\s+me\s+for\s+this\s+kind\s+of\s+(?:stuff|thing)|"
    r"you(?:'ve|\s+have)\s+got\s+(?:this|it|(?:the\s+)?next\s+steps?)|"
    r"(?:go\s+ahead|carry\s+on|keep\s+going|press\s+on|continue|proceed)\s+with\s+(?:the\s+)?(?:remaining\s+steps|rest(?:\s+of\s+(?:the|your)\s+(?:steps|plan))?|steps)|"
    r"(?:you\s+)?(?:don'?t|do\s+not)\s+need\s+to\s+check\s+in(?:\s+with\s+me)?(?:\s+(?:every|each)\s+(?:time|step))?|"
    r"as\s+you\s+see\s+fit|(?:just\s+)?do\s+whatever\s+you\s+(?:were\s+(?:gonna|going\s+to)\s+do|planned(?:\s+to\s+do)?|think\s+is\s+best)|(?:go\s+ahead|carry\s+on|keep\s+going|press\s+on|continue|proceed|go\s+on)\s+with\s+(?:your|the)\s+(?:own\s+)?(?:plan|list|steps|next\s+steps?)|"
    r"(?:there'?s\s+|there\s+is\s+)?no\s+(?:more\s+)?input\s+from\s+me|"
    r"you\s+know\s+what\s+to\s+do|(?:with\s+)?whatever\s+you\s+think\s+is\s+best|crack\s+on|"
    r"do\s+whatever\s+you\s+(?:think|want|like|see\s+fit|planned|had\s+(?:planned|lined\s+up|in\s+mind))(?:\s+is\s+(?:next|best|right)|\s+comes\s+next)?|"
    r"(?:just\s+)?do\s+whatever(?:'s|\s+is)\s+next(?:\s+on\s+(?:your|the)\s+(?:list|plan))?|"
    r"(?:keep\s+going|carry\s+on|go\s+on|continue)\s+(?:on|with)\s+your\s+own\s+plan|"
    r"(?:do|follow|run\s+with)\s+your\s+(?:own\s+)?(?:plan|thing)|"
    r"(?:you\s+)?don'?t\s+need\s+my\s+(?:ok|okay|approval|permission)\s+(?:per|for\s+(?:each|every))\s+(?:command|step)|"
    r"(?:keep\s+going|carry\s+on|go\s+on|continue|proceed)\s+with\s+(?:whatever|what)\s+you\s+think\s+(?:is|comes)\s+(?:next|best)|"
    # "stop asking and just iterate"; "make how you think" (German "mach wie du denkst")
    r"(?:with\s+)?whatever\s+you\s+think(?:\s+is\s+best)?|auto(?:pilot)?\s+from\s+here|"
    r"(?:carry\s+on|keep\s+going|continue|go\s+on)\s+without\s+me\s+for\s+(?:a\s+bit|now|a\s+while)|"
    r"stop\s+asking(?:\s+me)?(?:\s+and\s+(?:just\s+)?(?:iterate|keep\s+going|carry\s+on|continue|get\s+on\s+with\s+it))?|"
    r"(?:do|make)\s+(?:it\s+)?(?:how|as)\s+you\s+think(?:\s+(?:is\s+)?best)?|"
    r"(?:carry\s+on|keep\s+going|continue|go\s+on|proceed)\s+(?:how|as)\s+you\s+(?:had\s+)?(?:planned|had\s+it|were\s+going)|"
    # a decision handed back whole: "not weighing in on this one", "this one I don't decide it for you"
    r"(?:i'?m\s+)?not\s+(?:weighing\s+in|deciding|choosing)(?:\s+(?:on\s+)?(?:this|that)(?:\s+(?:one|step))?)?(?:\s+for\s+you)?|"
    r"(?:(?:this|that)\s+one\s+)?i\s+(?:don'?t|do\s+not)\s+(?:decide|choose)(?:\s+(?:it|this|that))?"
    r"(?:\s+(?:one|between\s+(?:these|them|those)))?(?:\s+for\s+you)?|"
    r"(?:keep\s+going|carry\s+on|go\s+on|continue|proceed)\s+(?:how|as|however)\s+you\s+(?:think|see)\s+(?:is\s+)?(?:best|fit)|"
    r"(?:just\s+)?work\s+through\s+(?:your|the)\s+plan|"
    r"you\s+don'?t\s+need\s+to\s+(?:ask|check\s+with)\s+me(?:\s+(?:about|for|on)\s+(?:each|every)\s+step)?|"
    r"you\s+don'?t\s+(?:really\s+)?need\s+(?:me|my\s+(?:approval|permission|ok|sign[-\s]?off))(?:\s+for\s+(?:this|that|each|every)(?:\s+[\w-]+)*)?|"
    r"(?:go\s+ahead|carry\s+on|keep\s+going|press\s+on|continue|proceed|go\s+on)\s+(?:as\s+planned|per\s+(?:your|the)\s+plan|"
    r"with\s+(?:your|the)\s+own\s+plan|with\s+whatever\s+(?:your|the)\s+plan\s+is)|"
    # "no need to wait on me for read-only steps", "don't keep checking in with me for stuff like this"
    r"(?:(?:you\s+)?(?:don'?t|do\s+not|needn'?t)\s+(?:(?:need|have)\s+to\s+)?|(?:there'?s\s+|there\s+is\s+)?(?:really\s+)?no\s+need\s+to\s+)"
    r"(?:keep\s+)?(?:ask(?:ing)?|ping(?:ing)?|wait(?:ing)?\s+(?:on|for)|check(?:ing)?\s+(?:in\s+)?(?:with|w)|consult(?:ing)?|bother(?:ing)?|block(?:ing)?\s+on)\s+"
    r"(?:me|my\s+(?:answer|reply|ok|go|confirmation|approval|permission|input))"
    rf"(?:(?:\s+(?:for|on|about|with|at))?(?:\s+{ROUTINE})+)?|"
    # "please continue your plan", "proceed by yourself", "carry on without checking in with me"
    r"(?:continue|follow|pursue)\s+(?:with\s+)?your\s+(?:own\s+)?plan|(?:proceed|continue|carry\s+on|go\s+on)\s+by\s+yourself|"
    r"(?:carry\s+on|keep\s+going|continue|proceed|go\s+on)\s+without\s+(?:checking\s+(?:in\s+)?with|asking|waiting\s+(?:on|for)|bothering)\s+me|"
    r"(?:go\s+ahead|carry\s+on|keep\s+going|press\s+on|continue|proceed)\s+with\s+what\s+you\s+were\s+doing|"
    r"(?:go\s+ahead|carry\s+on|keep\s+going|press\s+on|continue|proceed)\s+with\s+whatever\s+you\s+had(?:\s+going)?|"
    r"(?:go\s+ahead|carry\s+on|keep\s+going|press\s+on|continue|proceed)\s+with\s+(?:whatever|what)\s+you\s+"
    r"(?:had\s+)?(?:planned|were\s+planning|had\s+in\s+mind|lined\s+up|queued(?:\s+up)?)(?:\s+(?:next|to\s+do))?)"
)
SEP = r"[\s,.;:!—–-]+"

# "kill it. the whole session i mean": "it" put right as the whole run, after the verb's "it"
IT_MEANS_THE_RUN = r"[\s.,;:—–-]+(?:i\s+mean\s+)?(?:the\s+)?(?:whole|entire)\s+(?:run|session|thing)"

# The run's stop in words ("stop here", "let's stop for today"); "stop the server" is an instruction, read first.
STOP_RUN = (
    r"(?::q!?|(?:let'?s\s+)?stop(?:\s+the\s+(?:whole\s+)?(?:run|thing))?(?:\s+(?:here|now))?(?:\s+altogether)?(?:\s+for\s+(?:now|today|tonight|the\s+day))?|"
    r"(?:that'?s|that\s+is)\s+enough(?:\s+for\s+(?:today|now|tonight))?|call\s+it\s+a\s+day|"
    r"(?:that'?s|that\s+is)\s+it\s+for\s+(?:today|tonight|the\s+day)|wrap\s+up\s+the\s+(?:whole\s+|entire\s+)?(?:run|session)|"
    # "shut the whole run down", "wrap the whole run up": the run named whole, then where it goes
    r"(?:shut|close|wind|wrap)\s+(?:the\s+)?(?:whole\s+|entire\s+)(?:run|session)\s+(?:down|up)|"
    r"abort(?:\s+(?:the\s+)?(?:whole\s+)?(?:thing|run|mission|session|everything))?|terminate\s+the\s+(?:whole\s+|entire\s+)?(?:run|session)|(?:stop|end)\s+(?:everything|it\s+all|all\s+of\s+it)(?:\s+(?:here|now))?|"
    r"(?:(?:the\s+)?whole\s+run\s+(?:stop|cancel|end)|(?:kill|end|cancel|halt|stop|scrap|bin|ditch)\s+(?:the\s+|this\s+)?(?:whole\s+|entire\s+)?(?:run|session|thing))"
    r"(?:[\s,]+not\s+just\s+the\s+server)?"
    r"(?:\s+(?:entirely|altogether|completely))?(?:\s+(?:at\s+this\s+point|now))?|halt(?:\s+everything)?|call\s+it\s+off|stand\s+down|"
    r"pull\s+the\s+plug(?:\s+on\s+(?:the\s+|this\s+)?(?:whole\s+|entire\s+)?(?:run|session|thing))?|"
    r"bring\s+the\s+(?:whole\s+|entire\s+)?(?:run|session)\s+to\s+a\s+close(?:\s+now)?|end\s+(?:the\s+run|it)\s+here|"
    # "i'll take it from here by hand": the operator takes over, the run ends
    r"i'?ll\s+take\s+it\s+from\s+here(?:\s+(?:by\s+hand|manually|myself))?|"
    # "kill it. the whole session i mean, not just the server": "it" put right as the whole run
    rf"(?:kill|end|stop|halt|scrap)\s+it{IT_MEANS_THE_RUN}"
    r"(?:[\s,]+i\s+mean)?(?:[\s,]+not\s+just\s+the\s+server)?)"
)

# after a bare "don't" / "do not": no verb of its own ("no dont touch GPU 0" is an instruction, the reason)
_NO_VERB_AFTER = r"(?!\s+(?!(?:sorry|thanks|pls|please|mate|for|now|right|as|yet|again)\b)[a-z])"
REFUSAL = re.compile(
    r"^(?:(?:please|pls|sorry|apologies|hmm+|um+|uh+|well|so)[\s,]+)*"
    # "no wait, don't sign off yet", "hang on, not yet": a pause said first, then the refusal
    r"(?:(?:(?:no|nope|nah)[\s,]+)?(?:wait|hang\s+on|hold\s+on|hold)[\s,.!]+(?=not\b|don'?t\b|never\b|nope\b|nah\b|let'?s\s+not\b))?"
    r"(?:(?:no|nope|nah|non)(?:[\s,]+|\s+[-—–]+\s+)(?:(?:pls|please)\s+)?"
    r"(?=not\b|don'?t\b(?!\s+worry)|never\b|hold\b|absolutely\b|definitely\b|skip\b|pass\b|no\s+sign|i\s+(?:can'?t|cannot|won'?t|will\s+not)\s+sign\b))?"
    # "don't sign off", "not yet sign off": the sign-off refused in so many words
    r"(?:(?:please\s+)?(?:don'?t|do\s+not|not(?:\s+yet)?)\s+sign(?:\s+(?:it|this))?(?:\s+off)?(?:\s+(?:yet|now|today|just\s+yet))?|"
    r"hold\s+off(?:\s+on\s+(?:that|this|it|signing(?:\s+(?:it\s+)?off)?|the\s+sign[-\s]?off))?(?:\s+for\s+now)?|absolutely\s+not|(?:yeah|yea|ok(?:ay)?|uh|um|hmm*|hm|erm|mm+|meh|eh|lol|lmao|haha|heh)[\s,.]+no(?:pe)?|nah|please\s+not(?=\s*(?:[,.;:!]|$))|not\s+done(?:\s+yet)?|i\s+(?:don'?t|do\s+not)\s+think\s+(?:it'?s|its|it\s+is)\s+(?:done|ready|there)(?:\s+yet)?|nope|no\s+way|not\s+now|not\s+yet|"
    r"nack|nak|negative[\s,]+not\s+(?:that|this)(?:\s+one)?|negative(?:\s+on\s+(?:that|this|it|the\s+[\w.-]+(?:\s+(?:query|command|check|one|run))?|[\w.-]+))?|no\s+sign[-\s]?off(?:\s+from\s+me)?|hell\s+no|(?:hard\s+|big\s+)?no\s+on\s+(?:that|this)(?:\s+one)?|hard\s+no|"
    r"(?:i'?d\s+)?rather\s+(?:you|we)\s+didn'?t(?:\s+sign(?:\s+(?:it|this))?\s+off|\s+call\s+it\s+(?:done|finished))?(?:\s+(?:just\s+)?yet)?|i'?d\s+prefer\s+(?:you\s+didn'?t|not(?:\s+to)?|to\s+hold(?:\s+(?:off|the\s+sign[-\s]?off))?)|"
    r"(?:let'?s\s+)?hold\s+(?:the\s+)?sign[-\s]?off|not\s+needed|not\s+required|no\s+need|unnecessary|not\s+(?:(?:entirely|fully|quite|really)\s+)?convinced|"
    r"perhaps\s+not|probably\s+not|not\s+quite(?:\s+yet)?|cannot|can'?t(?=\s*(?:[,.;:!]|$))|"
    r"i\s+wouldn'?t(?:\s+(?:do|run)\s+(?:it|that|this))?|"
    r"i\s+would\s+rather\s+you\s+did\s+not(?:\s+proceed(?:\s+with\s+(?:that|it|this))?)?|"
    r"i\s+regret\s+that\s+i\s+must\s+decline(?:\s+to\s+sign\s+(?:this|it)(?:\s+off)?)?|"
    r"don'?t\s+bother(?:\s+(?:running|with)\s+(?:it|that|this))?|"
    r"i(?:'?d|\s+would)?\s+prefer\s+(?:that\s+)?(?:you\s+)?(?:don'?t|do\s+not|didn'?t|did\s+not|not)(?:\s+(?:run|execute|do)\s+(?:it|that|this)(?:\s+one)?)?"
    r"(?:\s+(?:at\s+present|for\s+now|right\s+now|at\s+the\s+moment))?|(?:i\s+am\s+afraid\s+|i'?m\s+afraid\s+)?i\s+(?:must|have\s+to|will|'ll)\s+"
    rf"(?:decline|refuse|say\s+no\s+to)(?:\s+(?:that|this|it)(?:\s+one)?)?|not\s+just\s+yet(?:,?\s+i\s+am\s+afraid)?|definitely\s+not|certainly\s+not|(?P<dont>(?:please\s+)?don'?t(?:\s+(?:do|run|launch)\s+(?:it|that|this)(?:\s+one)?)?){_NO_VERB_AFTER}|"
    # never "no dont touch GPU 0": a "don't" with a verb after it is an instruction, kept whole as the reason
    rf"(?P<donot>(?:please\s+)?do\s+not(?:\s+(?:do|run|launch|execute)\s+(?:it|that|this)(?:\s+one)?)?){_NO_VERB_AFTER}|let'?s\s+not(?:\s+sign(?:\s+(?:it\s+)?off)?(?:\s+(?:today|yet|now|just\s+yet))?)?|(?:i'?d\s+)?rather\s+not|better\s+not|not\s+(?:this|that)(?:\s+one)?|"
    r"no\s+thanks|no\s+thank\s+you|no\s+go|no-go|not\s+good\s+enough|not\s+accepted|"
    r"i\s+(?:don'?t|do\s+not)\s+accept\s+(?:that|this|it)(?:\s+as\s+(?:met|done|a\s+pass))?|pass(?=\s*(?:[,.;:!]|$))|skip\s+(?:it|that|this)(?:\s+(?:one|step))?|"
    r"veto(?:ed)?|denied|declined|reject(?:ed)?|i\s+reject|refused?|not\s+approved(?!\s+yet)|"
    r"not\s+on\s+this\s+(?:box|host|machine|node)|(?:i'?m\s+)?not\s+signing(?:\s+(?:it\s+)?off)?(?:\s+on\s+[^,.;:!—–]+|\s+(?:this|that|it)(?:\s+one)?)?|"
    # "I can't sign off on this one", "I won't sign it": a sign-off refused in the first person
    r"(?:i\s+am\s+afraid\s+)?(?:i\s+)?(?:can'?t|cannot|won'?t|will\s+not|am\s+not\s+going\s+to)\s+sign(?:\s+(?:it|this|that))?(?:\s+off)?"
    r"(?:\s+on\s+(?:this|it|that)(?:\s+one)?)?(?:\s+as\s+it\s+stands)?|"
    r"i(?:'m|\s+am)\s+not\s+in\s+a\s+position\s+to\s+sign(?:\s+(?:it|this|that))?(?:\s+off)?|"
    r"i(?:'m|\s+am)\s+not\s+giving\s+(?:(?:the|my|a)\s+)?sign[-\s]?off(?:\s+for\s+(?:this|it|that))?|"
    r"(?:i'?m\s+afraid\s+)?that'?s\s+a\s+(?:hard\s+)?no(?:\s+from\s+me)?|"
    r"i'?m\s+not\s+comfortable\s+sign(?:ing)?(?:\s+(?:it|this))?(?:\s+off)?(?:\s+on\s+(?:this|it|that)(?:\s+one)?)?)"
    r"(?:\s+(?:sorry|thanks|pls|please|mate|for\s+now|now|right\s+now|as\s+of\s+now|as\s+it\s+stands|yet|again|👎|❌))?"
    # never the dashes of "--flag"; "declined pending review", "not signing until X": the reason, no comma
    # (never after "don't launch it": "... again until I say so" is a hold, read as one)
    r"(?:(?:\s*(?:[,.;:!(/]|\s[—–-]{1,2}(?=\s))+|(?(dont)(?!)|(?(donot)(?!)|\s+(?=(?:pending|until|till)\s))))"
    r"\s*(?P<reason>.+?))?[\s.!]*$",
    re.I,
)
# "not yet rerun bnch first": no comma, then words the grammar reads whole (checked where used)
REFUSAL_THEN = re.compile(r"^(?:not\s+yet|not\s+now|hold\s+off)\s+(?P<reason>[a-z].*)$", re.I)
# "nope dont need topo again", "not yet want single stream #s too", "no skip it we know": a refusal no
# sentence starts with otherwise, then its reason with no comma; a reason the grammar reads, or a
# "hold off relaunching", is an instruction instead (read by the rules above and below)
REFUSAL_RUN_ON = re.compile(
    # "no dont need topo again": the "don't" stays in the reason, which is judged whole ("no dont touch GPU 0")
    r"^(?:(?:nope|nah)|(?:no|nope|nah)[\s,]+(?:skip\s+(?:it|that|this)|(?=don'?t\b(?!\s+worry))|not\s+(?:now|yet|that)|hold\s+off)|not\s+yet|not\s+now|"
    r"(?:please\s+)?don'?t\s+(?:run|do)\s+(?:that|it|this)(?:\s+one)?|"
    r"hold\s+off|(?:i'?d\s+)?rather\s+you\s+didn'?t|i'?d\s+rather\s+not)\s+(?P<reason>(?!(?:on\s+)?\w+ing\b)[a-z#].*)$",
    re.I,
)


# what a "stop"/"abort" may be followed by, with no pause, and still end the run ("abort the entire run",
# "stop all", "stop now please"); "the" stays, as "stop the server" is read as an instruction before this
RUN_OBJECT = re.compile(
    r"^(?:the\s+(?:whole\s+|entire\s+)?(?:run|session|thing|lot)|all|everything|it|now|here|entirely|completely|please|pls|"
    r"whole|entire|run|this|that|today|for)\b|^\W",
    re.I,
)


# where a reply takes itself back: "-- actually no, carry on", "... eh fine, sign off" (a word that turns it,
# then the answer that stands), or a new sentence that turns a no to a yes ("hmm no. ok ya, sign off")
_ANSWER_WORD = (
    r"(?:just\s+)?(?:ok(?:ay)?|fine|yes|ya|yeah|go|carry|keep|kill|stop|abort|sign|continue|approve|proceed|"
    # a turn to a no stands too ("yes go ahead. actually hold on, no"): a refusal is what is said last
    r"no|nope|nah|not\s+yet|don'?t|dont|do\s+not|do\s+(?=#?\d|step|option|number))\b"
)
TURNS = (
    re.compile(
        r"(?:\s--?\s*|\s*[—–]\s*|\.\.+\s*|[.;!,]\s+)(?:actually(?:,?\s+no)?(?:,?\s+hold\s+on)?|eh|hmm+|on\s+second\s+thought|scratch\s+that\.?|i\s+mean|"
        rf"wait(?!\s+(?:for|on|till|until|a)\b))[\s,]+(?P<word>(?={_ANSWER_WORD}))",
        re.I,
    ),
    re.compile(r"[.;!]\s+(?P<word>(?=(?:ok(?:ay)?|fine|yes|yeah)\b))", re.I),  # never "ya": Spanish "already"
)

# "lol ok": a laugh, then a bare yes, may be a shrug at something else; never taken as an answer
# a laugh or a "hmm" before a bare yes: amused or unsure, never plainly yes
LAUGH_THEN_YES = re.compile(
    rf"^(?:h+m+|lol|lmao|rofl|haha+|hehe*|heh|(?:ja){{2,}}|(?:je){{2,}}|k{{3,}}|(?:rs){{2,}}|mdr|xd+|ㅋ+|ㅎ+|w{{3,}}|5{{3,}})[\s,.!]+{AFFIRM}[\s.!]*$",
    re.I,
)

# "kill the whole run, we don't need it anymore": why the run is no longer wanted, a "not" that hedges nothing
NOT_NEEDED = re.compile(
    r"(?:[,.;:!—–-]|\s+and)\s*(?:(?:we|i)\s+(?:don'?t|do\s+not)\s+need\s+(?:it|this|that|them|the\s+run)(?:\s+any\s*more)?|"
    r"(?:we|i)\s+(?:don'?t|do\s+not)\s+want\s+anything\s+(?:else\s+)?running(?:\s+unattended)?|"
    r"(?:it'?s\s+|that'?s\s+)?(?:no\s+longer|not)\s+needed(?:\s+any\s*more)?)[\s.!]*$",
    re.I,
)

# what an answer said with it keeps it from being one: a reservation ("approved pending review", "yeah,
# sure, whatever"), someone else's answer ("Priya said yes"), a "but"/"if" of another language ("oui, mais
# pas maintenant", "haan, agar stable rahe"), or the answer taken back ("go on. actually no", "👍👎")
_RESERVED = re.compile(
    r"\b(?:pending|subject\s+to|conditional(?:ly)?|tentative(?:ly)?|provisional(?:ly)?|with\s+reservations|to\s+be\s+granted|"
    # "run it again": what ran before (a benchmark), never the action proposed, which has not run yet
    r"sure,?\s+whatever|i\s+guess|i\s+suppose|break\s+it\s+again|(?:run|do)\s+(?:it|that)\s+again|si\s+(?:c'est|es|est|está|esta|il|quieres)|s'il)\b|"
    r"🙄|(?:👍|✅).*(?:👎|❌)",
    re.I,
)
# words that turn or take back the answer in the words said with it ("far from LGTM", "refuse to approve",
# "sign off rejected", "LGTM nvm"), and for a yes, that put it off ("do it tomorrow"): asked again
_TURNED = re.compile(
    r"\b(?:far\s+from|nowhere\s+near|hardly|barely|scarcely|refus\w*|unable|cannot|impossible|too\s+\w+\s+to|"
    r"premature\w*|reluctant\w*|unwilling\w*|hesitant\w*|denied|reject\w*|revok\w*|veto\w*|withdr[ae]w\w*|retract\w*|"
    r"typo|opposite|less\s+than|dead\s+body|blocked|paused|postpon\w*|cancell?ed|forget|undo|withheld|almost|nearly|"
    r"j/?k|kidding|nvm|scratch\s+that|shimasen|dekimasen|dekinai|\w+takunai|janai|joudan|uso|iya+|"
    r"hang\s+on|hold\s+on|dry[-\s]?run|revert)\b",
    re.I,
)
_LATER = re.compile(
    # never "nice work tonight": the work done tonight, praised
    r"\b(?:tomorrow|tmrw|later|next\s+(?:week|month|time)|(?<!work\s)(?<!job\s)(?:tonight|tonite)|eventually|someday|demain|"
    r"plus\s+tard|quand\s+je)\b",
    re.I,
)
_ANSWERISH = re.compile(
    r"\b(?:approv\w*|lgtm|sign\w*|ship|go|do|carry|keep|continue|proceed|stop|abort|halt|kill|end|option|step|yes|ok|"
    r"okay|sure|fine|good|done|ack)\b|\d|👍|✅",
    re.I,
)
# where the words said with an answer end: a pause, or a sentence of the operator's own ("..., I'll look later")
_PIECES = re.compile(
    r"[,.;:!?\n—–]|\s-\s|\s(?:and\s+|but\s+)?(?=(?:i|we|they)(?:'ll|'m|'d|'re|\s+(?:will|am|have|need|want))\b)", re.I
)
_SOMEONE_ELSE = re.compile(
    r"^(?:@[\w.-]+|(?:the|my|our)\s+(?:[\w-]+\s+)?(?:lead|boss|manager|team|operator|sre|on-?call|intern)|boss|lead|"
    r"team|(?!(?:i|we|you|it|that|this|just|already|all|ok|okay|yes|yeah|yep|yup|ya|sure|fine|cool|good|great|alright|right|so|and|"
    r"also|then|now|finally|hereby|everything|both)\b)[a-z]+)\s+(?:said|says|approved|signed(?:\s+off)?|wants|"
    r"told\s+(?:me|us)|would\s+say)\b"
    # "alice: LGTM": another's answer, pasted
    r"|^@?(?!(?:ok|okay|yes|no|note|fyi|re|edit|update|ps|answer|reply|decision|verdict|approve|deny)\b)[a-z][\w.-]*:\s+\S",
    re.I,
)
# "signed off by bob", "LGTM from my manager", "LGTM said the intern", "go ahead, said nobody ever"
_ANOTHERS = re.compile(
    r"\b(?:approved|signed(?:\s+off)?|lgtm|go\s+ahead|looks\s+good)\s+(?:by|from)\s+(?!me\b|my\s+side\b|my\s+end\b)\w+"
    r"|\b(?:said|says)\s+(?:the\s+)?\w+(?:\s+ever)?[\s.!]*$",
    re.I,
)


# a question said after praise, with no mark ("nice. what's the cost per 1M tokens look like"): the praise
# may be no sign-off but a remark before the question, so it is asked again ("yep run it. what does it
# show?" says its yes in words, and stands)
_PRAISE = re.compile(
    r"(?:nice|great|good|cool|awesome|sweet|wow|impressive|solid|neat|not\s+bad|excellent|lovely|brilliant|"
    r"great\s+(?:numbers|work|job|result)|nice\s+(?:numbers|work|one))[\s!.]*",
    re.I,
)
_ASKED = re.compile(
    r"^(?:what(?:'?s|\s+(?:is|are|was|were|does|do|did|about|if|would|will|should|happens))|"
    r"how\s+(?:much|many|long|does|do|did|is|are|was|were|come|about|far)|why(?!\s+(?:are|would)\s+you\s+(?:even\s+)?ask)|"
    r"(?:when|where)\s+(?:is|are|was|were|did|does|will|can|do)|which|who\s+(?:is|are|was|did|does|has)|"
    r"(?:is|are|was|were|can|could|should|would|will|has|have)\s+(?:it|we|you|that|this|the|there|they|i)|"
    r"any\s+idea|wonder(?:ing)?)\b",
    re.I,
)


# "no, go ahead", "nope, do it": a no, then a go-ahead; which one stands is not for me to guess
NO_THEN_GO = re.compile(
    r"^(?:no|nope|nah|n)(?:[\s,]+(?:no|nope|nah))*\s*[,.!;:—–-]+\s*(?:go\s+ahead|do\s+it|run\s+it|go\s+for\s+it|approved?|"
    r"ship\s+it|proceed|yes|sure|lgtm)(?:\s+(?:please|pls|then|now|anyway))?(?:[\s.!]*$|\s*[,;.—–]\s+[^?]*$)",
    re.I,
)


# a step named to be dropped or asked about ("scrap step 2", "what is step 2"): never the step picked
_NOT_A_PICK = re.compile(
    r"\b(?:scrap|drop|remove|without|skip(?!\s+(?:ahead\s+|straight\s+)?to\b)|cancel|delete|what|why|how|which|explain)\b",
    re.I,
)


# "Alice will sign off", "my manager needs to sign off": someone else's sign-off, to come
_OTHERS_SIGN = re.compile(
    r"^(?!(?:i|we|you|i'll|we'll)\b)(?:@?[\w.-]+|(?:my|our|the)\s+[\w-]+)\s+(?:will|needs?\s+to|has\s+to|must|should|"
    r"is\s+going\s+to|'ll)\s+(?:sign|approve)",
    re.I,
)


# a few words after a yes that change what it says yes to ("yes, with sudo", "yes, on the other host"):
# a yes to something else is asked again; a courtesy ("yes, with pleasure", "go ahead, on my side") is none
_QUALIFIED = re.compile(
    r"^(?:with|on|in|using|via|without|except|under|from|through|only|as)\b(?!\s+(?:pleasure|thanks|care|caution|"
    r"it|my\s+(?:side|end|part)|behalf|me|here|our\s+(?:side|end)|planned|proposed|suggested|is|discussed|usual|agreed|"
    r"asked|always|before|(?:a\s+)?(?:related|side|separate|different)\s+note|other\s+news|any\s+case|the\s+meantime)\b)",
    re.I,
)


# "oh sure, sign it off, 3 tok/s is exactly what we promised": a yes said in irony beside a number it judges
_IRONY_WITH_A_NUMBER = re.compile(
    r"^oh\s+(?:sure|great|yeah|perfect|wonderful|fantastic|brilliant|nice|lovely|totally)\b.*\d", re.I | re.S
)


def reserved(text: str, kind: str = "approve") -> bool:
    """Whether an answer's words keep it from being taken as one (it is asked again)."""
    pieces = [piece for piece in _PIECES.split(text) if piece and piece.strip()]
    # the words said with the answer: up to the piece that holds it ("Approved. ... will almost certainly ask")
    said_with = next((n + 1 for n, p in enumerate(pieces) if _ANSWERISH.search(p)), len(pieces))
    # and a few words after the answer ("yes, later", "yes, hang on", "I'm signing off, talk tomorrow")
    weighed = [p for n, p in enumerate(pieces) if n < said_with or len(p.split()) <= 3]
    return bool(
        any(_TURNED.search(piece) or (kind == "approve" and _LATER.search(piece)) for piece in weighed)
        or (kind == "approve" and any(_QUALIFIED.match(p.strip()) and len(p.split()) <= 5 for p in pieces[said_with:]))
        or _OTHERS_SIGN.match(text)
        or _IRONY_WITH_A_NUMBER.match(text)
        or _RESERVED.search(text)
        or _SOMEONE_ELSE.match(text)
        or _ANOTHERS.search(text)
        or foreign.negation_left(text)
        or not_taken.TAKEN_BACK.search(text)
        or (kind == "pick" and _NOT_A_PICK.search(re.split(r"[.;!?,]", re.split(r"\d", text, maxsplit=1)[0])[-1]))
        or (bool(pieces) and _PRAISE.fullmatch(pieces[0].strip()) and any(_ASKED.match(p.strip()) for p in pieces[1:]))
    )


_TWO_STEPS = re.compile(
    r"(?<![\w.-])#?(\d{1,2})\s*(?:,|&|\+|/|\band\b|\bthen\b|\bor\b|\bn\b|->|>)\s*(?:then\s+)?(?:(?:opt(?:ion)?|step|#)\s*)?(\d{1,2})(?![\w.])",
    re.I,
)


def steps_named(raw: str, question: Question, kind: str) -> str | None:
    """ "1 and 3", "2 or 3, your call", "do 1 then 3": two of the question's step numbers in one
    reply, which runs one step: taking the first would drop the second, so the reply is refused (why).
    So is "skip 1 and 2", "all but 3", "only 2 and 3" (an instruction): a verb steps and GPUs share,
    with bare numbers all among the steps', may mean either, and a GPU set taken would be a misread."""
    numbers = {option.number for option in question.options}
    if kind == "say":
        return _steps_or_gpus(raw, numbers)
    if kind not in ("approve", "continue", "pick"):
        return None
    for sentence in re.split(r"[.;!?\n]", raw):
        if _NOT_THOSE.search(sentence):
            continue  # "Step 2 is authorised. Steps 1 and 3 are not.": those two refused, not picked
        if (two := _two_steps(sentence, numbers)) is not None:
            return f"{raw!r} names steps {two[0]} and {two[1]}: I take one step at a time; reply with one number"
    return None


_NOT_THOSE = re.compile(r"\b(?:not|no|never|skip|except|but|without)\b|n't\b", re.I)


def _two_steps(sentence: str, numbers: set[int]) -> tuple[int, int] | None:
    for pair in _TWO_STEPS.finditer(sentence):
        first, second = int(pair.group(1)), int(pair.group(2))
        if first != second and {first, second} <= numbers:
            return first, second
    return None


# verbs a list of steps and a set of GPUs share ("skip", "only", "all but"), then bare numbers only
_SHARED_VERB_IDS = re.compile(
    r"^\W*(?:(?:please|pls|ok|okay)\W+)?(?P<verb>skip|only|just|all\s+but|all\s+except|everything\s+(?:but|except)|"
    r"except|exclude|not|drop|leave\s+out)\s+(?P<ids>\d(?:\s*(?:,|&|/|-|\band\b|\s)\s*\d)*)"
    r"(?:\s+(?:only|pls|please))?\W*$",
    re.I,
)


def _steps_or_gpus(raw: str, numbers: set[int]) -> str | None:
    if len(numbers) < 2 or (m := _SHARED_VERB_IDS.match(raw)) is None:
        return None
    ids = _expanded(m.group("ids"))
    if not ids or not ids <= numbers:
        return None
    listed = ",".join(str(i) for i in sorted(ids))
    keeps = m.group("verb").lower() in ("only", "just")
    gpus = f"use GPUs {listed}" if keeps else f"don't use GPUs {listed}"
    plural = "s" if len(ids) > 1 else ""
    return (
        f"{raw.strip()!r}: step{plural} {listed} of my report, or GPU{plural} {listed}? I take nothing of it. "
        f"Reply with one step number, or name the GPUs ('{gpus}')"
    )


def _expanded(ids: str) -> set[int]:
    found: set[int] = set()
    for part in re.split(r"\s*(?:,|&|/|\band\b|\s)\s*", ids.strip()):
        low, _, high = part.partition("-")
        if low.isdigit() and (high.isdigit() or not high):
            found.update(range(int(low), int(high or low) + 1))
    return found


def offered_actions(question: Question) -> list[Action]:
    """What the question proposes or is about to do: its action, else the actions of its numbered
    steps (the launch-budget question's next launch). A deny stops all of them."""
    if question.action is not None:
        return [question.action]
    return [o.action for o in question.options if o.action is not None]


def unquoted(text: str, question: Question) -> str:
    """`text` without the lines that quote the question back ("> run `nvidia-smi topo -m`", "> The goal
    is met."), as a chat client's reply does; a quote of anyone else's words stays (and keeps the
    reply from being read as an answer)."""
    commands = [str(action.args.get("command", "")) for action in offered_actions(question)]
    own = [question.question, question.reason, *commands, *(f"run {c}" for c in commands)]
    report = question.report_markdown.splitlines()  # "> I propose to run `nvidia-smi topo -m` ...": its report
    own = [_plain(words) for words in [*own, *(o.description for o in question.options), *report] if words.strip()]
    kept = [
        line
        for line in text.split("\n")
        if not (_quotes_one_of(line, own) or _asks_sign_off(line, question) or _quotes_the_steps(line, question))
    ]
    return "\n".join(kept) if any(line.strip() for line in kept) else text


# "> alice: don't touch gpu 3\nagreed, keep off 3": what the operator says of the quote before their words
_AGREED_FIRST = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|ok(?:ay)?|no|nope|nah|agreed|confirmed(?:\s+with\s+them)?|right|true|so|\+1)\b[\s,.!:;-]*)+",
    re.I,
)


def own_words(text: str) -> str | None:
    """The operator's own instruction under a quote of someone else's words ("> mike: 30000 is held\nso
    dont use 30000, take 30010"), without the words that agree or disagree with the quote; None when the
    quote and their words are interleaved, or nothing follows it. The quote itself is never read."""
    lines = text.split("\n")
    last = max((n for n, line in enumerate(lines) if line.lstrip().startswith(">")), default=-1)
    if last < 0 or any(line.strip() for line in lines[:last] if not line.lstrip().startswith(">")):
        return None
    own = _AGREED_FIRST.sub("", "\n".join(lines[last + 1 :]).strip()).strip()
    return own or None


def _asks_sign_off(line: str, question: Question) -> bool:
    """ "> The goal is met: 2450 tok/s ... Sign off the run?" quoted at the sign-off of a met goal: its
    question, in whatever words the report put it (never at a run given up, whose sign-off is its own)."""
    return (
        question.trigger == "goal_met"
        and line.lstrip().startswith(">")
        and re.search(r"\bsign(?:\s|-)?off\b[^?]*\?\s*$", line, re.I) is not None
    )


def _plain(words: str) -> str:
    return " ".join(re.sub(r"[`*_>]", " ", words).lower().split())


def _quotes_the_steps(line: str, question: Question) -> bool:
    """ "> Next steps: 1) read the topology 2) list the GPUs 3) read the log": the question's own steps, listed."""
    items = re.split(r"\s*\b\d\)\s*", re.sub(r"^\s*>\s*(?:(?:next|other)\s+steps?[^:]*:)?", "", line, flags=re.I))
    said = [_plain(re.sub(r"\([^)]*\)", "", item)).strip(" ,;") for item in items if item.strip(" ,;")]
    steps = [_plain(o.description) for o in question.options]
    return (
        line.lstrip().startswith(">")
        and len(said) >= 2
        and all(any(fuzz.ratio(item, step) >= 85 for step in steps) for item in said)
    )


def _quotes_one_of(line: str, own: list[str]) -> bool:
    if not line.lstrip().startswith(">"):
        return False
    quoted = _plain(line)
    # a quote is some of the question's words, a slip or a cut as chat quotes them; never more words than
    # it has (a one-letter reason is inside any line)
    return len(quoted) >= 6 and any(
        len(quoted) <= len(words) + 3 and fuzz.partial_ratio(quoted, words) >= 90 for words in own
    )


# "skip topo": the proposal, named, refused
SKIP = re.compile(
    r"^(?:pls\s+|please\s+)?(?:skip|don'?t\s+run|do\s+not\s+run)\s+(?:the\s+)?(?P<what>[\w\s.-]+?)"
    r"(?:\s+(?:for\s+now|pls|please|again))?[\s.!]*$",
    re.I,
)

# a command line as one is typed after "e": a program, then an option or a path ("e nvidia-smi -L")
A_COMMAND = re.compile(r"^[a-z][\w.-]*(?:\s+\S+)*?\s+(?:-{1,2}\w|/|\.{0,2}/)|^\S+/\S+|^[a-z][\w]*-[\w-]+(?:\s|$)")


# What an operator says beside an answer to reassure, never to condition it: "I don't see anything in the
# log that worries me", "it doesn't touch the server", "no strong opinion here", "I'd have liked more
# margin, but it's over target": a "not" that is the operator's own view, removed before a remark is judged
# "keep going, it can go higher", "continue further": more work wanted, said beside a met goal
MORE_WORK = re.compile(
    r"\bkeep\s+(?:on\s+)?(?:\w+ing|at\s+it)\b|\bcontinue\s+(?:further|tun(?:e|ing)|optimi[sz]ing|improving|pushing|working)\b|"
    r"\bpush\s+(?:further|harder)\b",
    re.I,
)
# "i saw the OOM", "i know": what the operator saw or knows; a bare yes before it may answer that, not the question
ACKNOWLEDGED = re.compile(
    r"^i\s+(?:saw|see|know|knew|noticed|read|heard|remember|understand|realis|realiz|get\s+(?:it|that)|"
    r"got\s+(?:it|that)|'?m\s+aware|am\s+aware)\w*\b",
    re.I,
)
REASSURANCE = re.compile(
    r"(?:^|(?<=[\s,;.(]))(?:and\s+|so\s+)?(?:"
    r"i\s+(?:don'?t|do\s+not)\s+see\s+any(?:thing)?\b[^.;,()]*?\b(?:worr(?:ies|y)|concerns?|wrong|off|odd|alarming|suspicious)\b[^.;,()]*|"
    r"i\s+(?:don'?t|do\s+not)\s+have\s+(?:a\s+|any\s+)?(?:strong\s+)?(?:opinion|preference|objection)s?\b[^.;,()]*|"
    r"(?:i\s+have\s+)?no\s+(?:strong\s+)?(?:opinion|preference)s?(?:\s+(?:here|on\s+(?:the\s+)?\w+(?:\s+here)?))?|"
    r"no\s+complaints(?:\s+(?:here|from\s+me))?|"
    r"(?:it|that|this)\s+(?:doesn'?t|does\s+not|won'?t|will\s+not)\s+(?:touch|change|affect|modify|restart|hurt)\s+"
    r"(?:the\s+server|anything|the\s+host|the\s+run)|"
    r"i'?d\s+have\s+liked\b[^.;,()]*|to\s+be\s+honest|you\s+know\s+what|ugh+|sigh|welp|(?:i(?:'?m|\s+am)\s+|im\s+)?(?:in\s+a\s+(?:meeting|call)|on\s+(?:a|the)\s+(?:bridge\s+)?call)|"
    r"but\s+it'?s\s+(?:over|above|past|within)\s+(?:the\s+)?(?:target|goal|bar|line)|that'?s\s+what\s+we\s+agreed(?:\s+on)?|"
    r"i'?ve\s+(?:looked\s+(?:over|at)|read|checked|reviewed|gone\s+(?:over|through))\s+(?:the\s+)?(?:bench(?:mark)?\s+)?"
    r"(?:output|numbers|results?|logs?|report)|i'?m\s+satisfied|thank\s+you\s+for\b[^.;,()]*|"
    r"the\s+number\s+is\s+consistent\s+with\b[^.;,()]*|"
    r"(?:flag|ping|tell|shout\s+at)\s+me\s+if\s+(?:something|anything)\s+(?:(?:unexpected|weird|odd|strange)\s+)?"
    r"(?:turns\s+up|comes\s+up|happens|looks\s+off|goes\s+(?:wrong|sideways)))(?=[\s.;,!)]*(?:$|[.;,!)]))",
    re.I,
)
# Why the operator stops the run, beside a stop only: "I'd rather not keep holding the GPUs over the weekend",
# "there's no point continuing with any of this", "I pointed you at the wrong cluster"
STOP_REASON = re.compile(
    r"(?:^|(?<=[\s,;.(]))(?:and\s+|so\s+)?(?:"
    r"i'?d\s+rather\s+not\s+keep\s+(?:holding|hogging|blocking|tying\s+up)\b[^.;,()]*|"
    r"there'?s\s+no\s+point\s+(?:in\s+)?(?:continuing|going\s+on|carrying\s+on)\b[^.;,()]*|"
    r"we\s+can\s+pick\s+it\s+(?:back\s+)?up\s+(?:another\s+time|later|tomorrow|next\s+week)|not\s+worth\s+it|"
    r"i\s+pointed\s+you\s+at\s+the\s+wrong\s+\w+|i'?ve\s+got\s+enough\s+to\s+write\s+up|"
    r"the\s+(?:host|box|machine|node)\s+is\s+being\s+reclaimed\b[^.;,()]*|thanks\s+for\s+(?:all\s+)?the\s+help|"
    r"we(?:'?re|\s+are|re)\s+done(?:\s+(?:here|for\s+(?:today|tonight|now|the\s+day)))?|"
    r"no\s+more\s+(?:launches|runs|tuning|changes|experiments)(?:\s+(?:today|tonight|for\s+now|for\s+today))?|"
    r"forget\s+(?:signing|the\s+sign[-\s]?off)(?:\s+(?:anything|it|off))?|i'?m\s+pulling\s+the\s+(?:box|host|node|machine|gpus?)|"
    r"i(?:'ll|\s+will|ll)\s+sign\s+(?:it\s+)?off\s+(?:manually|myself|by\s+hand|later)\b[^.;,()]*|"
    # "end the run, dont sign it, ill review tomorrow": the sign-off left to a later look
    r"(?:don'?t|do\s+not|dont)\s+sign\s+(?:it|this|anything)(?:\s+off)?|i(?:'ll|\s+will|ll)\s+(?:review|look\s+at)\s+(?:it\s+|this\s+)?"
    r"(?:tomorrow|later|in\s+the\s+morning|on\s+monday)|we'?ll\s+have\s+another\s+go\s+(?:tomorrow|later|next\s+week)|"
    r"sorry(?:\s+sorry)*)(?=[\s.;,!)]*(?:$|[.;,!)]))",
    re.I,
)


# "halt, no more launches today": why the run stops; read alone it is the hold, which a stopped run keeps anyway
LAUNCHES_OVER = re.compile(
    r"[\s,;.—–-]+(?:and\s+|so\s+)?no\s+more\s+(?:launches|relaunches|runs)(?:\s+(?:today|tonight|for\s+(?:now|today)))?"
    r"(?=[\s.!]*$|\s*[.;,!])",
    re.I,
)


# "keep pushing its not done": a dictated reason with no stop before it, set apart as if written
NOT_DONE_YET = re.compile(
    r"(?<=\w)\s+(?=(?:it'?s|its|it\s+is|we'?re|we\s+are|this\s+is)\s+not\s+(?:done|there|finished)(?:\s+yet)?[\s.!]*$)",
    re.I,
)


# Words around an answer that neither condition nor change it: a connective, "ping me when you have
# numbers", "curious if it's PHB": replaced before a piece is judged (an emptied piece is a courtesy)
BENIGN = re.compile(
    r"^(?:and|so|also)\s+|(?:^|\s+)(?:(?:and\s+)?(?:ping|tell|update|message)\s+me\s+(?:when|once|if)\s+(?:you\s+have|it'?s)\s+"
    r"(?:numbers|results|done|finished|up|something|anything)|(?:i\s+)?(?:mostly\s+)?(?:want(?:ed)?\s+to|wanna)\s+(?:see|know|check)\s+(?:if|whether)\s+.*|"
    r"(?:and\s+)?i'?ll\s+read\s+the\s+report\s+at\s+the\s+end|(?:so\s+)?there'?s\s+no\s+(?:risk|harm|danger)\b.*|"
    r"(?:and\s+)?ping\s+me\s+when\s+there'?s\s+a\s+(?:number|result)|let\s+me\s+know\s+(?:how\s+it\s+goes|what\s+you\s+find)|"
    r"(?:and\s+)?(?:shout|ping\s+me|tell\s+me|let\s+me\s+know)\s+(?:only\s+)?if\s+(?:something|smth|sth|anything|it)\s+"
    r"(?:looks\s+off|breaks|goes\s+wrong|fails)|"
    r"(?:and\s+)?(?:ping|tell|call|page)\s+me\s+(?:only\s+)?if\s+(?:you'?re|you\s+are|you\s+get)\s+stuck|"
    r"(?:and\s+)?i'?ll\s+(?:read|look\s+at|check)\s+the\s+report\s+(?:when\s+(?:you'?re|you\s+are)\s+done|later)|"
    r"i\s+will\s+look(?:\s+at)?\s+the\s+report\s+later|(?:and\s+)?report\s+back(?:\s+(?:once|when)\s+you\s+have\s+.+)?|"
    r"(?:and\s+)?ping\s+me\s+at\s+the\s+next\s+(?:real\s+)?decision|"
    r"(?:i'?m\s+)?curious\s+(?:if|whether|what|how|which|about)\s+.*|"
    # "keep going see if you can squeeze more out of it": what the work is for, naming no setting
    r"(?:and\s+)?see\s+(?:if|whether)\s+you\s+can\s+(?:squeeze|get|push|find|improve|beat|hit|reach|do\s+better)\b"
    r"(?!.*\b(?:gpus?|ports?|tp|dp|fp8)\b|.*--).*|"
    # what the operator will do themselves: "I'll look at the results when I'm out of the 2pm"
    r"(?:and\s+)?i(?:'ll|\s+will|ll)?\s+(?:review|look\s+at|check(?:\s+back)?|be\s+back|read|go\s+over|catch\s+up(?:\s+on)?)"
    r"(?:\s+(?:the|your)\s+(?:output|results?|report|numbers|logs?))?"
    r"(?:\s+(?:later|after(?:wards)?|tonight|tomorrow|in\s+the\s+morning|"
    r"in\s+an?\s+(?:hour|bit|while|few\s+minutes)|when\s+i'?m\s+(?:out|back|free|done)\b[\w\s'-]*|"
    r"after\s+(?:the\s+|my\s+|this\s+)?(?!.*\b(?:you|relaunch|restart|launch|gpus?|ports?|tp|dp|bench)\b)[a-z]+(?:\s+[a-z]+)?))?)$",
    re.I,
)


# "not bad at all": praise said as a double negative, neither an answer nor a condition
NOT_BAD = re.compile(r"^not\s+(?:bad|too\s+shabby)(?:\s+at\s+all)?$", re.I)
# "ping me only if it actually OOMs": when to call the operator
CALL_ME = re.compile(
    r"^(?:(?:just|only)\s+)?(?:ping|call|page|text|message|tell|wake|shout\s+at|holler\s+at)\s+me\s+(?:only\s+)?(?:if|when)\s+"
    r"(?:it|something|anything|the\s+server|sglang|things?)\b",
    re.I,
)
# "yes. wait no. hm": a no that trails off undecided is no answer yet
HESITATION = re.compile(
    r"^(?:hm+|um+|uh+|er+m*|idk|dunno|not\s+sure|let\s+me\s+think|i'?m\s+not\s+sure)[\s.?!…]*$", re.I
)


# "run this instead: nvidia-smi -L": an edit of the proposed command, through the gate
INSTEAD_RUN = re.compile(
    r"^(?:(?:please\s+)?run\s+this\s+instead|instead,?\s+run|run\s+instead)\s*[:—-]\s*(?P<cmd>\S.*)$"
    r"|^run\s+`(?P<quoted>[^`]+)`\s+instead[\s.!]*$",
    re.I,
)
AFFIRM_ONLY = re.compile(
    r"^(?:yes|yep|yup|yeah|y|ok(?:ay)?|right|correct|exactly|that'?s\s+(?:right|correct|it)|approve[ds]?|"
    r"sure|confirm(?:ed)?|go\s+ahead|do\s+it|lgtm|👍)(?:[\s,.!]+(?:yes|right|correct|please|thanks|go\s+ahead))*[\s.!]*$",
    re.I,
)
APPROVE_WORDS = re.compile(r"^(?:approve[ds]?|lgtm|go\s+ahead|do\s+it|👍)[\s.!]*$", re.I)
NEGATE_ONLY = re.compile(r"^(?:no|nope|nah|n|wrong|not\s+(?:quite|right)|that'?s\s+(?:wrong|not\s+it))[\s.!]*$", re.I)


PICK_ALONE = re.compile(
    r"^(?:(?:opt(?:ion)?|step|choice|number|no\.|#)\s*)?#?(\d{1,2})(?:[\s,]+(?:please|pls|thanks|thx|lah|la))?[\s.!]*$",
    re.I,
)
STEPS_ALONE = re.compile(r"^(?:--steps\s+|-n\s+)?(\d+)(?:\s+steps?)?$")


# "stop using port 30000", "stop the server", "no more launches": words about the server, not the run's stop or a deny
NOT_A_VERB = re.compile(
    r"^(?:stop|quit|no)\s+(?:[a-z]+ing\b|more\b|new\b|the\s+server|"
    r"(?:the\s+)?(?:current|running|old|live)\s+(?:sglang\s+)?(?:server|instance|sglang)\b|"
    r"the\s+sglang|sglang|my\s+server|your\s+server)",
    re.I,
)


# "no custom allreduce", "no need to rerun": "no" inside a sentence; a deny's reason follows "no," or "no -"
NO_AS_A_WORD = re.compile(
    r"^no\s+(?!(?:way|thanks|thank\s+you|not\b|don'?t|do\s+not|never|please|sorry|no)\b)(?:[a-z0-9]|-(?!-*\s))", re.I
)


def an_order(words: str) -> bool:
    """ "and only use GPU 0" after an answer: words said as an order, never a remark beside the answer."""
    return _AN_ORDER.match(words) is not None


# never "not good enough yet", "dont ask me for every cmd", "just keep going": remarks beside a go-on
# "fix the nccl thing", "end everything now", "bump the batch": a change asked of the system, unread or not
_AN_ORDER = re.compile(
    r"^(?:(?:and|also|but|then|plus|now|just|pls|please)\s+)*(?:only\s+)?(?:use|set|unset|export|add|pass|disable|enable|switch|"
    r"move|pin|serve|bind|launch|relaunch|restart|stop|kill|avoid|fix|end(?!\s+of\b)|change|make|bump|raise|lower|"
    r"increase|decrease|reduce|drop|remove|turn|shut|free|clear|reset|reboot|update|upgrade|install|tune|halve|double|"
    r"cap|limit|swap|replace|revert|undo|tweak|adjust|sort\s+out|get\s+rid\s+of)\s+"
    # never a pronoun or "your" ("use your judgement"), nor a noun the verb names ("change freeze is starting")
    r"(?!(?:it|that|this|me|sure|your)\b)(?!\S+\s+(?:is|are|was|were|has|had|will)\b)\S",
    re.I,
)


# a flag or a variable given a value ("approve, and tasim also NCCL_IB_DISABLE=1"): a setting, never a remark;
# one said to be shown or kept ("make sure the report shows NCCL_P2P_DISABLE=1") is a remark about it
A_SETTING = re.compile(
    r"(?<!\bshows\s)(?<!\bshow\s)(?<!\bhas\s)(?<!\bkeeps\s)(?<!\blists\s)(?:(?<![\w-])--[a-z]|\b[A-Z][A-Z0-9_]{2,}=)"
)
# a word that turns the answer after it ("looks too good", "not great"): never a remark beside it
QUALIFIES_NEXT = re.compile(
    r"\b(?:too|not|so|very|suspiciously|almost|hardly|barely|way|quite|kinda|less|more|never|nearly)$", re.I
)
# a setting by its loose name alone ("mem fraction, your call"), or a decision handed back on one ("your call on
# the mem fraction"): the words are about the setting, never a remark beside an answer
_SETTING_ALONE = re.compile(
    r"(?:the\s+)?(?:mem(?:ory)?\s+frac(?:tion)?|context\s+len(?:gth)?|chunked\s+prefill|cuda\s+graphs?|torch\s+compile|"
    r"radix(?:\s+cache)?|kv\s+cache(?:\s+dtype)?|attention\s+backend|schedul(?:e|ing)\s+policy|max\s+running(?:\s+requests)?|"
    r"quantization)",
    re.I,
)


def about_a_setting(piece: str) -> bool:
    """ "mem fraction", "your call on the chunked prefill": a piece that names a setting to decide on."""
    return bool(
        _SETTING_ALONE.fullmatch(piece.strip(" .,;!")) or re.search(r"\byour\s+call\s+(?:on|for|re)\b", piece, re.I)
    )


# words beside an answer that turn it or point elsewhere: sarcasm ("I'm sure that'll work", "what could go
# wrong") and the report's own words ("the thing you said about memory, do that": which thing?)
NOT_SAID_STRAIGHT = (
    r"i'?m\s+sure\s+(?:that|it)(?:'ll|\s+will)\s+work|what\s+could\s+(?:possibly\s+)?go\s+wrong|yeah\s+right|aye\s+right|"
    r"great\s+idea|you\s+(?:said|mentioned|suggested)|your\s+(?:suggestion|idea)"
)
