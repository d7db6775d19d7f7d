"""`%%ptxgen`: the IPython cell magic (see api.py for the options)."""
from IPython.core.magic import Magics, cell_magic, magics_class

from .api import ArgError, build_parser, generate, parse_line
from .card import CardError
from .runner import PtxgenError

__all__ = ["PtxgenMagics"]


@magics_class
class PtxgenMagics(Magics):
    @cell_magic
    def ptxgen(self, line, cell):
        """Generate PTX from a Markdown kernel card (see `%%ptxgen?`)."""
        try:
            res = generate(cell, line)
        except ArgError as e:
            print(f"%%ptxgen: {e}\n" + build_parser().format_usage())
            return None
        except (CardError, PtxgenError) as e:
            print(f"%%ptxgen: {e}")
            return None
        print(res.summary())
        opts = parse_line(line)
        self.shell.user_ns[opts.var] = res
        if not opts.no_cell:
            self.shell.set_next_input(res.glue, replace=False)
        return res
