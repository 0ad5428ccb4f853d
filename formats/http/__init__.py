"""HTTP messages as archives store them: the head, the body as a user agent sees it, the page's charset."""
