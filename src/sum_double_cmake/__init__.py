"""Where sum-double's CMake package lives: ``lib/cmake/SumDouble/`` beside this file, installed.

scikit-build-core imports this module, through the ``cmake.root`` entry point, to find
``SumDouble`` for a downstream package that lists sum-double in its build requirements. It imports
nothing, so answering costs no torch import and loads no op library (``import sum_double`` would).
"""
