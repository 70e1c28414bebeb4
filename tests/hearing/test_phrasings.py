"""Hearing the operator, measured on messages written by someone who never saw the grammar.

`tests/fixtures/phrasings/` holds sets of realistic operator messages with what each means, each
written by a helper who never read `agent/hearing/instructions.py`, `agent/hearing/phrasing.py`,
`agent/hearing/replies.py` or the other sets. `dev.jsonl` was used while building the phrasing
rules. Each held-out set was measured once on first sight, then its misses were fixed by class (never by the sentence):
heldout 77% heard / 5 misread, heldout2 74% / 6, heldout3 71% / 2, heldout4 81% / 1, heldout5 80%
/ 3. `sre1` and `sre2` were written in an experienced SRE's terse style (shorthand, typos, hedges,
must-nots) after the hearing work of issue #27 and measured once: 77% and 72% heard (58 and 54 of
75), 0 misread (one apparent misread of "restart and remeasure" was this harness dropping the
relaunch from the expectation; the harness now reads it as it reads the reply). Their misses were
then fixed by class (slips of one verb taken and said back, an SRE's shorthand, the run's stop in
words, must-nots about bare ids, "the last four", "bounce"/"park", maybes at either end; tests in
test_sre_replies.py and test_sre_instructions.py): 99% and 99% (74 of 75 each), 0 misread on
every set; heldout rose from 122 to 123 of 125 with them. Judging the reading asked back showed
one misread at run time (heldout3's "two replicas of TP4, i.e. ... tensor parallel 4" was asked
back as TP4 x DP1), fixed: a TP said alone now reads no DP.
This harness reads a message as the run does (`agent.hearing.heed.apply_words`): a reading in part,
a maybe or a count of the host's GPUs is asked back, and a "yes" takes exactly that reading, so the
reading asked back is what is judged (a wrong one is a misread); the sets assume an 8-GPU host. A
stop said together with a relaunch expects no hold (the writer's "relaunch" is kept).
`sre3` and `sre4` (blind, terse SRE style, written after that round) were measured once: 72% and 76%
heard, 2 and 1 misread ("y is it on 127.0.0.1" read as a yes; a bare GPU count taken as a layout);
on the code before the sre1/sre2 round, and by this harness before it learnt to ask as a report does
(numbered steps, a sign-off's deny with its reason, "all but 7" as leaving 7 out), they had been 59%
and 73% heard with 3 misread each. Fixed by class (a one-letter yes with more words, or a question,
approves nothing; a bare count is asked back, never taken; picks in words; slips of reply words and
of the grammar's nouns said back; an answer then a remark; bare id sets, "n" for "and", "no dp";
pasted flag and env runs; a port kept free; a bracketed aside; tests in test_terse_replies.py and
test_terse_instructions.py): 100% and 97% (75 and 73 of 75), 0 misread on every set, no other set
lower. This harness now compares lists of things to avoid as sets (the rules keep them sorted).
Still unread in sre4: a held port beside one to serve on (heldout2 labels the same shape as a
remark, so it is left a remark) and a layout inside a purpose ("gpus 2,3 for a quick tp2 smoke
test").
`sre5` (blind, an on-call SRE in a chat, written after both rounds, at the end of #27) was measured
once on the final code: 69% heard (52 of 75), 2 misread: "... a pending RMA ticket and ECC errors"
read as ECC=errors (an acronym then a word, said with no verb and no "=", is no longer a variable to
set), and a pasted "--tp-size 2 --dp-size 4" kept as flags where the writer meant the layout (the
launch takes its layout from those flags: the same launch, so this harness reads them as the
layout). After those two: 71% (53 of 75), 0 misread; its misses were not fixed: it stands as the
first-sight measure of the finished work.
Round three (the last stop of #27): sre5's misses fixed by class (99%, 74 of 75), then six more sets
written blind by helpers who saw only the fields and the cases (sre6-sre11, 75 each, one persona
each), each measured once on the code of its time before any of its misses was fixed. Written
together and measured on the code after the sre5 round: sre6 87% heard / 0 misread, sre7 76% / 1
("`--port 8080`" kept as a flag: the launch serves on it all the same, and it is now read as the port).
Measured after the sre6/sre7 round: sre8 83% / 0, sre9 73% / 0. Measured after the sre8/sre9 round:
sre10 79% / 0, sre11 (two to eight words, no punctuation) 53% / 1 ("mem frac 0.8 disable cuda graph
then relaunch" read only as the relaunch, asked back). Fixed by class (an answer among remarks; a
step picked in words; an SRE's go-ahead beside an action; refusals and holds in polite and blunt
words; an instruction run on into its reason with no comma, cut only where a verb or a pasted
NAME=value/--flag leads it or both halves are instructions; asides; halves of the box; "anything but
N is fair game"; emoji): sre6 100%, sre7 97%, sre8 100%, sre9 96%, sre10 93%, sre11 81%, 0 misread on
every set. Four of the six sets' first sight is under 80%.
Round four, on sre9-sre11's misses (sre9 97%, sre10 97%, sre11 91%), then sre12 (an on-call engineer at
a GPU cloud) and sre13 (a non-native English speaker), blind, measured once: 73% / 0 and 81% / 1
("context length put to 8192" read as the port 8192 by round four's new reading of a remark before an
instruction: asked back, never taken without a yes; a setting's name is no remark now). Fixed by
class: 95% (71 of 75, under 95%) and 97%. Then sre14 (an HPC operator) and sre15 (a skeptical principal
engineer), blind,
measured once: 89% / 1 (a switch given the next word as its value: "--disable-cuda-graph while ...")
and 83% / 2 (a self-correction, "turn off cuda graphs - no, wait, keep graphs", taken; and "no, I said
4-7 ... launch on 4,5,6,7" at a proposal, a deny whose reason apply_deny reads as instructions, which
this harness then counted as a misread: it now judges such a reason as it judges a sign-off's). Fixed
by class (a message that corrects itself is never taken; a switch takes no value): 99% and 95% (71 of 75,
under 95%).
Then sre16 (a Kubernetes engineer) and sre17 (an operator paged at 4am), blind, measured once: 80% / 1
("replicas: 2\ntp: 4" asked back as TP4 alone) and 81% / 4 ("serve on 30001, 30000 still held ..." read
as GPUs 30000 and 30001; "port 31337.. no, 31338" and "tp 4 dp 2.. er no i mean tp2 dp4" taken before
the correction; "restart it on 30001, no hold on ... idk" taken). Fixed by class (a GPU id is never
above 63; a correction whose last words set what it corrects is asked back as those words, any other
is not taken; pasted settings blocks; an answer then a remark only after an answer said whole, never
"ok one sec"): 97% and 96%.
Then sre18 (a performance engineer) and sre19 (a formal site reliability manager), blind, measured once:
85% / 2 ("--mem-frac 0.85" kept as an unknown flag; "run it on 4 cards" approved, a remark cut off its
answer) and 56% / 1 ("Please refrain from passing --disable-radix-cache" asked back as using it).
Fixed by class (a flag cut short that starts one SGLang flag is that flag; never a remark after an
answer that goes on with it; a remark before an instruction never ends in a word that takes it as its
object nor holds a word that turns it around; the formal ways to ask and to forbid; passive bullets;
a verb never carries into NAME=value, which the reading asked back had done): 93% and 96%.
Last, sre20 (a model owner) and sre21 (a security-minded infrastructure lead), blind, measured once
on the code after all of the above: 85% / 1 ("quit passing the disable-cuda-graph flag" taken as the
run's stop: "quit" is a reply word, and "quit <-ing>" was not yet an instruction as "stop <-ing>" was)
and 88% / 0. Fixed by class: 96% and 92%.
Then sre22 (a new SRE who double-checks) and sre23 (an IRC-style admin), blind, measured once on the
code after that: 83% / 2 ("one replica per gpu, so dp 7 and tp 1" asked back as DP 1; "drop both X and
Y ... and bring the server back up" asked back as the relaunch alone) and 88% / 1 ("!gpu3" read as
"use GPU 3": the "!" was dropped). Fixed by class ("!x" is "not x"; "one replica per ..." is no DP;
"dp N and tp M"; "both" before a list; an arrow to the flag; "keep X out of it"; "go with" flags): 95%
(71 of 75, under 95%) and 100%.
Last of all, sre24 (a capacity planner) and sre25 (a distracted on-call engineer), blind, measured
once on that final code: 79% / 2 ("Stop the current server, and keep GPU 3 out ..." taken as the run's
stop; "--kv-cache-dtype altogether" asked back with "altogether" as its value) and 85% / 2 (that one
again, and "use all but the last two, tp2 dp3 on those" asked back as GPUs 0-5 without its layout).
Fixed by class (a value a flag does not take is never its value; "stop the current server" is the
server; " / " between clauses; "never on"; "gpu4-gpu7", "6/7"; "fp8 e4m3"; a pronoun ends a layout;
"no risk" beside an answer): 97% and 95% (71 of 75, under 95%).
Percentages here are rounded: 71 of 75 is 94.7%. A last round on the sets still under 95% (a pronoun after
GPUs named with "through", "you do not bind it", "next launch goes on N", "odd-numbered cards") took
sre12 to 73 and sre21 to 70 of 75; sre11, sre15, sre18, sre21, sre22 and sre25 stay under 95%.
Round eleven: five more sets written blind (sre26 a Slack-thread team lead, sre27 a shell-minded
ex-sysadmin, sre28 an operator dictating by voice, sre29 a reliability engineer in a postmortem tone,
sre30 an impatient CTO), each measured once as it arrived, on the code after all of the above: 84% / 1
("disable cuda graph + triton attention" avoided the backend), 72% / 1 ("relaunch w/ --chunked-prefill-size
4096 # ..." asked back as the relaunch alone), 51% / 3 ("set NCCL P2P disable equals 1" asked back as
unsetting it, "drop the NCCL P2P disable variable" as setting it, and a third like them), 79% / 0 and
89% / 1 ("whatever the other team did last week, do that" approved the proposal). Fixed by class
(agent/hearing/spoken.py: variables and numbers said in words, a shell comment, "&&", ":emoji:",
key=value; "disable" not carried to a backend choice; a remark that points elsewhere is no remark;
"must not", "never turn off X", "with" joining two everyday readings; a speech engine's "SG lang",
"KV cash d type", "pre fill"; "6 and 7 are off-limits"; "sure thing", "w/o", "on that one"): 95%, 92%,
77%, 89% and 95%.
Round twelve: five more blind sets (sre31 an HPC admin, sre32 a researcher typing Python, sre33 a
British SRE, sre34 an incident channel, sre35 a datacenter engineer), measured once on the round-eleven
code: 85% / 0, 84% / 1 ("avoid_gpus = range(0, 4)" asked back as GPUs 0 and 4), 83% / 0, 88% / 0 and
93% / 1 ("bring it back up on :30123" asked back as the relaunch alone). Fixed by class (settings typed
as Python, ":port", "opsagent:" / "@bot", polite requests, "granted", "no - <reason>"): 93%, 97%, 91%,
95% and 96%.
Round thirteen: five more blind sets written from a prompt that gave only the fields and the
situation (sre36 a bank SRE under change management, sre37 an on-call engineer on a phone, sre38 an
ML engineer who owns the model, sre39 a team lead who explains himself, sre40 a shell-minded admin),
measured once as each arrived on the round-twelve code: sre36 88% / 1 ("Avoid gpu1, it has ECC
errors. INC0098777." carried "avoid" past the remark to the ticket, asked back as dropping a
variable INC0098777), sre38 92% / 1 ("drop the mem fraction a bit" asked back as leaving the flag
out), sre39 89% / 0, sre40 92% / 0. Fixed by class (a remark ends a list; a ticket is no variable;
"drop"/"cut" of a numeric setting, or by "a bit", is not taken; numbered lists on one line; GPU sets
with "but not"/"except"; number words in a list; "for this", "before launching", "period"; a flag
named by one word whose values SGLang names, or by its first words; a setting run on into a remark;
s/old/new/; a pronoun after a fact about a GPU or a feature; "+1"/"-1"; "carry on as planned",
"no need to wait on me for <routine steps>"; "do 2 only"; "go with 30005"): 96%, 97%, 96% and 100%;
sre28 rose to 67, sre31 and sre33 to 71, sre35 to 73 of 75 with them (test_blind_round5.py). sre37
arrived last and was measured once on that code: 85% / 1 ("nccl debug info pls" set NCCL_DEBUG=info,
which NCCL reads as INFO; this harness compares the words, so it counts). Fixed by class (a level
said after the variable, "fa 3", "r" for "are", "on the rest", a fact then "stay off it" with no
comma, "but leave the run up", "kill the whole run we're done"): 96% (72 of 75). Still unread there:
"unset CUDA_VISIBLE_DEVICES" (the launch sets it from its own GPU list; reading it as a variable
to drop would be a claim the launch does not keep), "tp4 dp2 on all 8", and "use that w trust
remote code" after a model path.
Round fourteen: five more blind sets from the same prompt (sre41 a runbook-style cloud SRE, sre42 a
grad student, sre43 a terse staff engineer, sre44 an operations manager relaying engineers, sre45 a
French SRE), each measured once as it arrived, on the code after round thirteen and the real unset:
sre41 92% / 0, sre42 97% / 0, sre44 84% / 0. Fixed by class (kebab-case settings, "rm X from env",
"or" after a must-not, a must-not "till the RMA ticket closes", "per Tom", "for the bench run",
"please hold off", "let's not sign off", "I'll check back after standup", "lol"; an instruction
relayed from someone else, quoted or a pasted setting, is read and asked back with who said it left
unread; "cap it at 64 running requests"; a port as the subject of a fact): 100%, 99% and 96%.
sre45 and sre43 arrived during those fixes and were measured once on the code of that moment:
sre45 88% / 0; sre43 73% / 4 ("0-3 ✗", "gpu 5 ✗ ...", "gpu3 ✗ port 30000 ✗": the cross was dropped
as a gesture and the rest read as GPUs and a port to use, three opposite readings; "mem fractoin .88"
took ".88" as written). Fixed by class (a cross or "≠" is "not"; "tp4->tp8"; ".88" is 0.88; "mem
.85", "quant", "kv=", "p2p=off", "model → /x"; "prot"; "em"; the French "non", "svp", "please to",
"attention :", "take 31000"): 100% and 96%. Checking this round found a misread older than it:
"never schedule on gpu 0; gpu 1 as well" read GPU 1 as a GPU to use; the verb of a must-not said in
everyday words now carries to the next clause that has none (never to a bare acronym, "DCGM").
sre46 was written last, blind but aimed at this round's forms (symbols, exceptions, lists, s///,
pronouns, relayed words, vague amounts), and measured once on the code above: 71% / 1 ("kill it" at a
question proposing a read-only command: every surface refuses it, "this question proposes ...;
write approve ...", but its words read as stopping the server, which this harness counts). Fixed by
class (a value's arrow, "(1)"/"i)" lists, a port substituted, "on mem-fraction-static", a variable
or a model named before "it"/"that", "grafana's proxy", bare ids with an exception asked back): 88%.
From this round on, a message that every surface refuses or answers (a ReplyError) is judged as
nothing taken: heard where the writer meant nothing to be understood, unread where they meant an
instruction. Before, its words were read as instructions all the same, which counted "kill it" as a
misread and "go 4x2 -- tp 4, dp 2" (refused as a step count) as heard; both are now read as the run
reads them ("go" before words the grammar reads is no step count; "s/30000/30005/" is read).
Round fifteen: six more blind sets from the same prompt (sre47 an HPC/Slurm admin, sre48 a German
SRE, sre49 a Slack-native engineer, sre50 an inference performance engineer, sre51 a junior SRE,
sre52 an incident commander in a Sev-1), each measured once as it arrived, all on the same code (after
round fourteen, with only modules split for size): sre47 85% / 1 ("lol ok" read as a yes, the writer
meant no answer), sre48 76% / 0, sre49 95% / 0, sre50 96% / 0, sre51 88% / 0, sre52 93% / 0. Fixed
by class (test_blind_round6.py): GPU ids with a verb only a GPU takes, even one ("dont touch 7",
"w/o 5 and 6", "6,7 excl'd", "take 0-3"), and ids with a port, asked back; "on all 8" read against
the host's GPUs and asked back; a must-not said last ("GPU 0 and 1 never"); a request asked as a
question over several clauses ("could you relaunch on ..., on port ...?", "is it ok if you ...?");
the German "nein", "ja", "bitte", "Nummer", "mach weiter", "Schluss", "bis"; an incident's "NOW" and
"stat"; "sorry"/"btw" clauses; "needs --x", "x is needed"; "fp8 quant", "ctx len";
"model under /x"; "bind to cards"; "30000 is off limits"; "don't sign off"; "stop asking me";
"I'm in a meeting for 40 min" (the operator's time, no bound on the run); a step named by its words
("the log one"); a laugh before a yes is no yes. After: 100%, 96%, 99%, 99%, 99%, 100%. From this
round on, the harness takes "use GPUs 0-7" and no GPU rule as the same launch on its 8-GPU host (as
"all but 7" and "use 0-6" already were): two older sets label "tp4 dp2 over all eight" as a layout
only, a new one labels "tp4 dp2 on al 8" with the GPUs too.
Round sixteen: five more blind sets from the same prompt (sre53 a Japanese SRE, sre54 a Kubernetes-minded
platform SRE, sre55 an ML researcher, sre56 a vendor's field engineer, sre57 a tired night-shift
operator), each measured once as it arrived, all on the code of round fifteen (commit 12e515c): sre53
79% / 0, sre54 87% / 0, sre55 93% / 0, sre56 85% / 0, sre57 89% / 0. Fixed by class (test_blind_round6.py):
Japanese words and punctuation ("はい", "いいえ", "お願いします", "です", "使わないでください", "、", "。",
"0~3"), an en dash range; "port is 30001"; cordon/taint/drain, "svc port", "redeploy", "scale to 0",
"schedule on"; "refrain from"; "stop the inference server"; a bare port after "touch", "no ports", a
port list with spaces; "cahce", "contxt"; "for the ablation"; "trust remote code flag"; ids put right
after "no wait"; "no need to ask me every time", "continue your plan", "by yourself", "without asking
me", "don't block on me", "wait for my approval at each step"; "terminate the whole run";
"confirmed"; "proceed with the topology read" (the proposal named by its step's words); "w/e",
"goin"; a pick then its step's words ("do #3 the log"); "tok/s" is no path. After: 99%, 100%, 97%, 99%,
97%. Still unread there: "flashinfer backend please" (flashinfer is a choice of several backend flags),
"quantizaton fp8" (a flag's name misspelt is suggested back, never taken), "contxt length 8192 pls
prompts are short" (a slip and a run-on together), "tp1 is fine for the 8B", and a pick or a yes whose
remark says "first".
Round seventeen: five more blind sets (sre58 a Spanish-speaking SRE, sre59 an extremely terse operator,
sre60 an engineering manager, sre61 an SRE who pastes command lines and config, sre62 an SRE writing
Indian English), each measured once as it arrived, all on the code of round sixteen: sre58 41% / 0
(whole clauses in Spanish), sre59 79% / 0, sre60 93% / 0, sre61 85% / 4, sre62 84% / 0. sre61's four
first-sight misreads: "try fp8 kv cache maybe" (the trailing maybe was a clause of its own and the
rest read; the surfaces asked it back, but `hear` took it), "--attn-backend triton" and "--tp4" (flags in
no SGLang release taken as written: a launch would fail on them), "--model-path /x" (kept as a flag,
not the model). Fixed by class (test_blind_round6.py): a trailing maybe makes `hear` take nothing; a
flag in no recorded release is never used (it may still be kept out); "--model-path" is the model;
"--tp4"; Spanish words and their order ("no toques la 0 ni la 1", "relanza con tp4", "sí, dale"); a
verb said last ("gpu3 no", "gpu 0-3 avoid please"), "to be used", "as 64", "only"/"also"/"itself" for
emphasis, "p 30001", "no radix", "stop sglang no relaunch", ports listed with spaces, "ports ...
reserved, dont use", a YAML env block, a model path then pasted flags, ids with a layout asked back;
replies "skip topo", "do the needful", a step's own command pasted back, "no no, not yet". After: 96%,
93%, 96%, 95% (71 of 75), 99%. sre59 stays under 95%: "trust remote code" and "drop trust remote" said
bare, "flashinfr attn", "gpu7 bad ecc" (a fact, no verb: asking it back misread an older set's reason),
"tp2 skip 3".
Round eighteen: five more blind sets (sre63 a vLLM veteran new to SGLang, sre64 an on-call SRE dictating
by phone, sre65 a French SRE, sre66 a grumpy senior paged at 4am, sre67 a Chinese SRE), each measured
once as it arrived, all on the code of round seventeen: sre63 76% / 1, sre64 75% / 0, sre65 47% / 2,
sre66 87% / 0, sre67 40% / 0. The first-sight misreads: "--tensor-parallel-size 8" (SGLang's second
name for --tp-size, kept as a flag beside the run's own layout), "jamais de --disable-radix-cache" (the
French "never" cut off as a remark, the flag taken), "stop le serveur, ..." (a stop of the whole run).
Fixed by class (test_blind_round7.py): French and Chinese words (agent/hearing/french.py, chinese.py),
and any Chinese character or French negation left unread keeps its clause unread, whole; words before a
bare flag are cut off as a remark only when they say to set it; "stop"/"abort" then words with no pause
ends the run only when the words are the run's; a flag's second name is its first; vLLM's flags are
asked back as SGLang's of the same meaning ("--max-model-len" is --context-length), never taken; "-tp 4",
"engine"; dictation ("dash dash", "slash", "tee pee", "for"/"won", "thirty thousand and two", sentences
run on before "I'm"); an oath, "before it ...", "gpu 0 off limits", "set the model to /x", "use just
GPU 1", "... on port N" after GPUs. A red-team pass over these readers found older misreads too, all
fixed: "instead of tp 4 use tp 2" and "drop tp 4" read as tp 4, "use GPU 3 too" as GPU 3 only, the
French "ne plus utiliser" as "use", "用8卡" (eight cards) as GPU 8. After: 96%, 99%, 95%, 93%, 93%.
Round nineteen: five more blind sets (sre68 a Brazilian SRE, sre69 a lead who writes short letters,
sre70 a constraint-minded SRE, sre71 a phone's autocorrect, sre72 a new grad thinking aloud), each
measured once as it arrived, all on the code of round eighteen (d46c865): sre68 44% / 3, sre69 85% / 2,
sre70 81% / 0, sre71 60% / 1, sre72 88% / 1. The first-sight misreads: "nao usa torch compile" (the
Spanish table read "usa", and the Portuguese "not" was cut off as a remark: the flag was to be used),
"reinicia nas GPUs 0 a 3" twice (a bare relaunch taken, the GPUs not read), "If the other job has
finished, you can take GPUs 4-7" (the condition unread, the GPUs taken), "use GPUs 1, 3, 5 and 7 with dp 4
(tp 1)" (the bracket read alone as TP1 x DP1), "that's the right flag right? --disable-cuda-graph" (the
flag asked about was taken), "Set Nccl_DEBUG=INFO and bounce it" (only the relaunch read). Fixed by class
(test_blind_round8.py): Portuguese words (agent/hearing/portuguese.py) and a negation of another language
("nicht", "niet", "mai", "não") keeps its clause unread, whole; what hangs on an unread condition is not
taken; a setting pasted right after a question is not taken; a letter's greeting and sign-off
(agent/hearing/letter.py); autocorrect undone where plain (agent/hearing/autocorrect.py: curly quotes,
"—flag", "tip 4", "Cuba graph", "KB cache", "Nccl_X", "FP8", a value in quotes); "dp 4 (tp 1)"; "make sure
X is not passed"; "go to --x v"; "launch only on GPUs"; a pick beside "I'd like to see <its step>"; "not
just the server" after a stop of the whole run; "any gpus are fine other than"; "hold off on signing
off"; "but do NOT pass"; "until we figure out ..."; "let's not use it"; "trust remote code" bare; "tp 4
dp 2 not tp 8"; "only #2". After: 99%, 97%, 93%, 100%, 93% (sre69 96% after round twenty: "Proceed,
provided it stays read-only" is a conditional yes, now asked again).
Round twenty: five more blind sets (sre73 a Korean SRE, sre74 an Italian SRE, sre75 an SRE who pastes
Slack threads, sre76 an SRE who changes their mind mid-message, sre77 an infrastructure-as-code engineer),
each measured once as it arrived, all on the code of round nineteen (724a0fb): sre73 31% / 1, sre74 47% / 0,
sre75 85% / 6, sre76 44% / 26, sre77 67% / 1. The first-sight misreads: a self-correction whose first value
was taken or asked back ("use port 30001 — wait, 30002", "attention backend triton, no, fa3", "gpus 4,5,6,7
-- drop 7", "tp 8, actually no, tp 4... or 8? idk": 21 of them), a reply that takes itself back read by
its first word ("hold off -- actually no, carry on", "not yet... eh fine, sign off"), someone else's
words taken ("@bob says use port 30002", "fwd from infra: X=1", "> raj: don't touch gpu 3 / thoughts?",
"> alice: looks good to me" as a yes), "2,3번 GPU만으로 tp2" as step 2, "re-run the job" as a benchmark.
A red-team pass over round nineteen found more, all fixed: a condition after the instruction ("use GPUs
4-7, if that helps"), "yes, as long as the log is clean" as a sign-off, "no GPU 3 issues today" as a
must-not, "not only GPUs 0-3", "don't use --mem-fraction-static 0.95" as the flag refused, "stop the log
tail" as the run's stop, "roda no GPU 3" as "no GPU 3". Fixed by class (test_blind_round9.py): a
correction takes the value said again in the place of the one before and asks it back, and takes nothing
while what stands is open; a reply is what it says after it takes itself back; a condition anywhere
beside an instruction, a quoted message and a state report take nothing and ask nothing back; someone
else's words are asked back, never taken. No language tables were added: Korean and Italian stay
unread (0 misread). After: 31%, 47%, 81%, 64%, 68%, each with 0 misread.
Round twenty-one: five more blind sets (sre78 a Hinglish-typing SRE, sre79 an SRE who answers with pasted
commands and JSON, sre80 a Spanish SRE, sre81 an ultra-terse phone operator, sre82 a manager covering
on-call), each measured once as it arrived on e6aed3e: sre78 51% / 2, sre79 88% / 2, sre80 71% / 2, sre81
83% / 0, sre82 81% / 3. The first-sight misreads: a Hindi "mat" (don't) dropped ("--disable-cuda-graph mat
daalna" took the flag), "port 30000 busy hai, 31000 pe serve karo" as port 30000, "`X=1`??" as the value
"1??", a pasted JSON object cut in half, "jaja ok" as a yes, "the mem fraction one" as the value 1, a
restart taken without the setting said with it ("reinicia el servidor con tp 4", "restart it with the
memory setting at 0.85"). Fixed by class (test_blind_round10.py): Hinglish turned round (hinglish.py),
Italian and Korean tables (italian.py, korean.py; sre73 and sre74 were unread before), more Spanish,
a pasted JSON object or launch line read whole, a question mark never part of a value, a setting said
with a verb never cut off it as a remark, a question after a setting never a remark, numbers at sentence
ends never a numbered list, a "Could you" request read in part asked back (it had been taken as a
maybe and then read whole), emoji and "wfm"/"ya" replies, "hold, not yet", a manager's plain words.
After: 99%, 97%, 100%, 100%, 97%; sre73 97%, sre74 99%; every set 0 misread.
Round twenty-two: five more blind sets (sre83 a Russian SRE, sre84 an Indonesian SRE, sre85 a senior who
writes long messages, sre86 a compliance-minded lead writing in policy language, sre87 an SRE whose
English is a second language), each measured once as it arrived on e2c5ce3: sre83 43% / 1, sre84 49% / 2,
sre85 76% / 0, sre86 41% / 3, sre87 72% / 0. The first-sight misreads: a must-not said after its subject
taken as a must ("Port 30000 shall not be used", "--disable-cuda-graph must not be passed", "port 30000
jangan dipake", "--disable-cuda-graph убери"), a restart taken without the layout said after a word the
grammar does not know ("restart pakai tp 4"), "Relaunch accordingly" taken alone. Fixed by class
(test_blind_round11.py): a "not" right after a setting keeps the clause whole (never a remark cut off),
policy language read as the rule it states (formal.py), Russian and Indonesian tables (russian.py,
indonesian.py; Cyrillic and other scripts left unread keep their clause unread), second-language word
order (learner.py), an answer after sentences of context (context_first.py), a must-not carried over a
comma to a bare port asked about, "don't run topo" as a deny. After: 93%, 100%, 88%, 100%, 97%, each 0
misread.
Round twenty-three: five more blind sets (sre88 a German SRE, sre89 an SRE paged at 3am typing on a phone,
sre90 an SRE mixing Arabic and Arabizi, sre91 an ML researcher, sre92 a lead who batches instructions in
lists), each measured once as it arrived on b8772e2: sre88 53% / 0, sre89 77% / 0, sre90 45% / 1, sre91
92% / 0, sre92 88% / 1 (sre91 meets the first-sight bar). The first-sight misreads: "port 30000 ma7goz"
(Arabizi for "taken") as port 30000, and a must-not carried to the next item of a list ("- stay off gpu
2\n- port 30011" avoided the port). A red-team pass over rounds twenty-one and twenty-two (1,064 probes)
found more, fixed by class (test_blind_round12.py): a message that takes itself back ("use gpu 3, don't",
"go on. actually no."), a "don't" of a removal ("don't unset X"), a complaint about a bare setting ("port
30000 it's busy"), a launch line beside other words ("never again: L", "L is broken"), words of other
languages that turn or hang a clause (except, why, said, may I, if, but), conditional or reserved answers
("approved pending review"), someone else's answer ("Priya said yes"), "pas d'accord", a JSON object with
a key it does not know or a negative number. German table (german.py), IaC phrasing (iac.py: sre77 68% ->
99%), "tp 2; dp 2" as one layout. After: 97%, 91%, 43%, 97%, 95%, each 0 misread; "Priya says go ahead"
(sre46) is now asked again. Later in round twenty-three an Egyptian Arabizi table (arabizi.py: law, w2af,
mat...sh, 3ala, bas) took sre90 from 43% to 97%, 0 misread, and a reply naming two steps ("1 and 3",
"2 or 3, your call") is refused rather than read as one (test_blind_round13.py).
Round twenty-four: five more blind sets (sre93 an SRE mixing English with Japanese in Latin letters and
its own script, sre94 a Unix greybeard, sre95 an on-call engineer dictating on a phone, sre96 a Montréal
SRE mixing Québécois French, sre97 a lead answering from a Slack thread), each measured once as it arrived
on e9b5e3f: sre93 40% / 3, sre94 83% / 0, sre95 75% / 2, sre96 73% / 0, sre97 84% / 2 (sre94 meets the
first-sight bar). The first-sight misreads: chat emphasis hid a never ("*never* pass --x" read as use
--x), a dictated correction with no pause written kept the first value ("port thirty thousand actually
make it thirty thousand and five"), "thirty two K" became 32, Japanese particles left a setting beside
an unread verb ("port 30000 wa jupyter ga tsukatteru" read as port 30000), and a relaunch was read while
the setting it was to take was not ("redo it with --kv-cache-dtype ...", a hub id). Fixed by class
(test_blind_round14.py, test_quebec.py): a Japanese table (japanese.py; a particle or verb ending it did
not place keeps its clause unread), Québécois words in french.py, emphasis and "(edited)" dropped and a
quoted line of the question skipped, dictation (spelt letters "N C C L", "FP eight", "32 K", "um",
corrections without punctuation), a hub id asked back, "I can't sign off", "carry on with the list",
"^C", "i'll take it from here", a "don't relaunch with X" taking nothing (it had been "use X", found by
probing the negations of this round's rules). After: 99%, 95%, 93%, 99%, 96%, each 0 misread.
A red-team pass over this round (about 2,100 probes, test_redteam_round24.py) found answers turned, put
off or given by someone else read as approve ("far from LGTM", "do it tomorrow", "bob approved"), a no
sign dropped beside a setting ("👎 GPU 3" as use GPU 3), "not LGTM" read as unsetting a variable LGTM,
dictated letters read as one-letter replies ("E four M three" an edit), Japanese negative endings asked
back as orders, and "thirty two thousand seven sixty eight" as 768; all fixed by class. One message of
sre37 is now unread: "stop sglang 🙅 gpu 3 throwing xids" (a no sign beside GPU 3 is not read past).
Round twenty-five: five more blind sets (sre98 a polite British SRE, sre99 an Australian in slang, sre100
a Bengaluru SRE in Indian corporate English, sre101 a Warsaw SRE mixing Polish, sre102 a Kubernetes
engineer), each measured once as it arrived on d669080: sre98 81% / 0, sre99 81% / 3, sre100 83% / 1,
sre101 47% / 2, sre102 80% / 1 (sre98 meets the first-sight bar). The first-sight misreads: an
environment value's case changed ("HF_HOME=/data/hf_cache" taken as /data/HF_CACHE), a question after
praise signed off ("nice. what's the cost per 1M tokens look like"), "nah yeah" (an Australian yes) read
as a deny, and a setting beside words no rule read asked back without it ("port 8000 zajety, wez 8001" as
port 8000, "mem fraction down to 0.7 and relaunch" as relaunch). Fixed by class (test_blind_round15.py):
a Polish table (polish.py; with or without its letters), a port or GPU said to be taken or out asked back
as kept off when it is all the message says (beside an instruction it is its reason), "32k context",
"X down to V", Kubernetes words (replicas of GPUs each, containerPort, camelCase keys, rollout restart,
Prow's /approve and /hold), polite requests asked as questions, Australian and Indian English forms, and
refusals to sign off in more words. After: 95%, 96%, 95%, 96%, 96%, each 0 misread.
Round twenty-six (sre103 a Dutch engineer, sre104 a phone with autocorrect damage, sre105 long conditional
sentences, sre106 vLLM habits, sre107 heavy Markdown), measured once on 60e6a89: 64% / 0, 69% / 0, 64% / 4,
75% / 2, 80% / 0. Round twenty-seven (sre108 an on-call SRE at 3am, sre109 a German HPC engineer, sre110
Slack habits, sre111 an ML researcher, sre112 config-style keys), measured once on b47423e: 89% / 0,
72% / 5, 84% / 0, 75% / 0, 71% / 4. The first-sight misreads: "genau" and a closing "ja" read as a yes;
"avoid them. And port 31000 please." avoided 31000; "Remove that" after "cuda graph was disabled" read
as disabling it; "KV_DTYPE=fp8_e5m2" set a variable no server reads; "avoid_ports=30000,8080
use_port=30010" avoided 30010; a relaunch beside a change not read ("set --mem-fraction-static to 0,85 and
relaunch", "unset: A, B / relaunch: yes") asked back as the relaunch alone. Fixed by class
(test_blind_round27.py): a Dutch table (dutch.py), a phone's "*word" correction line (star_fix.py), slips
onto a neighbouring key (keyboard.py), a decimal comma beside a fraction, Markdown labels and task boxes,
config keys several to a line, knob keys written as variables asked back as flags, dashed flag names
without "--", "single replica", local model copies, "again without X", German replies and tags. After:
sre103 93%, sre104 92%, sre105 65%, sre106 80%, sre107 92%, sre108 89%, sre109 93%, sre110 85%, sre111 76%,
sre112 97%, each 0 misread. The harness now counts a must-not the writer's own "use exactly" keeps (avoid
0-3 beside "only 4-7") as the same launch, and a launch's flags in any order as the same.
In the same round eleven the harness began reading a message's words as apply_words does (the reply's,
with "w/" spelt out), which first cost three older sets a message each ("relaunch on 4-7 with tp4"),
fixed by that class.
The floors below hold the sets at what they reach after those fixes; the first-sight numbers are
the honest measure of how this generalises, and a new set should be added the same way.
A misread (an instruction the operator did not give, or a different one) is never acceptable;
an unread message is answered "I did not understand" and is only counted.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hearing_testkit import harness_question

from agent.hearing import bounds
from agent.hearing.heed import ask_back
from agent.hearing.instructions import hear
from agent.hearing.replies import ReplyError, parse_reply
from agent.state import OperatorRules

SETS = Path(__file__).parent.parent / "fixtures" / "phrasings"
FIELDS = (
    "use_port",
    "avoid_ports",
    "use_gpus",
    "avoid_gpus",
    "set_env",
    "unset_env",
    "use_flags",
    "avoid_flags",
    "layout",
    "no_relaunch",
    "stop_server",
    "measure_again",
    "use_model",
)
DEFAULTS = OperatorRules().model_dump()
# The sets were written for an 8-GPU host ("the last four" is GPUs 4-7): the GPUs the run knows of
# (agent.hearing.applied.known_gpus). A run that knows none reads no such set (test_heed_sre.py).
HOST_GPUS = list(range(8))
PARTIAL_LISTS = frozenset({"avoid_ports", "avoid_gpus", "unset_env", "avoid_flags", "use_flags"})
# On a question that proposes an action, continue keeps the proposal and approve runs it: both send
# it through the gate, so "yes continue" read as either is what the operator meant.
SAME_ON_AN_ACTION = {"approve", "continue"}
# At a sign-off the run has no plan of its own to continue: "not yet - carry on tuning" refused as a deny
# leaves the goal unsigned and the run going, as the writer's "continue" would (a bare continue there is
# refused, agent.hearing.replies); neither signs off nor ends the run.
SAME_AT_A_SIGN_OFF = {"deny", "continue"}


_question = harness_question  # the question every set line answers (hearing_testkit)


def _same_gpus(said: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """ "all but 7" heard as "leave GPU 7 out" or as "use GPUs 0-6": on the sets' 8-GPU host both
    allow exactly the same GPUs, and leaving out is the reading that still lets a layout fit. So do
    "use GPUs 0-7" and no GPU rule at all."""
    every = sorted(HOST_GPUS)
    if said.get("use_gpus") == every or wanted.get("use_gpus") == every:
        # "tp4 dp2 across all eight": every GPU of the host named, or no GPU rule, is the same launch
        return {k: v for k, v in said.items() if k != "use_gpus" or v != every} == {
            k: v for k, v in wanted.items() if k != "use_gpus" or v != every
        }
    rest = {k: v for k, v in said.items() if k != "avoid_gpus"}
    others = {k: v for k, v in wanted.items() if k != "use_gpus"}
    if "avoid_gpus" not in said or "use_gpus" not in wanted or rest != others:
        return False
    return sorted(set(HOST_GPUS) - set(said["avoid_gpus"])) == sorted(wanted["use_gpus"])


# A pasted "--tp-size 2 --dp-size 4" is kept as flags, and the launch takes its layout from them
# (agent.hearing.applied.FLAG_FIELDS): the same launch as the layout TP2 x DP4.
LAYOUT_FLAGS = {"--tp-size": "tp", "--tp": "tp", "--dp-size": "dp", "--dp": "dp"}


def _rules_said(rules: OperatorRules) -> dict[str, Any]:
    said = {k: v for k, v in rules.model_dump().items() if k in FIELDS and v != DEFAULTS[k]}
    sizes = {LAYOUT_FLAGS[f[0]]: int(f[1]) for f in said.get("use_flags", []) if f[0] in LAYOUT_FLAGS and len(f) == 2}
    layout = said.get("layout") or {}
    agreeing = "tp" in sizes and all(layout.get(k, 1 if k == "dp" else None) == v for k, v in sizes.items())
    if ("tp" in sizes and "layout" not in said) or agreeing:
        # "`--model-path X --tp 4`. switch to that, tp 4 on gpus 4-7": the flag and the layout say one size
        said["layout"] = {"tp": sizes["tp"], "dp": sizes.get("dp", 1)}
        said["use_flags"] = [f for f in said["use_flags"] if f[0] not in LAYOUT_FLAGS]
        if not said["use_flags"]:
            del said["use_flags"]
    if "use_flags" in said:  # a command line's flags in any order are the same launch
        said["use_flags"] = sorted(said["use_flags"])
    if rules.relaunch_wanted and not rules.no_relaunch and not any(k != "measure_again" for k in said):
        said["relaunch"] = True  # only a bare relaunch: every launch rule asks for a relaunch too
    return said


def _expected_rules(expect: dict[str, Any]) -> dict[str, Any]:
    rules = dict(expect)
    visible = (rules.get("set_env") or {}).get("CUDA_VISIBLE_DEVICES", "")
    if re.fullmatch(r"\d{1,2}(?:,\d{1,2})*", visible) and "use_gpus" not in rules:
        # the launch pins CUDA_VISIBLE_DEVICES to the GPUs it runs on (agent.policy.actions.launch_command):
        # "set CUDA_VISIBLE_DEVICES=0,1,2,3" is the same process environment as "use GPUs 0-3"
        rules["use_gpus"] = sorted(int(g) for g in visible.split(","))
        rules["set_env"] = {k: v for k, v in rules["set_env"].items() if k != "CUDA_VISIBLE_DEVICES"}
        if not rules["set_env"]:
            del rules["set_env"]
    if "layout" in rules:
        rules["layout"] = {"tp": rules["layout"]["tp"], "dp": rules["layout"].get("dp", 1)}
    for field in ("avoid_ports", "avoid_gpus", "unset_env", "avoid_flags", "use_flags"):
        if field in rules:  # sets, kept sorted by the rules: the order a writer listed them in means nothing
            rules[field] = sorted(rules[field])
    if rules.get("stop_server") and not rules.get("relaunch"):
        rules["no_relaunch"] = True  # stopping also holds new launches until "relaunch": part of "stop"
    if rules.get("relaunch") and any(k not in ("relaunch", "measure_again") for k in rules):
        rules.pop("relaunch")  # "relaunch with X": X's rules relaunch by themselves (a measurement does not)
    return rules


def judge(line: dict[str, Any]) -> tuple[str, str]:
    """('heard' | 'unread' | 'misread', what happened) for one message."""
    text, expect = line["text"], line["expect"]
    question = _question(line.get("context"))
    try:
        reply = parse_reply(text, question, "operator")
        kind: str = reply.kind
        if kind == "say":
            text = reply.text  # the words apply_words reads: the reply's, shorthand spelt out ("w/")
    except ReplyError:
        kind = "error"
    if "rules" in expect and kind == "deny":
        # "not yet, rerun the bench first" at a sign-off, "no, I said 4-7 ... launch on 4,5,6,7" at a
        # proposal: a deny, of what the message says no to, whose reason is read as instructions
        # (agent.hearing.heed.apply_deny), and asked back when read in part: the reason is judged.
        kind, text = "say", parse_reply(text, question, "operator").text
    if "reply" in expect:
        same = SAME_ON_AN_ACTION if question.action is not None else SAME_AT_A_SIGN_OFF
        if kind == "pick" and "step" in expect and reply.pick != expect["step"]:
            return "misread", f"read as step {reply.pick}, not {expect['step']}"  # a writer who said which step
        if kind == expect["reply"] or {kind, expect["reply"]} == same:
            return "heard", kind
        return ("unread", kind) if kind in ("say", "error") else ("misread", f"read as a {kind} reply")
    if kind not in ("say", "error"):
        return "misread", f"read as a {kind} reply"
    if kind == "error":
        # Refused or answered on every surface ("'kill it': this question proposes ...", "I have nothing
        # in my evidence on ..."): nothing is taken, so its words are never read as instructions.
        return ("heard", "refused, nothing taken") if expect.get("not_understood") else ("unread", "refused")
    rules, _, missed = hear(OperatorRules(), text)
    asked = ask_back(OperatorRules(), text, None, HOST_GPUS)
    if asked is not None and asked.confirm:
        # What the run does with these words (agent.hearing.heed.apply_words): read in part, said as a
        # maybe, or counted from the host's GPUs ("the last four"), the reading is asked back and a
        # "yes" takes exactly it; a wrong reading asked back counts as a misread all the same.
        rules, _, _ = hear(OperatorRules(), asked.confirm)
    elif asked is not None:
        rules = OperatorRules()  # asked again with no reading to confirm ("unset it, restart"): nothing taken
    elif bounds.problems(OperatorRules(), rules, HOST_GPUS):
        # read whole, then refused as apply_words refuses it: a value no launch can take ("tp 4 dp 4 on gpus
        # 0-3" needs 16 GPUs), so nothing is taken
        rules = OperatorRules()
    said = _rules_said(rules)
    if said.get("use_gpus") == sorted(HOST_GPUS) and "use_gpus" not in expect.get("rules", {"use_gpus": 0}):
        del said["use_gpus"]  # every GPU of the host is no GPU rule: the same launch (see `_same_gpus`)
    if expect.get("not_understood"):
        if said and asked is not None and asked.confirm and not _rules_said(hear(OperatorRules(), text)[0]):
            # Only asked back, nothing taken: what a careful colleague does with words they cannot place.
            return "heard", f"asked back ({asked.confirm!r}), nothing taken"
        return ("misread", f"heard {said}") if said else ("heard", "not understood, as it should be")
    wanted = _expected_rules(expect["rules"])
    said = _without_implied_avoids(said, wanted)
    if said.get("stop_server") and "stop_server" not in wanted and rules.relaunch_wanted and not rules.no_relaunch:
        # "bring it down, swap in --x, bring it back up": a stop then a relaunch is the relaunch (a relaunch
        # stops the old server first)
        said = {k: v for k, v in said.items() if k != "stop_server"}
    if said == wanted or _same_gpus(said, wanted):
        # An aside ("it's flaky") is answered "I did not understand" in the report: harmless.
        return "heard", str(said) + (f" (aside not understood: {missed})" if missed else "")
    if any(k not in wanted or not _part_of(k, said[k], wanted[k]) for k in said):
        return "misread", f"heard {said}, meant {wanted}"
    return "unread", f"heard {said}, missed {missed}, meant {wanted}"


def _without_implied_avoids(said: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """`said` less a must-not the writer's own "use exactly" already keeps: "only gpus 4-7. 0-3 are
    Pieter's, don't touch" heard as also avoiding 0-3, "not on port 30000 ... relaunch on 8080" as also
    avoiding 30000. Those launch exactly as the writer meant; an avoid inside the used set never drops."""
    kept = dict(said)
    for use, avoid in (("use_gpus", "avoid_gpus"), ("use_port", "avoid_ports")):
        if avoid in wanted or avoid not in said or use not in said or said[use] != wanted.get(use):
            continue
        used = set(said[use]) if isinstance(said[use], list) else {said[use]}
        if not used & set(said[avoid]):
            del kept[avoid]
    return kept


def _part_of(field: str, said: Any, wanted: Any) -> bool:
    """Whether what was heard is a safe part of what was meant: some of the ports, GPUs, variables or
    flags to avoid (the rest is reported as not understood); never a narrower "use exactly"."""
    if said == wanted:
        return True
    if field in PARTIAL_LISTS:
        return all(item in wanted for item in said)
    if field == "set_env":
        return all(wanted.get(k) == v for k, v in said.items())
    return False


@functools.cache  # each set is judged once for both tests below: scoring every set is most of a CI run's hearing time
def score(name: str) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {"heard": [], "unread": [], "misread": []}
    for raw in (SETS / name).read_text().splitlines():
        if raw.strip():
            line = json.loads(raw)
            verdict, detail = judge(line)
            out[verdict].append((line["text"], detail))
    return out


SET_NAMES = sorted(p.name for p in SETS.glob("*.jsonl"))


@pytest.mark.parametrize("name", SET_NAMES)
def test_no_message_is_misread(name: str) -> None:
    result = score(name)
    assert result["misread"] == [], "\n".join(f"{t!r}: {d}" for t, d in result["misread"])


@pytest.mark.parametrize(
    ("name", "floor"),
    [
        ("dev.jsonl", 0.95),
        ("heldout.jsonl", 0.95),
        ("heldout2.jsonl", 0.9),
        ("heldout3.jsonl", 0.9),
        ("heldout4.jsonl", 0.9),
        ("heldout5.jsonl", 0.9),
        ("sre1.jsonl", 1.0),
        ("sre2.jsonl", 0.98),
        ("sre3.jsonl", 0.98),
        ("sre4.jsonl", 0.96),
        ("sre5.jsonl", 1.0),
        ("sre6.jsonl", 0.98),
        ("sre7.jsonl", 0.98),
        ("sre8.jsonl", 0.98),
        ("sre9.jsonl", 0.97),
        ("sre10.jsonl", 0.97),
        ("sre11.jsonl", 0.90),
        ("sre12.jsonl", 0.97),
        ("sre13.jsonl", 0.97),
        ("sre14.jsonl", 0.98),
        ("sre15.jsonl", 0.94),
        ("sre16.jsonl", 0.97),
        ("sre17.jsonl", 0.96),
        ("sre18.jsonl", 0.93),
        ("sre19.jsonl", 0.96),
        ("sre20.jsonl", 0.96),
        ("sre21.jsonl", 0.93),
        ("sre22.jsonl", 0.94),
        ("sre23.jsonl", 0.98),
        ("sre24.jsonl", 0.97),
        ("sre25.jsonl", 0.94),
        ("sre26.jsonl", 0.96),
        ("sre27.jsonl", 0.97),
        ("sre28.jsonl", 0.94),
        ("sre29.jsonl", 0.90),
        ("sre30.jsonl", 0.94),
        ("sre31.jsonl", 0.97),
        ("sre32.jsonl", 0.97),
        ("sre33.jsonl", 0.94),
        ("sre34.jsonl", 0.97),
        ("sre35.jsonl", 0.97),
        ("sre36.jsonl", 0.97),
        ("sre37.jsonl", 0.97),
        ("sre38.jsonl", 1.0),
        ("sre39.jsonl", 0.97),
        ("sre40.jsonl", 1.0),
        ("sre41.jsonl", 1.0),
        ("sre42.jsonl", 0.98),
        ("sre43.jsonl", 0.96),
        ("sre44.jsonl", 0.96),
        ("sre45.jsonl", 1.0),
        ("sre46.jsonl", 0.88),
        ("sre47.jsonl", 1.0),
        ("sre48.jsonl", 0.96),
        ("sre49.jsonl", 0.98),
        ("sre50.jsonl", 0.98),
        ("sre51.jsonl", 0.98),
        ("sre52.jsonl", 1.0),
        ("sre53.jsonl", 0.98),
        ("sre54.jsonl", 1.0),
        ("sre55.jsonl", 0.97),
        ("sre56.jsonl", 0.98),
        ("sre57.jsonl", 0.97),
        ("sre58.jsonl", 0.96),
        ("sre59.jsonl", 0.93),
        ("sre60.jsonl", 0.96),
        ("sre61.jsonl", 0.94),
        ("sre62.jsonl", 0.98),
        ("sre63.jsonl", 0.96),
        ("sre64.jsonl", 0.98),
        ("sre65.jsonl", 0.94),
        ("sre66.jsonl", 0.93),
        ("sre67.jsonl", 0.93),
        ("sre68.jsonl", 0.98),
        ("sre69.jsonl", 0.96),
        ("sre70.jsonl", 0.93),
        ("sre71.jsonl", 1.0),
        ("sre72.jsonl", 0.93),
        ("sre73.jsonl", 0.97),
        ("sre74.jsonl", 0.98),
        ("sre75.jsonl", 0.89),
        ("sre76.jsonl", 0.78),
        ("sre77.jsonl", 0.98),
        ("sre78.jsonl", 0.98),
        ("sre79.jsonl", 0.97),
        ("sre80.jsonl", 1.0),
        ("sre81.jsonl", 1.0),
        ("sre82.jsonl", 0.97),
        ("sre83.jsonl", 0.93),
        ("sre84.jsonl", 1.0),
        ("sre85.jsonl", 0.86),
        ("sre86.jsonl", 1.0),
        ("sre87.jsonl", 0.97),
        ("sre88.jsonl", 0.97),
        ("sre89.jsonl", 0.92),
        ("sre90.jsonl", 0.96),
        ("sre91.jsonl", 0.97),
        ("sre92.jsonl", 0.94),
        ("sre93.jsonl", 0.98),
        ("sre94.jsonl", 0.94),
        ("sre95.jsonl", 0.93),
        ("sre96.jsonl", 0.98),
        ("sre97.jsonl", 0.95),
        ("sre98.jsonl", 0.94),
        ("sre99.jsonl", 0.96),
        ("sre100.jsonl", 0.94),
        ("sre101.jsonl", 0.96),
        ("sre102.jsonl", 0.96),
        # rounds 26 and 27, after fixing by class
        ("sre103.jsonl", 0.94),
        ("sre104.jsonl", 0.92),
        ("sre105.jsonl", 0.97),
        ("sre106.jsonl", 0.84),
        ("sre107.jsonl", 0.93),
        ("sre108.jsonl", 0.89),
        ("sre109.jsonl", 0.93),
        ("sre110.jsonl", 0.92),
        ("sre111.jsonl", 0.90),
        ("sre112.jsonl", 0.97),
        ("sre113.jsonl", 0.49),
        ("sre115.jsonl", 0.81),
        ("sre120.jsonl", 0.69),
        ("sre121.jsonl", 0.78),
        ("sre122.jsonl", 0.89),
        ("sre123.jsonl", 0.74),
        ("redteam30.jsonl", 0.45),  # written against round 30's own readings, first measured on 7705ac1
        # round 31, at first sight on c033678
        ("sre124.jsonl", 0.84),
        ("sre125.jsonl", 0.84),
        ("sre126.jsonl", 0.58),
        ("sre127.jsonl", 0.81),
        ("redteam31.jsonl", 0.66),
        # round 32, at first sight on 7d61f3e
        ("sre128.jsonl", 0.77),
        ("sre129.jsonl", 0.76),
        ("sre130.jsonl", 0.70),
        ("sre131.jsonl", 0.77),
        ("redteam32.jsonl", 0.61),
        # round 33, at first sight on 2ddad84
        ("sre132.jsonl", 0.54),
        ("sre133.jsonl", 0.74),
        ("sre134.jsonl", 0.90),
        ("sre135.jsonl", 0.88),
        ("redteam33.jsonl", 0.70),
        # round 34, after its fixes by class (first sight on 3763ed8: 93%, 72%, 89%, 85%, 79%)
        ("sre136.jsonl", 0.98),
        ("sre137.jsonl", 0.97),
        ("sre138.jsonl", 0.98),
        ("sre139.jsonl", 0.96),
        ("redteam34.jsonl", 0.97),
        # round 35, after its fixes by class (first sight on 6fb1b74: 95%, 72%, 87%, 91%, 79%)
        ("sre140.jsonl", 0.97),
        ("sre141.jsonl", 0.94),
        ("sre142.jsonl", 0.90),
        ("sre143.jsonl", 0.96),
        ("redteam35.jsonl", 0.86),
        # round 36, after its fixes by class (first sight on b0d2ade: 87%, 83%, 89%, 88%, 76%)
        ("sre144.jsonl", 0.90),
        ("sre145.jsonl", 0.92),
        ("sre146.jsonl", 0.97),
        ("sre147.jsonl", 0.94),
        ("redteam36.jsonl", 0.84),
        # round 37, after its fixes by class (first sight on c615b4e: 68%, 85%, 68%, 53%, 72%)
        ("sre148.jsonl", 0.97),
        ("sre149.jsonl", 0.96),
        ("sre150.jsonl", 0.89),
        ("sre151.jsonl", 0.70),
        ("redteam37.jsonl", 0.85),
        # round 38, after its fixes by class (first sight on a3408f2: 81%, 77%, 69%, 89%, 73%)
        ("sre152.jsonl", 0.96),
        ("sre153.jsonl", 0.89),
        ("sre154.jsonl", 0.80),
        ("sre155.jsonl", 0.93),
        ("redteam38.jsonl", 0.86),
        # round 39, after its fixes by class (first sight on e37fbb5: 79%, 85%, 73%, 59%, 91%)
        ("sre156.jsonl", 0.98),
        ("sre157.jsonl", 0.90),
        ("sre158.jsonl", 0.80),
        ("sre159.jsonl", 0.76),
        ("redteam39.jsonl", 0.90),
        # round 40, after its fixes by class (first sight on 517c4c9: 65%, 81%, 81%, 84%, 69%)
        ("sre160.jsonl", 0.86),  # 87% after round 41's Korean word-order forms
        ("sre161.jsonl", 0.86),
        ("sre162.jsonl", 0.84),
        ("sre163.jsonl", 0.85),
        ("redteam40.jsonl", 0.69),
        # round 41, after its fixes by class (first sight on ff95167: 77%, 79%, 92%, 49%, 67%)
        ("sre164.jsonl", 0.86),
        ("sre165.jsonl", 0.98),
        ("sre166.jsonl", 0.93),
        ("sre167.jsonl", 0.81),
        ("redteam41.jsonl", 0.73),
        ("sre168.jsonl", 1.0),
        ("sre169.jsonl", 0.98),
        ("sre170.jsonl", 0.98),
        ("sre171.jsonl", 0.98),
        ("redteam42.jsonl", 0.97),
        ("sre172.jsonl", 0.98),
        ("sre173.jsonl", 0.88),
        ("sre174.jsonl", 0.98),
        ("sre175.jsonl", 0.92),
        ("redteam43.jsonl", 0.78),
        ("sre176.jsonl", 0.97),
        ("sre177.jsonl", 0.89),
        ("sre178.jsonl", 0.94),
        ("sre179.jsonl", 0.80),  # 0.86 until round 51: a checklist with an open box is asked about (what a tick means)
        ("redteam44.jsonl", 0.81),
        # round 46, after its fixes by class (first sight on 7a0a50b: 87%, 69%, 80%, 73%, 67%; 14 misread)
        ("sre184.jsonl", 0.94),
        ("sre185.jsonl", 0.94),
        ("sre186.jsonl", 0.93),
        ("sre187.jsonl", 0.80),  # 0.76 after round 46; in-message corrections read in round 47
        ("redteam46.jsonl", 0.74),  # 0.73 after round 46; "drop that var" read in round 47
        # round 47, after its fixes by class (first sight on a48957b: 73%, 85%, 76%, 73%, 84%; 9 misread)
        ("sre188.jsonl", 0.94),
        ("sre189.jsonl", 0.94),
        ("sre190.jsonl", 0.94),
        ("sre191.jsonl", 0.89),
        ("redteam47.jsonl", 0.94),
        # round 48, after its fixes by class (first sight on 6e9489b: 84%, 52%, 57%, 85%, 68%; 10 misread)
        ("sre192.jsonl", 0.88),
        ("sre193.jsonl", 0.93),
        ("sre194.jsonl", 0.86),
        ("sre195.jsonl", 0.90),
        ("redteam48.jsonl", 0.73),
        # round 49, after its fixes by class (first sight on 69bee15: 73%, 76%, 87%, 95%, 71%; 4 misread)
        ("sre196.jsonl", 0.97),
        ("sre197.jsonl", 0.94),
        ("sre198.jsonl", 0.98),
        ("sre199.jsonl", 0.97),
        ("redteam49.jsonl", 0.90),
        # round 50, after its fixes by class (first sight on de3936c: 75%, 31%, 52%, 85%, 93%; 6 misread)
        ("sre200.jsonl", 0.77),
        ("sre201.jsonl", 0.98),
        ("sre202.jsonl", 0.93),
        ("sre203.jsonl", 0.98),
        ("redteam50.jsonl", 0.98),
        # round 51, after its fixes by class (first sight on 4687b18: 68%, 36%, 36%, 92%, 77%; 16 misread)
        ("sre204.jsonl", 0.72),
        ("sre205.jsonl", 0.93),
        ("sre206.jsonl", 0.88),
        ("sre207.jsonl", 0.97),
        ("redteam51.jsonl", 0.86),
        # round 52, after its fixes by class (first sight on 9c0b9e1: 49%, 61%, 55%, 85%, 83%; 7 misread)
        ("sre208.jsonl", 0.98),
        ("sre209.jsonl", 0.98),
        ("sre210.jsonl", 0.98),
        ("sre211.jsonl", 0.96),
        ("redteam52.jsonl", 0.92),
        # round 53, after its fixes by class (first sight on 1a002d9: 33%, 25%, 77%, 41%, 81%; 4 misread)
        ("sre212.jsonl", 0.70),
        ("sre213.jsonl", 0.82),
        ("sre214.jsonl", 0.88),
        ("sre215.jsonl", 0.94),
        ("redteam53.jsonl", 0.96),
    ],
)
def test_most_messages_are_heard(name: str, floor: float) -> None:
    result = score(name)
    total = sum(len(v) for v in result.values())
    rate = len(result["heard"]) / total
    assert rate >= floor, f"{rate:.0%} heard; unread:\n" + "\n".join(f"{t!r}: {d}" for t, d in result["unread"])


if __name__ == "__main__":  # the per-set rates, for a closing note
    for set_name in SET_NAMES:
        counts = {k: len(v) for k, v in score(set_name).items()}
        print(set_name, counts)


@pytest.mark.parametrize(
    "text",
    [
        "keep the model at NVFP4",  # --model exists, but a free-text flag is never set from a sentence
        "set the host to 0.0.0.0",
        "set the served model name to prod",
        "drop the attention backend override",  # reads as avoiding the flag, never as a value "override"
        "don't stop the server",
        "what if we used tp 8?",
        "GPU 2 is free now, use it",  # add GPU 2, or use only GPU 2? Not a guess to make
    ],
)
def test_sentences_near_an_instruction_never_give_one(text: str) -> None:
    rules, _, _ = hear(OperatorRules(), text)
    assert rules.use_flags == [] and rules.layout is None and not rules.stop_server, rules
    assert rules.use_gpus is None, rules
