"""Built-in plugins; each registers through the same entry points a third-party package uses."""
