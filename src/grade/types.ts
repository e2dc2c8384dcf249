import type { Group } from "../contracts/group.ts";
import type { Ranking } from "../contracts/ranking.ts";
import type { ProbeSandbox } from "./agent/run-probe.ts";

/**
 * What a grader may be told besides the group. Kept small on purpose: every grader (static, agent,
 * ensemble) must be callable with just a group, so the pipeline can swap them by name.
 */
export interface GradeContext {
  /** Aborts a long grading session (an agent's tool loop); graders that finish instantly may ignore it. */
  signal?: AbortSignal;
  /** The group's task pack and sandbox, when known: the agent grader then offers run_probe. */
  probeSandbox?: ProbeSandbox;
}

/**
 * Ranks the passing candidates of one group by implementation quality (docs/grader-protocol.md).
 * Must rank only passing candidates, best tier first, and never throw on a bad candidate patch:
 * unreadable input becomes a finding or a documented neutral result.
 */
export interface Grader {
  name: string;
  /** Changes whenever the same group could be ranked differently (new rules, other weights). */
  version: string;
  grade(group: Group, ctx?: GradeContext): Promise<Ranking>;
}
