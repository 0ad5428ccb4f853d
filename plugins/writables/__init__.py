"""Built-in Hadoop Writable classes (hook ``crawlmill_register_writables``)."""
