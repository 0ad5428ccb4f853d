"""NTCIR WEB collections: lists, ``.meta`` files, cooked text, EUC-JP, NW1000G-04 trees."""
