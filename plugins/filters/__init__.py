"""Built-in filter plugins."""
