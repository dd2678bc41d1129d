"""Entities: names, assembly from claims, mentions, lookup, merge and mention edits."""
