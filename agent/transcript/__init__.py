"""Tamper-evident run transcripts: one hash-chained JSONL file per run, secrets scrubbed before the
write, large outputs in content-addressed blobs. See docs/transcript-schema.md.

Errors: `TranscriptError` (writer/reader usage the caller must fix: a file that exists, a locked
transcript, a resumed transcript whose last event is damaged). Tampering is never raised: it is
reported as data by `verify_transcript` (`VerifyResult.problems`).
"""
