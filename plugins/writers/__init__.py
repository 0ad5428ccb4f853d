"""Built-in writer plugins."""
