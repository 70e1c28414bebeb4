"""Tamper-evident run transcripts: one hash-chained JSONL file per run, secrets scrubbed before the
write, large outputs in content-addressed blobs. See docs/transcript-schema.md.

Errors: `TranscriptError` (writer/reader usage the caller must fix: a file that exists, a locked
transcript, a resumed transcript whose last event is damaged). Tampering is never raised: it is
reported as data by `verify_transcript` (`VerifyResult.problems`).
"""

from agent.transcript.reader import read_events, resolved_payload
from agent.transcript.schema import EVENT_TYPES, SCHEMA_VERSION, Event, Redaction
from agent.transcript.scrub import Scrubber
from agent.transcript.verify import Problem, VerifyResult, verify_transcript
from agent.transcript.writer import TranscriptError, TranscriptWriter

__all__ = [
    "EVENT_TYPES",
    "SCHEMA_VERSION",
    "Event",
    "Problem",
    "Redaction",
    "Scrubber",
    "TranscriptError",
    "TranscriptWriter",
    "VerifyResult",
    "read_events",
    "resolved_payload",
    "verify_transcript",
]
