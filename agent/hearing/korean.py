"""A Korean operator's words as their English, before a reply or an instruction is read: "네 진행해주세요",
"0번 GPU 쓰지 마세요", "포트 30001로 바꿔주세요", "tp4로 재시작", "서버 내리고 제가 얘기할 때까지 다시 띄우지
마세요". Korean puts the verb last and marks a noun's role with a particle after it ("GPU만" is "only the
GPU", "30001로" is "to 30001"), so particles are taken off and each clause's verb is said first. Any
Hangul left after this is a word the grammar does not know: the clause is not read
(`agent.hearing.chinese.has_unread_script`)."""

from __future__ import annotations

import re

from agent.hearing import word_table

_HANGUL = re.compile(r"[\uac00-\ud7af\u3131-\u318e]")
# the polite "for me" a verb ends with, and "try" ("올려봐요": raise it and see)
_PLEASE = r"(?:\s*(?:주세요|주셍요|줘요?|주시고|줘|봐요|봐|요))?"
_IDS = r"\d{1,2}(?:\s*(?:[-~,]|\s)\s*\d{1,2})*"

# replies, and words said the same way wherever they stand
_WORDS: list[tuple[str, word_table.Replacement]] = [
    (r"^(?:네|예|넵|넹|응|ㅇㅇ|ㅇㅋ|오케이|좋아요|좋습니다)(?=[\s,.!]|$)", "yes"),
    (r"^(?:ㄱㄱ|고고)(?=[\s,.!]|$)", "go ahead"),
    (r"^(?:아니요|아니오|아뇨|아니)(?=[\s,.!]|$)", "no"),
    (r"^(?:ㄴㄴ|노노)(?=[\s,.!]|$)", "no,"),
    (r"\s*(?:ㅋㅋ+|ㅎㅎ+)", ""),
    (r"ㅈㅅ", "sorry"),
    (r"하지\s*마(?:세요|요)?\s*그거", "don't run that"), (r"^잠깐만?(?:요)?\s*", "wait, "), (r"근데", "but"),
    (r"^(?:알아서|님이\s*판단해서)\s*하세요", "your call"), (r"^계속(?:\s*(?:해요|하세요|해주세요|해))?$", "carry on"),
    (r"(?:좀\s*)?더\s*돌려\s*봐요?", "keep going"), (r"수고\s*(?:했어요|하셨어요|했어)", "good work"),
    (r"아직\s*(\S+)\s*안\s*봤잖아요", r"we haven't looked at \1 yet"),
    (r"(?:그냥\s*)?(?:전부|다|모두)\s*끝내(?:요|주세요)?", "stop everything"), (r"^런\s*(?:중지|종료)", "stop the run"),
    (r"여기서\s*끝", "stop here"),
    (r"^첫\s*번째\s*(?:꺼|거)?(?:요)?$", "number 1"),
    (r"^두\s*번째\s*(?:꺼|거)?(?:요)?$", "number 2"),
    (r"^세\s*번째\s*(?:꺼|거)?(?:요)?$", "number 3"), (r"(?<!\d)(\d)\s*번(?:으로)?\s*(?:ㄱㄱ|고고)", r"do \1"),
    (r"^(\d)\s*번이요", r"number \1"), (r"로그\s*먼저\s*보고\s*싶(?:음|어요|습니다)", "I want to read the log first"),
    (r"죽은\s*(?:거|것)\s*같아요", "seems dead"), (r"\s*그거\s*빼고\s*하세요", ", leave it out"),
    (r"(?<=[A-Za-z0-9])\s*(?:이랑|랑)\s+", " and "), (r"사인\s*오프\s*전에", "before you sign off,"),
    (r"사인\s*오프\s*하고", "sign off."), (r"다음\s*launch\s*(?:엔|에는|에)", ""),
    (r"포트(?:는|은)?\s*(\d{4,5})\s*(?:으로|로)(?=\s*(?:$|[,.]))", r"use port \1"),
    (r"^(?P<m>\S+/\S+)\s*허브에서\s*받아서\s*(?:그걸로\s*)?띄워(?:요|주세요)?", r"serve \g<m>"),
    (r"다른\s*잡\s*돌아감", "another job runs there"),
    (r"^(?:ㅇㅋ\s*)?진행$", "go ahead"),
    (r"(?<=\s)진행$", "go ahead"),
    (r"^아직(?:이요|요|은\s*아니에요)?(?=[\s,.!]|$)", "not yet"),
    (r"알아서\s*(?:계획대로\s*)?진행(?:하세요|해\s*주세요|해요|해)?", "carry on with your plan"),
    (r"저\s*기다리지\s*마(?:시고|세요)?", "don't wait for me"),
    (r"(?:그거|그것|그건)\s*하지\s*마(?:세요|요)?", "don't run that"),
    (r"진행(?:해\s*주세요|해줘|하세요|해요|하죠|해)(?=[\s,.!]|$)", "go ahead"),
    (r"(?:전부|다|모두)\s*(?:중단|멈춰|종료)(?:해\s*주세요|해줘|하세요|해)?", "stop everything"),
    (r"오늘은\s*여기까지(?:\s*(?:할게요|하죠|해요))?", "that's it for today"),
    (r"마무리(?:하죠|해\s*주세요|하세요|해)", "sign off"), (r"(?<=sign off)\s*해" + _PLEASE, ""),
    (
        r"(?<!\d)(\d)\s*번\s*(?:단계)?(?:만|부터)?\s*(?P<what>[^,.가-힣]*?)\s*(?:먼저\s*)?해" + _PLEASE,
        r"do \1 \g<what>",
    ),
    (r"로그(?:부터|를|도)?\s*보(?:죠|자|고|세요)", "read the log"),
    (r"(?:제가|내가)\s*(?:말할|얘기할|말하기\s*전)\s*(?:때까지|전까지)", "till I say so"),
    # numbers and nouns: "0번 GPU", "2,3번 GPU만", "GPU 5번"
    (rf"({_IDS})\s*번\s*(?:GPU|gpu)", r"GPU \1"), (rf"(?<=gpu)\s*({_IDS})\s*번", r" \1"),
    (rf"({_IDS})\s*번(?:은|는)?", r"\1"), (r"(?<=[\d\w])\s*~\s*(?=\d)", "-"),
    (r"포트", "port"), (r"서버", "server"), (r"모델", "model"), (r"벤치(?:마크)?", "bench"), (r"환경\s*변수", "env"),
    (r"로그", "log"), (r"(?:둘|셋)\s*다", ""), (r"좀", ""), (r"이제", "now"),
    # particles after a word or number: what it marks is said by where it stands in English
    (r"(?<=[A-Za-z0-9_\-.)/])\s*만(?:으로|로)?(?=\s|$|[,.])", " only"),
    (r"(?<=[A-Za-z0-9_\-.)/])\s*(?:은|는|이|가|을|를|도|으로|로)(?=\s|$|[,.])", ""),
]  # fmt: skip
_WORD_TABLE = word_table.compiled(_WORDS, flags=0)

