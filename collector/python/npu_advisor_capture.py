# npu-advisor capture runtime (collector/python/npu_advisor_capture.py, embedded in the binary).
#
# Loaded by the bootstrap sitecustomize.py when NPU_ADVISOR_CAPTURE names a capture config
# (JSON written by npu-advisor). It profiles a few steady-state training steps without editing
# the user's script:
#   - a step is one call of step() on the first optimizer that steps (its outermost call, so a
#     subclass calling super().step() counts once; a second optimizer, as in a GAN, is not
#     counted). Optimizer.__init__ is wrapped when torch.optim is imported, and it wraps the
#     step() of each optimizer class it sees. This works on torch 1.x, which has no global
#     optimizer step hook.
#   - scripts without an optimizer call step() of this module once per iteration:
#         try:
#             from npu_advisor_capture import step as profiler_step
#         except ImportError:          # not running under npu-advisor
#             profiler_step = lambda: None
#   - the profiler starts after the first step (so lazy initialisation and the first, slow
#     iteration are never captured), then follows the schedule wait / warmup / active.
#   - whatever stops the process (end of script, exception, Ctrl-C / KeyboardInterrupt,
#     SIGTERM) stops the profiler so that recorded steps are exported.
# Each process writes status.<pid>.json into the status folder; npu-advisor reads them to tell
# "nothing captured, and why" from a capture.
import atexit
import functools
import json
import os
import signal
import sys
import threading
import time

_config = None
_lock = threading.RLock()
_local = threading.local()


class _State:
    def __init__(self):
        self.steps = 0              # steps seen (optimizer steps or step() calls)
        self.first_optimizer = None  # id() of the optimizer whose steps count
        self.prof = None
        self.prof_steps = 0         # prof.step() calls so far
        self.profiler = None        # "torch_npu" or "torch", once started
        self.done = False
        self.failed = None          # why the profiler could not start
        self.exported = []          # what the trace handler wrote
        self.recorded_steps = 0     # steps inside the active window when the trace was written
        self.start_time = time.time()


_state = _State()


def _say(msg):
    print("npu-advisor: " + msg, file=sys.stderr, flush=True)


def _write_status(reason):
    if _config is None:
        return
    status = {
        "pid": os.getpid(),
        "argv": sys.argv,
        "reason": reason,
        "steps_seen": _state.steps,
        "profiler": _state.profiler,
        "recorded_steps": _state.recorded_steps,
        "exported": _state.exported,
        "failed": _state.failed,
        "seconds": round(time.time() - _state.start_time, 3),
    }
    path = os.path.join(_config["status_dir"], "status.%d.json" % os.getpid())
    try:
        with open(path + ".tmp", "w") as f:
            json.dump(status, f)
        os.replace(path + ".tmp", path)
    except OSError as e:
        _say("cannot write the capture status %s: %s" % (path, e))


def _listing(folder):
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _trace_handler(inner):
    # Records what the profiler's own handler wrote, for the status file.
    def handler(prof):
        if _complete_steps(prof) < 1:
            return  # stopped before one whole recorded step: nothing worth a trace
        out = _config["output_dir"]
        before = _listing(out)
        inner(prof)
        new = sorted(_listing(out) - before)
        _state.exported.extend(os.path.join(out, n) for n in new)
        _state.recorded_steps = _complete_steps(prof)
        for n in new:
            _say("wrote %s" % os.path.join(out, n))
        _write_status("exported")

    return handler


# The schedule skips one (empty) profiler step first: step() is called right after start(), so
# that no two recorded steps share a ProfilerStep#N label (torch 1.x labels the step that
# follows start() with the same number as the one start() opened).
_SKIP = 1


def _complete_steps(prof=None):
    # Whole steps inside the active window so far. Counted here rather than read from the
    # profiler (torch's and torch_npu's profile objects differ in their attributes).
    return max(0, min(_state.prof_steps - _SKIP - _config["wait"] - _config["warmup"], _config["active"]))


def _schedule(module):
    return module.schedule(wait=_config["wait"], warmup=_config["warmup"], active=_config["active"], repeat=1,
                           skip_first=_SKIP)


