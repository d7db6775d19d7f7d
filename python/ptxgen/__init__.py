"""ptxgen for Python and Jupyter: `%load_ext ptxgen` registers the `%%ptxgen`
cell magic (a Markdown kernel card in; PTX, verdicts and a CuPy glue cell out).

Also usable without IPython: parse_card, glue_code, run_gen."""
from .card import Card, CardError, LibraryError, Param, find_library, normalize_card, parse_card
from .glue import glue_code, launch_config
from .runner import PtxgenError, find_binary, run_gen

__version__ = "0.1.0"
__all__ = ["Card", "CardError", "LibraryError", "Param", "find_library", "normalize_card", "parse_card", "glue_code", "launch_config",
           "PtxgenError", "find_binary", "run_gen", "load_ipython_extension"]


def load_ipython_extension(ipython):
    from .magic import PtxgenMagics
    ipython.register_magics(PtxgenMagics)


def unload_ipython_extension(ipython):
    # IPython has no unregister; the magic stays until the kernel restarts
    pass
