"""Graph operations (neighbourhoods, paths, hubs, inference, as-of): built on relations/."""
