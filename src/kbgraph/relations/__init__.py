"""Typed relations between entities: vocabulary, records, edits, suggestions, staleness."""
