"""Fault-injection harness: damage every reader's inputs in seeded ways, run the real CLI on
them and check what came out against an independent oracle (see README.md)."""
