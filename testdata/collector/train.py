# A tiny training loop for the collector's end-to-end tests (tests/e2e/collector_e2e_test.cpp):
# a 2-layer MLP on random data, CPU only, runs in about a second.
#   train.py [STEPS] [--exit-code N] [--sleep-after K]   (defaults: 8 steps, exit 0)
# --sleep-after K: after step K, print "sleeping", touch $TRAIN_MARKER (when set) and sleep for
# good, so a test can interrupt it in the middle of the capture.
import os
import sys
import time

import torch

args = sys.argv[1:]
steps = int(args[0]) if args and not args[0].startswith("--") else 8
exit_code = int(args[args.index("--exit-code") + 1]) if "--exit-code" in args else 0
sleep_after = int(args[args.index("--sleep-after") + 1]) if "--sleep-after" in args else -1

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(32, 64)
y = torch.randint(0, 10, (32,))
for i in range(steps):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    if i + 1 == sleep_after:
        print("sleeping", flush=True)
        if os.environ.get("TRAIN_MARKER"):
            open(os.environ["TRAIN_MARKER"], "w").close()
        while True:
            time.sleep(1)
print("trained %d steps, loss %.3f" % (steps, loss.item()), flush=True)
sys.exit(exit_code)
