"""Reading the vault: walk, parse, chunk, and the indexing pipeline that runs every stage."""
