"""One RL step of a verl-style trainer through gagar, with the rollouts the trainer generated.

From gagar's repository, with `gagar serve` running on the example pack (the recorded rollouts of
the pack stand in for what the policy generated):
  PYTHONPATH=clients/python GAGAR_URL=http://127.0.0.1:8765 python3 clients/python/examples/verl_step.py examples/rollouts
"""

import json
import os
import sys
from pathlib import Path

from gagar_client import GagarClient, advantages_for_batch, groups_from_batch

# After verl's rollout phase: one row per trajectory. `uid` is the prompt's id, shared by the rows
# of one GRPO group; the patch is the diff the agent left in its workspace; the length counts the
# response tokens (what verl's response_mask covers).
rollouts_dir = Path(sys.argv[1])
uids, task_ids, patches, lengths = [], [], [], []
for task in ("tinyini-delimiter", "semver-prerelease-order"):
    for line in (rollouts_dir / f"{task}.jsonl").read_text().splitlines()[:6]:
        rollout = json.loads(line)
        uids.append(f"prompt-{task}")
        task_ids.append(rollout["taskId"])
        patches.append(rollout["patch"])
        lengths.append(rollout["trajectory"]["tokens"])

client = GagarClient(os.environ["GAGAR_URL"], os.environ.get("GAGAR_TOKEN"))
step = client.step(
    groups_from_batch(uids, task_ids, patches, token_counts=lengths),
    options={"preserve": "token"},  # verl's default loss_agg_mode is token-mean
)
advantages = advantages_for_batch(step["rows"], uids)

# In the trainer: data.batch["advantages"] = torch.tensor(advantages)[:, None] * data.batch["response_mask"]
for group in step["groups"]:
    print(f"{group['id']}: {group['passed']}/{group['candidates']} passed, kept={group['kept']}")
reasons = {(v["groupId"], v["rolloutId"]): v["reason"] for v in step["verdicts"]}
for i, advantage in enumerate(advantages):
    print(f"row {i:2d}  {reasons[(uids[i], str(i))]:<12}  tokens {lengths[i]:5d}  advantage {advantage:+.3f}")
print(f"pass rate {step['metrics']['passRate']:.2f}")
