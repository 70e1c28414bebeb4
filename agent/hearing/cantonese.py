"""A Hong Kong operator's Cantonese, in Chinese characters or romanised, mixed with English words, as its
English before a reply or an instruction is read: "係" / "hai" (yes), "唔係" / "m hai" (no), "唔好用 gpu 0"
(don't use), "停咗個 server" (stop the server), "唔好再開" (don't start it again), "搞掂" (done), and the
particles an English sentence ends with ("la", "lor", "wor", "ga"). It runs before the Mandarin table
(agent.hearing.chinese), which reads "用" and "再" as Mandarin does; a character left unread keeps its
clause unread."""

from __future__ import annotations

import re

from agent.hearing import word_table

# a word only Cantonese writes, or a romanised yes or no said first
_MARK = re.compile(r"[唔係佢咗嘅喺嗰咁啲冇嘢睇搞掂俾哋嚟吓]|^(?:m\s+)?hai\b", re.I)
_ORDINAL = {"一": "1", "二": "2", "三": "3"}

_WORDS = word_table.compiled(
    [
        # the particles said at a sentence's end, after English words too
        (r"\s*(?:啦|喇|囉|吖|呀|\blor\b|\bla\b|\bga\b|\bwor\b|\bja\b)(?=\s*(?:[,.!?\n]|$)|\s+(?:唔該|搞掂))", ""),
        # replies
        (r"^(?:唔係|m\s+hai)(?:\s*(?:wor|咁))?(?=[\s,.!]|$)", "no"),
        (r"^(?:係|hai)(?:\s*ga)?(?=[\s,.!]|$)", "yes"),
        (r"^(?:好|得)(?=[\s,.!]|$)", "ok"),
        (r"好嘢", "nice"),
        (r"搞掂", "done"),
        (r"唔該", "please"),
        (r"你自己決定|你睇住嚟", "your call"),
        (r"唔好\s*run\s*呢個", "don't run that"),
        (r"^唔好(?=[\s,])", "no"),
        (r"^唔使(?=[\s,])", "no"),
        (r"唔使再\s*run", "no need to run it"),
        (r"用?第([一二三])個(?:\s*option)?", lambda m: f"number {_ORDINAL[m.group(1)]}"),
        (r"成個\s*run\s*收工", "stop the whole run"),
        (r"聽日再搞", "we'll go on tomorrow"),
        (r"^未得", "not yet"),
        (r"你繼續搞", "carry on"),
        (r"未\s*sign\s*住", "don't sign off yet"),
        (r"唔好\s*sign\s*off", "don't sign off"),
        (r"sign\s*off\s*前", "before you sign off,"),
        (r"再\s*bench\s*多次|run\s*多次\s*benchmark", "measure again"),
        (r"不過之後", "but then"),
        (r"啊?唔係,?\s*其實", "no wait, actually"),
        (r"用埋都得", "you can use it too"),
        (r"你睇吓點", "your call"),
        (r"^(\S+)\s+la(?=,)", r"\1"),
        (r"\s+la$", ""),
        (r"port\s*轉\s*(\d+)", r"use port \1"),
        # instructions: the must-nots first
        (r"(.+?)\s*都?唔好用(?=\s*(?:[,.]|$))", r"don't use \1"),
        (r"唔好掂佢哋", "don't touch them"),
        (r"唔好再\s*(?:開|launch|起)(?:\s*住)?", "don't relaunch"),
        (r"唔好開", "don't enable"),
        (r"唔好用", "don't use "),
        (r"停咗?個?\s*server(?:\s*佢)?", "stop the server"),
        (r"熄咗?", "disable "),
        (r"\s*佢(?=\s*(?:[,.]|$))", ""),
        (r"(?<=\d)\s*至\s*(?=\d)", "-"),
        (r"\s*同埋\s*", ", and "),
        (r"(?<=[\w=])\s*同\s*(?=[\w-])", " and "),
        (r"淨係", "only "),
        (r"轉\s*model\s*做", "use model"),
        (r"較低去", "to"),
        (r"加返", "add"),
        (r"bring\s*返起身", "relaunch"),
        (r"restart\s*佢", "restart it"),
        (r"試吓|直接上|先好\s*launch", ""),
        (r"^個\s*", "the "),
        (r"switch\s*去", "switch to"),
        # reasons said beside an order
        (r"有人用緊", "is in use"),
        (r"俾\s*(\S+(?:\s+team)?)\s*霸咗", r"is taken by \1"),
        (r"成日\s*OOM", "keeps OOMing"),
        (r"上次\s*compile\s*咗成半個鐘", "the last compile took half an hour"),
        (r"好似\s*hang\s*咗", "it seems hung"),
        (r"log\s*多到爆", "too much log"),
        (r"有\s*ECC\s*error", "have ECC errors"),
        (r"等我\s*check\s*吓個\s*driver\s*先", "I'll check the driver first"),
        (r"試\s*test\s*先", "to test first"),
        (r"(\d+B)\s*塞唔落", r"\1 doesn't fit"),
        (r"佢把\s*fan\s*有問題", "its fan is faulty"),
        (r"我哋啲\s*prompt\s*好多\s*shared\s*prefix", "our prompts share prefixes"),
        (r"(\d+B)\s*model\s*嚟", r"it's a \1 model"),
        (r"個\s*number\s*跳嚟跳去唔穩陣", "the numbers jump around"),
        (r"我想\s*confirm\s*吓個數", "I want to confirm the numbers"),
        (r"呢步嘥時間", "this step wastes time"),
        (r"topo\s*我頭先睇過咗", "I've seen the topo already"),
        (r"睇咗\s*log\s*先", "read the log first"),
        (r"run\s*佢", "run it"),
    ],
    flags=re.I,
)


def in_english(text: str) -> str:
    """`text` with a Cantonese operator's words put in English; any other message as it was."""
    return word_table.in_english(text, _WORDS) if _MARK.search(text) else text
