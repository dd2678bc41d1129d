"""The only writer of users' markdown: atomic page edits and the ## Relations lines."""