def _make_profiler():
    cfg = _config
    want = cfg["profiler"]
    if want == "torch_npu":
        try:
            import torch_npu  # noqa: F401  (the user's script normally imported it already)
            import torch_npu.profiler as tp

            ext = {}
            if cfg.get("level"):
                ext["profiler_level"] = getattr(tp.ProfilerLevel, cfg["level"])
            if cfg.get("aic_metrics"):
                ext["aic_metrics"] = getattr(tp.AiCMetrics, cfg["aic_metrics"])
            prof = tp.profile(
                activities=[tp.ProfilerActivity.CPU, tp.ProfilerActivity.NPU],
                schedule=_schedule(tp),
                on_trace_ready=_trace_handler(tp.tensorboard_trace_handler(cfg["output_dir"])),
                record_shapes=cfg["record_shapes"],
                profile_memory=cfg["profile_memory"],
                with_stack=cfg["with_stack"],
                experimental_config=tp._ExperimentalConfig(**ext),
            )
            return prof, "torch_npu"
        except Exception as e:  # e.g. torch_npu present but no CANN driver on this machine
            _say("torch_npu.profiler unusable (%r); falling back to torch.profiler" % (e,))
    import torch
    import torch.profiler as tp

    activities = [tp.ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(tp.ProfilerActivity.CUDA)
    prof = tp.profile(
        activities=activities,
        schedule=_schedule(tp),
        on_trace_ready=_trace_handler(tp.tensorboard_trace_handler(cfg["output_dir"])),
        record_shapes=cfg["record_shapes"],
        profile_memory=cfg["profile_memory"],
        with_stack=cfg["with_stack"],
    )
    return prof, "torch"


def _window_end():
    return _SKIP + _config["wait"] + _config["warmup"] + _config["active"]


def step():
    """Marks the end of one training step. Called for you after optimizer.step(); call it
    yourself (once per iteration) in a loop that has no torch optimizer."""
    if _config is None:
        return
    with _lock:
        _state.steps += 1
        if _state.done or _state.failed:
            return
        if _state.prof is None:
            try:
                _state.prof, _state.profiler = _make_profiler()
                first = _state.steps + _config["wait"] + _config["warmup"] + 1
                # Iterations of the script, counted from 1. The trace labels them ProfilerStep#N by
                # the profiler's own count, which starts when the profiler does (here, after the
                # first iteration) and differs between torch versions: no N is promised here.
                _say("profiling iterations %d-%d of the script with %s (wait %d, warmup %d, active %d; "
                     "the trace numbers them by the profiler's own count)"
                     % (first, first + _config["active"] - 1,
                        "torch_npu.profiler" if _state.profiler == "torch_npu" else "torch.profiler",
                        _config["wait"], _config["warmup"], _config["active"]))
                _state.prof.start()
                _state.prof_steps = 1  # counted before the call: the trace handler runs inside it
                _state.prof.step()  # the skipped step (see _SKIP)
                _write_status("profiling")
            except Exception as e:
                _state.failed = "the profiler failed to start: %r" % (e,)
                _state.prof = None
                _say(_state.failed)
                _write_status("failed")
            return
        _state.prof_steps += 1
        _state.prof.step()
        if _state.prof_steps >= _window_end():
            _stop("done")
        else:
            _write_status("profiling")  # a few small writes, inside the capture window only


def _stop(reason):
    # Stops the profiler; when it is inside the active window this exports what it recorded.
    with _lock:
        prof, _state.prof = _state.prof, None
        if prof is None or _state.done:
            return
        _state.done = True
        try:
            prof.stop()
        except Exception as e:
            _state.failed = "stopping the profiler failed: %r" % (e,)
            _say(_state.failed)
        _write_status(reason)


def _at_exit():
    prof = _state.prof
    if prof is not None:
        if _complete_steps(prof) >= 1:
            n = _complete_steps(prof)
            _say("process ending during the capture (after step %d): exporting the %d whole step%s recorded and "
                 "the one under way, cut short" % (_state.steps, n, "" if n == 1 else "s"))
        _stop("exit")
    else:
        _write_status("exit")


def _on_sigterm(signum, frame):
    _stop("sigterm")
    # Then die of SIGTERM, as the process would have without us.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _count_optimizer_step(optimizer):
    with _lock:
        if _state.first_optimizer is None:
            _state.first_optimizer = id(optimizer)
        elif _state.first_optimizer != id(optimizer):
            return
    step()


def _wrap_step(cls):
    fn = cls.step
    if getattr(fn, "_npu_advisor_wrapped", False):
        return

    @functools.wraps(fn)
    def wrapped(self, *args, **kwargs):
        depth = getattr(_local, "depth", 0)
        _local.depth = depth + 1
        try:
            return fn(self, *args, **kwargs)
        finally:
            _local.depth = depth
            if depth == 0:
                _count_optimizer_step(self)

    wrapped._npu_advisor_wrapped = True
    cls.step = wrapped


def _patch_optimizer_module(module):
    Optimizer = getattr(module, "Optimizer", None)
    if Optimizer is None or getattr(Optimizer.__init__, "_npu_advisor_wrapped", False):
        return
    init = Optimizer.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        try:
            _wrap_step(type(self))
        except Exception as e:
            _say("cannot hook %s.step: %r" % (type(self).__name__, e))

    __init__._npu_advisor_wrapped = True
    Optimizer.__init__ = __init__


class _OptimizerImportHook:
    """Patches torch.optim.optimizer right after it is imported (without importing torch early)."""

    target = "torch.optim.optimizer"

    def __init__(self):
        self._busy = False

    def find_spec(self, name, path=None, target=None):
        if name != self.target or self._busy:
            return None
        import importlib.util

        self._busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self._busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def patched_exec(module):
            exec_module(module)
            try:
                _patch_optimizer_module(module)
            except Exception as e:
                _say("cannot hook torch.optim: %r" % (e,))

        spec.loader.exec_module = patched_exec
        return spec


def _install():
    global _config
    if _config is not None:
        return
    with open(os.environ["NPU_ADVISOR_CAPTURE"]) as f:
        _config = json.load(f)
    # Child processes (DataLoader workers, launchers' workers) inherit the environment and load
    # this too; each counts its own steps and writes its own trace and status file.
    if "torch.optim.optimizer" in sys.modules:
        _patch_optimizer_module(sys.modules["torch.optim.optimizer"])
    else:
        sys.meta_path.insert(0, _OptimizerImportHook())
    _write_status("started")  # so that npu-advisor can tell "never loaded" from "killed"
    atexit.register(_at_exit)
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)
