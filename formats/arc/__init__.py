"""ARC: header lines and filedesc, framing with the length rule, repairs and damage."""
