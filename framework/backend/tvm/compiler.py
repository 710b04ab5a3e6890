"""Lower a framework Graph to Relax, build it with TVM, and run it on a VirtualMachine.

Built libraries are cached on disk (``$TWINMODE_CACHE_DIR`` or
``~/.cache/twinmode/compiled``) under a key of the graph fingerprint, the target and
the TVM version, so a second process compiles nothing it has compiled before. Beside each
library, ``<key>.sites.json`` says which IR nodes (by number) each kernel runs, for the
profiler (``profile.py``); it follows from the same graph text, so the key covers it.
"""

from __future__ import annotations

import contextlib
import difflib
import gc
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import tvm
import tvm_ffi
from tvm import relax
from tvm.target import codegen

from ... import profiler
from ..._io import atomic_write, disk_full, skip_optional
from ..._memory import ALIGNMENT, aligned_copy
from ...context import get_context
from ...ir import Graph
from ...ir.symbolic import NotSymbolic, Template
from . import profile
from .lower.lowerings import LOWERINGS
from .lower.relax_builder import to_relax
from .runtime import amx, cache, host_kernels
from .runtime.cache import cache_dir
from .schedule import cuda_graph
from .schedule.schedules import apply_schedules, build_pipeline, schedule_key

_TARGET_KINDS = {"CPU": "llvm", "GPU": "cuda"}
_CPU = tvm.cpu().dlpack_device_type()


def make_target(device_target: str) -> tvm.target.Target:
    if device_target == "GPU":
        arch = os.environ.get("TWINMODE_CUDA_ARCH", "sm_90")
        return tvm.target.Target({"kind": "cuda", "arch": arch},
                                 host=tvm.target.Target(_host_target_dict()))
    return tvm.target.Target(_host_target_dict())


def host_cpu() -> str:
    """The LLVM CPU the host code is built for: this machine's, or ``$TWINMODE_CPU`` (e.g.
    ``haswell``, AVX2 only, to build and test the code path of a CPU without AVX-512 on
    one that has it; the kernels' tiles follow, cpu_rules.target_params)."""
    cpu = os.environ.get("TWINMODE_CPU", "").strip()
    if not cpu:
        return codegen.llvm_get_system_cpu()
    known = codegen.llvm_get_cpu_archlist(tvm.target.Target(
        {"kind": "llvm", "mtriple": "x86_64-unknown-linux-gnu"}))
    if cpu not in known:
        close = difflib.get_close_matches(cpu, list(known), n=3)
        raise ValueError(f"TWINMODE_CPU={cpu!r} is not a CPU LLVM knows"
                         + (f" (did you mean {', '.join(close)}?)" if close else "")
                         + "; e.g. haswell (AVX2), skylake-avx512, znver4, or unset it")
    return cpu


def _host_target_dict() -> dict[str, Any]:
    cpu = host_cpu()
    target = {"kind": "llvm", "mtriple": "x86_64-unknown-linux-gnu", "mcpu": cpu,
              "num-cores": os.cpu_count() or 1}
    if not os.environ.get("TWINMODE_CPU", "").strip():  # this machine: its bf16 instructions
        mattr = amx.host_mattr()  # (LLVM's CPU name may lack them, runtime/amx.py)
        if mattr:
            target["mattr"] = mattr
    return target


