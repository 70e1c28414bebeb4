"""A Chinese operator's words as their English, before a reply or an instruction is read: "好的，继续",
"不要用 0 号卡", "换成 tp4 重启一下", "端口改成 30001", "停掉服务", "加上 --disable-cuda-graph".
Chinese puts the verb where English does not ("X 改成 Y" is "set X to Y", "X 加上" is "add X"), so
those are turned round first. Any Chinese character left after this is a word the grammar does not
know: `has_unread_script` tells the readers, and that clause is reported not understood, whole."""

from __future__ import annotations

import re

from agent.hearing import word_table

# the scripts no table here reads whole (CJK, Hangul, Cyrillic, Greek, Hebrew, Arabic, Devanagari, Thai): a
# word of one left after the tables is a word the grammar does not know
_CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u3131-\u318e\u0370-\u03ff\u0400-\u04ff\u0590-\u05ff"
    r"\u0600-\u06ff\u0900-\u097f\u0e00-\u0e7f]"
)
# a Chinese comma ends a clause (a list is written with "、" or "和"): before a number too ("，30000 被...")
_PUNCTUATION = {
    "，": ", ",
    "。": ". ",
    "：": ": ",
    "；": "; ",
    "？": "? ",
    "！": "! ",
    "（": " (",
    "）": ") ",
    "、": ", ",
}
_IDS = r"\d{1,2}(?:\s*(?:-|~|到|至)\s*\d{1,2})?(?:\s*(?:和|,|、|与|跟)\s*\d{1,2})*"
_PORTS = r"\d{4,5}(?:\s*(?:和|,|、|/|与|跟)\s*\d{4,5})*"
_AGAIN = "重新跑一遍|重跑一遍|重新跑|重新测一下|重新测|再测一下|再测一遍|重测"  # "run it again", "measure again"
# "X 改成 Y", "X 换成 Y": the setting, then its new value
_SET_TO = r"(?:换成|改成|设成|设为|改为|调成|调到|切到|切成|限到|限制到|改|切|设|用)"

