"""The `kbg` command line: thin commands that parse, call one library function and render."""
