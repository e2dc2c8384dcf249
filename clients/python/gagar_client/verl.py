"""From verl-shaped batch arrays to a gagar step, and from gagar's rows back to one advantage per row.

verl keeps one row per trajectory, with the prompt's ``uid`` (``data.non_tensor_batch["uid"]``)
shared by the rows of one GRPO group. These helpers take plain sequences (lists, tuples, numpy
arrays, anything indexable) and use only the standard library.
"""


def groups_from_batch(uids, task_ids, patches, token_counts=None, turns=None, candidate_ids=None):
    """Step groups (for ``GagarClient.step``) from per-row arrays.

    Rows with the same ``uids[i]`` form one group, in order of first appearance, and must share a
    task id. A row's candidate id is ``candidate_ids[i]`` when given, else its row index, so the
    advantages map straight back (``advantages_for_batch``). ``token_counts`` (response tokens, as
    verl's ``response_mask`` counts them) is what ``options={"preserve": "token"}`` needs.
    """
    n = len(uids)
    for name, values in (("task_ids", task_ids), ("patches", patches), ("token_counts", token_counts),
                         ("turns", turns), ("candidate_ids", candidate_ids)):
        if values is not None and len(values) != n:
            raise ValueError(f"{name} has {len(values)} rows, uids has {n}")
    groups = {}
    for i in range(n):
        uid = str(uids[i])
        group = groups.get(uid)
        if group is None:
            group = groups[uid] = {"id": uid, "taskId": str(task_ids[i]), "candidates": []}
        elif group["taskId"] != str(task_ids[i]):
            raise ValueError(f"row {i}: group {uid} mixes tasks {group['taskId']} and {task_ids[i]}")
        candidate = {"id": str(candidate_ids[i]) if candidate_ids is not None else str(i), "patch": patches[i]}
        trajectory = {}
        if token_counts is not None:
            trajectory["tokens"] = int(token_counts[i])
        if turns is not None:
            trajectory["turns"] = int(turns[i])
        if trajectory:
            candidate["trajectory"] = trajectory
        group["candidates"].append(candidate)
    return list(groups.values())


def advantages_for_batch(rows, uids, candidate_ids=None, missing=None):
    """One advantage per batch row, in batch order, from gagar's advantage rows.

    Row i gets the ``advantage`` of the gagar row of group ``uids[i]`` and candidate
    ``candidate_ids[i]`` (default: the row index, as ``groups_from_batch`` names them). A row
    without a gagar row raises KeyError, unless ``missing`` gives the value to use (0.0 is what GRPO
    gives a group whose rewards are all equal). Broadcast the result over the response tokens:
    ``advantages = torch.tensor(result)[:, None] * response_mask``.
    """
    by_key = {(r["groupId"], r["candidateId"]): r["advantage"] for r in rows}
    out = []
    for i in range(len(uids)):
        key = (str(uids[i]), str(candidate_ids[i]) if candidate_ids is not None else str(i))
        value = by_key.get(key)
        if value is None:
            if missing is None:
                raise KeyError(f"row {i}: gagar returned no advantage for group {key[0]} candidate {key[1]}")
            value = missing
        out.append(float(value))
    return out