_CHINESE: list[tuple[str, word_table.Replacement]] = [
    # a slip of the input method: "1好卡" is "1号卡"
    (r"(?<=\d)\s*好卡", " 号卡"),
    # replies
    (r"^(?:可以|行|好的|好|没问题|ok\s*的|OK\s*的)(?=\s*(?:[,.!]|$))", "ok"),
    (r"跑吧|执行吧|跑一下吧|跑吧", "run it"),
    (r"先别跑|先不要跑|别跑了?", "don't run it yet"),
    (r"^不用了|^算了", "no"),
    (r"(?:你自己)?按(?:你的)?计划(?:继续|往下走|走|来)", "carry on with your plan"),
    (r"不用每步都问我|不用每一步都问我|别每步都问我", "without asking me each step"),
    (r"别等我|不用等我", "don't wait for me"),
    (r"(?:跑|做|执行|选)?第\s*(\d)\s*(?:个|步|项)", r"do number \1"),
    (r"^选\s*(?=\d\b)|(?<=[,;]\s)选\s*(?=\d\b)", "pick "),
    (r"先看日志", "read the log first"),
    (r"整个\s*(?:run|任务)\s*(?:停掉|停了|停止|结束)|全部停掉", "stop the whole run"),
    (r"今天不搞了|今天就到这(?:里)?", "we're done for today"),
    (r"先不要\s*sign\s*off|先别\s*sign\s*off|不要\s*sign\s*off|先别签|别签|不要签", "don't sign off"),
    (r"还不行", "not yet"),
    (r"\s*吧(?=\s*(?:[,.!?]|$))", ""),  # "sign off 吧": the particle asks nothing more
    (r"但是|不过", "but"),
    (r"为什么", "why"),
    (r"要不(?:试试|试一下)?|可能|感觉|也许", "maybe "),
    # the server, stopped, held, relaunched, measured again
    (r"(?:先)?(?:把)?服务停(?:掉|了)|停掉服务|停服务|停掉\s*(?=server|sglang)", "stop the server"),
    (r"等我通知再起(?:来)?|等我通知", "don't relaunch till I say so"),
    (r"先别重启|先不要重启|别重启|不要重启", "don't relaunch"),
    (r"(?<=\S)\s*再(?=重启|重起)", ", then "),
    (r"(?<=[\w=])\s*(?=重启|重起|重新拉起来|重新启动)", ", "),
    (r"重启一下|重启|重起|重新拉起来|重新启动|拉起来", "restart"),
    (rf"(?:benchmark|bench)?\s*(?:{_AGAIN})", "measure again"),
    (r"然后|再", "then "),
    # GPUs and ports: the Chinese order ("0 号卡", "用 4-7 卡", "用 30010 端口")
    # "0 号卡" and "4-7 卡" are ids; "8卡", "4 张卡" a count of GPUs, which ones unsaid
    (rf"({_IDS})\s*号\s*卡", r"gpus \1"),
    (r"(\d{1,2}\s*(?:-|~|到|至)\s*\d{1,2}|\d{1,2}(?:\s*(?:和|,|、|与|跟)\s*\d{1,2})+)\s*卡", r"gpus \1"),
    (r"(\d{1,2})\s*(?:张|块|个)?\s*卡", r"\1 gpus"),
    (rf"({_PORTS})\s*端口", lambda m: ("ports " if re.search(r"\D\d", m.group(1)) else "port ") + m.group(1)),
    (r"端口", "port"),
    (r"卡", "gpus"),
    (r"模型", "model"),
    (r"服务", "server"),
    (r"日志", "log"),
    (r"这个环境变量|环境变量", ""),
    # verbs turned round: "X 改成 Y" is "set X to Y", "X 加上" is "add X"
    (rf"^(?P<x>[A-Za-z][\w\s.-]*?)\s*{_SET_TO}\s*(?P<y>[\w./-]+)", r"set \g<x> to \g<y>"),
    (rf"(?<=[,;]\s)(?P<x>[A-Za-z][\w\s.-]*?)\s*{_SET_TO}\s*(?P<y>[\w./-]+)", r"set \g<x> to \g<y>"),
    (r"^(?P<x>(?:--|[A-Z])[^,;]*?)\s*加上", r"add \g<x>"),
    (r"(?:换成|改成|切到|切成|切)\s*(?=[A-Za-z\d])", "switch to "),
    (r"不要开|别开", "don't enable "),
    (r"关掉|关闭|关了", "disable "),
    (r"打开|开启|开(?=\s*[A-Za-z])", "enable "),
    (r"加上|加个|加(?=\s*[-A-Za-z])", "add "),
    (r"去掉|删掉|移除|拿掉", "remove "),
    (r"不要用|别用|不要使用|别使用", "don't use "),
    (r"别碰|不要碰|别动|不要动", "don't touch"),
    (r"不要(?=\s*--)", "don't use "),
    (r"(?<=\S)\s*了(?=\s*(?:[,.!?]|$))", ""),
    (r"用(?=\s*[\dA-Za-z/])", "use "),
    (r"(?<=[\d\s])和(?=\s*\d)", " and "),
    (r"一下", ""),
]  # fmt: skip
_CHINESE_WORDS = word_table.compiled(_CHINESE, re.I | re.M)


def in_english(text: str) -> str:
    """`text` with a Chinese operator's words and punctuation put in English; any other message as it was."""
    if not _CJK.search(text):
        return text
    text = re.sub(r"，\s*(?=\d)", "; ", text)
    for wide, narrow in _PUNCTUATION.items():
        text = text.replace(wide, narrow)
    return word_table.in_english(text, _CHINESE_WORDS)


def has_unread_script(text: str) -> bool:
    """Whether `text` still holds a Chinese, Japanese or Korean character no table put in English."""
    return bool(_CJK.search(text))