# a clause's verb, said last, and its English (said first); a negated one first
_VERBS: list[tuple[str, str]] = [
    (r"다시\s*띄우지\s*마(?:세요|요)?|재시작\s*하지\s*마(?:세요|요)?", "don't relaunch"),
    (r"(?:절대\s*)?켜지\s*마(?:세요|요)?", "never enable"), (r"직접\s*박지\s*마(?:세요|요)?", "don't set"),
    (r"env\s*에서\s*빼" + _PLEASE, "unset"), (r"다시\s*띄워" + _PLEASE, "relaunch"),
    (r"(?:멈추고|멈춰" + _PLEASE + r"|중지(?:해" + _PLEASE + r")?)", "stop"),
    (r"(?:쓰지|사용하지|사용\s*하지)\s*마(?:세요|셈|요|시고)?|쓰지마(?:세요|셈)?", "don't use"),
    (r"빼" + _PLEASE + r"|빼고|제외(?:해" + _PLEASE + ")?|제거(?:해" + _PLEASE + ")?", "remove"),
    (r"피해" + _PLEASE, "avoid"),
    (r"재시작(?:해" + _PLEASE + r"|하고)?|다시\s*시작(?:해" + _PLEASE + ")?", "relaunch"),
    (r"내려" + _PLEASE + r"|내리고", "stop"),
    (r"(?:다시|한\s*번\s*더)\s*돌려" + _PLEASE + r"|한\s*번\s*더|다시\s*돌려", "rerun"),
    (r"끄고|꺼" + _PLEASE + r"|끄세요", "disable"),
    (r"쓰세요|써" + _PLEASE + r"|써서|쓰고|사용(?:해" + _PLEASE + ")?", "use"),
    (
        r"바꿔" + _PLEASE + r"|변경(?:해" + _PLEASE + r")?|가죠|가요|추가(?:해" + _PLEASE + r")?|넣고|넣어" + _PLEASE
        + r"|붙여" + _PLEASE + r"|걸고|켜" + _PLEASE + r"|켜고|설정(?:해" + _PLEASE + r")?|낮춰" + _PLEASE
        + r"|올려" + _PLEASE + r"|제한(?:해" + _PLEASE + r")?|돌려" + _PLEASE + r"|해" + _PLEASE
        + r"|하세요|잡아" + _PLEASE + r"|옮기고|옮겨" + _PLEASE + r"|붙이고|ㄱㄱ|고고",
        "use",
    ),
]  # fmt: skip
_VERB_LAST = [(re.compile(rf"^(?P<obj>.*?)\s*(?:{said})\s*$"), english) for said, english in _VERBS]
# a clause ends at a comma (never in a list of numbers), a sentence's end, a polite verb ("...주세요 이제
# 괜찮을듯") or a verb joined by "고"/"서" ("서버 내리고 ..."), never at "쓰고 있어요" (is using)
_CLAUSES = re.compile(r"(\s*;\s*|\s*,(?!\s*\d)\s*|\.(?:\s+|$)|(?<=요)\s+|(?<=[고서])\s+(?!있)|(?<=쓰지마)\s+|\n)")


