import {
  type ReceivedRequest,
  type ServerReply,
  startOpenAITestServer,
  toolCallsReply,
} from "../../test/support/openai-test-server.ts";
import { labelsInPrompt, rankBySize } from "./agent/testing/grader-fixtures.ts";
import { graderContract } from "./contract.test-suite.ts";
import { createGrader, graderCapabilities, graderNames } from "./registry.ts";

/** A model over the wire that views every patch, then ranks by size (as test/agent-grader.e2e.test.ts). */
function reviewer(request: ReceivedRequest): ServerReply {
  const messages = request.body.messages;
  const labels = labelsInPrompt(messages[1]!.content!);
  const results = messages.filter((m) => m.role === "tool");
  if (!results.length)
    return toolCallsReply(...labels.map((candidate) => ({ name: "view_patch", arguments: { candidate } })));
  const patches = new Map(labels.map((l, i) => [l, results[i]!.content!]));
  return toolCallsReply({
    name: "submit_ranking",
    arguments: {
      ranking: rankBySize(patches),
      findings: {},
      rationale: "the smallest patch is the cleanest",
    },
  });
}

/** Every registered grader; those that ask a model get a real chat-completions server. */
for (const name of graderNames()) {
  graderContract({
    name,
    async make() {
      if (!graderCapabilities(name)?.needsModel) return { grader: createGrader(name), close: async () => {} };
      const good = await startOpenAITestServer(reviewer);
      const bad = await startOpenAITestServer(() => ({ status: 500 }));
      const options = (baseUrl: string) => ({ baseUrl, model: "contract", retries: 0, passes: 2, seed: "c" });
      return {
        grader: createGrader(name, options(good.baseURL)),
        failingModel: createGrader(name, options(bad.baseURL)),
        close: async () => {
          await good.close();
          await bad.close();
        },
      };
    },
  });
}
