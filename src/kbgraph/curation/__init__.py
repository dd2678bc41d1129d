"""A person's edits of the entity set: merging two entities (and taking it back), and linking or
unlinking a page's mentions. Each edit writes the pages and rows it changes, then has the index
re-read them through the workspace. Above relations/ and pages/, whose lines a merge moves."""
