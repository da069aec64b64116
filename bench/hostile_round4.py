#!/usr/bin/env python3
"""Issue 47 (hostile input, round 4): the resource sweep. Writes each hostile input under a
temporary folder, runs `npu-advisor facts` and `analyze` on it under /usr/bin/time -v and prints
exit code, wall time and peak RSS; deletes every input when done. Goal: no crash, under 4 GiB and
60 s whatever the size.

  bench/hostile_round4.py [--bin build/npu-advisor] [--steps 1e3,1e4,1e5,1e6]
                          [--depths 1e3,8e3,1e4] [--mb 100,1000,4500] [--only CASE,...] [--as 4.3e9]

Cases: steps-N (a Kineto GPU trace of N tiny steps: a ProfilerStep, a launch, a kernel each),
depth-N (N record_function ranges of 100-character names nested on one thread, over one kernel),
and the compressed ones, each a .json.gz of about MB MiB decompressed: ws-tail (spaces after the
last event), ws-head (spaces after '['), string (one "name" of MB MiB), zeros (a '[' followed by a
hole of NUL bytes); a uniform run compresses about 1000x (deflate's limit), so 4500 MiB is a 4.6 MB .gz.
"""
import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib

EV = '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":4,"args":{"correlation":%d,"device":0,"stream":7}}'


def steps_trace(path, n):
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n')
        f.write('{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}},\n')
        for i in range(n):
            t = 1000 + i * 20
            f.write('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%d,"dur":15},\n'
                    '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":2,'
                    '"args":{"correlation":%d}},\n' % (i, t, t + 1, i + 1))
            f.write(EV % (t + 4, i + 1) + (",\n" if i + 1 < n else "\n"))
        f.write("]}\n")


def depth_trace(path, n):
    with open(path, "w") as f:
        f.write("[\n")
        f.write('{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":%d},\n'
                % (4 * n + 100))
        for i in range(n):
            name = ("r%06d_" % i) + "x" * 92
            f.write('{"ph":"X","cat":"user_annotation","name":"%s","pid":1,"tid":1,"ts":%d,"dur":%d},\n'
                    % (name, 1 + i, 4 * n - 2 * i))
        f.write('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":1,'
                '"args":{"correlation":1}},\n' % (n + 1))
        f.write(EV % (n + 3, 1) + "\n]\n")


def gz_of_parts(path, parts):
    """parts: (bytes, repeat) pairs, compressed as one stream without holding the whole."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        for data, rep in parts:
            for _ in range(rep):
                f.write(z.compress(data))
        f.write(z.flush())


def compressed(path, case, mb):
    one = (EV % (10, 1)).encode()
    block = 1 << 20
    sp, zero, xs = b" " * block, b"\0" * block, b"x" * block
    if case == "ws-tail":
        parts = [(b"[" + one + b"," + one, 1), (sp, mb), (b"]", 1)]
    elif case == "ws-head":
        parts = [(b"[", 1), (sp, mb), (one + b"]", 1)]
    elif case == "string":
        parts = [(b'[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"', 1), (xs, mb), (b'"},' + one + b"]", 1)]
    elif case == "zeros":
        parts = [(b"[", 1), (zero, mb), (one + b"]", 1)]
    else:
        raise SystemExit("unknown case " + case)
    gz_of_parts(path, parts)


def run(bin_, cmd, path, limit):
    t0 = time.time()
    pre = ["prlimit", "--as=%d" % limit] if limit else []
    p = subprocess.run(pre + ["/usr/bin/time", "-v", bin_, cmd, path, "-q"] + (["--format", "json"] if cmd == "analyze" else []),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.time() - t0
    err = p.stderr
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    status = re.search(r"Exit status: (\d+)", err)
    sig = re.search(r"Command terminated by signal (\d+)", err)
    code = ("sig" + sig.group(1)) if sig else (status.group(1) if status else "?")
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("\t") and "Command" not in l]
    return code, wall, rss, (lines[0][:110] if lines else "")


def num(s):
    return int(float(s))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/npu-advisor")
    ap.add_argument("--steps", default="1e3,1e4,1e5,1e6")
    ap.add_argument("--depths", default="1e3,8e3,1e4")
    ap.add_argument("--mb", default="100,1000,4500")
    ap.add_argument("--cases", default="ws-tail,ws-head,string,zeros")
    ap.add_argument("--only", default="")
    ap.add_argument("--as", dest="limit", type=float, default=0, help="address-space limit in bytes (prlimit)")
    a = ap.parse_args()
    bin_ = os.path.abspath(a.bin)
    only = set(filter(None, a.only.split(",")))
    jobs = [("steps-%d" % num(s), lambda p, n=num(s): steps_trace(p, n), ".json") for s in a.steps.split(",") if s]
    jobs += [("depth-%d" % num(s), lambda p, n=num(s): depth_trace(p, n), ".json") for s in a.depths.split(",") if s]
    for mb in [int(m) for m in a.mb.split(",") if m]:
        for case in filter(None, a.cases.split(",")):
            jobs.append(("%s-%dM" % (case, mb), lambda p, c=case, m=mb: compressed(p, c, m), ".json.gz"))
    print("| input | size on disk | command | exit | wall s | peak RSS MiB | first line of stderr |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="npu-h47-") as tmp:
        for name, make, ext in jobs:
            if only and name.split("-")[0] not in only and name not in only:
                continue
            path = os.path.join(tmp, name + ext)
            make(path)
            size = os.path.getsize(path)
            for cmd in ("facts", "analyze"):
                code, wall, rss, first = run(bin_, cmd, path, int(a.limit))
                print("| %s | %.1f MB | %s | %s | %.1f | %d | %s |" % (name, size / 1e6, cmd, code, wall, rss // 1024,
                                                                    first.replace("|", "/")))
                sys.stdout.flush()
            os.remove(path)


if __name__ == "__main__":
    main()
