"""Agent context (facts, loops, briefings, token-budgeted context): built on search/ and graph/."""