def _turned_round(clause: str) -> str:
    """ "GPU 0 쓰지 마세요" -> "don't use GPU 0": the clause's verb said first, then what it acts on."""
    for verb_last, english in _VERB_LAST:
        found = verb_last.match(clause)
        if found is None:
            continue
        obj = found.group("obj").strip()
        if english == "remove" and "env" in obj:
            return "unset " + obj.replace("env", "").strip()  # "X 환경변수 제거": the variable taken out
        if english == "remove":
            english = "don't use"
        if english in ("stop", "disable") and obj.lower() in ("", "server"):
            return "stop the server"  # "서버 꺼줘": the server turned off is the server stopped
        if english == "rerun":
            return "measure again"
        if english == "use" and re.search(r"--|[A-Z][A-Z0-9_]+=|^(?:tp|dp)\s*\d", obj) and "only" not in obj:
            return obj  # "--disable-cuda-graph 추가", "tp2 dp4로 가죠": the setting itself
        return f"{english} {obj}".strip()
    return clause


def in_english(text: str) -> str:
    """`text` with a Korean operator's words put in English; any other message as it was."""
    if not _HANGUL.search(text):
        return text
    text = word_table.in_english(text, _WORD_TABLE)
    pieces = _CLAUSES.split(text)
    said = [
        ("; " if piece.strip() in ("", ".") or not piece.strip(" ,;") else piece) if at % 2 else _turned_round(piece)
        for at, piece in enumerate(pieces)
    ]
    return re.sub(r"\s{2,}", " ", "".join(said)).strip(" ;")
