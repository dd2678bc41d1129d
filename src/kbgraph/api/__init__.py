"""The HTTP API (`kbg serve`): FastAPI routes over the same library functions the CLI calls.

Importing this package imports no web framework: `create_app` lives in `kbgraph.api.app` (needs the
`serve` extra), tokens and the bind rule in `kbgraph.api.tokens` (standard library only)."""
