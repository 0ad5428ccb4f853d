"""Built-in reader plugins."""
