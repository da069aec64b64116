#!/usr/bin/env python3
"""The Kubernetes manifests of scripts/scale-out/k8s: valid YAML, the right Job shapes, and
command lines that work: each one is run here as its pod would run it (the image's
/opt/npu-advisor, /usr/local/bin/npu-advisor and the /data volume mapped to this checkout, this
build and a temp folder), on an 8-rank generated cluster, one map per JOB_COMPLETION_INDEX,
then the reduce; the facts must reduce to the direct analysis's report.

Usage: k8s_manifests_test.py NPU_ADVISOR_BIN SOURCE_DIR
"""
import math
import os
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("FAILED: python3-yaml is missing (scripts/install-deps.sh installs it)")

BIN, REPO = sys.argv[1], sys.argv[2]
K8S = os.path.join(REPO, "scripts", "scale-out", "k8s")
RANKS = 8


def fail(msg):
    sys.exit("FAILED: " + msg)


def load(name):
    path = os.path.join(K8S, name)
    with open(path) as f:
        docs = list(yaml.safe_load_all(f))
    if len(docs) != 1 or not isinstance(docs[0], dict):
        fail(f"{path}: expected one YAML document, found {len(docs)}")
    job = docs[0]
    if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
        fail(f"{path}: not a batch/v1 Job")
    pod = job["spec"]["template"]["spec"]
    if pod.get("restartPolicy") != "Never":
        fail(f"{path}: restartPolicy must be Never (a failed rank is not retried in place)")
    (container,) = pod["containers"]
    return job, pod, container


def option(cmd, name):
    return cmd[cmd.index(name) + 1] if name in cmd else None


map_job, map_pod, map_c = load("map-job.yaml")
red_job, red_pod, red_c = load("reduce-job.yaml")
spec = map_job["spec"]
if spec.get("completionMode") != "Indexed":
    fail("map-job.yaml: completionMode must be Indexed (JOB_COMPLETION_INDEX picks the ranks)")
# One failed rank must not stop the others: the index fails, not the Job.
rules = spec.get("podFailurePolicy", {}).get("rules", [])
if not any(r.get("action") == "FailIndex" and 2 in r.get("onExitCodes", {}).get("values", []) for r in rules):
    fail("map-job.yaml: map.sh's exit 2 (bad data) should fail its index only (podFailurePolicy FailIndex)")
if not spec.get("backoffLimitPerIndex"):
    fail("map-job.yaml: FailIndex needs backoffLimitPerIndex")

map_cmd, red_cmd = map_c["command"], red_c["command"]
if not map_cmd[0].endswith("/scripts/scale-out/map.sh") or not red_cmd[0].endswith("/scripts/scale-out/reduce.sh"):
    fail(f"the containers should run scripts/scale-out/map.sh and reduce.sh: {map_cmd[0]}, {red_cmd[0]}")
for name in ("--ranks-per-task", "--bin", "--pattern"):
    if option(map_cmd, name) != option(red_cmd, name):
        fail(f"map and reduce disagree on {name}: {option(map_cmd, name)} vs {option(red_cmd, name)}")
if map_cmd[-2:] != red_cmd[-2:]:
    fail(f"map and reduce disagree on PROF WORK: {map_cmd[-2:]} vs {red_cmd[-2:]}")
if map_c["image"] != red_c["image"] or map_pod["volumes"] != red_pod["volumes"]:
    fail("map and reduce should use the same image and volumes")
k = int(option(map_cmd, "--ranks-per-task") or 1)
if spec["completions"] != math.ceil(RANKS / k):
    fail(f"map-job.yaml: completions {spec['completions']} is not ceil({RANKS} ranks / {k}), the example's cluster")

with tempfile.TemporaryDirectory(prefix="npu-advisor-k8s-test.") as tmp:
    data = os.path.join(tmp, "data")
    mount = map_c["volumeMounts"][0]["mountPath"]
    install = map_cmd[0][: -len("/scripts/scale-out/map.sh")]

    def local(cmd):  # the pod's paths -> this machine's
        out = []
        for a in cmd:
            if a == option(cmd, "--bin"):
                a = BIN
            elif a.startswith(install + "/"):
                a = REPO + a[len(install):]
            elif a == mount or a.startswith(mount + "/"):
                a = data + a[len(mount):]
            out.append(a)
        return out

    prof = local([map_cmd[-2]])[0]
    os.makedirs(os.path.dirname(prof), exist_ok=True)
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_cluster.py"), prof, "--ranks", str(RANKS),
                    "--steps", "3", "--slow-rank", "5"], check=True, stdout=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}  # the index comes from Kubernetes
    for i in range(spec["completions"]):
        r = subprocess.run(local(map_cmd), env=dict(env, JOB_COMPLETION_INDEX=str(i)), capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"map pod {i}: exit {r.returncode}: {r.stderr}")
    r = subprocess.run(local(red_cmd), env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"reduce pod: exit {r.returncode}: {r.stderr}")
    work = local([red_cmd[-1]])[0]
    fmt = option(red_cmd, "--format") or "html"
    if not os.path.isfile(os.path.join(work, "report." + fmt)):
        fail(f"the reduce wrote no {work}/report.{fmt}: {r.stdout}")
    if os.path.getsize(os.path.join(work, "missing.txt")) != 0:
        fail("ranks missing: " + open(os.path.join(work, "missing.txt")).read())
    # The facts the map pods wrote reduce to the direct analysis (the JSON reports compared).
    subprocess.run([BIN, "analyze", "--facts", os.path.join(work, "facts"), "-q", "--format", "json",
                    "-o", os.path.join(tmp, "reduced.json")], check=True)
    subprocess.run([BIN, "analyze", prof, "-q", "--format", "json", "-o", os.path.join(tmp, "direct.json")], check=True)
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, os.path.join(here, "compare_reports.py"), os.path.join(tmp, "direct.json"),
                        os.path.join(tmp, "reduced.json")])
    if r.returncode != 0:
        fail("the facts of the map pods do not reduce to the direct report")
print("PASSED: map-job.yaml and reduce-job.yaml command lines run and reduce to the direct report")
