"""Shared helpers of the Python tests."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_ROOT = os.path.dirname(HERE)                 # python/
REPO = os.path.dirname(PKG_ROOT)
FAKE = os.path.join(HERE, "fake_ptxgen.py")
if PKG_ROOT not in sys.path:
    sys.path.insert(0, PKG_ROOT)

SAXPY_CARD = """## saxpy
- Input: `float* x` (n), `float a`
- In/out: `float* y` (n), updated in place
- Goal: `y = a*x + y`
- Launch: 256 threads per block, `cdiv(n,256)` blocks
"""

LJ_CARD = ("## GPU Kernel: LJ_Potential_Calculation - Input: `float3* positions` (N atoms), `float* masses` (N), "
           "`float cutoff_sq = 100.0f` - Output: `float* forces` (N*3), `float* energies` (N) - Goal: For each atom i, "
           "compute force and energy from all atoms j where `distance(i,j)^2 < cutoff_sq`. - Constraint: Use shared "
           "memory to cache a tile of `positions` for coalesced access. Avoid bank conflict.")


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False
