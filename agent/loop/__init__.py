"""The observe - decide - act loop: the LangGraph graph (`graph`), starting and resuming runs
(`runner`), workers that drive queued runs (`worker`), when to stop and ask (`escalation`), the
situation report (`report`), targets and their facts (`targets`, `lab_facts`), progress echoes,
rerun of a transcript on the lab, and the eval harness over lab scenarios (`evaluate`).

May import deciders, notify, hearing, evidence, store, transcript, policy and the bottom modules
(state, verdict, config); never cli or web.
"""
