"""ClueWeb09 and Chuweb21: collection naming, TREC ids, side files, the records' extras."""
