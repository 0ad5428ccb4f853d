"""Common Crawl 2012 parse output: segments, the metadata JSON and textData of a page."""
