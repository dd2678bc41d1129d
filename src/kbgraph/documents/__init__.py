"""Documents as people read them: view, list, timelines and profiles."""
