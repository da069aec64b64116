# npu-advisor capture bootstrap (collector/python/sitecustomize.py, embedded in the binary).
#
# `npu-advisor capture/analyze -- CMD` puts the folder holding this file first on PYTHONPATH, so
# Python imports it at start-up instead of the site's own sitecustomize. It must therefore
#   1. run the sitecustomize it shadows (Debian's, a virtualenv's, the user's), and
#   2. do nothing else unless NPU_ADVISOR_CAPTURE is set (it names the capture config file).
# It never imports torch itself: the profiler hooks are installed when the script imports
# torch.optim (see npu_advisor_capture.py), so start-up cost and import order stay the user's.
import os as _os
import sys as _sys


def _chain_shadowed_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    # `import sitecustomize` elsewhere gets the user's module, as it would without us.
    _sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # site.py reports and ignores sitecustomize errors; so do we
        print("npu-advisor: error in %s (ignored): %r" % (spec.origin, e), file=_sys.stderr)


_chain_shadowed_sitecustomize()

if _os.environ.get("NPU_ADVISOR_CAPTURE"):
    try:
        import npu_advisor_capture

        npu_advisor_capture._install()
    except Exception as e:
        print("npu-advisor: the capture bootstrap failed to start: %r" % (e,), file=_sys.stderr)
