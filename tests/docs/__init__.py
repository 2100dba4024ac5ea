"""The documentation site: it builds with warnings as errors, its pages, links and pictures hold, its snippets run."""