class Executable:
    """A built graph on its device: conversions in, ``__call__``, arrays out."""

    def __init__(self, module: Any, target: tvm.target.Target, device_target: str,
                 cache_hit: bool, tune_seconds: float) -> None:
        self.target = target
        self.target_name = target.kind.name
        self.cache_hit = cache_hit
        self.compile_seconds = 0.0  # set by compile_graph once the VM exists
        self.tune_seconds = tune_seconds
        self.library: Path | None = None  # the exported library in the disk cache
        self.device = tvm.cuda(0) if device_target == "GPU" else tvm.cpu(0)
        self.vm = None if module is None else relax.VirtualMachine(module, self.device)
        self._main = None if module is None else self.vm["main"]
        self.graph: Graph | None = None  # what was compiled (set by compile_graph)
        # kernel launches per step (cuda_graph.launch_counts); None where not counted
        self.launches: dict[str, Any] | None = None
        # a step replayed as a CUDA graph reads its inputs from fixed buffers and writes its
        # outputs (but the new parameter values, written into their inputs) into more of
        # them, appended to the arguments (cuda_graph.resident_step)
        self.resident: list[Any] | None = None
        self.resident_outputs: list[tuple[tuple[int, ...], str]] = []
        self.sites_path: Path | None = None
        self._sites: dict[str, Any] | None = None

    def to_device(self, array: np.ndarray) -> Any:
        """``array`` on the device. On the CPU it is borrowed through DLPack (the graph
        never writes its inputs), after an aligned copy if it does not start on the
        64-byte boundary the kernels assume."""
        array = np.asarray(array)
        if array.size == 0:  # no data to borrow (NumPy's pointer of nothing is unaligned)
            return tvm.runtime.empty(array.shape, str(array.dtype), self.device)
        if self.device.dlpack_device_type() != _CPU:
            return tvm.runtime.tensor(np.asarray(array, order="C"), self.device)
        if not array.flags.c_contiguous or array.ctypes.data % ALIGNMENT:
            array = aligned_copy(array)
        try:
            return tvm_ffi.from_dlpack(array, require_alignment=ALIGNMENT, require_contiguous=True)
        except (BufferError, TypeError, ValueError):  # e.g. read-only arrays on older NumPy
            return tvm.runtime.tensor(array, self.device)

    def owned(self, array: Any, borrowed: list[Any]) -> Any:
        """``array``, copied if it is one of the ``borrowed`` inputs (so that state kept
        across calls, such as a parameter, never aliases the caller's memory)."""
        if any(array.same_as(b) for b in borrowed):
            return tvm.runtime.tensor(array.numpy(), self.device)
        return array

    def param_array(self, param: Any) -> Any:
        """The parameter's value on this device, uploaded only when the host copy is newer."""
        resident = param._device
        if resident is not None and resident.device == self.device:
            return resident
        array = self.to_device(param.asnumpy())
        param._cache_device(array)
        return array

    def __call__(self, *args: Any) -> list[Any]:
        if get_context("profile"):  # graph-mode profiling: framework.profiler times some calls
            return profiler.run(self, args)
        return list(self._main(*self._staged(args)))

    def run(self, *args: Any) -> list[Any]:
        """The call, never timed."""
        return list(self._main(*self._staged(args)))

    def timed_call(self, *args: Any) -> tuple[list[Any], list[tuple[str, float]], float]:
        """The call with each VM call instruction timed (``profile.timed_call``)."""
        return profile.timed_call(self._main, self.vm, self.device, self._staged(args))

    def _staged(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``args`` in this step's fixed buffers when it is replayed as a CUDA graph (the
        graph holds their addresses), the output buffers after them: each argument is
        copied into its buffer unless it is that buffer (a parameter updated in place by the
        last call). The outputs are overwritten by the next call: callers copy them out."""
        if self.resident is None:
            return args
        if not self.resident:
            self.resident.extend(tvm.runtime.empty(a.shape, a.dtype, self.device) for a in args)
            self.resident.extend(tvm.runtime.empty(shape, dtype, self.device)
                                 for shape, dtype in self.resident_outputs)
        for buffer, arg in zip(self.resident, args):
            if not arg.same_as(buffer):
                buffer.copyfrom(arg)
        return tuple(self.resident)

    def sites(self) -> dict[str, Any] | None:
        """Which nodes each kernel runs (``profile.Provenance.sites``), or None when the
        cache entry has no record of it (the profile then lists its kernels unattributed)."""
        if self._sites is None and self.sites_path is not None:
            try:
                self._sites = json.loads(self.sites_path.read_text())
            except (OSError, ValueError):
                return None
        return self._sites


def compile_graph(graph: Graph, device_target: str, ir_dir: str | None, fingerprint: str,
                  run: bool = True, donated: dict[int, int] | None = None,
                  template: Template | None = None) -> Executable:
    """Build (or load from the disk cache) the graph for ``device_target``; with ``run``
    False only build (e.g. CUDA code on a machine without a GPU): nothing is loaded.
    ``donated`` (output index -> input index: the output is that input's new value) lets a
    CUDA step update its inputs in place and run as one CUDA graph (schedule/cuda_graph.py).
    With a ``template`` (:mod:`framework.ir.symbolic`) the build has symbolic shapes: its key
    is the template's signature (not the traced sizes), so one library serves every size; a
    lowering that cannot take them raises :class:`framework.ir.symbolic.NotSymbolic`."""
    target = make_target(device_target)
    host_kernels.register_graph(graph, LOWERINGS)  # a cached library calls them too
    resident = cuda_graph.enabled(target) and donated is not None
    donated = dict(donated or {}) if resident else None
    key = hashlib.sha256(json.dumps([fingerprint, str(target), tvm.__version__,
                                     schedule_key(target), sorted((donated or {}).items())
                                     if resident else None]
                                    + ([template.signature()] if template is not None else [])
                                    ).encode())
    library = cache_dir() / f"{key.hexdigest()[:40]}.so"
    artifacts = library.with_suffix(".ir")  # IR artifacts of this build, kept for later dumps
    start = time.perf_counter()
    tune_seconds = 0.0
    try:
        cache.prepare(library.parent)
    except OSError as error:  # a full disk: compiled in memory below (_build)
        if disk_full(error) is None:
            raise
    hit = (cache.verified(library) and (not ir_dir or artifacts.is_dir())
           and (not resident or _read_launches(library) is not None))
    module = None
    if hit and run:
        _require_device(device_target)
        try:
            module = tvm.runtime.load_module(str(library))
        except Exception as error:  # verified yet unloadable (e.g. another TVM): rebuild it
            cache.discard(library, f"{type(error).__name__}: {str(error).splitlines()[0]}")
            hit = False
    unsaved = sites = counted = None  # a build the cache could not keep (full disk): run from memory
    if not hit:
        tune_seconds, unsaved, sites, counted = _build(graph, target, library, artifacts if ir_dir else None,
                                                       donated, template)
    if ir_dir and artifacts.is_dir():
        _optional_ir(ir_dir, lambda: _copy_ir(artifacts, Path(ir_dir)))
    if run and module is None:
        _require_device(device_target)
        module = unsaved.jit() if unsaved is not None else tvm.runtime.load_module(str(library))
    executable = Executable(module if run else None, target, device_target, hit, tune_seconds)
    executable.library = library  # the exported build (bench/gpu_check.py ships it)
    executable.graph, executable.sites_path, executable._sites = graph, _sites_path(library), sites
    executable.launches = (counted or None) if counted is not None else _read_launches(library)
    outputs = (executable.launches or {}).get("resident_outputs")
    if resident and outputs is not None:  # cuda_graph.resident_step: fixed input addresses
        executable.resident = []
        executable.resident_outputs = [(tuple(shape), dtype) for shape, dtype in outputs]
    executable.compile_seconds = time.perf_counter() - start  # VM creation included
    return executable


def _sites_path(library: Path) -> Path:
    return library.with_suffix(".sites.json")


def _launches_path(library: Path) -> Path:
    return library.with_suffix(".launches.json")


def _read_launches(library: Path) -> dict[str, Any] | None:
    try:
        return json.loads(_launches_path(library).read_text())
    except (OSError, ValueError):
        return None


def _build(graph: Graph, target: tvm.target.Target, library: Path, artifacts: Path | None,
           donated: dict[int, int] | None = None, template: Template | None = None
           ) -> tuple[float, Any, dict[str, Any], dict[str, Any]]:
    """Schedule, build and export ``graph`` to ``library`` (atomically); IR artifacts to
    ``artifacts`` when asked. Returns the tuning seconds, when the cache's disk is full
    (one warning) the built executable to run from memory (else None: load ``library``),
    the kernels' node sites (also written beside the library) and, on CUDA, the kernel
    launches per step (cuda_graph.launch_counts; beside the library too)."""
    staging = folder = cache.temp_path(artifacts) if artifacts else None
    if staging:
        shutil.rmtree(staging, ignore_errors=True)
        staging = _optional_ir(staging, lambda: staging.mkdir(parents=True))
    with target:  # lowerings choose CPU-only kernels by it (lowerings/base.py on_cpu)
        mod = _lower(graph, template)
    outputs = None
    if donated is not None:
        mod, outputs = cuda_graph.resident_step(mod, donated)
    if staging:
        staging = _optional_ir(staging, lambda: _write(staging, "10_relax.py", mod.script()))
    provenance = profile.Provenance()
    mod, tune_seconds = apply_schedules(mod, target, provenance)
    sites = provenance.sites(mod)
    if staging:
        staging = _optional_ir(staging, lambda: _write(staging, "11_relax_opt.py", mod.script()))
    if target.kind.name == "cuda":
        _register_cuda_compiler()
    counted: dict[str, Any] = {}
    capture = contextlib.nullcontext() if outputs is None else tvm.transform.PassContext(
        opt_level=tvm.transform.PassContext.current().opt_level,
        config={**dict(tvm.transform.PassContext.current().config), cuda_graph.USE_CUDA_GRAPH: True})
    with _without_known_noise(), capture:
        executable = tvm.compile(mod, target=target, relax_pipeline=build_pipeline(target, counted))
    if outputs is not None:  # the output buffers the Executable appends to each call
        counted["resident_outputs"] = [[list(shape), dtype] for shape, dtype in outputs]
    if staging:
        def publish() -> None:
            _write_kernels(executable, target, staging)
            shutil.rmtree(artifacts, ignore_errors=True)
            os.replace(staging, artifacts)
        _optional_ir(staging, publish)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)  # (left by a full disk only)
    try:
        atomic_write(_launches_path(library), json.dumps(counted).encode())
        atomic_write(_sites_path(library), json.dumps(sites).encode())  # before the library
        cache.store(library, executable.export_library)  # checksummed, fsynced, renamed
    except Exception as error:
        reason = disk_full(error)
        if reason is None:
            raise
        skip_optional("compiled-kernel cache", library.parent, reason,
                      "compiling in memory: kernels are not kept for the next run (free space "
                      "there or set TWINMODE_CACHE_DIR to another folder)")
        return tune_seconds, executable, sites, counted
    return tune_seconds, None, sites, counted


def _lower(graph: Graph, template: Template | None) -> tvm.IRModule:
    """``to_relax``; a symbolic lowering that fails leaves a half-built BlockBuilder whose
    destruction warns on stderr (nothing to act on: the function compiles per size)."""
    if template is None:
        return to_relax(graph)
    with _without_known_noise():
        try:
            return to_relax(graph, template)
        except NotSymbolic as error:
            reason = str(error)
        gc.collect()  # the builder goes here, with the exception's frames
    raise NotSymbolic(reason)


def _copy_ir(artifacts: Path, ir_dir: Path) -> None:
    """The build's IR files into ``ir_dir``, each whole or not at all (a full disk)."""
    for source in sorted(artifacts.iterdir()):
        atomic_write(ir_dir / source.name, source.read_bytes())


def _optional_ir(folder: str | Path, write: Callable[[], Any]) -> str | Path | None:
    """``write()`` an IR artifact into ``folder``; on a full disk warn once and give None
    (no more IR for this build: the run goes on)."""
    try:
        write()
    except OSError as error:
        reason = disk_full(error)
        if reason is None:
            raise
        place = cache_dir() if Path(folder).parent == cache_dir() else folder
        skip_optional("IR artifacts in", place, reason, "the IR dump is skipped and the run goes on")
        return None
    return folder


# TVM's own kernels mark a region ``pragma_scope`` that its LLVM code generator then warns
# it does not know (TOPI's scatter_elements: every graph-mode Embedding gradient); a line
# on the user's terminal with nothing to act on
# (and a BlockBuilder left half-built by a symbolic lowering that failed, _lower)
_KNOWN_NOISE = re.compile(rb"^\[[0-9:]+\] \S+(codegen_cpu\.cc:\d+: Warning: Unknown pragma pragma_scope"
                          rb"|block_builder\.cc:\d+: Warning: BlockBuilder destroyed with remaining "
                          rb"blocks!)$")


@contextlib.contextmanager
def _without_known_noise():
    """Native stderr (file descriptor 2) passes through, less the lines of _KNOWN_NOISE."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            kept = [line for line in captured.read().splitlines(keepends=True)
                    if not _KNOWN_NOISE.match(line.rstrip(b"\n"))]
            if kept:
                os.write(2, b"".join(kept))


def _register_cuda_compiler() -> None:
    """Register TVM's CUDA compiler callback. Where TVM's CUDA runtime is loaded (a machine
    with the CUDA driver), the build compiles the kernels through it; elsewhere the library
    keeps the CUDA C, and loading it on a GPU machine compiles it through the same callback
    (TVM raises "requires tvm_callback_cuda_compile to be registered" without it). TVM's
    default compiler is NVRTC through ``cuda-bindings``; without that package, nvcc where
    it is on the PATH."""
    import importlib.util

    from tvm.support import nvcc  # noqa: F401 - registers tvm_callback_cuda_compile

    if "TVM_CUDA_COMPILE_MODE" not in os.environ and importlib.util.find_spec("cuda") is None:
        if shutil.which("nvcc"):
            os.environ["TVM_CUDA_COMPILE_MODE"] = "nvcc"


def _require_device(device_target: str) -> None:
    if device_target == "GPU":
        _register_cuda_compiler()  # a library holding CUDA C is compiled as it loads
    if device_target == "GPU" and not tvm.cuda(0).exist:
        raise RuntimeError(
            "device_target 'GPU': no CUDA GPU is visible on this machine (the CUDA code was "
            "generated, and written with save_graphs); use device_target='CPU' "
            "(`--device cpu`), or run where a GPU is present")


def _write(directory: str | Path, name: str, text: str) -> None:
    atomic_write(Path(directory) / name, text.encode())


def _write_kernels(executable: Any, target: tvm.target.Target, ir_dir: str | Path) -> None:
    """Generated code: LLVM IR on CPU; CUDA C (and PTX where nvcc exists) on GPU."""
    imports, stack = [], list(executable.mod.imports)
    while stack:  # device modules hang below the host module
        module = stack.pop(0)
        imports.append(module)
        stack.extend(module.imports)
    if target.kind.name == "llvm":
        sources = [m.inspect_source("ll") for m in imports if m.kind == "llvm"]
        _write(ir_dir, "20_kernels.ll", "\n".join(sources))
        return
    cuda = [m for m in imports if m.kind == "cuda"]
    source = "\n".join(m.inspect_source("") for m in cuda)
    _write(ir_dir, "20_kernels.cu", source)
    try:
        from tvm.support import nvcc

        with target:
            ptx = nvcc.compile_cuda(source, target_format="ptx", compiler="nvcc",
                                    arch=target.attrs.get("arch", "sm_90"))
        _write(ir_dir, "20_kernels.ptx", bytes(ptx).decode() if not isinstance(ptx, str) else ptx)
    except Exception as error:  # no nvcc here: the CUDA C is still written
        _write(ir_dir, "20_kernels.ptx.missing", f"PTX not generated: {error}\n")
