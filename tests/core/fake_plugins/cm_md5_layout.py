"""Third-party-style layouts whose ``finalize`` lists what it received of each output
(``seen.txt``: ``path size md5 crc32`` per line, ``-`` for ``None``): ``md5-seen`` declares
nothing (a layout with a ``finalize`` keeps the outputs' MD5 by default), ``crc-seen`` says
it reads no MD5 (``needs_md5`` answers ``False``)."""

from crawlmill.core import hookimpl
from crawlmill.core.plugin import Layout


class Md5SeenLayout(Layout):
    """One file per input, ``<index>-<n><ext>``; finalize lists each output's checksums."""

    name = "md5-seen"
    rolls_by_size = False

    def next_path(self):
        self.files_started += 1
        return f"{self.ctx.input.index:03d}-{self.files_started}{self.extension}"

    @classmethod
    def finalize(cls, root, options, tasks, create):
        lines = [
            f"{o.path} {o.size} {o.md5 or '-'} {o.crc32 or '-'}\n"
            for task in tasks
            for o in task.outputs
        ]
        fh = create(f"{cls.name}.txt")
        try:
            fh.write("".join(lines).encode())
        finally:
            fh.close()


class CrcSeenLayout(Md5SeenLayout):
    """``md5-seen`` whose finalize says it reads no MD5."""

    name = "crc-seen"

    @classmethod
    def needs_md5(cls, options):
        return False


@hookimpl
def crawlmill_register_layouts(register):
    register(Md5SeenLayout)
    register(CrcSeenLayout)
