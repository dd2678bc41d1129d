"""The base layer's files: markdown parsing and the vault's files (finding, walking, reading, frontmatter).

Imports nothing but the values below it (model, errors, config); every feature may use it.
"""
