"""Blocking with measured completeness (issue 29): true duplicates whose name keys differ (a slip in the
first letters, the parts swapped) were never compared, and a block larger than MAX_BLOCK was skipped
whole. Now each name part is keyed one deletion away, three name orders add their sorted neighbours,
and a capped block is split by birth year instead of skipped."""

from __future__ import annotations

import random

from kbgraph.resolve.duplicates import MAX_BLOCK, DuplicateRecord, candidate_pairs, find_duplicates, normalise


def _compared(*names: str) -> set[tuple[str, str]]:
    records = [DuplicateRecord(str(i), "person", n) for i, n in enumerate(names)]
    pairs, _, _ = candidate_pairs([normalise(r) for r in records])
    return {tuple(sorted((names[i], names[j]))) for i, j in pairs}  # type: ignore[misc]


def test_a_slip_in_the_first_letter_or_in_a_short_name_is_compared():
    assert _compared("Kim Sims", "Kim Kims") == {("Kim Kims", "Kim Sims")}
    assert _compared("Kenneth Freeman", "Ennett Freeman") == {("Ennett Freeman", "Kenneth Freeman")}
    assert _compared("Kim Sims", "Kims Kim") == {("Kim Sims", "Kims Kim")}  # swapped, and the slip


def test_a_block_too_large_is_split_by_birth_date_not_skipped():
    rng = random.Random(3)
    # 300 John Smiths born in 1977: every name block and the name-and-year blocks are over MAX_BLOCK;
    # two of them, one person, differ by a digit of the day and a slip in the street, so no identifier
    # block holds both.
    records = [DuplicateRecord(f"r{i}", "person", "John Smith",
                               attributes={"dob": f"1977-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"})
               for i in range(300)]
    records += [DuplicateRecord("a", "person", "John Smith", attributes={"dob": "1977-03-14", "address": "9 Elm St"}),
                DuplicateRecord("b", "person", "John Smith", attributes={"dob": "1977-03-15", "address": "9 Elmm St"})]
    normalised = [normalise(r) for r in records]
    pairs, _, capped = candidate_pairs(normalised)
    assert capped > 0
    assert (len(records) - 2, len(records) - 1) in pairs
    assert len(pairs) < 0.2 * len(records) * (len(records) - 1) / 2
    assert any({p.left.id, p.right.id} == {"a", "b"} for p in find_duplicates(records).pairs)
    assert len(records) * MAX_BLOCK > len(pairs)
