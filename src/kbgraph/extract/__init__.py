"""Relation extraction: finding typed relations stated in the text of notes."""
